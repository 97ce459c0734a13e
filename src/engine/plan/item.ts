/**
 * One declared object: what it needs (the entry's own problems, the kind's checks), and whether it is created,
 * updated, replaced, deleted or left as it is. Its children are planned by the walk (walk.ts), which this module
 * is handed so that the two do not import each other.
 */

import { groupAddress, parentPath } from "../../kinds/group.js";
import {
  type CollectionScope,
  FieldError,
  type Fields,
  type Kind,
  type KindProblem,
  type Live,
  type Parent,
} from "../../kinds/kind.js";
import type { DesiredNode } from "../../manifest/model.js";
import { planDelete } from "./delete.js";
import { createdFields, fieldChanges, ownFields, writeOnlyChanges } from "./diff.js";
import type { PlanState } from "./state.js";
import type { ChangeBase, Specs, Step } from "./types.js";

/** Plans the children of an object (the walk's `walkNode`): its own collections, one level down. */
export type WalkChildren = (
  node: DesiredNode,
  self: Parent,
  exists: boolean,
  depth: number,
  out: Step[],
) => Promise<void>;

export interface ItemRequest {
  kind: Kind;
  item: DesiredNode;
  key: string;
  label: string;
  address: string;
  /** The parent's address, "" for top-level groups and projects. */
  parentAddress: string;
  parent: Parent;
  live: Live | undefined;
  parentExists: boolean;
  depth: number;
  scope: CollectionScope;
  /** Whether the object itself is compared (with --changed-since, an unchanged one is only walked through). */
  compare: boolean;
  /** Its place in the manifests, which --changed-since looks up ("" without it). */
  npath: string;
}

export async function planItem(
  state: PlanState,
  out: Step[],
  p: ItemRequest,
  walkChildren: WalkChildren,
): Promise<void> {
  const { kind, item, key, address, parent, depth } = p;
  let live = p.live;
  const specs = state.registry.fields(parent.collection, kind.collection);
  // Kept for groups and projects only: problems found reading their collections point at them.
  if (depth === 0) state.sources.set(address, item.source);
  if (item.state !== "absent" && item.needs && item.needs.length > 0) {
    // The entry left these to a pattern entry that did not apply to this object (except:, archived, not matched).
    const n = item.needs.length;
    state.problem(
      address,
      `missing required ${n === 1 ? "key" : "keys"} ${item.needs.map((k) => `"${k}"`).join(", ")}: this entry leaves ${n === 1 ? "it" : "them"} to a pattern entry declaring the same item, and none applies to ${parent.key}: declare ${n === 1 ? "it" : "them"} here`,
      item.source,
    );
    return;
  }
  if (live?.unverified) {
    // Addressed without a read (nothing of its own is declared): its children's reads tell whether it exists. (An
    // entry marked absent is always read: its delete shows what it deletes.)
    const below: Step[] = [];
    const probe: Parent = { address, collection: kind.collection, key, ref: live.id, live, parent };
    await walkChildren(item, probe, true, depth + 1, below);
    if (!state.missingProjects.has(address)) {
      if (state.replace.delete(address)) {
        state.problem(address, neverReplaced(kind), item.source);
      }
      if (p.compare) state.inSync.push(address);
      for (const step of below) out.push(step);
      return;
    }
    // It does not exist: planned as missing, with everything below it.
    for (const step of below) state.actions.delete(step.change.address);
    live = undefined;
    p = { ...p, live: undefined };
  }
  const self: Parent = { address, collection: kind.collection, key, ref: live?.id, live, parent };
  if (!p.compare && item.state !== "absent") {
    if (live) {
      // Unchanged, but something below it changed: read for its id, not compared.
      await walkChildren(item, self, true, depth + 1, out);
      return;
    }
    // Missing on the platform: it is planned as declared, with everything below it.
    state.changes?.whole.add(p.npath);
  } else if (!p.compare) return;
  const deps: string[] = [];
  const parentAction = state.actions.get(parent.address);
  if (parentAction === "create" || parentAction === "replace" || state.leading.has(parent.address))
    deps.push(parent.address);
  const base: ChangeBase = {
    address,
    collection: kind.collection,
    key: p.label,
    source: item.source,
    ...(p.parentAddress !== "" && p.parentAddress !== "instance" ? { parent: p.parentAddress } : {}),
    // An id that is a name holds the identity: with a secret in it, it is not shown.
    ...(live?.id !== undefined && (typeof live.id === "number" || p.label === key)
      ? { liveId: live.id }
      : {}),
  };

  if (item.state === "absent") {
    await planAbsent(state, out, p, { base, specs, self, deps });
    return;
  }
  const desired = await prepare(state, p);
  if (!desired) return;
  checkFields(state, p, specs, desired);
  const kindProblem = (problem: KindProblem) => report(state, p, problem);
  for (const problem of kind.check?.(state.ctx, parent, desired, live) ?? []) kindProblem(problem);
  if (kind.dependsOn) deps.push(...kind.dependsOn(parent, key, desired, live));
  const onCreate = kind.dependsOnCreate?.(parent, key, desired, live);
  if (onCreate) {
    deps.push(...onCreate);
    state.createOnly.set(address, new Set(onCreate));
  }
  const before = kind.before?.(parent, key, desired, live) ?? [];

  if (live?.readOnly) {
    state.problem(address, `cannot manage this object here: ${live.readOnly}`, item.source);
    return;
  }
  if (!live && kind.singleton && !p.parentExists) {
    // Settings of an object this plan creates: applied right after the create, as an update of the defaults.
    await planUpdate(state, out, {
      base: { ...base, reason: `applied right after ${parent.address} is created` },
      kind,
      specs,
      parent,
      self,
      key,
      desired,
      live: { key, id: key, fields: {} },
      deps,
      before,
      depth,
      forced: false,
      item,
    });
    return;
  }
  if (!live) {
    if (await planCreate(state, out, p, { base, specs, self, deps, before, desired }))
      await walkBelow(state, out, p, desired, undefined, (o) =>
        walkChildren(item, self, false, depth + 1, o),
      );
    return;
  }
  const forced = state.replace.has(address);
  if (forced) state.replace.delete(address);
  const planned = await planUpdate(state, out, {
    base,
    kind,
    specs,
    parent,
    self,
    key,
    desired,
    live,
    deps,
    before,
    depth,
    forced,
    item,
    scope: p.scope,
  });
  if (!planned && !forced) state.inSync.push(address);
  // Replaced, it is deleted with everything below it (a schedule's variables): what is declared there is created
  // again after it, not compared with what goes.
  const exists = state.actions.get(address) !== "replace";
  await walkBelow(state, out, p, desired, live, (o) => walkChildren(item, self, exists, depth + 1, o));
}

