/**
 * Drift reports, derived from a Plan: fields that drifted (update and replace changes), declared objects that are
 * missing (create), live objects the manifests do not mention (unmanaged, or delete under prune policy delete).
 * Text, versioned JSON, Markdown and JUnit XML forms, and the exit code of `forgeform drift`.
 */
import pc from "picocolors";
import { targetOf } from "../plan/address.js";
import { type Json, problemJson, requestsJson, sourceJson, stringify } from "../plan/json.js";
import {
  type Action,
  type Change,
  type FieldChange,
  hasChanges,
  PLAN_FORMAT_VERSION,
  type Plan,
} from "../plan/model.js";
import { escapeText } from "../text/escape.js";
import { fieldViews, groupBy, plural, problemLine, sourceLabel } from "./common.js";
import {
  DEFAULT_MARKDOWN_MAX,
  inlineCode,
  type MarkdownOptions,
  type MarkdownSpec,
  renderMarkdown,
} from "./markdown.js";
import {
  type ActionLabels,
  cascadeBanner,
  changeLines,
  changesLines,
  problemSections,
  requestsLine,
  type TextOptions,
  targetsLine,
} from "./text.js";

/** What a drift item is: the live object differs, is missing, is not in the manifests, or would be deleted. */
export type DriftStatus = "drifted" | "missing" | "unmanaged" | "would_delete";

export interface DriftSummary {
  drifted: number;
  missing: number;
  unmanaged: number;
  would_delete: number;
}

const STATUS: Record<Action, DriftStatus> = {
  update: "drifted",
  replace: "drifted",
  create: "missing",
  unmanaged: "unmanaged",
  delete: "would_delete",
};

export function driftStatus(change: Change): DriftStatus {
  return STATUS[change.action];
}

export function driftSummary(plan: Plan): DriftSummary {
  const summary: DriftSummary = { drifted: 0, missing: 0, unmanaged: 0, would_delete: 0 };
  for (const change of plan.changes) summary[driftStatus(change)]++;
  return summary;
}

/** How a drift run judges what it found: the reports say what the exit code says. */
export interface DriftOptions {
  /** Live objects the manifests do not mention (prune policy `warn`) fail the run too (`--fail-on-unmanaged`). */
  failOnUnmanaged?: boolean;
}

/** Whether a drift item fails the run: everything but unmanaged objects, which fail only when asked. */
export function failsDrift(change: Change, options: DriftOptions = {}): boolean {
  return change.action !== "unmanaged" || options.failOnUnmanaged === true;
}

/**
 * The exit code of `forgeform drift`: 2 when applying the manifests would change something (drifted, missing, or
 * pruned objects), 0 otherwise. Live objects the manifests do not mention under the default `warn` policy are
 * reported without failing, unless `failOnUnmanaged` asks for it. Plan errors are not drift; the caller decides
 * what they mean (the CLI exits 1 on errors before asking this).
 */
export function driftExitCode(plan: Plan, options: DriftOptions = {}): 0 | 2 {
  if (hasChanges(plan)) return 2;
  return plan.changes.some((c) => failsDrift(c, options)) ? 2 : 0;
}

/** `Drift: N drifted, N missing, N unmanaged, N would be deleted.` */
export function driftSummaryLine(plan: Plan): string {
  const s = driftSummary(plan);
  return `Drift: ${s.drifted} drifted, ${s.missing} missing, ${s.unmanaged} unmanaged, ${s.would_delete} would be deleted.`;
}

export const DRIFT_LABELS: ActionLabels = {
  update: "drifted (the live object differs from the manifests)",
  replace: "drifted (applying the manifests would replace it)",
  create: "missing (declared in the manifests, not on the platform)",
  unmanaged: "unmanaged (on the platform, not in the manifests)",
  delete: "would be deleted by apply",
};

