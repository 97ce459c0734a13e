/**
 * Apply: runs the planned steps against the platform. Parents before children (a step waits for the steps it
 * depends on), deletes after everything else and deepest first, all within a concurrency bound. A failed step
 * does not stop independent steps; the steps that depend on it are skipped; every outcome is reported. A create
 * whose response was lost is re-read before anything is retried, so no duplicate is ever made.
 */
import pLimit from "p-limit";
import { OutcomeUnknownError } from "../api/index.js";
import { checkExportArchive } from "../files/archive.js";
import { writeNewFileAt } from "../files/write.js";
import type { KindContext, Live } from "../kinds/kind.js";
import type { Step } from "./plan/index.js";

export type OutcomeStatus = "done" | "failed" | "skipped";

export interface Outcome {
  address: string;
  action: Step["change"]["action"];
  status: OutcomeStatus;
  /** For failures: what went wrong; for skips: which failed step it depended on. */
  message?: string;
  /** For a create whose response was lost and whose object was found on re-reading. */
  recovered?: boolean;
}

export interface ApplyOptions {
  concurrency: number;
  /** Called as each step finishes, for progress display. */
  onOutcome?: (outcome: Outcome, done: number, total: number) => void;
  /**
   * Once aborted (the user pressed Ctrl-C), no step starts: the steps already running finish, the others are
   * skipped with NOT_STARTED as their message.
   */
  signal?: AbortSignal;
  /** Masks what must not be shown in a failure's message (the run's secret values). */
  mask?: (text: string) => string;
}

/** The message of a step that was not started because the apply was interrupted. */
export const NOT_STARTED = "not started: the apply was interrupted";

/**
 * Creates the object, recovering when the outcome of the create is unknown (the response was lost, or the platform
 * answered 429/502/503/504 without saying when to come back): the collection is re-read, bypassing anything cached
 * during planning, and the create is sent again only when the object is not there, within the client's attempts
 * and with its backoff between rounds. No object is ever created twice. An object found on re-reading is finished
 * as its create would have finished it (`finishCreate`: settings the platform takes on update only, an archive),
 * and re-read again when the answer to that is lost too.
 */
async function createOnce(ctx: KindContext, step: Step): Promise<{ live: Live; recovered: boolean }> {
  const { kind, parent } = step;
  if (!kind.create || !step.desired) throw new Error(`${step.change.address}: this kind cannot be created`);
  const rounds = Math.max(1, ctx.api.maxAttempts);
  let found: Live | undefined;
  for (let round = 1; ; round++) {
    const finishing = found !== undefined;
    try {
      if (found === undefined)
        return { live: await kind.create(ctx, parent, step.desired, step.key), recovered: false };
      const live = kind.finishCreate ? await kind.finishCreate(ctx, parent, found, step.desired) : found;
      return { live, recovered: true };
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      // The request may have been carried out: look before sending it again (and before giving up).
      ctx.api.metrics.countReread();
      const lives = await kind.read(ctx, parent, [step.key], { fresh: true });
      found = lives.find((l) => l.key === step.key);
      // Found for the first time: finished at once (taken as it is, for a kind with nothing to finish), whatever
      // the round. Otherwise the request whose outcome was unknown is sent again, after a pause, while rounds are
      // left.
      if (found && !finishing) continue;
      if (round >= rounds) {
        // The client's own message says the request was not retried; here it was, after each re-read.
        const times = `the outcome was unknown ${rounds === 1 ? "once" : `${rounds} times`} (last: ${error.cause.message})`;
        throw new Error(
          found
            ? `${error.method} ${error.path}: ${times}; the object was created, but what its create does after that may not be done: apply again once the platform answers normally`
            : `${error.method} ${error.path}: ${times}, and re-reading found nothing after each, so it was not created; ` +
                "apply again once the platform answers normally",
        );
      }
      await ctx.api.pause(round);
    }
  }
}

async function run(ctx: KindContext, step: Step): Promise<boolean> {
  const { kind, parent, change } = step;
  if (parent.ref === undefined) throw new Error(`its parent ${parent.address} does not exist`);
  switch (change.action) {
    case "create": {
      const { live, recovered } = await createOnce(ctx, step);
      step.self.ref = live.id;
      step.self.live = live;
      return recovered;
    }
    case "update": {
      if (!kind.update || !step.live || !step.desired) throw new Error("this kind has no update");
      const live = await kind.update(ctx, parent, step.live, step.desired, step.changed);
      if (live) {
        step.self.live = live;
        step.self.ref = live.id ?? step.self.ref;
      }
      return false;
    }
    case "replace": {
      if (!kind.remove || !step.live) throw new Error("this kind cannot be deleted");
      await kind.remove(ctx, parent, step.live);
      const { live, recovered } = await createOnce(ctx, step);
      step.self.ref = live.id;
      step.self.live = live;
      return recovered;
    }
    case "delete": {
      // Deleted by the platform along with the object named (a group's subgroups and projects): nothing to send.
      if (change.deletedWith) return false;
      if (!kind.remove || !step.live) throw new Error("this kind cannot be deleted");
      if (step.backupFile && kind.backup) {
        try {
          const archive = await kind.backup.download(ctx, parent, step.live);
          await checkExportArchive(archive, kind.backup.entries);
          writeNewFileAt(step.backupFile, archive, step.backupRoot ? { inside: step.backupRoot } : {});
        } catch (error) {
          throw new Error(
            `not deleted: saving its backup to ${change.backup ?? step.backupFile} failed (${(error as Error).message}); ` +
              "fix that and apply again, or apply with --no-backup to delete it without one",
          );
        }
      }
      await kind.remove(ctx, parent, step.live);
      return false;
    }
    case "unmanaged":
      return false;
  }
}

