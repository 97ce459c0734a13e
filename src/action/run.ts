/**
 * The GitHub Action: inputs -> the functions the CLI calls (loadManifests, planFromManifests, applyPlanResult,
 * the report renderers) -> the step log, outputs, the job summary and annotations.
 *
 * Exit codes follow the CLI: validate 0/1; plan 0 (no changes) or 2 (changes), 1 on errors; apply 0 or 1; drift 0
 * (none) or 2 (drift), 1 on errors. Only 1 fails the step, and 2 from drift when `fail-on-drift` is true. Apply
 * asks no confirmation (the Action is the merge pipeline) but honours `max-deletes`.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import * as core from "@actions/core";
import { glob, isDynamicPattern } from "tinyglobby";
import type { ClientOptions } from "../api/index.js";
import { resolveConnection } from "../cli/connection.js";
import { formatDiagnostics } from "../cli/diagnostics.js";
import { renderDrift } from "../cli/drift.js";
import { renderValidateText } from "../cli/validate.js";
import {
  applyPlanResult,
  checkSavedPlanFolder,
  type PlanOutcome,
  planFromManifests,
  savedPlanRequest,
} from "../cli/workflow.js";
import type { Outcome } from "../engine/apply.js";
import { parseShard } from "../engine/shard.js";
import { writeFileSafely } from "../files/write.js";
import { type Diagnostic, loadManifests } from "../manifest/index.js";
import { type Change, hasChanges, type Plan, type PlanProblem } from "../plan/model.js";
import { readSavedPlan, stalenessOf, writeSavedPlan } from "../plan/saved.js";
import { ACTION_SYMBOL, plural } from "../report/common.js";
import {
  DEFAULT_MARKDOWN_MAX,
  driftExitCode,
  driftSummaryLine,
  renderApplyJson,
  renderDriftJson,
  renderDriftJunit,
  renderDriftMarkdown,
  renderPlanJson,
  renderPlanMarkdown,
  renderPlanText,
} from "../report/index.js";
import { planSummaryLine } from "../report/text.js";
import { renderValidationJson } from "../report/validation.js";
import { commentOnPullRequest, commentPlace } from "./comment.js";
import {
  type ActionInputs,
  inActionTerms,
  type LogFormat,
  maskSecrets,
  readInputs,
  secretValues,
} from "./inputs.js";
import { renderApplyMarkdown, renderApplyRefusedMarkdown, renderValidationMarkdown } from "./summary.js";

/** The result of one command: its exit code and, when the step must fail, why. */
interface Result {
  code: number;
  failure?: string;
}

class Run {
  readonly dir: string;
  /** The Markdown report and its summary line, once made. */
  rendered: { render: (maxLength: number) => string; headline: string } | undefined;
  /** The plan has changes (the has-changes output). */
  changes = false;
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

