/**
 * Deletes: a live object marked absent or pruned by a `delete` policy, listed with its fields as they are; the
 * backup apply saves first (its name chosen now, where nothing is yet); and what the platform deletes with it (a
 * group's subgroups and projects), each a delete of its own that apply does not send. A project inside a deleted
 * group that the manifests mark absent themselves is deleted on its own first, after its own backup.
 */
import { join, relative } from "node:path";
import { freeName } from "../../files/write.js";
import {
  addressOf,
  type CascadedObject,
  type Fields,
  type Kind,
  type Live,
  type Parent,
} from "../../kinds/kind.js";
import { deletedFields } from "./diff.js";
import type { PlanState } from "./state.js";
import { type ChangeBase, INSTANCE, type Specs, type Step } from "./types.js";

export interface DeleteRequest {
  base: ChangeBase;
  kind: Kind;
  specs: Specs;
  parent: Parent;
  self: Parent;
  key: string;
  live: Live;
  depth: number;
  deps: string[];
  /** The entry marked absent, whose secret values mask the live ones. */
  desired?: Fields;
}

/** Plans the deletion of a live object, with the backup and the cascade its kind declares. */
export async function planDelete(
  state: PlanState,
  out: Step[],
  p: DeleteRequest,
  reason: string,
): Promise<void> {
  const fields = await deletedFields(state.ctx, p.kind, p.specs, p.live, p.desired);
  const backup = state.backup && p.kind.backup ? state.backup : undefined;
  // The archive's name is chosen now, where nothing is yet, and apply writes exactly there or fails.
  const backupFile = backup
    ? freeName(join(backup.dir, `${p.kind.segment}-${encodeURIComponent(p.key)}.tar.gz`), ".tar.gz")
    : undefined;
  if (backupFile && backup?.problem) state.problem(p.base.address, backup.problem, p.base.source);
  const step: Step = {
    change: {
      ...p.base,
      action: "delete",
      fields,
      reason,
      ...(backupFile && backup ? { backup: join(backup.shown, relative(backup.dir, backupFile)) } : {}),
    },
    kind: p.kind,
    parent: p.parent,
    self: p.self,
    key: p.key,
    live: p.live,
    changed: [],
    deps: p.deps,
    depth: p.depth,
    ...(backupFile ? { backupFile, ...(backup?.root ? { backupRoot: backup.root } : {}) } : {}),
  };
  const first = state.deleteBefore.get(p.base.address.toLowerCase());
  if (first) step.before = [first];
  state.push(out, step);
  const notes = [reason];
  if (p.kind.deletes) notes.push(`the platform deletes ${p.kind.deletes} with it`);
  if (step.change.backup && p.kind.backup)
    notes.push(
      `apply first saves its export archive to ${step.change.backup} (it holds ${p.kind.backup.holds}) and deletes nothing unless that archive checks out`,
    );
  if (p.kind.cascade) {
    const { taken, blocked } = await planCascade(state, out, step);
    const all = [...taken, ...blocked];
    if (all.length > 0) {
      const count = (segment: string, word: string) => {
        const n = all.filter((t) => t.segment === segment).length;
        return n === 0 ? [] : [`${n} ${word}${n === 1 ? "" : "s"}`];
      };
      notes.push(
        `the platform deletes its ${[...count("group", "subgroup"), ...count("project", "project")].join(" and ")} with it (${
          blocked.length === 0
            ? "each listed as deleted"
            : `${blocked.length} of them ${blocked.length === 1 ? "is" : "are"} still in the manifests: see the errors`
        })`,
      );
    }
  }
  step.change.reason = notes.join("; ");
}

/**
 * Lists what the platform deletes along with a deleted object (a group's subgroups and projects): each is a
 * delete in the plan, counted and shown like any other, which apply does not send itself. A declared object
 * among them is a plan error: deleting the group would take it too.
 */
async function planCascade(
  state: PlanState,
  out: Step[],
  owner: Step,
): Promise<{ taken: CascadedObject[]; blocked: CascadedObject[] }> {
  let objects: CascadedObject[];
  try {
    objects = await owner.kind.cascade!(state.ctx, owner.parent, owner.live!);
  } catch (error) {
    state.problem(
      owner.change.address,
      `cannot list what would be deleted with it: ${(error as Error).message}`,
      owner.change.source,
    );
    return { taken: [], blocked: [] };
  }
  const taken: CascadedObject[] = [];
  const blocked: CascadedObject[] = [];
  for (const o of objects) {
    const address = addressOf("", { segment: o.segment }, o.key);
    if (state.actions.has(address) || state.cascaded.has(address)) continue;
    if (o.collection === "projects" && state.declaredAbsent.has(o.key.toLowerCase())) {
      // Marked absent itself: deleted on its own, after its own backup, before the group goes.
      state.deleteBefore.set(address.toLowerCase(), owner.change.address);
      continue;
    }
    const declaredAt = state.declaredPresent.get(o.key.toLowerCase());
    if (declaredAt) {
      blocked.push(o);
      const group = owner.change.key;
      state.problem(
        owner.change.address,
        state.byPath.has(o.key.toLowerCase())
          ? `${owner.change.address} is marked "state: absent", but ${o.segment} ${o.key} inside it is declared: the platform deletes a group's subgroups and projects with it. Remove ${o.key} from the manifests (or mark it absent too${o.collection === "projects" ? ": it is then deleted first, after its own backup" : ""}), or keep ${group}`
          : `${owner.change.address} is marked "state: absent", but ${o.segment} ${o.key} inside it is matched by a pattern of the manifests (at the place shown): the platform deletes a group's subgroups and projects with it. Leave the group out of that pattern with except: [${group}/**], or keep ${group}`,
        declaredAt,
      );
      continue;
    }
    state.cascaded.set(address, owner.change.address);
    taken.push(o);
    const kind = state.registry.kind("instance", o.collection) ?? owner.kind;
    const self: Parent = { address, collection: o.collection, key: o.key, ref: o.id };
    out.push({
      change: {
        address,
        collection: o.collection,
        key: o.key,
        action: "delete",
        liveId: o.id,
        fields: Object.entries(o.fields).map(([field, before]) => ({ field, before })),
        reason: `deleted with ${owner.change.address}: the platform deletes a group's subgroups and projects with it`,
        deletedWith: owner.change.address,
      },
      kind,
      parent: INSTANCE,
      self,
      key: o.key,
      live: { key: o.key, id: o.id, fields: o.fields },
      changed: [],
      deps: [],
      depth: owner.depth + 1,
    });
  }
  return { taken, blocked };
}
