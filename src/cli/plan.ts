/** `forgeform plan [paths...]`: show what apply would change. */
import { statSync } from "node:fs";
import { type Command, Option } from "commander";
import { parseShard, type Shard } from "../engine/shard.js";
import { renderPlanJson } from "../plan/json.js";
import type { Plan } from "../plan/model.js";
import { hasChanges } from "../plan/model.js";
import { writeSavedPlan } from "../plan/saved.js";
import { renderPlanMarkdown } from "../report/markdown.js";
import { renderPlanText } from "../report/text.js";
import { addConnectionOptions, resolveConnection } from "./connection.js";
import { formatDiagnostics } from "./diagnostics.js";
import { type Io, processIo } from "./io.js";
import { cliProgress } from "./progress.js";
import { planFromManifests } from "./workflow.js";

export type PlanFormat = "text" | "json" | "markdown";

export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--root <dir>` (validate, plan, apply, drift, explain): an existing folder, checked before anything is read. */
export function rootOption(): Option {
  return new Option(
    "--root <dir>",
    "the manifest root that referenced files and links may not leave (default: the paths' common directory)",
  ).argParser((dir: string) => {
    let isDir: boolean;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      throw new Error(`--root ${JSON.stringify(dir)}: no such folder`);
    }
    if (!isDir)
      throw new Error(`--root ${JSON.stringify(dir)} is a file: give the folder the manifests are in`);
    return dir;
  });
}

export function renderPlan(plan: Plan, format: PlanFormat, io: Io, color: boolean, expand = false): string {
  if (format === "json") return renderPlanJson(plan);
  if (format === "markdown") return renderPlanMarkdown(plan);
  return renderPlanText(plan, { color: color && Boolean(io.color), expand });
}

export function registerPlan(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command("plan")
    .summary("Show the changes apply would make. Changes nothing.")
    .description("Read the live state and show the changes apply would make. Changes nothing.")
    .argument("[paths...]", "manifest files or directories (default: .)")
    .addOption(rootOption())
    .option("--detailed-exitcode", "exit 0 when there are no changes, 2 when there are, 1 on error")
    .option("--out <file>", "save the plan for `apply --plan FILE` (holds no secret)")
    .option(
      "--target <path>",
      "limit to a group or project path and its subtree (repeatable; `instance` for instance objects)",
      collect,
      [],
    )
    .option(
      "--replace <address>",
      "replace this object even if unchanged, e.g. to rotate a write-only token (repeatable)",
      collect,
      [],
    )
    .addOption(
      new Option("--format <format>", "text, json or markdown")
        .choices(["text", "json", "markdown"])
        .default("text"),
    )
    .option(
      "--backup-dir <dir>",
      "where apply saves a group's export archive before deleting the group (default: .forgeform/backups/<date> in the manifest root)",
    )
    .option("--no-backup", "delete groups without saving their export archive first")
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
      replace: opts["replace"] as string[],
      backupDir: opts["backup"] === false ? false : (opts["backupDir"] as string | undefined),
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
      const { plan } = outcome.result;
      io.out(
        renderPlan(plan, opts["format"] as PlanFormat, io, opts["color"] !== false, opts["expand"] === true),
      );
      if (plan.errors.length > 0) {
        setExit(1);
        return;
      }
      if (opts["out"]) {
        writeSavedPlan(opts["out"] as string, plan);
        io.err(`Saved the plan to ${opts["out"]}. Apply it with: forgeform apply --plan ${opts["out"]}\n`);
      }
      setExit(opts["detailedExitcode"] && hasChanges(plan) ? 2 : 0);
    } finally {
      await outcome.api?.close();
    }
  });
}