/** Applies the steps; never throws for a failed step (see the outcomes). */
export async function applySteps(ctx: KindContext, steps: Step[], options: ApplyOptions): Promise<Outcome[]> {
  const limit = pLimit(Math.max(1, options.concurrency));
  const active = steps.filter((s) => s.change.action !== "unmanaged");
  const total = active.length;
  const outcomes = new Map<string, Outcome>();
  const running = new Map<string, Promise<Outcome>>();
  let done = 0;

  const record = (result: Outcome): Outcome => {
    const outcome =
      result.message !== undefined && options.mask
        ? { ...result, message: options.mask(result.message) }
        : result;
    outcomes.set(outcome.address, outcome);
    done++;
    options.onOutcome?.(outcome, done, total);
    return outcome;
  };

  const execute = async (step: Step, waitFor: string[]): Promise<Outcome> => {
    const base = { address: step.change.address, action: step.change.action };
    for (const dep of waitFor) {
      const depOutcome = await running.get(dep);
      if (depOutcome && depOutcome.status !== "done") {
        const message = options.signal?.aborted ? NOT_STARTED : `skipped because ${dep} was not applied`;
        return record({ ...base, status: "skipped", message });
      }
    }
    return limit(async () => {
      if (options.signal?.aborted) return record({ ...base, status: "skipped", message: NOT_STARTED });
      try {
        const recovered = await run(ctx, step);
        return record({ ...base, status: "done", ...(recovered ? { recovered: true } : {}) });
      } catch (error) {
        return record({ ...base, status: "failed", message: (error as Error).message });
      }
    });
  };

  const isDelete = (s: Step) => s.change.action === "delete";
  const deletes = active.filter((s) => isDelete(s) && !s.change.deletedWith);
  const deleting = new Set(deletes.map((s) => s.change.address));
  // Creates, updates and replaces that wait for a delete (a project archived once what is inside it is done) run
  // after the deletes, and so does whatever waits for them.
  const forward = active.filter((s) => !isDelete(s));
  const late = new Set<string>();
  for (let grew = true; grew; ) {
    grew = false;
    for (const step of forward) {
      const address = step.change.address;
      if (!late.has(address) && step.deps.some((d) => deleting.has(d) || late.has(d))) {
        late.add(address);
        grew = true;
      }
    }
  }
  const byAddress = new Map(active.map((s) => [s.change.address, s]));
  // Starts a step once, after starting the steps it waits for, so that each is there to be waited for.
  const start = (step: Step, within: ReadonlySet<string>, seen = new Set<string>()): Promise<Outcome> => {
    const address = step.change.address;
    const started = running.get(address);
    if (started) return started;
    seen.add(address);
    const waitFor = step.deps.filter((d) => within.has(d) && !seen.has(d));
    for (const d of waitFor) start(byAddress.get(d)!, within, seen);
    const p = execute(step, step.deps);
    running.set(address, p);
    return p;
  };

  // Creates, updates and replaces: each waits for what it depends on, also a step that comes later in the plan
  // (a group's share of a subgroup the plan creates after it): started first, it is there to be waited for.
  const early = forward.filter((s) => !late.has(s.change.address));
  const earlyAddresses = new Set(early.map((s) => s.change.address));
  for (const step of early) start(step, earlyAddresses);
  await Promise.all(running.values());

  // Deletes: deepest first, one depth at a time, so children go before their parents (and a delete that must come
  // first, a project's before its group's, is waited for). A delete the platform makes along with another waits
  // for that one and shares its outcome.
  const cascaded = active.filter((s) => isDelete(s) && s.change.deletedWith);
  const depths = [...new Set(deletes.map((s) => s.depth))].sort((a, b) => b - a);
  for (const depth of depths) {
    await Promise.all(deletes.filter((s) => s.depth === depth).map((step) => start(step, deleting)));
  }
  await Promise.all(forward.filter((s) => late.has(s.change.address)).map((step) => start(step, late)));
  for (const step of cascaded) await execute(step, [step.change.deletedWith!]);
  return steps.filter((s) => outcomes.has(s.change.address)).map((s) => outcomes.get(s.change.address)!);
}
