/**
 * Markdown the Action adds to what the report renderers produce: the validation result (no plan exists then) and
 * the outcome of an apply, which follows the plan's Markdown in the job summary.
 */
import type { Outcome } from "../engine/apply.js";
import type { Diagnostic } from "../manifest/index.js";
import { ACTION_SYMBOL, plural } from "../report/common.js";
import { escapeMarkdown, inlineCode } from "../report/markdown.js";

/** Lists show at most this many entries, then say how many more there are. */
const LIST_CAP = 100;

function diagnosticLine(d: Diagnostic): string {
  const where = inlineCode(`${d.file}:${d.line}:${d.col}`);
  const path = d.path ? ` ${inlineCode(d.path)}:` : "";
  return `- ${where}${path} ${escapeMarkdown(d.message)}`;
}

function capped(lines: string[], noun: [string, string]): string[] {
  if (lines.length <= LIST_CAP) return lines;
  return [
    ...lines.slice(0, LIST_CAP),
    `- ...and ${plural(lines.length - LIST_CAP, noun[0], noun[1])} more (see the step log).`,
  ];
}

/** The validation result: a verdict line, then errors and warnings with their file:line:col. */
export function renderValidationMarkdown(diagnostics: Diagnostic[], files: number): string {
  const errors = diagnostics.filter((d) => d.severity === "error");
  const warnings = diagnostics.filter((d) => d.severity === "warning");
  const lines = ["## forgeform validate", ""];
  if (errors.length > 0) {
    lines.push(
      `**The manifests are invalid:** ${plural(errors.length, "error")}${
        warnings.length > 0 ? `, ${plural(warnings.length, "warning")}` : ""
      }. Nothing was sent to the platform.`,
      "",
      "### Errors",
      "",
      ...capped(errors.map(diagnosticLine), ["error", "errors"]),
      "",
    );
  } else {
    lines.push(
      `**${plural(files, "manifest file")} valid**${warnings.length > 0 ? ` with ${plural(warnings.length, "warning")}` : ""}.`,
      "",
    );
  }
  if (warnings.length > 0) {
    lines.push("### Warnings", "", ...capped(warnings.map(diagnosticLine), ["warning", "warnings"]), "");
  }
  return `${lines.join("\n")}`;
}

function outcomeLine(o: Outcome): string {
  const symbol = inlineCode(ACTION_SYMBOL[o.action]);
  const status =
    o.status === "done"
      ? o.recovered
        ? "done (its response was lost; found on re-reading)"
        : "done"
      : o.status;
  return `- ${symbol} ${inlineCode(o.address)}: **${status}**${o.message ? `: ${escapeMarkdown(o.message)}` : ""}`;
}

/**
 * The head of an apply's job summary: a verdict line with counts, then every failed and skipped change (done
 * changes are in the plan that follows). Kept short so the plan's Markdown keeps most of the room.
 */
export function renderApplyMarkdown(outcomes: Outcome[]): string {
  const failed = outcomes.filter((o) => o.status === "failed");
  const skipped = outcomes.filter((o) => o.status === "skipped");
  const done = outcomes.length - failed.length - skipped.length;
  const complete = failed.length + skipped.length === 0;
  const lines = [
    "## forgeform apply",
    "",
    `**Apply ${complete ? "complete" : "incomplete"}:** ${done} done, ${failed.length} failed, ${skipped.length} skipped.`,
  ];
  if (!complete) {
    lines.push(
      "",
      ...capped([...failed, ...skipped].map(outcomeLine), ["change", "changes"]),
      "",
      "Fix the cause and run apply again: it picks up where this run left off.",
    );
  }
  lines.push("", complete ? "The plan that was applied:" : "The plan:", "", "");
  return lines.join("\n");
}

/** The head of an apply's job summary when nothing was applied: why, then the plan. */
export function renderApplyRefusedMarkdown(reason: string): string {
  return `## forgeform apply\n\n**Nothing was applied:** ${escapeMarkdown(reason)}.\n\nThe plan:\n\n`;
}
