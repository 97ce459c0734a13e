/**
 * The outline scanner against a parse, as a property: the same manifests written in the many ways YAML allows
 * (quoted and escaped keys, any indentation, compact and indented lists, flow lists over several lines, values on
 * the next line, block scalars and multi-line quoted strings whose lines look like keys, comments, CRLF, a byte
 * order mark, an indented root, document markers). Wherever the scanner outlines a file rather than giving up, it
 * must know what a parse knows: the same file kind, templates, entries and `state: absent`, and at least the
 * templates the entries use (naming one too many only reads a file more). A file it reads wrongly is silently
 * left out of a shard, a pull request's plan or a plan in chunks. And a file read in part (keepEntries) must parse
 * to the same entries as the whole file with the others left out.
 */
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  entryId,
  keepEntries,
  type Outline,
  outlineOf,
  outlineOfValues,
} from "../../src/manifest/outline.js";
import { fc } from "../property.js";

/**
 * The spelling's choices, drawn through fast-check as they are needed, evenly (fc.noBias: the odds written below
 * are the odds). Not shrunk (fc.noShrink): shrinking a long run of choices costs more than it tells, and a failure
 * prints the text it failed on.
 */
class Draw {
  constructor(private readonly g: fc.GeneratorValue) {}
  /** An integer from 0 to max. */
  nat(max: number): number {
    return this.g(() => fc.noBias(fc.nat({ max })));
  }
  int(min: number, max: number): number {
    return this.g(() => fc.noBias(fc.integer({ min, max })));
  }
  shuffle<T>(xs: readonly T[]): T[] {
    return this.g(() =>
      fc.noBias(fc.shuffledSubarray([...xs], { minLength: xs.length, maxLength: xs.length })),
    );
  }
  /** Up to max of xs, in any order. */
  subset<T>(xs: readonly T[], max: number): T[] {
    return this.g(() => fc.noBias(fc.shuffledSubarray([...xs], { maxLength: Math.min(max, xs.length) })));
  }
}

const TEMPLATES = ["t1", "t2", "t3"];
const GROUPS = ["a", "a/g", "ab", "b"];
const PROJECTS = ["a/p", "a/*", "ab/**", "b/q", "a/g/p"];
/** Text that looks like what the scanner looks for, inside values it must not read. */
const TRICKY = ["state: absent", "extends: [t3]", "- t3", "x: |", "a # b", "[t3]", "extends:", "'q' \"q\""];

interface Line {
  indent: number;
  text: string;
  /** A comment or a blank line may follow (not inside a block scalar or a multi-line string). */
  open: boolean;
}

const pick = <T>(g: Draw, xs: readonly T[]): T => xs[g.nat(xs.length - 1)]!;
const chance = (g: Draw, percent: number) => g.nat(99) < percent;
const subset = (g: Draw, xs: readonly string[], max: number) => g.subset(xs, max);

/** A key as written: plain, single- or double-quoted, or double-quoted with an escaped first letter. */
function keyText(g: Draw, key: string): string {
  switch (g.nat(4)) {
    case 1:
      return `'${key}'`;
    case 2:
      return `"${key}"`;
    case 3:
      return /^[a-z]/.test(key) ? `"\\u00${key.charCodeAt(0).toString(16)}${key.slice(1)}"` : `"${key}"`;
    default:
      return key;
  }
}

/** A short name (a template's) as a value. */
function nameText(g: Draw, name: string): string {
  return pick(g, [name, `'${name}'`, `"${name}"`]);
}

const comment = (g: Draw) => (chance(g, 20) ? " # note: state: absent, extends: [t3]" : "");

/** `key:` and a mapping below it (its lines at indent + step). */
function mapping(g: Draw, indent: number, key: string, body: (indent: number) => Line[]): Line[] {
  const step = g.int(1, 4);
  return [{ indent, text: `${keyText(g, key)}:${comment(g)}`, open: true }, ...body(indent + step)];
}

