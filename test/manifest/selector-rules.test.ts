/**
 * Selector rules as properties, against models written segment by segment: what a pattern matches, what an
 * `except:` entry leaves out, and which entry's field wins when several apply (precedence). Paths are built from a
 * few segments that share letters (`a`, `ab`, `b`), so that prefixes without a `/` meet often.
 */
import { describe, expect, it } from "vitest";
import type { DesiredNode, DesiredState, Selector, SourceRef } from "../../src/manifest/model.js";
import {
  excepts,
  explain,
  isPattern,
  matchesKey,
  parsePattern,
  selects,
  specificity,
} from "../../src/manifest/selectors.js";
import { fc } from "../property.js";

const seg = fc.constantFrom("a", "ab", "b", "A");
const path = fc.array(seg, { minLength: 1, maxLength: 4 }).map((p) => p.join("/"));
const prefix = fc.array(seg, { minLength: 0, maxLength: 3 }).map((p) => p.join("/"));
const pattern = fc
  .tuple(prefix, fc.constantFrom("*", "**"))
  .map(([p, star]) => (p === "" ? star : `${p}/${star}`));
/** An entry key: a full path or a pattern. */
const key = fc.oneof(path, pattern);

const parts = (p: string) => (p === "" ? [] : p.toLowerCase().split("/"));
const startsWith = (whole: string[], start: string[]) =>
  start.length <= whole.length && start.every((s, i) => s === whole[i]);

/** What a key matches, segment by segment. */
function modelMatches(k: string, p: string): boolean {
  const target = parts(p);
  if (!isPattern(k)) return parts(k).join("/") === target.join("/");
  const star = k.endsWith("**") ? "**" : "*";
  const root = parts(k.slice(0, k.length - star.length).replace(/\/$/, ""));
  if (!startsWith(target, root)) return false;
  const below = target.length - root.length;
  return star === "**" ? below >= 1 : below === 1;
}

/** What an except entry leaves out: a pattern what it matches, a full path itself and everything below. */
function modelExcepts(entry: string, p: string): boolean {
  return isPattern(entry) ? modelMatches(entry, p) : startsWith(parts(p), parts(entry));
}

const at: SourceRef = { file: "m.yaml", line: 1, col: 1 };

function node(collection: string, k: string, fields: Record<string, unknown>): DesiredNode {
  return { collection, key: k, state: "present", fields, source: at, fieldSources: {}, children: {} };
}

function selector(collection: "groups" | "projects", pat: string, except: string[]): Selector {
  const { prefix, depth } = parsePattern(pat);
  return {
    collection,
    pattern: pat,
    prefix,
    depth,
    except,
    includeArchived: false,
    node: node(collection, pat, { description: pat }),
  };
}

describe("patterns and except entries", () => {
  it("a key matches a path exactly when its segments say so, without regard to case", () => {
    fc.assert(
      fc.property(key, path, (k, p) => {
        expect(matchesKey(k, p)).toBe(modelMatches(k, p));
      }),
    );
  });

  it("an except entry leaves out what it matches, and a full path also what is below it, never a sibling", () => {
    fc.assert(
      fc.property(key, path, (entry, p) => {
        expect(excepts(entry, p)).toBe(modelExcepts(entry, p));
      }),
    );
  });

  it("a selector applies where its pattern matches and no except entry leaves the path out", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("groups" as const, "projects" as const),
        pattern,
        fc.array(key, { maxLength: 3 }),
        path,
        (collection, pat, except, p) => {
          const s = selector(collection, pat, except);
          // `*` and `**` at the top select every project: a project always sits in a namespace.
          const inPattern = (collection === "projects" && s.prefix === "") || modelMatches(pat, p);
          expect(selects(s, p)).toBe(inPattern && !except.some((e) => modelExcepts(e, p)));
        },
      ),
    );
  });

  it("specificity counts literal segments, and a full path outranks every pattern", () => {
    fc.assert(
      fc.property(key, (k) => {
        expect(specificity(k)).toBe(isPattern(k) ? parts(parsePattern(k).prefix).length : Infinity);
      }),
    );
  });
});

describe("precedence: the most specific entry that applies wins each field", () => {
  const entries = fc.uniqueArray(
    fc.record({ pattern, except: fc.array(key, { maxLength: 2 }), sets: fc.boolean() }),
    { maxLength: 5, selector: (e) => e.pattern.toLowerCase() },
  );

  it("explain merges the entries that apply from the least to the most specific, the exact entry last", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("groups" as const, "projects" as const),
        entries,
        fc.option(fc.boolean(), { nil: undefined }),
        path,
        (collection, written, exactSets, p) => {
          const selectors = written.map((e) => {
            const s = selector(collection, e.pattern, e.except);
            // An entry that does not set the field leaves it to the less specific ones.
            if (!e.sets) s.node.fields = { other: e.pattern };
            return s;
          });
          const exact =
            exactSets === undefined
              ? []
              : [node(collection, p, exactSets ? { description: "exact" } : { other: "exact" })];
          const state: DesiredState = {
            root: {
              ...node("root", "", {}),
              children: { [collection]: { policy: "warn", items: exact } },
            },
            files: ["m.yaml"],
            selectors,
          };
          const applies = selectors.filter(
            (s) =>
              ((collection === "projects" && s.prefix === "") || modelMatches(s.pattern, p)) &&
              !s.except.some((e) => modelExcepts(e, p)),
          );
          // A stable sort: among entries as specific as each other, the one written later wins.
          const ordered = [...applies].sort((x, y) => specificity(x.pattern) - specificity(y.pattern));
          const result = explain(state, collection, p);
          const leftOut = selectors.filter(
            (s) =>
              ((collection === "projects" && s.prefix === "") || modelMatches(s.pattern, p)) &&
              s.except.some((e) => modelExcepts(e, p)),
          );
          if (ordered.length === 0 && exact.length === 0 && leftOut.length === 0) {
            expect(result).toBeUndefined();
            return;
          }
          expect(result).toBeDefined();
          const label = (k: string) => `${collection}[${JSON.stringify(k)}]`;
          expect(result!.entries.map((e) => e.entry)).toEqual([
            ...ordered.map((s) => label(s.pattern)),
            ...(exact.length > 0 ? [label(p)] : []),
          ]);
          expect(result!.leftOut.map((l) => l.entry)).toEqual(leftOut.map((s) => label(s.pattern)));
          const setters = [
            ...ordered.filter((s) => "description" in s.node.fields).map((s) => s.pattern),
            ...(exactSets ? ["exact"] : []),
          ];
          expect(result!.node.fields["description"]).toBe(setters.at(-1));
          if (setters.length > 0)
            expect(result!.origins.get("description")?.entry).toBe(
              setters.at(-1) === "exact" ? label(p) : label(setters.at(-1)!),
            );
        },
      ),
    );
  });
});
