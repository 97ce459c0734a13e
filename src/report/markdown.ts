/**
 * The plan as a pull-request comment: a summary table, a deletion banner, a table of targets by kind, collapsible
 * details per target with a diff block, problems. The comment is cut below a maximum length (GitHub refuses
 * comments over 65,536 characters) only between whole changes, so no code block or <details> is left open, and it
 * then ends with a note saying what was left out.
 */

import { targetOf } from "../plan/address.js";
import type { Action, Change, Plan, PlanProblem } from "../plan/model.js";
import { escapeLine } from "../text/escape.js";
import {
  ACTION_SYMBOL,
  ACTIONS,
  fieldMode,
  fieldViews,
  groupBy,
  isRepeated,
  plural,
  repeatedChanges,
  repeatedWhere,
  sourceLabel,
} from "./common.js";
import { requestsLine, selectorLines } from "./text.js";

export interface MarkdownOptions {
  /** Maximum length of the document, in UTF-16 code units (never less than characters). Default 65,000. */
  maxLength?: number;
}

export const DEFAULT_MARKDOWN_MAX = 65_000;
/** Room kept for the closing note; the note is always shorter than this. */
const NOTE_RESERVE = 1_000;
/** Lists (banner, problems) show at most this many entries, then say how many more there are. */
const LIST_CAP = 50;

/**
 * Escapes text for Markdown prose, so messages and keys cannot become links, HTML or formatting (and control
 * characters are shown escaped, see escape.ts).
 */
