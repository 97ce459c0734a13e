/**
 * Expands selectors (`projects: {"acme/**": ...}`) into the groups and projects they match on the platform: one
 * listing per pattern root (the group's projects with `include_subgroups`, its descendant groups, or the instance's
 * lists at the top), never a request per object, and a root inside another listed root's subtree reuses that
 * listing (filtered here). Each matched object gets the merge of every entry that matches it, from the least to the
 * most specific (src/manifest/selectors.ts), and `H` in its schedules' crons is replaced by its stable value.
 * Patterns match existing objects only, and the groups and projects the manifests declare by full path, which
 * apply creates (so a new project gets its patterns' settings and collections in the same apply): they never
 * create anything themselves. When the manifests set project settings, project listings are read in full and kept,
 * so that the settings of the projects they hold cost no request of their own.
 */
import { ApiError, apiPath, type Shape } from "../api/index.js";
import { listSubgroups, readGroup } from "../kinds/group.js";
import type { KindContext } from "../kinds/kind.js";
import { type ApiProject, PROJECT_SHAPE, readProject, rememberProjects } from "../kinds/project.js";
import type { DesiredNode, DesiredState, Selector, SourceRef } from "../manifest/model.js";
import {
  atPath,
  excepts,
  inPattern,
  mergeNodes,
  selects,
  specificity,
  withHashedCrons,
} from "../manifest/selectors.js";
import type { PlanProblem, SelectorSummary } from "../plan/model.js";
import type { ChangeScope } from "./changes.js";
import { inTargets } from "./targets.js";

type Collection = "groups" | "projects";

/**
 * One listing: a collection below a root, and which projects it holds by archived status: the listing's `archived`
 * filter (false: archived ones left out, true: only those; undefined: all).
 */
interface Listing {
  collection: Collection;
  prefix: string;
  depth: "children" | "subtree";
  archived: boolean | undefined;
}

/**
 * The objects a change released to the patterns over them, by their platform spelling: those a removed pattern
 * matched (ChangeScope.removedPatterns, from its listing), and those whose entry was removed
 * (ChangeScope.released) that exist on the platform, with which of these projects are archived.
 */
async function releasedObjects(
  ctx: KindContext,
  changes: ChangeScope | undefined,
  /** The listings of `changes.removedPatterns`, in their order. */
  removedListings: (string[] | undefined)[],
): Promise<{ groups: string[]; projects: string[]; archived: Set<string> }> {
  const out = { groups: [] as string[], projects: [] as string[], archived: new Set<string>() };
  // What a removed pattern matched, as its listing holds it (archived projects as it left them out or not).
  (changes?.removedPatterns ?? []).forEach((s, i) => {
    for (const path of removedListings[i] ?? []) if (selects(s, path)) out[s.collection].push(path);
  });
  if (!changes?.released) return out;
  const [groups, projects] = await Promise.all([
    Promise.all(changes.released.groups.map((path) => readGroup(ctx, path))),
    Promise.all(changes.released.projects.map((path) => readProject(ctx, path))),
  ]);
  for (const g of groups) if (g) out.groups.push(g.full_path);
  for (const p of projects) {
    if (!p) continue;
    out.projects.push(p.path_with_namespace);
    if ((p as Record<string, unknown>)["archived"] === true)
      out.archived.add(p.path_with_namespace.toLowerCase());
  }
  return out;
}

const listingOf = (s: Selector, archived?: boolean): Listing => ({
  collection: s.collection,
  prefix: s.prefix,
  depth: s.depth,
  archived: archived ?? (s.collection === "projects" && !s.includeArchived ? false : undefined),
});

/** Whether `outer` holds everything `inner` holds, so that `inner` is `outer` filtered by path. */
function covers(outer: Listing, inner: Listing): boolean {
  if (outer.collection !== inner.collection || outer.archived !== inner.archived) return false;
  const o = outer.prefix.toLowerCase();
  const i = inner.prefix.toLowerCase();
  // The instance's project listing holds every project, whatever the pattern's depth.
  if (outer.collection === "projects" && o === "") return true;
  if (outer.depth === "children") return o === i && inner.depth === "children";
  return o === "" || i === o || i.startsWith(`${o}/`);
}

/** The broadest listings first: a shorter root, then a whole subtree before direct children. */
const breadth = (l: Listing) =>
  (l.prefix === "" ? 0 : l.prefix.split("/").length) * 2 + (l.depth === "subtree" ? 0 : 1);

/**
 * The paths a listing holds (undefined when its root group does not exist or is not visible), read once per run.
 * `full`: projects are read in full and kept for their settings.
 */
