/**
 * A full plan of a large estate, made in chunks of top-level trees in one process: each chunk's manifests are
 * loaded and validated as a shard's are (its files, or their entries of its trees, and what those use), its live
 * state read and planned (walkPlan) while the next chunk loads, and the chunks' walks merged and finished once
 * (src/engine/plan/chunks.ts). Requests start once the first chunk is valid, and the process holds about one
 * chunk's manifests and live state at a time rather than all of them. The plan is the one a single walk of
 * everything makes, to the byte.
 *
 * A plan is made in chunks only when it pays (see CHUNKED_ABOVE) and when chunks can make the same plan: without
 * `--target` or `--changed-since` (which read a few objects), without `--debug` (see chunkingOf), and when no
 * pattern names what to plan (only the platform can say what a pattern matches) and every file can be read in part
 * (chunkLayout). A shard (`--shard K/N`) of a large estate is planned in chunks of its own top-level trees, as the
 * whole estate is: its plan is the one a single walk of the shard makes.
 *
 * Validation: the manifests are still all validated before anything is written, but reads may have started.
 * When any chunk is invalid, the walk under way finishes, nothing more is planned, and the manifests are loaded
 * whole to report every diagnostic exactly as a whole load does.
 */
import { setImmediate } from "node:timers/promises";
import type { ApiClient } from "../api/index.js";
import {
  type ChunkScope,
  finishPlan,
  mergeWalks,
  type PlanOptions,
  type Walked,
  walkPlan,
} from "../engine/plan/index.js";
import { distinctDiagnostics, sortDiagnostics } from "../manifest/diagnostics.js";
import {
  type Diagnostic,
  type FileOutline,
  type LoadResult,
  loadManifests,
  manifestOutlines,
} from "../manifest/index.js";
import { type ChunkLayout, chunkLayout, shardEntries, shardTargets, unitOfKey } from "../manifest/outline.js";
import { secretsOfState } from "../manifest/secret.js";
import type { RequestStats } from "../plan/model.js";
import { type PlanOutcome, type PlanRequest, rootOf, withLiveReads } from "./plan-request.js";
import { keepYoungGenerationSmall } from "./runtime.js";

/**
 * The internal override of the chunks' size, for tests: this many top-level trees in each chunk (`0`: never plan
 * in chunks). Documented in docs/benchmarks.md.
 */
export const CHUNK_UNITS_ENV = "FORGEFORM_CHUNK_UNITS";

/**
 * Characters of manifest entries above which a plan is made in chunks, by default: below, the whole load is small
 * and quick, and outlining the files first would only add to it.
 */
export const CHUNKED_ABOVE = 1_000_000;

/**
 * Characters of manifest entries in a chunk, by default. The first chunk weighs FIRST_CHUNK_SIZE, and each next
 * one twice its predecessor up to this. Measured at 16x (193 files, 7.9 MB, 2 CPUs): a chunk of 1 MB loads in
 * about 1 s, half of it collecting garbage, while its reads take about 8 s, so a chunk loads while its
 * predecessor's reads are in flight. Chunks of 0.5 MB rather than 1 MB: the plan's peak memory 147-151 -> 142 MB
 * (two chunks are walked at once, at the turn from one to the next) for the same time.
 */
export const CHUNK_SIZE = 500_000;
export const FIRST_CHUNK_SIZE = 60_000;

/** How to plan in chunks, when the request is planned so. */
export interface Chunking {
  layout: ChunkLayout;
  outlines: FileOutline[];
  /** For a shard: its top-level targets (shardTargets), which the chunks divide among them. */
  units?: Set<string>;
}

