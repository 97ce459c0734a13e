/** `--target`: a strict subtree. */

/**
 * A group or project path is in scope when it is a target or below one: a target is a strict subtree, so its
 * ancestors are never changed (they are looked up when a new group needs its parent's id).
 */
export function inTargets(key: string, targets: readonly string[]): boolean {
  if (targets.length === 0) return true;
  const lower = key.toLowerCase();
  return targets.some((t) => {
    const target = t.toLowerCase();
    return lower === target || lower.startsWith(`${target}/`);
  });
}
