/**
 * The published schemas compile under ajv's strict mode (every keyword and format known), and the validators
 * forgeform runs (src/manifest/validators.gen.ts, ajv's standalone code of them) are what they generate today.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { loadSchemas } from "../../src/manifest/index.js";

const run = promisify(execFile);

describe("published schemas", () => {
  it("each has its validator", () => {
    const set = loadSchemas();
    const files = Object.keys(set.files);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(typeof set.validator(file), file).toBe("function");
    expect(() => set.validator("nothing.schema.json")).toThrow("no schema nothing.schema.json");
  });

  it("compile under ajv strict mode into src/manifest/validators.gen.ts as committed", async () => {
    await expect(run(process.execPath, ["scripts/gen-validators.mjs", "--check"])).resolves.toBeDefined();
  });
});
