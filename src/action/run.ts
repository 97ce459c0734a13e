/**
 * The GitHub Action: inputs -> the functions the CLI calls (loadManifests, planFromManifests, applyPlanResult,
 * the report renderers) -> the step log, outputs, the job summary and annotations.
 *
 * Exit codes follow the CLI: validate 0/1; plan 0 (no changes) or 2 (changes), 1 on errors; apply 0 or 1; drift 0
 * (none) or 2 (drift), 1 on errors. Only 1 fails the step, and 2 from drift when `fail-on-drift` is true. Apply
 * asks no confirmation (the Action is the merge pipeline) but honours `max-deletes`.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import * as core from "@actions/core";
import type { ClientOptions } from "../api/index.js";
import { resolveConnection } from "../cli/connection.js";
import { formatDiagnostics } from "../cli/diagnostics.js";
import { renderDrift } from "../cli/drift.js";
import { renderValidateText } from "../cli/validate.js";
import { applyPlanResult, type PlanOutcome, planFromManifests } from "../cli/workflow.js";
import type { Outcome } from "../engine/apply.js";
import { writeFileSafely } from "../files/write.js";
import { type Diagnostic, loadManifests } from "../manifest/index.js";
import { hasChanges, type Plan, type PlanProblem } from "../plan/model.js";
import { readSavedPlan, stalenessOf, writeSavedPlan } from "../plan/saved.js";
import { ACTION_SYMBOL } from "../report/common.js";
import {
  DEFAULT_MARKDOWN_MAX,
  driftExitCode,
  driftSummaryLine,
  renderDriftJson,
  renderDriftJunit,
  renderDriftMarkdown,
  renderPlanJson,
  renderPlanMarkdown,
  renderPlanText,
} from "../report/index.js";
import { type ActionInputs, type LogFormat, maskSecrets, readInputs } from "./inputs.js";
import { renderApplyMarkdown, renderApplyRefusedMarkdown, renderValidationMarkdown } from "./summary.js";

/** The result of one command: its exit code and, when the step must fail, why. */
interface Result {
  code: number;
  failure?: string;
}

class Run {
  readonly dir: string;
  constructor(
    readonly inputs: ActionInputs,
    readonly env: NodeJS.ProcessEnv,
  ) {
    this.dir = mkdtempSync(join(env["RUNNER_TEMP"] || tmpdir(), "forgeform-"));
  }

  /** Writes a report file under the report directory and names it in an output. */
  report(output: string, extension: string, text: string): void {
    const file = join(this.dir, `forgeform-${this.inputs.command}.${extension}`);
    writeFileSafely(file, text);
    core.setOutput(output, file);
  }

  /** Writes the Markdown report file and appends it to the job summary. */
  async markdown(text: string): Promise<void> {
    this.report("markdown-report", "md", text);
    if (!this.env["GITHUB_STEP_SUMMARY"]) {
      core.info("GITHUB_STEP_SUMMARY is not set: the Markdown report is not added to a job summary.");
      return;
    }
    await core.summary.addRaw(text, true).write();
  }

  /** A manifest path as the runner wants it in annotations: relative to the repository checkout. */
  annotationFile(file: string): string {
    const workspace = this.env["GITHUB_WORKSPACE"];
    if (!workspace) return file;
    const rel = relative(workspace, resolve(file));
    return rel.startsWith("..") || isAbsolute(rel) ? file : rel.split("\\").join("/");
  }

  annotateDiagnostics(diagnostics: Diagnostic[]): void {
    for (const d of diagnostics) {
      const properties = {
        title: `forgeform ${this.inputs.command}`,
        file: this.annotationFile(d.file),
        startLine: d.line,
        startColumn: d.col,
      };
      const message = d.path ? `${d.path}: ${d.message}` : d.message;
      if (d.severity === "error") core.error(message, properties);
      else core.warning(message, properties);
    }
  }

  annotateProblems(problems: PlanProblem[], severity: "error" | "warning"): void {
    for (const p of problems) {
      const properties: core.AnnotationProperties = { title: `forgeform ${this.inputs.command}` };
      if (p.source) {
        properties.file = this.annotationFile(p.source.file);
        properties.startLine = p.source.line;
        properties.startColumn = p.source.col;
      }
      const message = `${p.address}: ${p.message}`;
      if (severity === "error") core.error(message, properties);
      else core.warning(message, properties);
    }
  }

  /** Outputs every command sets: the plan's counts, or zeros when no plan was made. */
  counts(plan: Plan | undefined): void {
    const s = plan?.summary ?? { create: 0, update: 0, replace: 0, delete: 0, unmanaged: 0 };
    core.setOutput("has-changes", plan ? String(hasChanges(plan)) : "false");
    core.setOutput("creates", String(s.create));
    core.setOutput("updates", String(s.update));
    core.setOutput("replacements", String(s.replace));
    core.setOutput("deletes", String(s.delete));
    core.setOutput("unmanaged", String(s.unmanaged));
  }