  /**
   * Writes the Markdown report file and appends it to the job summary, and keeps it for the pull request's comment
   * with its summary line: `render` makes the report at most a given length (the comment has less room).
   */
  async markdown(render: (maxLength: number) => string, headline: string): Promise<void> {
    this.rendered = { render, headline };
    const text = render(DEFAULT_MARKDOWN_MAX);
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
      const message = inActionTerms(d.path ? `${d.path}: ${d.message}` : d.message);
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
      const message = inActionTerms(`${p.address}: ${p.message}`);
      if (severity === "error") core.error(message, properties);
      else core.warning(message, properties);
    }
  }

  /**
   * Each change (or drift item) as an annotation on the manifest line that declares it, so a pull request shows
   * it in the diff: notices for a plan, warnings for drift. At most 50; the log and the reports have all.
   */
  annotateChanges(changes: Change[], drift: boolean): void {
    const placed = changes.filter((c) => c.source && c.action !== "unmanaged");
    const LIMIT = 50;
    for (const c of placed.slice(0, LIMIT)) {
      const what = drift
        ? {
            create: "missing",
            update: "drifted",
            replace: "drifted (would be replaced)",
            delete: "would be deleted",
            unmanaged: "",
          }[c.action]
        : {
            create: "will be created",
            update: "will be updated",
            replace: "will be replaced",
            delete: "will be deleted",
            unmanaged: "",
          }[c.action];
      const fields = c.fields.map((f) => f.field).join(", ");
      const properties: core.AnnotationProperties = {
        title: `forgeform ${this.inputs.command}`,
        file: this.annotationFile(c.source!.file),
        startLine: c.source!.line,
        startColumn: c.source!.col,
      };
      const message = `${c.address} ${what}${fields && c.action !== "create" ? ` (${fields})` : ""}`;
      if (drift) core.warning(message, properties);
      else core.notice(message, properties);
    }
    if (placed.length > LIMIT)
      core.notice(`...and ${placed.length - LIMIT} more (see the log and the reports)`);
  }

  /** A long report in the log, folded under a title. */
  logGroup(title: string, text: string): void {
    core.startGroup(title);
    core.info(text.trimEnd());
    core.endGroup();
  }

  /**
   * The `paths` input with globs expanded (a glob that matches nothing is an error saying so). What a glob matches
   * (`found`) is read like a folder's files: only forgeform manifests, so `**\/*.yaml` leaves a Chart.yaml alone;
   * a file named on its own is always read.
   */
  async paths(): Promise<{ paths: string[]; found: string[]; root?: string }> {
    const paths: string[] = [];
    const found: string[] = [];
    for (const p of this.inputs.paths) {
      if (!isDynamicPattern(p)) {
        paths.push(p);
        continue;
      }
      // What a glob matches through a link is read only when it is a regular file inside the manifest root
      // (loadManifests checks): anything else is an error, not read.
      const matches = (await glob(p, { cwd: process.cwd(), onlyFiles: false, dot: false })).sort();
      if (matches.length === 0)
        throw new Error(`the paths input ${JSON.stringify(p)} matches no file or directory`);
      paths.push(...matches);
      found.push(...matches);
    }
    // A file named on its own is read even when a glob matches it too.
    const named = new Set(this.inputs.paths.filter((p) => !isDynamicPattern(p)).map((p) => resolve(p)));
    const root = this.inputs.root;
    if (root !== undefined && !(existsSync(root) && statSync(root).isDirectory()))
      throw new Error(`the root input ${JSON.stringify(root)} is not a folder (looked for ${resolve(root)})`);
    return { paths, found: found.filter((f) => !named.has(resolve(f))), ...(root ? { root } : {}) };
  }

  /** The revision to plan from (`changed-since`): on a pull request, its base by default. */
  changedSince(): { ref: string; optional: boolean } | undefined {
    const value = this.inputs.changedSince;
    if (value === "false" || value === "" || value === "off") return undefined;
    if (value !== "auto") return { ref: value, optional: false };
    const event = this.env["GITHUB_EVENT_NAME"];
    if (event !== "pull_request" && event !== "pull_request_target") return undefined;
    const path = this.env["GITHUB_EVENT_PATH"];
    if (!path || !existsSync(path)) return undefined;
    const payload = JSON.parse(readFileSync(path, "utf8")) as { pull_request?: { base?: { sha?: string } } };
    const sha = payload.pull_request?.base?.sha;
    return typeof sha === "string" && /^[0-9a-f]{7,64}$/i.test(sha)
      ? { ref: sha, optional: true }
      : undefined;
  }

  /** Outputs every command sets: the plan's counts, or zeros when no plan was made. */
  counts(plan: Plan | undefined): void {
    const s = plan?.summary ?? { create: 0, update: 0, replace: 0, delete: 0, unmanaged: 0 };
    this.changes = plan ? hasChanges(plan) : false;
    core.setOutput("has-changes", String(this.changes));
    core.setOutput("creates", String(s.create));
    core.setOutput("updates", String(s.update));
    core.setOutput("replacements", String(s.replace));
    core.setOutput("deletes", String(s.delete));
    core.setOutput("unmanaged", String(s.unmanaged));
  }

  /** Invalid manifests: annotations, the validation report, and the step fails. */
  async invalid(diagnostics: Diagnostic[], files: string[]): Promise<Result> {
    core.info(inActionTerms(formatDiagnostics(diagnostics).trimEnd()));
    this.report("json-report", "json", renderValidationJson(diagnostics, files, !this.inputs.noSecrets));
    const errors = diagnostics.filter((d) => d.severity === "error").length;
    await this.markdown(
      () => renderValidationMarkdown(diagnostics, files.length),
      `The manifests are invalid: ${plural(errors, "error")}; nothing was sent to the platform.`,
    );
    return {
      code: 1,
      failure: `the manifests have ${errors === 1 ? "an error" : `${errors} errors`} (see the annotations); nothing was sent to the platform`,
    };
  }

  async validate(): Promise<Result> {
    const { paths, found, root } = await this.paths();
    const loaded = await loadManifests(paths.length > 0 ? paths : ["."], {
      secrets: !this.inputs.noSecrets,
      env: this.env,
      found,
      ...(root ? { root } : {}),
    });
    const files = loaded.files;
    this.annotateDiagnostics(loaded.diagnostics);
    this.counts(undefined);
    const errors = loaded.diagnostics.filter((d) => d.severity === "error").length;
    if (errors > 0) return this.invalid(loaded.diagnostics, files);
    core.info(
      this.inputs.format === "json"
        ? renderValidationJson(loaded.diagnostics, files, !this.inputs.noSecrets).trimEnd()
        : inActionTerms(
            renderValidateText(loaded.diagnostics, files.length, !this.inputs.noSecrets).trimEnd(),
          ),
    );
    this.report(
      "json-report",
      "json",
      renderValidationJson(loaded.diagnostics, files, !this.inputs.noSecrets),
    );
    const warnings = loaded.diagnostics.length;
    await this.markdown(
      () => renderValidationMarkdown(loaded.diagnostics, files.length),
      `${plural(files.length, "manifest file")} valid${warnings > 0 ? ` with ${plural(warnings, "warning")}` : ""}.`,
    );
    return { code: 0 };
  }

  /** Plans (from manifests or, for apply, from a saved plan's manifests) and hands the outcome to `then`. */
  async withPlan(
    saved: Plan | undefined,
    then: (outcome: PlanOutcome, connection: ClientOptions) => Promise<Result>,
  ): Promise<Result> {
    const i = this.inputs;
    const connection = resolveConnection(
      {
        ...(i.url !== undefined ? { url: i.url } : {}),
        ...(i.token !== undefined ? { token: i.token } : {}),
        ...(i.caFile !== undefined ? { caFile: i.caFile } : {}),
        ...(i.timeout !== undefined ? { timeout: i.timeout } : {}),
        ...(i.concurrency !== undefined ? { concurrency: i.concurrency } : {}),
        ...(i.maxAttempts !== undefined ? { maxAttempts: i.maxAttempts } : {}),
        ...(i.maxRate !== undefined ? { maxRate: i.maxRate } : {}),
        ...(i.maxResponseMb !== undefined ? { maxResponseMb: i.maxResponseMb } : {}),
        ...(i.maxListMb !== undefined ? { maxListMb: i.maxListMb } : {}),
        ...(i.insecureHttp ? { insecureHttp: true } : {}),
        // With step debug logging on (re-run with debug logging, or RUNNER_DEBUG=1): one line per request.
        debug: core.isDebug(),
      },
      this.env,
      (line) => core.debug(line),
    );
    const since = saved ? undefined : this.changedSince();
    if (since?.optional)
      core.info(`Planning only what the pull request changed since its base ${since.ref}.`);
    const outcome = await planFromManifests({
      connection,
      env: this.env,
      backupDir: i.noBackup ? false : i.backupDir,
      // A saved plan is made again as it was made (its targets, shard, --changed-since...) to be checked.
      ...(saved
        ? savedPlanRequest(saved)
        : {
            ...(await this.paths()),
            targets: i.targets,
            replace: i.replace,
            ...(since ? { changedSince: since.ref, changedSinceOptional: since.optional } : {}),
            ...(i.shard !== undefined ? { shard: parseShard(i.shard) } : {}),
          }),
    });
    try {
      this.annotateDiagnostics(outcome.diagnostics);
      if (!outcome.result) {
        this.counts(undefined);
        return await this.invalid(outcome.diagnostics, outcome.files ?? []);
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
    const planFile = this.inputs.planFile;
    if (planFile) {
      // The plan file's folder is made before the plan runs (or the step stops here, saying why).
      try {
        mkdirSync(dirname(resolve(planFile)), { recursive: true });
      } catch (error) {
        throw new Error(
          `cannot create the folder of the plan-file input ${planFile} (${(error as NodeJS.ErrnoException).code ?? String(error)}): choose a writable path`,
        );
      }
      if (existsSync(planFile) && statSync(planFile).isDirectory()) {
        throw new Error(
          `the plan-file input ${planFile} is a directory: name a file, e.g. ${join(planFile, "plan.json")}`,
        );
      }
    }
    return this.withPlan(undefined, async ({ result }) => {
      const plan = result!.plan;
      this.logGroup(
        `forgeform plan: ${planSummaryLine(plan)}`,
        inActionTerms(this.planLog(plan, this.inputs.format)),
      );
      this.annotateChanges(plan.changes, false);
      this.report("json-report", "json", renderPlanJson(plan));
      await this.markdown((maxLength) => renderPlanMarkdown(plan, { maxLength }), planSummaryLine(plan));
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
      const failOnUnmanaged = this.inputs.failOnUnmanaged;
      this.logGroup(
        `forgeform drift: ${driftSummaryLine(r.plan)}`,
        inActionTerms(renderDrift(r, this.inputs.format, { failOnUnmanaged })),
      );
      this.annotateChanges(r.plan.changes, true);
      this.report("json-report", "json", renderDriftJson(r.plan, { inSync: r.inSync, failOnUnmanaged }));
      this.report("junit-report", "xml", renderDriftJunit(r.plan, { inSync: r.inSync, failOnUnmanaged }));
      await this.markdown(
        (maxLength) => renderDriftMarkdown(r.plan, { maxLength }),
        driftSummaryLine(r.plan),
      );
      if (r.plan.errors.length > 0) return { code: 1, failure: planErrors(r.plan) };
      const code = driftExitCode(r.plan, { failOnUnmanaged });
      if (code === 2 && this.inputs.failOnDrift) {
        return { code, failure: `drift found (fail-on-drift is true). ${driftSummaryLine(r.plan)}` };
      }
      return { code };
    });
  }

  async apply(): Promise<Result> {
    const planFile = this.inputs.planFile;
    if (planFile && (this.inputs.paths.length > 0 || this.inputs.root !== undefined)) {
      throw new Error(
        `give either the ${this.inputs.paths.length > 0 ? "paths" : "root"} input or plan-file to apply, not both (a saved plan names its manifests and root)`,
      );
    }
    const saved = planFile ? readSavedPlan(planFile) : undefined;
    if (saved) checkSavedPlanFolder(saved);
    return this.withPlan(saved, async ({ result, ctx }, connection) => {
      const r = result!;
      const plan = r.plan;
      // The report is an apply document whatever happens: with no outcomes when nothing was applied.
      const fail = async (failure: string): Promise<Result> => {
        this.report("json-report", "json", renderApplyJson(plan, []));
        const head = renderApplyRefusedMarkdown(failure);
        await this.markdown(
          (max) => `${head}${renderPlanMarkdown(plan, { maxLength: max - head.length })}`,
          `Nothing was applied. ${planSummaryLine(plan)}`,
        );
        return { code: 1, failure };
      };
      if (saved && planFile) {
        const stale = stalenessOf(saved, plan);
        if (stale) return fail(`refusing to apply ${planFile}: ${stale}; nothing was applied`);
      }
      this.logGroup(
        `forgeform apply: ${planSummaryLine(plan)}`,
        inActionTerms(this.planLog(plan, this.inputs.format)),
      );
      if (plan.errors.length > 0) return fail(`${planErrors(plan)}; nothing was applied`);
      const deleting = plan.summary.delete + plan.summary.replace;
      const max = this.inputs.maxDeletes;
      if (max !== undefined && deleting > max) {
        return fail(
          `refusing to apply: the plan deletes or replaces ${plural(deleting, "object")}, more than max-deletes ${max}; nothing was applied`,
        );
      }
      if (!hasChanges(plan)) {
        this.report("json-report", "json", renderApplyJson(plan, []));
        const head = "## forgeform apply\n\n**Nothing to apply:** the platform matches the manifests.\n\n";
        await this.markdown(
          (max) => `${head}${renderPlanMarkdown(plan, { maxLength: max - head.length })}`,
          "Nothing to apply: the platform matches the manifests.",
        );
        return { code: 0 };
      }
      core.startGroup("forgeform apply: outcomes");
      const outcomes = await applyPlanResult(ctx!, r, {
        concurrency: connection.concurrency ?? 8,
        onOutcome: (o, done, total) => core.info(inActionTerms(`[${done}/${total}] ${outcomeLine(o)}`)),
      });
      core.endGroup();
      const failed = outcomes.filter((o) => o.status === "failed").length;
      const skipped = outcomes.filter((o) => o.status === "skipped").length;
      const done = outcomes.length - failed - skipped;
      core.info(
        `Apply ${failed + skipped > 0 ? "incomplete" : "complete"}: ${done} done, ${failed} failed, ${skipped} skipped.`,
      );
      this.report("json-report", "json", renderApplyJson(plan, outcomes));
      const head = renderApplyMarkdown(outcomes);
      await this.markdown(
        (max) => `${head}${renderPlanMarkdown(plan, { maxLength: max - head.length })}`,
        `Apply ${failed + skipped > 0 ? "incomplete" : "complete"}: ${done} done, ${failed} failed, ${skipped} skipped.`,
      );
      if (failed + skipped > 0) {
        return {
          code: 1,
          failure: `of ${plural(outcomes.length, "change")}, ${failed} failed and ${skipped} ${skipped === 1 ? "was" : "were"} skipped (see the log); run apply again after fixing the cause`,
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

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Runs the Action. Never throws: any error fails the step with a message and exit-code 1. On a pull request, the
 * comment input then posts the report (or why there is none) as the pull request's comment.
 */
export async function run(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  maskSecrets(env);
  let inputs: ActionInputs;
  try {
    inputs = readInputs();
  } catch (error) {
    core.setOutput("exit-code", "1");
    core.setFailed(inActionTerms(`forgeform: ${errorMessage(error)}`));
    return;
  }
  let action: Run | undefined;
  let result: Result;
  let failure: string | undefined;
  try {
    if (inputs.workingDirectory !== undefined) {
      const dir = resolve(env["GITHUB_WORKSPACE"] || process.cwd(), inputs.workingDirectory);
      if (!existsSync(dir) || !statSync(dir).isDirectory()) {
        throw new Error(
          `the working-directory input ${inputs.workingDirectory} is not a directory (looked for ${dir})`,
        );
      }
      process.chdir(dir);
    }
    action = new Run(inputs, env);
    result = await action[inputs.command]();
    if (result.failure) failure = inActionTerms(`forgeform ${inputs.command}: ${result.failure}`);
  } catch (error) {
    result = { code: 1 };
    failure = inActionTerms(`forgeform: ${errorMessage(error)}`);
  }
  core.setOutput("exit-code", String(result.code));
  await commentOnPullRequest({
    mode: inputs.comment,
    token: inputs.githubToken,
    report: {
      command: inputs.command,
      headline: action?.rendered?.headline ?? "the step failed before it made a report.",
      ...(action?.rendered ? { render: action.rendered.render } : {}),
      ...(failure !== undefined ? { failure } : {}),
      code: result.code,
      hasChanges: action?.changes ?? false,
    },
    place: commentPlace(env, inputs.shard),
    env,
    secrets: secretValues(env),
  });
  if (failure !== undefined) core.setFailed(failure);
}