function extendsLines(g: Draw, indent: number, names: string[]): Line[] {
  const key = keyText(g, "extends");
  const flow = () => `[${names.map((n) => nameText(g, n)).join(", ")}]`;
  // Mostly spellings the scanner reads (on one line, a block list); now and then one only a parse reads.
  const r = g.nat(19);
  switch (r < 10 ? 0 : r < 16 ? 1 : r === 16 ? 2 : r === 17 ? 3 : r === 18 && names.length === 1 ? 5 : 0) {
    case 1: {
      // A block list, compact (at the key's indentation) or indented, with comments and blank lines in it.
      const at = indent + g.int(0, 3);
      return [
        { indent, text: `${key}:${comment(g)}`, open: true },
        ...names.flatMap((n) =>
          // A name that goes on on the next line now and then (`t1 more`).
          chance(g, 5)
            ? [
                { indent: at, text: `- ${n}`, open: false },
                { indent: at + g.int(2, 3), text: "more", open: true },
              ]
            : [{ indent: at, text: `- ${nameText(g, n)}${comment(g)}`, open: true }],
        ),
      ];
    }
    case 2:
      // A flow list on the next line.
      return [
        { indent, text: `${key}:`, open: true },
        { indent: indent + g.int(1, 3), text: flow(), open: true },
      ];
    case 3: {
      // A flow list over several lines.
      if (names.length === 0) return [{ indent, text: `${key}: []`, open: true }];
      const lines: Line[] = [{ indent, text: `${key}: [${nameText(g, names[0]!)},`, open: false }];
      names.slice(1).forEach((n, i) => {
        const last = i === names.length - 2;
        lines.push({ indent: indent + 2, text: `${nameText(g, n)}${last ? "]" : ","}`, open: last });
      });
      if (names.length === 1) lines[0] = { indent, text: `${key}: [${nameText(g, names[0]!)},]`, open: true };
      return lines;
    }
    case 5:
      // One name on the next line (a string, not a list: the schema refuses it, a parse reads it).
      return [
        { indent, text: `${key}:`, open: true },
        { indent: indent + g.int(1, 3), text: nameText(g, names[0]!), open: true },
      ];
    default:
      if (names.length === 1 && chance(g, 5))
        return [
          { indent, text: `${key}: ${names[0]}`, open: false },
          { indent: indent + g.int(1, 3), text: "more", open: true },
        ];
      return [{ indent, text: `${key}: ${flow()}${comment(g)}`, open: true }];
  }
}

function stateLines(g: Draw, indent: number, state: string): Line[] {
  const key = keyText(g, "state");
  if (chance(g, 5))
    return [
      { indent, text: `${key}:`, open: true },
      { indent: indent + g.int(1, 3), text: nameText(g, state), open: true },
    ];
  // A plain value that goes on on the next line: `absent later`.
  if (chance(g, 5))
    return [
      { indent, text: `${key}: ${state}`, open: false },
      { indent: indent + g.int(1, 3), text: "later", open: true },
    ];
  return [{ indent, text: `${key}: ${nameText(g, state)}${comment(g)}`, open: true }];
}

/** A string value whose text holds lines that look like keys, in one of YAML's scalar styles. */
function textLines(g: Draw, indent: number, key: string): Line[] {
  const content = [pick(g, TRICKY), pick(g, TRICKY)];
  const k = keyText(g, key);
  const deeper = indent + g.int(1, 3);
  // Block scalars twice as often as each other style, and half of them keeping their final line breaks.
  switch (g.nat(5)) {
    case 5:
    case 1: {
      const header = pick(g, [
        "|",
        "|-",
        ">",
        "|2",
        "!!str |",
        "!!str >-",
        ">+",
        "|+",
        "|+",
        "|2+",
        "|+",
        ">+",
      ]);
      const at = /\d/.test(header) ? indent + 2 : deeper;
      const lines: Line[] = [{ indent, text: `${k}: ${header}${comment(g)}`, open: false }];
      content.forEach((c, i) => {
        // The first line sets the scalar's indentation; a later one may be deeper.
        lines.push({ indent: at + (i > 0 && chance(g, 30) ? 2 : 0), text: c, open: false });
        if (chance(g, 20)) lines.push({ indent: 0, text: "", open: false });
      });
      lines[lines.length - 1]!.open = true;
      return lines;
    }
    case 2:
      // A double-quoted string over several lines.
      return [
        { indent, text: `${k}: "${content[0]!.replaceAll('"', '\\"')}`, open: false },
        { indent: deeper, text: `${content[1]!.replaceAll('"', '\\"')}"`, open: true },
      ];
    case 3:
      return [
        { indent, text: `${k}: '${content[0]!.replaceAll("'", "''")}`, open: false },
        { indent: deeper, text: `${content[1]!.replaceAll("'", "''")}'`, open: true },
      ];
    default:
      return [{ indent, text: `${k}: ${JSON.stringify(content.join(" "))}${comment(g)}`, open: true }];
  }
}