/**
 * Renders a drift report for a terminal. Fields read `live -> declared`. The last line is
 * `Drift: N drifted, N missing, N unmanaged, N would be deleted.`
 */
export function renderDriftText(plan: Plan, options: TextOptions): string {
  const c = pc.createColors(options.color);
  const width = options.width ?? 100;
  const lines: string[] = [];
  if (plan.targets.length > 0) lines.push(targetsLine(c, plan.targets), "");
  if (plan.shard)
    lines.push(
      c.dim(
        `Shard ${plan.shard.index}/${plan.shard.count}: ${plan.shard.units.join(", ") || "no top-level targets"}`,
      ),
      "",
    );
  if (plan.changes.length > 0) {
    lines.push(`Drift between the platform and the manifests (fields read ${c.bold("live -> declared")}):`);
    lines.push(...changesLines(c, plan.changes, DRIFT_LABELS, options));
  }
  lines.push(...cascadeBanner(c, plan.changes, width));
  lines.push(...problemSections(c, plan.errors, plan.warnings, width));
  if (lines.length > 0) lines.push("");
  lines.push(requestsLine(plan));
  if (plan.changes.length === 0) {
    if (plan.errors.length === 0) lines.push(c.green("No drift. The live state matches the manifests."));
    else
      lines.push(
        c.red(`No drift found, but ${plural(plan.errors.length, "error")} kept parts from being compared.`),
      );
  }
  lines.push(driftSummaryLine(plan));
  return `${lines.join("\n")}\n`;
}

function driftFieldJson(field: FieldChange): Json {
  return {
    field: field.field,
    live: field.before as Json | undefined,
    declared: field.after as Json | undefined,
    sensitive: field.sensitive,
    write_only: field.writeOnly,
    forces_replacement: field.forcesReplacement,
    note: field.note,
  };
}

/**
 * The drift report as versioned JSON (`format_version` 1, `kind` "drift"), described in docs/plan-format.md.
 * `inSync` lists the managed objects found equal (JUnit's passing cases), so shards' reports can be merged.
 */
export function renderDriftJson(plan: Plan, options: { inSync?: string[] } & DriftOptions = {}): string {
  const s = driftSummary(plan);
  return stringify({
    format_version: PLAN_FORMAT_VERSION,
    kind: "drift",
    created_at: plan.createdAt,
    url: plan.url,
    manifests: plan.manifests,
    targets: plan.targets,
    changed_since: plan.changedSince,
    shard: plan.shard && { index: plan.shard.index, count: plan.shard.count, units: plan.shard.units },
    drift: driftExitCode(plan, options) === 2,
    fail_on_unmanaged: options.failOnUnmanaged === true,
    summary: { drifted: s.drifted, missing: s.missing, unmanaged: s.unmanaged, would_delete: s.would_delete },
    items: plan.changes.map((change) => ({
      address: change.address,
      status: driftStatus(change),
      action: change.action,
      target: targetOf(change.address),
      parent: change.parent,
      collection: change.collection,
      key: change.key,
      live_id: change.liveId,
      reason: change.reason,
      source: change.source && sourceJson(change.source),
      deleted_with: change.deletedWith,
      backup: change.backup,
      fields: change.fields.map(driftFieldJson),
    })),
    errors: plan.errors.map(problemJson),
    warnings: plan.warnings.map(problemJson),
    in_sync: options.inSync,
    requests: requestsJson(plan),
    live_digest: plan.liveDigest,
  });
}

