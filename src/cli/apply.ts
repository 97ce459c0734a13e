/**
 * `forgeform apply [paths...] | --plan FILE`: make the changes. Asks for confirmation at a terminal and needs
 * `--yes` elsewhere; refuses a saved plan whose live state or manifests changed; `--max-deletes N` stops a plan
 * that deletes (or replaces) more than N objects. Every outcome is reported; any failure exits 1, and running
 * again converges. Ctrl-C (SIGINT) or SIGTERM while applying lets the requests in flight finish, starts nothing
 * new, reports what was done and what was not, and exits 130 (143 for SIGTERM); a second signal exits at once.
 */
import { type Command, Option } from "commander";
import { NOT_STARTED, type Outcome } from "../engine/apply.js";
import { hasChanges } from "../plan/model.js";
import { readSavedPlan, stalenessOf } from "../plan/saved.js";
import { ACTION_SYMBOL, plural } from "../report/common.js";
import { renderApplyJson } from "../report/json.js";
import { escapeText } from "../text/escape.js";
import { addConnectionOptions, resolveConnection } from "./connection.js";
import { formatDiagnostics } from "./diagnostics.js";
import { type Io, processIo } from "./io.js";
import { collect, renderPlan, rootOption } from "./plan.js";
import { cliProgress } from "./progress.js";
import { applyPlanResult, checkSavedPlanFolder, planFromManifests, savedPlanRequest } from "./workflow.js";

/** `--max-deletes N`: digits only, as the Action's input (Number() would take "", " 3", "1e2" and "0x10"). */
function parseCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n))
    throw new Error(`--max-deletes must be a whole number, not ${JSON.stringify(value)}`);
  return n;
}

/**
 * Listens for SIGINT and SIGTERM while `work` runs. The first signal aborts the returned signal (the apply starts
 * no new step) and says so; a second one exits at once. Resolves to the first signal's name, if any.
 */
