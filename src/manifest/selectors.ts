/**
 * Selectors: `groups:` and `projects:` entries whose key is a pattern (`acme/*`, `acme/**`, `*`, `**`). This module
 * is the language's side of them, pure functions with no platform access: what a pattern matches, how specific an
 * entry is, how entries that match one object merge, and the `H` of hashed crons. The engine lists the platform's
 * groups and projects and calls these (src/engine/select.ts).
 *
 * Precedence: fields merge from the least to the most specific entry; a longer literal prefix is more specific and
 * an exact path the most specific of all. Collections merge by identity across entries (a badge from `acme/**` plus
 * a schedule from `acme/platform/*`), and a more specific entry can change one item's fields or mark it absent.
 */
import { createHash } from "node:crypto";
import type { DesiredCollection, DesiredNode, DesiredState, Selector, SourceRef } from "./model.js";

/** Whether a `groups:`/`projects:` key is a pattern rather than a full path. */
export function isPattern(key: string): boolean {
  return key === "*" || key === "**" || key.endsWith("/*") || key.endsWith("/**");
}

/** The literal prefix and depth of a pattern key. */
export function parsePattern(key: string): Pick<Selector, "prefix" | "depth"> {
  const depth = key.endsWith("**") ? "subtree" : "children";
  const prefix = key.replace(/\/?\*\*?$/, "");
  return { prefix, depth };
}

const lower = (s: string) => s.toLowerCase();

/** Whether `path` is matched by the pattern `key` (or is `key` itself, when it is a full path). */
export function matchesKey(key: string, path: string): boolean {
  if (!isPattern(key)) return lower(key) === lower(path);
  const { prefix, depth } = parsePattern(key);
  const p = lower(path);
  if (prefix === "") return depth === "subtree" || !p.includes("/");
  const base = `${lower(prefix)}/`;
  if (!p.startsWith(base)) return false;
  return depth === "subtree" || !p.slice(base.length).includes("/");
}

/**
 * Whether the `except:` entry `entry` leaves out `path`: a pattern leaves out what it matches; a full path leaves
 * out the group or project at that path and everything below it (`acme/legacy` is `acme/legacy` and
 * `acme/legacy/**`).
 */
export function excepts(entry: string, path: string): boolean {
  if (matchesKey(entry, path)) return true;
  return !isPattern(entry) && lower(path).startsWith(`${lower(entry)}/`);
}

/** Whether a pattern matches `path`, `except:` aside. `*` and `**` at the top select every project of the instance. */
export function inPattern(selector: Selector, path: string): boolean {
  const whole = selector.prefix === "" && selector.collection === "projects";
  return whole || matchesKey(selector.pattern, path);
}

/** The `except:` entry that leaves `path` out of a selector, when one does. */
export function exceptionFor(selector: Selector, path: string): string | undefined {
  return selector.except.find((e) => excepts(e, path));
}

/**
 * Whether a selector applies to the object at `path` (a project always sits in a group or a user's namespace, so
 * `*` and `**` at the top select every project of the instance).
 */
export function selects(selector: Selector, path: string): boolean {
  return inPattern(selector, path) && exceptionFor(selector, path) === undefined;
}

/**
 * What is wrong with an `except:` entry of the pattern `key`, when it can never leave anything out: entries are
 * full paths or patterns under the pattern's root (`acme/legacy/**` under `acme/**`, not `legacy/**`), and an entry
 * that is the root itself would leave out everything.
 */
export function exceptProblem(key: string, entry: string): string | undefined {
  const { prefix } = parsePattern(key);
  if (prefix === "") return undefined;
  const root = lower(prefix);
  const written = lower(isPattern(entry) ? parsePattern(entry).prefix : entry);
  if (written === root && !isPattern(entry)) {
    return `"${entry}" is the pattern's root: it would leave out everything ${key} matches`;
  }
  if (written === root || written.startsWith(`${root}/`)) return undefined;
  return `"${entry}" is not under ${prefix}, the root of ${key}, so it leaves out nothing: except entries are full paths or patterns (did you mean ${prefix}/${entry}?)`;
}

/**
 * Whether the pattern entry `outer` applies to every object the entry `inner` (a full path or a pattern) can apply
 * to, and is less specific: then an item of `inner` may leave a required field to the same item of `outer`. An
 * `except:` of `outer` that could leave out any of `inner`'s objects makes it not cover them.
 */