/** Renders a drift report as a Markdown comment or job summary, at most `maxLength` characters (default 65,000). */
export function renderDriftMarkdown(plan: Plan, options: MarkdownOptions = {}): string {
  const s = driftSummary(plan);
  const intro = [`Live state of ${inlineCode(plan.url)} compared with the manifests, ${plan.createdAt}.`];
  if (plan.targets.length > 0)
    intro.push(`Limited to targets: ${plan.targets.map((t) => inlineCode(t)).join(", ")}.`);
  const words: Record<Action, string> = {
    update: "drifted",
    replace: "drifted (replace)",
    create: "missing",
    unmanaged: "unmanaged",
    delete: "would be deleted",
  };
  const spec: MarkdownSpec = {
    title: "forgeform drift report",
    intro,
    summary: [
      { label: "Drifted", count: s.drifted },
      { label: "Missing", count: s.missing },
      { label: "Unmanaged", count: s.unmanaged },
      { label: "Would delete", count: s.would_delete },
    ],
    changes: plan.changes,
    countLabel: (action, n) => `${n.toLocaleString("en-US")} ${words[action]}`,
    legend:
      "Symbols: `~` drifted (`-` lines are live values, `+` lines the manifests'), `-/+` drifted, applying " +
      "replaces it, `+` missing from the platform, `!` unmanaged (not in the manifests), `-` not in the " +
      "manifests, applying deletes it (prune policy delete).",
    errors: plan.errors,
    warnings: plan.warnings,
    footer: `${requestsLine(plan)} ${driftSummaryLine(plan)}`,
    noun: ["drift item", "drift items"],
    fullReport: "Run `forgeform drift` for the full report.",
    maxLength: options.maxLength ?? DEFAULT_MARKDOWN_MAX,
  };
  if (plan.changes.length === 0) {
    spec.none =
      plan.errors.length === 0
        ? "**No drift.** The live state matches the manifests."
        : "**No drift found**, but the errors below kept parts from being compared.";
  }
  const removed = plan.changes.filter((c) => c.action === "delete" || c.action === "replace");
  if (removed.length > 0) {
    const what = [
      s.would_delete > 0 ? `delete ${plural(s.would_delete, "object")} the manifests do not mention` : "",
      removed.length > s.would_delete
        ? `replace ${plural(removed.length - s.would_delete, "drifted object")}`
        : "",
    ].filter((w) => w !== "");
    spec.banner = {
      lead: `Applying the manifests would ${what.join(" and ")}:`,
      entries: removed.map((c) => ({
        address: c.address,
        label: c.action === "delete" ? "delete" : "replace",
      })),
    };
  }
  return renderMarkdown(spec);
}

/** Characters XML 1.0 cannot hold at all (control characters, lone surrogates, U+FFFE/U+FFFF). */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are exactly the characters XML cannot hold
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Escapes text for XML element content or a double-quoted attribute. Control and bidirectional characters are
 * shown escaped (see escape.ts), as JUnit reports end up on terminals and CI pages; the other characters XML cannot
 * hold (lone surrogates, U+FFFE, U+FFFF) become U+FFFD.
 */
export function xmlEscape(text: string): string {
  return escapeText(text)
    .replace(NOT_XML, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\n/g, "&#10;")
    .replace(/\r/g, "&#13;")
    .replace(/\t/g, "&#9;");
}

