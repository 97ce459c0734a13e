/** Renders benchmark results as Markdown: the main table, the growth table and the peer comparison. */

import { renderRateLimitSection } from "./rate-limit.js";
import type { BenchResult, Row } from "./results.js";
import { type ApplyCost, type RunCost, SHARDS, type ShardRow, TEMPLATE_PROJECTS } from "./scale.js";
import { PROJECT_SETTINGS } from "./state.js";

/** Columns of the main table, in order (the test checks them). */
export const MAIN_COLUMNS = [
  "Size",
  "Tool",
  "Kinds",
  "Run",
  "Objects",
  "Changes (expected)",
  "Wall s",
  "CPU s",
  "Sandbox CPU s",
  "Peak MB",
  "s before first request",
  "Requests",
  "Bound requests",
  "Requests / bound",
  "Bound wall s",
  "Wall / bound",
  "Load",
] as const;

export const GROWTH_COLUMNS = [
  "Size",
  "Groups",
  "Projects",
  "Objects",
  "Plan wall s",
  "Plan CPU s",
  "Plan peak MB",
  "Plan s before first request",
  "Plan s after last request",
  "Plan requests",
  "Requests / object",
  "Apply wall s",
  "Apply requests",
  "Pull request, one cron: s / MB",
  "Pull request, template: s / MB",
  "Shards: largest CPU / peak, of unsharded",
] as const;

export const PEER_COLUMNS = [
  "Size",
  "Objects",
  "forgeform wall s",
  "forgeform requests",
  "gitlabracadabra wall s",
  "gitlabracadabra requests",
  "Bound requests",
  "gitlabracadabra / forgeform (wall)",
  "gitlabracadabra / forgeform (requests)",
] as const;

