/**
 * Plan outcomes that no test reached before (docs/engine-sample-survivors.txt, its NoCoverage part), each as a user
 * meets it, through the CLI against the sandbox over HTTP: a group marked absent whose contents cannot be listed, a
 * read-only object marked absent, a project a pattern matched that is deleted before the plan reads it, and the
 * count of several changes inside an archived project.
 */
import { afterEach, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { answerJson, type RunningProxy, startProxy } from "./proxy.js";

interface Problem {
  address: string;
  message: string;
  source?: { file: string; line: number; col: number };
}

interface Plan {
  changes: { address: string; action: string; reason?: string }[];
  errors: Problem[];
  warnings: Problem[];
}

let bench: Bench | undefined;
let proxy: RunningProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await bench?.stop();
  bench = undefined;
});

/** Starts this test's sandbox (stopped after it). */
async function start(options: Parameters<typeof Bench.start>[0]): Promise<Bench> {
  bench = await Bench.start(options);
  return bench;
}

/** `plan --format json`: its exit code and the plan. */
async function plan(b: Bench, file: string, args: string[] = [], env: Record<string, string> = {}) {
  const r = await b.cli(["plan", "--format", "json", ...args, file], env);
  expect(r.err).toBe("");
  return { code: r.code, plan: JSON.parse(r.out) as Plan };
}

/** Where a problem points: the line and column in the bench's manifest. */
const at = (b: Bench, line: number, col: number) => ({ file: `${b.dir}/forgeform.yaml`, line, col });

const DOCS = '{ name: docs, link_url: "https://d.example/x", image_url: "https://d.example/b.svg" }';
const LOGS = '{ name: logs, link_url: "https://l.example/x", image_url: "https://l.example/b.svg" }';

describe("a group marked absent whose contents cannot be listed", () => {
  it("is a plan error on the group, at its entry, naming the failed request; nothing is said to go with it", async () => {
    const b = await start({
      fixture: {
        groups: [{ path: "keep" }, { path: "lowtest" }, { path: "lowtest/sub" }],
        projects: [{ path: "lowtest/p1" }],
      },
    });
    // The listing of its subgroups fails (a platform error); everything else goes through.
    proxy = await startProxy(b.sandbox.url, (req, res) =>
      /^\/api\/v4\/groups\/\d+\/descendant_groups\b/.test(req.url ?? "")
        ? answerJson(res, 500, { message: "500 Internal Server Error" })
        : false,
    );
    const id = (await b.get<{ id: number }>("/groups/lowtest")).id;
    const manifest = b.manifest("version: 1\ngroups:\n  keep: {}\n  lowtest:\n    state: absent\n");
    const { code, plan: p } = await plan(b, manifest, ["--no-backup"], { FORGEFORM_URL: proxy.url });
    expect(code).toBe(1);
    expect(p.errors).toEqual([
      {
        address: 'group["lowtest"]',
        message: `cannot list what would be deleted with it: GET /groups/${id}/descendant_groups -> 500 Internal Server Error: 500 Internal Server Error`,
        source: at(b, 4, 3),
      },
    ]);
    // The group's own delete is listed, with no count of what it would take: that is what could not be known.
    expect(p.changes.find((c) => c.address === 'group["lowtest"]')).toMatchObject({
      action: "delete",
      reason: 'marked "state: absent" in the manifest',
    });
    expect(p.changes.filter((c) => c.action === "delete").map((c) => c.address)).toEqual([
      'group["lowtest"]',
    ]);
    // Apply refuses the plan: the group and what is in it are still there.
    const applied = await b.cli(["apply", "--yes", "--no-backup", manifest], { FORGEFORM_URL: proxy.url });
    expect(applied.code).toBe(1);
    expect(await b.get("/projects/lowtest%2Fp1")).toMatchObject({ path_with_namespace: "lowtest/p1" });
  });
});

