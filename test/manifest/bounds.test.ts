/**
 * The limits of what forgeform reads, at the limit and one past it: how deep a manifest may nest, how much its
 * aliases may add, and the job timeout's range.
 */
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../src/manifest/diagnostics.js";
import { FORMAT_CHECKS, JOB_TIMEOUT_SECONDS } from "../../src/manifest/formats.js";
import { MAX_ALIAS_NODES, MAX_DEPTH, parseYaml } from "../../src/manifest/yaml.js";

function parse(text: string) {
  const diags = new Diagnostics();
  const parsed = parseYaml("m.yaml", text, diags);
  return { parsed, errors: diags.sorted(["m.yaml"]).filter((d) => d.severity === "error") };
}

describe("manifest bounds", () => {
  it(`reads a document nested ${MAX_DEPTH} levels below its top, and refuses one level more`, () => {
    // The top-level list is at depth 0: n brackets nest n - 1 levels below it.
    const nested = (levels: number) => `${"[".repeat(levels + 1)}${"]".repeat(levels + 1)}`;
    const atLimit = parse(nested(MAX_DEPTH));
    expect(atLimit.errors).toEqual([]);
    expect(atLimit.parsed.complete).toBe(true);
    const past = parse(nested(MAX_DEPTH + 1));
    expect(past.errors.map((e) => e.message)).toEqual([
      `the document nests deeper than ${MAX_DEPTH} levels of maps and lists`,
    ]);
    expect(past.parsed.documents).toEqual([]);
  });

  it(`reads aliases that add exactly ${MAX_ALIAS_NODES.toLocaleString("en-US")} values, and refuses one more`, () => {
    // A list of 999 values and itself is 1,000 values: each alias to it adds 999 (itself stands for one).
    const values = Array.from({ length: 999 }, () => "0").join(",");
    const aliases = (n: number) => Array.from({ length: n }, () => "*a").join(",");
    // 1,001 aliases add 999,999 values; one alias to a list of one value adds one more.
    const text = (extra: string) => `a: &a [${values}]\nb: [${aliases(1001)}]\nc: &c [0]\nd: [*c${extra}]\n`;
    expect(MAX_ALIAS_NODES).toBe(1_001 * 999 + 1);
    const atLimit = parse(text(""));
    expect(atLimit.errors).toEqual([]);
    expect((atLimit.parsed.documents[0]!.value as { b: unknown[] }).b).toHaveLength(1001);
    const past = parse(text(",*c"));
    expect(past.errors).toHaveLength(1);
    expect(past.errors[0]!.message).toMatch(
      /^\*c stands for 2 values, and with it aliases add more than 1,000,000/,
    );
    expect(past.parsed.documents).toEqual([]);
  });

  it("takes a job timeout from 10 minutes up to, not including, a month", () => {
    const check = FORMAT_CHECKS["job-timeout"]!;
    const { min, maxExclusive } = JOB_TIMEOUT_SECONDS;
    expect(check(`${min - 1}`)).toMatch(/is 599 seconds: a job timeout is from 10 minutes to under a month/);
    expect(check(`${min}`)).toBeUndefined();
    expect(check("10 minutes")).toBeUndefined();
    expect(check(`${maxExclusive - 1}`)).toBeUndefined();
    expect(check(`${maxExclusive}`)).toMatch(/is 2629746 seconds/);
  });
});
