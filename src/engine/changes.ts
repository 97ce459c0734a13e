/**
 * `--changed-since REF`: which parts of the desired state differ between two versions of the manifests, so that a
 * pull request's plan reads and compares only those. Entries are compared after templates (an entry whose template
 * changed has changed), node by node: a node whose own fields, state or prune policies differ is planned; a node that
 * is new (or matched by a changed pattern) is planned with everything below it; a collection whose policy changed or
 * that lost an entry is read in full, so what becomes unmanaged (or deleted) shows, and an item an entry no longer
 * declares (or a collection it no longer mentions) is compared, in case a pattern over the object declares it.
 * Everything else is not read.
 *
 * Nodes are named by their place in the manifests (`projects["acme/api"].pipeline_schedules["Nightly"]`), with
 * identities as shown (secrets masked), so both versions can be loaded without resolving any secret. A secret
 * compares by what the manifest writes: a reference by where it points (`${env:A}` made `${env:B}` is a change, a new
 * value of A is not: it is not a change of the manifests), a value written in the manifest (a sensitive field set
 * inline) by its digest.
 */
import { createHash } from "node:crypto";
import { isAbsolute, relative, sep } from "node:path";
import type { DesiredCollection, DesiredNode, DesiredState, Selector } from "../manifest/model.js";
import { isSecret, type Secret } from "../manifest/secret.js";
import { selects } from "../manifest/selectors.js";

export interface ChangeScope {
  /** Nodes to compare: their own content changed (or they are new). */
  nodes: Set<string>;
  /** Nodes to plan with everything below them. */
  whole: Set<string>;
  /** Collections to read in full, undeclared objects included. */
  collections: Set<string>;
  /** Pattern entries that changed (`projects["acme/**"]`): every object they match is planned whole. */
  selectors: Set<string>;
  /** Nodes with something in scope at or below them: read (for ids and live state), compared only if in `nodes`. */
  ancestors: Set<string>;
  /**
   * Declared groups (full paths, lower case) whose undeclared direct subgroups the plan reports, as a full plan
   * does: a group newly declared, and the group above one no longer declared (which becomes unmanaged). Undefined
   * when the policy over them (`instance.unmanaged.groups`) changed: then every declared group's are.
   */
  subgroupsOf?: Set<string>;
  /**
   * Groups and projects (paths as declared at REF) whose entry was removed while a pattern still applies to them:
   * the patterns' settings now show, and they are planned as the patterns make them (src/engine/select.ts).
   */
  released?: Record<"groups" | "projects", string[]>;
  /**
   * The group patterns now: a subgroup one of them matches is declared, though a pull request's plan lists what it
   * matches only when it changed.
   */
  groupPatterns?: Selector[];
  /**
   * Patterns removed: what they matched that a pattern still applies to is planned as the patterns now make it
   * (the more specific one gone, the broader one's settings show), as `released` objects are.
   */
  removedPatterns?: Selector[];
}

/** The manifest path of an item of a collection. */
export function itemPath(collectionPath: string, node: DesiredNode): string {
  return labelPath(collectionPath, pathName(node));
}

/**
 * An item's name in the paths of a change: its identity in the terms of its normalisers (`compare`: a member's user
 * in lower case, so that an entry's `Erin` and a pattern's `erin` are one item), or as shown where a secret is in
 * it (`label`: `compare` holds the secret's value).
 */
function pathName(node: DesiredNode): string {
  return node.label ?? node.compare ?? node.key;
}

/** The manifest path of the item of a collection with this label (its identity as shown). */
function labelPath(collectionPath: string, label: string): string {
  return `${collectionPath}[${JSON.stringify(label)}]`;
}

/** The manifest path of a collection of a node (the root's collections have no prefix). */
export function collectionPath(nodePath: string, collection: string): string {
  return nodePath === "" ? collection : `${nodePath}.${collection}`;
}

/**
 * Where each version's manifests are: a file a manifest names (a token_file, a wiki page's attachments) is held as
 * its absolute path, and the version at REF is read from another folder than the working tree's, so such a path
 * compares by its place below its version's root. Without roots, paths compare as they are.
 */
export interface ScopeRoots {
  base: string;
  head: string;
}

