/**
 * The benchmark: for each size, a sandbox with a fixed latency holds the state; forgeform plans it unchanged, plans
 * it with 10% of the objects changed, applies those changes and plans again; gitlabracadabra dry-runs the kinds both
 * tools manage on the same state. Requests are counted at the sandbox, for both tools alike.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createSandboxApp, type RunningSandbox, startSandbox } from "../src/sandbox/server.js";
import {
  AREA_KINDS,
  AREAS,
  benchKinds,
  declarableKinds,
  probedFixture,
  seedOverHttp,
  writeForgeformManifests,
  writePeerActionFile,
} from "./artifacts.js";
import { applyBound, expectedChanges, listingPages, objectTotal, planBound } from "./bound.js";
import { renderChart } from "./chart.js";
import { type Measured, measureCommand, measureForgeform, repoRoot } from "./measure.js";
import { type RateLimitBenchOptions, runRateLimitBench } from "./rate-limit.js";
import { renderMarkdown } from "./report.js";
import {
  type ChangedSinceRow,
  runApplyUnderFaults,
  runChangedSince,
  runShards,
  type ShardRow,
} from "./scale.js";
import { buildState, COMMON_KINDS, KINDS, type ObjectKind, type Shape, scaleShape } from "./state.js";

export const PEER_BINARY = "/usr/bin/gitlabracadabra";

export interface BenchOptions {
  /** The 1x shape. */
  base: Shape;
  /** Multipliers of the base shape's groups and projects, e.g. [1, 4, 16]. */
  sizes: number[];
  /** Latency the sandbox adds to every request, in ms. */
  latencyMs: number;
  /** forgeform's `--concurrency`. */
  concurrency: number;
  /** Run gitlabracadabra (when its binary exists). */
  peer: boolean;
  /** Largest size the peer runs at (it reads one request at a time); larger sizes leave it out. */
  peerMaxSize?: number;
  /** Markdown results file; a `.json` file with the same name is written next to it. */
  outFile: string;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * Largest size that runs every scenario (default 16); larger sizes run the unchanged plan, the pull-request plans
   * and the shards only (a 48x apply and its plans would add minutes and show nothing the 16x rows do not).
   */
  fullMaxSize?: number;
  /** Run the pull-request plans (`--changed-since`) and the shards at every size (default true). */
  scale?: boolean;
  /** Run the apply under faults at the smallest size (default true). */
  faults?: boolean;
  /** The plan under a rate limit (bench/rate-limit.ts), after the sizes; not run when absent. */
  rateLimit?: Pick<RateLimitBenchOptions, "factor" | "requests" | "periodSeconds" | "runs">;
}

import type { BenchResult, Row, Scenario, SizeInfo } from "./results.js";

export type { BenchResult, Row, Scenario, SizeInfo };

interface PlanJson {
  summary: { create: number; update: number; replace: number; delete: number; unmanaged: number };
  changes: { address: string; action: string; fields: unknown[] }[];
  errors: unknown[];
  requests: { total: number };
}

/** A plan's changes in a comparable form: action, address and fields, in address order. */
const changeList = (json: PlanJson) =>
  json.changes.map((c) => JSON.stringify([c.action, c.address, c.fields])).sort();

/** Segments after which the next segment is an object's id or path. */
const ID_AFTER = new Set([
  "groups",
  "projects",
  "pipeline_schedules",
  "variables",
  "badges",
  "milestones",
  "protected_environments",
  "hooks",
  "broadcast_messages",
  "users",
  "members",
  "labels",
  "protected_branches",
]);

/** `/api/v4/projects/a%2Fb/pipeline_schedules/12` -> `/projects/:id/pipeline_schedules/:id`. */
export function endpointOf(method: string, path: string): string {
  const segments = path.replace(/^\/api\/v4/, "").split("/");
  const out = segments.map((seg, i) =>
    i > 0 && (/^\d+$/.test(seg) || seg.includes("%") || ID_AFTER.has(segments[i - 1] ?? "")) ? ":id" : seg,
  );
  return `${method} ${out.join("/")}`;
}

