/**
 * Pieces every renderer shares: where an address belongs (its target), which fields of a change are worth showing,
 * how a value is written, and the unified diff used for long text. Pure functions of the Plan; nothing here reads
 * anything else, so nothing outside the Plan can reach the output.
 */
import { isDeepStrictEqual } from "node:util";
import { structuredPatch } from "diff";
import type { SourceRef } from "../manifest/model.js";
import { addressedOwner, targetOf } from "../plan/address.js";
import type { Action, Change, FieldChange, PlanProblem } from "../plan/model.js";
import { escapeLine, escapeText } from "../text/escape.js";

/** The masks a Plan uses in place of values that must never be printed. */
export const SENSITIVE_MASK = "(sensitive)";
export const WRITE_ONLY_MASK = "(write-only)";

/** Text longer than this, or containing a newline, is shown as a unified diff instead of `before -> after`. */
export const LONG_TEXT = 80;

export const ACTION_SYMBOL: Record<Action, string> = {
  create: "+",
  update: "~",
  replace: "-/+",
  delete: "-",
  unmanaged: "!",
};

/** Apply order of the summary counts, the same order everywhere. */
export const ACTIONS: readonly Action[] = ["create", "update", "replace", "delete", "unmanaged"];

/** `file:line:col`, the form editors and CI annotations turn into links. */
export function sourceLabel(source: SourceRef): string {
  return `${source.file}:${source.line}:${source.col}`;
}

/**
 * A problem as one line: `file:line:col: address: message` (the location only when the problem has one), control
 * characters escaped (see escape.ts).
 */
export function problemLine(problem: PlanProblem): string {
  const where = problem.source ? `${sourceLabel(problem.source)}: ` : "";
  return escapeText(`${where}${problem.address}: ${problem.message}`);
}

function isMask(value: unknown): boolean {
  return value === SENSITIVE_MASK || value === WRITE_ONLY_MASK;
}

/**
 * A value as shown to people: JSON, except masks, which are shown bare. A field marked sensitive shows the mask
 * whatever value it carries, so an unmasked value slipped into a Plan by mistake is still not printed.
 */
export function formatValue(value: unknown, field?: FieldChange): string {
  if (value === undefined) return "(unset)";
  if (field?.sensitive) return SENSITIVE_MASK;
  if (isMask(value)) return value as string;
  return JSON.stringify(value) ?? String(value);
}

/** How a change shows its fields: created objects show desired values, deleted ones live values, others both. */
export type FieldMode = "after" | "before" | "both";

export function fieldMode(action: Action): FieldMode {
  if (action === "create") return "after";
  if (action === "delete" || action === "unmanaged") return "before";
  return "both";
}

/** One line of a unified diff: `+` added, `-` removed, ` ` context, `@` a hunk header. */
export interface DiffLine {
  op: "+" | "-" | " " | "@";
  text: string;
}

/** How one field of a change is shown: every string in it is ready to print (control characters escaped). */
export interface FieldView {
  field: string;
  /** Formatted values; `before` is absent for mode "after", `after` for mode "before". */
  before?: string;
  after?: string;
  /** Present when the value is long or multi-line text: a unified diff instead of `before -> after`. */
  diff?: DiffLine[];
  forcesReplacement: boolean;
  note?: string;
}

/** Text worth a unified diff: a long or multi-line string, or a structured value whose JSON is long. */
function diffText(value: unknown): string | undefined {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  if (value !== null && typeof value === "object") return JSON.stringify(value, null, 2);
  return undefined;
}

function isLong(value: unknown): boolean {
  if (value === undefined || isMask(value)) return false;
  if (typeof value === "string") return value.length > LONG_TEXT || value.includes("\n");
  if (value !== null && typeof value === "object") return (JSON.stringify(value) ?? "").length > LONG_TEXT;
  return false;
}

