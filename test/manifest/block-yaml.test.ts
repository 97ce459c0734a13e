/**
 * The quick reader of plain block-style YAML (src/manifest/block-yaml.ts) against the YAML library's parse: on every
 * text it reads, the same values and the same positions (of every map, list, key and value, with the scalar as
 * written where YAML read it as something else); on every text it does not read, it gives up and the library reads
 * it, with its messages.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeForgeformManifests } from "../../bench/artifacts.js";
import { BASE_SHAPE, buildState, KINDS, scaleShape } from "../../bench/state.js";
import { KeptStrings, parseBlockYaml } from "../../src/manifest/block-yaml.js";
import { Diagnostics } from "../../src/manifest/diagnostics.js";
import { getMeta, type Loc } from "../../src/manifest/located.js";
import { MAX_DEPTH, parseWithLibrary, parseYaml } from "../../src/manifest/yaml.js";
import { fc } from "../property.js";

/** A value with every position inside it, in a form toEqual compares exactly (NaN, -0 and undefined kept). */
function described(value: unknown): unknown {
  if (typeof value === "number") return { number: Object.is(value, -0) ? "-0" : String(value) };
  if (value === null || typeof value !== "object") return value;
  const meta = getMeta(value);
  const at = (l: Loc | undefined) => l && { ...l };
  if (Array.isArray(value))
    return {
      self: at(meta?.self),
      items: value.map((v, i) => ({ at: at(meta?.values.get(String(i))), value: described(v) })),
    };
  return {
    self: at(meta?.self),
    proto: Object.getPrototypeOf(value) === Object.prototype,
    entries: Object.keys(value).map((k) => ({
      key: k,
      keyAt: at(meta?.keys.get(k)),
      valueAt: at(meta?.values.get(k)),
      value: described((value as Record<string, unknown>)[k]),
    })),
  };
}

const quick = (text: string) => parseBlockYaml("m.yaml", text, new KeptStrings(), MAX_DEPTH);

/** The library's reading of `text`: its one document, or undefined when it reports anything. */
function library(text: string) {
  const diags = new Diagnostics();
  const parsed = parseWithLibrary("m.yaml", text, diags);
  if (diags.sorted(["m.yaml"]).length > 0 || !parsed.complete || parsed.documents.length !== 1)
    return undefined;
  const [doc] = parsed.documents;
  return { value: doc!.value, loc: doc!.loc };
}

/** Whether the quick reader read `text`; when it did, the library read it the same, without a message. */
function agrees(text: string): boolean {
  const mine = quick(text);
  if (mine === undefined) return false;
  const theirs = library(text);
  expect(theirs, `the library reports something on a text the quick reader read:\n${text}`).toBeDefined();
  expect({ loc: mine.loc, value: described(mine.value) }).toEqual({
    loc: theirs!.loc,
    value: described(theirs!.value),
  });
  return true;
}

