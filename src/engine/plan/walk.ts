/**
 * The walk over the desired graph, one collection at a time: which objects this run plans (targets, shards, the
 * change scope of --changed-since), then for each collection the phases in order: read its live objects
 * (read.ts), match them with the declared ones (match.ts), plan each declared object (item.ts: diff, create,
 * update, delete), then the live objects the manifests do not mention (unmanaged.ts). Groups come first (what
 * follows may depend on groups this plan creates); top-level groups and projects are planned a window at a time.
 */
import pLimit from "p-limit";
import { UNCHECKED } from "../../kinds/common.js";
import { addressOf, type Live, type Parent, type ReadOptions } from "../../kinds/kind.js";
import type { DesiredCollection, DesiredNode } from "../../manifest/model.js";
import { selects } from "../../manifest/selectors.js";
import { collectionPath, itemPath, touches, wholeUnder } from "../changes.js";
import { unitOf } from "../shard.js";
import { inTargets } from "../targets.js";
import { ownFields } from "./diff.js";
import { planItem } from "./item.js";
import { maskedFields } from "./mask.js";
import { identities, match } from "./match.js";
import { readCollection } from "./read.js";
import type { PlanState } from "./state.js";
import type { Step } from "./types.js";
import { planUndeclared } from "./unmanaged.js";

/**
 * Plans every collection of `node` (the root, or one object), whose own object is `self`; `npath` is the node's
 * place in the manifests (src/engine/changes.ts), which --changed-since looks up. It is passed down, not kept with
 * the node: a pattern's items are one node in every object the pattern matches.
 */
export async function walkNode(
  state: PlanState,
  node: DesiredNode,
  self: Parent,
  exists: boolean,
  depth: number,
  out: Step[],
  npath = "",
): Promise<void> {
  const entries = Object.entries(node.children).filter(
    ([collection]) =>
      depth > 0 || collection === "groups" || collection === "projects" || state.instanceSelected,
  );
  // Groups first (projects and their collections may depend on groups created in this plan), then the other
  // collections together; each collection's steps are kept together, in the manifest's order.
  const groups = entries.find(([c]) => c === "groups");
  if (groups) await walkCollection(state, groups[0], groups[1], self, exists, depth, out, npath);
  const rest = entries.filter(([c]) => c !== "groups");
  const walk = async ([c, coll]: (typeof rest)[number]) => {
    const mine: Step[] = [];
    await walkCollection(state, c, coll, self, exists, depth, mine, npath);
    return mine;
  };
  // A project addressed without a read: the first collection's read tells whether it exists, before the others
  // are asked (a project this plan creates costs one 404, not one per collection; its item walks them again).
  const probing = exists && self.live?.unverified === true && rest.length > 1;
  const first = probing ? await walk(rest[0]!) : undefined;
  const others =
    first && state.missingProjects.has(self.address)
      ? []
      : await Promise.all(rest.slice(first ? 1 : 0).map(walk));
  for (const steps of first ? [first, ...others] : others) for (const step of steps) out.push(step);
}

/** The declared objects of a collection this run plans, and whether the whole collection is read. */
function selectItems(
  state: PlanState,
  collection: string,
  coll: DesiredCollection,
  npath: string,
): {
  items: DesiredNode[];
  fullRead: boolean;
  compared: (item: DesiredNode) => boolean;
  pathOf: (item: DesiredNode) => string;
} {
  const topLevel = collection === "groups" || collection === "projects";
  const targeted = topLevel
    ? coll.items.filter(
        (item) =>
          inTargets(item.key, state.targets) && (!state.shardUnits || state.shardUnits.has(unitOf(item.key))),
      )
    : coll.items;
  // With --changed-since, only what changed (and what leads to it) is read and compared.
  const changes = state.changes;
  if (!changes) return { items: targeted, fullRead: true, compared: () => true, pathOf: () => "" };
  const cpath = collectionPath(npath, collection);
  // Paths are needed only to look changes up: without --changed-since, every item is compared. They are this
  // collection's own: an item a pattern gives is one node in every object the pattern matches.
  const paths = new Map(targeted.map((item) => [item, itemPath(cpath, item)]));
  const inWhole = wholeUnder(changes, npath);
  // The declared groups: with the policy over their undeclared subgroups changed, every one is read for them.
  const everyGroup = cpath === "groups" && changes.subgroupsOf === undefined;
  return {
    items: inWhole || everyGroup ? targeted : targeted.filter((i) => touches(changes, paths.get(i)!)),
    fullRead:
      inWhole ||
      changes.collections.has(cpath) ||
      (cpath === "groups" && (changes.subgroupsOf?.size ?? 1) > 0),
    compared: (item) => {
      const at = paths.get(item)!;
      return inWhole || changes.nodes.has(at) || wholeUnder(changes, at);
    },
    pathOf: (item) => paths.get(item)!,
  };
}

