#!/usr/bin/env node
// npm run mutation [-- <folder>... [stryker options]]: mutation testing (StrykerJS), one folder of the scope at a
// time, each with its own reports and incremental file under reports/mutation/<folder>/ (git-ignored). Without a
// folder, all of them in turn. Stryker options pass through (`--concurrency 1`, `--force` to ignore the incremental
// results). `npm run mutation -- --partial FOLDER`: the scores of a run so far, or of one stopped before its end.
// `--quick-first`: the tests but the integration ones first, then what they left undetected with every test (the
// same scores in a fraction of the time for src/cli and src/kinds; no incremental file), in batches of places
// (`--batch N`, 100 by default) that `--reuse-first-stage` resumes after a stop.
// See docs/testing.md, "Mutation testing".
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The scope (stryker.config.json's `mutate` holds the same files), by folder. */
export const FOLDERS = {
  engine: ["src/engine/**/*.ts"],
  plan: ["src/plan/**/*.ts"],
  report: ["src/report/**/*.ts"],
  api: ["src/api/retry.ts", "src/api/pagination.ts", "src/api/pacer.ts"],
  manifest: ["src/manifest/interpolate.ts", "src/manifest/secret.ts"],
  client: ["src/api/client.ts"],
  action: ["src/action/**/*.ts"],
  export: ["src/export/**/*.ts"],
  cli: ["src/cli/**/*.ts"],
  kinds: ["src/kinds/**/*.ts"],
};

/**
 * The report of a run from the mutants it tested so far, one event file each (Stryker's event-recorder reporter,
 * which writes each result as it comes): what an interrupted run measured, in the shape `scores` reads.
 */
export function reportFromEvents(dir) {
  const files = {};
  for (const name of readdirSync(dir).filter((n) => n.endsWith("-onMutantTested.json"))) {
    const mutant = JSON.parse(readFileSync(join(dir, name), "utf8"));
    const file = relative(process.cwd(), mutant.fileName);
    files[file] ??= { mutants: [] };
    files[file].mutants.push(mutant);
  }
  return { files };
}

/** A mutant's file, place and change: the same mutant in two runs of the same code. */
export const mutantKey = (file, m) =>
  `${file}:${m.location.start.line}:${m.location.start.column}-` +
  `${m.location.end.line}:${m.location.end.column} ${m.mutatorName} ${m.replacement ?? ""}`;

/**
 * The `mutate` patterns that make Stryker test again the mutants a quick run left undetected (survived or not
 * covered): each one's exact range in its file (`src/cli/apply.ts:24:5-24:40`). A range also holds the mutants
 * nested in it; those are tested again too, which changes no result.
 */
export function undetectedRanges(report) {
  const ranges = new Set();
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants)
      if (m.status === "Survived" || m.status === "NoCoverage") ranges.add(rangeOf(file, m));
  }
  return [...ranges].sort();
}

/** A mutant's place as a `mutate` range: reports count columns from 1, a range from 0 (its end included). */
const rangeOf = (file, m) =>
  `${file}:${m.location.start.line}:${m.location.start.column - 1}-${m.location.end.line}:${m.location.end.column}`;

/**
 * The places of `ranges` the second stage has still to test, after the batches in `tested`: a place is done when
 * every mutant the quick run left undetected there has a result in them (a batch stopped half-way leaves the rest
 * of a place's mutants to test).
 */
export function placesLeft(ranges, quick, tested) {
  const done = byKey(tested);
  const open = new Set();
  for (const [file, { mutants }] of Object.entries(quick.files)) {
    for (const m of mutants) {
      if ((m.status === "Survived" || m.status === "NoCoverage") && !done.has(mutantKey(file, m)))
        open.add(rangeOf(file, m));
    }
  }
  return ranges.filter((r) => open.has(r));
}

/** One report from several runs' event folders (the second stage's batches); a mutant tested twice, the last. */
export function reportFromRuns(dirs) {
  const files = {};
  for (const dir of dirs) {
    for (const [file, { mutants }] of Object.entries(reportFromEvents(dir).files)) {
      files[file] ??= { mutants: [] };
      files[file].mutants.push(...mutants);
    }
  }
  return { files };
}

