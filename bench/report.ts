/** Renders benchmark results as Markdown: the main table, the growth table and the peer comparison. */
import type { BenchResult, Row } from "./bench.js";
import { renderRateLimitSection } from "./rate-limit.js";

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
  "Peak MB",
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
  "Plan requests",
  "Requests / object",
  "Apply wall s",
  "Apply requests",
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
      mb(r.maxRssMb),
      int(r.requests),
      int(r.bound.requests),
      ratio(r.requests, r.bound.requests),
      s(r.bound.wallMs),
      ratio(r.wallMs, r.bound.wallMs),
      r.load.toFixed(1),
    ]),
  );
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
    if (!plan || !apply) continue;
    rows.push([
      `${size.factor}x`,
      int(size.shape.groups),
      int(size.shape.projects),
      int(size.objects),
      s(plan.wallMs),
      s(plan.cpuMs),
      mb(plan.maxRssMb),
      int(plan.requests),
      (plan.requests / size.objects).toFixed(2),
      s(apply.wallMs),
      int(apply.requests),
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
    `- 1x = ${b.groups} groups and ${b.projects} projects, each project with ${b.schedulesPerProject} pipeline schedules of ${b.variablesPerSchedule} variables, ${b.badgesPerProject} badges, ${b.environmentsPerProject} protected environment and ${b.milestonesPerProject} milestones; plus application settings, ${b.systemHooks} system hooks and ${b.broadcastMessages} broadcast messages. Sizes: ${sizes}.`,
    `- Kinds declared (\`all\`): ${result.kinds.join(", ")}. Kinds both tools manage (\`common\`): ${result.commonKinds.join(", ")}.`,
    `- Seeded through the sandbox fixture: groups, projects${result.seededByFixture.map((a) => `, ${a}`).join("")}; through the API before measuring: ${result.seededOverHttp.join(", ") || "nothing"}.`,
  ];
  if (result.missingAreas.length > 0)
    notes.push(`- Not measured (the sandbox does not serve them yet): ${result.missingAreas.join(", ")}.`);
  notes.push(
    result.peer.ran
      ? `- Peer: gitlabracadabra ${e.peerVersion ?? "(version unknown)"}, \`--dry-run\` of the common kinds, one request at a time (it has no concurrency setting)${result.peer.maxSize !== undefined ? `; run at sizes up to ${result.peer.maxSize}x only (\`--peer-max-size\`)` : ""}.`
      : `- Peer not run: ${result.peer.reason ?? "unknown reason"}.`,
  );
  notes.push(
    `- Load: the machine's 1-minute load average at the end of each run (${result.environment.cpus} CPUs); other processes on the machine lengthen wall times, never request counts.`,
    "- Requests are counted at the sandbox for both tools. CPU time and peak memory are the measured process's own (forgeform: `process.resourceUsage()`; gitlabracadabra: GNU time); the sandbox runs in the benchmark's process and is not included.",
    "- Bound: the fewest requests that read the declared state through the contract (100 per page, one detail read per schedule for its variables, no project reads), plus one write per changed object (two where the contract has no update: protected environments, system hooks) for apply; bound wall = max(ceil(requests / concurrency), dependent chain) x latency.",
    '- `(patterns)` runs: the same states, every project\'s policy declared once in a `projects: {"**": ...}` entry (schedules with variables, badges, protected environments, milestones), plus a full-path entry holding only the edited objects of each project that has one; their plan must be the one made with an entry per project, and their bound adds the pages of the `GET /projects` listing the pattern reads.',
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
    ...(result.rateLimit ? ["## Under a rate limit", "", renderRateLimitSection(result.rateLimit), ""] : []),
  ].join("\n");
}