describe("the quick block-style reader", () => {
  it("reads the benchmark's manifests, by path and through patterns, as the library does", () => {
    const dir = mkdtempSync(join(tmpdir(), "block-yaml-"));
    try {
      const state = buildState(scaleShape(BASE_SHAPE, 1), "changed");
      const kinds = new Set(KINDS);
      const dirs = [
        writeForgeformManifests(state, kinds, join(dir, "paths")),
        writeForgeformManifests(state, kinds, join(dir, "patterns"), {
          by: "patterns",
          policy: state.projects[0]!,
        }),
      ];
      let files = 0;
      for (const d of dirs)
        for (const name of readdirSync(d)) {
          files++;
          expect(agrees(readFileSync(join(d, name), "utf8")), name).toBe(true);
        }
      expect(files).toBeGreaterThan(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads scalars as YAML 1.2's core schema does, and keeps how they were written where that differs", () => {
    const values = [
      "~",
      "null",
      "Null",
      "NULL",
      "true",
      "True",
      "FALSE",
      "yes",
      "on",
      "0123",
      "-12",
      "+3",
      "0o17",
      "0x1F",
      "0X1F",
      "1.0",
      "1.50",
      ".5",
      "1e3",
      "-1.5E-2",
      ".inf",
      "-.Inf",
      "+.INF",
      ".nan",
      ".NaN",
      "1_000",
      "2024-01-01",
      "99999999999999999999999",
      "-0",
      "a:b",
      "a#b",
      "-x",
      ":x",
      "x-",
      "http://h/p?q=1#f",
      "0 2 * * *",
      "'quoted'",
      "'it''s'",
      "''",
      '"double"',
      '""',
      '"a # b"',
      "'a: b'",
      "é ü 中",
      "no\u00a0break",
      "a,b]c}",
      "x".repeat(13),
      "y".repeat(250),
    ];
    let read = 0;
    for (const v of values) {
      if (agrees(`version: 1\nk: ${v}\nlist:\n  - ${v}\n  - ${v} # note\n${v}: key\n`)) read++;
    }
    expect(read).toBe(values.length);
  });

  it("reads comments, blank lines and nested maps and lists at any indentation as the library does", () => {
    const texts = [
      "# head\n\nversion: 1 # v\n# between\ngroups:\n  # before the first key\n  acme:\n\n    description: x\n    # trailing\n",
      "version: 1\nprojects:\n    acme/app:\n        badges:\n          -   name: a\n              link_url: u\n          - name: b\n",
      "a:\n  - x\n  - y: 1\n    z:\n      - 1\n      -    2\n  - 'q'\nb: 2\n",
      "a: # a comment where the value would be\n  b: 1\n",
      "a:\n  b:\n    c:\n      d: deep\n  e: back\nf: out\n",
      "'quoted key': 1\n\"dq key\": 2\n'it''s': 3\n__proto__: 4\nconstructor: 5\n1: one\ntrue: yes\n~: nothing\n",
      "a: 1\n   # a comment further in\nb: 2\n",
      "list:\n- not read: a list at the key's own indentation is left to the library\n",
      "x: 1",
      "x: 1\n\n\n",
    ];
    const read = texts.filter((t) => agrees(t));
    // All but the list at its key's indentation.
    expect(read.length).toBe(texts.length - 1);
  });

  it("gives up on what it does not read, and the library reads it with its messages", () => {
    const left = [
      "a: [1, 2]\n",
      "a: {b: 1}\n",
      "a: &x 1\nb: *x\n",
      "a: !!str 1\n",
      "a: |\n  text\n",
      "a: >\n  text\n",
      "a: one\n  two\n",
      "a:\nb: 1\n",
      "a: 1\na: 2\n",
      "<<: a\n",
      "---\na: 1\n",
      "a: 1\n---\nb: 2\n",
      "a:\n\tb: 1\n",
      "a: 1\r\nb: 2\r\n",
      "\ufeffa: 1\n",
      "a: line\u2028separator\n",
      'a: "tab\\there"\n',
      "a: 'open\n  close'\n",
      "a: b: c\n",
      "a: b:\n",
      "? a\n: b\n",
      "a : b\n",
      "- 1\n- 2\n",
      "  a: 1\n",
      "a:\n    b: 1\n  c: 2\n",
      "a:\n  - 1\n   - 2\n",
      "a:\n  -\n    b: 1\n",
      "a:\n  - - 1\n",
      "a: @x\n",
      "a: `x`\n",
      "a: %x\n",
      "a: -\n",
      "a: - b\n",
      '"a"b: 1\n',
      "a: 'x' y\n",
      "",
      "# only a comment\n",
      `${"a:\n".split("\n")[0]}\n${Array.from({ length: MAX_DEPTH + 1 }, (_, i) => `${" ".repeat(2 * (i + 1))}k${i}:`).join("\n")} 1\n`,
    ];
    for (const text of left) {
      expect(quick(text), JSON.stringify(text)).toBeUndefined();
      const a = new Diagnostics();
      const b = new Diagnostics();
      expect(parseYaml("m.yaml", text, a)).toEqual(parseWithLibrary("m.yaml", text, b));
      expect(a.sorted(["m.yaml"])).toEqual(b.sorted(["m.yaml"]));
    }
  });

  /** A tree of maps, lists and scalars, written in block style with varying indentation, quoting and comments. */
  const scalar = fc.oneof(
    fc.constantFrom("~", "true", "False", "0123", "0x1F", "1.0", ".inf", "1e3", "-3", "2024-01-01", "x y"),
    fc.stringMatching(/^[a-z][a-z0-9 _./:-]{0,20}$/),
    fc.stringMatching(/^[a-z0-9 ]{0,8}$/).map((s) => `'${s}'`),
    fc.stringMatching(/^[a-z0-9 #:]{0,8}$/).map((s) => `"${s}"`),
  );
  const keyText = fc.oneof(
    fc.stringMatching(/^[a-z][a-z0-9_/*-]{0,10}$/),
    fc.stringMatching(/^[a-z0-9*]{0,6}$/).map((s) => `"${s}"`),
    fc.constantFrom("1", "true", "~", "0o7"),
  );
  type Tree = string | { map: [string, Tree][] } | { list: Tree[] };
  const { tree } = fc.letrec<{ tree: Tree; map: Tree; list: Tree }>((tie) => ({
    tree: fc.oneof({ depthSize: "small", withCrossShrink: true }, scalar, tie("map"), tie("list")),
    map: fc
      .uniqueArray(fc.tuple(keyText, tie("tree")), { minLength: 1, maxLength: 4, selector: ([k]) => k })
      .map((map) => ({ map })),
    list: fc.array(tie("tree"), { minLength: 1, maxLength: 3 }).map((list) => ({ list })),
  }));
  const root = fc
    .uniqueArray(fc.tuple(keyText, tree), { minLength: 1, maxLength: 4, selector: ([k]) => k })
    .map((map) => ({ map }));

  /** `t` as lines; `notes` says, one after the other, where a comment goes. */
  function write(t: Tree, indent: number, step: number, notes: boolean[]): string[] {
    const pad = " ".repeat(indent);
    const note = () => (notes.shift() ? " # note" : "");
    if (typeof t === "string") return [`${t}${note()}`];
    if ("map" in t)
      return t.map.flatMap(([k, v]) =>
        typeof v === "string"
          ? [`${pad}${k}: ${v}${note()}`]
          : [
              `${pad}${k}:${note()}`,
              ...(notes.shift() ? [`${pad}  # inside`] : []),
              ...write(v, indent + step, step, notes),
            ],
      );
    return t.list.flatMap((item) => {
      if (typeof item === "string") return [`${pad}- ${item}${note()}`];
      if ("map" in item) {
        const [first, ...rest] = write(item, indent + 2, step, notes);
        return [`${pad}- ${first!.trimStart()}`, ...rest];
      }
      return [`${pad}-`, ...write(item, indent + step, step, notes)];
    });
  }
  const written = fc
    .tuple(root, fc.integer({ min: 1, max: 4 }), fc.array(fc.boolean(), { maxLength: 40 }))
    .map(([r, step, notes]) => write(r, 0, step, notes));

  it("agrees with the library on written trees (indentation, quoting and comments varied)", () => {
    let read = 0;
    fc.assert(
      fc.property(written, (lines) => {
        if (agrees(`${lines.join("\n")}\n`)) read++;
      }),
      { numRuns: 1000 },
    );
    expect(read).toBeGreaterThan(300);
  });

  /** Pieces near the edges of what the reader reads. */
  const piece = fc.constantFrom(
    "a",
    "1",
    "~",
    "'q'",
    "''",
    '"d"',
    '"a\\"b"',
    ":",
    ": ",
    " :",
    "a:b",
    " #c",
    "#",
    "-",
    "- ",
    " ",
    "  ",
    "&a ",
    "*a",
    "!t ",
    "[1]",
    "{a: 1}",
    "|",
    ">",
    "? ",
    "@",
    "\t",
    "\r",
    "---",
    "",
  );

  it("agrees with the library on written trees with pieces put in or cut out anywhere", () => {
    let read = 0;
    const edit = fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 3 }), piece);
    fc.assert(
      fc.property(written, fc.array(edit, { minLength: 1, maxLength: 3 }), (lines, edits) => {
        const out = [...lines];
        for (const [row, col, cut, p] of edits) {
          const i = row % out.length;
          const text = out[i]!;
          const at = col % (text.length + 1);
          out[i] = text.slice(0, at) + p + text.slice(at + cut);
        }
        if (agrees(`${out.join("\n")}\n`)) read++;
      }),
      { numRuns: 3000 },
    );
    expect(read).toBeGreaterThan(300);
  });
});