export function covers(
  outer: string,
  outerExcept: readonly string[],
  inner: string,
  collection: "groups" | "projects",
): boolean {
  if (!isPattern(outer) || specificity(outer) >= specificity(inner)) return false;
  const o = parsePattern(outer);
  const whole = o.prefix === "" && (o.depth === "subtree" || collection === "projects");
  const root = isPattern(inner) ? lower(parsePattern(inner).prefix) : lower(inner);
  if (!whole) {
    if (isPattern(inner)) {
      const under = root === lower(o.prefix) || root.startsWith(`${lower(o.prefix)}/`);
      if (o.depth !== "subtree" || !under) return false;
    } else if (!matchesKey(outer, inner)) return false;
  }
  // An except entry at, above or below the inner entry's root may leave some of its objects out.
  return !outerExcept.some((entry) => {
    const e = lower(isPattern(entry) ? parsePattern(entry).prefix : entry);
    return e === "" || e === root || root.startsWith(`${e}/`) || e.startsWith(`${root}/`);
  });
}

/** How specific an entry is: the number of literal path segments; an exact path is the most specific. */
export function specificity(key: string): number {
  if (!isPattern(key)) return Number.POSITIVE_INFINITY;
  const { prefix } = parsePattern(key);
  return prefix === "" ? 0 : prefix.split("/").length;
}

function mergeCollection(
  base: DesiredCollection | undefined,
  over: DesiredCollection | undefined,
): DesiredCollection {
  if (!base) return over!;
  if (!over) return base;
  const items = [...base.items];
  // By identity in the terms of its normalisers: `{ group: B }` of a pattern and `{ group: b }` of a full path are
  // one share.
  const identity = (x: DesiredNode) => x.compare ?? x.key;
  for (const item of over.items) {
    const i = items.findIndex((x) => identity(x) === identity(item));
    if (i >= 0) items[i] = mergeNodes(items[i]!, item);
    else items.push(item);
  }
  const declared = over.policyDeclared ? over : base;
  return {
    policy: declared.policy,
    ...(base.policyDeclared || over.policyDeclared ? { policyDeclared: true } : {}),
    items,
  };
}

/**
 * `over` (the more specific entry) merged onto `base`: its fields win one by one, its collections' items merge by
 * identity, its state and place win. Neither input is changed.
 */