/**
 * The declared groups whose undeclared subgroups are reported (ReadOptions.reportBelow), when not every group read:
 * not those only a pattern matched; with --changed-since, those whose subgroups the change concerns.
 */
function reportBelow(
  state: PlanState,
  collection: string,
  depth: number,
  items: DesiredNode[],
  keyOf: (item: DesiredNode) => string,
): Pick<ReadOptions, "reportBelow"> {
  const below = state.changes?.subgroupsOf;
  const scoped = collection === "groups" && depth === 0 && below !== undefined;
  if (!scoped && !items.some((i) => i.fromPattern)) return {};
  return {
    reportBelow: items
      .filter((i) => !i.fromPattern && (!scoped || below.has(i.key.toLowerCase())))
      .map(keyOf),
  };
}

/**
 * The settings the declared objects set under `unchecked:`, by their API names (read back to be compared), and
 * the identities of the objects that set any (read again on their own when a list's copy lacks them).
 */
function uncheckedOptions(
  items: DesiredNode[],
  keyOf: (item: DesiredNode) => string,
): Pick<ReadOptions, "unchecked" | "uncheckedOf"> {
  const names = new Set<string>();
  const of: string[] = [];
  for (const item of items) {
    const own = Object.keys(item.fields).filter((field) => field.startsWith(UNCHECKED));
    if (own.length === 0) continue;
    of.push(keyOf(item));
    for (const field of own) names.add(field.slice(UNCHECKED.length));
  }
  return of.length > 0 ? { unchecked: [...names].sort(), uncheckedOf: of } : {};
}