/** A unified diff of two texts, without file headers; undefined when the texts have no line-level difference. */
export function unifiedDiff(name: string, before: string, after: string): DiffLine[] | undefined {
  // A final newline is added to both sides so the diff does not report "\ No newline at end of file".
  const withNewline = (s: string) => (s === "" || s.endsWith("\n") ? s : `${s}\n`);
  const patch = structuredPatch(name, name, withNewline(before), withNewline(after), "", "", { context: 3 });
  if (patch.hunks.length === 0) return undefined;
  const lines: DiffLine[] = [];
  for (const hunk of patch.hunks) {
    lines.push({
      op: "@",
      text: `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    });
    for (const line of hunk.lines) {
      const op = line[0];
      if (op === "+" || op === "-" || op === " ") lines.push({ op, text: line.slice(1) });
    }
  }
  return lines;
}

/** Whether a field of an update or replace is worth showing: it changed, or its value cannot be compared. */
function changed(field: FieldChange): boolean {
  if (field.sensitive || field.writeOnly) return true;
  return !isDeepStrictEqual(field.before, field.after);
}

/**
 * The fields of a change as they should be shown: for create only the desired values, for delete and unmanaged
 * only the live values, for update and replace only fields whose value differs (masked fields are always shown,
 * since their masks cannot be compared).
 */
export function fieldViews(change: Change): FieldView[] {
  const mode = fieldMode(change.action);
  const views: FieldView[] = [];
  for (const field of change.fields) {
    if (mode === "after" && field.after === undefined) continue;
    if (mode === "before" && field.before === undefined) continue;
    if (mode === "both" && !changed(field)) continue;
    const view: FieldView = {
      field: escapeLine(field.field),
      forcesReplacement: field.forcesReplacement === true,
    };
    if (field.note) view.note = escapeLine(field.note);
    const before = mode === "after" ? undefined : field.before;
    const after = mode === "before" ? undefined : field.after;
    const masked = field.sensitive === true;
    if (!masked && (isLong(before) || isLong(after))) {
      const oldText = diffText(before);
      const newText = diffText(after);
      if (oldText !== undefined && newText !== undefined) {
        const diff = unifiedDiff(field.field, oldText, newText);
        if (diff) {
          // A created or deleted text has one hunk of only added or removed lines: its header says nothing.
          view.diff = mode === "both" ? diff : diff.filter((line) => line.op !== "@");
          // An unmanaged object is left alone: its text is shown, not marked as removed.
          if (change.action === "unmanaged")
            view.diff = view.diff.map((line) => ({ op: " ", text: line.text }));
          view.diff = view.diff.map((line) => ({ op: line.op, text: escapeText(line.text) }));
          views.push(view);
          continue;
        }
      }
    }
    // A write-only value is never read back, so an update or replace has no live value to show for it.
    const noLive = field.writeOnly === true && field.before === undefined;
    if (mode !== "after" && !noLive) view.before = escapeLine(formatValue(field.before, field));
    if (mode !== "before") view.after = escapeLine(formatValue(field.after, field));
    views.push(view);
  }
  return views;
}

/** Singular or plural: `plural(1, "change")` is "1 change", `plural(2, "change")` is "2 changes". */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? word : many}`;
}

/** Groups items by a key, keeping first-seen order of keys and items. */
export function groupBy<T>(items: Iterable<T>, key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = groups.get(k);
    if (list) list.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/** The same change made in many groups or projects (a policy from a pattern), shown once. */
export interface RepeatedChange {
  /** One of the changes, for the action, fields and reason they share. */
  sample: Change;
  /** The address below each group or project: `badge["coverage"]`. */
  suffix: string;
  /** `projects` or `groups`. */
  owners: string;
  /** The paths of the groups or projects, in plan order. */
  paths: string[];
  members: Change[];
}

/** Changes this many times or more alike (below different groups or projects) are shown once. */
export const REPEAT_THRESHOLD = 3;

/** Where a change sits below its group or project, and which one: undefined for anything else. */
function ownerOf(address: string): { owners: string; path: string; suffix: string } | undefined {
  const owner = addressedOwner(address);
  const target = targetOf(address);
  if (!owner || address.length <= target.length + 1) return undefined;
  return { owners: owner.collection, path: owner.path, suffix: address.slice(target.length + 1) };
}

/**
 * Splits changes into those repeated alike below at least `threshold` groups or projects (same address below
 * them, same action, same fields, same reason) and the rest, keeping the plan's order by first occurrence.
 */
export function repeatedChanges(
  changes: readonly Change[],
  threshold = REPEAT_THRESHOLD,
): (Change | RepeatedChange)[] {
  const keyOf = (c: Change) => {
    const owner = ownerOf(c.address);
    return owner
      ? JSON.stringify([owner.owners, owner.suffix, c.action, c.fields, c.reason ?? "", c.deletedWith ?? ""])
      : undefined;
  };
  const groups = groupBy(
    changes.filter((c) => keyOf(c) !== undefined),
    (c) => keyOf(c)!,
  );
  const out: (Change | RepeatedChange)[] = [];
  const emitted = new Set<string>();
  for (const change of changes) {
    const key = keyOf(change);
    const members = key === undefined ? undefined : groups.get(key);
    if (!members || members.length < threshold) {
      out.push(change);
      continue;
    }
    if (emitted.has(key!)) continue;
    emitted.add(key!);
    const owner = ownerOf(change.address)!;
    out.push({
      sample: change,
      suffix: owner.suffix,
      owners: owner.owners,
      paths: members.map((m) => ownerOf(m.address)!.path),
      members,
    });
  }
  return out;
}

export function isRepeated(entry: Change | RepeatedChange): entry is RepeatedChange {
  return "members" in entry;
}

/** `in 1,843 projects: acme/a, acme/b, acme/c, acme/d, acme/e and 1,838 more`. */
export function repeatedWhere(entry: RepeatedChange, shown = 5): string {
  const names = entry.paths.slice(0, shown).join(", ");
  const more = entry.paths.length - shown;
  return `in ${plural(entry.paths.length, entry.owners.slice(0, -1), entry.owners)}: ${names}${more > 0 ? ` and ${more.toLocaleString("en-US")} more` : ""}`;
}
