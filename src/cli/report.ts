/** `forgeform report merge FILES...`: one drift report from the JSON drift reports of every shard of a run. */
import type { Command } from "commander";
import { FileReadError, readTextFile } from "../files/read.js";
import { SecretValues } from "../manifest/secret.js";
import { driftExitCode, driftSummaryLine } from "../report/index.js";
import { mergeDriftReports, parseDriftJson } from "../report/merge.js";
import {
  type DriftFormat,
  driftFormatOption,
  parseReport,
  type ReportRequest,
  renderDrift,
  writeReport,
} from "./drift.js";
import type { Io } from "./io.js";

/** Largest drift report read: about the longest text a JavaScript string holds. */
const MAX_REPORT_BYTES = 500 * 1024 * 1024;

export function registerReport(program: Command, io: Io, setExit: (code: number) => void): void {
  const report = program
    .command("report")
    .summary("Work with reports (merge the drift reports of shards).")
    .description(
      "Work with the reports plan and drift write: `forgeform report merge` makes one drift report of the reports of a run's shards (drift --shard K/N).",
    );
  report
    .command("merge")
    .summary("Merge the JSON drift reports of the shards of one run into one report.")
    .description(
      "Read the JSON drift reports that `forgeform drift --shard K/N --format json` wrote on each runner of a CI " +
        "matrix and write the report an unsharded run makes. Every shard must be there exactly once. " +
        "Exit 0 when there is no drift, 2 when there is, 1 on errors.",
    )
    .argument("<files...>", "the shards' JSON drift reports")
    .addOption(driftFormatOption())
    .option("--out <file>", "write the report to this file instead of standard output")
    .option(
      "--report <format=file>",
      "also write the report in another format to a file (repeatable)",
      parseReport,
      [],
    )
    .option(
      "--fail-on-unmanaged",
      "exit 2 also when the only drift is objects left alone (prune policy warn)",
    )
    .action((files: string[], opts: Record<string, unknown>) => {
      const reports = files.map((file) => {
        let text: string;
        try {
          text = readTextFile(file, { maxBytes: MAX_REPORT_BYTES });
        } catch (error) {
          if (!(error instanceof FileReadError)) throw error;
          throw new Error(
            error.code !== undefined
              ? `cannot read ${file} (${error.code})`
              : `cannot read ${file}: it ${error.reason}`,
          );
        }
        return { report: parseDriftJson(text, file), label: file };
      });
      const merged = mergeDriftReports(reports);
      const result = { plan: merged.plan, inSync: merged.inSync, steps: [], secrets: new SecretValues([]) };
      const format = opts["format"] as DriftFormat;
      const failOnUnmanaged = opts["failOnUnmanaged"] === true;
      const text = renderDrift(result, format, { failOnUnmanaged });
      const out = opts["out"] as string | undefined;
      if (out) {
        writeReport(out, text);
        io.err(`Wrote the merged ${format} drift report to ${out}. ${driftSummaryLine(merged.plan)}\n`);
      } else io.out(text);
      for (const extra of opts["report"] as ReportRequest[])
        writeReport(extra.file, renderDrift(result, extra.format, { failOnUnmanaged }));
      if (merged.plan.errors.length > 0) {
        setExit(1);
        return;
      }
      setExit(driftExitCode(merged.plan, { failOnUnmanaged }));
    });
}
