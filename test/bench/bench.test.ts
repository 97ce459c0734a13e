/**
 * The benchmark at a tiny size, so it cannot rot: the real pipeline (sandbox with latency, forgeform's CLI, the
 * peer when installed), checked for structure and consistency, never for timings.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declarableKinds } from "../../bench/artifacts.js";
import { type BenchResult, endpointOf, PEER_BINARY, runBenchmark } from "../../bench/bench.js";
import {
  applyBound,
  expectedChanges,
  listingPages,
  planBound,
  projectsPerGroup,
  readRequests,
  writeRequests,
} from "../../bench/bound.js";
import { repoRoot } from "../../bench/measure.js";
import {
  CHANGED_SINCE_COLUMNS,
  ENDPOINT_COLUMNS,
  FAULT_COLUMNS,
  GROWTH_COLUMNS,
  MAIN_COLUMNS,
  PEER_COLUMNS,
  SHARD_COLUMNS,
} from "../../bench/report.js";
import { createdObjects, SHARDS, TEMPLATE_PROJECTS } from "../../bench/scale.js";
import {
  BASE_SHAPE,
  COMMON_KINDS,
  changedCounts,
  KINDS,
  type ObjectKind,
  type Shape,
  scaleShape,
} from "../../bench/state.js";

const TINY: Shape = { ...BASE_SHAPE, groups: 2, projects: 3, systemHooks: 3, broadcastMessages: 2 };
const SIZES = [1, 2];
/** Sizes that run every scenario; the larger ones run the unchanged plan only (as 48x does in the real run). */
const FULL_MAX_SIZE = 1;
const FULL = SIZES.filter((s) => s <= FULL_MAX_SIZE);
const peerInstalled = existsSync(PEER_BINARY);

/** The rows of the Markdown table that follows `heading`, each split into cells. */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const start = lines.indexOf(heading);
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("## ")) break;
    if (line.startsWith("|"))
      rows.push(
        line
          .slice(1, -1)
          .split("|")
          .map((c) => c.trim()),
      );
  }
  return rows;
}

