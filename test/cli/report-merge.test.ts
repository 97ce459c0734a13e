/**
 * `forgeform report merge` (src/cli/report.ts), in-process: the shards' drift reports made by drift --shard against
 * the sandbox, then merged; each file it cannot use named with why, a shard missing or given twice, --out and
 * --report written, and the exit code of what was merged (with --fail-on-unmanaged, as each --report file says).
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench, runCli } from "../integration/helpers.js";

let bench: Bench;
/** Shard 1 of 2 (acme, drifted) and shard 2 of 2 (beta, in sync). */
let shard1: string;
let shard2: string;
/** Shards 1 and 2 of a run with a plan error (a group moved to another parent) in shard 1. */
let failed1: string;
let failed2: string;
const report = (name: string) => join(bench.dir, name);

beforeAll(async () => {
  bench = await Bench.start();
  await bench.send("POST", "/groups", { name: "acme", path: "acme", description: "live" });
  await bench.send("POST", "/groups", { name: "beta", path: "beta" });
  const manifest = bench.manifest("version: 1\ngroups:\n  acme:\n    description: declared\n  beta: {}\n");
  shard1 = report("s1.json");
  shard2 = report("s2.json");
  expect(
    (await bench.cli(["drift", "--shard", "1/2", "--format", "json", "--out", shard1, manifest])).code,
  ).toBe(2);
  expect(
    (await bench.cli(["drift", "--shard", "2/2", "--format", "json", "--out", shard2, manifest])).code,
  ).toBe(0);
  const corp = bench.manifest(
    "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/west/team: {}\n",
    "corp.yaml",
  );
  expect((await bench.cli(["apply", "--yes", corp])).code).toBe(0);
  const moved = bench.manifest(
    "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n  zeta: {}\n",
    "moved.yaml",
  );
  await bench.send("POST", "/groups", { name: "zeta", path: "zeta" });
  failed1 = report("f1.json");
  failed2 = report("f2.json");
  await bench.cli(["drift", "--shard", "1/2", "--format", "json", "--out", failed1, moved]);
  await bench.cli(["drift", "--shard", "2/2", "--format", "json", "--out", failed2, moved]);
});
afterAll(async () => {
  await bench.stop();
});

const merge = (...args: string[]) => runCli(["report", "merge", ...args], {});

describe("report merge refuses", () => {
  it("a file that does not exist, and one that is a directory", async () => {
    const missing = report("missing.json");
    expect(await merge(shard1, missing)).toEqual({
      code: 1,
      out: "",
      err: `forgeform: cannot read ${missing} (ENOENT)\n`,
    });
    expect(await merge(bench.dir)).toEqual({
      code: 1,
      out: "",
      err: `forgeform: cannot read ${bench.dir}: it is a directory, not a regular file\n`,
    });
  });

  it("a file that is not JSON, and JSON that is not a drift report", async () => {
    const text = report("drift.txt");
    writeFileSync(text, "Drift: none\n");
    let why = "";
    try {
      JSON.parse("Drift: none\n");
    } catch (error) {
      why = (error as Error).message;
    }
    expect(await merge(text)).toEqual({
      code: 1,
      out: "",
      err: `forgeform: ${text} is not valid JSON (${why})\n`,
    });
    const other = report("other.json");
    writeFileSync(other, "[]\n");
    expect(await merge(other)).toEqual({
      code: 1,
      out: "",
      err: `forgeform: ${other} is not a forgeform drift report (drift --format json): the top level must be object\n`,
    });
  });

  it("a shard missing, a shard given twice, and shards of runs split in different ways", async () => {
    expect(await merge(shard1)).toEqual({
      code: 1,
      out: "",
      err: "forgeform: missing shard 2/2: give every shard's drift report\n",
    });
    const copy = report("s1-copy.json");
    copyFileSync(shard1, copy);
    expect(await merge(shard1, copy, shard2)).toEqual({
      code: 1,
      out: "",
      err: `forgeform: ${copy} and ${shard1} are both shard 1/2\n`,
    });
    const ofThree = report("s1-of-3.json");
    const data = JSON.parse(readFileSync(shard1, "utf8")) as { shard: { count: number } };
    data.shard.count = 3;
    writeFileSync(ofThree, JSON.stringify(data));
    expect(await merge(shard2, ofThree)).toEqual({
      code: 1,
      out: "",
      err: `forgeform: ${ofThree} is shard 1/3, but ${shard2} is one of 2 shards\n`,
    });
  });
});

describe("report merge writes", () => {
  it("the merged report on stdout, exiting 2 for drift", async () => {
    const run = await merge(shard2, shard1);
    expect(run.code).toBe(2);
    expect(run.err).toBe("");
    expect(run.out).toContain('~ group["acme"] drifted');
    expect(run.out).toContain("Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.\n");
  });

  it("--out and --report files, saying so on stderr", async () => {
    const markdown = report("merged.md");
    const junit = report("merged.xml");
    const run = await merge(
      shard1,
      shard2,
      "--format",
      "markdown",
      "--out",
      markdown,
      "--report",
      `junit=${junit}`,
    );
    expect(run).toEqual({
      code: 2,
      out: "",
      err: `Wrote the merged markdown drift report to ${markdown}. Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.\n`,
    });
    expect(readFileSync(markdown, "utf8")).toContain("acme");
    expect(readFileSync(junit, "utf8")).toMatch(/^<\?xml [\s\S]*<testsuite/);
  });

  it("exits 1 when a shard's report holds plan errors", async () => {
    const run = await merge(failed1, failed2);
    expect(run.code).toBe(1);
    expect(run.out).toContain("Errors (1):\n");
  });

  it("--fail-on-unmanaged: the exit code and each --report file judge an unmanaged object alike", async () => {
    const solo = await bench.send<{ id: number }>("POST", "/groups", { name: "solo", path: "solo" });
    await bench.send("POST", "/groups", { name: "stray", path: "stray", parent_id: solo.id });
    const manifest = bench.manifest("version: 1\ngroups:\n  solo: {}\n", "solo.yaml");
    const shards = [report("u1.json"), report("u2.json")];
    for (const [i, file] of shards.entries()) {
      const args = ["drift", "--shard", `${i + 1}/2`, "--format", "json", "--out", file, manifest];
      expect((await bench.cli(args)).code).toBe(0);
    }
    const json = report("unmanaged.json");
    const judged = () =>
      JSON.parse(readFileSync(json, "utf8")) as { drift: boolean; fail_on_unmanaged: boolean };
    const failing = await merge(...shards, "--fail-on-unmanaged", "--report", `json=${json}`);
    expect(failing.code).toBe(2);
    expect(failing.out).toContain("Drift: 0 drifted, 0 missing, 1 unmanaged, 0 would be deleted.\n");
    expect(judged()).toMatchObject({ drift: true, fail_on_unmanaged: true });
    const passing = await merge(...shards, "--report", `json=${json}`);
    expect(passing.code).toBe(0);
    expect(judged()).toMatchObject({ drift: false, fail_on_unmanaged: false });
  });
});
