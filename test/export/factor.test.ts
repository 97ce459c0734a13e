// biome-ignore-all lint/suspicious/noTemplateCurlyInString: entries hold reference syntax as export writes it
import { describe, expect, it } from "vitest";
import { factorEntries } from "../../src/export/factor.js";
import type { FieldSpec } from "../../src/kinds/fields.js";

function spec(name: string, more: Partial<FieldSpec> = {}): [string, FieldSpec] {
  return [
    name,
    {
      name,
      required: false,
      sensitive: false,
      liveSensitive: false,
      writeOnly: false,
      replace: false,
      set: false,
      restart: false,
      licensed: false,
      requires: [],
      child: false,
      local: false,
      updateOnly: false,
      detailOnly: false,
      ...more,
    },
  ];
}

const SPECS = new Map([
  spec("description"),
  spec("merge_method", { default: "merge" }),
  spec("topics", { set: true, default: [] }),
  spec("ci_config_path"),
  spec("badges", { child: true }),
]);

type Body = Record<string, unknown>;

/** Entries with the defaults each left out (every field with a default, where the entry does not set it). */
function factor(entries: Record<string, Body>, specs = SPECS) {
  const defaults = new WeakMap<object, Map<string, unknown>>();
  for (const body of Object.values(entries)) {
    const left = new Map<string, unknown>();
    for (const [name, s] of specs)
      if (s.default !== undefined && body[name] === undefined) left.set(name, s.default);
    defaults.set(body, left);
  }
  const result = factorEntries({
    entries: new Map(Object.entries(entries)),
    defaults: (e) => defaults.get(e),
    specs,
  });
  return { pattern: result.pattern, entries: Object.fromEntries(result.entries) };
}

