/**
 * Live objects the manifests do not mention, as the collection's prune policy says: `delete` plans their deletion
 * (for kinds a policy may delete), `warn` reports them as unmanaged and leaves them alone (`ignore` never gets here).
 * Each is shown by its label (masked where its identity holds a secret) and counted in the live digest.
 */
import { addressOf, type Kind, type Live, type Parent } from "../../kinds/kind.js";
import type { DesiredCollection } from "../../manifest/model.js";
import { planDelete } from "./delete.js";
import { maskedFields } from "./mask.js";
import type { Matched } from "./match.js";
import type { PlanState } from "./state.js";
import type { Specs, Step } from "./types.js";

export async function planUndeclared(
  state: PlanState,
  out: Step[],
  p: {
    kind: Kind;
    specs: Specs;
    coll: DesiredCollection;
    collection: string;
    parent: Parent;
    /** The parent's address, "" for top-level groups and projects. */
    parentAddress: string;
    depth: number;
    matched: Matched;
  },
): Promise<void> {
  for (const live of p.matched.undeclared) {
    const from = out.length;
    await planOne(state, out, p, live);
    // In a chunk of a plan made in chunks, the root's undeclared objects go by their place in the read.
    if (p.depth === 0 && state.chunk) state.place(out.slice(from), p.collection, undefined, live.order);
  }
}

async function planOne(
  state: PlanState,
  out: Step[],
  p: Parameters<typeof planUndeclared>[2],
  live: Live,
): Promise<void> {
  const { kind, specs, coll, collection, parent, parentAddress, depth, matched } = p;

  const shown = matched.shownOf(live);
  const address = addressOf(parentAddress, kind, shown?.label ?? live.key);
  // A subgroup of a group being deleted goes with it: it is listed as such, not as unmanaged.
  if (state.cascaded.has(address)) return;
  const like = matched.like(live)?.fields;
  state.seen(address, maskedFields(specs, live.fields, like));
  const self: Parent = { address, collection, key: live.key, ref: live.id, live, parent };
  const base = {
    address,
    collection,
    key: shown?.label ?? live.key,
    ...(shown?.id !== undefined ? { liveId: shown.id } : {}),
    ...(parentAddress ? { parent: parentAddress } : {}),
  };
  let kept: string | undefined;
  if (coll.policy === "delete" && !kind.explicitDeleteOnly && kind.remove) {
    const refusals = (await kind.checkDelete?.(state.ctx, parent, live, undefined, matched.scope)) ?? [];
    const errors = refusals.filter((r) => !r.keep);
    for (const r of errors) state.problem(address, r.message);
    if (errors.length > 0) return;
    // Left alone, and said why (the token's own membership), rather than deleted.
    if (refusals.length > 0) kept = refusals.map((r) => r.message).join("; ");
  }
  if (kept === undefined && coll.policy === "delete" && !kind.explicitDeleteOnly && kind.remove) {
    await planDelete(
      state,
      out,
      {
        base,
        kind,
        specs,
        parent,
        self,
        key: live.key,
        live,
        depth,
        deps: [],
        ...(like ? { desired: like } : {}),
      },
      `not in the manifests, and the ${collection} prune policy is delete`,
    );
    return;
  }
  state.push(out, {
    change: {
      ...base,
      action: "unmanaged",
      fields: [],
      reason:
        kept !== undefined
          ? `not in the manifests, and left alone although the ${collection} prune policy is delete: ${kept}`
          : coll.policy === "delete"
            ? `not in the manifests; ${collection} are deleted only when marked "state: absent"`
            : kind.explicitDeleteOnly
              ? `not in the manifests (prune policy warn: left alone; ${collection} are deleted only when declared with "state: absent", and unmanaged.${collection}: ignore stops this report)`
              : `not in the manifests (prune policy warn: left alone; set unmanaged.${collection} to delete or ignore)`,
    },
    kind,
    parent,
    self,
    key: live.key,
    live,
    changed: [],
    deps: [],
    depth,
  });
}