/** A list of labels, compact or indented, whose items hold `state` and block scalars of their own. */
function labelLines(g: Draw, indent: number): Line[] {
  const at = indent + g.int(0, 2);
  const lines: Line[] = [{ indent, text: "labels:", open: true }];
  for (const name of ["x", "y"].slice(0, g.int(1, 2))) {
    lines.push({ indent: at, text: `- name: ${name}`, open: true });
    if (chance(g, 50)) lines.push(...stateLines(g, at + 2, "absent"));
    if (chance(g, 50)) lines.push(...textLines(g, at + 2, "description"));
  }
  return lines;
}

interface Body {
  extends: string[];
  state?: "absent" | "present";
  text: boolean;
  labels: boolean;
}

function bodyLines(g: Draw, indent: number, body: Body): Line[] {
  const parts: Line[][] = [];
  if (body.text) parts.push(textLines(g, indent, "description"));
  if (body.extends.length > 0 || chance(g, 10)) parts.push(extendsLines(g, indent, body.extends));
  if (body.state) parts.push(stateLines(g, indent, body.state));
  if (body.labels) parts.push(labelLines(g, indent));
  if (parts.length === 0) parts.push([{ indent, text: "description: d", open: true }]);
  // The keys in any order.
  const order = g.shuffle(parts);
  return order.flat();
}

/** An entry in flow style: on its line, or over two. */
function flowLines(g: Draw, indent: number, key: string, body: Body): Line[] {
  const parts = [`description: ${JSON.stringify(pick(g, TRICKY))}`];
  if (body.extends.length > 0) parts.push(`extends: [${body.extends.join(", ")}]`);
  if (body.state) parts.push(`state: ${body.state}`);
  const head = `${keyText(g, key)}: {`;
  if (parts.length === 1 || chance(g, 50))
    return [{ indent, text: `${head}${parts.join(", ")}}`, open: true }];
  return [
    { indent, text: `${head}${parts[0]},`, open: false },
    { indent: indent + g.int(1, 3), text: `${parts.slice(1).join(", ")}}`, open: true },
  ];
}

const bodyOf = (g: Draw, withState: boolean): Body => ({
  extends: subset(g, TEMPLATES, 2),
  ...(withState && chance(g, 40) ? { state: pick(g, ["absent", "present"] as const) } : {}),
  text: chance(g, 60),
  labels: chance(g, 30),
});

interface Written {
  text: string;
  /** The entries by collection:key, lower-cased as entryId gives them. */
  entries: string[];
}

/** A manifest in one random spelling. */
function write(g: Draw): Written {
  const sections: Line[][] = [];
  const entries: string[] = [];
  const templates = subset(g, TEMPLATES, 2);
  if (templates.length > 0)
    sections.push(
      mapping(g, 0, "templates", (i) =>
        templates.flatMap((t) => mapping(g, i, t, (j) => bodyLines(g, j, bodyOf(g, false)))),
      ),
    );
  for (const [collection, keys] of [
    ["groups", GROUPS],
    ["projects", PROJECTS],
  ] as const) {
    const mine = subset(g, keys, 3);
    if (mine.length === 0) continue;
    sections.push(
      mapping(g, 0, collection, (i) =>
        mine.flatMap((key) => {
          entries.push(entryId(collection, key));
          const body = bodyOf(g, true);
          if (chance(g, 10)) return flowLines(g, i, key, body);
          return mapping(g, i, key, (j) => bodyLines(g, j, body));
        }),
      ),
    );
  }
  if (chance(g, 30))
    sections.push(
      mapping(g, 0, "instance", (i) => [
        ...mapping(g, i, "application_settings", (j) => textLines(g, j, "after_sign_up_text")),
      ]),
    );
  sections.push([{ indent: 0, text: `${keyText(g, "version")}: 1${comment(g)}`, open: true }]);
  const ordered = g.shuffle(sections);
  const root = chance(g, 5) ? g.int(1, 2) : 0;
  const lines: string[] = [];
  if (chance(g, 10)) lines.push("---");
  for (const line of ordered.flat()) {
    lines.push(line.text === "" ? "" : `${" ".repeat(root + line.indent)}${line.text}`);
    if (line.open && chance(g, 10)) lines.push(chance(g, 50) ? "" : `${" ".repeat(g.nat(6))}# extends: [t3]`);
  }
  if (chance(g, 10)) lines.push("...");
  // Now and then a second document: only a parse reads several.
  if (chance(g, 3))
    lines.push(...(lines.at(-1) === "..." ? [] : ["---"]), "version: 1", "groups:", "  z: {}");
  const eol = chance(g, 15) ? "\r\n" : "\n";
  const text = (root === 0 && chance(g, 10) ? "\uFEFF" : "") + lines.join(eol) + (chance(g, 90) ? eol : "");
  return { text, entries };
}