  /** Invalid manifests: annotations, the validation report, and the step fails. */
  async invalid(diagnostics: Diagnostic[], files: string[]): Promise<Result> {
    core.info(formatDiagnostics(diagnostics).trimEnd());
    this.report("json-report", "json", validationJson(diagnostics, files));
    await this.markdown(renderValidationMarkdown(diagnostics, files.length));
    const errors = diagnostics.filter((d) => d.severity === "error").length;
    return {
      code: 1,
      failure: `the manifests have ${errors === 1 ? "an error" : `${errors} errors`} (see the annotations); nothing was sent to the platform`,
    };
  }

  async validate(): Promise<Result> {
    const loaded = await loadManifests(this.inputs.paths.length > 0 ? this.inputs.paths : ["."], {
      secrets: true,
      env: this.env,
    });
    const files = loaded.state?.files ?? [...new Set(loaded.diagnostics.map((d) => d.file))];
    this.annotateDiagnostics(loaded.diagnostics);
    this.counts(undefined);
    const errors = loaded.diagnostics.filter((d) => d.severity === "error").length;
    if (errors > 0) return this.invalid(loaded.diagnostics, files);
    core.info(
      this.inputs.format === "json"
        ? validationJson(loaded.diagnostics, files).trimEnd()
        : renderValidateText(loaded.diagnostics, files.length, true).trimEnd(),
    );
    this.report("json-report", "json", validationJson(loaded.diagnostics, files));
    await this.markdown(renderValidationMarkdown(loaded.diagnostics, files.length));
    return { code: 0 };
  }

  /** Plans (from manifests or, for apply, from a saved plan's manifests) and hands the outcome to `then`. */
  async withPlan(
    saved: Plan | undefined,
    then: (outcome: PlanOutcome, connection: ClientOptions) => Promise<Result>,
  ): Promise<Result> {
    const connection = resolveConnection(
      {
        ...(this.inputs.url !== undefined ? { url: this.inputs.url } : {}),
        ...(this.inputs.token !== undefined ? { token: this.inputs.token } : {}),
        // With step debug logging on (re-run with debug logging, or RUNNER_DEBUG=1): one line per request.
        debug: core.isDebug(),
      },
      this.env,
      (line) => core.debug(line),
    );
    const outcome = await planFromManifests({
      paths: saved ? saved.manifests : this.inputs.paths,
      connection,
      targets: saved ? saved.targets : this.inputs.targets,
      env: this.env,
    });
    try {
      this.annotateDiagnostics(outcome.diagnostics);
      if (!outcome.result) {
        this.counts(undefined);
        const files = [...new Set(outcome.diagnostics.map((d) => d.file))];
        return await this.invalid(outcome.diagnostics, files);
      }
      const { plan } = outcome.result;
      this.counts(plan);
      this.annotateProblems(plan.errors, "error");
      return await then(outcome, connection);
    } finally {
      await outcome.api?.close();
    }
  }

  planLog(plan: Plan, format: LogFormat): string {
    if (format === "json") return renderPlanJson(plan);
    if (format === "markdown") return renderPlanMarkdown(plan);
    return renderPlanText(plan, { color: false });
  }

  async plan(): Promise<Result> {
    return this.withPlan(undefined, async ({ result }) => {
      const plan = result!.plan;
      core.info(this.planLog(plan, this.inputs.format).trimEnd());
      this.report("json-report", "json", renderPlanJson(plan));
      await this.markdown(renderPlanMarkdown(plan));
      if (plan.errors.length > 0) return { code: 1, failure: planErrors(plan) };
      if (this.inputs.planFile) {
        writeSavedPlan(this.inputs.planFile, plan);
        core.info(`Saved the plan to ${this.inputs.planFile}; apply it with the plan-file input.`);
      }
      return { code: hasChanges(plan) ? 2 : 0 };
    });
  }

  async drift(): Promise<Result> {
    return this.withPlan(undefined, async ({ result }) => {
      const r = result!;
      core.info(renderDrift(r, this.inputs.format).trimEnd());
      this.report("json-report", "json", renderDriftJson(r.plan, { inSync: r.inSync }));
      this.report("junit-report", "xml", renderDriftJunit(r.plan, { inSync: r.inSync }));
      await this.markdown(renderDriftMarkdown(r.plan));
      if (r.plan.errors.length > 0) return { code: 1, failure: planErrors(r.plan) };
      const code = driftExitCode(r.plan);
      if (code === 2 && this.inputs.failOnDrift) {
        return { code, failure: `drift found (fail-on-drift is true). ${driftSummaryLine(r.plan)}` };
      }
      return { code };
    });
  }

