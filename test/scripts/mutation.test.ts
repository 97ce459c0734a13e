/**
 * scripts/mutation.mjs: the score of a mutation run, from Stryker's report or from the results it wrote one by one
 * (a run stopped before its end), as docs/testing.md's tables give it.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain ESM script without types
import { reportFromEvents, scores } from "../../scripts/mutation.mjs";

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
});