const s = (ms: number) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : "n/a");
const mb = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : "n/a");
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}` : "n/a");
const int = (n: number) => n.toLocaleString("en-US");

function table(columns: readonly string[], rows: string[][]): string {
  const head = `| ${columns.join(" | ")} |`;
  const rule = `| ${columns.map((c, i) => (i === 0 ? "---" : c.length > 0 ? "---:" : "---")).join(" | ")} |`;
  return [head, rule, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

function changes(r: Row): string {
  if (r.changes === null) return r.scenario === "apply the 10%" ? `${int(r.writes)} writes` : "";
  const counted =
    r.expectedChanges === null ? int(r.changes) : `${int(r.changes)} (${int(r.expectedChanges)})`;
  if (r.samePlan === null || r.samePlan === undefined) return counted;
  return `${counted}, ${r.samePlan ? "same plan as by path" : "NOT the plan by path"}`;
}

/** The main table alone: one row per run. */
export function renderMainTable(result: BenchResult): string {
  return table(
    MAIN_COLUMNS,
    result.rows.map((r) => [
      `${r.factor}x`,
      r.tool,
      r.scope,
      r.scenario,
      int(r.objects),
      changes(r),
      s(r.wallMs),
      s(r.cpuMs),
      s(r.sandboxCpuMs),
      mb(r.maxRssMb),
      r.firstRequestMs == null ? "n/a" : s(r.firstRequestMs),
      int(r.requests),
      int(r.bound.requests),
      ratio(r.requests, r.bound.requests),
      s(r.bound.wallMs),
      ratio(r.wallMs, r.bound.wallMs),
      r.load.toFixed(1),
    ]),
  );
}

/** The largest shard's CPU time and peak memory, each as a share of the unsharded run's. */
function shardShares(r: ShardRow | undefined): string {
  if (!r || r.shards.length === 0) return "not run";
  const share = (pick: (c: RunCost) => number) =>
    `${((100 * Math.max(...r.shards.map(pick))) / Math.max(1, pick(r.unsharded))).toFixed(0)}%`;
  return `${share((c) => c.cpuMs)} / ${share((c) => c.maxRssMb)}`;
}

export function renderGrowthTable(result: BenchResult): string {
  const rows: string[][] = [];
  for (const size of result.sizes) {
    const find = (tool: string, scope: string, scenario: string) =>
      result.rows.find(
        (r) => r.factor === size.factor && r.tool === tool && r.scope === scope && r.scenario === scenario,
      );
    const plan = find("forgeform", "all", "plan, no changes");
    const apply = find("forgeform", "all", "apply the 10%");
    if (!plan) continue;
    rows.push([
      `${size.factor}x`,
      int(size.shape.groups),
      int(size.shape.projects),
      int(size.objects),
      s(plan.wallMs),
      s(plan.cpuMs),
      mb(plan.maxRssMb),
      plan.firstRequestMs == null ? "n/a" : s(plan.firstRequestMs),
      plan.afterLastRequestMs == null ? "n/a" : s(plan.afterLastRequestMs),
      int(plan.requests),
      (plan.requests / size.objects).toFixed(2),
      apply ? s(apply.wallMs) : "not run",
      apply ? int(apply.requests) : "not run",
      ...(["one schedule's cron", "a template used by 100 projects"] as const).map((run) => {
        const pr = result.changedSince?.find((r) => r.factor === size.factor && r.run === run);
        return pr ? `${s(pr.wallMs)} / ${mb(pr.maxRssMb)}` : "not run";
      }),
      shardShares(result.shards?.find((r) => r.factor === size.factor)),
    ]);
  }
  return table(GROWTH_COLUMNS, rows);
}

export function renderPeerTable(result: BenchResult): string {
  const rows: string[][] = [];
  for (const size of result.sizes) {
    const ff = result.rows.find(
      (r) =>
        r.factor === size.factor &&
        r.tool === "forgeform" &&
        r.scope === "common" &&
        r.scenario === "plan, no changes",
    );
    const peer = result.rows.find((r) => r.factor === size.factor && r.tool === "gitlabracadabra");
    if (!ff || !peer) continue;
    rows.push([
      `${size.factor}x`,
      int(ff.objects),
      s(ff.wallMs),
      int(ff.requests),
      s(peer.wallMs),
      int(peer.requests),
      int(ff.bound.requests),
      ratio(peer.wallMs, ff.wallMs),
      ratio(peer.requests, ff.requests),
    ]);
  }
  return table(PEER_COLUMNS, rows);
}

/** The columns every run of the scale tables ends with (see costCells). */
const COST_COLUMNS = [
  "Wall s",
  "s before first request",
  "CPU s",
  "Sandbox CPU s",
  "Peak MB",
  "Load",
] as const;

export const CHANGED_SINCE_COLUMNS = [
  "Size",
  "Change",
  "Changes (expected)",
  "Exactly that change",
  "Requests",
  "Projects read (concerned)",
  "Only those",
  ...COST_COLUMNS,
] as const;

const yes = (b: boolean) => (b ? "yes" : "NO");

/** The cells every run of the scale tables ends with: its times, memory and the load. */
const costCells = (c: RunCost) => [
  s(c.wallMs),
  c.firstRequestMs == null ? "n/a" : s(c.firstRequestMs),
  s(c.cpuMs),
  s(c.sandboxCpuMs),
  mb(c.maxRssMb),
  c.load.toFixed(1),
];

/** Pull-request plans: `plan --changed-since HEAD` after one change in the working tree. */
export function renderChangedSinceTable(result: BenchResult): string {
  return table(
    CHANGED_SINCE_COLUMNS,
    (result.changedSince ?? []).map((r) => [
      `${r.factor}x`,
      r.run,
      `${int(r.changes)} (${int(r.expectedChanges)})`,
      yes(r.exact),
      r.maxRequests === null ? int(r.requests) : `${int(r.requests)} (at most ${r.maxRequests})`,
      `${int(r.projectsRead)} (${int(r.projectsExpected)})`,
      yes(r.onlyThose),
      ...costCells(r),
    ]),
  );
}

export const SHARD_COLUMNS = ["Size", "Run", "Requests", "Share of unsharded", ...COST_COLUMNS] as const;

/** Drift split into shards: each shard's cost against the unsharded run, and whether the merge gives it back. */
export function renderShardTable(result: BenchResult): string {
  const rows: string[][] = [];
  for (const r of result.shards ?? []) {
    const line = (run: string, c: RunCost) => [
      `${r.factor}x`,
      run,
      int(c.requests),
      `${((100 * c.requests) / Math.max(1, r.unsharded.requests)).toFixed(1)}%`,
      ...costCells(c),
    ];
    rows.push(line(`drift, unsharded (${int(r.items)} items)`, r.unsharded));
    r.shards.forEach((c, i) => {
      rows.push(line(`drift --shard ${i + 1}/${SHARDS}`, c));
    });
    rows.push([
      `${r.factor}x`,
      `report merge: ${r.mergedEqual ? "equals the unsharded report" : "DIFFERS from the unsharded report"}`,
      "",
      `largest ${(100 * r.maxShare).toFixed(1)}%`,
      ...COST_COLUMNS.map(() => ""),
    ]);
  }
  return table(SHARD_COLUMNS, rows);
}

export const FAULT_COLUMNS = [
  "Run",
  "Exit",
  "Done",
  "Failed",
  "Requests",
  "Retries",
  "Re-reads",
  "Found on re-reading",
  ...COST_COLUMNS,
] as const;

/** The apply under faults next to the same apply without faults, and what the platform holds after it. */
export function renderFaultSection(result: BenchResult): string {
  const f = result.faults;
  if (!f) return "Not run.";
  const line = (run: string, c: ApplyCost) => [
    run,
    String(c.code),
    int(c.done),
    int(c.failed),
    int(c.requests),
    int(c.retries),
    int(c.rereads),
    int(c.recovered),
    ...costCells(c),
  ];
  return [
    `${f.factor}x state created on a sandbox holding only its groups and projects (${int(f.objects)} objects, and the settings updated); faults \`${f.faults}\`, seed ${f.seed}.`,
    "",
    table(FAULT_COLUMNS, [
      line("apply, no faults", f.calm),
      line("apply under faults", f.faulted),
      [
        "under faults / no faults",
        "",
        "",
        "",
        ratio(f.faulted.requests, f.calm.requests),
        "",
        "",
        "",
        ratio(f.faulted.wallMs, f.calm.wallMs),
        ratio(f.faulted.cpuMs, f.calm.cpuMs),
        "",
        "",
        "",
      ],
    ]),
    "",
    `After the apply under faults: the next plan reports ${int(f.nextPlanChanges)} changes; the sandbox's tables hold ${f.missing === 0 && f.duplicates === 0 ? "exactly one of every declared object" : `${int(f.missing)} missing and ${int(f.duplicates)} duplicate objects`}.`,
  ].join("\n");
}