/** `items` in runs of `size`, in order. */
export function batches(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A report's mutants by `mutantKey`: to find in one run the mutants of another. */
function byKey(report) {
  const found = new Map();
  for (const [file, { mutants }] of Object.entries(report.files))
    for (const m of mutants) found.set(mutantKey(file, m), m);
  return found;
}

/**
 * `count` of `ranges` drawn at random with a fixed seed (the same draw for the same places), in their sorted order:
 * the places a sampled second stage tests again when testing them all would take hours.
 */
export function sampleRanges(ranges, count, seed = 1) {
  if (count >= ranges.length) return [...ranges];
  return shuffled(ranges, seed).slice(0, count).sort();
}

/**
 * `items` in an order drawn at random with a fixed seed: the order a second stage tests its places in, so that the
 * places tested when it is stopped are a random sample of them all (estimateFromSample).
 */
export function shuffled(items, seed = 1) {
  // mulberry32: a small seeded generator; Math.random cannot be seeded.
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pool = [...items];
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool;
}

/**
 * What a second stage run on a sample of the places says of all of them: of the mutants the quick run left
 * undetected, `tested` were tested again and `detected` of those killed or timed out; the folder's score is then
 * estimated as if the same share of the untested ones were detected, with a 95% Wilson interval on that share
 * (mutants of one place tend to share a fate, so the interval is if anything narrower than it should be).
 * `lower` is the score that counts every untested one as undetected: what is measured, not estimated.
 */
export function estimateFromSample(quick, full) {
  const again = byKey(full);
  let total = 0;
  let detected = 0;
  let undetected = 0;
  let tested = 0;
  let detectedAgain = 0;
  for (const [file, { mutants }] of Object.entries(quick.files)) {
    for (const m of mutants) {
      if (m.status === "Killed" || m.status === "Timeout") {
        total += 1;
        detected += 1;
      } else if (m.status === "Survived" || m.status === "NoCoverage") {
        total += 1;
        undetected += 1;
        const r = again.get(mutantKey(file, m));
        if (!r) continue;
        tested += 1;
        if (r.status === "Killed" || r.status === "Timeout") detectedAgain += 1;
      }
    }
  }
  const pct = (n) => (total ? (100 * n) / total : 100);
  const lower = pct(detected + detectedAgain);
  // Nothing tested again: nothing to estimate from, and the estimate is the measure.
  const n = tested;
  const z = 1.96;
  const p = n ? detectedAgain / n : 0;
  const centre = n ? (p + (z * z) / (2 * n)) / (1 + (z * z) / n) : 0;
  const half = n ? (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + (z * z) / n) : 0;
  const untested = n ? undetected - tested : 0;
  const at = (share) => pct(detected + detectedAgain + share * untested);
  return {
    total,
    undetected,
    tested,
    detected: detectedAgain,
    lower,
    score: at(p),
    low: at(Math.max(0, centre - half)),
    high: at(Math.min(1, centre + half)),
  };
}

/**
 * One report from a quick run (the tests but the integration ones) and a run of what it left undetected with every
 * test: a mutant the second run tested has its result; any other, the quick run's. The quick run's kills stand (a
 * test that kills a mutant kills it in any set that holds it), so this is what one run with every test gives.
 */
export function mergeStages(quick, full) {
  const again = byKey(full);
  const files = {};
  for (const [file, { mutants }] of Object.entries(quick.files)) {
    files[file] = { mutants: mutants.map((m) => again.get(mutantKey(file, m)) ?? m) };
  }
  return { files };
}

/** Mutation score as Stryker computes it: detected (killed or timed out) over all valid mutants, and over covered ones. */
export function scores(report) {
  const files = {};
  const all = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, other: 0 };
  for (const [file, { mutants }] of Object.entries(report.files)) {
    const c = { killed: 0, timeout: 0, survived: 0, noCoverage: 0, other: 0 };
    for (const m of mutants) {
      const key = { Killed: "killed", Timeout: "timeout", Survived: "survived", NoCoverage: "noCoverage" }[
        m.status
      ];
      c[key ?? "other"] += 1;
      all[key ?? "other"] += 1;
    }
    files[file] = c;
  }
  const score = (c) => {
    const detected = c.killed + c.timeout;
    const valid = detected + c.survived + c.noCoverage;
    return {
      ...c,
      total: valid,
      score: valid ? (100 * detected) / valid : 100,
      covered: detected + c.survived ? (100 * detected) / (detected + c.survived) : 100,
    };
  };
  return {
    all: score(all),
    files: Object.fromEntries(Object.entries(files).map(([f, c]) => [f, score(c)])),
  };
}

/** One line per file and one for all: mutants, killed, timed out, survived, not covered, score. */
function scoreLines(report) {
  const s = scores(report);
  const line = (name, c) =>
    `${name}: ${c.total} mutants, ${c.killed} killed, ${c.timeout} timed out, ${c.survived} survived, ` +
    `${c.noCoverage} not covered, ${c.score.toFixed(1)}% (covered ${c.covered.toFixed(1)}%)`;
  return [...Object.entries(s.files).map(([f, c]) => line(f, c)), line("all", s.all)];
}

