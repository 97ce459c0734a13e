/**
 * `forgeform apply` at a terminal, in-process against the sandbox: it asks before applying and takes only `yes`
 * (and asks nothing when not at a terminal), shows each outcome as it comes and lists what was not applied again at
 * the end; a first Ctrl-C (SIGINT) or SIGTERM finishes the requests in flight, starts no new one, says what was done
 * and what was not (the changes skipped for a failure apart from those not started) and exits 130 (143 for
 * SIGTERM); a second signal exits at once.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { main } from "../../src/cli/index.js";
import type { Io } from "../../src/cli/io.js";
import { ADMIN_TOKEN, type Bench, withEnv } from "../integration/helpers.js";
import { milestonesBench, milestonesOf } from "./milestones.js";

const MILESTONES = 12;

/**
 * Runs `forgeform apply --concurrency 1 FILE` in-process as at a terminal (unless `interactive` is false); `answer`
 * is typed at the prompt; `onErr` sees stderr as it comes.
 */
async function applyAt(
  bench: Bench,
  file: string,
  {
    answer = "yes",
    onErr = () => undefined,
    interactive = true,
  }: {
    answer?: string;
    onErr?: (text: string) => void;
    interactive?: boolean;
  } = {},
) {
  const out: string[] = [];
  const err: string[] = [];
  const questions: string[] = [];
  const io: Io = {
    out: (t) => void out.push(t),
    err: (t) => {
      err.push(t);
      onErr(t);
    },
    color: false,
    interactive,
    prompt: async (q) => {
      questions.push(q);
      return answer;
    },
  };
  const code = await withEnv(
    { FORGEFORM_URL: bench.sandbox.url, FORGEFORM_TOKEN: ADMIN_TOKEN, NO_COLOR: "1" },
    () => main(["node", "forgeform", "apply", "--concurrency", "1", file], io),
  );
  return { code, out: out.join(""), err: err.join(""), questions };
}

describe("apply at a terminal", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    // Some latency, so that an interrupt lands while steps are still to start.
    ({ bench, file } = await milestonesBench(MILESTONES, { latencyMs: 30 }));
  });
  afterAll(async () => {
    await bench.stop();
  });

  const apply = (answer: string, onErr?: (text: string) => void) =>
    applyAt(bench, file, { answer, ...(onErr ? { onErr } : {}) });
  const milestones = () => milestonesOf(bench);

  it("asks, and applies nothing unless the answer is exactly yes", async () => {
    for (const answer of ["no", "y", "YES", ""]) {
      const run = await apply(answer);
      expect(run.questions).toEqual(["\nApply these changes? Only 'yes' is accepted: "]);
      expect(run.code, answer).toBe(1);
      expect(run.err).toContain("Apply cancelled. Nothing was applied.");
      expect(await milestones()).toEqual([]);
    }
  });

  it("refuses without --yes when not at a terminal, even with a way to prompt, and asks nothing", async () => {
    const run = await applyAt(bench, file, { interactive: false });
    expect(run).toMatchObject({
      code: 1,
      err: "forgeform: not at a terminal, so apply needs --yes to go ahead. Nothing was applied.\n",
      questions: [],
    });
    expect(await milestones()).toEqual([]);
  });

  it("stops starting steps at the first interrupt, and says what was done and what was not", async () => {
    const listening = process.listenerCount("SIGINT");
    const run = await apply(" yes ", (text) => {
      if (text.startsWith("[2/")) process.emit("SIGINT", "SIGINT");
    });
    expect(run.code).toBe(130);
    expect(run.err).toContain("forgeform: SIGINT: finishing the requests in flight and starting no new ones");
    expect(run.err).toContain(
      "forgeform: apply was interrupted (SIGINT): the changes marked done were made, the others were not. Run apply again to carry on from here.",
    );
    const made = await milestones();
    expect(made.length).toBeGreaterThanOrEqual(2);
    expect(made.length).toBeLessThan(MILESTONES);
    const notStarted = MILESTONES - made.length;
    expect(run.out).toContain(`Apply interrupted: ${made.length} done, 0 failed, ${notStarted} not started.`);
    expect(run.out.match(/skipped: not started: the apply was interrupted$/gm)).toHaveLength(notStarted);
    // The signal handlers are gone once apply returns.
    expect(process.listenerCount("SIGINT")).toBe(listening);
  });

  it("shows each outcome as it comes, then applies the rest when asked again", async () => {
    const before = (await milestones()).length;
    const run = await apply("yes");
    expect(run.code).toBe(0);
    const lines = run.err.split("\n").filter((l) => /^\[\d+\/\d+\] /.test(l));
    expect(lines).toHaveLength(MILESTONES - before);
    expect(lines.at(-1)).toMatch(new RegExp(`^\\[${MILESTONES - before}/${MILESTONES - before}\\] `));
    expect(run.out).toContain(`Apply complete: ${MILESTONES - before} done, 0 failed, 0 skipped.`);
    expect((await milestones()).sort()).toHaveLength(MILESTONES);
  });
});

