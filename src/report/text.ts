/**
 * The plan for a terminal, Terraform-like: one header line per change (symbol, address, what happens), the reason,
 * then only the fields that change. Colours only when the caller asks for them.
 */
import pc from "picocolors";
import type { Action, Change, Plan, PlanProblem } from "../plan/model.js";
import { escapeLine, escapeText } from "../text/escape.js";
import {
  ACTION_SYMBOL,
  ACTIONS,
  type FieldView,
  fieldMode,
  fieldViews,
  isRepeated,
  plural,
  problemLine,
  type RepeatedChange,
  repeatedChanges,
  repeatedWhere,
  sourceLabel,
} from "./common.js";

export interface TextOptions {
  /** Emit ANSI colours. The CLI passes `!process.env.NO_COLOR && isTTY`; false never emits an escape code. */
  color: boolean;
  /** Columns to wrap prose (reasons, notes, problem messages) at; default 100. Addresses and values never wrap. */
  width?: number;
  /** List every change on its own, even one repeated alike in many groups or projects (`--expand`). */
  expand?: boolean;
}

export type Colors = ReturnType<typeof pc.createColors>;

/** What a header line says after the address, per action. */
export type ActionLabels = Record<Action, string>;

export const PLAN_LABELS: ActionLabels = {
  create: "will be created",
  update: "will be updated in place",
  replace: "will be replaced (deleted, then created)",
  delete: "will be deleted",
  unmanaged: "unmanaged (not in the manifests, left alone)",
};

const LEGEND: ActionLabels = {
  create: "create",
  update: "update in place",
  replace: "replace",
  delete: "delete",
  unmanaged: "unmanaged, left alone",
};

export function actionColor(c: Colors, action: Action): (s: string) => string {
  switch (action) {
    case "create":
      return c.green;
    case "update":
      return c.yellow;
    case "replace":
      return c.magenta;
    case "delete":
      return c.red;
    case "unmanaged":
      return c.cyan;
  }
}

