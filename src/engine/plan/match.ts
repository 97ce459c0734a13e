/**
 * Matching desired objects with live ones by identity: an object's identity is computed from resolved values (a
 * secret in a hook URL matches by its value) and shown by its label (the secret masked). What the manifests do
 * not declare is named here too, masked where its identity holds a secret (mask.ts).
 */
import type { CollectionScope, Kind, Live } from "../../kinds/kind.js";
import type { DesiredCollection, DesiredNode } from "../../manifest/model.js";
import { type ShownLive, undeclaredLabels } from "./mask.js";
import type { PlanState } from "./state.js";

/** How a kind identifies a desired object, and how the plan shows that identity. */
export interface Identities {
  /** The identity, from resolved values. */
  keyOf(item: DesiredNode): string;
  /** As shown: a kind's own identity (a fingerprint) is made to be shown; a manifest identity with a secret is masked. */
  labelOf(item: DesiredNode): string;
}

export function identities(kind: Kind): Identities {
  const keyOf = (item: DesiredNode) => (kind.identity ? kind.identity(item.fields) : item.key);
  return { keyOf, labelOf: (item) => (kind.identity ? keyOf(item) : (item.label ?? item.key)) };
}

export interface Matched extends Identities {
  /** The live object a desired one stands for. */
  liveOf(item: DesiredNode): Live | undefined;
  /** What the manifests say about the collection, for checks that look beyond one object. */
  scope: CollectionScope;
  /** The live objects the manifests do not declare (and that are not read-only here), in the order read. */
  undeclared: Live[];
  /** How an undeclared live object is shown. */
  shownOf(live: Live): ShownLive | undefined;
  /** The declaration with a secret in its identity that an undeclared live object has the shape of (an old key). */
  like(live: Live): DesiredNode | undefined;
}

/**
 * Matches the collection's live objects with `items` (the declared objects planned here; `coll.items` are all of
 * them, within the targets or not, or `declared` names them).
 */
export function match(
  state: PlanState,
  kind: Kind,
  coll: DesiredCollection,
  items: DesiredNode[],
  lives: Live[],
  /** Every object the manifests declare in the collection, when `coll` holds a part of them (a plan's chunk). */
  declared?: readonly string[],
): Matched {
  const ids = identities(kind);
  if (kind.anyCase) {
    // In the spelling of the declaration, any declaration's: the read spells only those it was asked for (a pull
    // request's plan asks for what the change concerns).
    const spelling = new Map((declared ?? coll.items.map(ids.keyOf)).map((k) => [k.toLowerCase(), k]));
    lives = lives.map((l) => {
      const key = spelling.get(l.key.toLowerCase());
      return key === undefined || key === l.key ? l : { ...l, key };
    });
  }
  const liveByKey = new Map(lives.map((l) => [l.key, l]));
  const scope: CollectionScope = {
    declared: new Set(declared ?? coll.items.map(ids.keyOf)),
    planned: new Map(items.filter((i) => i.state !== "absent").map((i) => [ids.keyOf(i), i.fields])),
    absent: new Set(items.filter((i) => i.state === "absent").map(ids.keyOf)),
    policy: coll.policy,
    top: (collection) => state.plannedTop(collection),
  };
  const undeclared = lives.filter((l) => !scope.declared.has(l.key) && !l.readOnly);
  const { shown, like } = undeclaredLabels(
    state.ctx,
    state.secrets,
    lives,
    scope.declared,
    items.filter((i) => !kind.identity && i.label !== undefined),
    new Set(items.map(ids.labelOf)),
  );
  return {
    ...ids,
    liveOf: (item) => liveByKey.get(ids.keyOf(item)),
    scope,
    undeclared,
    shownOf: (live) => shown.get(live),
    like,
  };
}
