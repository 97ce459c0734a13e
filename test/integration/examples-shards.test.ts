/**
 * The examples planned in shards, as a CI matrix would: in 2, 3 or 4 shards, each shard plans without an error and
 * the shards together plan exactly what one run plans (each change in one shard). The 3-shard run of the examples
 * found a shard that read projects.yaml (outlined from a parse, read whole) without templates.yaml.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { copyExamples, EXAMPLES, EXAMPLES_ENV } from "./examples.js";
import { Bench } from "./helpers.js";

describe("examples/ planned in shards", () => {
  let bench: Bench;
  let manifests: string[];
  beforeAll(async () => {
    bench = await Bench.start({ fixture: join(EXAMPLES, "sandbox-fixture.yaml"), edition: "licensed" });
    manifests = copyExamples(bench.dir);
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** A plan's changes, as `action address` lines. */
  const plan = async (args: string[]) => {
    const run = await bench.cli(["plan", "--format", "json", ...args, ...manifests], EXAMPLES_ENV);
    expect(run.code, `${args.join(" ")}: ${run.out}${run.err}`).toBe(0);
    return (JSON.parse(run.out) as PlanV1).changes.map((c) => `${c.action} ${c.address}`);
  };

  it("in 2, 3 and 4 shards, the shards together plan what one run plans, each change once", async () => {
    const whole = (await plan([])).sort();
    expect(whole.length).toBeGreaterThan(20);
    for (const count of [2, 3, 4]) {
      const shards: string[][] = [];
      for (let k = 1; k <= count; k++) shards.push(await plan(["--shard", `${k}/${count}`]));
      expect(shards.flat().sort(), `${count} shards`).toEqual(whole);
      // Each shard has its share: none plans everything, none plans nothing (the examples hold 4 top-level
      // trees: the instance, acme, opensource and tools, each with changes).
      for (const s of shards) {
        expect(s.length, `${count} shards`).toBeLessThan(whole.length);
        expect(s.length, `${count} shards`).toBeGreaterThan(0);
      }
    }
  });
});