function read(ctx: KindContext, l: Listing, full: boolean): Promise<string[] | undefined> {
  const { collection, prefix, depth } = l;
  if (collection === "groups" && prefix !== "" && depth === "children") {
    // Shared with the engine's report of undeclared subgroups.
    return listSubgroups(ctx, prefix).then((gs) => gs?.map((g) => g.full_path));
  }
  let path: string;
  let query: Record<string, string | number | boolean>;
  if (collection === "projects") {
    path = prefix === "" ? "/projects" : apiPath`/groups/${prefix}/projects`;
    query = {
      ...(full ? {} : { simple: true }),
      ...(l.archived === undefined ? {} : { archived: l.archived }),
      ...(prefix === "" ? {} : { with_shared: false }),
      ...(prefix !== "" && depth === "subtree" ? { include_subgroups: true } : {}),
    };
  } else if (prefix === "") {
    path = "/groups";
    query = { all_available: true, ...(depth === "children" ? { top_level_only: true } : {}) };
  } else {
    path = apiPath`/groups/${prefix}/descendant_groups`;
    query = { all_available: true };
  }
  const memoKey = `select:${path}?${JSON.stringify(query)}`;
  let p = ctx.memo.get(memoKey) as Promise<string[] | undefined> | undefined;
  if (!p) {
    // Projects are named by path_with_namespace, groups by full_path.
    const shape: Shape =
      collection === "projects"
        ? full
          ? PROJECT_SHAPE()
          : { path_with_namespace: "string" }
        : { full_path: "string" };
    p = ctx.api.list<{ full_path?: string; path_with_namespace?: string }>(path, { query, shape }).then(
      (items) => {
        if (full && collection === "projects") rememberProjects(ctx, items as ApiProject[]);
        return items.map((i) => String(i.path_with_namespace ?? i.full_path ?? ""));
      },
      (error: unknown) => {
        // The pattern's root group does not exist (or is not visible): it matches nothing.
        if (error instanceof ApiError && error.status === 404) return undefined;
        throw error;
      },
    );
    ctx.memo.set(memoKey, p);
  }
  return p;
}

/**
 * Reads each listing once, through the broadest listing that covers it. A group root inside another listing's
 * subtree exists only when that listing holds it.
 */
async function readAll(
  ctx: KindContext,
  wanted: Listing[],
  full: boolean,
): Promise<(string[] | undefined)[]> {
  const broadest = [...wanted].sort((a, b) => breadth(a) - breadth(b));
  return Promise.all(
    wanted.map(async (l) => {
      const outer = broadest.find((o) => covers(o, l))!;
      const paths = await read(ctx, outer, full);
      const root = l.prefix.toLowerCase();
      if (
        paths &&
        l.collection === "groups" &&
        root !== "" &&
        root !== outer.prefix.toLowerCase() &&
        !paths.some((p) => p.toLowerCase() === root)
      )
        return undefined;
      return paths;
    }),
  );
}

/** Whether a selector can match anything within the targets (its root is inside one, or one is inside it). */
function relevant(selector: Selector, targets: readonly string[]): boolean {
  const paths = targets.filter((t) => t !== "instance");
  if (targets.length === 0) return true;
  if (selector.prefix === "") return paths.length > 0;
  const prefix = selector.prefix.toLowerCase();
  return paths.some((t) => {
    const target = t.toLowerCase();
    return target === prefix || target.startsWith(`${prefix}/`) || prefix.startsWith(`${target}/`);
  });
}

export interface Expanded {
  state: DesiredState;
  /** How many objects each pattern matched, for the plan. */
  summaries: SelectorSummary[];
  /** Patterns that matched nothing, and `except:` entries that left nothing out. */
  warnings: PlanProblem[];
  /** Every path the patterns' listings hold, within the targets or not (for did-you-mean on a target). */
  listed: string[];
  /** Whether what a target selects through patterns cannot be known in this run (a pattern left unread). */
  unknowable(target: string): boolean;
}

const addressOf = (s: Selector) => `${s.collection}[${JSON.stringify(s.pattern)}]`;

