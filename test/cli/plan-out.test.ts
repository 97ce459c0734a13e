/**
 * `plan --out` (src/cli/plan.ts), in-process against the sandbox: where the plan was saved and how to apply it;
 * how a plan names the platform (workflow.ts's displayUrl): by --url without its query (which could carry a token)
 * and without a trailing slash, in a saved plan and in JSON.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "../integration/helpers.js";

let bench: Bench;
let manifest: string;
beforeAll(async () => {
  bench = await Bench.start({ fixture: { groups: [{ path: "g" }] } });
  manifest = bench.manifest("version: 1\ngroups:\n  g:\n    description: declared\n");
});
afterAll(async () => {
  await bench.stop();
});

describe("a plan names the platform", () => {
  it("by --url without its query or a trailing slash", async () => {
    const saved = join(bench.dir, "plan.json");
    const url = `${bench.sandbox.url}/?private_token=s3cr3t-in-the-url`;
    const run = await bench.cli(["plan", "--format", "json", "--out", saved, "--url", url, manifest]);
    expect(run.code, run.err).toBe(0);
    expect((JSON.parse(run.out) as { url: string }).url).toBe(bench.sandbox.url);
    const file = readFileSync(saved, "utf8");
    expect((JSON.parse(file) as { url: string }).url).toBe(bench.sandbox.url);
    expect(file + run.out + run.err).not.toContain("s3cr3t");
  });

  it("saved with --out: says where, and how to apply it", async () => {
    const saved = join(bench.dir, "saved.json");
    const run = await bench.cli(["plan", "--out", saved, manifest]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.\n");
    expect(run.err).toBe(`Saved the plan to ${saved}. Apply it with: forgeform apply --plan ${saved}\n`);
    expect((await bench.cli(["apply", "--yes", "--plan", saved])).code).toBe(0);
    expect((await bench.get<{ description: string }>("/groups/g")).description).toBe("declared");
  });
});
