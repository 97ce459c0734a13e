/** The live digest a plan carries: a saved plan is refused when the live objects it saw have changed since. */
import { createHash } from "node:crypto";

/**
 * The digest of the live objects a plan saw: the SHA-256 of each object's address and the SHA-256 of its masked
 * fields, in address order (see PlanState.liveSeen), so the order reads finished in does not matter.
 */
export function digestLive(entries: [string, string][]): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  for (const [address, fields] of sorted) hash.update(address).update("\u0000").update(fields).update("\n");
  return hash.digest("hex");
}
