import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apply,
  type Deployer,
  deployersByName,
  expectNoChanges,
  FIXTURE,
  lifecycle,
  planJson,
  sortedDeployers,
} from "./cycle.js";
import { Bench } from "./helpers.js";

function manifest(levels: string[] | undefined, policy?: string): string {
  return `version: 1
projects:
  acme/platform/api:
    protected_environments:${levels ? "" : " []"}
${levels ? `      - name: production\n        deploy_access_levels:\n${levels.map((l) => `          - ${l}\n`).join("")}` : ""}${
  policy ? `    unmanaged:\n      protected_environments: ${policy}\n` : ""
}`;
}

describe("protected environments [licensed]", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("goes through the lifecycle; a change is a replacement that says why", async () => {
    const flow = (v: Deployer[]) =>
      v.map(
        (l) =>
          `{ ${Object.entries(l)
            .map(([k, x]) => `${k}: ${x}`)
            .join(", ")} }`,
      );
    await lifecycle<Deployer[]>({
      bench,
      address: 'project["acme/platform/api"].protected_environment["production"]',
      render: (v, policy) => manifest(flow(v), policy),
      base: [{ access_level: 40 }],
      edits: [
        {
          values: [{ access_level: 40 }, { user: "alice" }],
          fields: ["deploy_access_levels"],
          action: "replace",
        },
        {
          values: [{ access_level: 30 }, { group: "acme" }],
          fields: ["deploy_access_levels"],
          action: "replace",
        },
      ],
      without: (policy) => manifest(undefined, policy),
      // The platform's deployers name users and groups by id: back to names by independent reads.
      read: async () => {
        const envs = (
          await bench.get<{ name: string; deploy_access_levels: Parameters<typeof deployersByName>[1] }[]>(
            "/projects/acme%2Fplatform%2Fapi/protected_environments",
          )
        ).filter((e) => e.name === "production");
        return Promise.all(
          envs.map(async (e) => ({
            name: e.name,
            deploy_access_levels: await deployersByName(bench, e.deploy_access_levels),
          })),
        );
      },
      expected: (v) => ({ name: "production", deploy_access_levels: sortedDeployers(v) }),
    });
  });

  it("compares deployers as a set and resolves names to ids", async () => {
    await apply(
      bench,
      bench.manifest(manifest(["{ access_level: 40 }", "{ user: alice }", "{ group: acme }"])),
    );
    await expectNoChanges(
      bench,
      bench.manifest(manifest(["{ group: acme }", "{ user: alice }", "{ access_level: 40 }"])),
    );
    const plan = await planJson(bench, bench.manifest(manifest(["{ access_level: 60 }", "{ user: alice }"])));
    expect(plan.changes[0]?.reason).toContain("no update call");
    // Deployers are shown as the manifest names them, not as the ids they resolve to, and roles by name.
    expect(plan.changes[0]?.fields[0]?.after).toEqual([{ access_level: "admin" }, { user: "alice" }]);
    expect(plan.changes[0]?.fields[0]?.before).toEqual([
      { access_level: "maintainer" },
      { group: "acme" },
      { user: "alice" },
    ]);
  });

  it("takes roles by name or number alike", async () => {
    await apply(bench, bench.manifest(manifest(["{ access_level: 40 }", "{ access_level: developer }"])));
    const [env] = (
      await bench.get<{ name: string; deploy_access_levels: { access_level: number }[] }[]>(
        "/projects/acme%2Fplatform%2Fapi/protected_environments",
      )
    ).filter((e) => e.name === "production");
    expect(env?.deploy_access_levels.map((l) => l.access_level).sort()).toEqual([30, 40]);
    await expectNoChanges(
      bench,
      bench.manifest(manifest(["{ access_level: maintainer }", "{ access_level: 30 }"])),
    );
  });

  it("shows a list under unchecked: as written, not as deployers", async () => {
    // A setting newer than the schema (approval rules, from 14.x) is shown as written: only the deployers are
    // named back from ids and roles.
    const rules = [
      { user_id: 2, required_approvals: 1 },
      { access_level: 40, required_approvals: 2 },
    ];
    const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    protected_environments:
      - name: staging
        deploy_access_levels: [{ access_level: 40 }]
        unchecked:
          approval_rules: ${JSON.stringify(rules)}
`);
    const plan = await planJson(bench, file);
    const change = plan.changes.find((c) => c.address.endsWith('protected_environment["staging"]'));
    expect(change?.action).toBe("create");
    expect(change?.fields.find((f) => f.field === "unchecked.approval_rules")?.after).toEqual(rules);
    expect(change?.fields.find((f) => f.field === "deploy_access_levels")?.after).toEqual([
      { access_level: "maintainer" },
    ]);
  });

  it("reports an unknown user by name", async () => {
    const r = await bench.cli(["plan", bench.manifest(manifest(["{ user: nobody-here }"]))]);
    expect(r.code).toBe(1);
    const text = r.out.replace(/\s+/g, " ");
    // Points at the deployer entry's `user` value: line 7, column 21 of the manifest.
    expect(text).toMatch(
      /forgeform\.yaml:7:21: project\["acme\/platform\/api"\]\.protected_environment\["production"\]\.deploy_access_levels\[0\]\.user: user "nobody-here" does not exist/,
    );
  });

  it("is a clear plan error on the core edition", async () => {
    const core = await Bench.start({ fixture: FIXTURE, edition: "core" });
    try {
      const r = await core.cli(["plan", core.manifest(manifest(["{ access_level: 40 }"]))]);
      expect(r.code).toBe(1);
      expect(r.out.replace(/\s+/g, " ")).toMatch(/protected_environments.*licensed/);
      // Nothing is planned for them, and nothing is read for them either.
      const json = JSON.parse(
        (await core.cli(["plan", "--format", "json", core.manifest(manifest(["{ access_level: 40 }"]))])).out,
      ) as {
        changes: unknown[];
        requests: { by_endpoint: Record<string, number> };
      };
      expect(json.changes).toEqual([]);
      expect(Object.keys(json.requests.by_endpoint).some((e) => e.includes("protected_environments"))).toBe(
        false,
      );
    } finally {
      await core.stop();
    }
  });
});
