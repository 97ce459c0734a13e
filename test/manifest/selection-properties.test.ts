/**
 * What a shard or a pull request's plan reads, as a property: over random manifest sets (templates that extend
 * templates, groups and projects that extend them, patterns, entries of several top-level groups in one file,
 * files only a parse can outline), everything a read entry needs is read too. A template an entry or a read
 * template extends is defined in a file that is read ("unknown template" otherwise), and a project entry that is
 * read comes with every pattern over it (its effective settings otherwise differ from a full plan's). A shard
 * reads every entry of its own top-level groups, and a change reads every entry it touches.
 */
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  entryId,
  type OutlinedFile,
  outlineOf,
  outlineOfValues,
  type Selection,
  shardEntries,
  touchedEntries,
} from "../../src/manifest/outline.js";
import { fc } from "../property.js";

const TEMPLATES = ["t1", "t2", "t3", "t4"];
/** Top-level groups that share characters, so that a prefix compared without its `/` shows. */
const TOPS = ["a", "ab", "b"];

interface Entry {
  collection: "groups" | "projects";
  key: string;
  extends: string[];
}
interface FileSpec {
  templates: { name: string; extends: string[] }[];
  entries: Entry[];
  /** Written with an anchor: the scanner gives up, the file is outlined from a parse and read whole. */
  parsed: boolean;
}

const uses = fc.uniqueArray(fc.constantFrom(...TEMPLATES), { maxLength: 2 });
const top = fc.constantFrom(...TOPS);
const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({
    collection: fc.constant("groups" as const),
    key: fc.oneof(
      top,
      fc.tuple(top, fc.constantFrom("g", "h")).map(([t, s]) => `${t}/${s}`),
    ),
    extends: uses,
  }),
  fc.record({
    collection: fc.constant("projects" as const),
    key: fc.oneof(
      fc.tuple(top, fc.constantFrom("p", "q")).map(([t, s]) => `${t}/${s}`),
      fc.tuple(top, fc.constantFrom("g", "h"), fc.constantFrom("p", "q")).map((s) => s.join("/")),
      fc.tuple(top, fc.constantFrom("*", "**")).map(([t, s]) => `${t}/${s}`),
      fc.tuple(top, fc.constantFrom("g"), fc.constantFrom("*", "**")).map((s) => s.join("/")),
    ),
    extends: uses,
  }),
);
const fileSpec: fc.Arbitrary<FileSpec> = fc.record({
  templates: fc.uniqueArray(fc.record({ name: fc.constantFrom(...TEMPLATES), extends: uses }), {
    maxLength: 2,
    selector: (t) => t.name,
  }),
  entries: fc.uniqueArray(entry, { maxLength: 4, selector: (e) => `${e.collection}:${e.key}` }),
  parsed: fc.boolean(),
});
/** Up to 5 files; a template or an entry is declared in one file only. */
const manifestSet = fc.array(fileSpec, { minLength: 1, maxLength: 5 }).map((files) => {
  const seen = new Set<string>();
  return files.map((f) => ({
    ...f,
    templates: f.templates.filter((t) => !seen.has(`t:${t.name}`) && seen.add(`t:${t.name}`)),
    entries: f.entries.filter(
      (e) => !seen.has(`${e.collection}:${e.key}`) && seen.add(`${e.collection}:${e.key}`),
    ),
  }));
});

function textOf(spec: FileSpec): string {
  const body = (ext: string[], anchor: string) =>
    `${anchor}\n    description: d${ext.length ? `\n    extends: [${ext.join(", ")}]` : ""}\n`;
  let text = "version: 1\n";
  if (spec.templates.length) {
    text += "templates:\n";
    for (const t of spec.templates) text += `  ${t.name}:${body(t.extends, "")}`;
  }
  for (const collection of ["groups", "projects"] as const) {
    const mine = spec.entries.filter((e) => e.collection === collection);
    if (!mine.length) continue;
    text += `${collection}:\n`;
    mine.forEach((e, i) => {
      text += `  "${e.key}":${body(e.extends, spec.parsed && i === 0 ? " &first" : "")}`;
    });
  }
  return text;
}

