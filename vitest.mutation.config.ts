/**
 * The tests mutation testing runs (npm run mutation): those that exercise src/ in-process. Tests that run the built
 * CLI or the bundled Action (lib/, dist/), third-party clients or the benchmark cannot see a mutant of src/ and only
 * cost time there.
 */
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/api/**/*.test.ts",
      "test/engine/**/*.test.ts",
      "test/integration/**/*.test.ts",
      "test/manifest/**/*.test.ts",
      "test/report/**/*.test.ts",
      "test/security/client-*.test.ts",
    ],
    // examples.test.ts also regenerates the types with a script, which the mutation sandbox cannot run.
    exclude: ["test/security/client-interrupt.test.ts", "test/manifest/examples.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
  },
});
