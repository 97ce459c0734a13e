/**
 * scripts/mutation.mjs: the score of a mutation run, from Stryker's report or from the results it wrote one by one
 * (a run stopped before its end), as docs/testing.md's tables give it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { mergeStages, reportFromEvents, scores, undetectedRanges } from "../../scripts/mutation.mjs";

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
  });
});