describe("export --factor: what goes into the pattern", () => {
  it("a value most entries have goes into the pattern; the others keep theirs or say the default", () => {
    const { pattern, entries } = factor({
      "g/a": { merge_method: "ff" },
      "g/b": { merge_method: "ff" },
      "g/c": { merge_method: "rebase_merge" },
      "g/d": { merge_method: "ff" },
      "g/e": {},
    });
    expect(pattern).toEqual({ merge_method: "ff" });
    expect(entries).toEqual({
      "g/a": {},
      "g/b": {},
      "g/c": { merge_method: "rebase_merge" },
      "g/d": {},
      "g/e": { merge_method: "merge" },
    });
  });

  it("exactly half is not most: nothing moves; one more than half does", () => {
    const half = factor({ a: { merge_method: "ff" }, b: { merge_method: "ff" }, c: {}, d: {} });
    expect(half.pattern).toEqual({});
    expect(half.entries["c"]).toEqual({});
    const more = factor({ a: { merge_method: "ff" }, b: { merge_method: "ff" }, c: {} });
    expect(more.pattern).toEqual({ merge_method: "ff" });
    expect(more.entries["c"]).toEqual({ merge_method: "merge" });
  });

  it("one entry, or none, is not factored", () => {
    expect(factor({ a: { merge_method: "ff" } }).pattern).toEqual({});
    expect(factor({}).pattern).toEqual({});
  });

  it("a field an entry left out without a known default stays with each entry", () => {
    // ci_config_path has no default: an entry without it cannot say what it has instead.
    const { pattern, entries } = factor({
      a: { ci_config_path: "ci.yml" },
      b: { ci_config_path: "ci.yml" },
      c: {},
    });
    expect(pattern).toEqual({});
    expect(entries["a"]).toEqual({ ci_config_path: "ci.yml" });
  });

  it("names and descriptions belong to one object, and references are named after one", () => {
    const { pattern } = factor({
      a: { description: "same", merge_method: "${env:A_METHOD}" },
      b: { description: "same", merge_method: "${env:B_METHOD}" },
      c: { description: "same", merge_method: "${env:C_METHOD}" },
    });
    expect(pattern).toEqual({});
  });

  it("a set compares without order", () => {
    const { pattern, entries } = factor({
      a: { topics: ["x", "y"] },
      b: { topics: ["y", "x"] },
      c: { topics: ["z"] },
    });
    expect(pattern).toEqual({ topics: ["x", "y"] });
    expect(entries).toEqual({ a: {}, b: {}, c: { topics: ["z"] } });
  });

  it("an item goes into the pattern only when every entry has it exactly so", () => {
    const badge = { name: "ci", link_url: "https://ci/%{project_path}", image_url: "https://ci/b.svg" };
    const other = { name: "docs", link_url: "https://docs", image_url: "https://docs/b.svg" };
    const { pattern } = factor({
      a: { badges: [badge, other] },
      b: { badges: [{ ...badge }] },
      c: { badges: [{ ...badge, image_url: "https://ci/c.svg" }] },
    });
    // c's badge of that name differs: nothing is shared by all three.
    expect(pattern).toEqual({});
    const all = factor({
      a: { badges: [badge, other] },
      b: { badges: [{ ...badge }] },
      c: { badges: [badge] },
    });
    expect(all.pattern).toEqual({ badges: [badge] });
    expect(all.entries).toEqual({ a: { badges: [other] }, b: {}, c: {} });
  });

  it("leaves the entries it was given as they were", () => {
    const a = { merge_method: "ff" };
    const b = { merge_method: "ff" };
    factor({ a, b });
    expect(a).toEqual({ merge_method: "ff" });
  });

  it("the most common value wins, wherever it first appears", () => {
    const { pattern, entries } = factor({
      a: { merge_method: "rebase_merge" },
      b: { merge_method: "ff" },
      c: { merge_method: "ff" },
      d: { merge_method: "ff" },
    });
    expect(pattern).toEqual({ merge_method: "ff" });
    expect(entries).toEqual({ a: { merge_method: "rebase_merge" }, b: {}, c: {}, d: {} });
  });

  it("two entries that agree are factored; a value only one entry has is not", () => {
    expect(factor({ a: { merge_method: "ff" }, b: { merge_method: "ff" } }).pattern).toEqual({
      merge_method: "ff",
    });
    // Three entries, one value each: no value is held by two.
    expect(
      factor({
        a: { merge_method: "ff" },
        b: { merge_method: "rebase_merge" },
        c: { merge_method: "merge" },
      }).pattern,
    ).toEqual({});
  });

  it("a set with other members, or more of them, is another value", () => {
    const members = factor({
      a: { topics: ["x", "c"] },
      b: { topics: ["x", "b"] },
      c: { topics: ["b", "x"] },
    });
    expect(members.pattern).toEqual({ topics: ["x", "b"] });
    expect(members.entries["a"]).toEqual({ topics: ["x", "c"] });
    const more = factor({
      a: { topics: ["x"] },
      b: { topics: ["x", "y"] },
      c: { topics: ["x", "y"] },
    });
    expect(more.pattern).toEqual({ topics: ["x", "y"] });
    expect(more.entries["a"]).toEqual({ topics: ["x"] });
  });

  it("a reference is never shared, even one every entry names alike, in a field or in an item", () => {
    const badge = { name: "ci", link_url: "https://ci/?key=${env:CI_KEY}", image_url: "https://ci/b.svg" };
    const { pattern, entries } = factor({
      a: { ci_config_path: "${env:CI_PATH}", badges: [badge] },
      b: { ci_config_path: "${env:CI_PATH}", badges: [badge] },
      c: { ci_config_path: "${env:CI_PATH}", badges: [badge] },
    });
    expect(pattern).toEqual({});
    expect(entries["a"]).toEqual({ ci_config_path: "${env:CI_PATH}", badges: [badge] });
  });

  it("writes the pattern's fields in the schema's order, and only those it holds", () => {
    const { pattern } = factor({
      a: { topics: ["t"], merge_method: "ff" },
      b: { topics: ["t"], merge_method: "ff" },
      c: { topics: ["t"], merge_method: "ff" },
    });
    expect(Object.keys(pattern)).toEqual(["merge_method", "topics"]);
  });
});
