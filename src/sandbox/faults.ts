/**
 * Deterministic fault injection.
 *
 * Spec: comma-separated entries `KIND:PROBABILITY[@SCOPE]`
 *   KIND   429 | 500 | 502 | 503 | reset | drop-after-commit
 *   SCOPE  METHOD, /path/prefix, or METHOD/path/prefix (e.g. `POST`, `/api/v4/groups`, `PUT/api/v4/projects`);
 *          a path ending in `$` is that path exactly (`POST/api/v4/projects/1/wikis$`: not `…/wikis/attachments`)
 * Example: `429:0.05,503:0.02@GET,reset:0.01,drop-after-commit:0.1@POST/api/v4/groups`.
 *
 * One draw of a seeded PRNG per request picks at most one fault, walking the matching entries in order with
 * cumulative probabilities, so a given seed and request sequence always gives the same faults.
 * `drop-after-commit` applies only to writes (POST, PUT, PATCH, DELETE): the request is processed and the state
 * persisted, then the connection is dropped without a response. `reset` drops the connection before processing.
 * Only requests that carry a token are subject to faults.
 *
 * Latency: `20` (fixed milliseconds) or `20-80` (uniform range, drawn from its own seeded stream).
 */
export type FaultKind = "429" | "500" | "502" | "503" | "reset" | "drop-after-commit";
const KINDS: readonly FaultKind[] = ["429", "500", "502", "503", "reset", "drop-after-commit"];
const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export interface FaultRule {
  kind: FaultKind;
  probability: number;
  method?: string;
  pathPrefix?: string;
  /** The path must be `pathPrefix` exactly (the scope ended in `$`). */
  exact?: boolean;
}

export class FaultSpecError extends Error {
  override name = "FaultSpecError";
}

export function parseFaults(spec: string): FaultRule[] {
  const rules: FaultRule[] = [];
  for (const raw of spec.split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const m = /^([a-z0-9-]+):([0-9]*\.?[0-9]+)(?:@([A-Za-z]*)(\/\S*)?)?$/.exec(entry);
    if (!m) {
      throw new FaultSpecError(
        `sandbox: fault entry "${entry}" is not KIND:PROBABILITY[@METHOD][/path/prefix] (e.g. 503:0.1@POST/api/v4/groups)`,
      );
    }
    const kind = m[1] as FaultKind;
    if (!KINDS.includes(kind)) {
      throw new FaultSpecError(`sandbox: fault kind "${m[1]}" is unknown; use one of ${KINDS.join(", ")}`);
    }
    const probability = Number(m[2]);
    if (!(probability >= 0 && probability <= 1)) {
      throw new FaultSpecError(`sandbox: fault probability in "${entry}" must be between 0 and 1`);
    }
    const rule: FaultRule = { kind, probability };
    if (m[3]) rule.method = m[3].toUpperCase();
    if (m[4]?.endsWith("$")) {
      rule.pathPrefix = m[4].slice(0, -1);
      rule.exact = true;
    } else if (m[4]) rule.pathPrefix = m[4];
    rules.push(rule);
  }
  const total = rules.reduce((s, r) => s + r.probability, 0);
  if (total > 1 + 1e-9 && rules.every((r) => !r.method && !r.pathPrefix)) {
    throw new FaultSpecError(`sandbox: fault probabilities add up to ${total}, more than 1`);
  }
  return rules;
}

export interface Latency {
  min: number;
  max: number;
}

/** The longest latency a request may be given: a minute (a timer past 2^31-1 ms would fire at once). */
export const MAX_LATENCY_MS = 60_000;

export function parseLatency(spec: string | number | undefined): Latency {
  if (spec === undefined || spec === "") return { min: 0, max: 0 };
  let min = Number(spec);
  let max = min;
  if (typeof spec === "string") {
    const m = /^(\d+)(?:-(\d+))?$/.exec(spec.trim());
    if (!m)
      throw new FaultSpecError(`sandbox: latency "${spec}" must be milliseconds (20) or a range (20-80)`);
    min = Number(m[1]);
    max = m[2] === undefined ? min : Number(m[2]);
  }
  if (max < min)
    throw new FaultSpecError(`sandbox: latency range "${spec}" has its maximum below its minimum`);
  if (!(max <= MAX_LATENCY_MS && min >= 0))
    throw new FaultSpecError(`sandbox: latency "${spec}" must be from 0 to ${MAX_LATENCY_MS} ms`);
  return { min, max };
}

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class FaultInjector {
  private readonly faultRandom: () => number;
  private readonly latencyRandom: () => number;

  constructor(
    readonly rules: FaultRule[],
    readonly latency: Latency,
    seed: number,
  ) {
    this.faultRandom = prng(seed);
    this.latencyRandom = prng(seed ^ 0x5bd1e995);
  }

  /** Milliseconds to wait before handling this request. */
  delay(): number {
    const { min, max } = this.latency;
    if (max === 0) return 0;
    if (min === max) return min;
    return min + Math.floor(this.latencyRandom() * (max - min + 1));
  }

  /** The fault for this request, if any. Call once per request that carries a token. */
  pick(method: string, path: string): FaultKind | undefined {
    if (this.rules.length === 0) return undefined;
    const u = this.faultRandom();
    let cumulative = 0;
    for (const r of this.rules) {
      if (r.method && r.method !== method) continue;
      if (r.pathPrefix && !(r.exact ? path === r.pathPrefix : path.startsWith(r.pathPrefix))) continue;
      if (r.kind === "drop-after-commit" && !WRITES.has(method)) continue;
      cumulative += r.probability;
      if (u < cumulative) return r.kind;
    }
    return undefined;
  }
}