/** Plans one collection of `parent`: read, match, each declared object, then the undeclared ones. */
async function walkCollection(
  state: PlanState,
  collection: string,
  coll: DesiredCollection,
  parent: Parent,
  parentExists: boolean,
  depth: number,
  out: Step[],
  npath: string,
): Promise<void> {
  const topLevel = collection === "groups" || collection === "projects";
  const parentAddress = topLevel ? "" : parent.address;
  const { items, fullRead, compared, pathOf } = selectItems(state, collection, coll, npath);
  // In a chunk of a plan made in chunks, the root's groups and projects are read and matched as part of all of them.
  const whole = depth === 0 && topLevel ? state.chunk?.order[collection as "groups" | "projects"] : undefined;
  if (!fullRead && items.length === 0) return;
  const licensedOnly = state.registry
    .fields(parent.parent?.collection ?? "", parent.collection)
    .get(collection)?.licensed;
  if (licensedOnly && state.ctx.edition === "core") {
    // None exists on the core edition (the platform answers 404 to their reads): one declared is an error; none
    // declared (an empty list, a prune policy) is what the platform holds already.
    if (coll.items.length > 0) {
      state.problem(
        parentAddress ? `${parentAddress}.${collection}` : collection,
        `${collection} exist only on the licensed edition, and this platform is the core edition: remove them from the manifest`,
        coll.items[0]!.source,
      );
    }
    return;
  }
  const kind = state.registry.kind(parent.collection, collection);
  const specs = state.registry.fields(parent.collection, collection);
  if (!kind) {
    for (const item of items) {
      state.problem(
        addressOf(parentAddress, { segment: collection }, item.label ?? item.key),
        `"${collection}" is not managed by this version of forgeform`,
        item.source,
      );
    }
    return;
  }

  const { keyOf } = identities(kind);
  // Objects whose own fields nothing declares need no read where the kind can address them without one: the reads
  // of their declared collections tell whether they exist. One that declares nothing at all (`acme/app: {}`) is
  // read, or nothing would tell that it is missing.
  const addressOnly = items
    .filter(
      (i) =>
        i.state !== "absent" && ownFields(specs, i.fields).length === 0 && Object.keys(i.children).length > 0,
    )
    .map(keyOf);
  const detailOf = items
    .filter((i) => ownFields(specs, i.fields).some(([f]) => specs.get(f)?.detailOnly))
    .map(keyOf);
  let lives: Live[] = [];
  if (parentExists) {
    // A kind that reads only the wanted objects (groups) also reads the undeclared ones below them only.
    const read = await readCollection(
      state,
      kind,
      parent,
      items.map(keyOf),
      {
        undeclared: coll.policy !== "ignore" && fullRead,
        ...uncheckedOptions(items, keyOf),
        ...(addressOnly.length > 0 ? { addressOnly } : {}),
        ...(detailOf.length > 0 ? { detailOf } : {}),
        ...reportBelow(state, collection, depth, items, keyOf),
        ...(whole ? { among: whole } : {}),
      },
      parentAddress ? `${parentAddress}.${collection}` : collection,
    );
    if (!read) return;
    lives = read;
  }
  const matched = match(state, kind, coll, items, lives, whole);
  if (state.changes && collection === "groups" && depth === 0) {
    // A subgroup declared but not read (the change does not touch it) comes in its parent's listing spelled as on
    // the platform (group paths are one whatever their case), or matched by a pattern whose listing is not read.
    const declared = new Set(coll.items.map((i) => i.key.toLowerCase()));
    const patterns = state.changes.groupPatterns ?? [];
    matched.undeclared = matched.undeclared.filter(
      (l) => !declared.has(l.key.toLowerCase()) && !patterns.some((sel) => selects(sel, l.key)),
    );
  }
  // Parents before children: sort top-level paths by depth.
  const ordered = topLevel
    ? [...items].sort((a, b) => a.key.split("/").length - b.key.split("/").length)
    : items;

  // Items are planned concurrently (their reads go through the client's concurrency limit); their steps are
  // kept in the manifest's order. Top-level groups and projects are planned a window at a time: enough of them
  // to keep every connection busy, few enough that a project's dependent reads (a schedule's detail after the
  // list) follow its lists at once, and that what a project holds while planned is released before the
  // thousandth starts. Their children are planned together, as before.
  const planOne = async (item: DesiredNode): Promise<Step[]> => {
    const key = matched.keyOf(item);
    const label = matched.labelOf(item);
    const address = addressOf(parentAddress, kind, label);
    const live = matched.liveOf(item);
    // An object addressed without a read was not seen: its children's reads are.
    if (live && !live.unverified)
      state.seen(address, maskedFields(specs, live.fields, item.fields, item.fields));
    const mine: Step[] = [];
    await planItem(
      state,
      mine,
      {
        kind,
        item,
        key,
        label,
        address,
        parentAddress,
        parent,
        live,
        parentExists,
        depth,
        scope: matched.scope,
        compare: compared(item),
        npath: pathOf(item),
      },
      (node, self, exists, d, o) => walkNode(state, node, self, exists, d, o, pathOf(item)),
    );
    return mine;
  };
  const window = topLevel ? pLimit(state.window) : undefined;
  const perItem = await Promise.all(
    ordered.map((item) => (window ? window(() => planOne(item)) : planOne(item))),
  );
  perItem.forEach((steps, i) => {
    if (depth === 0) state.place(steps, collection, topLevel ? ordered[i]!.key : undefined);
    for (const step of steps) out.push(step);
  });

  if (coll.policy === "ignore" || !fullRead) return;
  await planUndeclared(state, out, { kind, specs, coll, collection, parent, parentAddress, depth, matched });
}