/**
 * Plans the children of an object whose own step (if any) is planned, in the order its kind asks (childOrder): its
 * change first, their changes waiting for it (a project unarchived); or last, waiting for theirs (archived); or a
 * warning that the platform refuses them (an archived project that stays archived).
 */
async function walkBelow(
  state: PlanState,
  out: Step[],
  p: ItemRequest,
  desired: Fields,
  live: Live | undefined,
  walk: (out: Step[]) => Promise<void>,
): Promise<void> {
  const own = out.find((s) => s.change.address === p.address);
  const hint = p.kind.childOrder?.(desired, live);
  if (own && hint && "order" in hint && hint.order === "first") state.leading.add(p.address);
  const below: Step[] = [];
  await walk(below);
  for (const step of below) out.push(step);
  const changes = below.filter((s) => s.change.action !== "unmanaged");
  if (!hint || changes.length === 0) return;
  if ("frozen" in hint) {
    state.warnings.push({
      address: p.address,
      message: `${changes.length} ${changes.length === 1 ? "change" : "changes"} below it may be refused: ${hint.frozen}`,
      source: p.item.source,
    });
    return;
  }
  if (hint.order !== "last" || !own) return;
  if (own.change.action === "create") {
    // Its children wait for its create, so it cannot wait for them.
    state.problem(
      p.address,
      `it is created archived, and ${changes.length} ${changes.length === 1 ? "change" : "changes"} inside it would follow its create, which the platform refuses in an archived project: leave archived out until they are applied, then set it`,
      p.item.fieldSources["archived"] ?? p.item.source,
    );
    return;
  }
  own.deps.push(...changes.map((s) => s.change.address));
}