/** Warnings for a listed selector: it matched nothing, or one of its `except:` entries matched nothing. */
function selectorWarnings(
  s: Selector,
  listed: string[] | undefined,
  pool: string[],
  /** Whether the pattern matches anything (before --target). */
  matches: boolean,
): PlanProblem[] {
  const source: SourceRef = s.node.source;
  const archivedNote =
    s.collection === "projects" && !s.includeArchived
      ? " (archived projects are left out unless include_archived: true)"
      : "";
  if (listed === undefined) {
    return [
      {
        address: addressOf(s),
        message: `the pattern matches nothing: group ${s.prefix} does not exist or is not visible to this token's user`,
        source,
      },
    ];
  }
  const out: PlanProblem[] = [];
  if (!matches) {
    out.push({
      address: addressOf(s),
      message: `the pattern matches no existing ${s.collection}${archivedNote}`,
      source,
    });
  }
  s.except.forEach((entry, i) => {
    if (pool.some((p) => excepts(entry, p))) return;
    out.push({
      address: `${addressOf(s)}.except[${i}]`,
      message: `except entry "${entry}" leaves out nothing: no ${s.collection === "projects" ? "project" : "group"} the pattern matches on the platform is at or below it${archivedNote}`,
      source: s.exceptSources?.[i] ?? source,
    });
  });
  return out;
}

