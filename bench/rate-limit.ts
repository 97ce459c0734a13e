/**
 * The plan under the platform's rate limit: the sandbox throttles the API as Rack::Attack does (per user, fixed
 * windows aligned on the clock), and forgeform plans the unchanged state, once not knowing the limit (it meets the
 * first 429 and paces from there) and once told it with `--max-rate`. Measured: requests and 429s counted at the
 * sandbox, and the wall time against the least the limit allows, (requests answered) / limit.
 */
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { createSandboxApp, type RunningSandbox, startSandbox } from "../src/sandbox/server.js";
import {
  AREAS,
  availableAreas,
  benchKinds,
  buildFixture,
  declarableKinds,
  seedOverHttp,
  writeForgeformManifests,
} from "./artifacts.js";
import { objectTotal } from "./bound.js";
import { measureForgeform, repoRoot } from "./measure.js";
import { buildState, type Shape, scaleShape } from "./state.js";

/** `adaptive`: forgeform does not know the limit; `max-rate`: `--max-rate` at the limit. */
export type RateLimitRun = "adaptive" | "max-rate";

export interface RateLimitBenchOptions {
  /** The 1x shape, and the size measured (1). */
  base: Shape;
  factor: number;
  latencyMs: number;
  concurrency: number;
  /** Requests allowed per window, and the window in seconds: 600 and 60 for 600/min. */
  requests: number;
  periodSeconds: number;
  runs: readonly RateLimitRun[];
  /** Working directory for the manifests. */
  work: string;
  log?: (line: string) => void;
}

export interface RateLimitRow {
  factor: number;
  run: RateLimitRun;
  requestsPerWindow: number;
  periodSeconds: number;
  objects: number;
  /** Changes the plan reported (0 expected: the state is unchanged). */
  changes: number;
  /** Requests counted at the sandbox, 429s included, and the 429s. */
  requests: number;
  throttled: number;
  /** Requests forgeform says it made (its plan JSON), for cross-checking. */
  clientRequests: number;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
  /** The least wall time the limit allows for the requests answered: (requests - 429s) / limit. */
  limitWallMs: number;
  load: number;
}

export const RATE_LIMIT_COLUMNS = [
  "Size",
  "Run",
  "Limit",
  "Objects",
  "Changes",
  "Requests",
  "429s",
  "429 share",
  "Wall s",
  "Requests / limit s",
  "Wall / (requests / limit)",
  "CPU s",
  "Load",
] as const;

/** `600/min`, or `20/1s` for other windows. */
export function limitLabel(requests: number, periodSeconds: number): string {
  return periodSeconds === 60 ? `${requests}/min` : `${requests}/${periodSeconds}s`;
}

interface PlanJson {
  summary: { create: number; update: number; replace: number; delete: number };
  errors: unknown[];
  requests: { total: number };
}

/** A fresh administrator with its own token: the throttle counts per user, so each run starts with a full budget. */
function freshAdmin(sandbox: RunningSandbox, name: string): string {
  const user = sandbox.store.createUser({ username: name, name, email: `${name}@example.com`, admin: true });
  const token = `bench-${randomBytes(12).toString("hex")}`;
  sandbox.store.addToken(token, user.id, name);
  return token;
}