/** `fields` with the paths of the files they name relative to `root` (see ScopeRoots). */
function placedFields(fields: DesiredNode["fields"], root: string | undefined): DesiredNode["fields"] {
  if (root === undefined) return fields;
  const token = fields["token_file"];
  const attachments = fields["attachments"];
  if (typeof token !== "string" && !Array.isArray(attachments)) return fields;
  const place = (p: unknown) => {
    if (typeof p !== "string") return p;
    const rel = relative(root, p);
    const outside = rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
    return outside ? p : `./${rel.split(sep).join("/")}`;
  };
  return {
    ...fields,
    ...(typeof token === "string" ? { token_file: place(token) } : {}),
    ...(Array.isArray(attachments) ? { attachments: attachments.map(place) } : {}),
  };
}

/** A node's own content: state, fields and policies, secrets by where they come from, files by their place. */
function ownDigest(node: DesiredNode, root: string | undefined): string {
  // Written policies only: a collection newly mentioned is in scope on its own (read in full), not its owner.
  const policies = Object.fromEntries(
    Object.entries(node.children)
      .filter(([, coll]) => coll.policyDeclared)
      .map(([c, coll]) => [c, coll.policy]),
  );
  // JSON.stringify hands a replacer what toJSON returned (a Secret's mask): the holder's own value is the Secret.
  return JSON.stringify(
    [node.state, placedFields(node.fields, root), policies],
    function (this: unknown, key, v: unknown) {
      const own = (this as Record<string, unknown>)[key];
      return isSecret(own) ? secretDigest(own) : v;
    },
  );
}

/** What a secret's manifest text is, without the secret: its reference, or a digest of an inline value. */
function secretDigest(secret: Secret): string {
  if (secret.origin !== "literal") return `secret:${secret.origin}:${secret.shown}`;
  return `secret:literal:${createHash("sha256").update(secret.reveal()).digest("base64")}`;
}

function byLabel(coll: DesiredCollection | undefined): Map<string, DesiredNode[]> {
  const out = new Map<string, DesiredNode[]>();
  for (const item of coll?.items ?? []) {
    const label = pathName(item);
    out.set(label, [...(out.get(label) ?? []), item]);
  }
  return out;
}

/** How two versions are compared: where each was read, and the patterns now. */
interface Comparison {
  roots: ScopeRoots | undefined;
  /** The patterns of the version now (none when comparing two versions of one pattern's body). */
  selectors: readonly Selector[];
}

/**
 * Compares two versions of a node; true when anything at or below it is in scope (it is then an ancestor).
 * `covered`: a pattern now applies to the group or project the node is (or is in).
 */
function compareNodes(
  base: DesiredNode,
  head: DesiredNode,
  path: string,
  scope: ChangeScope,
  how: Comparison,
  covered = false,
): boolean {
  const roots = how.roots;
  let touched = false;
  if (ownDigest(base, roots?.base) !== ownDigest(head, roots?.head)) {
    scope.nodes.add(path);
    touched = true;
  }
  for (const name of new Set([...Object.keys(base.children), ...Object.keys(head.children)])) {
    touched =
      compareCollections(
        base.children[name],
        head.children[name],
        collectionPath(path, name),
        scope,
        how,
        covered,
      ) || touched;
  }
  if (touched) scope.ancestors.add(path);
  return touched;
}

