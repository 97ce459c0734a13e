/**
 * A fresh clone in any directory, with no other folder beside it, passes `npm test`: no code, test, benchmark or
 * script may read a path outside the repository (documents are named in comments by their repository-relative
 * name, `shared/spec/rest-interface.md`), and every fixture a test reads is inside it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const FOLDERS = ["src", "test", "bench", "scripts", ".ci"];

function files(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir)) {
    if (entry === "node_modules" || entry === "fixtures") continue;
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) files(full, out);
    else if (/\.(ts|mjs|js|py|rb|pl|sh|go)$|^run$/.test(entry)) out.push(full);
  }
  return out;
}

describe("the repository stands alone", () => {
  it("no source names an absolute path of this machine or the folder beside the repository", () => {
    const offenders: string[] = [];
    // Built from parts, so this test does not name them itself.
    const machine = ["", "work", ""].join("/");
    const beside = ["..", "shared"].join("/");
    for (const file of FOLDERS.flatMap((f) => files(join(ROOT, f)))) {
      const text = readFileSync(file, "utf8");
      text.split("\n").forEach((line, i) => {
        if (line.includes(machine) || line.includes(beside))
          offenders.push(`${relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });

  it("the data the tests read is committed under test/fixtures", () => {
    const recorded = JSON.parse(
      readFileSync(join(ROOT, "test/fixtures/recordings/application-settings.json"), "utf8"),
    ) as Record<string, unknown>;
    expect(Object.keys(recorded).length).toBeGreaterThan(50);
  });
});

describe("the suite cannot be silenced", () => {
  /** Lints `source` as a test file with the repository's linter settings (in a folder of its own). */
  function lint(source: string): { status: number | null; out: string } {
    const dir = mkdtempSync(join(tmpdir(), "forgeform-lint-"));
    try {
      const { $schema: _, ...config } = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")) as Record<
        string,
        unknown
      >;
      // Outside the repository: no git ignore file to read, and every file is the linter's.
      const standalone = { ...config, vcs: { enabled: false }, files: { includes: ["**"] } };
      writeFileSync(join(dir, "biome.json"), JSON.stringify(standalone));
      writeFileSync(join(dir, "probe.test.ts"), source);
      const biome = join(ROOT, "node_modules/.bin/biome");
      const r = spawnSync(biome, ["lint", "probe.test.ts"], { cwd: dir, encoding: "utf8" });
      return { status: r.status, out: `${r.stdout}${r.stderr}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("the linter fails on a focused test (.only would silence its neighbours), as npm test runs it", () => {
    const head = 'import { describe, it, test } from "vitest";\n\n';
    expect(
      lint(`${head}it("a", () => {});\ndescribe("b", () => {\n  test("c", () => {});\n});\n`).status,
    ).toBe(0);
    for (const focused of [
      'it.only("a", () => {});',
      'describe.only("b", () => {});',
      'test.only("c", () => {});',
    ]) {
      const r = lint(`${head}${focused}\n`);
      expect(r.status, focused).toBe(1);
      expect(r.out).toContain("lint/suspicious/noFocusedTests");
    }
  });

  it("CI requires the conformance clients and installs every Debian package a missing-client message names", () => {
    const run = readFileSync(join(ROOT, ".ci/run"), "utf8");
    expect(run).toMatch(/^export FORGEFORM_REQUIRE_CLIENTS=1$/m);
    const installed = /for pkg in ([^;]+); do/.exec(run.replace(/\\\n\s*/g, ""))?.[1]?.split(/\s+/) ?? [];
    // Packages named in the reasons tests give when a tool is missing: `(Debian package X)`, a case's
    // `debian: "X"` (or `debian: cond ? "X" : "Y"`), `commandMissing("cmd", "X")`.
    const named = new Set<string>();
    const forms = [
      /\(Debian package ([a-z0-9][a-z0-9.+-]*)\)/g,
      /debian: ([^,\n]+)/g,
      /commandMissing\("[^"]+", ("[^"]+")\)/g,
    ];
    for (const file of files(join(ROOT, "test"))) {
      const text = readFileSync(file, "utf8");
      for (const form of forms) {
        for (const m of text.matchAll(form)) {
          const quoted = [...m[1]!.matchAll(/"([a-z0-9][a-z0-9.+-]*)"/g)].map((q) => q[1]!);
          for (const name of quoted.length > 0 ? quoted : [m[1]!])
            if (/^[a-z0-9][a-z0-9.+-]*$/.test(name)) named.add(name);
        }
      }
    }
    // Essential packages are on every Debian system.
    const essential = ["tar", "bsdutils"];
    expect(named.size).toBeGreaterThan(5);
    expect([...named].filter((p) => !installed.includes(p) && !essential.includes(p))).toEqual([]);
  });
});