describe("npm run bench at a tiny size", () => {
  let dir: string;
  let result: BenchResult;
  let markdown: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "forgeform-bench-test-"));
    result = await runBenchmark({
      base: TINY,
      sizes: SIZES,
      latencyMs: 2,
      concurrency: 4,
      peer: true,
      fullMaxSize: FULL_MAX_SIZE,
      outFile: join(dir, "results", "latest.md"),
    });
    markdown = readFileSync(join(dir, "results", "latest.md"), "utf8");
  }, 120_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("writes the results file, Markdown and JSON, with every run", () => {
    const json = JSON.parse(readFileSync(join(dir, "results", "latest.json"), "utf8")) as BenchResult;
    expect(json.rows).toEqual(result.rows);
    const runsPerSize = peerInstalled ? 8 : 7;
    expect(result.rows).toHaveLength(FULL.length * runsPerSize + (SIZES.length - FULL.length));
    for (const row of result.rows.filter((r) => r.factor > FULL_MAX_SIZE))
      expect([row.tool, row.scope, row.scenario]).toEqual(["forgeform", "all", "plan, no changes"]);
    for (const row of result.rows) expect(row.sandboxCpuMs).toBeGreaterThanOrEqual(0);
    expect(result.sizes.map((s) => s.factor)).toEqual(SIZES);
    expect(result.peer.ran).toBe(peerInstalled);
  });

  it("draws the chart: wall time and requests by size, for forgeform, the bound and the peer", () => {
    const svg = readFileSync(join(dir, "results", "latest.svg"), "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    for (const label of ["Wall time (s)", "Requests", "forgeform, every kind", "lower bound, every kind"])
      expect(svg).toContain(label);
    expect(svg.includes("gitlabracadabra, common kinds")).toBe(peerInstalled);
    // One point a size and series, in each panel.
    const points = (svg.match(/<path[^>]*role="graphics-symbol"[^>]*aria-roledescription="point"/g) ?? [])
      .length;
    expect(points).toBeGreaterThanOrEqual(SIZES.length * 2 * 2);
  });

  it("prints the runs, growth and peer tables with their columns", () => {
    const runs = tableAfter(markdown, "## Runs");
    expect(runs[0]).toEqual([...MAIN_COLUMNS]);
    expect(runs.slice(2)).toHaveLength(result.rows.length);
    for (const row of runs.slice(2)) {
      expect(row).toHaveLength(MAIN_COLUMNS.length);
      expect(row[0]).toMatch(/^\d+x$/);
      // Every run made requests: its time to the first one is shown beside its peak memory.
      expect(row[MAIN_COLUMNS.indexOf("s before first request")]).toMatch(/^\d+\.\d$/);
      expect(row[MAIN_COLUMNS.indexOf("Peak MB")]).toMatch(/^\d+$/);
    }
    const growth = tableAfter(markdown, "## Growth (forgeform, all kinds)");
    expect(growth[0]).toEqual([...GROWTH_COLUMNS]);
    expect(growth.slice(2).map((r) => r[0])).toEqual(SIZES.map((s) => `${s}x`));
    // Sizes above the full ones run no apply, but the pull-request plans and the shards, as every size does.
    const col = (name: string) => GROWTH_COLUMNS.indexOf(name as (typeof GROWTH_COLUMNS)[number]);
    expect(growth.at(-1)?.[col("Apply wall s")]).toBe("not run");
    for (const row of growth.slice(2)) {
      expect(row[col("Pull request, one cron: s / MB")]).toMatch(/^\d+\.\d \/ \d+$/);
      expect(row[col("Pull request, template: s / MB")]).toMatch(/^\d+\.\d \/ \d+$/);
      expect(row[col("Shards: largest CPU / peak, of unsharded")]).toMatch(/^\d+% \/ \d+%$/);
    }
    const peer = tableAfter(
      markdown,
      "## Side by side with gitlabracadabra (common kinds, same state, same latency)",
    );
    if (peerInstalled) {
      expect(peer[0]).toEqual([...PEER_COLUMNS]);
      expect(peer.slice(2)).toHaveLength(FULL.length);
    } else {
      expect(markdown).toContain(`Peer not run: ${PEER_BINARY} not found`);
    }
  });

  it("shows where the requests of the largest size's unchanged plans go, adding up to the counted totals", () => {
    const endpoints = tableAfter(markdown, "## Where the requests go (2x, plans with no changes)");
    expect(endpoints[0]).toEqual([...ENDPOINT_COLUMNS]);
    for (const endpoint of [
      "GET /projects/:id/pipeline_schedules/:id",
      "GET /projects/:id/variables",
      "GET /groups/:id/variables",
      "GET /projects/:id/labels",
      "GET /projects/:id/hooks",
    ])
      expect(endpoints.map((r) => r[0])).toContain(`\`${endpoint}\``);
    for (const row of result.rows) {
      const sum = Object.values(row.byEndpoint).reduce((a, b) => a + b, 0);
      expect(sum).toBe(row.requests);
    }
  });

  it("declares every kind the sandbox serves and forgeform's schemas have; the common ones are declared ones the peer manages", () => {
    const declarable = declarableKinds(repoRoot());
    expect(result.kinds).toEqual(KINDS.filter((k) => declarable.has(k)));
    expect(result.undeclaredKinds).toEqual(KINDS.filter((k) => !declarable.has(k)));
    expect(result.kinds).toEqual(
      expect.arrayContaining([
        "group",
        "pipeline_schedule",
        "schedule_variable",
        "group_variable",
        "project_variable",
        "project_settings",
        "label",
        "project_hook",
      ]),
    );
    expect(result.commonKinds).toEqual(result.kinds.filter((k) => COMMON_KINDS.has(k)));
    expect(result.missingAreas).toEqual([]);
    // Every area the sandbox has a fixture key for is seeded through it, the members through the core keys.
    expect(result.seededByFixture).toEqual(
      expect.arrayContaining([
        "members",
        "ci_variables",
        "project_settings",
        "labels",
        "protected_branches",
        "project_hooks",
      ]),
    );
    if ((result.undeclaredKinds ?? []).length > 0)
      expect(markdown).toContain(
        `Not declared (forgeform's schemas have no such collection yet): ${result.undeclaredKinds!.join(", ")}.`,
      );
  });

  it("never counts fewer requests than the lower bound", () => {
    for (const row of result.rows) {
      expect(row.requests, `${row.factor}x ${row.tool} ${row.scope} ${row.scenario}`).toBeGreaterThanOrEqual(
        row.bound.requests,
      );
      expect(row.bound.requests).toBeGreaterThan(0);
    }
  });

  it("plans report zero changes on the seeded state and after apply, and exactly the edited objects otherwise", () => {
    for (const factor of FULL) {
      const kinds = new Set<ObjectKind>(result.kinds);
      const edited = changedCounts(scaleShape(TINY, factor));
      const expected = [...kinds].reduce((n, k) => n + edited[k], 0);
      expect(expected).toBeGreaterThan(0);
      const rows = result.rows.filter((r) => r.factor === factor && r.tool === "forgeform");
      const unchanged = rows.filter(
        (r) => r.scenario === "plan, no changes" || r.scenario === "plan after apply",
      );
      expect(unchanged).toHaveLength(3);
      for (const r of unchanged) {
        expect(r.changes, `${factor}x ${r.scope} ${r.scenario}`).toBe(0);
        expect(r.unmanaged).toBe(0);
        expect(r.writes).toBe(0);
      }
      const peer = result.rows.find((r) => r.factor === factor && r.tool === "gitlabracadabra");
      if (peerInstalled) {
        // the peer agrees the seeded state matches its action file: it would change nothing
        expect(peer?.changes).toBe(0);
        expect(peer?.writes).toBe(0);
      }
      const changed = rows.find((r) => r.scenario === "plan, 10% changed");
      expect(changed?.changes).toBe(expected);
      expect(changed?.writes).toBe(0);
      const apply = rows.find((r) => r.scenario === "apply the 10%");
      expect(apply?.writes).toBeGreaterThanOrEqual(expected);
      // forgeform's own count of its read requests matches the sandbox's
      for (const r of rows.filter((x) => x.clientRequests !== null))
        expect(r.clientRequests).toBe(r.requests);
    }
  });

  it("declares the same states through patterns: the same plans, within the listing pages of the explicit reads", () => {
    for (const factor of FULL) {
      const shape = scaleShape(TINY, factor);
      const find = (scenario: string) =>
        result.rows.find((r) => r.factor === factor && r.tool === "forgeform" && r.scenario === scenario)!;
      for (const [byPath, byPattern] of [
        ["plan, no changes", "plan, no changes (patterns)"],
        ["plan, 10% changed", "plan, 10% changed (patterns)"],
      ] as const) {
        const explicit = find(byPath);
        const patterns = find(byPattern);
        expect(patterns.samePlan, `${factor}x ${byPattern}`).toBe(true);
        expect(patterns.changes).toBe(explicit.changes);
        expect(patterns.writes).toBe(0);
        expect(patterns.requests).toBeLessThanOrEqual(explicit.requests + listingPages(shape));
        // The pattern's listing is read on top, and shows the settings the groups' listings were read for.
        const settingsPages = readRequests(shape, new Set<ObjectKind>(["project_settings"]));
        expect(settingsPages).toBe(result.kinds.includes("project_settings") ? shape.groups : 0);
        expect(patterns.bound.requests).toBe(explicit.bound.requests + listingPages(shape) - settingsPages);
      }
      expect(find("plan, 10% changed (patterns)").changes).toBeGreaterThan(0);
    }
    const runs = tableAfter(markdown, "## Runs");
    expect(
      runs.some((r) => r[3] === "plan, 10% changed (patterns)" && r[5]?.endsWith("same plan as by path")),
    ).toBe(true);
  });

  it("plans a pull request's change alone: one cron with a few requests, a template's users and no other project", () => {
    expect((result.changedSince ?? []).map((r) => [r.factor, r.run])).toEqual(
      SIZES.flatMap((f) => [
        [f, "one schedule's cron"],
        [f, "a template used by 100 projects"],
      ]),
    );
    for (const r of result.changedSince ?? []) {
      // Every run makes requests: the time to its first one is measured.
      expect(r.firstRequestMs).toBeGreaterThan(0);
      expect(r.exact, `${r.factor}x ${r.run}`).toBe(true);
      expect(r.onlyThose, `${r.factor}x ${r.run}`).toBe(true);
      expect(r.changes).toBe(r.expectedChanges);
    }
    const cron = result.changedSince!.find((r) => r.run === "one schedule's cron")!;
    expect(cron.changes).toBe(1);
    expect(cron.requests).toBeLessThanOrEqual(cron.maxRequests!);
    const template = result.changedSince!.find((r) => r.run === "a template used by 100 projects")!;
    expect(template.projectsExpected).toBe(Math.min(TEMPLATE_PROJECTS, scaleShape(TINY, 1).projects));
    const table = tableAfter(markdown, "## Pull-request plans (--changed-since, on the seeded state)");
    expect(table[0]).toEqual([...CHANGED_SINCE_COLUMNS]);
    expect(table.slice(2)).toHaveLength(result.changedSince!.length);
  });

  it("splits the drift into shards whose merged report is the unsharded one", () => {
    expect((result.shards ?? []).map((r) => r.factor)).toEqual(SIZES);
    for (const r of result.shards ?? []) {
      expect(r.mergedEqual).toBe(true);
      expect(r.shards).toHaveLength(SHARDS);
      expect(r.items).toBeGreaterThan(0);
      for (const shard of r.shards) expect(shard.requests).toBeLessThanOrEqual(r.unsharded.requests);
      expect(r.maxShare).toBeLessThanOrEqual(1);
    }
    const table = tableAfter(markdown, `## Shards (drift of the 10% changed manifests, --shard K/${SHARDS})`);
    expect(table[0]).toEqual([...SHARD_COLUMNS]);
    expect(table.slice(2)).toHaveLength(result.shards!.length * (SHARDS + 2));
    for (const row of table.slice(2)) expect(row).toHaveLength(SHARD_COLUMNS.length);
    const first = SHARD_COLUMNS.indexOf("s before first request");
    for (const row of table.slice(2).filter((r) => r[1]?.startsWith("drift")))
      expect(row[first]).toMatch(/^\d+\.\d$/);
  });

  it("applies under faults in one run: no failure, an empty plan after it, exactly one of every object", () => {
    const f = result.faults!;
    expect(f.factor).toBe(1);
    expect(f.objects).toBe(createdObjects({ shape: scaleShape(TINY, 1) } as never, new Set(result.kinds)));
    for (const run of [f.calm, f.faulted]) {
      expect(run.code).toBe(0);
      expect(run.failed).toBe(0);
      expect(run.done).toBeGreaterThanOrEqual(f.objects);
    }
    expect(f.calm.retries).toBe(0);
    expect(f.calm.rereads).toBe(0);
    // The run met faults, and got past them.
    expect(f.faulted.retries + f.faulted.rereads).toBeGreaterThan(0);
    expect(f.faulted.requests).toBeGreaterThan(f.calm.requests);
    expect(f.nextPlanChanges).toBe(0);
    expect([f.missing, f.duplicates]).toEqual([0, 0]);
    const table = tableAfter(markdown, "## Apply under faults");
    expect(table[0]).toEqual([...FAULT_COLUMNS]);
    expect(markdown).toContain("exactly one of every declared object");
  });
});

