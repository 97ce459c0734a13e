/**
 * `--shard K/N` splits a drift run across the runners of a CI matrix; `forgeform report merge` combines the
 * shards' JSON reports into the report of an unsharded run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const TOPS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];
const fixture = {
  groups: TOPS.flatMap((t) => [{ path: t, description: "old" }, { path: `${t}/team` }]),
  projects: TOPS.flatMap((t) => [{ path: `${t}/team/app` }, { path: `${t}/tool` }]),
  system_hooks: [{ url: "https://hooks.shard.example/unknown" }],
};

const MANIFEST = `version: 1
instance:
  system_hooks:
    - { url: "https://hooks.shard.example/declared", push_events: true }
groups:
${TOPS.map((t, i) => `  ${t}: { description: ${i % 2 === 0 ? "new" : "old"} }\n  ${t}/team: {}\n`).join("")}projects:
${TOPS.map((t) => `  ${t}/team/app:\n    badges:\n      - { name: b, link_url: "https://x.example", image_url: "https://x.example/i.svg" }\n`).join("")}`;

interface DriftJson {
  summary: Record<string, number>;
  items: { address: string }[];
  in_sync: string[];
  errors: unknown[];
  warnings: unknown[];
  requests: { total: number };
  shard?: { units: string[] };
}

const canonical = (d: DriftJson) => ({
  summary: d.summary,
  items: [...d.items].sort((a, b) => a.address.localeCompare(b.address)),
  in_sync: [...d.in_sync].sort(),
  errors: d.errors,
  warnings: d.warnings,
});

describe("shards", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    file = bench.manifest(MANIFEST);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("each shard reads a part, every target goes to exactly one shard, and the merged report is the unsharded one", async () => {
    const whole = await bench.cli(["drift", "--format", "json", file]);
    expect(whole.code).toBe(2);
    const unsharded = JSON.parse(whole.out) as DriftJson;
    const files: string[] = [];
    const units: string[] = [];
    for (let k = 1; k <= 3; k++) {
      const out = join(bench.dir, `shard-${k}.json`);
      const run = await bench.cli(["drift", "--shard", `${k}/3`, "--format", "json", "--out", out, file]);
      expect([0, 2]).toContain(run.code);
      const shard = JSON.parse(readFileSync(out, "utf8")) as DriftJson;
      expect(shard.requests.total).toBeLessThan(unsharded.requests.total * 0.6);
      // The report names its units in order, whatever order the manifests declare them in.
      expect(shard.shard?.units).toEqual([...(shard.shard?.units ?? [])].sort());
      units.push(...(shard.shard?.units ?? []));
      files.push(out);
    }
    expect(units.sort()).toEqual([...TOPS, "instance"].sort());

    const merged = await bench.cli(["report", "merge", "--format", "json", ...files]);
    expect(merged.code).toBe(2);
    expect(canonical(JSON.parse(merged.out) as DriftJson)).toEqual(canonical(unsharded));
    const text = await bench.cli(["report", "merge", ...files]);
    expect(text.out.trim().split("\n").at(-1)).toBe(
      (await bench.cli(["drift", file])).out.trim().split("\n").at(-1),
    );
    const junit = await bench.cli(["report", "merge", "--format", "junit", ...files]);
    const unshardedJunit = (await bench.cli(["drift", "--format", "junit", file])).out;
    const cases = (xml: string) =>
      [...xml.matchAll(/<testcase [^>]*name="([^"]*)"/g)].map((m) => m[1]).sort();
    expect(cases(junit.out)).toEqual(cases(unshardedJunit));
  });

  it("refuses an incomplete or mixed set of shards, and a bad --shard", async () => {
    const out = join(bench.dir, "only-1.json");
    await bench.cli(["drift", "--shard", "1/3", "--format", "json", "--out", out, file]);
    const merged = await bench.cli(["report", "merge", out]);
    expect(merged.code).toBe(1);
    expect(merged.err).toContain("missing shard 2/3, shard 3/3");
    const twice = await bench.cli(["report", "merge", out, out]);
    expect(twice.err).toContain("are both shard 1/3");
    const bad = await bench.cli(["drift", "--shard", "4/3", file]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("--shard must be K/N with 1 <= K <= N");
  });
});
