/** `--target`: a strict subtree. */
import { didYouMean } from "../manifest/diagnostics.js";
import { addressedOwner, targetOf } from "../plan/address.js";

/** Thrown for a `--target` that selects nothing: a typo must not pass as "no changes". */
export class TargetError extends Error {
  override name = "TargetError";
}

/**
 * Targets as the rest of the run compares them, written once: surrounding spaces and slashes dropped, repeated
 * slashes made one (`payments/` and `/payments` are `payments`), a group or project as a plan names it
 * (`project["acme/api"]`) its path. An empty target is an error, and so is one naming an object inside a target.
 */
export function normalizeTargets(targets: readonly string[]): string[] {
  return targets.map((t) => {
    const path = pathOfAddress(t)
      .trim()
      .replace(/\/{2,}/g, "/")
      .replace(/^\/+|\/+$/g, "");
    if (path === "") {
      throw new TargetError(
        `--target ${JSON.stringify(t)} is empty: give a group or project path, or "instance"`,
      );
    }
    return path;
  });
}

/**
 * A target written as a plan shows its group or project (`group["acme"]`, `project["acme/api"]`): the path it
 * quotes. One that names an object inside (`project["acme/api"].badge["docs"]`, `instance.system_hook[...]`) is an
 * error that says which target holds it: a target is a whole subtree, never one object of it.
 */
function pathOfAddress(target: string): string {
  const written = target.trim();
  const owner = addressedOwner(written);
  if (owner?.whole) return owner.path;
  const inside =
    owner?.path ?? (targetOf(written) === "instance" && written !== "instance" ? "instance" : undefined);
  if (inside !== undefined) {
    throw new TargetError(
      `--target ${JSON.stringify(target)} names one object; a target is a group or project path with everything below it, or "instance": use --target ${JSON.stringify(inside)} (and --replace ADDRESS to replace one object)`,
    );
  }
  return target;
}

/**
 * A group or project path is in scope when it is a target or below one: a target is a strict subtree, so its
 * ancestors are never changed (they are looked up when a new group needs its parent's id). Paths compare without
 * regard to case, as on the platform.
 */
export function inTargets(key: string, targets: readonly string[]): boolean {
  if (targets.length === 0) return true;
  const lower = key.toLowerCase();
  return targets.some((t) => {
    const target = t.toLowerCase();
    return lower === target || lower.startsWith(`${target}/`);
  });
}

/** A path and each of its ancestors (`a/b/c`: `a`, `a/b`, `a/b/c`), for did-you-mean suggestions. */
export function withAncestors(paths: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const p of paths) {
    const parts = p.split("/");
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join("/"));
  }
  return [...out];
}

/**
 * After reading: every path target must select an object the plan covers, declared or matched by a pattern on
 * the platform (`--target acme/platfrom/api` under `acme/**` selects nothing). `covered` are the planned paths,
 * `known` the paths seen on the platform for suggestions; `unknowable` says of a target that what it selects
 * cannot be told in this run (a pattern left unread by --changed-since).
 */
export function checkTargetsSelected(
  targets: readonly string[],
  covered: readonly string[],
  known: readonly string[],
  unknowable: (target: string) => boolean = () => false,
): void {
  const problems: string[] = [];
  for (const target of targets) {
    if (target === "instance") continue;
    if (covered.some((p) => inTargets(p, [target])) || unknowable(target)) continue;
    const suggestion = didYouMean(target, withAncestors([...covered, ...known]));
    problems.push(
      `--target ${JSON.stringify(target)} matches nothing the manifests declare, nor anything their patterns match on the platform${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""}`,
    );
  }
  if (problems.length > 0) throw new TargetError(problems.join("\n"));
}
