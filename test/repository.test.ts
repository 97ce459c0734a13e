/**
 * A fresh clone in any directory, with no other folder beside it, passes `npm test`: no code, test, benchmark or
 * script may read a path outside the repository (documents are named in comments by their repository-relative
 * name, `shared/spec/rest-interface.md`), and every fixture a test reads is inside it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
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