/** Whether (and how) the request is planned in chunks: undefined for a plan made in one walk. */
export function chunkingOf(request: PlanRequest, paths: string[], found: string[]): Chunking | undefined {
  if (request.changedSince !== undefined || (request.targets ?? []).length > 0) return undefined;
  // --debug prints every request as it is made: in chunks, a request of the first chunk would be printed before a
  // later chunk's manifests have said which values are secrets (a value of a later chunk's reference in a path of
  // the first would show). Planned in one walk, every value is known before the first request.
  if (request.connection.debug) return undefined;
  const setting = process.env[CHUNK_UNITS_ENV];
  const perChunk = setting === undefined || setting === "" ? undefined : Number(setting);
  if (perChunk !== undefined && !(Number.isInteger(perChunk) && perChunk >= 0))
    throw new Error(
      `${CHUNK_UNITS_ENV} must be a whole number (0: never plan in chunks), not ${JSON.stringify(setting)}`,
    );
  if (perChunk === 0) return undefined;
  const outlines = manifestOutlines(paths, found, rootOf(request));
  // A shard's share, when the files say which it is (a pattern naming no group or project first: the platform does).
  const units = request.shard ? shardTargets(outlines, request.shard) : undefined;
  if (request.shard && !units) return undefined;
  if (perChunk === undefined) {
    // Outlining first costs little next to loading; it is skipped only where it cannot pay.
    let size = 0;
    for (const { outline } of outlines)
      for (const e of outline.entries) if (!units || units.has(unitOfKey(e.key))) size += e.size;
    if (size <= CHUNKED_ABOVE) return undefined;
  }
  const layout = chunkLayout(
    outlines,
    { chunkSize: CHUNK_SIZE, firstSize: FIRST_CHUNK_SIZE, ...(perChunk ? { perChunk } : {}) },
    units,
  );
  return layout ? { layout, outlines, ...(units ? { units } : {}) } : undefined;
}

/** The plan's request statistics: the client's counters when the plan is finished. */
export function requestStatsOf(api: ApiClient): () => RequestStats {
  return () => {
    const m = api.metrics.snapshot();
    return { total: m.total, byEndpoint: m.byEndpoint, retries: m.retries };
  };
}

/** What every chunk's walk must know of the whole plan. */
function scopeOf(layout: ChunkLayout): ChunkScope {
  const rank = (keys: readonly string[]) => new Map(keys.map((k, i) => [k.toLowerCase(), i]));
  return {
    order: layout.order,
    rank: { groups: rank(layout.order.groups), projects: rank(layout.order.projects) },
    present: layout.present,
  };
}

const invalid = (loaded: LoadResult) =>
  !loaded.state || loaded.diagnostics.some((d) => d.severity === "error");

/**
 * Plans the request in chunks. Undefined when the chunks found a problem a whole load of the manifests does not:
 * the caller then plans in one walk (a safeguard: chunks read the same text).
 */
