/**
 * The tests mutation testing runs (npm run mutation): those that exercise src/ in-process. Tests that run the built
 * CLI or the bundled Action (lib/, dist/), third-party clients or the benchmark cannot see a mutant of src/ and only
 * cost time there. Stryker adds `related` (only test files that import the mutated file) and, per mutant, only the
 * tests that cover it; what is here makes each of those runs cheaper (docs/testing.md, "Mutation testing").
 */
import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Test files that failed last first (they killed the previous mutant, and often kill the next one of the same
 * code), then the quickest first: a mutant run stops at the first failing test (Stryker's bail), so a mutant that a
 * quick unit test kills never waits for the slow integration files. Vitest's own order is the slowest first.
 */
class QuickFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const last = (f: TestSpecification) =>
      this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`);
    const rank = (f: TestSpecification) => {
      const r = last(f);
      return r ? (r.failed ? -1 : r.duration) : Number.MAX_SAFE_INTEGER;
    };
    return [...files].sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  test: {
    include: [
      "test/api/**/*.test.ts",
      "test/engine/**/*.test.ts",
      "test/integration/**/*.test.ts",
      "test/manifest/**/*.test.ts",
      "test/plan/**/*.test.ts",
      "test/report/**/*.test.ts",
      "test/security/client-*.test.ts",
      "test/action/**/*.test.ts",
      "test/cli/**/*.test.ts",
      "test/convert/**/*.test.ts",
      "test/export/**/*.test.ts",
      "test/files/**/*.test.ts",
      "test/kinds/**/*.test.ts",
      "test/text/**/*.test.ts",
      // `forgeform sandbox` (src/cli/sandbox.ts), in-process; the rest of test/sandbox tests the sandbox, out of scope.
      "test/sandbox/cli.test.ts",
    ],
    exclude: [
      "test/security/client-interrupt.test.ts",
      // These run the bundled Action (dist/, under Node 24) or the built CLI (lib/) in a child process: a mutant of
      // src/ is not in what they run. The Action's and the CLI's code is measured by the tests that import it
      // (test/action/run*.test.ts and read-inputs.test.ts run src/action in-process through in-process.ts).
      "test/action/action.test.ts",
      "test/action/comment.test.ts",
      "test/action/dist.test.ts",
      "test/action/hardening.test.ts",
      "test/action/input-table.test.ts",
      "test/action/inputs.test.ts",
      "test/action/workflow-lint.test.ts",
      "test/cli/hardening.test.ts",
      "test/cli/output.test.ts",
      // examples.test.ts also regenerates the types with a script, which the mutation sandbox cannot run.
      "test/manifest/examples.test.ts",
      // Timed by the clock: real backoff waits with random jitter (faults-scale, 5-13 s a run) and one-second
      // throttle windows (rate-limit). Slow for every mutant they cover, and on a loaded machine they can fail on
      // their own, which Stryker would count as a kill. Their code is covered without the clock: faults.test.ts and
      // lost-creates.test.ts (the same faults, small), test/api/retry.test.ts and pacer.test.ts.
      "test/integration/faults-scale.test.ts",
      "test/integration/rate-limit.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Stryker runs every mutant in one worker (its own pool: threads, one at a time). Not isolating test files keeps
    // the modules that the test files import loaded across files and mutants: an integration file then starts in a
    // few milliseconds instead of re-importing the CLI (about 0.2-0.6 s each), about 3 times less per mutant.
    // Mutants are switched at run time (a global the instrumented code reads on every call), so a loaded module sees
    // each mutant; the lazily built caches of src/ (compiled JSON Schemas) are filled by the initial test run,
    // without a mutant (docs/testing.md says what this means for the few mutants inside them).
    isolate: false,
    sequence: { sequencer: QuickFirst },
  },
});