export function escapeMarkdown(text: string): string {
  return escapeLine(text.replace(/\r?\n/g, " "))
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/([\\`*_[\]|~#!])/g, "\\$1");
}

/** Escapes text for HTML element content (inside <summary>). */
export function escapeHtml(text: string): string {
  return escapeLine(text)
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

/** An inline code span that holds any text, backticks included; in a table cell, pipes are escaped. */
export function inlineCode(text: string, inTable = false): string {
  const fence = "`".repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  const body = escapeLine(text.replace(/\r?\n/g, " "));
  return `${fence}${pad}${inTable ? body.replace(/\|/g, "\\|") : body}${pad}${fence}`;
}

const cellCode = (text: string) => inlineCode(text, true);

/** A fence longer than any backtick run in `content`, so the content cannot close the code block. */
export function fenceFor(content: string): string {
  return "`".repeat(Math.max(3, longestBacktickRun(content) + 1));
}

/** One change as lines of a ```diff block: `+` desired, `-` live, `~`/`-/+`/`!` headers, `#` reasons. */
export function changeDiffLines(change: Change): string[] {
  const lines = [`${ACTION_SYMBOL[change.action]} ${escapeLine(change.address)}`];
  if (change.reason) lines.push(`#     ${escapeLine(change.reason.replace(/\r?\n/g, " "))}`);
  const mode = fieldMode(change.action);
  const neutral = change.action === "unmanaged";
  for (const view of fieldViews(change)) {
    const marks = [view.forcesReplacement ? "(forces replacement)" : "", view.note ? `# ${view.note}` : ""];
    const suffix = marks.filter((m) => m !== "").join(" ");
    const tail = suffix === "" ? "" : `  ${suffix}`;
    if (view.diff) {
      const marker = neutral ? " " : mode === "after" ? "+" : mode === "before" ? "-" : "~";
      lines.push(`${marker}     ${view.field}:${tail}`);
      for (const line of view.diff) {
        lines.push(line.op === "@" ? `        ${line.text}` : `${line.op}         ${line.text}`);
      }
      continue;
    }
    if (neutral) lines.push(`      ${view.field}: ${view.before ?? ""}`);
    else if (mode === "after" || (view.before === undefined && view.after !== undefined)) {
      lines.push(`+     ${view.field}: ${view.after ?? ""}${tail}`);
    } else if (mode === "before") lines.push(`-     ${view.field}: ${view.before ?? ""}${tail}`);
    else {
      lines.push(`-     ${view.field}: ${view.before ?? ""}`);
      lines.push(`+     ${view.field}: ${view.after ?? ""}${tail}`);
    }
  }
  return lines;
}

/** Collects parts while they fit under a limit. */
class Budget {
  readonly parts: string[] = [];
  private used = 0;
  constructor(private readonly limit: number) {}
  fits(text: string, reserve = 0): boolean {
    return this.used + text.length + reserve <= this.limit;
  }
  add(text: string, reserve = 0): boolean {
    if (!this.fits(text, reserve)) return false;
    this.parts.push(text);
    this.used += text.length;
    return true;
  }
  get length(): number {
    return this.used;
  }
}

/** What a Markdown report is made of; the plan and the drift report fill it differently. */
export interface MarkdownSpec {
  title: string;
  /** Lines under the title (URL, targets). */
  intro: string[];
  /** The summary table: one column per count. */
  summary: { label: string; count: number }[];
  /** The banner's lead sentence and entries; no banner when there are no entries. */
  banner?: { lead: string; entries: { address: string; label: string }[] };
  changes: Change[];
  /** Words for each action, used in the <summary> of each target (`2 to create`, `1 drifted`). */
  countLabel: (action: Action, n: number) => string;
  /** The symbol legend under the target table. */
  legend: string;
  errors: PlanProblem[];
  warnings: PlanProblem[];
  /** Shown under the summary table when nothing would change. */
  none?: string;
  /** Last line (requests). */
  footer: string;
  /** What the changes are called in the cut note: "changes", "drift items". */
  noun: [string, string];
  /** Where the full report is, for the cut note. */
  fullReport: string;
  maxLength: number;
}

function countCell(changes: Change[]): string {
  return ACTIONS.map((a) => {
    const n = changes.filter((c) => c.action === a).length;
    return n === 0 ? "" : `${ACTION_SYMBOL[a]}${n}`;
  })
    .filter((s) => s !== "")
    .join(" ");
}

function problemEntry(problem: PlanProblem): string {
  const where = problem.source ? `${inlineCode(sourceLabel(problem.source))} ` : "";
  return `- ${where}${inlineCode(problem.address)}: ${escapeMarkdown(problem.message)}\n`;
}

/** Adds a capped list; returns how many entries were left out. */
function addList(budget: Budget, heading: string, entries: string[], more: (n: number) => string): number {
  if (entries.length === 0) return 0;
  if (!budget.add(heading, NOTE_RESERVE)) return entries.length;
  let shown = 0;
  for (const entry of entries) {
    if (shown >= LIST_CAP || !budget.add(entry, NOTE_RESERVE + 200)) break;
    shown++;
  }
  const left = entries.length - shown;
  if (left > 0) budget.add(more(left), NOTE_RESERVE);
  budget.add("\n", NOTE_RESERVE);
  return left;
}

/** A collapsible section of diff blocks, as many as fit; returns how many were added. */
function addDetails(budget: Budget, summary: string, blocks: string[]): number {
  const fence = fenceFor(blocks.join(""));
  const open = `<details><summary>${summary}</summary>\n\n${fence}diff\n`;
  const close = `${fence}\n\n</details>\n\n`;
  let shown = 0;
  for (const block of blocks) {
    const head = shown === 0 ? open : "";
    if (!budget.fits(head + block, close.length + NOTE_RESERVE)) break;
    budget.add(head + block);
    shown++;
  }
  if (shown > 0) budget.add(close);
  return shown;
}

/** Renders a MarkdownSpec, cutting between whole changes to stay under `maxLength`. */
export function renderMarkdown(spec: MarkdownSpec): string {
  if (spec.maxLength < 2 * NOTE_RESERVE) {
    throw new RangeError(`maxLength must be at least ${2 * NOTE_RESERVE} characters, got ${spec.maxLength}`);
  }
  const budget = new Budget(spec.maxLength);
  const left = { changes: 0, banner: 0, errors: 0, warnings: 0, targets: 0 };

  budget.add(`## ${spec.title}\n\n`);
  for (const line of spec.intro) budget.add(`${line}\n`, NOTE_RESERVE);
  if (spec.intro.length > 0) budget.add("\n", NOTE_RESERVE);
  const header = spec.summary.map((s) => s.label).join(" | ");
  const align = spec.summary.map(() => "---:").join(" | ");
  const counts = spec.summary.map((s) => s.count.toLocaleString("en-US")).join(" | ");
  budget.add(`| ${header} |\n| ${align} |\n| ${counts} |\n\n`, NOTE_RESERVE);

  if (spec.none) budget.add(`${spec.none}\n\n`, NOTE_RESERVE);

  const banner = spec.banner;
  if (banner && banner.entries.length > 0) {
    budget.add(`> [!CAUTION]\n> ${banner.lead}\n>\n`, NOTE_RESERVE);
    left.banner = addList(
      budget,
      "",
      banner.entries.map((e) => `> - ${inlineCode(e.address)} (${e.label})\n`),
      (n) => `> - ...and ${plural(n, "more", "more")}\n`,
    );
  }

  left.errors = addList(
    budget,
    "### Errors\n\n",
    spec.errors.map(problemEntry),
    (n) => `- ...and ${plural(n, "more error")}\n`,
  );
  left.warnings = addList(
    budget,
    "### Warnings\n\n",
    spec.warnings.map(problemEntry),
    (n) => `- ...and ${plural(n, "more warning")}\n`,
  );

  const byTarget = groupBy(spec.changes, (c) => targetOf(c.address));
  if (spec.changes.length > 0) {
    const kinds = [...new Set(spec.changes.map((c) => c.collection))].sort();
    let table = `| Target | ${kinds.map(cellCode).join(" | ")} |\n`;
    table += `| --- | ${kinds.map(() => "---").join(" | ")} |\n`;
    if (budget.add(table, NOTE_RESERVE)) {
      let shown = 0;
      for (const [target, changes] of byTarget) {
        const cells = kinds.map((k) => countCell(changes.filter((c) => c.collection === k)));
        if (
          shown >= 4 * LIST_CAP ||
          !budget.add(`| ${cellCode(target)} | ${cells.join(" | ")} |\n`, NOTE_RESERVE + 200)
        ) {
          break;
        }
        shown++;
      }
      left.targets = byTarget.size - shown;
      if (left.targets > 0) {
        budget.add(
          `| ...and ${plural(left.targets, "more target")} | ${kinds.map(() => "").join(" | ")} |\n`,
          NOTE_RESERVE,
        );
      }
      budget.add(`\n${spec.legend}\n\n`, NOTE_RESERVE);
    } else {
      left.targets = byTarget.size;
    }

    let cut = false;
    // A change repeated alike in many groups or projects (a pattern's policy) is shown once.
    const grouped = repeatedChanges(spec.changes);
    const repeated = grouped.filter(isRepeated);
    if (repeated.length > 0) {
      const blocks = repeated.map(
        (r) =>
          `${changeDiffLines({ ...r.sample, address: r.suffix }).join("\n")}\n#     ${repeatedWhere(r, 10)}\n`,
      );
      const total = repeated.reduce((n, r) => n + r.members.length, 0);
      const summary = `Repeated in many ${escapeHtml(repeated[0]!.owners)}: ${escapeHtml(plural(total, "change"))} shown as ${escapeHtml(plural(repeated.length, "change"))}`;
      const shown = addDetails(budget, summary, blocks);
      for (const r of repeated.slice(shown)) left.changes += r.members.length;
      if (shown < repeated.length) cut = true;
    }
    const singles = new Set(grouped.filter((e): e is Change => !isRepeated(e)));
    for (const [target, all] of byTarget) {
      const changes = all.filter((c) => singles.has(c));
      if (changes.length === 0) continue;
      if (cut) {
        left.changes += changes.length;
        continue;
      }
      const blocks = changes.map((c) => `${changeDiffLines(c).join("\n")}\n`);
      const counts = ACTIONS.map((a) => [a, changes.filter((c) => c.action === a).length] as const)
        .filter(([, n]) => n > 0)
        .map(([a, n]) => spec.countLabel(a, n))
        .join(", ");
      const shown = addDetails(budget, `<code>${escapeHtml(target)}</code>: ${escapeHtml(counts)}`, blocks);
      if (shown < changes.length) {
        cut = true;
        left.changes += changes.length - shown;
      }
    }
  }

  // The footer is the last part: it keeps room for the closing note only when a note follows. (Every part before it
  // kept that room, so a footer shorter than the room always fits.)
  const cutSoFar = Object.values(left).some((n) => n > 0);
  budget.add(`${spec.footer}\n`, cutSoFar ? NOTE_RESERVE : 0);

  const omitted: string[] = [];
  if (left.changes > 0) {
    omitted.push(
      `${left.changes.toLocaleString("en-US")} of ${plural(spec.changes.length, spec.noun[0], spec.noun[1])} are not shown`,
    );
  }
  const partial = [
    left.banner > 0 ? plural(left.banner, "banner entry", "banner entries") : "",
    left.errors > 0 ? plural(left.errors, "error") : "",
    left.warnings > 0 ? plural(left.warnings, "warning") : "",
    left.targets > 0 ? plural(left.targets, "target row") : "",
  ].filter((s) => s !== "");
  if (partial.length > 0) omitted.push(`the lists above leave out ${partial.join(", ")}`);
  let text = budget.parts.join("");
  if (omitted.length > 0) {
    text +=
      `\n> [!NOTE]\n> This report was cut to stay under ${spec.maxLength.toLocaleString("en-US")} characters: ` +
      `${omitted.join("; ")}. ${spec.fullReport}\n`;
  }
  return text;
}

/** Renders a plan as a pull-request comment, at most `maxLength` characters (default 65,000). */
export function renderPlanMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const s = plan.summary;
  const intro = [`Plan for ${inlineCode(plan.url)}, made ${escapeMarkdown(plan.createdAt)}.`];
  if (plan.targets.length > 0)
    intro.push(`Limited to targets: ${plan.targets.map((t) => inlineCode(t)).join(", ")}.`);
  for (const line of selectorLines(plan)) intro.push(escapeMarkdown(line));
  const removed = plan.changes.filter((c) => c.action === "delete" || c.action === "replace");
  const summary = [
    { label: "Create", count: s.create },
    { label: "Update", count: s.update },
    { label: "Replace", count: s.replace },
    { label: "Delete", count: s.delete },
  ];
  if (s.unmanaged > 0) summary.push({ label: "Unmanaged", count: s.unmanaged });
  const toWords: Record<Action, string> = {
    create: "to create",
    update: "to update",
    replace: "to replace",
    delete: "to delete",
    unmanaged: "unmanaged",
  };
  const changes = s.create + s.update + s.replace + s.delete;
  const spec: MarkdownSpec = {
    title: "forgeform plan",
    intro,
    summary,
    changes: plan.changes,
    countLabel: (action, n) => `${n.toLocaleString("en-US")} ${toWords[action]}`,
    legend:
      "Symbols: `+` create, `~` update in place, `-/+` replace (delete, then create), `-` delete, " +
      "`!` unmanaged (not in the manifests, left alone).",
    errors: plan.errors,
    warnings: plan.warnings,
    footer: `${requestsLine(plan)} ${changes === 0 ? "Nothing to apply." : `${plural(changes, "change")} to apply.`}`,
    noun: ["change", "changes"],
    fullReport: "Run `forgeform plan` for the full plan.",
    maxLength: options.maxLength ?? DEFAULT_MARKDOWN_MAX,
  };
  if (changes === 0) {
    spec.none =
      plan.errors.length === 0
        ? "**No changes.** The live state matches the manifests."
        : "**No changes planned:** fix the errors below first.";
  }
  if (removed.length > 0) {
    const what = [
      s.delete > 0 ? `deletes ${plural(s.delete, "object")}` : "",
      s.replace > 0 ? `replaces ${plural(s.replace, "object")} (deletes, then creates them again)` : "",
    ].filter((w) => w !== "");
    spec.banner = {
      lead: `This plan ${what.join(" and ")}. Check them before applying:`,
      entries: removed.map((c) => ({
        address: c.address,
        label: c.action === "delete" ? "delete" : "replace",
      })),
    };
  }
  return renderMarkdown(spec);
}
