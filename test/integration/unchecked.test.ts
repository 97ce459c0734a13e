// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write manifest reference syntax literally
/**
 * `unchecked:`, the escape hatch for settings newer than forgeform's schema: validate names each one in a warning;
 * plan shows them like any field (`unchecked.<name>`), apply sends them as written, the next plan compares them as
 * the platform gives them back; a secret in one comes from `${env:}` and is masked; export writes them only when
 * asked. A setting the schema knows, or a secret written in clear, is refused.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, Bench } from "./helpers.js";
import { answerEdited, startProxy } from "./proxy.js";

const fixture = { groups: [{ path: "hatch" }], projects: [{ path: "hatch/templates" }] };

describe("unchecked settings", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const settings = () => bench.get<Record<string, unknown>>("/application/settings");

  it("are named by validate, shown, applied as written, read back, and converge", async () => {
    const m = bench.manifest(
      `version: 1
instance:
  application_settings:
    signup_enabled: false
    unchecked:
      default_branch_name: trunk
      disable_feed_token: true
projects:
  hatch/templates:
    description: with approvals
    unchecked:
      approvals_before_merge: 2
`,
      "hatch.yaml",
    );
    const validated = await bench.cli(["validate", m]);
    expect(validated.code, validated.err).toBe(0);
    const said = validated.out + validated.err;
    for (const [line, name] of [
      [6, "default_branch_name"],
      [7, "disable_feed_token"],
      [12, "approvals_before_merge"],
    ] as const) {
      expect(said).toMatch(
        new RegExp(
          `${m}:${line}:\\d+: \\S*unchecked\\.${name}: warning: ${name} is not a setting forgeform checks: it is sent and compared as written`,
        ),
      );
    }
    const plan = await bench.cli(["plan", m]);
    expect(plan.out).toContain('~ unchecked.default_branch_name: null -> "trunk"');
    expect(plan.out).toContain("~ unchecked.disable_feed_token: false -> true");
    expect(plan.out).toContain("~ unchecked.approvals_before_merge: 0 -> 2");
    const applied = await bench.cli(["apply", "--yes", m]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(await settings()).toMatchObject({ default_branch_name: "trunk", disable_feed_token: true });
    expect(await bench.get("/projects/hatch%2Ftemplates")).toMatchObject({ approvals_before_merge: 2 });
    const again = await bench.cli(["plan", "--detailed-exitcode", m]);
    expect(again.code, again.out).toBe(0);

    // Changed on the platform: drift, as for any field.
    const res = await fetch(`${bench.sandbox.url}/api/v4/application/settings`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ default_branch_name: "main" }),
    });
    expect(res.status).toBe(200);
    const drift = await bench.cli(["drift", m]);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain('unchecked.default_branch_name: "main" -> "trunk"');
  });

  it("mask a value from ${env:} like any secret, and refuse one written in clear or a setting the schema knows", async () => {
    const secret = "unchecked-secret-value-42";
    const m = bench.manifest(
      `version: 1
instance:
  application_settings:
    unchecked:
      custom_http_clone_url_root: "https://\${env:CLONE_HOST}"
`,
      "secret.yaml",
    );
    const env = { CLONE_HOST: secret };
    const runs = [
      await bench.cli(["plan", m], env),
      await bench.cli(["plan", "--format", "json", m], env),
      await bench.cli(["apply", "--yes", "--debug", m], env),
    ];
    // Both sides masked, as for any field whose desired value is a secret.
    expect(runs[0]!.out).toContain("~ unchecked.custom_http_clone_url_root: (sensitive) -> (sensitive)");
    for (const r of runs) expect(r.out + r.err).not.toContain(secret);
    expect((await settings())["custom_http_clone_url_root"]).toBe(`https://${secret}`);

    const bad = bench.manifest(
      `version: 1
instance:
  application_settings:
    unchecked:
      signup_enabled: false
      elasticsearch_password: hunter2-in-clear
`,
      "bad.yaml",
    );
    const refused = await bench.cli(["validate", bad]);
    expect(refused.code).toBe(1);
    const said = refused.out + refused.err;
    expect(said).toContain(
      "unchecked.signup_enabled: signup_enabled is a field forgeform knows: write it as signup_enabled, not under unchecked",
    );
    expect(said).toContain(
      "unchecked.elasticsearch_password: elasticsearch_password looks like a secret: write it as ${env:NAME} or ${file:path}",
    );
    expect(said).not.toContain("hunter2-in-clear");
  });

  it("are exported only when asked for, and the export plans back to nothing", async () => {
    const plain = join(bench.dir, "plain");
    const asked = join(bench.dir, "asked");
    expect((await bench.cli(["export", "--instance", "--group", "hatch", "--out", plain])).code).toBe(0);
    expect(readFileSync(join(plain, "instance.yaml"), "utf8")).not.toContain("unchecked");
    expect(readFileSync(join(plain, "hatch.yaml"), "utf8")).not.toContain("unchecked");
    const run = await bench.cli([
      "export",
      "--instance",
      "--group",
      "hatch",
      "--unchecked",
      "default_branch_name",
      "--unchecked",
      "approvals_before_merge",
      "--out",
      asked,
    ]);
    expect(run.code, run.err).toBe(0);
    expect(readFileSync(join(asked, "instance.yaml"), "utf8")).toMatch(
      /unchecked:\n\s+default_branch_name: main\n/,
    );
    expect(readFileSync(join(asked, "hatch.yaml"), "utf8")).toMatch(
      /hatch\/templates:\n(\s+\S.*\n)*\s+unchecked:\n\s+approvals_before_merge: 2\n/,
    );
    const plan = await bench.cli(["plan", "--detailed-exitcode", asked]);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("of a project are sent with its create, and the next plan has nothing to do", async () => {
    const file = bench.manifest(
      `version: 1
projects:
  hatch/fresh:
    description: made with approvals
    unchecked:
      approvals_before_merge: 3
`,
      "fresh.yaml",
    );
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(
      (await bench.get<Record<string, unknown>>("/projects/hatch%2Ffresh"))["approvals_before_merge"],
    ).toBe(3);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("of projects read together from their group's listing are read back on their own, and converge", async () => {
    const own = await Bench.start({
      fixture: { groups: [{ path: "pair" }], projects: [{ path: "pair/one" }, { path: "pair/two" }] },
      edition: "licensed",
    });
    try {
      // Two projects with settings under one group come from one listing, which does not keep unchecked settings.
      const file = own.manifest(`version: 1
projects:
  pair/one:
    description: first
    unchecked:
      approvals_before_merge: 2
  pair/two:
    description: second
`);
      expect((await own.cli(["apply", "--yes", file])).code).toBe(0);
      const plan = await own.cli(["plan", "--detailed-exitcode", file]);
      expect(plan.code, plan.out + plan.err).toBe(0);
      // A listing that does not show the setting: the project is read on its own for it.
      const reads: string[] = [];
      const proxy = await startProxy(own.sandbox.url, async (req, res) => {
        if (req.method === "GET") reads.push((req.url ?? "").replace(/\?.*$/, ""));
        if (req.method !== "GET" || !/^\/api\/v4\/groups\/(pair|\d+)\/projects/.test(req.url ?? ""))
          return false;
        return answerEdited(own.sandbox.url, req, res, (listed) => {
          for (const p of listed as Record<string, unknown>[]) delete p["approvals_before_merge"];
        });
      });
      try {
        const again = await own.cli(["plan", "--detailed-exitcode", file], { FORGEFORM_URL: proxy.url });
        expect(again.code, again.out + again.err).toBe(0);
        expect(reads).toContain("/api/v4/projects/pair%2Fone");
        // Export, asked for the setting, does not know which projects set it: it reads each project on its own, and
        // a listing that does not show the setting loses nothing.
        const out = join(own.dir, "exported");
        const exported = await own.cli(
          ["export", "--group", "pair", "--unchecked", "approvals_before_merge", "--out", out],
          { FORGEFORM_URL: proxy.url },
        );
        expect(exported.code, exported.err).toBe(0);
        const text = readFileSync(join(out, "pair.yaml"), "utf8");
        expect(text).toMatch(
          / {2}pair\/one:\n(\s{4}\S.*\n)*\s{4}unchecked:\n\s{6}approvals_before_merge: 2\n/,
        );
        expect(text).toMatch(
          / {2}pair\/two:\n(\s{4}\S.*\n)*\s{4}unchecked:\n\s{6}approvals_before_merge: 0\n/,
        );
      } finally {
        await proxy.close();
      }
    } finally {
      await own.stop();
    }
  });
});