describe("endpointOf", () => {
  it("names an endpoint by its pattern: numeric ids, encoded paths and names become :id", () => {
    expect(endpointOf("GET", "/api/v4/projects/bench-g01%2Fp001/pipeline_schedules/17")).toBe(
      "GET /projects/:id/pipeline_schedules/:id",
    );
    expect(endpointOf("PUT", "/api/v4/projects/3/pipeline_schedules/4/variables/BENCH_VAR_0")).toBe(
      "PUT /projects/:id/pipeline_schedules/:id/variables/:id",
    );
    expect(endpointOf("GET", "/api/v4/groups/bench-g01")).toBe("GET /groups/:id");
    expect(endpointOf("GET", "/api/v4/application/settings")).toBe("GET /application/settings");
  });
});

describe("lower bound", () => {
  const all = new Set<ObjectKind>(KINDS);
  const SHAPE: Shape = {
    groups: 25,
    projects: 250,
    schedulesPerProject: 3,
    variablesPerSchedule: 3,
    badgesPerProject: 2,
    environmentsPerProject: 1,
    milestonesPerProject: 2,
    ciVariablesPerProject: 5,
    ciVariablesPerGroup: 5,
    membersPerProject: 2,
    labelsPerProject: 2,
    protectedBranchesPerProject: 1,
    hooksPerProject: 1,
    systemHooks: 20,
    broadcastMessages: 10,
  };
  const only = (...kinds: ObjectKind[]) => new Set<ObjectKind>(kinds);

  it("reads groups 100 to a page, each project's collections once, each schedule's detail once, no project", () => {
    // 25 groups: 1 page, and 25 lists of their variables; 250 projects in 25 groups: 25 pages of the groups'
    // project listings for the settings; 250 x 9 lists (schedules, badges, environments, milestones, variables,
    // members, labels, protected branches, hooks); 750 schedule details; settings, hooks and broadcast messages: 1
    // each.
    expect(readRequests(SHAPE, all)).toBe(1 + 25 + 25 + 250 * 9 + 750 + 3);
    expect(readRequests({ ...SHAPE, groups: 201 }, only("group"))).toBe(3);
    expect(readRequests(SHAPE, only("group", "milestone"))).toBe(1 + 250);
  });

  it("reads a collection of exactly 100 in one page, of 101 in two, and an empty one in one", () => {
    const one = { ...SHAPE, groups: 1, projects: 1 };
    for (const [kind, field] of [
      ["project_variable", "ciVariablesPerProject"],
      ["project_member", "membersPerProject"],
      ["label", "labelsPerProject"],
      ["protected_branch", "protectedBranchesPerProject"],
      ["project_hook", "hooksPerProject"],
      ["group_variable", "ciVariablesPerGroup"],
    ] as const) {
      expect(readRequests({ ...one, [field]: 100 }, only(kind)), `${kind} 100`).toBe(1);
      expect(readRequests({ ...one, [field]: 101 }, only(kind)), `${kind} 101`).toBe(2);
      expect(readRequests({ ...one, [field]: 0 }, only(kind)), `${kind} 0`).toBe(1);
    }
    // 7 projects a group read per project would cost 7: a group's listing holds them in one page.
    expect(readRequests({ ...one, projects: 7 }, only("project_settings"))).toBe(1);
  });

  it("reads project settings from each group's project listing, 100 to a page, or from the pattern's listing", () => {
    const settings = only("project_settings");
    // 2 groups of 100 projects: a page each; of 101 and 100 (201 projects): 2 + 1.
    expect(projectsPerGroup({ ...SHAPE, groups: 2, projects: 200 })).toEqual([100, 100]);
    expect(readRequests({ ...SHAPE, groups: 2, projects: 200 }, settings)).toBe(2);
    expect(projectsPerGroup({ ...SHAPE, groups: 2, projects: 201 })).toEqual([101, 100]);
    expect(readRequests({ ...SHAPE, groups: 2, projects: 201 }, settings)).toBe(3);
    // A group without projects needs no listing.
    expect(readRequests({ ...SHAPE, groups: 3, projects: 2 }, settings)).toBe(2);
    // The pattern's instance listing shows the settings: its pages replace the groups' listings.
    expect(readRequests(SHAPE, settings, true)).toBe(0);
    const patterns = planBound(SHAPE, all, 20, 8, listingPages(SHAPE));
    expect(patterns.requests).toBe(readRequests(SHAPE, all) - 25 + listingPages(SHAPE));
    expect(listingPages({ ...SHAPE, projects: 100 })).toBe(1);
    expect(listingPages({ ...SHAPE, projects: 101 })).toBe(2);
  });

  it("needs ceil(requests / concurrency) rounds of latency, and at least the chain list -> detail", () => {
    const total = readRequests(SHAPE, all);
    expect(planBound(SHAPE, all, 20, 8)).toEqual({ requests: total, wallMs: Math.ceil(total / 8) * 20 });
    const tiny: Shape = { ...TINY, groups: 1, projects: 1, systemHooks: 0, broadcastMessages: 0 };
    const schedules = only("pipeline_schedule", "schedule_variable");
    expect(planBound(tiny, schedules, 10, 100)).toEqual({ requests: 1 + 3, wallMs: 20 });
    // An apply that re-protects a branch: its list, the delete, the create again.
    expect(applyBound(tiny, only("protected_branch"), 10, 100)).toEqual({ requests: 1 + 2, wallMs: 30 });
    expect(applyBound(tiny, only("label"), 10, 100)).toEqual({ requests: 1 + 1, wallMs: 20 });
  });

  it("applies with one write per edited object, two where the platform has no update call", () => {
    const edited = changedCounts(SHAPE);
    const writes =
      expectedChanges(SHAPE, all) +
      edited.protected_environment +
      edited.system_hook +
      edited.protected_branch;
    expect(applyBound(SHAPE, all, 20, 8).requests).toBe(readRequests(SHAPE, all) + writes);
    expect(expectedChanges(SHAPE, new Set<ObjectKind>(["group"]))).toBe(3);
    // 250 projects: 25 have edited settings, one PUT each; 500 members: 50 updates; 250 branches: 25 re-protected.
    expect(writeRequests(SHAPE, only("project_settings"))).toBe(25);
    expect(writeRequests(SHAPE, only("project_member"))).toBe(50);
    expect(writeRequests(SHAPE, only("protected_branch"))).toBe(50);
    expect(writeRequests(SHAPE, only("group_variable", "project_variable"))).toBe(13 + 125);
  });
});
