/**
 * Live objects the manifests do not mention, as the collection's prune policy says: `delete` plans their deletion
 * (for kinds a policy may delete), `warn` reports them as unmanaged and leaves them alone (`ignore` never gets here).
 * Each is shown by its label (masked where its identity holds a secret) and counted in the live digest.
 */
import { addressOf, type Kind, type Parent } from "../../kinds/kind.js";
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
  const { kind, specs, coll, collection, parent, parentAddress, depth, matched } = p;
  for (const live of matched.undeclared) {
    const shown = matched.shownOf(live);
    const address = addressOf(parentAddress, kind, shown?.label ?? live.key);
    // A subgroup of a group being deleted goes with it: it is listed as such, not as unmanaged.
    if (state.cascaded.has(address)) continue;
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
    if (coll.policy === "delete" && !kind.explicitDeleteOnly && kind.remove) {
      const refusals = (await kind.checkDelete?.(state.ctx, parent, live, undefined)) ?? [];
      for (const r of refusals) state.problem(address, r.message);
      if (refusals.length > 0) continue;
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
      continue;
    }
    state.push(out, {
      change: {
        ...base,
        action: "unmanaged",
        fields: [],
        reason:
          (coll.policy === "delete"
            ? `not in the manifests; ${collection} are deleted only when marked "state: absent"`
            : kind.explicitDeleteOnly
              ? `not in the manifests (prune policy warn: left alone; ${collection} are deleted only when declared with "state: absent", and unmanaged.${collection}: ignore stops this report)`
              : `not in the manifests (prune policy warn: left alone; set unmanaged.${collection} to delete or ignore)`) +
          (live.note ? `; ${live.note}` : ""),
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
}