describe("a read-only object marked absent", () => {
  it('is a "cannot delete" error at the entry, saying why and where to manage it, and apply deletes nothing', async () => {
    const b = await start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/app" }],
        badges: [
          {
            group: "acme",
            name: "coverage",
            link_url: "https://c.example",
            image_url: "https://c.example/b.svg",
          },
        ],
      },
    });
    // The project's badge list holds its group's badge (kind: group): the project cannot delete it.
    const manifest = b.manifest(
      "version: 1\nprojects:\n  acme/app:\n    badges:\n      - name: coverage\n        state: absent\n",
    );
    const { code, plan: p } = await plan(b, manifest);
    expect(code).toBe(1);
    expect(p.errors).toEqual([
      {
        address: 'project["acme/app"].badge["coverage"]',
        message: "cannot delete: a group badge inherited by the project; manage it in its group's manifest",
        source: at(b, 5, 9),
      },
    ]);
    expect(p.changes).toEqual([]);
    const applied = await b.cli(["apply", "--yes", manifest]);
    expect(applied.code).toBe(1);
    expect(await b.get<{ name: string }[]>("/groups/acme/badges")).toEqual([
      expect.objectContaining({ name: "coverage" }),
    ]);
  });
});

describe("a project a pattern matched that has gone since the listing", () => {
  it("is an error at the pattern, saying a pattern never creates anything: plan again; the others are planned", async () => {
    const b = await start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/keep" }, { path: "acme/gone" }] },
    });
    // acme/gone is deleted (by someone else) after the pattern's listing, before its badges are read.
    let deleted = false;
    proxy = await startProxy(b.sandbox.url, async (req) => {
      if (!deleted && (req.url ?? "").startsWith("/api/v4/projects/acme%2Fgone/")) {
        deleted = true;
        await b.send("DELETE", "/projects/acme%2Fgone");
      }
      return false;
    });
    const manifest = b.manifest(`version: 1\nprojects:\n  "acme/**":\n    badges:\n      - ${DOCS}\n`);
    const { code, plan: p } = await plan(b, manifest, [], { FORGEFORM_URL: proxy.url });
    expect(deleted).toBe(true);
    expect(code).toBe(1);
    expect(p.errors).toEqual([
      {
        address: 'project["acme/gone"]',
        message:
          'project "acme/gone" was matched by a pattern but no longer exists (a pattern never creates anything): plan again',
        source: at(b, 3, 3),
      },
    ]);
    // Nothing is created for it, the project least of all; the other project's badge is planned.
    expect(p.changes.map((c) => [c.address, c.action])).toEqual([
      ['project["acme/keep"].badge["docs"]', "create"],
    ]);
    // Planned again, as the error says: the pattern matches what is there.
    const again = await plan(b, manifest);
    expect(again.code).toBe(0);
    expect(again.plan.errors).toEqual([]);
    expect(again.plan.changes.map((c) => c.address)).toEqual(['project["acme/keep"].badge["docs"]']);
  });
});

describe("several changes inside an archived project", () => {
  it("are counted in the plural: the warning on one that stays archived, the error on one created archived", async () => {
    const b = await start({
      fixture: { groups: [{ path: "keep" }], projects: [{ path: "keep/frozen", archived: true }] },
    });
    const badges = `    badges:\n      - ${DOCS}\n      - ${LOGS}\n`;
    const cases = [
      {
        // Archived on the platform, and left so: a warning at the project's entry.
        manifest: `version: 1\nprojects:\n  keep/frozen:\n    request_access_enabled: true\n${badges}`,
        code: 0,
        warnings: [
          {
            address: 'project["keep/frozen"]',
            message:
              "2 changes below it may be refused: it is archived, and the platform keeps an archived project read-only: set archived: false to unarchive it first",
            source: at(b, 3, 3),
          },
        ],
        errors: [],
      },
      {
        // Created archived: an error at its archived setting's value.
        manifest: `version: 1\nprojects:\n  keep/vault:\n    archived: true\n${badges}`,
        code: 1,
        warnings: [],
        errors: [
          {
            address: 'project["keep/vault"]',
            message:
              "it is created archived, and 2 changes inside it would follow its create, which the platform refuses in an archived project: leave archived out until they are applied, then set it",
            source: at(b, 4, 15),
          },
        ],
      },
    ];
    for (const c of cases) {
      const { code, plan: p } = await plan(b, b.manifest(c.manifest));
      expect({ code, warnings: p.warnings, errors: p.errors }).toEqual({
        code: c.code,
        warnings: c.warnings,
        errors: c.errors,
      });
    }
  });
});