function parsed(text: string): { values: unknown[]; errors: string[] } {
  const docs = parseAllDocuments(text);
  return {
    values: docs.map((d) => d.toJS()),
    errors: docs.flatMap((d) => d.errors.map((e) => e.message)),
  };
}

const known = (o: Outline) => ({
  manifest: o.manifest,
  instance: o.instance,
  templates: [...o.templates].sort(),
  entries: o.entries.map((e) => `${e.collection}:${e.key}${e.absent ? " (absent)" : ""}`).sort(),
});

describe("the outline scanner, against a parse of the same manifest however it is written", () => {
  it("knows what the parse knows wherever it does not give up", () => {
    let scanned = 0;
    let runs = 0;
    fc.assert(
      fc.property(fc.noShrink(fc.gen()), (draw) => {
        const g = new Draw(draw);
        const { text } = write(g);
        const parse = parsed(text);
        // The spelling is valid YAML: the property says nothing of files a parse refuses.
        expect(parse.errors, text).toEqual([]);
        const truth = outlineOfValues(parse.values, text);
        runs += 1;
        const outline = outlineOf(text);
        if (!outline) return;
        scanned += 1;
        expect(known(outline), text).toEqual(known(truth));
        // Every template a parse sees used is used in the outline too (by the file, by each entry, by its
        // templates); one more only makes a selection read more.
        expect(outline.uses, text).toEqual(expect.arrayContaining(truth.uses));
        expect(outline.headUses ?? outline.uses, text).toEqual(expect.arrayContaining(truth.headUses ?? []));
        const usesOf = (o: Outline) =>
          new Map(o.entries.map((e) => [`${e.collection}:${e.key}`, e.uses ?? o.uses]));
        const mine = usesOf(outline);
        for (const [key, uses] of usesOf(truth))
          expect(mine.get(key), `${key} in\n${text}`).toEqual(expect.arrayContaining([...uses]));
      }),
    );
    // Many spellings are ones the scanner reads (about 40%): the property is about the scanner, not its giving up.
    expect(scanned).toBeGreaterThan(runs / 4);
  });

  it("a file read in part parses to its kept entries, each on its own lines", () => {
    fc.assert(
      fc.property(fc.noShrink(fc.gen()), (draw) => {
        const g = new Draw(draw);
        const { text, entries } = write(g);
        const keep = new Set(g.subset(entries, entries.length));
        const outline = outlineOf(text);
        const kept = keepEntries(text, keep, outline);
        if (kept === undefined) return;
        // Lines are kept as they are or made comments: every position in a message is the file's.
        const before = text.split("\n");
        const after = kept.split("\n");
        expect(after.length).toBe(before.length);
        after.forEach((line, i) => {
          if (line !== before[i]) expect(line, `line ${i + 1}`).toMatch(/^#?\r?$/);
        });
        const whole = parsed(text).values;
        const part = parsed(kept);
        expect(part.errors, kept).toEqual([]);
        const expected = whole.map((doc) => {
          if (!doc || typeof doc !== "object") return doc;
          const out: Record<string, unknown> = {};
          for (const [section, value] of Object.entries(doc)) {
            if ((section === "groups" || section === "projects") && value && typeof value === "object") {
              const left = Object.entries(value).filter(([key]) => keep.has(entryId(section, key)));
              if (left.length > 0) out[section] = Object.fromEntries(left);
            } else out[section] = value;
          }
          return out;
        });
        expect(part.values, `${text}\n---- kept ----\n${kept}`).toEqual(expected);
      }),
    );
  });
});
