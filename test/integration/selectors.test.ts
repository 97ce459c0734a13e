/**
 * Selectors: one declaration for every project (or group) under a group. Patterns match existing objects only,
 * merge from the least to the most specific entry with collections merged by identity, leave out `except:` and
 * archived projects, and cost one listing per pattern root.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, Bench } from "./helpers.js";
import { fixture } from "./selectors-fixture.js";

const POLICY = `version: 1
projects:
  acme/**:
    except: [acme/legacy/**]
    badges:
      - { name: coverage, link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/c.svg" }
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "H 2 * * *" }
    unmanaged: { badges: delete }
  acme/platform/*:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "H 2 * * *", variables: [{ key: TIER, value: platform }] }
      - { description: weekly, ref: main, cron: "0 6 * * 1" }
  acme/platform/api:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 3 * * *" }
      - { description: weekly, state: absent }
`;

interface Schedule {
  id: number;
  description: string;
  cron: string;
}
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("selectors", () => {
  let bench: Bench;
  let policy: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    policy = bench.manifest(POLICY, "policy.yaml");
  });
  afterAll(async () => {
    await bench.stop();
  });
  const schedules = (p: string) =>
    bench.get<Schedule[]>(`/projects/${encodeURIComponent(p)}/pipeline_schedules`);
  const badges = async (p: string) =>
    (await bench.get<{ name: string; kind: string }[]>(`/projects/${encodeURIComponent(p)}/badges`))
      .filter((b) => b.kind === "project")
      .map((b) => b.name);

  it("plans the merge of every matching entry, and says how many objects each pattern matched", async () => {
    const plan = await bench.cli(["plan", policy]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    const text = prose(plan.out);
    expect(text).toContain('projects["acme/**"] matched 3 projects');
    expect(text).toContain('projects["acme/platform/*"] matched 2 projects');
    // Three levels: the badge from acme/**, the variable from acme/platform/*, the cron from the exact path.
    // One policy applied alike to many projects is shown once, with the projects it concerns.
    expect(plan.out).toContain(
      '+ badge["coverage"] will be created in 3 projects: acme/platform/api, acme/tools/cli, acme/platform/web',
    );
    expect(plan.out).toContain(
      '+ project["acme/platform/api"].pipeline_schedule["nightly"].variable["TIER"] will be created',
    );
    expect(plan.out).toMatch(
      /project\["acme\/platform\/api"\]\.pipeline_schedule\["nightly"\] will be created\n(.*\n)*?\s+\+ cron: "0 3 \* \* \*"/,
    );
    expect(plan.out).not.toContain('project["acme/platform/api"].pipeline_schedule["weekly"]');
    expect(plan.out).toContain('+ project["acme/platform/web"].pipeline_schedule["weekly"] will be created');
    // except and archived projects are left out; other groups are never touched.
    expect(plan.out).not.toContain("acme/legacy/monolith");
    expect(plan.out).not.toContain("acme/tools/old");
    expect(plan.out).not.toContain("other/thing");
    const expanded = await bench.cli(["plan", "--expand", policy]);
    expect(expanded.out).toContain('+ project["acme/tools/cli"].badge["coverage"] will be created');
    expect(expanded.out).toContain('+ project["acme/platform/api"].badge["coverage"] will be created');
    // The JSON plan always lists every change.
    const json = JSON.parse((await bench.cli(["plan", "--format", "json", policy])).out) as {
      changes: { address: string }[];
      selectors: { pattern: string; matched: number }[];
    };
    expect(json.changes.filter((c) => c.address.endsWith('.badge["coverage"]'))).toHaveLength(3);
    expect(json.selectors).toEqual(
      expect.arrayContaining([expect.objectContaining({ pattern: "acme/**", matched: 3 })]),
    );
  });

  it("applies, converges, and picks a stable minute per project for H", async () => {
    const apply = await bench.cli(["apply", "--yes", policy]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const again = await bench.cli(["plan", "--detailed-exitcode", policy]);
    expect(again.code, again.out).toBe(0);
    const crons = new Map<string, string>();
    for (const p of ["acme/platform/web", "acme/tools/cli"]) {
      const nightly = (await schedules(p)).find((s) => s.description === "nightly")!;
      expect(nightly.cron).toMatch(/^\d{1,2} 2 \* \* \*$/);
      crons.set(p, nightly.cron);
    }
    expect((await schedules("acme/platform/api")).map((s) => `${s.description}: ${s.cron}`)).toEqual([
      "nightly: 0 3 * * *",
    ]);
    expect(await badges("acme/legacy/monolith")).toEqual([]);
    expect(await badges("acme/tools/old")).toEqual([]);
    // The same project gets the same minute on every run.
    const plan2 = await bench.cli(["plan", "--format", "json", policy]);
    expect(JSON.parse(plan2.out).changes).toEqual([]);
    for (const [p, cron] of crons) {
      expect((await schedules(p)).find((s) => s.description === "nightly")?.cron).toBe(cron);
    }
  });

  it("never creates a project or group, and picks up a project created later in drift", async () => {
    const created = await fetch(`${bench.sandbox.url}/api/v4/projects`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "content-type": "application/json" },
      body: JSON.stringify({
        name: "fresh",
        path: "fresh",
        namespace_id: (await bench.get<{ id: number }>("/groups/acme%2Ftools")).id,
      }),
    });
    expect(created.status).toBe(201);
    const drift = await bench.cli(["drift", policy]);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain('project["acme/tools/fresh"].badge["coverage"]');
    // A pattern whose root does not exist matches nothing: a warning, nothing created.
    const nothing = bench.manifest(
      "version: 1\ngroups:\n  ghost/*: { description: x }\nprojects:\n  ghost/**:\n    badges: []\n",
      "ghost.yaml",
    );
    const plan = await bench.cli(["plan", "--detailed-exitcode", nothing]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(prose(plan.out)).toContain("the pattern matches nothing: group ghost does not exist");
    await expect(bench.get("/groups/ghost")).rejects.toThrow(/404/);
  });

  it("applies a prune policy to every matched project, and --max-deletes counts each delete", async () => {
    for (const p of ["acme/platform/web", "acme/tools/cli"]) {
      const res = await fetch(`${bench.sandbox.url}/api/v4/projects/${encodeURIComponent(p)}/badges`, {
        method: "POST",
        headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "content-type": "application/json" },
        body: JSON.stringify({
          name: "stray",
          link_url: "https://x.example",
          image_url: "https://x.example/i.svg",
        }),
      });
      expect(res.status).toBe(201);
    }
    const plan = await bench.cli(["plan", policy]);
    expect(plan.out).toContain('- project["acme/platform/web"].badge["stray"] will be deleted');
    expect(plan.out).toContain('- project["acme/tools/cli"].badge["stray"] will be deleted');
    const refused = await bench.cli(["apply", "--yes", "--max-deletes", "1", policy]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("deletes or replaces 2 objects");
    expect(await badges("acme/tools/cli")).toContain("stray");
  });

  it("equally specific entries that disagree are a validation error naming both places", async () => {
    const m = bench.manifest(
      `version: 1
projects:
  acme/*:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 1 * * *" }
  acme/**:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 2 * * *" }
`,
      "conflict.yaml",
    );
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toMatch(
      /conflict\.yaml:8:\d+: projects\["acme\/\*\*"\]\.pipeline_schedules\[0\]\.cron: "acme\/\*\*" and "acme\/\*" \(at .*conflict\.yaml:5:\d+\) are equally specific/,
    );
  });

  it("explains where each field and item of a project comes from", async () => {
    const run = await bench.cli(["explain", "acme/platform/api", policy]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain('project "acme/platform/api"');
    expect(run.out).toMatch(/coverage.*projects\["acme\/\*\*"\].*policy\.yaml:6:/);
    expect(run.out).toMatch(/TIER.*projects\["acme\/platform\/\*"\].*policy\.yaml:12:/);
    expect(run.out).toMatch(/cron: "0 3 \* \* \*".*projects\["acme\/platform\/api"\].*policy\.yaml:16:/);
    expect(run.out).toMatch(/weekly.*absent/);
  });
});
