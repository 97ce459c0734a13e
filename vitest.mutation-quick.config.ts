/**
 * The first stage of `npm run mutation -- <folder> --quick-first` (scripts/mutation.mjs): the tests of
 * vitest.mutation.config.ts but the integration ones (test/integration), which cover most of src/cli and src/kinds
 * and cost seconds each for every mutant they cover. What this stage leaves undetected is tested again with every
 * test, so the scores are those of a run with every test.
 */
import { defineConfig } from "vitest/config";
import base from "./vitest.mutation.config.ts";

const test = base.test!;
export default defineConfig({
  ...base,
  test: { ...test, include: (test.include ?? []).filter((p) => !p.startsWith("test/integration/")) },
});