/**
 * Runs Stryker with `args`, its results as they come moved to `events` (event-recorder: a run stopped before its end
 * keeps what it measured); exits with its status when it fails, with `stopped` saying where those results are.
 */
function stryker(args, folder, events, stopped) {
  rmSync(events, { recursive: true, force: true });
  // Ctrl-C stops Stryker (it gets the signal too); this process then keeps what it measured before exiting.
  const keep = () => {};
  process.on("SIGINT", keep);
  const run = spawnSync("npx", ["stryker", "run", ...args], { stdio: "inherit" });
  if (existsSync("reports/mutation/events")) renameSync("reports/mutation/events", events);
  process.off("SIGINT", keep);
  if (run.status !== 0) {
    console.error(`mutation: ${folder}: stryker exited ${run.status ?? run.signal}; ${stopped}`);
    process.exit(run.status ?? 1);
  }
}

/** A folder's line of the summary: its scores, the minutes since `started`, and where to read more. */
function summaryLine(folder, report, started, more) {
  const s = scores(report).all;
  return (
    `${folder.padEnd(9)} ${s.score.toFixed(1).padStart(5)}% (covered ${s.covered.toFixed(1)}%): ` +
    `${s.killed} killed, ${s.timeout} timed out, ${s.survived} survived, ${s.noCoverage} not covered, ` +
    `${((Date.now() - started) / 60_000).toFixed(1)} min${more}`
  );
}

/**
 * `--quick-first`: the same scores as a run with every test, in a fraction of the time where integration tests
 * cover most of the code (src/cli, src/kinds: each mutant they cover costs all of them when it survives). First
 * every mutant with the tests but the integration ones (vitest.mutation-quick.config.ts); then only those it left
 * undetected, with every test, `batch` places per Stryker run, each run's results kept in `again/NNN` as it ends
 * (a stopped second stage loses at most the rest of one batch); the results merged (mergeStages). With `reuse`,
 * the first stage already in `quick-events` and the batches already in `again` are kept: the second stage goes on
 * where it stopped.
 */
function twoStages(folder, passed, { sample, reuse, batch }) {
  const out = `reports/mutation/${folder}`;
  mkdirSync(out, { recursive: true });
  const started = Date.now();
  const config = JSON.parse(readFileSync("stryker.config.json", "utf8"));
  config.vitest = { ...config.vitest, configFile: "vitest.mutation-quick.config.ts" };
  writeFileSync(`${out}/stryker.quick.json`, JSON.stringify(config, null, 2));
  const mutate = ["--mutate", FOLDERS[folder].join(",")];
  const stage = (args, events) => {
    stryker(args, folder, events, `its results so far: ${events}`);
    return reportFromEvents(events);
  };
  const reused = reuse && existsSync(`${out}/quick-events`);
  // A new first stage makes the batches of the last one's second stage stale.
  if (!reused) rmSync(`${out}/again`, { recursive: true, force: true });
  const quick = reused
    ? reportFromEvents(`${out}/quick-events`)
    : stage([`${out}/stryker.quick.json`, ...mutate, ...passed], `${out}/quick-events`);
  const undetected = undetectedRanges(quick);
  const ranges = sample === undefined ? undetected : sampleRanges(undetected, sample);
  const left = placesLeft(ranges, quick, reportFromRuns(againRuns(out)));
  if (left.length < ranges.length)
    console.log(
      `mutation: ${folder}: ${ranges.length - left.length} of ${ranges.length} places already tested again`,
    );
  // In a random order: a second stage stopped before its end has tested a random sample of the places.
  for (const places of batches(shuffled(left), batch)) {
    const events = `${out}/again/${String(againRuns(out).length).padStart(3, "0")}`;
    mkdirSync(`${out}/again`, { recursive: true });
    stryker(
      ["--mutate", places.join(","), ...passed],
      folder,
      events,
      `its results so far: ${events}; \`npm run mutation -- ${folder} --quick-first --reuse-first-stage\` goes on from there`,
    );
  }
  const again = reportFromRuns(againRuns(out));
  const merged = mergeStages(quick, again);
  writeFileSync(`${out}/merged.json`, JSON.stringify(merged));
  let line = summaryLine(
    folder,
    merged,
    started,
    ` (${ranges.length} of ${undetected.length} places tested again with every test); ${out}/merged.json`,
  );
  if (placesLeft(undetected, quick, again).length > 0)
    line += `\n${" ".repeat(10)}${estimateLine(estimateFromSample(quick, again))}`;
  return line;
}

/** The event folders of a second stage's batches, in the order they ran. */
function againRuns(out) {
  return existsSync(`${out}/again`)
    ? readdirSync(`${out}/again`)
        .sort()
        .map((n) => `${out}/again/${n}`)
    : [];
}