function compareCollections(
  base: DesiredCollection | undefined,
  head: DesiredCollection | undefined,
  path: string,
  scope: ChangeScope,
  how: Comparison,
  covered: boolean,
): boolean {
  if (!head) {
    // A collection the entry no longer mentions is no longer managed by it (nothing to read), but a pattern over the
    // object may declare it, or some of its items: the pattern's then apply, as in a full plan. So it is read in
    // full and each item the entry had is compared; where no pattern declares the collection, the walk never
    // comes to it.
    if (!base || !covered) return false;
    scope.collections.add(path);
    for (const label of byLabel(base).keys()) scope.whole.add(labelPath(path, label));
    return true;
  }
  let touched = false;
  const full = () => {
    scope.collections.add(path);
    touched = true;
  };
  // A policy no longer written (or newly written) may hand the collection to a pattern's policy, or take it back.
  if (!base || base.policy !== head.policy || !base.policyDeclared !== !head.policyDeclared) full();
  const before = byLabel(base);
  const after = byLabel(head);
  for (const [label, items] of after) {
    const previous = before.get(label);
    const at = labelPath(path, label);
    if (!previous) {
      scope.whole.add(at);
      touched = true;
    } else if (items.length !== 1 || previous.length !== 1) full();
    else {
      // A group or project entry: whether a pattern now applies to it (collections it drops may be the pattern's).
      const top = path === "groups" || path === "projects";
      const under =
        covered ||
        (top && how.selectors.some((sel) => sel.collection === path && selects(sel, items[0]!.key)));
      touched = compareNodes(previous[0]!, items[0]!, at, scope, how, under) || touched;
    }
  }
  // An item the entry no longer has: undeclared now (the collection read in full), or a pattern's item that the
  // entry's had overridden, compared as the pattern makes it.
  for (const label of before.keys()) {
    if (after.has(label)) continue;
    full();
    if (covered) scope.whole.add(labelPath(path, label));
  }
  return touched;
}

/**
 * What a pattern no longer gives an object its entry declares (the pattern removed, or changed so that it may no
 * longer match): in each collection both declare, the pattern's items are undeclared now (reported, or deleted by
 * the collection's policy, as a full plan does) or another pattern's. Each such collection is read in full and
 * each item both declare compared whole. True when anything was put in scope.
 */
function leftByPattern(pattern: DesiredNode, entry: DesiredNode, path: string, scope: ChangeScope): boolean {
  let touched = false;
  for (const [name, coll] of Object.entries(pattern.children)) {
    const own = entry.children[name];
    if (!own) continue;
    const cpath = collectionPath(path, name);
    scope.collections.add(cpath);
    touched = true;
    const declared = byLabel(own);
    for (const label of byLabel(coll).keys())
      if (declared.has(label)) scope.whole.add(labelPath(cpath, label));
  }
  return touched;
}

/**
 * The groups whose undeclared subgroups a change makes reported (see ChangeScope.subgroupsOf); the groups above
 * one no longer declared are read for it, not compared.
 */
function subgroupsOf(
  base: DesiredState,
  head: DesiredState,
  scope: ChangeScope,
  /** The roots (lower case) of group patterns removed or changed: what they matched may be undeclared now. */
  patternRoots: string[],
): Set<string> | undefined {
  const before = base.root.children["groups"];
  const after = head.root.children["groups"];
  if (!after) return new Set();
  if (before && before.policy !== after.policy) return undefined;
  const lower = (coll: DesiredCollection | undefined) =>
    new Map((coll?.items ?? []).map((i) => [i.key.toLowerCase(), i]));
  const was = lower(before);
  const now = lower(after);
  const out = new Set<string>();
  for (const [key, node] of now) {
    if (!was.has(key)) out.add(key);
    else if (patternRoots.some((root) => root === "" || key === root || key.startsWith(`${root}/`))) {
      out.add(key);
      scope.ancestors.add(itemPath("groups", node));
    }
  }
  for (const key of was.keys()) {
    if (now.has(key)) continue;
    const up = key.includes("/") ? key.slice(0, key.lastIndexOf("/")) : undefined;
    const parent = up === undefined ? undefined : now.get(up);
    if (!parent) continue;
    out.add(up!);
    scope.ancestors.add(itemPath("groups", parent));
  }
  return out;
}