describe("apply at a terminal, with a failing step", () => {
  let bench: Bench;
  let file: string;
  beforeEach(async () => {
    // Every group create fails: group["acme"] fails, and group["acme/sub"] is skipped for it.
    ({ bench, file } = await milestonesBench(
      MILESTONES,
      { faults: "500:1@POST/api/v4/groups", latencyMs: 30 },
      "groups:\n  acme: {}\n  acme/sub: {}\n",
    ));
  });
  afterEach(async () => {
    await bench.stop();
  });

  const milestones = () => milestonesOf(bench);
  const FAILED =
    '+ group["acme"]: failed: POST /groups -> 500 Internal Server Error: 500 Internal Server Error\n' +
    '+ group["acme/sub"]: skipped: skipped because group["acme"] was not applied\n';

  it("lists the failed and skipped changes again at the end, not the ones done", async () => {
    const run = await applyAt(bench, file);
    expect(run.code).toBe(1);
    // After the plan: only what was not applied, then the count (the changes done were shown as they came).
    expect(run.out.split("Plan: 14 to create, 0 to update, 0 to replace, 0 to delete.\n")[1]).toBe(
      `\n${FAILED}\nApply incomplete: 12 done, 1 failed, 1 skipped.\n`,
    );
    expect(run.err).toContain(`[1/14] ${FAILED.split("\n")[0]}\n`);
    expect(run.err).toContain("forgeform: some changes were not applied (above).");
    expect(await milestones()).toHaveLength(MILESTONES);
  });

  it("at an interrupt, counts the changes skipped for a failure apart from those not started; SIGTERM exits 143", async () => {
    const run = await applyAt(bench, file, {
      onErr: (text) => {
        if (text.startsWith("[4/")) process.emit("SIGTERM", "SIGTERM");
      },
    });
    expect(run.code).toBe(143);
    expect(run.err).toContain(
      "forgeform: SIGTERM: finishing the requests in flight and starting no new ones",
    );
    expect(run.err).toContain(
      "forgeform: apply was interrupted (SIGTERM): the changes marked done were made",
    );
    // Concurrency 1: the two milestones done before the signal, and no other.
    expect(await milestones()).toEqual(["m1", "m2"]);
    // Every step's outcome, then the count.
    expect(run.out).toContain(
      `\n\n${FAILED}` +
        '+ project["g/p"].milestone["m1"]: done\n' +
        '+ project["g/p"].milestone["m2"]: done\n' +
        '+ project["g/p"].milestone["m3"]: skipped: not started: the apply was interrupted\n',
    );
    expect(run.out).toContain("\nApply interrupted: 2 done, 1 failed, 10 not started, 1 skipped.\n");
  });

  it("exits at once, with the second signal's code, when a second signal comes", async () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as typeof process.exit);
    try {
      const run = await applyAt(bench, file, {
        onErr: (text) => {
          if (text.startsWith("[4/")) process.emit("SIGINT", "SIGINT");
          if (text.startsWith("[5/")) process.emit("SIGTERM", "SIGTERM");
        },
      });
      expect(exit.mock.calls).toEqual([[143]]);
      expect(run.err).toContain(
        '[5/14] + project["g/p"].milestone["m3"]: skipped: not started: the apply was interrupted\n' +
          "\nforgeform: SIGTERM again: exiting at once. Requests in flight may or may not have taken effect: run plan to see where things stand.\n",
      );
    } finally {
      exit.mockRestore();
    }
  });
});