async function interruptible<T>(
  io: Io,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<{ result: T; interrupted?: NodeJS.Signals }> {
  const controller = new AbortController();
  let interrupted: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) {
      io.err(
        `\nforgeform: ${signal} again: exiting at once. Requests in flight may or may not have taken effect: run plan to see where things stand.\n`,
      );
      process.exit(EXIT_ON[signal] ?? 130);
    }
    interrupted = signal;
    controller.abort();
    io.err(
      `\nforgeform: ${signal}: finishing the requests in flight and starting no new ones (press Ctrl-C again to exit at once)...\n`,
    );
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  try {
    const result = await work(controller.signal);
    return interrupted ? { result, interrupted } : { result };
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** The conventional exit codes of a process stopped by a signal: 128 + its number. */
const EXIT_ON: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143 };

function outcomeLine(o: Outcome): string {
  const status =
    o.status === "done"
      ? o.recovered
        ? "done (its response was lost; found on re-reading)"
        : "done"
      : o.status;
  return escapeText(`${ACTION_SYMBOL[o.action]} ${o.address}: ${status}${o.message ? `: ${o.message}` : ""}`);
}

export function registerApply(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command("apply")
    .summary("Make the changes (from manifests or a saved plan).")
    .description("Make the changes a plan shows: from manifests, or from a plan saved with `plan --out`.")
    .argument("[paths...]", "manifest files or directories (default: .)")
    .addOption(rootOption())
    .option(
      "--plan <file>",
      "apply a saved plan (refused when the live state or the manifests changed since)",
    )
    .option("--yes", "do not ask for confirmation (needed when not at a terminal)")
    .option("--max-deletes <n>", "refuse when the plan deletes or replaces more than N objects", parseCount)
    .option("--target <path>", "limit to a group or project path and its subtree (repeatable)", collect, [])
    .option("--replace <address>", "replace this object even if unchanged (repeatable)", collect, [])
    .option(
      "--backup-dir <dir>",
      "where apply saves a group's export archive before deleting the group (default: .forgeform/backups/<date> in the manifest root)",
    )
    .option("--no-backup", "delete groups without saving their export archive first")
    .option(
      "--changed-since <ref>",
      "plan only what the manifests changed since this git revision (e.g. origin/main), reading only what that needs",
    )
    .addOption(
      new Option(
        "--format <format>",
        "text, or json: the plan with each change's outcome on stdout (docs/plan-format.md); needs --yes",
      )
        .choices(["text", "json"])
        .default("text"),
    )
    .option("--no-color", "no colours in text output");
  addConnectionOptions(cmd).action(async (paths: string[], opts: Record<string, unknown>) => {
    const connection = resolveConnection(opts, process.env, (line) => io.err(`${line}\n`));
    const saved = opts["plan"] ? readSavedPlan(opts["plan"] as string) : undefined;
    if (saved && paths.length > 0) throw new Error("give either manifest paths or --plan, not both");
    if (
      saved &&
      ((opts["target"] as string[]).length > 0 ||
        (opts["replace"] as string[]).length > 0 ||
        opts["changedSince"] !== undefined ||
        opts["root"] !== undefined)
    ) {
      throw new Error(
        "--target, --replace, --changed-since and --root are part of a saved plan: give them to `forgeform plan --out`, not to `apply --plan`",
      );
    }
    if (saved) checkSavedPlanFolder(saved);
    const progress = cliProgress(opts["progress"] !== false, io === processIo);
    const outcome = await planFromManifests({
      ...(progress ? { progress } : {}),
      connection,
      backupDir: opts["backup"] === false ? false : (opts["backupDir"] as string | undefined),
      // A saved plan is made again as it was made (its targets, shard, --changed-since...) to be checked.
      ...(saved
        ? savedPlanRequest(saved)
        : {
            paths,
            ...(opts["root"] !== undefined ? { root: opts["root"] as string } : {}),
            targets: opts["target"] as string[],
            replace: opts["replace"] as string[],
            ...(opts["changedSince"] !== undefined ? { changedSince: opts["changedSince"] as string } : {}),
          }),
    });
    try {
      if (!outcome.result || !outcome.ctx) {
        io.err(formatDiagnostics(outcome.diagnostics));
        setExit(1);
        return;
      }
      const { plan } = outcome.result;
      if (saved) {
        const stale = stalenessOf(saved, plan);
        if (stale) {
          io.err(`forgeform: refusing to apply ${opts["plan"]}: ${stale}.\n`);
          setExit(1);
          return;
        }
      }
      // With --format json, stdout carries one JSON document: the plan with each change's outcome.
      const json = opts["format"] === "json";
      const textOut = json ? () => undefined : io.out;
      const finish = (code: number, done: Outcome[] = []) => {
        if (json) io.out(renderApplyJson(plan, done));
        setExit(code);
      };
      if (json && !opts["yes"]) {
        io.err(
          "forgeform: apply --format json needs --yes (there is no confirmation to answer). Nothing was applied.\n",
        );
        finish(1);
        return;
      }
      textOut(renderPlan(plan, "text", io, opts["color"] !== false));
      if (plan.errors.length > 0) {
        io.err("forgeform: the plan has errors (above); nothing was applied. Fix them and run again.\n");
        finish(1);
        return;
      }
      if (!hasChanges(plan)) {
        finish(0);
        return;
      }
      const deleting = plan.summary.delete + plan.summary.replace;
      const maxDeletes = opts["maxDeletes"] as number | undefined;
      if (maxDeletes !== undefined && deleting > maxDeletes) {
        io.err(
          `forgeform: refusing to apply: the plan deletes or replaces ${plural(deleting, "object")}, more than --max-deletes ${maxDeletes}. Nothing was applied.\n`,
        );
        finish(1);
        return;
      }
      if (!opts["yes"]) {
        if (!io.interactive || !io.prompt) {
          io.err("forgeform: not at a terminal, so apply needs --yes to go ahead. Nothing was applied.\n");
          setExit(1);
          return;
        }
        const answer = await io.prompt("\nApply these changes? Only 'yes' is accepted: ");
        if (answer.trim() !== "yes") {
          io.err("Apply cancelled. Nothing was applied.\n");
          setExit(1);
          return;
        }
      }
      const ctx = outcome.ctx;
      const result = outcome.result;
      let finished = 0;
      const total = result.steps.filter((st) => st.change.action !== "unmanaged").length;
      if (!io.interactive) {
        progress?.phase(
          "Applying",
          outcome.api!.metrics,
          () => `${finished} of ${plural(total, "change")} done`,
        );
      }
      const { result: outcomes, interrupted } = await interruptible(io, (signal) =>
        applyPlanResult(ctx, result, {
          concurrency: connection.concurrency ?? 8,
          signal,
          onOutcome: (o, done, all) => {
            finished = done;
            if (io.interactive) io.err(`[${done}/${all}] ${outcomeLine(o)}\n`);
          },
        }),
      ).finally(() => progress?.stop());
      const failed = outcomes.filter((o) => o.status === "failed");
      const skipped = outcomes.filter((o) => o.status === "skipped");
      const done = outcomes.length - failed.length - skipped.length;
      if (interrupted) {
        // What was done and what was not, every step of it.
        const notStarted = skipped.filter((o) => o.message === NOT_STARTED).length;
        textOut(`\n${outcomes.map(outcomeLine).join("\n")}\n`);
        textOut(
          `\nApply interrupted: ${done} done, ${failed.length} failed, ${notStarted} not started` +
            `${skipped.length > notStarted ? `, ${skipped.length - notStarted} skipped` : ""}.\n`,
        );
        io.err(
          `forgeform: apply was interrupted (${interrupted}): the changes marked done were made, the others were not. Run apply again to carry on from here.\n`,
        );
        finish(EXIT_ON[interrupted] ?? 130, outcomes);
        return;
      }
      const report = io.interactive ? [...failed, ...skipped] : outcomes;
      if (report.length > 0) textOut(`\n${report.map(outcomeLine).join("\n")}\n`);
      textOut(
        `\nApply ${failed.length + skipped.length > 0 ? "incomplete" : "complete"}: ${done} done, ${failed.length} failed, ${skipped.length} skipped.\n`,
      );
      if (failed.length + skipped.length > 0) {
        io.err(
          "forgeform: some changes were not applied (above). Fix the cause and run apply again: it picks up where this left off.\n",
        );
      }
      finish(failed.length + skipped.length > 0 ? 1 : 0, outcomes);
    } finally {
      await outcome.api?.close();
    }
  });
}