function outlined(specs: FileSpec[]): OutlinedFile[] {
  return specs.map((spec, i) => {
    const text = textOf(spec);
    const scanned = outlineOf(text);
    // The anchor is what makes the scanner give up: a file written without one is scanned.
    if (spec.parsed && spec.entries.length > 0) expect(scanned).toBeUndefined();
    const outline =
      scanned ??
      outlineOfValues(
        parseAllDocuments(text).map((d) => d.toJS()),
        text,
      );
    return { file: `f${i}.yaml`, outline };
  });
}

const isPattern = (key: string) => key.endsWith("/*") || key.endsWith("/**");
const rootOf = (key: string) => key.replace(/\/\*\*?$/, "");
const covers = (pattern: string, path: string) => {
  const root = rootOf(pattern);
  if (!path.startsWith(`${root}/`)) return false;
  return pattern.endsWith("/**") || !path.slice(root.length + 1).includes("/");
};

/** What a selection reads of `specs`: templates (by name) and entries (by collection:key). */
function readOf(specs: FileSpec[], selection: Selection) {
  const templates = new Set<string>();
  const entries: Entry[] = [];
  specs.forEach((spec, i) => {
    const file = `f${i}.yaml`;
    if (!selection.files.has(file)) return;
    for (const t of spec.templates) templates.add(t.name);
    const kept = selection.partial.get(file);
    for (const e of spec.entries) if (!kept || kept.has(entryId(e.collection, e.key))) entries.push(e);
  });
  return { templates, entries };
}

/** Everything read has what it needs read too. */
function checkClosed(specs: FileSpec[], selection: Selection): void {
  const read = readOf(specs, selection);
  const defined = new Set(specs.flatMap((s) => s.templates.map((t) => t.name)));
  const extendsOf = new Map(specs.flatMap((s) => s.templates.map((t) => [t.name, t.extends] as const)));
  const needed = [
    ...read.entries.flatMap((e) => e.extends),
    ...[...read.templates].flatMap((t) => extendsOf.get(t) ?? []),
  ];
  for (const t of needed) if (defined.has(t)) expect(read.templates, `template ${t}`).toContain(t);
  const readKeys = new Set(read.entries.map((e) => `${e.collection}:${e.key}`));
  const patterns = specs.flatMap((s) => s.entries).filter((e) => isPattern(e.key));
  for (const e of read.entries) {
    if (e.collection !== "projects" || isPattern(e.key)) continue;
    for (const p of patterns)
      if (covers(p.key, e.key)) expect(readKeys, `${p.key} over ${e.key}`).toContain(`projects:${p.key}`);
  }
}

describe("what a shard or a change reads", () => {
  it("a shard reads its own entries and everything they and the others it reads need", () => {
    fc.assert(
      fc.property(manifestSet, fc.subarray(TOPS, { minLength: 1 }), (specs, owned) => {
        const selection = shardEntries(outlined(specs), new Set(owned));
        checkClosed(specs, selection);
        const readKeys = new Set(readOf(specs, selection).entries.map((e) => `${e.collection}:${e.key}`));
        for (const e of specs.flatMap((s) => s.entries))
          if (owned.includes(e.key.split("/")[0]!))
            expect(readKeys, `own ${e.key}`).toContain(`${e.collection}:${e.key}`);
      }),
    );
  });

  it("a change reads what it touches and everything that needs", () => {
    fc.assert(
      fc.property(manifestSet, fc.nat(), (specs, pick) => {
        const files = outlined(specs);
        const changed = files[pick % files.length]!.file;
        const selection = touchedEntries(files, [changed]);
        checkClosed(specs, selection);
        // The changed file is read whole.
        expect(selection.files.has(changed)).toBe(true);
        expect(selection.partial.has(changed)).toBe(false);
      }),
    );
  });
});
