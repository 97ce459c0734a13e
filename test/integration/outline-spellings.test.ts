/**
 * Manifests written the ways editors and people write YAML, planned in shards and in chunks: each must read them as
 * one run does. Found by checking the outline scanner against a parse (test/manifest/outline-spellings.test.ts):
 * - a file that starts with a byte order mark (Windows editors write one) or whose root is indented was outlined
 *   without its `version: 1`, taken for some other YAML and left out of every shard, pull request and chunk;
 * - a block scalar that keeps its final line breaks (`|+`) right before an entry another shard owns took the
 *   emptied lines of that entry into its value: the shard planned an update after every apply.
 * And a pull request that changes the file with the mark planned nothing.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const FILES: Record<string, string> = {
  "bom.yaml":
    "\uFEFFversion: 1\nprojects:\n  delta/d1:\n    description: from a file with a byte order mark\n",
  "indented.yaml": "  version: 1\n  projects:\n    alpha/a2:\n      description: from an indented file\n",
  // Both top-level groups in one file: a shard reads its own entry, with the other's lines left out.
  "shared.yaml": `version: 1
projects:
  alpha/a1:
    description: |+
      kept as written

  delta/d2:
    description: the other shard's
`,
  // Weighs alpha, so that the two top-level groups go to different shards.
  "alpha.yaml": `version: 1\ngroups:\n  alpha:\n    description: "${"a".repeat(200)}"\n  alpha/sub:\n    description: "${"a".repeat(200)}"\n`,
};

describe("manifests however they are written, in shards and in chunks", () => {
  let bench: Bench;
  let dir: string;
  const addresses = (out: string) =>
    (JSON.parse(out) as PlanV1).changes
      .filter((c) => c.action !== "unmanaged")
      .map((c) => `${c.action} ${c.address}`)
      .sort();
  const plan = async (...args: string[]) => {
    const run = await bench.cli(["plan", "--format", "json", ...args, dir]);
    expect(run.code, run.out + run.err).toBe(0);
    return addresses(run.out);
  };

  beforeAll(async () => {
    bench = await Bench.start({
      fixture: {
        groups: [{ path: "alpha" }, { path: "delta" }],
        projects: [{ path: "alpha/a1" }, { path: "alpha/a2" }, { path: "delta/d1" }, { path: "delta/d2" }],
      },
    });
    dir = mkdtempSync(join(tmpdir(), "forgeform-spellings-"));
    mkdirSync(dir, { recursive: true });
    for (const [name, text] of Object.entries(FILES)) writeFileSync(join(dir, name), text);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("every file is read by the shards and the chunks as by one run", async () => {
    const whole = await plan();
    expect(whole).toEqual([
      'create group["alpha/sub"]',
      'update group["alpha"]',
      'update project["alpha/a1"]',
      'update project["alpha/a2"]',
      'update project["delta/d1"]',
      'update project["delta/d2"]',
    ]);
    const [first, second] = [await plan("--shard", "1/2"), await plan("--shard", "2/2")];
    expect(first).toEqual(whole.filter((a) => a.includes('"alpha')));
    expect(second).toEqual(whole.filter((a) => a.includes('"delta')));
    const chunked = await bench.cli(["plan", "--format", "json", dir], { FORGEFORM_CHUNK_UNITS: "1" });
    expect(addresses(chunked.out)).toEqual(whole);
  });

  it("after an apply, no shard and no chunk plans anything", async () => {
    const applied = await bench.cli(["apply", "--yes", dir]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(await plan()).toEqual([]);
    expect(await plan("--shard", "1/2")).toEqual([]);
    expect(await plan("--shard", "2/2")).toEqual([]);
    const chunked = await bench.cli(["plan", "--format", "json", dir], { FORGEFORM_CHUNK_UNITS: "1" });
    expect(chunked.code, chunked.out + chunked.err).toBe(0);
    expect(addresses(chunked.out)).toEqual([]);
  });

  it("a pull request's plan plans a change to a file with a byte order mark", async () => {
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    writeFileSync(
      join(dir, "bom.yaml"),
      FILES["bom.yaml"]!.replace("a byte order mark", "the mark, changed"),
    );
    const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", dir]);
    expect(run.code, run.out + run.err).toBe(0);
    expect(run.err).toBe("");
    expect(addresses(run.out)).toEqual(['update project["delta/d1"]']);
  });
});
