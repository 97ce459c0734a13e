/**
 * `forgeform apply` at a terminal, in-process against the sandbox: it asks before applying and takes only `yes`,
 * shows each outcome as it comes, and a first Ctrl-C (SIGINT) finishes the requests in flight, starts no new one and
 * says what was done and what was not.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/index.js";
import type { Io } from "../../src/cli/io.js";
import { ADMIN_TOKEN, Bench } from "../integration/helpers.js";

const MILESTONES = 12;

describe("apply at a terminal", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    // Some latency, so that an interrupt lands while steps are still to start.
    bench = await Bench.start({
      fixture: { groups: [{ path: "g" }], projects: [{ path: "g/p" }] },
      latencyMs: 30,
    });
    file = join(bench.dir, "m.yaml");
    const titles = Array.from({ length: MILESTONES }, (_, i) => `      - { title: m${i + 1} }`).join("\n");
    writeFileSync(file, `version: 1\nprojects:\n  g/p:\n    milestones:\n${titles}\n`);
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** Runs `forgeform apply FILE` as at a terminal; `answer` is typed at the prompt; `onErr` sees stderr as it comes. */
  async function apply(answer: string, onErr: (text: string) => void = () => undefined) {
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
      interactive: true,
      prompt: async (q) => {
        questions.push(q);
        return answer;
      },
    };
    const saved = { ...process.env };
    Object.assign(process.env, {
      FORGEFORM_URL: bench.sandbox.url,
      FORGEFORM_TOKEN: ADMIN_TOKEN,
      NO_COLOR: "1",
    });
    try {
      const code = await main(["node", "forgeform", "apply", "--concurrency", "1", file], io);
      return { code, out: out.join(""), err: err.join(""), questions };
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
  }
  const milestones = async () =>
    (await bench.get<{ title: string }[]>("/projects/g%2Fp/milestones?per_page=100")).map((m) => m.title);

  it("asks, and applies nothing unless the answer is exactly yes", async () => {
    for (const answer of ["no", "y", "YES", ""]) {
      const run = await apply(answer);
      expect(run.questions).toEqual(["\nApply these changes? Only 'yes' is accepted: "]);
      expect(run.code, answer).toBe(1);
      expect(run.err).toContain("Apply cancelled. Nothing was applied.");
      expect(await milestones()).toEqual([]);
    }
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