/** Why a group or project is not replaced (deleted and created again), as `--replace` would have it. */
function neverReplaced(kind: Kind): string {
  return `a ${kind.segment} is never replaced: deleting it would take everything in it. Change its settings in place, or mark it "state: absent" to delete it (after its backup)`;
}

/** A problem (or a warning) the kind found, at the field it names when it names one. */
function report(state: PlanState, p: { address: string; item: DesiredNode }, problem: KindProblem): void {
  const address = problem.field ? `${p.address}.${problem.field}` : p.address;
  const source = (problem.field && p.item.fieldSources[problem.field]) || p.item.source;
  if (problem.severity !== "warning") state.problem(address, problem.message, source);
  else state.warnings.push({ address, message: problem.message, ...(source ? { source } : {}) });
}

/** An entry marked absent: the live object is deleted, when it exists and may be. */
async function planAbsent(
  state: PlanState,
  out: Step[],
  p: ItemRequest,
  q: { base: ChangeBase; specs: Specs; self: Parent; deps: string[] },
): Promise<void> {
  const { kind, item, address, parent, live } = p;
  if (!live) {
    // Nothing to delete; the kind may know why the object is still there in another form (an inherited member).
    const why = p.parentExists ? await kind.notHere?.(state.ctx, parent, p.key) : undefined;
    if (why) state.warnings.push({ address, message: why, source: item.source });
    return;
  }
  // Deleted with a group this plan deletes: planned there already.
  if (state.cascaded.has(address)) return;
  if (live.readOnly) {
    state.problem(address, `cannot delete: ${live.readOnly}`, item.source);
    return;
  }
  if (!kind.remove) {
    state.problem(address, `${kind.collection} cannot be deleted through the API`, item.source);
    return;
  }
  const refusals = (await kind.checkDelete?.(state.ctx, parent, live, item.fields, p.scope)) ?? [];
  for (const r of refusals) state.problem(address, r.message, item.source);
  if (refusals.length > 0) return;
  await planDelete(
    state,
    out,
    {
      base: q.base,
      kind,
      specs: q.specs,
      parent,
      self: q.self,
      key: p.key,
      live,
      depth: p.depth,
      deps: q.deps,
      desired: item.fields,
    },
    'marked "state: absent" in the manifest',
  );
}

/** The desired fields in the terms the kind reads (names resolved to ids), or undefined after a problem. */
async function prepare(state: PlanState, p: ItemRequest): Promise<Fields | undefined> {
  const { kind, item, address, parent } = p;
  try {
    return kind.prepare ? await kind.prepare(state.ctx, parent, item.fields, p.scope) : item.fields;
  } catch (error) {
    if (error instanceof FieldError) {
      state.problem(
        `${address}.${error.field}`,
        error.message,
        item.fieldSources[error.field] ?? item.source,
      );
    } else {
      state.problem(address, (error as Error).message, item.source);
    }
    return undefined;
  }
}

/**
 * Fields of the licensed edition on a core platform: a problem each, left out. (A deprecated field is the loader's
 * warning, at its place in the manifest; the kind's `prepare` sends it under its replacement.)
 */
function checkFields(state: PlanState, p: ItemRequest, specs: Specs, desired: Fields): void {
  for (const [field] of ownFields(specs, desired)) {
    const spec = specs.get(field);
    const source = p.item.fieldSources[field] ?? p.item.source;
    if (spec?.licensed && state.ctx.edition === "core") {
      state.problem(
        `${p.address}.${field}`,
        `${field} exists only on the licensed edition, and this platform is the core edition: remove it from the manifest`,
        source,
      );
      delete desired[field];
    }
  }
}

