/**
 * One size's unchanged plan alone, by path and through patterns, against the benchmark's sandbox: for profiling and
 * for before/after CPU measurements of the plan without the whole benchmark.
 *
 *   npm run profile -- --size 16 [--runs paths,patterns,changed,pr] [--repeat 2] [--cpu-prof-dir DIR]
 *                      [--plan-args ARGS] [--compare-with CHECKOUT]
 *
 * The `pr` run makes the benchmark's two pull-request plans (`--changed-since HEAD`: one schedule's cron, and a
 * template used by 100 projects) as the benchmark makes them, each time in a new git repository; with
 * --compare-with, by this checkout's CLI only.
 *
 * With --compare-with, each run is made by this checkout's CLI and then by CHECKOUT's (another checkout of
 * forgeform, built: `git worktree add ../base main && cd ../base && npm ci && npm run build`), alternately, so
 * that a change is measured against its base on the same machine at the same time. Only the CLI alternates: the
 * sandbox is this checkout's for both (a change to the sandbox is measured by running each checkout's profile).
 *
 * With FORGEFORM_BENCH_KEEP=DIR each run's plan (JSON) is kept in DIR as the benchmark keeps it, to compare before
 * and after a change byte for byte. With --cpu-prof-dir, each forgeform process writes a V8 CPU profile there
 * (`node --cpu-prof`): profiled runs' CPU times include the profiler's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Command } from "commander";
import { createSandboxApp, startSandbox } from "../src/sandbox/server.js";
import {
  benchKinds,
  declarableKinds,
  probedFixture,
  seedOverHttp,
  writeForgeformManifests,
} from "./artifacts.js";
import { Counter } from "./bench.js";
import { measureForgeform, repoRoot } from "./measure.js";
import { runChangedSince } from "./scale.js";
import { BASE_SHAPE, buildState, scaleShape } from "./state.js";

const o = new Command("profile")
  .option("--size <n>", "size multiplier", Number, 16)
  .option("--latency <ms>", "sandbox latency", Number, 20)
  .option("--concurrency <n>", "forgeform's --concurrency", Number, 8)
  .option(
    "--runs <list>",
    "which plans, in order: paths, patterns (the seeded state), changed (10% of it changed, by path), pr (the pull-request plans)",
    "paths,patterns",
  )
  .option("--repeat <n>", "how many times each run is made", Number, 1)
  .option("--cpu-prof-dir <dir>", "write each forgeform process's CPU profile there")
  .option("--node-args <args>", "more options for each forgeform process's node, separated by spaces", "")
  .option("--plan-args <args>", "more options for each plan, separated by spaces (e.g. --shard 2/4)", "")
  .option("--compare-with <checkout>", "alternate each run with this other checkout's CLI")
  .option("--manifests-to <dir>", "write the manifests (paths/, patterns/) there and plan nothing")
  .parse(process.argv)
  .opts<{
    size: number;
    latency: number;
    concurrency: number;
    runs: string;
    repeat: number;
    cpuProfDir?: string;
    nodeArgs: string;
    planArgs: string;
    compareWith?: string;
    manifestsTo?: string;
  }>();

const shape = scaleShape(BASE_SHAPE, o.size);
const seed = buildState(shape, "seed");
const hookKeys = new Set(createSandboxApp().app.fixtureHooks.keys());
const { areas, fixture, seeded } = await probedFixture(seed, hookKeys);
const counter = new Counter();
const sandbox = await startSandbox({ fixture, latencyMs: o.latency, onRequest: counter.record });
counter.pathOf = (id) => {
  const p = sandbox.store.project(id);
  return p && sandbox.store.projectFullPath(p);
};
const work = o.manifestsTo ? resolve(o.manifestsTo) : mkdtempSync(join(tmpdir(), "forgeform-profile-"));
try {
  await seedOverHttp(
    sandbox.url,
    sandbox.adminToken,
    seed,
    areas.filter((a) => !seeded.includes(a)),
    64,
  );
  const kinds = benchKinds(areas, declarableKinds(repoRoot()));
  const dirs = {
    paths: writeForgeformManifests(seed, kinds, join(work, "paths")),
    patterns: writeForgeformManifests(seed, kinds, join(work, "patterns"), {
      by: "patterns",
      policy: seed.projects[0]!,
    }),
    changed: writeForgeformManifests(buildState(shape, "changed"), kinds, join(work, "changed")),
  };
  const env: Record<string, string> = { FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: sandbox.adminToken };
  const nodeArgs = [
    ...(o.cpuProfDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(o.cpuProfDir)}`] : []),
    ...o.nodeArgs.split(" ").filter(Boolean),
  ];
  const runs = o.runs.split(",").map((r) => r.trim()) as (keyof typeof dirs | "pr")[];
  const roots: [string, string][] = [["", repoRoot()]];
  if (o.compareWith) roots.push([` (${o.compareWith})`, resolve(o.compareWith)]);
  for (let i = 0; i < (o.manifestsTo ? 0 : o.repeat); i++)
    for (const run of runs)
      for (const [label, root] of roots) {
        if (run === "pr") {
          if (root !== repoRoot()) continue;
          const rows = await runChangedSince({
            factor: o.size,
            seed,
            kinds,
            dir: mkdtempSync(join(work, "pr-")),
            env,
            conc: ["--concurrency", String(o.concurrency)],
            counter,
            log: () => {},
            nodeArgs,
          });
          for (const r of rows)
            process.stdout.write(
              `${o.size}x pr, ${r.run}: wall ${(r.wallMs / 1000).toFixed(1)} s, first request ${((r.firstRequestMs ?? 0) / 1000).toFixed(1)} s, cpu ${(r.cpuMs / 1000).toFixed(1)} s, ${Math.round(r.maxRssMb)} MB, ${r.requests} requests, exact ${r.exact}, load ${r.load.toFixed(1)}\n`,
            );
          continue;
        }
        counter.reset();
        const cpu = process.cpuUsage();
        const m = await measureForgeform(
          [
            "plan",
            "--format",
            "json",
            "--concurrency",
            String(o.concurrency),
            ...o.planArgs.split(" ").filter(Boolean),
            dirs[run],
          ],
          env,
          nodeArgs,
          root,
        );
        const sandboxCpu = process.cpuUsage(cpu);
        if (m.code !== 0) throw new Error(`plan (${run}) exit ${m.code}: ${m.stderr.slice(-2000)}`);
        process.stdout.write(
          `${o.size}x ${run}${label}: wall ${(m.wallMs / 1000).toFixed(1)} s, cpu ${(m.cpuMs / 1000).toFixed(1)} s, sandbox cpu ${((sandboxCpu.user + sandboxCpu.system) / 1e6).toFixed(1)} s, ${Math.round(m.maxRssMb)} MB, ${counter.total} requests, load ${loadavg()[0]?.toFixed(1)}\n`,
        );
      }
} finally {
  await sandbox.stop();
  if (!o.manifestsTo) rmSync(work, { recursive: true, force: true });
}
