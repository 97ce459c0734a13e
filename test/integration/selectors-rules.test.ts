/**
 * Selectors, the finer rules: every value an `H` cron can take is valid, equally specific entries never depend on
 * declaration order, archived projects stay out of patterns even when declared by full path, `except:` entries are
 * checked, listings are shared between patterns and with the engine, and `explain` tells groups from projects.
 * Manifests are written as docs/manifests.md describes them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { fixture } from "./selectors-fixture.js";

const BADGE = 'link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/c.svg"';

type PlanJson = PlanV1;

const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("selectors: the finer rules", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });
  const planJson = async (args: string[]) => {
    const run = await bench.cli(["plan", "--format", "json", ...args]);
    expect(run.code, run.out + run.err).not.toBe(1);
    return JSON.parse(run.out) as PlanJson;
  };
  const schedules = (p: string) =>
    bench.get<{ description: string; cron: string }[]>(
      `/projects/${encodeURIComponent(p)}/pipeline_schedules`,
    );

  it("checks every value an H cron can take, at validate, with the place of each bad form", async () => {
    const bad = bench.manifest(
      `version: 1
projects:
  acme/tools/*:
    pipeline_schedules:
      - { description: odd, ref: main, cron: "H(55-65) 2 * * *" }
      - { description: reversed, ref: main, cron: "H(30-10) 2 * * *" }
      - { description: zero, ref: main, cron: "H/0 2 * * *" }
      - { description: hours, ref: main, cron: "0 H(20-24) * * *" }
`,
      "h-bad.yaml",
    );
    const validate = await bench.cli(["validate", bad]);
    expect(validate.code).toBe(1);
    const out = validate.out + validate.err;
    expect(out).toMatch(/h-bad\.yaml:5:\d+: .*"H\(55-65\)": the minute range must be within 0-59/);
    expect(out).toMatch(/h-bad\.yaml:6:\d+: .*"H\(30-10\)": the minute range 30-10 is empty/);
    expect(out).toMatch(/h-bad\.yaml:7:\d+: .*"H\/0": the minute step must be between 1 and 60/);
    expect(out).toMatch(/h-bad\.yaml:8:\d+: .*"H\(20-24\)": the hour range must be within 0-23/);
    // apply refuses before writing anything
    const apply = await bench.cli(["apply", "--yes", bad]);
    expect(apply.code).toBe(1);
    expect(await schedules("acme/tools/cli")).toEqual([]);

    const good = bench.manifest(
      `version: 1
projects:
  acme/platform/*:
    pipeline_schedules:
      - { description: ranged, ref: main, cron: "H(50-59)/5 H(1-3) * * H(1-5)" }
`,
      "h-good.yaml",
    );
    const applied = await bench.cli(["apply", "--yes", good]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    for (const p of ["acme/platform/api", "acme/platform/web"]) {
      const [s] = await schedules(p);
      expect(s?.cron).toMatch(/^5[0-4]-59\/5 [1-3] \* \* [1-5]$/);
    }
    expect((await bench.cli(["plan", "--detailed-exitcode", good])).code).toBe(0);
  });

  it("makes equally specific entries that disagree on an item's state an error, in either order", async () => {
    const entries = [
      "  acme/platform/*:\n    badges: [{ name: coverage, state: absent }]\n",
      `  acme/platform/**:\n    badges: [{ name: coverage, ${BADGE} }]\n`,
    ];
    for (const [i, order] of [entries, [...entries].reverse()].entries()) {
      const m = bench.manifest(`version: 1\nprojects:\n${order.join("")}`, `state-${i}.yaml`);
      const run = await bench.cli(["plan", m]);
      expect(run.code).toBe(1);
      expect(run.out + run.err).toMatch(
        new RegExp(
          `state-${i}\\.yaml:\\d+:\\d+: projects\\["acme/platform/\\*\\*?"\\]\\.badges\\[0\\]\\.state: "acme/platform/\\*\\*?" and "acme/platform/\\*\\*?" \\(at .*state-${i}\\.yaml:\\d+:\\d+\\) are equally specific`,
        ),
      );
    }
  });

  it("leaves archived projects out of patterns even when declared by full path, unless include_archived", async () => {
    const body = (extra: string) => `version: 1
projects:
  acme/tools/*:${extra}
    badges: [{ name: arch, ${BADGE} }]
  acme/tools/old:
    milestones: [{ title: v1 }]
`;
    const plan = await planJson([bench.manifest(body(""), "archived.yaml")]);
    const addresses = plan.changes.map((c) => c.address);
    expect(addresses).toContain('project["acme/tools/old"].milestone["v1"]');
    expect(addresses).toContain('project["acme/tools/cli"].badge["arch"]');
    expect(addresses).not.toContain('project["acme/tools/old"].badge["arch"]');
    expect(plan.selectors).toEqual([expect.objectContaining({ pattern: "acme/tools/*", matched: 1 })]);

    const included = await planJson([
      bench.manifest(body("\n    include_archived: true"), "archived-included.yaml"),
    ]);
    expect(included.changes.map((c) => c.address)).toEqual(
      expect.arrayContaining([
        'project["acme/tools/old"].badge["arch"]',
        'project["acme/tools/cli"].badge["arch"]',
      ]),
    );
    expect(included.selectors).toEqual([expect.objectContaining({ pattern: "acme/tools/*", matched: 2 })]);
  });

  it("checks except: entries outside the pattern's root at validate, and warns of those that leave out nothing", async () => {
    const relative = bench.manifest(
      `version: 1
projects:
  acme/**:
    except: [legacy/**]
    badges: [{ name: coverage, ${BADGE} }]
`,
      "except-relative.yaml",
    );
    const validate = await bench.cli(["validate", relative]);
    expect(validate.code).toBe(1);
    expect(validate.out + validate.err).toMatch(
      /except-relative\.yaml:4:\d+: projects\["acme\/\*\*"\]\.except\[0\]: "legacy\/\*\*" is not under acme, .*did you mean acme\/legacy\/\*\*\?/,
    );

    const m = bench.manifest(
      `version: 1
projects:
  acme/**:
    except: [acme/legacy, acme/nope/**]
    badges: [{ name: coverage, ${BADGE} }]
`,
      "except.yaml",
    );
    const plan = await planJson([m]);
    // A group's path leaves out every project below it.
    expect(plan.changes.map((c) => c.address).filter((a) => a.includes("monolith"))).toEqual([]);
    expect(plan.changes.map((c) => c.address)).toContain('project["acme/tools/cli"].badge["coverage"]');
    expect(plan.warnings).toEqual([
      expect.objectContaining({
        address: 'projects["acme/**"].except[1]',
        message: expect.stringContaining('except entry "acme/nope/**" leaves out nothing'),
        source: expect.objectContaining({ line: 4 }),
      }),
    ]);
    const text = await bench.cli(["plan", m]);
    expect(prose(text.out + text.err)).toContain('except entry "acme/nope/**" leaves out nothing');
  });

  it("reads each listing once: a pattern root inside another's subtree, and subgroups the engine reads too", async () => {
    const projects = await planJson([
      bench.manifest(
        `version: 1
projects:
  acme/**:
    badges: [{ name: coverage, ${BADGE} }]
  acme/platform/*:
    badges: [{ name: platform, ${BADGE} }]
`,
        "nested.yaml",
      ),
    ]);
    expect(projects.requests.by_endpoint["GET /groups/:id/projects"]).toBe(1);
    expect(projects.selectors).toEqual([
      expect.objectContaining({ pattern: "acme/**", matched: 4 }),
      expect.objectContaining({ pattern: "acme/platform/*", matched: 2 }),
    ]);

    const groups = await planJson([
      bench.manifest(
        `version: 1
groups:
  acme: { description: Acme }
  acme/*: { description: An Acme team }
`,
        "groups.yaml",
      ),
    ]);
    expect(groups.requests.by_endpoint["GET /groups/:id/subgroups"]).toBe(1);
    expect(groups.selectors).toEqual([expect.objectContaining({ pattern: "acme/*", matched: 3 })]);
  });

  it("lists with the one request each kind of pattern needs, and reads exactly what it matches", async () => {
    const cases: [string, string, string[]][] = [
      [
        `projects:\n  acme/tools/*:\n    badges: [{ name: b, ${BADGE} }]`,
        "/groups/acme%2Ftools/projects?per_page=100&simple=true&archived=false&with_shared=false&page=1",
        ["/projects/acme%2Ftools%2Fcli/badges"],
      ],
      [
        `projects:\n  acme/tools/**:\n    include_archived: true\n    badges: [{ name: b, ${BADGE} }]`,
        "/groups/acme%2Ftools/projects?per_page=100&simple=true&with_shared=false&include_subgroups=true&page=1",
        ["/projects/acme%2Ftools%2Fcli/badges", "/projects/acme%2Ftools%2Fold/badges"],
      ],
      [
        `projects:\n  "**":\n    badges: [{ name: b, ${BADGE} }]`,
        "/projects?per_page=100&simple=true&archived=false&page=1",
        fixture.projects
          .filter((p) => !p.archived)
          .map((p) => `/projects/${encodeURIComponent(p.path)}/badges`),
      ],
      [
        `groups:\n  "*": { description: d }`,
        "/groups?per_page=100&all_available=true&top_level_only=true&page=1",
        ["/groups/acme?with_projects=false", "/groups/other?with_projects=false"],
      ],
      [
        `groups:\n  "**": { description: d }`,
        "/groups?per_page=100&all_available=true&page=1",
        fixture.groups.map((g) => `/groups/${encodeURIComponent(g.path)}?with_projects=false`),
      ],
      [
        `groups:\n  acme/**: { description: d }`,
        "/groups/acme/descendant_groups?per_page=100&all_available=true&page=1",
        ["acme/platform", "acme/legacy", "acme/tools", "acme/tools/inner"].map(
          (g) => `/groups/${encodeURIComponent(g)}?with_projects=false`,
        ),
      ],
      [
        `groups:\n  acme/*: { description: d }`,
        "/groups/acme/subgroups?per_page=100&all_available=true&page=1",
        ["acme/platform", "acme/legacy", "acme/tools"].map(
          (g) => `/groups/${encodeURIComponent(g)}?with_projects=false`,
        ),
      ],
    ];
    for (const [entry, listing, reads] of cases) {
      const run = await bench.cli([
        "plan",
        "--debug",
        bench.manifest(`version: 1\n${entry}\n`, "listing.yaml"),
      ]);
      expect(run.code, run.out + run.err).toBe(0);
      const gets = [...run.err.matchAll(/^GET \/api\/v4(\S+) -> 200/gm)].map((m) => m[1]!);
      const isListing = (g: string) => /simple=true|all_available=true/.test(g);
      expect(gets.filter(isListing), entry).toEqual([listing]);
      expect(
        gets
          .filter((g) => !isListing(g) && g !== "/version")
          .map((g) => g.replace(/\?per_page.*/, ""))
          .sort(),
        entry,
      ).toEqual([...reads].sort());
    }
  });

  it("does not report the subgroups of pattern-matched groups as unmanaged, and says how groups are deleted", async () => {
    const matched = await planJson([
      bench.manifest(
        `version: 1
instance:
  unmanaged: { groups: delete }
groups:
  acme/*: { description: An Acme team }
`,
        "matched-groups.yaml",
      ),
    ]);
    expect(matched.changes.filter((c) => c.action === "unmanaged")).toEqual([]);
    expect(matched.changes.filter((c) => c.action === "delete")).toEqual([]);
    // Groups declared by full path still have their undeclared subgroups reported, with the way to delete them.
    const declared = await bench.cli([
      "plan",
      bench.manifest("version: 1\ngroups:\n  acme/tools: { description: Tools }\n", "declared-group.yaml"),
    ]);
    expect(prose(declared.out)).toContain(
      '(prune policy warn: left alone; groups are deleted only when declared with "state: absent", and unmanaged.groups: ignore stops this report)',
    );
    expect(prose(declared.out)).not.toContain("set unmanaged.groups to delete");
  });

  it("does not match a group marked absent that is already gone: nothing is planned for it, and it is not counted", async () => {
    const plan = await planJson([
      bench.manifest(
        `version: 1
groups:
  acme/*: { description: An Acme team }
  acme/retired: { state: absent }
`,
        "absent-group.yaml",
      ),
    ]);
    expect(plan.changes.filter((c) => c.address.includes("retired"))).toEqual([]);
    expect(plan.selectors).toEqual([expect.objectContaining({ pattern: "acme/*", matched: 3 })]);
  });

  it("says nothing of patterns outside --target", async () => {
    const m = bench.manifest(
      `version: 1
groups:
  acme/*: { description: An Acme team }
projects:
  acme/**:
    badges: [{ name: coverage, ${BADGE} }]
`,
      "targeted.yaml",
    );
    const plan = await planJson(["--target", "acme/platform/api", m]);
    expect(plan.warnings).toEqual([]);
    expect(plan.changes.map((c) => c.address)).toEqual(['project["acme/platform/api"].badge["coverage"]']);
    expect(plan.selectors).toEqual([expect.objectContaining({ pattern: "acme/**", matched: 1 })]);
  });

  it("explains a group as a group only, and names the except: entry that leaves a path out", async () => {
    const m = bench.manifest(
      `version: 1
groups:
  acme/platform: { description: Platform }
projects:
  acme/**:
    except: [acme/legacy/**]
    badges: [{ name: coverage, ${BADGE} }]
`,
      "explain.yaml",
    );
    const group = await bench.cli(["explain", "acme/platform", m]);
    expect(group.code, group.err).toBe(0);
    expect(group.out).toContain('group "acme/platform"');
    expect(group.out).not.toContain('project "acme/platform"');
    const excluded = await bench.cli(["explain", "acme/legacy/monolith", m]);
    expect(excluded.code).toBe(1);
    expect(excluded.err).toMatch(
      /no group or project entry of the manifests matches "acme\/legacy\/monolith": projects\["acme\/\*\*"\] leaves it out \(except: acme\/legacy\/\*\* at .*explain\.yaml:6:\d+\)/,
    );
  });
});
