/**
 * A plan made in chunks of top-level trees (src/cli/chunks.ts loads them one after another): each chunk is walked
 * on its own (walkPlan, with PlanOptions.chunk), and the walks are merged here into what one walk of everything
 * gives, before the plan is finished once (finishPlan: order, dependencies, masks).
 *
 * One walk plans the root's `groups` first, then the instance's collections, then `projects`; within `groups` and
 * `projects`, each top-level object's steps together, in the manifests' order by depth (ChunkScope.order), then the
 * objects the manifests do not declare, in the order the platform listed them (Live.order). Each chunk's walk
 * places its steps so (PlanState.place): the merge sorts by place, keeping a chunk's order among equal places (one
 * top-level object's steps, the instance's collections, which are all in one chunk).
 */
import { SecretValues } from "../../manifest/secret.js";
import { AddressList } from "./addresses.js";
import { LiveSeen } from "./digest.js";
import type { Place, Step, Walked } from "./types.js";

function compare(a: Place, b: Place): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The walks of a plan's chunks, in the order one walk of all of them gives. */
export function mergeWalks(walks: readonly Walked[]): Walked {
  const placed: [Step, Place][] = [];
  for (const walk of walks) {
    for (const step of walk.steps) {
      const place = walk.places.get(step);
      if (!place) throw new Error(`a chunk's step ${step.change.address} has no place in the plan's walk`);
      placed.push([step, place]);
    }
  }
  // Array.prototype.sort is stable: equal places keep their chunk's order.
  placed.sort(([, a], [, b]) => compare(a, b));
  const pairs = new Set<string>();
  for (const walk of walks) for (const pair of walk.secretPairs) pairs.add(pair);
  const [first, ...rest] = walks;
  // An address no chunk met: each chunk took off the ones it met.
  const replaceLeft = new Set(
    [...(first?.replaceLeft ?? [])].filter((a) => rest.every((w) => w.replaceLeft.has(a))),
  );
  const createOnly = new Map<string, ReadonlySet<string>>();
  for (const walk of walks) for (const [address, deps] of walk.createOnly) createOnly.set(address, deps);
  return {
    steps: placed.map(([step]) => step),
    places: new Map(placed),
    problems: walks.flatMap((w) => w.problems),
    warnings: walks.flatMap((w) => w.warnings),
    inSync: AddressList.of(walks.map((w) => w.inSync)),
    liveSeen: LiveSeen.of(walks.map((w) => w.liveSeen)),
    createOnly,
    secrets: new SecretValues(walks.flatMap((w) => w.secrets.list())),
    secretPairs: pairs,
    replaceLeft,
    summaries: walks.flatMap((w) => w.summaries),
  };
}
