/**
 * `forgeform drift [paths...]`: compare the live state with the manifests and report what differs. Changes
 * nothing. Exit 0 when there is no drift, 2 when apply would change something (drifted or missing objects, objects
 * a prune policy deletes; with --fail-on-unmanaged also objects the manifests do not mention), 1 on error.
 */
import { type Command, Option } from "commander";
import type { PlanResult } from "../engine/plan/index.js";
import { parseShard, type Shard } from "../engine/shard.js";
import { FileWriteError, writeFileSafely } from "../files/write.js";
import {
  type DriftOptions,
  driftExitCode,
  driftSummaryLine,
  renderDriftJson,
  renderDriftJunit,
  renderDriftMarkdown,
  renderDriftText,
} from "../report/index.js";
import { addConnectionOptions, resolveConnection } from "./connection.js";
import { formatDiagnostics } from "./diagnostics.js";
import { type Io, processIo } from "./io.js";
import { collect, rootOption } from "./plan.js";
import { cliProgress } from "./progress.js";
import { planFromManifests } from "./workflow.js";

export type DriftFormat = "text" | "json" | "markdown" | "junit";

const FORMATS: readonly DriftFormat[] = ["text", "json", "markdown", "junit"];

/** `--format` of drift and report merge: commander checks the choice (and shell completion offers them). */
export function driftFormatOption(): Option {
  return new Option("--format <format>", "text, json, markdown or junit").choices(FORMATS).default("text");
}

/**
 * A drift report in one format. JUnit lists the objects found in sync as passing test cases; JSON and JUnit judge
 * unmanaged objects as the exit code does (`failOnUnmanaged`).
 */
export function renderDrift(
  result: PlanResult,
  format: DriftFormat,
  options: { color?: boolean; expand?: boolean } & DriftOptions = {},
): string {
  const judged = { inSync: result.inSync, failOnUnmanaged: options.failOnUnmanaged === true };
  switch (format) {
    case "json":
      return renderDriftJson(result.plan, judged);
    case "markdown":
      return renderDriftMarkdown(result.plan);
    case "junit":
      return renderDriftJunit(result.plan, judged);
    case "text":
      return renderDriftText(result.plan, { color: options.color === true, expand: options.expand === true });
  }
}

export interface ReportRequest {
  format: DriftFormat;
  file: string;
}

/** Parses `--report FORMAT=FILE`. */
export function parseReport(value: string, previous: ReportRequest[]): ReportRequest[] {
  const eq = value.indexOf("=");
  const format = eq === -1 ? "" : value.slice(0, eq);
  const file = eq === -1 ? "" : value.slice(eq + 1);
  if (!(FORMATS as readonly string[]).includes(format) || file === "") {
    throw new Error(
      `--report needs FORMAT=FILE with FORMAT one of text, json, markdown, junit (e.g. --report junit=drift.xml), not ${JSON.stringify(value)}`,
    );
  }
  return [...previous, { format: format as DriftFormat, file }];
}

/** Writes a report file (see files/write.ts), with an error that names the file and what to check. */
export function writeReport(file: string, text: string): void {
  try {
    writeFileSafely(file, text);
  } catch (error) {
    const code = error instanceof FileWriteError ? error.code : "unwritable";
    throw new Error(
      `cannot write the report to ${file} (${code}): check that its directory exists and is writable`,
    );
  }
}

export function registerDrift(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command("drift")
    .summary("Report drift from the manifests. Changes nothing.")
    .description(
      "Compare the live state with the manifests: drifted fields, missing objects, and live objects the " +
        "manifests do not mention. Changes nothing. Exit 0 when there is no drift, 2 when there is, 1 on error.",
    )
    .argument("[paths...]", "manifest files or directories (default: .)")
    .addOption(rootOption())
    .option(
      "--target <path>",
      "limit to a group or project path and its subtree (repeatable; `instance` for instance objects)",
      collect,
      [],
    )
    .addOption(driftFormatOption())
    .option("--out <file>", "write the report to this file instead of standard output")
    .option(
      "--report <format=file>",
      "also write the report in another format to a file, e.g. junit=drift.xml (repeatable)",
      parseReport,
      [],
    )
    .option(
      "--fail-on-unmanaged",
      "exit 2 also when the only drift is live objects the manifests do not mention (prune policy warn)",
    )
    .option("--expand", "text: list a change repeated in many groups or projects once per object")
    .option(
      "--changed-since <ref>",
      "plan only what the manifests changed since this git revision (e.g. origin/main), reading only what that needs",
    )
    .option(
      "--shard <k/n>",
      "plan only shard K of N: each top-level group tree, project and instance goes to one shard (merge drift reports with forgeform report merge)",
      parseShard,
    )
    .option("--no-color", "no colours in text output");
  addConnectionOptions(cmd).action(async (paths: string[], opts: Record<string, unknown>) => {
    const connection = resolveConnection(opts, process.env, (line) => io.err(`${line}\n`));
    const progress = cliProgress(opts["progress"] !== false, io === processIo);
    const outcome = await planFromManifests({
      ...(progress ? { progress } : {}),
      paths,
      ...(opts["root"] !== undefined ? { root: opts["root"] as string } : {}),
      connection,
      targets: opts["target"] as string[],
      backupDir: false,
      ...(opts["changedSince"] !== undefined ? { changedSince: opts["changedSince"] as string } : {}),
      ...(opts["shard"] ? { shard: opts["shard"] as Shard } : {}),
    });
    try {
      if (!outcome.result) {
        io.err(formatDiagnostics(outcome.diagnostics));
        setExit(1);
        return;
      }
      const warnings = outcome.diagnostics.filter((d) => d.severity === "warning");
      if (warnings.length > 0) io.err(formatDiagnostics(warnings));
      const result = outcome.result;
      const format = opts["format"] as DriftFormat;
      const color = opts["color"] !== false && Boolean(io.color) && !opts["out"];
      const failOnUnmanaged = opts["failOnUnmanaged"] === true;
      const report = renderDrift(result, format, { color, expand: opts["expand"] === true, failOnUnmanaged });
      const out = opts["out"] as string | undefined;
      if (out) {
        writeReport(out, report);
        io.err(`Wrote the ${format} drift report to ${out}. ${driftSummaryLine(result.plan)}\n`);
      } else {
        io.out(report);
      }
      for (const extra of opts["report"] as ReportRequest[]) {
        writeReport(extra.file, renderDrift(result, extra.format, { failOnUnmanaged }));
        io.err(`Wrote the ${extra.format} drift report to ${extra.file}.\n`);
      }
      if (result.plan.errors.length > 0) {
        io.err(
          `forgeform: ${result.plan.errors.length === 1 ? "an error" : `${result.plan.errors.length} errors`} (in the report) kept parts of the live state from being compared. Fix them and run drift again.\n`,
        );
        setExit(1);
        return;
      }
      setExit(driftExitCode(result.plan, { failOnUnmanaged }));
    } finally {
      await outcome.api?.close();
    }
  });
}
