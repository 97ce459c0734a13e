/**
 * `--shard K/N`: one of N runners of a CI matrix plans (or reports drift for) its share of the top-level targets:
 * each top-level group with everything below it, each project whose namespace is not a declared group, and
 * `instance`. Every runner sees the same manifests and the same platform, so each computes the same assignment:
 * targets are weighed by the objects the manifests give them (patterns expanded), heaviest first, each to the
 * least-loaded shard so far (ties to the lowest shard), and the shards' reports merge into the unsharded one
 * (`forgeform report merge`).
 */
import type { DesiredNode } from "../manifest/model.js";
import { shareOf } from "../manifest/outline.js";

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

/** Parses `K/N` (1 <= K <= N). */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(m?.[1]);
  const count = Number(m?.[2]);
  if (!m || count < 1 || index < 1 || index > count || count > 1000) {
    throw new Error(`--shard must be K/N with 1 <= K <= N <= 1000 (e.g. 2/4), not ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/** The top-level target an object belongs to: `instance`, or the first segment of a group or project path. */
export function unitOf(path: string): string {
  return path.split("/")[0]!.toLowerCase();
}

function weight(node: DesiredNode): number {
  let n = 1;
  for (const coll of Object.values(node.children)) for (const item of coll.items) n += weight(item);
  return n;
}

/** The top-level targets this shard owns, computed from the expanded desired state. */
export function shardUnits(root: DesiredNode, shard: Shard): Set<string> {
  const weights = new Map<string, number>();
  for (const [name, coll] of Object.entries(root.children)) {
    if (name === "groups" || name === "projects") {
      for (const item of coll.items) {
        const unit = unitOf(item.key);
        weights.set(unit, (weights.get(unit) ?? 0) + weight(item));
      }
    } else {
      weights.set("instance", (weights.get("instance") ?? 0) + coll.items.reduce((n, i) => n + weight(i), 0));
    }
  }
  return shareOf(weights, shard);
}