/** The estimate of a sampled second stage, in words. */
export function estimateLine(e) {
  return (
    `sampled: ${e.detected} of ${e.tested} undetected mutants tested again were killed (${e.undetected} ` +
    `undetected in all); estimated ${e.score.toFixed(1)}% (95% interval ${e.low.toFixed(1)}-${e.high.toFixed(1)}%), ` +
    `at least ${e.lower.toFixed(1)}%`
  );
}

function main() {
  // Folders first, then Stryker's options.
  const args = process.argv.slice(2);
  if (args[0] === "--partial") {
    // npm run mutation -- --partial cli: the scores of a run so far (running, or stopped before its end).
    // A --quick-first run past its first stage: the merged scores of both stages so far.
    const out = `reports/mutation/${args[1] ?? ""}`;
    if (args[1] && existsSync(`${out}/quick-events`) && existsSync(`${out}/again`)) {
      const runs = againRuns(out);
      if (existsSync("reports/mutation/events")) runs.push("reports/mutation/events");
      const quick = reportFromEvents(`${out}/quick-events`);
      const undetected = undetectedRanges(quick);
      const left = placesLeft(undetected, quick, reportFromRuns(runs));
      const again = reportFromRuns(runs);
      console.log(scoreLines(mergeStages(quick, again)).join("\n"));
      console.log(
        `${undetected.length - left.length} of ${undetected.length} places tested again with every test`,
      );
      // The batches test the places in a random order: those tested so far are a sample of them all.
      if (left.length > 0) console.log(estimateLine(estimateFromSample(quick, again)));
      return;
    }
    // A finished or stopped run's results are in its folder; a running one's are still where Stryker writes them.
    const dir = [`reports/mutation/${args[1] ?? ""}/events`, "reports/mutation/events"].find(
      (d) => args[1] && existsSync(d),
    );
    if (!dir) {
      console.error(
        "mutation: --partial FOLDER reads the results a run of that folder writes as it goes; none found",
      );
      process.exit(2);
    }
    console.log(scoreLines(reportFromEvents(dir)).join("\n"));
    return;
  }
  const quickFirst = args.includes("--quick-first");
  const reuse = args.includes("--reuse-first-stage");
  // Options of --quick-first that take a count: --sample N places, --batch N places per Stryker run.
  const taken = new Set();
  const count = (name, fallback) => {
    const at = args.indexOf(name);
    if (at === -1) return fallback;
    taken.add(at).add(at + 1);
    const n = Number(args[at + 1]);
    if (!(Number.isSafeInteger(n) && n > 0)) {
      console.error(`mutation: ${name} takes a number of places, at least 1 (got "${args[at + 1] ?? ""}")`);
      process.exit(2);
    }
    return n;
  };
  const sample = count("--sample", undefined);
  const batch = count("--batch", 100);
  if (taken.size > 0 || reuse) {
    if (!quickFirst) {
      console.error("mutation: --sample, --batch and --reuse-first-stage go with --quick-first");
      process.exit(2);
    }
  }
  const rest = args.filter((a, i) => a !== "--quick-first" && a !== "--reuse-first-stage" && !taken.has(i));
  const first = rest.findIndex((a) => a.startsWith("-"));
  const named = first === -1 ? rest : rest.slice(0, first);
  const passed = first === -1 ? [] : rest.slice(first);
  const unknown = named.find((a) => !Object.hasOwn(FOLDERS, a));
  if (unknown) {
    console.error(`mutation: unknown folder "${unknown}" (folders: ${Object.keys(FOLDERS).join(", ")})`);
    process.exit(2);
  }
  const folders = named.length > 0 ? named : Object.keys(FOLDERS);
  if (quickFirst) {
    console.log(
      `\nMutation score per folder:\n${folders.map((f) => twoStages(f, passed, { sample, reuse, batch })).join("\n")}`,
    );
    return;
  }
  const summary = [];
  for (const folder of folders) {
    const out = `reports/mutation/${folder}`;
    mkdirSync(out, { recursive: true });
    const started = Date.now();
    stryker(
      [
        "--mutate",
        FOLDERS[folder].join(","),
        "--incremental",
        "--incrementalFile",
        `${out}/incremental.json`,
        ...passed,
      ],
      folder,
      `${out}/events`,
      `what it measured: npm run mutation -- --partial ${folder}`,
    );
    for (const name of ["index.html", "mutation.json"]) {
      if (existsSync(`reports/mutation/${name}`)) renameSync(`reports/mutation/${name}`, `${out}/${name}`);
    }
    const report = JSON.parse(readFileSync(`${out}/mutation.json`, "utf8"));
    summary.push(summaryLine(folder, report, started, `; report ${out}/index.html`));
  }
  console.log(`\nMutation score per folder:\n${summary.join("\n")}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
