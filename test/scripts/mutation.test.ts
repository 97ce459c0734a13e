/**
 * scripts/mutation.mjs: the score of a mutation run, from Stryker's report or from the results it wrote one by one
 * (a run stopped before its end), as docs/testing.md's tables give it.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import * as mutation from "../../scripts/mutation.mjs";

const {
  batches,
  estimateFromSample,
  estimateLine,
  mergeStages,
  placesLeft,
  reportFromEvents,
  reportFromRuns,
  sampleRanges,
  scores,
  shuffled,
  undetectedRanges,
} = mutation;

describe("mutation scores", () => {
  it("scores killed and timed out over every valid mutant, and over the covered ones", () => {
    const report = {
      files: {
        "src/a.ts": {
          mutants: ["Killed", "Killed", "Timeout", "Survived", "NoCoverage", "CompileError", "Ignored"].map(
            (status) => ({ status }),
          ),
        },
        "src/b.ts": { mutants: [] },
      },
    };
    const s = scores(report);
    expect(s.all).toMatchObject({ killed: 2, timeout: 1, survived: 1, noCoverage: 1, other: 2, total: 5 });
    expect(s.all.score).toBe(60);
    expect(s.all.covered).toBe(75);
    // A file without mutants scores 100: nothing to detect.
    expect(s.files["src/b.ts"]).toMatchObject({ total: 0, score: 100, covered: 100 });
  });

  it("reads a stopped run's results, one file per mutant, by source file", () => {
    const dir = mkdtempSync(join(tmpdir(), "forgeform-events-"));
    mkdirSync(dir, { recursive: true });
    const write = (n: number, file: string, status: string, kind = "onMutantTested") =>
      writeFileSync(
        join(dir, `${String(n).padStart(4, "0")}-${kind}.json`),
        JSON.stringify({ fileName: join(process.cwd(), file), status }),
      );
    write(1, "src/cli/a.ts", "Killed");
    write(2, "src/cli/a.ts", "Survived");
    write(3, "src/cli/b.ts", "NoCoverage");
    write(4, "src/cli/b.ts", "Killed", "onAllMutantsTested");
    const report = reportFromEvents(dir);
    expect(Object.keys(report.files).sort()).toEqual(["src/cli/a.ts", "src/cli/b.ts"]);
    const s = scores(report);
    expect(s.files["src/cli/a.ts"]).toMatchObject({ killed: 1, survived: 1, score: 50 });
    expect(s.all).toMatchObject({ total: 3, killed: 1, survived: 1, noCoverage: 1 });
  });

  describe("--quick-first: a quick run, then what it left undetected with every test", () => {
    const at = (
      line: number,
      column: number,
      endColumn: number,
      status: string,
      mutatorName = "BooleanLiteral",
    ) => ({
      location: { start: { line, column }, end: { line, column: endColumn } },
      mutatorName,
      replacement: "true",
      status,
    });

    it("tests again exactly the places of the mutants that survived or were not covered, columns from 0", () => {
      const quick = {
        files: {
          "src/cli/a.ts": {
            mutants: [at(3, 5, 9, "Survived"), at(4, 1, 2, "Killed"), at(7, 10, 20, "NoCoverage")],
          },
          "src/cli/b.ts": {
            mutants: [at(1, 1, 5, "Timeout"), at(2, 3, 4, "Survived"), at(2, 3, 4, "Survived", "X")],
          },
        },
      };
      // Two mutants in one place: the place once.
      expect(undetectedRanges(quick)).toEqual([
        "src/cli/a.ts:3:4-3:9",
        "src/cli/a.ts:7:9-7:20",
        "src/cli/b.ts:2:2-2:4",
      ]);
      expect(undetectedRanges({ files: { "src/c.ts": { mutants: [at(1, 1, 2, "Killed")] } } })).toEqual([]);
    });

    it("merges: the second run's result where it tested the mutant, else the quick run's", () => {
      const quick = {
        files: {
          "src/cli/a.ts": {
            mutants: [
              at(3, 5, 9, "Survived"),
              at(4, 1, 2, "Killed"),
              at(7, 10, 20, "NoCoverage"),
              at(8, 1, 2, "Survived"),
            ],
          },
        },
      };
      const again = {
        files: {
          // Killed by an integration test; still not covered; a nested mutant the range held, tested again.
          "src/cli/a.ts": {
            mutants: [at(3, 5, 9, "Killed"), at(7, 10, 20, "NoCoverage"), at(4, 1, 2, "Killed")],
          },
        },
      };
      const merged = mergeStages(quick, again);
      expect(merged.files["src/cli/a.ts"].mutants.map((m: { status: string }) => m.status)).toEqual([
        "Killed",
        "Killed",
        "NoCoverage",
        // Not tested again (the second run was stopped, or the place not given): the quick run's result.
        "Survived",
      ]);
      // Same place, another change: another mutant.
      const other = mergeStages(quick, {
        files: { "src/cli/a.ts": { mutants: [at(8, 1, 2, "Killed", "X")] } },
      });
      expect(other.files["src/cli/a.ts"].mutants[3].status).toBe("Survived");
      expect(scores(merged).all).toMatchObject({ killed: 2, survived: 1, noCoverage: 1, total: 4 });
    });

    it("--sample: a fixed draw of the places, each once, in order; all of them when the sample is as large", () => {
      const ranges = Array.from({ length: 50 }, (_, i) => `src/k/${String(i).padStart(2, "0")}.ts:1:0-1:5`);
      const drawn = sampleRanges(ranges, 10);
      expect(drawn).toHaveLength(10);
      expect(new Set(drawn).size).toBe(10);
      expect(drawn.every((r: string) => ranges.includes(r))).toBe(true);
      expect(drawn).toEqual([...drawn].sort());
      // The same seed draws the same places; another seed, others; not simply the first ten.
      expect(sampleRanges(ranges, 10)).toEqual(drawn);
      expect(sampleRanges(ranges, 10, 2)).not.toEqual(drawn);
      expect(drawn).not.toEqual(ranges.slice(0, 10));
      expect(sampleRanges(ranges, 50)).toEqual(ranges);
      expect(sampleRanges(ranges, 51)).toEqual(ranges);
      expect(sampleRanges(ranges, 49)).toHaveLength(49);
    });

    it("--sample: the score measured, and estimated from the share of the sample killed, with its interval", () => {
      // 6 detected by the quick run, 4 left undetected; 2 of them tested again, 1 killed.
      const quick = {
        files: {
          "src/k/a.ts": {
            mutants: [
              ...[1, 2, 3, 4, 5].map((l) => at(l, 1, 2, "Killed")),
              at(6, 1, 2, "Timeout"),
              at(7, 1, 2, "Survived"),
              at(8, 1, 2, "NoCoverage"),
              at(9, 1, 2, "Survived"),
              at(10, 1, 2, "NoCoverage"),
              at(11, 1, 2, "CompileError"),
            ],
          },
        },
      };
      const again = {
        files: { "src/k/a.ts": { mutants: [at(7, 1, 2, "Killed"), at(8, 1, 2, "NoCoverage")] } },
      };
      const e = estimateFromSample(quick, again);
      expect(e).toMatchObject({ total: 10, undetected: 4, tested: 2, detected: 1 });
      // Measured: 7 of 10. Estimated: half of the 2 untested too, 8 of 10.
      expect(e.lower).toBe(70);
      expect(e.score).toBeCloseTo(80);
      // Wilson's 95% interval for 1 of 2: 9.45% to 90.55% of the 2 untested.
      expect(e.low).toBeCloseTo(70 + 0.0945 * 20, 1);
      expect(e.high).toBeCloseTo(70 + 0.9055 * 20, 1);
      expect(e.low).toBeGreaterThanOrEqual(e.lower);
      expect(estimateLine(e)).toBe(
        "sampled: 1 of 2 undetected mutants tested again were killed (4 undetected in all); " +
          "estimated 80.0% (95% interval 71.9-88.1%), at least 70.0%",
      );
      // Every one tested: the estimate is the measure.
      const all = estimateFromSample(quick, {
        files: {
          "src/k/a.ts": {
            mutants: [7, 8, 9, 10].map((l) => at(l, 1, 2, l === 10 ? "Survived" : "Killed")),
          },
        },
      });
      expect(all).toMatchObject({ tested: 4, detected: 3, lower: 90, low: 90, high: 90 });
      expect(all.score).toBeCloseTo(90);
      // None tested: nothing to estimate from.
      expect(estimateFromSample(quick, { files: {} })).toMatchObject({ tested: 0, lower: 60, score: 60 });
    });

    it("--sample takes a count of at least 1, and goes with --quick-first: refused before any run starts", () => {
      const run = (...args: string[]) => {
        const r = spawnSync(process.execPath, ["scripts/mutation.mjs", "kinds", ...args], {
          encoding: "utf8",
        });
        return [r.status, r.stderr.trim()];
      };
      expect(run("--quick-first", "--sample", "0")).toEqual([
        2,
        'mutation: --sample takes a number of places, at least 1 (got "0")',
      ]);
      expect(run("--quick-first", "--sample", "1.5")[0]).toBe(2);
      expect(run("--quick-first", "--sample")).toEqual([
        2,
        'mutation: --sample takes a number of places, at least 1 (got "")',
      ]);
      expect(run("--sample", "5")).toEqual([
        2,
        "mutation: --sample, --batch and --reuse-first-stage go with --quick-first",
      ]);
      expect(run("--reuse-first-stage")).toEqual([
        2,
        "mutation: --sample, --batch and --reuse-first-stage go with --quick-first",
      ]);
      expect(run("--batch", "10")).toEqual([
        2,
        "mutation: --sample, --batch and --reuse-first-stage go with --quick-first",
      ]);
      expect(run("--quick-first", "--batch", "0")).toEqual([
        2,
        'mutation: --batch takes a number of places, at least 1 (got "0")',
      ]);
      expect(run("--quick-first", "--batch", "-3")[0]).toBe(2);
      expect(run("--quick-first", "--sample", "5", "--batch")).toEqual([
        2,
        'mutation: --batch takes a number of places, at least 1 (got "")',
      ]);
    });

    it("tests the places in a fixed random order: every place once, the same order for the same places", () => {
      const ranges = Array.from({ length: 50 }, (_, i) => `src/k/${String(i).padStart(2, "0")}.ts:1:0-1:5`);
      const order = shuffled(ranges);
      expect([...order].sort()).toEqual(ranges);
      expect(order).not.toEqual(ranges);
      expect(shuffled(ranges)).toEqual(order);
      expect(shuffled(ranges, 2)).not.toEqual(order);
      // A sample is the start of that order.
      expect(sampleRanges(ranges, 10)).toEqual(order.slice(0, 10).sort());
      expect(shuffled([])).toEqual([]);
    });

    it("--batch: the places in runs of that many, in order; an exact multiple makes no empty run", () => {
      const items = Array.from({ length: 250 }, (_, i) => i);
      expect(batches(items, 100).map((b: number[]) => b.length)).toEqual([100, 100, 50]);
      expect(batches(items, 100).flat()).toEqual(items);
      expect(batches(items.slice(0, 200), 100).map((b: number[]) => b.length)).toEqual([100, 100]);
      expect(batches(items.slice(0, 101), 100).map((b: number[]) => b.length)).toEqual([100, 1]);
      expect(batches(items.slice(0, 3), 1)).toEqual([[0], [1], [2]]);
      expect(batches([], 100)).toEqual([]);
    });

    it("resumes: a place is done when every mutant left undetected there has a result in a batch", () => {
      const quick = {
        files: {
          "src/k/a.ts": {
            mutants: [
              at(1, 1, 5, "Survived"),
              at(1, 1, 5, "NoCoverage", "X"),
              at(2, 1, 5, "Survived"),
              at(2, 1, 5, "Survived", "X"),
              at(3, 1, 5, "Survived"),
              at(4, 1, 5, "Killed"),
            ],
          },
          "src/k/b.ts": { mutants: [at(1, 1, 5, "Survived")] },
        },
      };
      const ranges = undetectedRanges(quick);
      expect(ranges).toEqual([
        "src/k/a.ts:1:0-1:5",
        "src/k/a.ts:2:0-2:5",
        "src/k/a.ts:3:0-3:5",
        "src/k/b.ts:1:0-1:5",
      ]);
      // Nothing run yet: every place.
      expect(placesLeft(ranges, quick, { files: {} })).toEqual(ranges);
      // Place 1 tested whole; place 2 half (a batch stopped between its mutants); b.ts's in another file's name.
      const tested = {
        files: {
          "src/k/a.ts": {
            mutants: [at(1, 1, 5, "Killed"), at(1, 1, 5, "Survived", "X"), at(2, 1, 5, "Killed")],
          },
          "src/k/c.ts": { mutants: [at(1, 1, 5, "Killed")] },
        },
      };
      expect(placesLeft(ranges, quick, tested)).toEqual([
        "src/k/a.ts:2:0-2:5",
        "src/k/a.ts:3:0-3:5",
        "src/k/b.ts:1:0-1:5",
      ]);
      // Only the places asked for (a sample), in their order.
      expect(placesLeft(["src/k/b.ts:1:0-1:5", "src/k/a.ts:1:0-1:5"], quick, tested)).toEqual([
        "src/k/b.ts:1:0-1:5",
      ]);
    });

    it("reads the batches' results as one run, a mutant tested twice with its last result", () => {
      const root = mkdtempSync(join(tmpdir(), "forgeform-batches-"));
      const write = (dir: string, n: number, line: number, status: string) => {
        mkdirSync(join(root, dir), { recursive: true });
        writeFileSync(
          join(root, dir, `${String(n).padStart(4, "0")}-onMutantTested.json`),
          JSON.stringify({ fileName: join(process.cwd(), "src/k/a.ts"), ...at(line, 1, 5, status) }),
        );
      };
      write("000", 1, 1, "Survived");
      write("000", 2, 2, "Killed");
      write("001", 1, 1, "Killed");
      write("001", 2, 3, "NoCoverage");
      const runs = reportFromRuns([join(root, "000"), join(root, "001")]);
      expect(runs.files["src/k/a.ts"].mutants).toHaveLength(4);
      const quick = {
        files: { "src/k/a.ts": { mutants: [1, 2, 3, 4].map((l) => at(l, 1, 5, "Survived")) } },
      };
      expect(
        mergeStages(quick, runs).files["src/k/a.ts"].mutants.map((m: { status: string }) => m.status),
      ).toEqual(["Killed", "Killed", "NoCoverage", "Survived"]);
      expect(reportFromRuns([])).toEqual({ files: {} });
    });

    it("--partial after the first stage: both stages merged so far, and how many places were tested again", () => {
      const root = mkdtempSync(join(tmpdir(), "forgeform-partial-"));
      const write = (dir: string, n: number, line: number, status: string) => {
        mkdirSync(join(root, dir), { recursive: true });
        writeFileSync(
          join(root, dir, `${String(n).padStart(4, "0")}-onMutantTested.json`),
          JSON.stringify({ fileName: join(root, "src/k/a.ts"), ...at(line, 1, 5, status) }),
        );
      };
      for (const l of [1, 2, 3]) write("reports/mutation/kinds/quick-events", l, l, "Survived");
      write("reports/mutation/kinds/quick-events", 9, 4, "Killed");
      write("reports/mutation/kinds/again/000", 0, 1, "Killed");
      // The batch running now.
      write("reports/mutation/events", 0, 2, "Survived");
      const r = spawnSync(
        process.execPath,
        [join(process.cwd(), "scripts/mutation.mjs"), "--partial", "kinds"],
        {
          cwd: root,
          encoding: "utf8",
        },
      );
      expect(r.status).toBe(0);
      expect(r.stdout).toContain("all: 4 mutants, 2 killed, 0 timed out, 2 survived, 0 not covered, 50.0%");
      expect(r.stdout).toContain("2 of 3 places tested again with every test");
      // The places tested so far are a random sample of them all: the estimate from them.
      expect(r.stdout).toContain(
        "sampled: 1 of 2 undetected mutants tested again were killed (3 undetected in all); estimated 62.5%",
      );
    });
  });
});
