/**
 * The order of a plan: creates, updates and replaces in the walk's order (parents before children), then deletes
 * deepest first, then the unmanaged objects; each step's dependencies named by the address of the step they are
 * (a group or project in any case), and problems in the order of their place in the manifests.
 */
import type { PlanProblem } from "../../plan/model.js";
import type { Step } from "./types.js";

/** Orders steps for apply and display: creates/updates/replaces in walk order, then deletes deepest first. */
export function order(steps: Step[]): Step[] {
  const forward = steps.filter((s) => s.change.action !== "delete" && s.change.action !== "unmanaged");
  const deletes = steps
    .map((s, i) => [s, i] as const)
    .filter(([s]) => s.change.action === "delete")
    .sort(([a, ai], [b, bi]) => b.depth - a.depth || bi - ai)
    .map(([s]) => s);
  const unmanaged = steps.filter((s) => s.change.action === "unmanaged");
  return [...forward, ...deletes, ...unmanaged];
}

/** A group or project's own address: one path in any case. */
const TOP_LEVEL = /^(group|project)\["[^"]*"\]$/;
/**
 * A member's or a share's address: its user or group is one name in any case too (`x-normalize: lowercase`), so a
 * protection's `{ user: dave }` waits for the member declared `Dave`.
 */
const ANY_CASE = /^(group|project)\["[^"]*"\]\.(member|share)\["[^"]*"\]$/;
const anyCase = (address: string) => TOP_LEVEL.test(address) || ANY_CASE.test(address);

/**
 * Links the steps: a step another must wait for (a kind's `before`) becomes that step's dependency, and every
 * dependency names a step of the plan (a group or project in any case: the parent `ACME` of `acme/sub` is the step
 * declared `acme`; a member or a share in any case: `{ group: vendors }` waits for the share declared `VENDORS`), or
 * is dropped (nothing in this plan to wait for; or, for a dependency in `createOnly`, a step that does not make its
 * object).
 */
export function linkDependencies(
  steps: Step[],
  createOnly: ReadonlyMap<string, ReadonlySet<string>> = new Map(),
): void {
  const byAddress = new Map(steps.map((s) => [s.change.address, s]));
  const byPath = new Map(
    steps.filter((s) => anyCase(s.change.address)).map((s) => [s.change.address.toLowerCase(), s]),
  );
  const stepAt = (address: string) =>
    byAddress.get(address) ?? (anyCase(address) ? byPath.get(address.toLowerCase()) : undefined);
  for (const step of steps) {
    for (const later of step.before ?? []) {
      const waiting = stepAt(later);
      if (waiting && !waiting.deps.includes(step.change.address)) waiting.deps.push(step.change.address);
    }
  }
  for (const step of steps) {
    const onCreate = createOnly.get(step.change.address);
    // Each named once: a dependency written in two cases (`acme`, `ACME`) is one step.
    step.deps = [
      ...new Set(
        step.deps.flatMap((d) => {
          const found = stepAt(d);
          if (!found) return [];
          const makes = found.change.action === "create" || found.change.action === "replace";
          return onCreate?.has(d) && !makes ? [] : [found.change.address];
        }),
      ),
    ];
  }
}

/** Problems in a stable order (reads finish in any order): by file, line and column, then address. */
export function byPlace(problems: PlanProblem[]): PlanProblem[] {
  const key = (p: PlanProblem) =>
    [
      p.source?.file ?? "\uffff",
      String(p.source?.line ?? 0).padStart(8, "0"),
      String(p.source?.col ?? 0).padStart(6, "0"),
      p.address,
    ].join("\u0000");
  return [...problems].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
