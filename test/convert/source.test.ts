/** Sources read with the place of every key and value, as each tool's YAML reader reads them. */
import { describe, expect, it } from "vitest";
import { child, plain, readSource, SourceError } from "../../src/convert/source.js";

describe("reading a source", () => {
  it("places each key and value at its line and column", () => {
    const root = readSource("c.yml", "a:\n  b: 1\n  list:\n    - x\n", { version: "1.2" });
    expect(root.kind).toBe("map");
    const a = root.kind === "map" ? root.entries[0]! : undefined;
    expect(a?.keyAt).toMatchObject({ file: "c.yml", line: 1, col: 1 });
    const b = child(a?.value, "b");
    expect(b?.at).toMatchObject({ line: 2, col: 6 });
    const list = child(a?.value, "list");
    expect(list?.kind === "seq" ? list.items[0]!.at : undefined).toMatchObject({ line: 4, col: 7 });
  });

  it("reads YAML 1.1 as PyYAML does (yes is true, dates keep their text), 1.2 as ruamel.yaml does", () => {
    const text = "on: yes\nday: 2027-01-02\n";
    expect(plain(readSource("a.yml", text, { version: "1.1" }))).toEqual({ true: true, day: "2027-01-02" });
    expect(plain(readSource("a.yml", text, { version: "1.2" }))).toEqual({ on: "yes", day: "2027-01-02" });
    // A %YAML directive wins over the tool's default.
    expect(plain(readSource("a.yml", `%YAML 1.1\n---\nx: on\n`, { version: "1.2" }))).toEqual({ x: true });
  });

  it("expands aliases and YAML 1.1 merge keys, the map's own keys winning", () => {
    const text = "base: &b {p: 1, q: 2}\nuse:\n  <<: *b\n  q: 3\ncopy: *b\n";
    expect(plain(readSource("a.yml", text, { version: "1.1" }))).toEqual({
      base: { p: 1, q: 2 },
      use: { q: 3, p: 1 },
      copy: { p: 1, q: 2 },
    });
  });

  it("gives JSON values their pointer as well as their line", () => {
    const root = readSource("s.json", '{"values": {"a/b": [1, {"c~d": true}]}}', {
      version: "1.2",
      pointers: true,
    });
    const list = child(child(root, "values"), "a/b");
    const item = list?.kind === "seq" ? list.items[1] : undefined;
    expect(child(item, "c~d")?.at).toMatchObject({ line: 1, pointer: "/values/a~1b/1/c~0d" });
  });

  it("refuses what the tool would refuse, saying where: a syntax error, a duplicate key", () => {
    expect(() => readSource("bad.yml", "a: [1, 2\n", { version: "1.2" })).toThrow(SourceError);
    expect(() => readSource("dup.yml", "a: 1\nb: 2\na: 3\n", { version: "1.2" })).toThrow(/^dup\.yml:3:1: /);
  });

  it("refuses a file that expands to millions of values through aliases, instead of expanding it", () => {
    const lines = ['a0: &a0 ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++)
      lines.push(
        `a${i}: &a${i} [${Array(10)
          .fill(`*a${i - 1}`)
          .join(",")}]`,
      );
    expect(() => readSource("lol.yml", lines.join("\n"), { version: "1.2" })).toThrow(/through aliases/);
  });

  it("reads a file that expands to exactly 1,000,000 values, and refuses one more", () => {
    const zeros = (n: number) => Array.from({ length: n }, () => "0").join(",");
    // The root map (1), a and its list of 999 (1 + 1,000), b and its list of 998 aliases to a (1 + 1 + 998,000),
    // c and its list of k values (1 + 1 + k): 1,000,000 with k = 994.
    const text = (k: number) =>
      `a: &a [${zeros(999)}]\nb: [${Array.from({ length: 998 }, () => "*a").join(",")}]\nc: [${zeros(k)}]\n`;
    expect(() => readSource("s.yml", text(994), { version: "1.2" })).not.toThrow();
    expect(() => readSource("s.yml", text(995), { version: "1.2" })).toThrow(
      "the file expands to more than 1000000 values through aliases",
    );
  });
});