/** Element content keeps its newlines readable. */
function xmlText(text: string): string {
  return xmlEscape(text).replace(/&#10;/g, "\n");
}

function failureMessage(change: Change): string {
  switch (driftStatus(change)) {
    case "drifted": {
      const fields = fieldViews(change).map((f) => f.field);
      const what =
        fields.length > 0 ? `${fields.join(", ")} differ${fields.length === 1 ? "s" : ""}` : "differs";
      const replace = change.action === "replace" ? "; applying would replace it" : "";
      return `drifted: ${what} from the manifests${replace}`;
    }
    case "missing":
      return `missing: declared in the manifests${change.source ? ` at ${sourceLabel(change.source)}` : ""} but not on the platform`;
    case "unmanaged":
      return "unmanaged: on the platform but not in the manifests";
    case "would_delete":
      if (change.deletedWith)
        return `applying would delete it with ${change.deletedWith}: the platform deletes a group's subgroups and projects with it`;
      if (change.source)
        return `marked "state: absent" in the manifests at ${sourceLabel(change.source)}: applying would delete it`;
      return "not in the manifests: applying would delete it (prune policy delete)";
  }
}

/** The field lines of a change without colours or the header: the body of its <failure>. */
function failureBody(change: Change): string {
  const lines = changeLines(pc.createColors(false), change, DRIFT_LABELS, 100).slice(1);
  return lines.map((l) => l.replace(/^ {6}/, "")).join("\n");
}

export interface JunitOptions extends DriftOptions {
  /** Addresses of managed objects that were compared and found equal: passing test cases. */
  inSync?: string[];
}

interface Case {
  address: string;
  change?: Change;
  errors: string[];
}

/**
 * A drift report as JUnit XML: one <testsuite> per target (top-level group or project, or `instance`), one
 * <testcase> per object (every drift item plus `options.inSync`), a <failure> per drift item with the field
 * differences, and an <error> for each plan error on that address.
 */
export function renderDriftJunit(plan: Plan, options: JunitOptions = {}): string {
  const cases = new Map<string, Case>();
  for (const change of plan.changes)
    cases.set(change.address, { address: change.address, change, errors: [] });
  for (const address of options.inSync ?? []) {
    if (!cases.has(address)) cases.set(address, { address, errors: [] });
  }
  for (const error of plan.errors) {
    const existing = cases.get(error.address);
    if (existing) existing.errors.push(problemLine(error));
    else cases.set(error.address, { address: error.address, errors: [problemLine(error)] });
  }
  const suites = groupBy(cases.values(), (c) => targetOf(c.address));
  const warnings = groupBy(plan.warnings, (w) => targetOf(w.address));

  let failures = 0;
  let errors = 0;
  const body: string[] = [];
  for (const target of warnings.keys()) if (!suites.has(target)) suites.set(target, []);
  for (const [target, list] of suites) {
    const suiteFailures = list.filter((c) => c.change && failsDrift(c.change, options)).length;
    const suiteErrors = list.filter((c) => c.errors.length > 0).length;
    failures += suiteFailures;
    errors += suiteErrors;
    body.push(
      `  <testsuite name="${xmlEscape(target)}" tests="${list.length}" failures="${suiteFailures}" errors="${suiteErrors}" skipped="0" timestamp="${xmlEscape(plan.createdAt)}">`,
    );
    for (const item of list) {
      const name = `name="${xmlEscape(item.address)}" classname="${xmlEscape(target)}"`;
      if (!item.change && item.errors.length === 0) {
        body.push(`    <testcase ${name}/>`);
        continue;
      }
      body.push(`    <testcase ${name}>`);
      if (item.change && failsDrift(item.change, options)) {
        const status = driftStatus(item.change);
        body.push(
          `      <failure type="${status}" message="${xmlEscape(failureMessage(item.change))}">${xmlText(failureBody(item.change))}</failure>`,
        );
      } else if (item.change) {
        // Reported, not a failure (prune policy warn): a CI page stays green, as the exit code does.
        body.push(
          `      <system-out>${xmlText(`${failureMessage(item.change)} (prune policy warn: reported, not a failure; --fail-on-unmanaged makes it one)`)}</system-out>`,
        );
      }
      for (const message of item.errors) {
        body.push(
          `      <error type="plan-error" message="${xmlEscape(message)}">${xmlText(message)}</error>`,
        );
      }
      body.push("    </testcase>");
    }
    const suiteWarnings = warnings.get(target) ?? [];
    if (suiteWarnings.length > 0) {
      body.push(
        `    <system-out>${xmlText(suiteWarnings.map((w) => `warning: ${problemLine(w)}`).join("\n"))}</system-out>`,
      );
    }
    body.push("  </testsuite>");
  }
  const total = cases.size;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="forgeform drift" tests="${total}" failures="${failures}" errors="${errors}">`,
    ...body,
    "</testsuites>",
    "",
  ].join("\n");
}
