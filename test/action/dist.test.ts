import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers.js";

describe("dist/ (the committed Action bundle)", () => {
  it("is what scripts/build-action.mjs builds from the current sources (run `npm run build:action` if not)", () => {
    const out = mkdtempSync(join(tmpdir(), "forgeform-dist-"));
    execFileSync(process.execPath, [join(ROOT, "scripts/build-action.mjs"), out], {
      cwd: ROOT,
      stdio: "pipe",
    });
    for (const file of ["index.js", "package.json"]) {
      const fresh = readFileSync(join(out, file));
      const committed = readFileSync(join(ROOT, "dist", file));
      expect(
        fresh.equals(committed),
        `dist/${file} is out of date with src/: run npm run build:action and commit dist/`,
      ).toBe(true);
    }
  });

  it("reads schemas from the action's own checkout, not from above it", () => {
    const bundle = readFileSync(join(ROOT, "dist/index.js"), "utf8");
    expect(bundle).toContain('new URL("../schemas/", import.meta.url)');
    expect(bundle).not.toContain('new URL("../../');
  });

  it("is what action.yml runs, on node24", () => {
    const action = readFileSync(join(ROOT, "action.yml"), "utf8");
    expect(action).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/index\.js\n/m);
  });
});