/** Counts the requests a sandbox receives: all, writes, and by endpoint. */
export class Counter {
  total = 0;
  writes = 0;
  byEndpoint = new Map<string, number>();
  /** Full paths of the projects the requests addressed, by path or by numeric id (through `pathOf`). */
  projects = new Set<string>();
  /**
   * A numeric project id's full path, set once the sandbox whose requests are counted runs: a project known from a
   * listing is addressed by its id, and counts as the same project as when it is addressed by its path.
   */
  pathOf: (id: number) => string | undefined = () => undefined;
  /** When the counting started, and when the first and the last request arrived (performance.now()). */
  since = performance.now();
  first: number | undefined;
  last: number | undefined;
  reset(): void {
    this.total = 0;
    this.writes = 0;
    this.byEndpoint = new Map();
    this.projects = new Set();
    this.since = performance.now();
    this.first = undefined;
    this.last = undefined;
  }
  record = (method: string, path: string): void => {
    this.last = performance.now();
    this.first ??= this.last;
    this.total++;
    if (method !== "GET" && method !== "HEAD") this.writes++;
    const e = endpointOf(method, path);
    this.byEndpoint.set(e, (this.byEndpoint.get(e) ?? 0) + 1);
    const project = /^\/api\/v4\/projects\/([^/]+)/.exec(path)?.[1];
    if (project?.includes("%")) this.projects.add(decodeURIComponent(project));
    else if (project && /^\d+$/.test(project))
      this.projects.add(this.pathOf(Number(project)) ?? `#${project}`);
  };
  endpoints(): Record<string, number> {
    return Object.fromEntries([...this.byEndpoint].sort(([a], [b]) => a.localeCompare(b)));
  }
}

/** The benchmark process's CPU time since `since` (process.cpuUsage()), ms: the sandbox's, which runs in it. */
const cpuSince = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

/** The measurements every row carries: the process's own, the sandbox's request counts, the machine's load. */
function measured(m: Measured, counter: Counter, cpu: NodeJS.CpuUsage) {
  return {
    wallMs: m.wallMs,
    cpuMs: m.cpuMs,
    sandboxCpuMs: cpuSince(cpu),
    // Where the wall time went: before the first request (start-up, loading the manifests), and after the last.
    firstRequestMs: counter.first === undefined ? null : counter.first - counter.since,
    afterLastRequestMs: counter.last === undefined ? null : m.wallMs - (counter.last - counter.since),
    maxRssMb: m.maxRssMb,
    requests: counter.total,
    writes: counter.writes,
    byEndpoint: counter.endpoints(),
    load: loadavg()[0] ?? 0,
  };
}

function fail(what: string, m: Measured): never {
  throw new Error(
    `bench: ${what} failed (exit ${m.code}):\n${m.stderr.slice(-3000)}${m.stdout.slice(-2000)}`,
  );
}

function peerVersion(): string | null {
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
    return execFileSync("dpkg-query", ["-W", "-f", "${Version}", "gitlabracadabra"], {
      encoding: "utf8",
    }).trim();
  } catch {
    return null;
  }
}

/** Runs the benchmark and writes its results (Markdown and JSON). */
export async function runBenchmark(opts: BenchOptions): Promise<BenchResult> {
  const log = opts.log ?? (() => {});
  const startedAt = new Date().toISOString();
  const hookKeys = new Set(createSandboxApp().app.fixtureHooks.keys());
  const declarable = declarableKinds(repoRoot());
  const peerExists = existsSync(PEER_BINARY);
  const peerRuns = opts.peer && peerExists;
  const result: BenchResult = {
    startedAt,
    finishedAt: startedAt,
    environment: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model.trim() ?? "unknown",
      platform: `${process.platform} ${process.arch}`,
      peerVersion: peerExists ? peerVersion() : null,
    },
    latencyMs: opts.latencyMs,
    concurrency: opts.concurrency,
    base: opts.base,
    sizes: [],
    seededByFixture: [],
    seededOverHttp: [],
    missingAreas: [],
    undeclaredKinds: [],
    kinds: [],
    commonKinds: [],
    peer: peerRuns
      ? { ran: true, ...(opts.peerMaxSize !== undefined ? { maxSize: opts.peerMaxSize } : {}) }
      : { ran: false, reason: opts.peer ? `${PEER_BINARY} not found` : "--skip-peer" },
    rows: [],
  };
  const changedSince: ChangedSinceRow[] = [];
  const shards: ShardRow[] = [];
  result.changedSince = changedSince;
  result.shards = shards;
  const work = mkdtempSync(join(tmpdir(), "forgeform-bench-"));
  try {
    for (const factor of opts.sizes) {
      await runSize(factor, opts, hookKeys, declarable, peerRuns, work, result, log);
    }
    if (opts.faults !== false && opts.sizes.length > 0) {
      const factor = Math.min(...opts.sizes);
      const state = buildState(scaleShape(opts.base, factor), "seed");
      const kinds = new Set(result.kinds);
      result.faults = await runApplyUnderFaults({
        factor,
        state,
        kinds,
        hookKeys,
        manifests: writeForgeformManifests(state, kinds, join(work, `${factor}x-faults`)),
        latencyMs: opts.latencyMs,
        conc: ["--concurrency", String(opts.concurrency)],
        counter: new Counter(),
        log,
      });
    }
    if (opts.rateLimit) result.rateLimit = await runRateLimitBench({ ...opts, ...opts.rateLimit, work, log });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  result.finishedAt = new Date().toISOString();
  mkdirSync(dirname(opts.outFile), { recursive: true });
  writeFileSync(opts.outFile, renderMarkdown(result));
  writeFileSync(opts.outFile.replace(/\.md$/, "") + ".json", `${JSON.stringify(result, null, 2)}\n`);
  writeFileSync(opts.outFile.replace(/\.md$/, "") + ".svg", await renderChart(result));
  return result;
}