/** A declared object that does not exist: created, or a problem saying why it cannot be. True when created. */
async function planCreate(
  state: PlanState,
  out: Step[],
  p: ItemRequest,
  q: { base: ChangeBase; specs: Specs; self: Parent; deps: string[]; before: string[]; desired: Fields },
): Promise<boolean> {
  const { kind, item, key, address, parent } = p;
  if (item.fromPattern) {
    // Patterns match what the platform holds: this one has gone since the pattern's listing was read.
    state.problem(
      address,
      `${kind.segment} ${JSON.stringify(q.base.key)} was matched by a pattern but no longer exists (a pattern never creates anything): plan again`,
      item.source,
    );
    return false;
  }
  // A group or project created inside a group this plan deletes would go with it.
  for (let up = p.depth === 0 ? parentPath(key) : undefined; up; up = parentPath(up)) {
    if (state.actions.get(groupAddress(up)) !== "delete") continue;
    state.problem(
      address,
      `it would be created inside group ${up}, which is marked "state: absent": the platform would delete it with the group. Keep the group, or leave ${key} out`,
      item.source,
    );
    return false;
  }
  const found = (await kind.checkCreate?.(state.ctx, parent, key, q.desired, p.scope)) ?? [];
  for (const r of found) report(state, p, r);
  const refusals = found.filter((r) => r.severity !== "warning");
  if (!kind.create) {
    if (refusals.length === 0) {
      state.problem(
        address,
        `${kind.singleton ? kind.segment : `${kind.segment} ${JSON.stringify(q.base.key)}`} does not exist on ${parent.address}, and forgeform cannot create it: set it up on the platform first`,
        item.source,
      );
    }
    return false;
  }
  const createReason = await kind.createReason?.(state.ctx, parent, q.desired, key);
  state.push(out, {
    change: {
      ...q.base,
      action: "create",
      ...(createReason ? { reason: createReason } : {}),
      fields: await createdFields(state.ctx, kind, q.specs, q.desired),
    },
    kind,
    parent,
    self: q.self,
    key,
    desired: q.desired,
    changed: ownFields(q.specs, q.desired).map(([f]) => f),
    deps: q.deps,
    depth: p.depth,
    ...(q.before.length > 0 ? { before: q.before } : {}),
  });
  return true;
}

interface UpdateRequest {
  base: ChangeBase;
  kind: Kind;
  specs: Specs;
  parent: Parent;
  self: Parent;
  key: string;
  desired: Fields;
  live: Live;
  deps: string[];
  before: string[];
  depth: number;
  /** `--replace` names this object. */
  forced: boolean;
  item: DesiredNode;
  scope?: CollectionScope;
}

/** Compares an existing object with its desired fields and plans the update or replacement; false when equal. */
async function planUpdate(state: PlanState, out: Step[], p: UpdateRequest): Promise<boolean> {
  const { kind, specs, desired, live, forced, base } = p;
  const address = base.address;
  const changes = await fieldChanges(state.ctx, kind, specs, desired, live);
  const updatable = kind.singleton || !kind.remove || !kind.create;
  if (forced && updatable) changes.push(...writeOnlyChanges(specs, desired, changes));
  if (changes.length === 0 && !forced) return false;
  if (changes.length === 0 && updatable) {
    state.problem(address, "--replace: nothing to send (no write-only fields are declared)", base.source);
    return false;
  }
  const replaceByRequest = forced && !updatable;
  const replace =
    replaceByRequest || kind.updateMode === "replace" || changes.some((f) => f.forcesReplacement);
  if (replace && kind.explicitDeleteOnly) {
    // A group or project replaced would be deleted with everything in it, without a backup.
    state.problem(address, neverReplaced(kind), base.source);
    return false;
  }
  if (replaceByRequest) changes.push(...writeOnlyChanges(specs, desired, changes));
  const changed = changes.map((f) => f.field);
  const where = { address, item: p.item };
  if (!replace && kind.checkUpdate && p.scope) {
    const problems = await kind.checkUpdate(state.ctx, p.parent, live, desired, changed, p.scope);
    for (const problem of problems) report(state, where, problem);
  }
  if (replace && kind.checkReplace) {
    for (const problem of await kind.checkReplace(state.ctx, p.parent, live, desired))
      report(state, where, problem);
  }
  const note = replace ? await kind.replaceNote?.(state.ctx, p.parent, desired, p.key) : undefined;
  state.push(out, {
    change: {
      ...base,
      action: replace ? "replace" : "update",
      fields: changes,
      ...(replace
        ? {
            reason: `${
              replaceByRequest
                ? "replacement requested with --replace"
                : (kind.replaceReason ?? "a changed field cannot be updated in place")
            }${note ? `; ${note}` : ""}`,
          }
        : {}),
    },
    kind,
    parent: p.parent,
    self: p.self,
    key: p.key,
    desired,
    live,
    changed,
    deps: p.deps,
    depth: p.depth,
    ...(p.before.length > 0 ? { before: p.before } : {}),
  });
  return true;
}
