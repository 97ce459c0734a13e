/**
 * How a forgeform process sets up V8 for its work: set once by the process's entry (bin/forgeform.js, the Action's
 * src/action/index.ts) before anything is read, never by a library function (tests and programs that import
 * forgeform keep their own settings). The measurements behind each are in docs/benchmarks.md ("Memory").
 */
import { constants, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";

/** Young-generation collections a small run goes through before its young generation may grow after all. */
export const SMALL_RUN_SCAVENGES = 1000;

/** The V8 flags every forgeform process runs with. */
export const PROCESS_FLAGS = [
  // The heap may grow by 30% over what a full collection leaves, not by the up to 300% V8 allows a process that
  // allocates fast: reading 100,000 objects allocates fast, and keeps its peak memory near what it holds this way
  // for a few percent more CPU time.
  "--heap-growing-percent=30",
  // undici's HTTP parser (llhttp) is WebAssembly. After a few answers V8 compiles it again with its optimising
  // compiler, which takes about 36 MB outside the JS heap for a moment, a third of a pull request's plan; the
  // baseline code it starts with parses forgeform's answers as fast (the 16x plan's CPU time: 20.4 s without,
  // 21.6 s with). Both flags are needed: either alone leaves the optimising compile on.
  "--no-wasm-dynamic-tiering",
  "--no-wasm-tier-up",
  // V8's optimising compiler inlines callees into a function up to 920 bytes of their bytecode by default. Most of a
  // plan's hot functions are compiled several times (again after each deoptimisation, when they meet objects of
  // another shape); with less inlined, each compile is smaller.
  "--max-inlined-bytecode-size-cumulative=300",
] as const;

/**
 * Whether the command line is a pull request's plan (`--changed-since`): it reads the few files and live objects
 * a change touches, so its young generation is kept at its first size (see tuneProcess).
 */
export function isSmallRun(argv: readonly string[]): boolean {
  return argv.some((a) => a === "--changed-since" || a.startsWith("--changed-since="));
}

/** The commands that plan (and may plan in chunks, src/cli/chunks.ts). */
const PLANNING = new Set(["plan", "drift", "apply"]);

/**
 * Whether the process starts with its young generation kept at its first size: a pull request's plan, and any
 * plan, drift or apply, which may turn out to be made in chunks (keepYoungGenerationSmall) once its manifests are
 * outlined. The command is the first word of the command line that is not an option.
 */
export function startsSmall(argv: readonly string[]): boolean {
  if (isSmallRun(argv)) return true;
  const command = argv.slice(2).find((a) => !a.startsWith("-"));
  return command !== undefined && PLANNING.has(command);
}

/**
 * What tuneProcess set, kept on the process's global object: bin/forgeform.js loads this module on its own to set
 * V8 up before the bundled command line is read, and the bundle holds a copy of it, so module variables would not
 * be shared between the two.
 */
interface Tuning {
  /** The young generation is kept at its first size for now. */
  small: boolean;
  /** A plan in chunks asked for it to stay so to the end. */
  keepSmall: boolean;
}
const TUNING = Symbol.for("forgeform.runtime.tuning");
const tuning = () => (globalThis as { [TUNING]?: Tuning })[TUNING];

/**
 * Sets PROCESS_FLAGS. For a run that starts small (startsSmall), also keeps V8's young generation from growing:
 * Node lets it grow to two semi-spaces of 16 MB, which is 30 MB of a pull request's plan of about 100 MB (the
 * one-cron change at 16x: 126 MB, 95 MB with it kept small, for the same CPU time). A run that allocates much would
 * collect it far more often (the 16x validate: 35% more CPU time), so once such a run has collected it
 * SMALL_RUN_SCAVENGES times (a pull request whose change reaches thousands of objects, a large plan made in one
 * walk), it grows as V8 would let it, unless a plan in chunks asked to keep it small (keepYoungGenerationSmall).
 */
export function tuneProcess(argv: readonly string[], scavenges = SMALL_RUN_SCAVENGES): void {
  for (const flag of PROCESS_FLAGS) setFlagsFromString(flag);
  const state: Tuning = { small: startsSmall(argv), keepSmall: false };
  (globalThis as { [TUNING]?: Tuning })[TUNING] = state;
  if (!state.small) return;
  setFlagsFromString("--semi-space-growth-factor=1");
  let seen = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if ((entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR)
        seen += 1;
    }
    if (state.keepSmall) observer.disconnect();
    else if (seen >= scavenges) {
      state.small = false;
      setFlagsFromString("--semi-space-growth-factor=2");
      observer.disconnect();
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}

/**
 * For a plan made in chunks (src/cli/chunks.ts), in a process its entry set up with tuneProcess: keeps V8's young
 * generation at its first size (two semi-spaces of 1 MB) to the end. A chunk holds a few top-level trees'
 * manifests and live state, so the 32 MB a grown young generation takes are a large part of the plan's peak (at 16x,
 * docs/benchmarks.md, "Memory"). Returns whether it does: not in a process tuneProcess did not set up (a test, a
 * program that imports forgeform keeps its own settings), nor in one that did not start small or has let the young
 * generation grow already (it would not shrink).
 */
export function keepYoungGenerationSmall(): boolean {
  const state = tuning();
  if (!state?.small) return false;
  state.keepSmall = true;
  return true;
}