async function runSize(
  factor: number,
  opts: BenchOptions,
  hookKeys: ReadonlySet<string>,
  declarable: ReadonlySet<ObjectKind>,
  peerRuns: boolean,
  work: string,
  result: BenchResult,
  log: (line: string) => void,
): Promise<void> {
  const shape = scaleShape(opts.base, factor);
  const seed = buildState(shape, "seed");
  const counter = new Counter();
  const seedStarted = performance.now();
  // Areas the sandbox serves are probed on a sandbox holding one project; the fixture seeds what it can.
  const { areas, fixture, seeded } = await probedFixture(seed, hookKeys);
  const overHttp = areas.filter((a) => !seeded.includes(a));
  log(
    `${factor}x: ${shape.groups} groups, ${shape.projects} projects; seeding (fixture: groups, projects${seeded.map((a) => `, ${a}`).join("")}; API: ${overHttp.join(", ") || "nothing"})`,
  );
  const sandbox: RunningSandbox = await startSandbox({
    fixture,
    latencyMs: opts.latencyMs,
    onRequest: counter.record,
  });
  counter.pathOf = (id) => {
    const p = sandbox.store.project(id);
    return p && sandbox.store.projectFullPath(p);
  };
  try {
    await seedOverHttp(sandbox.url, sandbox.adminToken, seed, overHttp, 64);
    const seedMs = performance.now() - seedStarted;
    const kinds = benchKinds(areas, declarable);
    const common = new Set([...kinds].filter((k) => COMMON_KINDS.has(k)));
    result.seededByFixture = seeded;
    result.seededOverHttp = overHttp;
    result.missingAreas = AREAS.filter((a) => !areas.includes(a));
    result.undeclaredKinds = areas.flatMap((a) => AREA_KINDS[a]).filter((k) => !declarable.has(k));
    result.kinds = KINDS.filter((k) => kinds.has(k));
    result.commonKinds = KINDS.filter((k) => common.has(k));
    result.sizes.push({ factor, shape, objects: objectTotal(shape, kinds), seedMs });

    const dir = join(work, `${factor}x`);
    const full = factor <= (opts.fullMaxSize ?? 16);
    const seedAll = writeForgeformManifests(seed, kinds, join(dir, "seed-all"));
    const env = { FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: sandbox.adminToken };
    const conc = ["--concurrency", String(opts.concurrency)];
    const { latencyMs, concurrency } = opts;

    /** Plans; with `explicit`, the plan of the same state declared path by path, to compare changes with. */
    const plan = async (
      scenario: Scenario,
      manifests: string,
      scope: "all" | "common",
      expected: number,
      explicit?: PlanJson,
    ): Promise<PlanJson> => {
      const scopeKinds = scope === "all" ? kinds : common;
      log(`${factor}x: forgeform ${scenario} (${scope} kinds)`);
      counter.reset();
      const cpu = process.cpuUsage();
      const m = await measureForgeform(["plan", "--format", "json", ...conc, manifests], env);
      if (m.code !== 0) fail(`forgeform plan (${scenario})`, m);
      const json = JSON.parse(m.stdout) as PlanJson;
      if (json.errors.length > 0)
        throw new Error(
          `bench: forgeform plan (${scenario}) reported errors: ${JSON.stringify(json.errors).slice(0, 2000)}`,
        );
      const s = json.summary;
      result.rows.push({
        factor,
        tool: "forgeform",
        scope,
        scenario,
        objects: objectTotal(shape, scopeKinds),
        changes: s.create + s.update + s.replace + s.delete,
        expectedChanges: expected,
        unmanaged: s.unmanaged,
        ...measured(m, counter, cpu),
        clientRequests: json.requests.total,
        samePlan: explicit ? JSON.stringify(changeList(json)) === JSON.stringify(changeList(explicit)) : null,
        // Patterns add the listing of the instance's projects to what the explicit manifests need.
        bound: explicit
          ? planBound(shape, scopeKinds, latencyMs, concurrency, listingPages(shape))
          : planBound(shape, scopeKinds, latencyMs, concurrency),
      });
      return json;
    };

    const unchanged = await plan("plan, no changes", seedAll, "all", 0);
    const changed = buildState(shape, "changed");
    const changedAll = writeForgeformManifests(changed, kinds, join(dir, "changed-all"));
    // On the seeded state, before the apply changes it: pull-request plans, and the drift in shards, at every size
    // (what they cost as the instance grows).
    const scale = async () => {
      if (opts.scale === false) return;
      result.changedSince?.push(
        ...(await runChangedSince({ factor, seed, kinds, dir, env, conc, counter, log })),
      );
      result.shards?.push(
        await runShards({ factor, manifests: changedAll, dir: join(dir, "shards"), env, conc, counter, log }),
      );
    };
    // Above the full sizes, the unchanged plan and the scale runs only: what memory and wall time do at that size.
    if (!full) {
      await scale();
      return;
    }
    const seedCommon = writeForgeformManifests(seed, common, join(dir, "seed-common"));
    // The same states with every project's policy declared once, through a pattern.
    const byPatterns = { by: "patterns", policy: seed.projects[0]! } as const;
    const seedPatterns = writeForgeformManifests(seed, kinds, join(dir, "seed-patterns"), byPatterns);
    const changedPatterns = writeForgeformManifests(
      changed,
      kinds,
      join(dir, "changed-patterns"),
      byPatterns,
    );
    await plan("plan, no changes", seedCommon, "common", 0);

    if (peerRuns && (opts.peerMaxSize === undefined || factor <= opts.peerMaxSize)) {
      log(`${factor}x: gitlabracadabra --dry-run (common kinds)`);
      const cfg = join(dir, "python-gitlab.cfg");
      writeFileSync(
        cfg,
        `[global]\ndefault = sandbox\ntimeout = 60\n\n[sandbox]\nurl = ${sandbox.url}\nprivate_token = ${sandbox.adminToken}\napi_version = 4\n`,
      );
      const action = writePeerActionFile(seed, common, join(dir, "action.yml"));
      counter.reset();
      const cpu = process.cpuUsage();
      const m = await measureCommand(PEER_BINARY, ["-c", cfg, "-v", "--dry-run", action], { HOME: dir });
      if (m.code !== 0 || /Traceback|ERROR/.test(m.stderr)) fail("gitlabracadabra --dry-run", m);
      result.rows.push({
        factor,
        tool: "gitlabracadabra",
        scope: "common",
        scenario: "plan, no changes",
        objects: objectTotal(shape, common),
        // In a dry run, gitlabracadabra logs each change it would make with "(dry-run)".
        changes: (`${m.stdout}\n${m.stderr}`.match(/\(dry-run\)/g) ?? []).length,
        expectedChanges: 0,
        unmanaged: null,
        ...measured(m, counter, cpu),
        clientRequests: null,
        samePlan: null,
        bound: planBound(shape, common, latencyMs, concurrency),
      });
    }

    const expected = expectedChanges(shape, kinds);
    const tenPercent = await plan("plan, 10% changed", changedAll, "all", expected);
    await plan("plan, no changes (patterns)", seedPatterns, "all", 0, unchanged);
    await plan("plan, 10% changed (patterns)", changedPatterns, "all", expected, tenPercent);

    await scale();

    log(`${factor}x: forgeform apply (${expected} changes)`);
    counter.reset();
    const cpu = process.cpuUsage();
    const m = await measureForgeform(["apply", "--yes", "--no-color", ...conc, changedAll], env);
    if (m.code !== 0) fail("forgeform apply", m);
    result.rows.push({
      factor,
      tool: "forgeform",
      scope: "all",
      scenario: "apply the 10%",
      objects: objectTotal(shape, kinds),
      changes: null,
      expectedChanges: null,
      unmanaged: null,
      ...measured(m, counter, cpu),
      clientRequests: null,
      samePlan: null,
      bound: applyBound(shape, kinds, latencyMs, concurrency),
    });

    await plan("plan after apply", changedAll, "all", 0);
  } finally {
    await sandbox.stop();
  }
}