/** Lists what each selector matches and merges every matching entry into the desired state. */
export async function expandSelectors(
  state: DesiredState,
  ctx: KindContext,
  targets: readonly string[],
  changes?: ChangeScope,
): Promise<Expanded> {
  const summaries: SelectorSummary[] = [];
  const warnings: PlanProblem[] = [];
  const root = state.root;
  const collections = {
    groups: root.children["groups"],
    projects: root.children["projects"],
  };
  // Groups declared by full path are candidates too (apply creates them); projects are never created, so a pattern
  // matches only the projects its listing holds (which leaves out archived ones unless include_archived).
  const exactGroups = (collections.groups?.items ?? []).filter((n) => n.state !== "absent").map((n) => n.key);
  const relevantSelectors = state.selectors.filter((s) => relevant(s, targets));
  // With --changed-since, only a pattern that changed is listed (everything it matches is planned whole); the
  // others apply to the objects planned anyway, by path.
  const changed = (s: Selector) => !changes || changes.selectors.has(addressOf(s));
  const listed = relevantSelectors.filter(changed);
  // Project settings declared anywhere: listings hold the projects in full, and their settings are read with them.
  const settings = [
    ...(collections.projects?.items ?? []),
    ...state.selectors.filter((s) => s.collection === "projects").map((s) => s.node),
  ].some((n) => n.state !== "absent" && Object.keys(n.fields).length > 0);
  // The removed patterns' listings with the others: one that another covers costs no request of its own.
  const removed = changes?.removedPatterns ?? [];
  const listings = await readAll(
    ctx,
    [...listed, ...removed].map((s) => listingOf(s)),
    settings,
  );
  const listingFor = new Map(listed.map((s, i) => [s, listings[i]]));

  // For unchanged patterns: the paths other listings hold, by whether archived projects were left out of them.
  const known = { groups: new Set<string>(), projects: new Set<string>(), archivedToo: new Set<string>() };
  for (const [s, paths] of listingFor) {
    const set =
      s.collection === "groups" ? known.groups : s.includeArchived ? known.archivedToo : known.projects;
    for (const p of paths ?? []) set.add(p);
  }
  const exactProjects = (collections.projects?.items ?? []).map((n) => n.key);
  // With --changed-since, objects whose entry was removed where a pattern still applies: each read once, to know
  // that it is there (and, for a project, whether it is archived), as a full plan's listings would.
  const released = await releasedObjects(ctx, changes, listings.slice(listed.length));
  const unchangedCandidates = (s: Selector): string[] => {
    if (s.collection === "groups") return [...known.groups, ...exactGroups, ...released.groups];
    return [
      ...known.projects,
      ...(s.includeArchived ? [...known.archivedToo, ...exactProjects] : exactProjects),
      ...released.projects.filter((p) => s.includeArchived || !released.archived.has(p.toLowerCase())),
    ];
  };
  const releasedPaths = new Set([...released.groups, ...released.projects].map((p) => p.toLowerCase()));
  // An unchanged pattern that leaves archived projects out and matches projects declared by full path that no
  // listing holds learns which of them are archived from one listing of its root's archived projects (usually
  // short).
  const listedProjects = new Set([...known.projects].map((p) => p.toLowerCase()));
  const archivedChecks = relevantSelectors.filter(
    (s) =>
      !changed(s) &&
      s.collection === "projects" &&
      !s.includeArchived &&
      exactProjects.some((p) => inPattern(s, p) && !listedProjects.has(p.toLowerCase())),
  );
  const archivedLists = await readAll(
    ctx,
    archivedChecks.map((s) => listingOf(s, true)),
    false,
  );
  const archived = new Set(archivedLists.flatMap((l) => l ?? []).map((p) => p.toLowerCase()));

  // Projects declared by full path that a listed pattern would match but its listing does not hold: archived (left
  // out of it), or not there yet, to be created; one read each tells, and a project to be created is matched.
  const presentProjects = (collections.projects?.items ?? []).filter((n) => n.state !== "absent");
  const unlisted = new Map<string, string>();
  for (const [s, paths] of listingFor) {
    if (s.collection !== "projects" || paths === undefined) continue;
    const held = new Set(paths.map((p) => p.toLowerCase()));
    for (const n of presentProjects)
      if (selects(s, n.key) && !held.has(n.key.toLowerCase())) unlisted.set(n.key.toLowerCase(), n.key);
  }
  const created = new Set<string>();
  await Promise.all(
    [...unlisted.values()].map(async (path) => {
      if ((await readProject(ctx, path)) === undefined) created.add(path.toLowerCase());
    }),
  );

  // Matched paths per collection, in listing order, each with the selectors that match it.
  const matches = { groups: new Map<string, Selector[]>(), projects: new Map<string, Selector[]>() };
  const spelled = { groups: new Map<string, string>(), projects: new Map<string, string>() };
  for (const selector of relevantSelectors) {
    const isListed = listingFor.has(selector);
    const paths = listingFor.get(selector);
    const candidates = isListed
      ? [
          ...(paths ?? []),
          ...(selector.collection === "groups"
            ? exactGroups
            : presentProjects.map((n) => n.key).filter((p) => created.has(p.toLowerCase()))),
        ]
      : unchangedCandidates(selector).filter(
          (p) =>
            selector.collection === "groups" || selector.includeArchived || !archived.has(p.toLowerCase()),
        );
    // What the pattern matches before except:, once each.
    const pool = [
      ...new Map(candidates.filter((p) => inPattern(selector, p)).map((p) => [p.toLowerCase(), p])).values(),
    ];
    let inScope = 0;
    let matchesAny = false;
    for (const path of pool) {
      if (!selects(selector, path)) continue;
      matchesAny = true;
      if (!inTargets(path, targets)) continue;
      inScope++;
      const lower = path.toLowerCase();
      if (isListed || releasedPaths.has(lower))
        changes?.whole.add(`${selector.collection}[${JSON.stringify(path)}]`);
      const list = matches[selector.collection].get(lower) ?? [];
      list.push(selector);
      matches[selector.collection].set(lower, list);
      if (!spelled[selector.collection].has(lower)) spelled[selector.collection].set(lower, path);
    }
    if (!isListed) continue; // its count is not known without its listing
    // Under --target, a pattern that matches only outside the targets says nothing.
    if (inScope > 0 || !matchesAny) {
      summaries.push({
        collection: selector.collection,
        pattern: selector.pattern,
        matched: inScope,
        source: selector.node.source,
      });
    }
    warnings.push(...selectorWarnings(selector, paths, pool, matchesAny));
  }

  const children = { ...root.children };
  for (const collection of ["groups", "projects"] as const) {
    const coll = collections[collection];
    if (!coll && matches[collection].size === 0) continue;
    const exactByPath = new Map((coll?.items ?? []).map((n) => [n.key.toLowerCase(), n]));
    const items: DesiredNode[] = [];
    const merged = (lower: string, exact: DesiredNode | undefined): DesiredNode => {
      const entries = [...(matches[collection].get(lower) ?? [])].sort(
        (a, b) => specificity(a.pattern) - specificity(b.pattern),
      );
      const path = exact?.key ?? spelled[collection].get(lower)!;
      let node: DesiredNode | undefined;
      for (const selector of entries) {
        const applied = atPath(selector.node, path);
        node = node ? mergeNodes(node, applied) : applied;
      }
      node = exact ? (node ? mergeNodes(node, exact) : exact) : { ...node!, fromPattern: true };
      return collection === "projects" ? withHashedCrons(node) : node;
    };
    for (const item of coll?.items ?? []) {
      items.push(item.state === "absent" ? item : merged(item.key.toLowerCase(), item));
    }
    for (const lower of matches[collection].keys()) {
      if (!exactByPath.has(lower)) items.push(merged(lower, undefined));
    }
    children[collection] = { ...(coll ?? { policy: collection === "groups" ? "warn" : "ignore" }), items };
  }
  const unread = relevantSelectors.filter((sel) => !changed(sel));
  return {
    state: { ...state, root: { ...root, children }, selectors: [] },
    summaries,
    warnings,
    listed: [...known.groups, ...known.projects],
    unknowable: (target) => unread.some((sel) => relevant(sel, [target])),
  };
}
