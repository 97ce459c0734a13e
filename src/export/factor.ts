/**
 * `export --factor`: what the projects (or the subgroups) below a group share, written once as a `group/**`
 * pattern entry, each object keeping only what differs. The manifests mean the same as the flat export: a
 * pattern's fields are taken by every object it matches unless the object's own entry sets them, and its
 * collections merge with the object's by identity (docs/manifests.md, Patterns). So a field goes into the
 * pattern when most objects have the same value and every other object can say its own: a value it has, or the
 * platform's default it was left out for. An item goes into the pattern when every object has it exactly so.
 */
import { isDeepStrictEqual } from "node:util";
import type { FieldSpec } from "../kinds/fields.js";

type Body = Record<string, unknown>;

export interface FactorInput {
  /** The entries of every object the pattern matches, by full path (empty ones too: the pattern reaches them). */
  entries: Map<string, Body>;
  /** The fields an entry left out because the platform has them by default, with those defaults. */
  defaults: (entry: Body) => Map<string, unknown> | undefined;
  /** The field declarations of the objects' kind. */
  specs: Map<string, FieldSpec>;
}

export interface Factored {
  /** What the pattern entry says (empty when nothing is shared). */
  pattern: Body;
  /** Each object's entry with what the pattern says taken out (an object's own value stays). */
  entries: Map<string, Body>;
}

/**
 * Fields that name or describe one object: the same display name on two groups is a coincidence, not a setting
 * the group above gives them.
 */
const OWN_FIELDS = new Set(["name", "description", "path"]);

/** A value a pattern cannot carry: a reference named after one object. */
function refersToOne(value: unknown): boolean {
  return JSON.stringify(value).includes("${env:");
}

/** Where equal values count as one: a set compares without order. */
function sameField(spec: FieldSpec | undefined, a: unknown, b: unknown): boolean {
  if (spec?.set && Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x) => b.some((y) => isDeepStrictEqual(x, y)));
  return isDeepStrictEqual(a, b);
}

/** The fields shared by most entries, each with its value, where every entry can still say its own. */
function sharedFields(input: FactorInput, keys: string[]): Map<string, unknown> {
  const shared = new Map<string, unknown>();
  const total = keys.length;
  for (const [name, spec] of input.specs) {
    if (spec.child || spec.local || spec.writeOnly || OWN_FIELDS.has(name)) continue;
    // The most common value among the entries that set the field.
    const counts: { value: unknown; count: number }[] = [];
    for (const key of keys) {
      const value = input.entries.get(key)?.[name];
      if (value === undefined || refersToOne(value)) continue;
      const seen = counts.find((c) => sameField(spec, c.value, value));
      if (seen) seen.count++;
      else counts.push({ value, count: 1 });
    }
    const best = counts.sort((a, b) => b.count - a.count)[0];
    if (!best || best.count < 2 || best.count * 2 <= total) continue;
    // An entry without the field must be able to say what it has instead: the default it was left out for.
    const sayable = keys.every((key) => {
      const entry = input.entries.get(key) ?? {};
      if (entry[name] !== undefined) return !refersToOne(entry[name]);
      return input.defaults(entry)?.has(name) === true;
    });
    if (sayable) shared.set(name, best.value);
  }
  return shared;
}

/** The items of a collection that every entry has exactly so (same identity, same fields). */
function sharedItems(input: FactorInput, keys: string[], name: string): unknown[] {
  const [first, ...rest] = keys.map((k) => input.entries.get(k)?.[name]);
  if (!Array.isArray(first)) return [];
  return first.filter(
    (item) =>
      !refersToOne(item) &&
      rest.every((items) => Array.isArray(items) && items.some((other) => isDeepStrictEqual(item, other))),
  );
}

/** Splits the entries into one pattern entry and what each object keeps of its own. */
export function factorEntries(input: FactorInput): Factored {
  const keys = [...input.entries.keys()];
  const pattern: Body = {};
  const entries = new Map<string, Body>([...input.entries].map(([k, v]) => [k, { ...v }]));
  if (keys.length < 2) return { pattern, entries };
  for (const [name, value] of sharedFields(input, keys)) {
    pattern[name] = value;
    const spec = input.specs.get(name);
    for (const [key, entry] of entries) {
      const own = entry[name];
      if (own === undefined) {
        // Left out for the platform's default, which the pattern would change: the entry says it.
        entry[name] = input.defaults(input.entries.get(key) ?? {})?.get(name);
      } else if (sameField(spec, own, value)) {
        delete entry[name];
      }
    }
  }
  for (const [name, spec] of input.specs) {
    if (!spec.child) continue;
    const items = sharedItems(input, keys, name);
    if (items.length === 0) continue;
    pattern[name] = items;
    for (const entry of entries.values()) {
      const left = (entry[name] as unknown[]).filter((i) => !items.some((s) => isDeepStrictEqual(i, s)));
      if (left.length > 0) entry[name] = left;
      else delete entry[name];
    }
  }
  // Fields first, then collections, in the schema's order (as an entry of its own is written).
  const ordered: Body = {};
  for (const name of input.specs.keys()) if (pattern[name] !== undefined) ordered[name] = pattern[name];
  for (const [key, entry] of entries) {
    const sorted: Body = {};
    for (const name of Object.keys(input.entries.get(key) ?? {}).concat(Object.keys(entry)))
      if (entry[name] !== undefined && sorted[name] === undefined) sorted[name] = entry[name];
    entries.set(key, sorted);
  }
  return { pattern: ordered, entries };
}
