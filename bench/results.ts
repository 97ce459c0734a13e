/**
 * What a benchmark run produces: its rows per size and scenario, and the result file's shape. The runner
 * (bench.ts) fills it in; the report (report.ts) renders it. Neither imports the other.
 */
import type { Area } from "./artifacts.js";
import type { Bound } from "./bound.js";
import type { RateLimitRow } from "./rate-limit.js";
import type { ChangedSinceRow, FaultRow, ShardRow } from "./scale.js";
import type { ObjectKind, Shape } from "./state.js";

export type Scenario =
  | "plan, no changes"
  | "plan, 10% changed"
  | "apply the 10%"
  | "plan after apply"
  | "plan, no changes (patterns)"
  | "plan, 10% changed (patterns)";

export interface Row {
  factor: number;
  tool: "forgeform" | "gitlabracadabra";
  /** `all`: every kind the benchmark declares; `common`: the kinds both tools manage. */
  scope: "all" | "common";
  scenario: Scenario;
  objects: number;
  /** Changes the run reported (plans: create + update + replace + delete); null when the tool does not say. */
  changes: number | null;
  /** Changes the run must report, from the state; null when nothing is expected to be reported. */
  expectedChanges: number | null;
  unmanaged: number | null;
  wallMs: number;
  cpuMs: number;
  /** CPU time of the benchmark's own process during the run: the sandbox serving it (it runs there). */
  sandboxCpuMs: number;
  /**
   * From the start of the process to the first request the sandbox received (start-up, loading and validating the
   * manifests), and from the last request's arrival to the end of the process (its answer, planning, output).
   */
  firstRequestMs?: number | null;
  afterLastRequestMs?: number | null;
  maxRssMb: number;
  requests: number;
  writes: number;
  /** Requests by endpoint (`GET /projects/:id/badges`), counted at the sandbox. */
  byEndpoint: Record<string, number>;
  /** The machine's 1-minute load average when the run ended (other processes slow wall time down). */
  load: number;
  /** Requests the tool itself reports having made (forgeform's plan JSON), for cross-checking; else null. */
  clientRequests: number | null;
  /**
   * Runs whose manifests declare the projects through patterns: whether the plan's changes are exactly those of
   * the same scenario with one entry per project; null for other runs.
   */
  samePlan: boolean | null;
  bound: Bound;
}

export interface SizeInfo {
  factor: number;
  shape: Shape;
  objects: number;
  seedMs: number;
}

export interface BenchResult {
  startedAt: string;
  finishedAt: string;
  environment: { node: string; cpus: number; cpuModel: string; platform: string; peerVersion: string | null };
  latencyMs: number;
  concurrency: number;
  base: Shape;
  sizes: SizeInfo[];
  /** Areas seeded through the fixture, and through the API (their route module has no fixture key the bench knows). */
  seededByFixture: Area[];
  seededOverHttp: Area[];
  /** Areas the sandbox does not serve (left out of the state and the manifests). */
  missingAreas: Area[];
  /**
   * Kinds the sandbox serves that forgeform's schemas cannot declare yet (left out of the manifests and the
   * peer's file); absent in results of older runs.
   */
  undeclaredKinds?: ObjectKind[];
  kinds: ObjectKind[];
  commonKinds: ObjectKind[];
  /** Whether the peer ran; `maxSize`: the largest size it ran at, when limited by `peerMaxSize`. */
  peer: { ran: boolean; reason?: string; maxSize?: number };
  rows: Row[];
  /** Pull-request plans (`--changed-since`), at every size (absent in results of older runs). */
  changedSince?: ChangedSinceRow[];
  /** Drift split into shards and merged, at every size (absent in results of older runs). */
  shards?: ShardRow[];
  /** Apply under faults (issue 18), at the smallest size. */
  faults?: FaultRow;
  /** The plan under a rate limit (bench/rate-limit.ts), when run. */
  rateLimit?: RateLimitRow[];
}