  async apply(): Promise<Result> {
    const planFile = this.inputs.planFile;
    if (planFile && this.inputs.paths.length > 0) {
      throw new Error("give either the paths input or plan-file to apply, not both");
    }
    const saved = planFile ? readSavedPlan(planFile) : undefined;
    return this.withPlan(saved, async ({ result, ctx }, connection) => {
      const r = result!;
      const plan = r.plan;
      const fail = async (failure: string): Promise<Result> => {
        this.report("json-report", "json", renderPlanJson(plan));
        const head = renderApplyRefusedMarkdown(failure);
        await this.markdown(
          `${head}${renderPlanMarkdown(plan, { maxLength: DEFAULT_MARKDOWN_MAX - head.length })}`,
        );
        return { code: 1, failure };
      };
      if (saved && planFile) {
        const stale = stalenessOf(saved, plan);
        if (stale) return fail(`refusing to apply ${planFile}: ${stale}; nothing was applied`);
      }
      core.info(this.planLog(plan, this.inputs.format).trimEnd());
      if (plan.errors.length > 0) return fail(`${planErrors(plan)}; nothing was applied`);
      const deleting = plan.summary.delete + plan.summary.replace;
      const max = this.inputs.maxDeletes;
      if (max !== undefined && deleting > max) {
        return fail(
          `refusing to apply: the plan deletes or replaces ${deleting} objects, more than max-deletes ${max}; nothing was applied`,
        );
      }
      if (!hasChanges(plan)) {
        this.report("json-report", "json", renderPlanJson(plan));
        const head = "## forgeform apply\n\n**Nothing to apply:** the platform matches the manifests.\n\n";
        await this.markdown(
          `${head}${renderPlanMarkdown(plan, { maxLength: DEFAULT_MARKDOWN_MAX - head.length })}`,
        );
        return { code: 0 };
      }
      const outcomes = await applyPlanResult(ctx!, r, {
        concurrency: connection.concurrency ?? 8,
        onOutcome: (o, done, total) => core.info(`[${done}/${total}] ${outcomeLine(o)}`),
      });
      const failed = outcomes.filter((o) => o.status === "failed").length;
      const skipped = outcomes.filter((o) => o.status === "skipped").length;
      const done = outcomes.length - failed - skipped;
      core.info(
        `Apply ${failed + skipped > 0 ? "incomplete" : "complete"}: ${done} done, ${failed} failed, ${skipped} skipped.`,
      );
      this.report("json-report", "json", applyJson(plan, outcomes));
      const head = renderApplyMarkdown(outcomes);
      await this.markdown(
        `${head}${renderPlanMarkdown(plan, { maxLength: DEFAULT_MARKDOWN_MAX - head.length })}`,
      );
      if (failed + skipped > 0) {
        return {
          code: 1,
          failure: `of ${outcomes.length} changes, ${failed} failed and ${skipped} ${skipped === 1 ? "was" : "were"} skipped (see the log); run apply again after fixing the cause`,
        };
      }
      return { code: 0 };
    });
  }
}

function planErrors(plan: Plan): string {
  const n = plan.errors.length;
  return `the plan has ${n === 1 ? "an error" : `${n} errors`} (see the annotations and the log)`;
}

function outcomeLine(o: Outcome): string {
  const status =
    o.status === "done"
      ? o.recovered
        ? "done (its response was lost; found on re-reading)"
        : "done"
      : o.status;
  return `${ACTION_SYMBOL[o.action]} ${o.address}: ${status}${o.message ? `: ${o.message}` : ""}`;
}

/** The JSON report of validate: the same shape as `forgeform validate --format json`. */
function validationJson(diagnostics: Diagnostic[], files: string[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  return `${JSON.stringify(
    {
      valid: errors === 0,
      files,
      errors,
      warnings: diagnostics.length - errors,
      secretsResolved: true,
      diagnostics,
    },
    null,
    2,
  )}\n`;
}

/** The JSON report of apply: the plan's JSON form with the outcome of every change added. */
function applyJson(plan: Plan, outcomes: Outcome[]): string {
  const json = JSON.parse(renderPlanJson(plan)) as Record<string, unknown>;
  json["outcomes"] = outcomes.map((o) => ({
    address: o.address,
    action: o.action,
    status: o.status,
    ...(o.message ? { message: o.message } : {}),
    ...(o.recovered ? { recovered: true } : {}),
  }));
  return `${JSON.stringify(json, null, 2)}\n`;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Runs the Action. Never throws: any error fails the step with a message and exit-code 1. */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  maskSecrets(env);
  try {
    const inputs = readInputs();
    const action = new Run(inputs, env);
    const result = await action[inputs.command]();
    core.setOutput("exit-code", String(result.code));
    if (result.failure) core.setFailed(`forgeform ${inputs.command}: ${result.failure}`);
  } catch (error) {
    core.setOutput("exit-code", "1");
    core.setFailed(`forgeform: ${errorMessage(error)}`);
  }
}