/** Word-wraps prose to `width` columns; every line starts with `indent`. Words longer than a line stay whole. */
export function wrap(text: string, width: number, indent: string): string[] {
  const out: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(/\s+/).filter((w) => w !== "")) {
      if (line !== "" && indent.length + line.length + 1 + word.length > width) {
        out.push(indent + line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    out.push(indent + line);
  }
  return out;
}

/** The marker before a field: `+` a desired value, `-` a live value going away, `~` a change, ` ` a value left alone. */
function fieldMarker(action: Action, view: FieldView): string {
  if (action === "unmanaged") return " ";
  const mode = fieldMode(action);
  if (mode === "after") return "+";
  if (mode === "before") return "-";
  return view.diff || view.before !== undefined ? "~" : "+";
}

function fieldLines(c: Colors, view: FieldView, action: Action, indent: string): string[] {
  const marker = fieldMarker(action, view);
  const markerColor = marker === "+" ? c.green : marker === "-" ? c.red : marker === "~" ? c.yellow : c.dim;
  let suffix = "";
  if (view.forcesReplacement) suffix += ` ${c.red("(forces replacement)")}`;
  if (view.note) suffix += ` ${c.dim(`# ${view.note}`)}`;
  const head = `${indent}${markerColor(marker)} ${view.field}:`;
  if (view.diff) {
    const lines = [head + suffix];
    for (const line of view.diff) {
      const text = line.op === "@" ? line.text : `${line.op}${line.text}`;
      const colored =
        line.op === "+"
          ? c.green(text)
          : line.op === "-"
            ? c.red(text)
            : line.op === "@"
              ? c.cyan(text)
              : text;
      lines.push(`${indent}    ${colored}`);
    }
    return lines;
  }
  let value: string;
  if (view.before !== undefined && view.after !== undefined) value = `${view.before} -> ${view.after}`;
  else value = view.after ?? view.before ?? "";
  return [`${head} ${value}${suffix}`];
}

/** Every change, or each set of changes repeated alike in many groups or projects once, as lines. */
export function changesLines(
  c: Colors,
  changes: readonly Change[],
  labels: ActionLabels,
  options: TextOptions,
): string[] {
  const width = options.width ?? 100;
  const lines: string[] = [];
  for (const entry of repeatedChanges(changes, options.expand ? Number.POSITIVE_INFINITY : undefined)) {
    lines.push(
      "",
      ...(isRepeated(entry) ? repeatedLines(c, entry, labels, width) : changeLines(c, entry, labels, width)),
    );
  }
  return lines;
}

/** One change made alike in many groups or projects: `+ badge["coverage"] will be created in 1,843 projects: ...`. */
function repeatedLines(c: Colors, entry: RepeatedChange, labels: ActionLabels, width: number): string[] {
  const lines = changeLines(c, entry.sample, labels, width, entry.suffix);
  lines[0] += ` ${repeatedWhere(entry)}`;
  return lines;
}

/** The lines for one change: header, reason, fields. Shared by the plan and drift renderers. */
export function changeLines(
  c: Colors,
  change: Change,
  labels: ActionLabels,
  width: number,
  address = change.address,
): string[] {
  const color = actionColor(c, change.action);
  const symbol = ACTION_SYMBOL[change.action];
  const shown = escapeLine(address);
  const lines = [`  ${color(symbol.padStart(3))} ${c.bold(shown)} ${color(labels[change.action])}`];
  if (change.reason) lines.push(...wrap(escapeText(change.reason), width, "      # ").map((l) => c.dim(l)));
  for (const view of fieldViews(change)) lines.push(...fieldLines(c, view, change.action, "      "));
  return lines;
}

/** `Errors:` / `Warnings:` sections, one problem per entry with its `file:line:col` when it has one. */
export function problemSections(
  c: Colors,
  errors: PlanProblem[],
  warnings: PlanProblem[],
  width: number,
): string[] {
  const lines: string[] = [];
  const section = (title: string, problems: PlanProblem[], paint: (s: string) => string) => {
    if (problems.length === 0) return;
    lines.push("", paint(c.bold(`${title} (${problems.length}):`)));
    for (const problem of problems) {
      const [first = "", ...rest] = wrap(problemLine(problem), width, "    ");
      lines.push(`  ${paint("-")} ${first.slice(4)}`, ...rest);
    }
  };
  section("Errors", errors, c.red);
  section("Warnings", warnings, c.yellow);
  return lines;
}

/** The banner lists at most this many objects deleted with a group, then says how many more. */
const BANNER_CAP = 20;

/**
 * A warning block for group deletes that take subgroups and projects with them: every such object, by the group
 * it goes with, so nothing is deleted unseen at the end of a long plan. Empty when no delete takes anything.
 */
export function cascadeBanner(c: Colors, changes: readonly Change[], width: number): string[] {
  const taken = changes.filter((ch) => ch.action === "delete" && ch.deletedWith !== undefined);
  if (taken.length === 0) return [];
  const owners = [...new Set(taken.map((ch) => ch.deletedWith!))];
  const lines = [
    "",
    ...wrap(
      `WARNING: deleting ${owners.map(escapeLine).join(", ")} also deletes ${plural(taken.length, "subgroup or project", "subgroups and projects")} the platform removes with ${owners.length === 1 ? "it" : "them"}:`,
      width,
      "",
    ).map((l) => c.red(c.bold(l))),
  ];
  for (const ch of taken.slice(0, BANNER_CAP)) lines.push(c.red(`  - ${escapeLine(ch.address)}`));
  if (taken.length > BANNER_CAP)
    lines.push(c.red(`  - ...and ${plural(taken.length - BANNER_CAP, "more", "more")}`));
  lines.push(c.red("Each is counted by --max-deletes. Check them before applying."));
  return lines;
}

/** `Read live state with N requests.` (with the retry count when there were retries). */
export function requestsLine(plan: Plan): string {
  const retries = plan.requests.retries > 0 ? ` (${plural(plan.requests.retries, "retry", "retries")})` : "";
  return `Read live state with ${plural(plan.requests.total, "request")}${retries}.`;
}

/** `Patterns: projects["acme/**"] matched 1,843 projects (policy.yaml:3:3).`, one line per pattern entry. */
export function selectorLines(plan: Plan): string[] {
  return (plan.selectors ?? []).map(
    (s) =>
      `Pattern ${s.collection}[${JSON.stringify(s.pattern)}] matched ${plural(s.matched, s.collection.slice(0, -1), s.collection)} (${sourceLabel(s.source)}).`,
  );
}

/** The exact last line of a text plan. */
export function planSummaryLine(plan: Plan): string {
  const s = plan.summary;
  return `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete.`;
}

/** `Limited to targets: a, b`, the targets escaped (the user may have typed anything). */
export function targetsLine(c: Colors, targets: string[]): string {
  return c.dim(`Limited to targets: ${targets.map(escapeLine).join(", ")}`);
}

/**
 * Renders a plan for a terminal. The last line is always `Plan: N to create, N to update, N to replace, N to
 * delete.`; before it come the request count, the number of unmanaged objects (if any), and `No changes. ...` when
 * nothing would change and nothing failed.
 */
export function renderPlanText(plan: Plan, options: TextOptions): string {
  const c = pc.createColors(options.color);
  const width = options.width ?? 100;
  const lines: string[] = [];
  if (plan.targets.length > 0) lines.push(targetsLine(c, plan.targets), "");
  if (plan.shard) {
    lines.push(
      c.dim(
        `Shard ${plan.shard.index}/${plan.shard.count}: ${plan.shard.units.length === 0 ? "no top-level targets" : plan.shard.units.join(", ")}`,
      ),
      "",
    );
  }
  if (plan.changedSince !== undefined) {
    lines.push(c.dim(`Limited to what the manifests changed since ${escapeLine(plan.changedSince)}`), "");
  }

  const present = ACTIONS.filter((a) => plan.changes.some((ch) => ch.action === a));
  if (present.length > 0) {
    lines.push("Actions are shown with these symbols:");
    for (const action of present)
      lines.push(`  ${actionColor(c, action)(ACTION_SYMBOL[action].padStart(3))} ${LEGEND[action]}`);
    const acting = plan.changes.some((ch) => ch.action !== "unmanaged");
    lines.push(
      "",
      acting
        ? "forgeform will perform these actions:"
        : "forgeform found objects the manifests do not mention:",
    );
    lines.push(...changesLines(c, plan.changes, PLAN_LABELS, options));
  }

  lines.push(...cascadeBanner(c, plan.changes, width));
  lines.push(...problemSections(c, plan.errors, plan.warnings, width));

  const s = plan.summary;
  const changes = s.create + s.update + s.replace + s.delete;
  if (lines.length > 0) lines.push("");
  if (s.unmanaged > 0) {
    lines.push(c.cyan(`${plural(s.unmanaged, "unmanaged object")} (not in the manifests) left alone.`));
  }
  lines.push(...selectorLines(plan));
  lines.push(requestsLine(plan));
  if (changes === 0) {
    if (plan.errors.length === 0) lines.push(c.green("No changes. The live state matches the manifests."));
    else lines.push(c.red(`No changes planned: fix the ${plural(plan.errors.length, "error")} above first.`));
  }
  lines.push(planSummaryLine(plan));
  return `${lines.join("\n")}\n`;
}