export const ENDPOINT_COLUMNS = [
  "Endpoint",
  "forgeform, all kinds",
  "forgeform, common kinds",
  "gitlabracadabra, common kinds",
] as const;

/** Requests by endpoint of the unchanged plans (and the peer's dry run) at the largest size. */
export function renderEndpointTable(result: BenchResult): string {
  const factor = Math.max(...result.sizes.map((x) => x.factor));
  const pick = (tool: string, scope: string) =>
    result.rows.find(
      (r) => r.factor === factor && r.tool === tool && r.scope === scope && r.scenario === "plan, no changes",
    );
  const runs = [pick("forgeform", "all"), pick("forgeform", "common"), pick("gitlabracadabra", "common")];
  const endpoints = [...new Set(runs.flatMap((r) => Object.keys(r?.byEndpoint ?? {})))].sort();
  return table(
    ENDPOINT_COLUMNS,
    endpoints.map((e) => [`\`${e}\``, ...runs.map((r) => (r ? int(r.byEndpoint[e] ?? 0) : "not run"))]),
  );
}

/** The whole results file. */
export function renderMarkdown(result: BenchResult): string {
  const e = result.environment;
  const b = result.base;
  const sizes = result.sizes.map((x) => `${x.factor}x`).join(", ");
  const notes: string[] = [
    `- Run ${result.startedAt} to ${result.finishedAt}; Node ${e.node} on ${e.platform}, ${e.cpus} CPUs (${e.cpuModel}).`,
    `- Sandbox latency ${result.latencyMs} ms on every request; forgeform \`--concurrency ${result.concurrency}\`.`,
    `- 1x = ${b.groups} groups with ${b.ciVariablesPerGroup} CI/CD variables each and ${b.projects} projects, each project with ${b.schedulesPerProject} pipeline schedules of ${b.variablesPerSchedule} variables, ${b.badgesPerProject} badges, ${b.environmentsPerProject} protected environment, ${b.milestonesPerProject} milestones, ${b.ciVariablesPerProject} CI/CD variables, ${Object.keys(PROJECT_SETTINGS).length} of its settings, ${b.membersPerProject} members, ${b.labelsPerProject} labels, ${b.protectedBranchesPerProject} protected branch and ${b.hooksPerProject} hook; plus application settings, ${b.systemHooks} system hooks and ${b.broadcastMessages} broadcast messages. Sizes: ${sizes}.`,
    `- Kinds declared (\`all\`): ${result.kinds.join(", ")}. Kinds both tools manage (\`common\`): ${result.commonKinds.join(", ")}.`,
    `- Seeded through the sandbox fixture: groups, projects${result.seededByFixture.map((a) => `, ${a}`).join("")}; through the API before measuring: ${result.seededOverHttp.join(", ") || "nothing"}.`,
  ];
  if (result.missingAreas.length > 0)
    notes.push(`- Not measured (the sandbox does not serve them yet): ${result.missingAreas.join(", ")}.`);
  if ((result.undeclaredKinds ?? []).length > 0)
    notes.push(
      `- Not declared (forgeform's schemas have no such collection yet): ${result.undeclaredKinds!.join(", ")}.`,
    );
  notes.push(
    result.peer.ran
      ? `- Peer: gitlabracadabra ${e.peerVersion ?? "(version unknown)"}, \`--dry-run\` of the common kinds, one request at a time (it has no concurrency setting)${result.peer.maxSize !== undefined ? `; run at sizes up to ${result.peer.maxSize}x only (\`--peer-max-size\`)` : ""}.`
      : `- Peer not run: ${result.peer.reason ?? "unknown reason"}.`,
  );
  notes.push(
    `- Load: the machine's 1-minute load average at the end of each run (${result.environment.cpus} CPUs); other processes on the machine lengthen wall times, never request counts.`,
    "- Requests are counted at the sandbox for both tools. CPU time and peak memory are the measured process's own (forgeform: `process.resourceUsage()`; gitlabracadabra: GNU time). The sandbox runs in the benchmark's process: `Sandbox CPU s` is that process's CPU time during the run (serving and counting the requests).",
    "- Bound: the fewest requests that read the declared state through the contract (100 per page; one list per project and collection; one detail read per schedule for its variables; no project reads, project settings from each group's project listing), plus one write per changed object (one `PUT` per project for its settings; two where there is no update call: protected environments, system hooks, protected branches) for apply; bound wall = max(ceil(requests / concurrency), dependent chain) x latency.",
    '- `(patterns)` runs: the same states, every project\'s policy declared once in a `projects: {"**": ...}` entry (settings, schedules with variables, badges, protected environments, milestones, CI/CD variables, members, labels, protected branches, hooks), plus a full-path entry holding only the edited objects and settings of each project that has one; their plan must be the one made with an entry per project, and their bound adds the pages of the `GET /projects` listing the pattern reads, which holds the project settings (no group listings then).',
  );
  return [
    "# forgeform benchmark results",
    "",
    ...notes,
    "",
    "## Runs",
    "",
    renderMainTable(result),
    "",
    "## Growth (forgeform, all kinds)",
    "",
    renderGrowthTable(result),
    "",
    "## Side by side with gitlabracadabra (common kinds, same state, same latency)",
    "",
    result.peer.ran ? renderPeerTable(result) : "Not run.",
    "",
    `## Where the requests go (${Math.max(...result.sizes.map((x) => x.factor))}x, plans with no changes)`,
    "",
    renderEndpointTable(result),
    "",
    `## Pull-request plans (--changed-since, on the seeded state)`,
    "",
    (result.changedSince ?? []).length > 0
      ? `The manifests committed to git, one change made in the working tree, \`plan --changed-since HEAD\`: one schedule's cron (goal: at most 10 requests, exactly that change); a template that the milestones of ${TEMPLATE_PROJECTS} projects come from (goal: those projects read, no other).\n\n${renderChangedSinceTable(result)}`
      : "Not run.",
    "",
    `## Shards (drift of the 10% changed manifests, --shard K/${SHARDS})`,
    "",
    (result.shards ?? []).length > 0 ? renderShardTable(result) : "Not run.",
    "",
    "## Apply under faults",
    "",
    renderFaultSection(result),
    "",
    ...(result.rateLimit ? ["## Under a rate limit", "", renderRateLimitSection(result.rateLimit), ""] : []),
  ].join("\n");
}