export function mergeNodes(base: DesiredNode, over: DesiredNode): DesiredNode {
  const children: Record<string, DesiredCollection> = {};
  for (const name of new Set([...Object.keys(base.children), ...Object.keys(over.children)])) {
    children[name] = mergeCollection(base.children[name], over.children[name]);
  }
  // A field the more specific entry sets takes its nested positions with it.
  const baseSources = Object.fromEntries(
    Object.entries(base.fieldSources).filter(([path]) => !(path.split(/[.[]/)[0]! in over.fields)),
  );
  const fields = { ...base.fields, ...over.fields };
  const needs = [...new Set([...(base.needs ?? []), ...(over.needs ?? [])])].filter((k) => !(k in fields));
  const { needs: _needs, ...rest } = over;
  return {
    ...rest,
    fields,
    fieldSources: { ...baseSources, ...over.fieldSources },
    children,
    ...(needs.length > 0 ? { needs } : {}),
  };
}

/** A node rekeyed to a concrete path (a pattern's body applied to one object). */
export function atPath(node: DesiredNode, path: string): DesiredNode {
  const { label: _label, ...rest } = node;
  return { ...rest, key: path };
}

// ---- H in crons: a stable value per object, so that 2,000 nightly schedules do not start in the same minute ----

/** Each field's name, the range a bare `H` picks from, and the values the field allows (for `H(a-b)` and `/n`). */
const CRON_FIELDS: { name: string; pick: [number, number]; bounds: [number, number] }[] = [
  { name: "minute", pick: [0, 59], bounds: [0, 59] },
  { name: "hour", pick: [0, 23], bounds: [0, 23] },
  // A bare H picks a day every month has; H(a-b) may name any day of the month.
  { name: "day of month", pick: [1, 28], bounds: [1, 31] },
  { name: "month", pick: [1, 12], bounds: [1, 12] },
  { name: "day of week", pick: [0, 6], bounds: [0, 7] },
];

/** An `H` field: `H`, `H(a-b)`, `H/n` or `H(a-b)/n` (anything else starting with H is a mistake, see hashedCronProblem). */
const HASHED = /^H(?:\((\d+)-(\d+)\))?(?:\/(\d+))?$/;

/** Whether a cron expression uses `H` (`H 2 * * *`, `H(0-29) * * * *`, `H/15 * * * *`). */
export function isHashedCron(cron: string): boolean {
  return cron
    .trim()
    .split(/\s+/)
    .some((f) => f.startsWith("H"));
}

interface HashedField {
  lo: number;
  hi: number;
  step: number | undefined;
}

/** An `H` field's range and step, or what is wrong with it (its field's name, its bounds, low <= high, 1 <= step). */
function parseHashedField(field: string, i: number): HashedField | string {
  const spec = CRON_FIELDS[i];
  if (!spec)
    return `H can be used in the 5 fields of a cron only (minute hour day-of-month month day-of-week)`;
  const m = HASHED.exec(field);
  if (!m) {
    return `"${field}" (${spec.name}) is not an H form: write H, H(a-b), H/n or H(a-b)/n`;
  }
  const [min, max] = spec.bounds;
  const lo = m[1] !== undefined ? Number(m[1]) : spec.pick[0];
  const hi = m[2] !== undefined ? Number(m[2]) : spec.pick[1];
  const step = m[3] !== undefined ? Number(m[3]) : undefined;
  if (lo < min || hi > max) return `"${field}": the ${spec.name} range must be within ${min}-${max}`;
  if (lo > hi) return `"${field}": the ${spec.name} range ${lo}-${hi} is empty (write the lower bound first)`;
  if (step !== undefined && (step < 1 || step > max - min + 1)) {
    return `"${field}": the ${spec.name} step must be between 1 and ${max - min + 1}`;
  }
  return { lo, hi, step };
}

/**
 * What is wrong with the `H` fields of a cron, checked for every value they can take (not one sample): each H
 * form within its field's bounds, a range's low bound not above its high bound, a step of at least 1.
 */
export function hashedCronProblem(cron: string): string | undefined {
  const fields = cron.trim().split(/\s+/);
  for (const [i, field] of fields.entries()) {
    if (!field.startsWith("H")) continue;
    const parsed = parseHashedField(field, i);
    if (typeof parsed === "string") return parsed;
  }
  return undefined;
}

/** A cron with `H` fields replaced by stand-in values, for syntax checks (after hashedCronProblem). */
export function cronForValidation(cron: string): string {
  return hashedCron(cron, "validation");
}

/**
 * Replaces each `H` field with a value picked from a hash of `seed`: `H` is one value of the field's range,
 * `H(a-b)` one value of a..b, `H/n` every n starting at a hashed offset below n. The same seed always gives the same
 * cron; different fields use different parts of the hash. Fields without `H` (and H forms that are not valid, which
 * validation reports) are kept as written.
 */
export function hashedCron(cron: string, seed: string): string {
  const fields = cron.trim().split(/\s+/);
  if (!fields.some((f) => HASHED.test(f))) return cron;
  const digest = createHash("sha256").update(seed).digest();
  return fields
    .map((field, i) => {
      const parsed = field.startsWith("H") ? parseHashedField(field, i) : field;
      if (typeof parsed === "string") return field;
      const { lo, hi, step } = parsed;
      const n = digest.readUInt32BE((i * 4) % (digest.length - 3));
      if (step !== undefined) return `${lo + (n % Math.min(step, hi - lo + 1))}-${hi}/${step}`;
      return String(lo + (n % (hi - lo + 1)));
    })
    .join(" ");
}

/** A project node with `H` in its schedules' crons replaced by the project's stable values. */
export function withHashedCrons(project: DesiredNode): DesiredNode {
  const schedules = project.children["pipeline_schedules"];
  if (!schedules?.items.some((s) => typeof s.fields["cron"] === "string")) return project;
  return {
    ...project,
    children: {
      ...project.children,
      pipeline_schedules: {
        ...schedules,
        items: schedules.items.map((s) => {
          const cron = s.fields["cron"];
          if (typeof cron !== "string") return s;
          const concrete = hashedCron(cron, `${project.key}#${s.key}`);
          return concrete === cron ? s : { ...s, fields: { ...s.fields, cron: concrete } };
        }),
      },
    },
  };
}

// ---- explain: where each field and item of one object comes from ----

export interface Origin {
  /** The entry: `projects["acme/**"]`. */
  entry: string;
  source: SourceRef;
}

/** A pattern entry that would apply but for one of its `except:` entries. */
export interface LeftOut {
  /** The entry: `projects["acme/**"]`. */
  entry: string;
  /** The `except:` entry that leaves the path out. */
  except: string;
  source: SourceRef;
}

export interface Explained {
  collection: "groups" | "projects";
  path: string;
  /** The entries that apply, from the least to the most specific. */
  entries: Origin[];
  /** Pattern entries that `except:` leaves out. */
  leftOut: LeftOut[];
  /** The effective configuration (crons with `H` made concrete). */
  node: DesiredNode;
  /** Where each field, item and policy comes from: `description`, `badges["coverage"]`, `badges["coverage"].name`, `unmanaged.badges`. */
  origins: Map<string, Origin>;
  /** Crons written with `H`, by the item's origin key (`pipeline_schedules["nightly"].cron`). */
  hashed: Map<string, string>;
}

/**
 * What the manifests say the object at `path` is: a group when they declare it as one, or declare something below
 * it, or a pattern is rooted at it; a project when they declare it as one; undefined when they do not say.
 */
export function declaredAs(state: DesiredState, path: string): "groups" | "projects" | undefined {
  const p = lower(path);
  const keys = (c: string) => (state.root.children[c]?.items ?? []).map((n) => lower(n.key));
  const roots = state.selectors.map((s) => lower(s.prefix)).filter((r) => r !== "");
  const [groups, projects] = [keys("groups"), keys("projects")];
  const group =
    groups.includes(p) ||
    roots.includes(p) ||
    [...groups, ...projects, ...roots].some((k) => k.startsWith(`${p}/`));
  const project = projects.includes(p);
  if (group === project) return undefined;
  return group ? "groups" : "projects";
}

/**
 * The effective configuration of the group or project at `path` from the manifests alone: every entry whose key
 * matches it (patterns by path; whether the object exists or is archived is the platform's to say), merged from the
 * least to the most specific, with the origin of every field and item, and the pattern entries whose `except:`
 * leaves it out. Undefined when no entry of `collection` matches it, with or without except.
 */
export function explain(
  state: DesiredState,
  collection: "groups" | "projects",
  path: string,
): Explained | undefined {
  const exact = state.root.children[collection]?.items.find(
    (n) => n.key.toLowerCase() === path.toLowerCase(),
  );
  const label = (key: string) => `${collection}[${JSON.stringify(key)}]`;
  const mine = state.selectors.filter((s) => s.collection === collection && inPattern(s, path));
  const leftOut: LeftOut[] = mine.flatMap((s) => {
    const except = exceptionFor(s, path);
    if (except === undefined) return [];
    const source = s.exceptSources?.[s.except.indexOf(except)] ?? s.node.source;
    return [{ entry: label(s.pattern), except, source }];
  });
  const entries: { label: string; node: DesiredNode }[] = mine
    .filter((s) => exceptionFor(s, path) === undefined)
    .sort((a, b) => specificity(a.pattern) - specificity(b.pattern))
    .map((s) => ({ label: label(s.pattern), node: atPath(s.node, path) }));
  if (exact) entries.push({ label: label(exact.key), node: exact });
  if (entries.length === 0 && leftOut.length === 0) return undefined;
  const origins = new Map<string, Origin>();
  const trace = (node: DesiredNode, prefix: string, entry: string) => {
    for (const field of Object.keys(node.fields)) {
      origins.set(`${prefix}${field}`, { entry, source: node.fieldSources[field] ?? node.source });
    }
    for (const [name, coll] of Object.entries(node.children)) {
      if (coll.policyDeclared) origins.set(`${prefix}unmanaged.${name}`, { entry, source: node.source });
      for (const item of coll.items) {
        const at = `${prefix}${name}[${JSON.stringify(item.label ?? item.key)}]`;
        origins.set(at, { entry, source: item.source });
        trace(item, `${at}.`, entry);
      }
    }
  };
  let merged: DesiredNode | undefined;
  for (const { label, node } of entries) {
    trace(node, "", label);
    merged = merged ? mergeNodes(merged, node) : node;
  }
  const hashed = new Map<string, string>();
  let node =
    merged ?? atPath({ ...state.root, collection, children: {}, fields: {}, fieldSources: {} }, path);
  if (collection === "projects") {
    for (const s of node.children["pipeline_schedules"]?.items ?? []) {
      const cron = s.fields["cron"];
      if (typeof cron === "string" && isHashedCron(cron)) {
        hashed.set(`pipeline_schedules[${JSON.stringify(s.label ?? s.key)}].cron`, cron);
      }
    }
    node = withHashedCrons(node);
  }
  return {
    collection,
    path,
    entries: entries.map((e) => ({ entry: e.label, source: e.node.source })),
    leftOut,
    node,
    origins,
    hashed,
  };
}