/** Seeds the state, turns the throttle on, and plans it under the limit once per run. */
export async function runRateLimitBench(opts: RateLimitBenchOptions): Promise<RateLimitRow[]> {
  const log = opts.log ?? (() => {});
  const shape = scaleShape(opts.base, opts.factor);
  const seed = buildState(shape, "seed");
  const hookKeys = new Set(createSandboxApp().app.fixtureHooks.keys());
  const { fixture, seeded } = buildFixture(seed, AREAS, hookKeys);
  const counts = { requests: 0, throttled: 0 };
  const sandbox = await startSandbox({
    fixture,
    latencyMs: opts.latencyMs,
    onRequest: () => {
      counts.requests += 1;
    },
    onThrottled: () => {
      counts.throttled += 1;
    },
  });
  const label = limitLabel(opts.requests, opts.periodSeconds);
  const rows: RateLimitRow[] = [];
  try {
    const areas = await availableAreas(sandbox.url, sandbox.adminToken, seed.projects[0]!);
    await seedOverHttp(
      sandbox.url,
      sandbox.adminToken,
      seed,
      areas.filter((a) => !seeded.includes(a)),
      64,
    );
    const kinds = benchKinds(areas, declarableKinds(repoRoot()));
    const manifests = writeForgeformManifests(seed, kinds, join(opts.work, `rate-limit-${opts.factor}x`));
    const settings = await fetch(`${sandbox.url}/api/v4/application/settings`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": sandbox.adminToken, "Content-Type": "application/json" },
      body: JSON.stringify({
        throttle_authenticated_api_enabled: true,
        throttle_authenticated_api_requests_per_period: opts.requests,
        throttle_authenticated_api_period_in_seconds: opts.periodSeconds,
      }),
    });
    if (!settings.ok) throw new Error(`bench: turning the rate limit on answered ${settings.status}`);
    const perMinute = (opts.requests * 60) / opts.periodSeconds;
    for (const run of opts.runs) {
      const token = freshAdmin(sandbox, `bench-${run}`);
      if (run === "adaptive") {
        // Start as a window begins: the worst case for a run that does not know the limit, which spends the
        // whole first window at full speed before its first 429, then waits for the window's end.
        const period = opts.periodSeconds * 1000;
        await delay(period - (Date.now() % period));
      }
      log(`${opts.factor}x: forgeform plan under ${label} (${run})`);
      counts.requests = 0;
      counts.throttled = 0;
      const m = await measureForgeform(
        [
          "plan",
          "--format",
          "json",
          "--concurrency",
          String(opts.concurrency),
          ...(run === "max-rate" ? ["--max-rate", `${perMinute}/min`] : []),
          manifests,
        ],
        { FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: token },
      );
      if (m.code !== 0)
        throw new Error(
          `bench: forgeform plan under ${label} (${run}) failed (exit ${m.code}):\n${m.stderr.slice(-3000)}`,
        );
      const json = JSON.parse(m.stdout) as PlanJson;
      if (json.errors.length > 0)
        throw new Error(
          `bench: forgeform plan under ${label} (${run}) reported errors: ${JSON.stringify(json.errors).slice(0, 2000)}`,
        );
      const s = json.summary;
      rows.push({
        factor: opts.factor,
        run,
        requestsPerWindow: opts.requests,
        periodSeconds: opts.periodSeconds,
        objects: objectTotal(shape, kinds),
        changes: s.create + s.update + s.replace + s.delete,
        requests: counts.requests,
        throttled: counts.throttled,
        clientRequests: json.requests.total,
        wallMs: m.wallMs,
        cpuMs: m.cpuMs,
        maxRssMb: m.maxRssMb,
        limitWallMs: ((counts.requests - counts.throttled) / opts.requests) * opts.periodSeconds * 1000,
        load: loadavg()[0] ?? 0,
      });
    }
  } finally {
    await sandbox.stop();
  }
  return rows;
}

/** The table of the runs under the limit. */
export function renderRateLimitTable(rows: readonly RateLimitRow[]): string {
  const s = (ms: number) => (ms / 1000).toFixed(1);
  const int = (n: number) => n.toLocaleString("en-US");
  const lines = [
    `| ${RATE_LIMIT_COLUMNS.join(" | ")} |`,
    `| ${RATE_LIMIT_COLUMNS.map((_, i) => (i < 3 ? "---" : "---:")).join(" | ")} |`,
  ];
  for (const r of rows) {
    const label = limitLabel(r.requestsPerWindow, r.periodSeconds);
    lines.push(
      `| ${[
        `${r.factor}x`,
        r.run === "adaptive" ? "plan, limit not known" : `plan, --max-rate ${label}`,
        label,
        int(r.objects),
        int(r.changes),
        int(r.requests),
        int(r.throttled),
        `${((100 * r.throttled) / Math.max(1, r.requests)).toFixed(1)}%`,
        s(r.wallMs),
        s(r.limitWallMs),
        (r.wallMs / r.limitWallMs).toFixed(2),
        s(r.cpuMs),
        r.load.toFixed(1),
      ].join(" | ")} |`,
    );
  }
  return lines.join("\n");
}

/** The section of the results file, with what the rows mean. */
export function renderRateLimitSection(rows: readonly RateLimitRow[]): string {
  if (rows.length === 0) return "Not run.";
  return [
    "- The sandbox throttles the API as Rack::Attack does: per user, fixed windows aligned on the clock, 429 with " +
      "`Retry-After` and `RateLimit-*` past the limit. Each run has a user of its own (a full budget); the run not " +
      "told the limit starts as a window begins, its worst case: it spends that window at full speed, meets its " +
      "first 429s, waits for the window's end and paces from there.",
    "- Requests / limit s: the least wall time the limit allows for the requests answered (429s left out). " +
      "Goal: wall within 1.1x of it, 429s under 2% of the requests, no failure.",
    "",
    renderRateLimitTable(rows),
  ].join("\n");
}