export async function planInChunks(
  request: PlanRequest,
  chunking: Chunking,
  paths: string[],
  found: string[],
  options: Omit<PlanOptions, "requestStats">,
): Promise<PlanOutcome | undefined> {
  const { layout, outlines, units } = chunking;
  // A chunk holds a few top-level trees: V8's young generation is kept small to the end (runtime.ts).
  keepYoungGenerationSmall();
  const byFile = new Map(outlines.map((f) => [f.file, f]));
  const load = (only: Set<string>, partial?: Map<string, Set<string>>) =>
    loadManifests(paths, {
      secrets: true,
      found,
      ...(request.env ? { env: request.env } : {}),
      only,
      ...(partial ? { partial } : {}),
      root: rootOf(request),
      outlines: byFile,
    });
  // What each chunk reads, worked out when it is loaded; the files no chunk reads (templates no entry uses, a
  // manifest with nothing to plan) are validated last.
  const read = new Set<string>();
  const loadChunk = (k: number) => {
    // The files no chunk owns a part of are read after the last one (loadRest), not by each.
    const s = shardEntries(outlines, layout.chunks[k]!, false);
    for (const file of s.files) read.add(file);
    return load(s.files, s.partial);
  };
  const results: Pick<LoadResult, "diagnostics" | "templates">[] = [];
  const keep = (loaded: LoadResult) => {
    results.push({
      diagnostics: loaded.diagnostics,
      ...(loaded.templates ? { templates: loaded.templates } : {}),
    });
    return loaded;
  };
  // A shard's problems are reported by its one walk, which loads its share as a whole.
  const wholly = async () => (units ? undefined : reportWhole(request, paths, found));
  let first: LoadResult | undefined = keep(await loadChunk(0));
  if (invalid(first)) return wholly();
  const { files, digests } = first.state!;

  const scope = scopeOf(layout);
  return withLiveReads(request, [], async ({ api, ctx, registry }) => {
    const walks: Walked[] = [];
    const chunkOptions = (k: number): PlanOptions => ({
      ...options,
      shardUnits: layout.chunks[k]!,
      chunk: scope,
      requestStats: () => ({ total: 0, byEndpoint: {}, retries: 0 }),
    });
    // After the last chunk, the files no chunk read that the plan reads: every file of the estate's, those (or
    // their entries) of the shard's share for a shard.
    const loadRest = () => {
      const share = units ? shardEntries(outlines, units) : undefined;
      const all = share ? [...share.files] : outlines.map((f) => f.file);
      const rest = new Set(all.filter((f) => !read.has(f)));
      return rest.size > 0 ? load(rest, share?.partial) : undefined;
    };
    const start = (k: number, chunk: LoadResult) => {
      // Values of each chunk's references are masked in everything the client prints from then on.
      const secrets = secretsOfState(chunk.state!);
      api.conceal(secrets.values.list());
      const walking = walkPlan(chunk.state!, ctx, registry, { ...chunkOptions(k), secrets });
      // Its failure is met when it is awaited.
      walking.catch(() => {});
      return walking;
    };
    let walking = start(0, first!);
    // Held by its walk only, as every chunk is.
    first = undefined;
    for (let k = 0; ; k++) {
      // The walk's first requests go out before the next chunk (after the last, the files no chunk reads) is
      // loaded, while they are in flight.
      await setImmediate();
      const following = k + 1 < layout.chunks.length ? await loadChunk(k + 1) : await loadRest();
      const next = following && keep(following);
      if (next && invalid(next)) {
        await walking;
        await api.close();
        return wholly();
      }
      // The next chunk's walk starts at once: its reads go out while this chunk's last ones finish, so the
      // requests in flight do not dwindle at the end of each chunk. The one after it is loaded once this one is
      // walked, so no more than two chunks are walked at a time. (The files no chunk reads are validated, not walked.)
      const nextWalking = next && k + 1 < layout.chunks.length ? start(k + 1, next) : undefined;
      walks.push(await walking);
      if (!nextWalking) break;
      walking = nextWalking;
    }
    const diagnostics = chunkDiagnostics(results, files, !units);
    const merged = mergeWalks(walks);
    // A shard's plan names its share: all its chunks' top-level trees.
    if (units) merged.units = units;
    const result = finishPlan(
      merged,
      { files, ...(digests ? { digests } : {}) },
      { ...options, requestStats: requestStatsOf(api) },
    );
    return { diagnostics, result, ctx, api, chunks: walks.length };
  });
}

/**
 * The chunks' diagnostics as a whole load gives them: each once (a file's head is read by several chunks), a
 * template no chunk used said to be unused (`whole`: the chunks hold every entry; not a shard's, whose share does
 * not say what another shard's uses), in the order of the files.
 */
function chunkDiagnostics(
  results: Pick<LoadResult, "diagnostics" | "templates">[],
  files: string[],
  whole: boolean,
): Diagnostic[] {
  const used = new Set(results.flatMap((r) => r.templates?.used ?? []));
  const unused = !whole
    ? []
    : results.flatMap((r) =>
        (r.templates?.unused ?? []).filter((t) => !used.has(t.name)).map((t) => t.warning),
      );
  return sortDiagnostics(distinctDiagnostics([...results.flatMap((r) => r.diagnostics), ...unused]), files);
}

/** After a chunk found the manifests invalid: every diagnostic, as a whole load reports them. */
async function reportWhole(
  request: PlanRequest,
  paths: string[],
  found: string[],
): Promise<PlanOutcome | undefined> {
  const whole = await loadManifests(paths, {
    secrets: true,
    found,
    root: rootOf(request),
    ...(request.env ? { env: request.env } : {}),
  });
  if (invalid(whole)) return { diagnostics: whole.diagnostics, files: whole.files };
  return undefined;
}