/** What differs between the manifests at a base revision and now (`roots`: where each was read, see ScopeRoots). */
export function changeScope(base: DesiredState, head: DesiredState, roots?: ScopeRoots): ChangeScope {
  const scope: ChangeScope = {
    nodes: new Set(),
    whole: new Set(),
    collections: new Set(),
    selectors: new Set(),
    ancestors: new Set(),
  };
  compareNodes(base.root, head.root, "", scope, { roots, selectors: head.selectors });
  const patterns = (s: DesiredState) =>
    new Map(s.selectors.map((sel) => [`${sel.collection}[${JSON.stringify(sel.pattern)}]`, sel]));
  const before = patterns(base);
  const after = patterns(head);
  // Patterns whose `except:` or `include_archived` changed: what they matched may no longer be theirs.
  const rematched = new Set<string>();
  for (const [name, sel] of after) {
    const old = before.get(name);
    if (
      !old ||
      JSON.stringify([old.except, old.includeArchived]) !== JSON.stringify([sel.except, sel.includeArchived])
    ) {
      scope.selectors.add(name);
      if (old) rematched.add(name);
      continue;
    }
    const probe: ChangeScope = {
      nodes: new Set(),
      whole: new Set(),
      collections: new Set(),
      selectors: new Set(),
      ancestors: new Set(),
    };
    // Covered: a collection the pattern's body no longer mentions is a change of the pattern too.
    compareNodes(old.node, sel.node, "", probe, { roots, selectors: [] }, true);
    if (probe.nodes.size + probe.whole.size + probe.collections.size > 0) scope.selectors.add(name);
  }
  // A pattern that was removed leaves the objects it alone declared as they are: nothing to read. Of the objects an
  // entry declares, the collections it shared with the pattern lose the pattern's items (leftByPattern); so may
  // those of a changed pattern that no longer matches them.
  for (const [name, sel] of before) {
    if (after.has(name) && !scope.selectors.has(name)) continue;
    for (const entry of head.root.children[sel.collection]?.items ?? []) {
      if (entry.state === "absent" || !selects(sel, entry.key)) continue;
      const at = itemPath(sel.collection, entry);
      if (leftByPattern(sel.node, entry, at, scope)) scope.ancestors.add(at).add("");
    }
  }
  // What a group pattern removed or changed matched may be undeclared now: reported below the declared groups
  // under its root.
  const patternRoots = [...before]
    .filter(([name, sel]) => sel.collection === "groups" && (!after.has(name) || scope.selectors.has(name)))
    .map(([, sel]) => sel.prefix.toLowerCase());
  const below = subgroupsOf(base, head, scope, patternRoots);
  if (below) scope.subgroupsOf = below;
  // Of the patterns removed, those a pattern now over or under the same paths may take over from; and the old
  // versions of those whose `except:` or `include_archived` changed (an object an `except:` added leaves out is
  // another pattern's now, whose policy may delete what only this one declared there).
  const overlap = (a: Selector, b: Selector) => {
    const [x, y] = [a.prefix.toLowerCase(), b.prefix.toLowerCase()];
    return x === "" || y === "" || x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
  };
  const removedPatterns = [...before]
    .filter(([name]) => !after.has(name) || rematched.has(name))
    .map(([, sel]) => sel)
    .filter((sel) =>
      head.selectors.some(
        (now) => now.collection === sel.collection && now.pattern !== sel.pattern && overlap(now, sel),
      ),
    );
  if (removedPatterns.length > 0) scope.removedPatterns = removedPatterns;
  const groupPatterns = head.selectors.filter((sel) => sel.collection === "groups");
  if (groupPatterns.length > 0) scope.groupPatterns = groupPatterns;
  // An entry removed where a pattern still applies leaves the object to the pattern, whose settings then show
  // (the entry's description gone, the pattern's comes back): the object is planned as the patterns make it.
  for (const collection of ["groups", "projects"] as const) {
    const now = new Set((head.root.children[collection]?.items ?? []).map((i) => i.key.toLowerCase()));
    const released = (base.root.children[collection]?.items ?? [])
      .filter((i) => i.state !== "absent" && !now.has(i.key.toLowerCase()))
      .map((i) => i.key)
      .filter((key) => head.selectors.some((sel) => sel.collection === collection && selects(sel, key)));
    if (released.length === 0) continue;
    scope.released ??= { groups: [], projects: [] };
    scope.released[collection] = released;
  }
  return scope;
}

/** Whether the node at `path` (or one above it) is planned with everything below it. */
export function wholeUnder(scope: ChangeScope, path: string): boolean {
  for (const w of scope.whole) if (path === w || path.startsWith(`${w}.`)) return true;
  return false;
}

/** Whether anything at or below `path` is in scope. */
export function touches(scope: ChangeScope, path: string): boolean {
  return (
    wholeUnder(scope, path) ||
    scope.nodes.has(path) ||
    scope.ancestors.has(path) ||
    [...scope.collections].some((c) => c === path || c.startsWith(`${path}.`))
  );
}
