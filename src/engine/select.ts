/**
 * Expands selectors (`projects: {"acme/**": ...}`) into the groups and projects they match on the platform: one
 * listing per pattern root (the group's projects with `include_subgroups`, its descendant groups, or the instance's
 * lists at the top), never a request per object. Each matched object gets the merge of every entry that matches it,
 * from the least to the most specific (src/manifest/selectors.ts), and `H` in its schedules' crons is replaced by
 * its stable value. Patterns match existing objects only (and objects the manifests declare by full path, which
 * apply creates): they never create anything themselves.
 */
import { ApiError, apiPath } from "../api/index.js";
import type { KindContext } from "../kinds/kind.js";
import type { DesiredNode, DesiredState, Selector, SourceRef } from "../manifest/model.js";
import { atPath, mergeNodes, selects, specificity, withHashedCrons } from "../manifest/selectors.js";
import type { PlanProblem, SelectorSummary } from "../plan/model.js";
import type { ChangeScope } from "./changes.js";
import { inTargets } from "./targets.js";

interface Listed {
  path: string;
}

/** The objects a selector's root holds, from one paginated listing (shared by selectors with the same listing). */
function listing(ctx: KindContext, selector: Selector): Promise<Listed[] | undefined> {
  const { collection, prefix, depth, includeArchived } = selector;
  const archived: Record<string, boolean> =
    collection === "projects" && !includeArchived ? { archived: false } : {};
  let path: string;
  let query: Record<string, string | number | boolean>;
  if (collection === "projects") {
    path = prefix === "" ? "/projects" : apiPath`/groups/${prefix}/projects`;
    query = {
      simple: true,
      ...archived,
      ...(prefix === "" ? {} : { with_shared: false }),
      ...(prefix !== "" && depth === "subtree" ? { include_subgroups: true } : {}),
    };
  } else if (prefix === "") {
    path = "/groups";
    query = { all_available: true, ...(depth === "children" ? { top_level_only: true } : {}) };
  } else {
    path =
      depth === "subtree"
        ? apiPath`/groups/${prefix}/descendant_groups`
        : apiPath`/groups/${prefix}/subgroups`;
    query = { all_available: true };
  }
  const memoKey = `select:${path}?${JSON.stringify(query)}`;
  let p = ctx.memo.get(memoKey) as Promise<Listed[] | undefined> | undefined;
  if (!p) {
    p = ctx.api.list<{ full_path?: string; path_with_namespace?: string }>(path, { query }).then(
      (items) => items.map((i) => ({ path: String(i.path_with_namespace ?? i.full_path ?? "") })),
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
  /** Patterns that matched nothing. */
  warnings: PlanProblem[];
  /** Every path the patterns' listings hold, within the targets or not (for did-you-mean on a target). */
  listed: string[];
  /** Whether what a target selects through patterns cannot be known in this run (a pattern left unread). */
  unknowable(target: string): boolean;
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
  const relevantSelectors = state.selectors.filter((s) => relevant(s, targets));
  // With --changed-since, only a pattern that changed is listed (everything it matches is planned whole); the
  // others apply to the objects planned anyway, by path.
  const changed = (s: Selector) =>
    !changes || changes.selectors.has(`${s.collection}[${JSON.stringify(s.pattern)}]`);
  const listings = await Promise.all(
    relevantSelectors.map((s) => (changed(s) ? listing(ctx, s) : Promise.resolve<Listed[]>([]))),
  );
  for (const [i, s] of relevantSelectors.entries()) {
    if (!changed(s)) continue;
    for (const l of listings[i] ?? []) changes?.whole.add(`${s.collection}[${JSON.stringify(l.path)}]`);
  }
  const known = { groups: new Set<string>(), projects: new Set<string>() };
  relevantSelectors.forEach((s, i) => {
    for (const l of listings[i] ?? []) known[s.collection].add(l.path);
  });
  // Matched paths per collection, in listing order, each with the selectors that match it.
  const matches = { groups: new Map<string, Selector[]>(), projects: new Map<string, Selector[]>() };
  const spelled = { groups: new Map<string, string>(), projects: new Map<string, string>() };
  relevantSelectors.forEach((selector, i) => {
    const exact = (collections[selector.collection]?.items ?? []).filter((n) => n.state !== "absent");
    const candidates = [
      ...(changed(selector) ? (listings[i] ?? []).map((l) => l.path) : known[selector.collection]),
      ...exact.map((n) => n.key),
    ];
    let count = 0;
    const seen = new Set<string>();
    for (const path of candidates) {
      const lower = path.toLowerCase();
      if (seen.has(lower) || !selects(selector, path) || !inTargets(path, targets)) continue;
      seen.add(lower);
      count++;
      const list = matches[selector.collection].get(lower) ?? [];
      list.push(selector);
      matches[selector.collection].set(lower, list);
      if (!spelled[selector.collection].has(lower)) spelled[selector.collection].set(lower, path);
    }
    const source: SourceRef = selector.node.source;
    if (!changed(selector)) return; // its count is not known without its listing
    summaries.push({ collection: selector.collection, pattern: selector.pattern, matched: count, source });
    if (count === 0) {
      warnings.push({
        address: `${selector.collection}[${JSON.stringify(selector.pattern)}]`,
        message:
          listings[i] === undefined
            ? `the pattern matches nothing: group ${selector.prefix} does not exist or is not visible to this token's user`
            : `the pattern matches no existing ${selector.collection}${selector.collection === "projects" && !selector.includeArchived ? " (archived projects are left out unless include_archived: true)" : ""}`,
        source,
      });
    }
  });

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
      if (exact) node = node ? mergeNodes(node, exact) : exact;
      return collection === "projects" ? withHashedCrons(node!) : node!;
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
