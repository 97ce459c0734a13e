/**
 * `npm run bench`: runs the benchmark, prints the results and writes them to bench/results/latest.md (and .json).
 *
 *   npm run bench -- --sizes 1,4,16 --latency 20 --concurrency 8 [--skip-peer] [--peer-max-size 4]
 *                    [--groups 25 --projects 250] [--rate-limit 600 | --skip-rate-limit] [--out bench/results/latest.md]
 *                    [--full-max-size 16] [--skip-scale] [--skip-faults]
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Command, InvalidArgumentError } from "commander";
import { runBenchmark } from "./bench.js";
import { repoRoot } from "./measure.js";
import { renderMarkdown } from "./report.js";
import { BASE_SHAPE } from "./state.js";

function positive(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1)
      throw new InvalidArgumentError(`${flag} takes a whole number of 1 or more, got "${value}"`);
    return n;
  };
}

function nonNegative(flag: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(`${flag} takes a number of 0 or more (ms), got "${value}"`);
    return n;
  };
}

function sizes(value: string): number[] {
  const list = value.split(",").map((x) => Number(x.trim()));
  if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1))
    throw new InvalidArgumentError(
      `--sizes takes whole multipliers separated by commas, e.g. 1,4,16; got "${value}"`,
    );
  return list;
}

const root = repoRoot();
const program = new Command("bench")
  .description("Measures forgeform (and gitlabracadabra) against the sandbox with a fixed latency")
  .option("--sizes <list>", "multipliers of the 1x state", sizes, [1, 4, 16, 48])
  .option("--groups <n>", "groups at 1x", positive("--groups"), BASE_SHAPE.groups)
  .option("--projects <n>", "projects at 1x", positive("--projects"), BASE_SHAPE.projects)
  .option("--latency <ms>", "latency the sandbox adds to every request", nonNegative("--latency"), 20)
  .option("--concurrency <n>", "forgeform's --concurrency", positive("--concurrency"), 8)
  .option("--skip-peer", "do not run gitlabracadabra")
  .option(
    "--peer-max-size <n>",
    "largest size multiplier gitlabracadabra runs at",
    positive("--peer-max-size"),
  )
  .option(
    "--rate-limit <n>",
    "requests a minute the sandbox allows for the 1x plan under a rate limit",
    positive("--rate-limit"),
    600,
  )
  .option("--skip-rate-limit", "do not run the plan under a rate limit")
  .option(
    "--full-max-size <n>",
    "largest size multiplier that runs every scenario; larger ones run the unchanged plan, pull requests and shards only",
    positive("--full-max-size"),
    16,
  )
  .option("--skip-scale", "do not run the pull-request plans (--changed-since) and the shards")
  .option("--skip-faults", "do not run the apply under faults")
  .option("--out <file>", "results file (Markdown; JSON next to it)", join(root, "bench/results/latest.md"))
  .parse(process.argv);

const o = program.opts<{
  sizes: number[];
  groups: number;
  projects: number;
  latency: number;
  concurrency: number;
  skipPeer?: boolean;
  peerMaxSize?: number;
  rateLimit: number;
  skipRateLimit?: boolean;
  fullMaxSize: number;
  skipScale?: boolean;
  skipFaults?: boolean;
  out: string;
}>();

if (!existsSync(join(root, "lib/cli/index.js"))) {
  process.stderr.write(
    "bench: lib/cli/index.js is missing; run `npm run build` first (npm run bench does)\n",
  );
  process.exit(1);
}
const started = performance.now();
const result = await runBenchmark({
  base: { ...BASE_SHAPE, groups: o.groups, projects: o.projects },
  sizes: o.sizes,
  latencyMs: o.latency,
  concurrency: o.concurrency,
  peer: !o.skipPeer,
  peerMaxSize: o.peerMaxSize,
  outFile: resolve(o.out),
  fullMaxSize: o.fullMaxSize,
  scale: !o.skipScale,
  faults: !o.skipFaults,
  ...(o.skipRateLimit
    ? {}
    : { rateLimit: { factor: 1, requests: o.rateLimit, periodSeconds: 60, runs: ["adaptive", "max-rate"] } }),
  log: (line) =>
    process.stderr.write(`bench: ${line} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`),
});
process.stdout.write(renderMarkdown(result));
process.stderr.write(`bench: results written to ${resolve(o.out)}\n`);
