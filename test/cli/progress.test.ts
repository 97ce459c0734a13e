/**
 * The progress line in a log (not a terminal), on fake timers: what it shows, not when. Then plan, drift and apply
 * run in-process as the process's own (its stdout and stderr spied on) against the sandbox: the line on stderr while
 * reading and applying, and at a terminal a live line erased when done.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { RequestMetrics } from "../../src/api/metrics.js";
import { main } from "../../src/cli/index.js";
import { cliProgress, createProgress } from "../../src/cli/progress.js";
import { ADMIN_TOKEN, type Bench, withEnv } from "../integration/helpers.js";
import { milestonesBench } from "./milestones.js";

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  delete process.env["FORGEFORM_PROGRESS_INTERVAL_MS"];
});

describe("progress line", () => {
  it("shows retries, answers 429 and the time paced only once there are some", () => {
    vi.useFakeTimers();
    const lines: string[] = [];
    const metrics = new RequestMetrics();
    const progress = createProgress({ tty: false, write: (t) => lines.push(t), intervalMs: 1000 });
    progress.phase("Reading live state", metrics);
    metrics.countRequest("GET", "/groups");
    vi.advanceTimersByTime(1000);
    expect(lines.at(-1)).toBe("Reading live state: 0 objects read, 1 request, 1 s\n");
    metrics.countRetry();
    metrics.countThrottled();
    metrics.countPaced(30_400);
    metrics.countPaced(1_200);
    vi.advanceTimersByTime(1000);
    expect(lines.at(-1)).toBe(
      "Reading live state: 0 objects read, 1 request, 1 retry, 1 rate limited (429), 32 s paced, 2 s\n",
    );
    // One of a thing is one thing; more are things.
    metrics.countObjects(1);
    vi.advanceTimersByTime(1000);
    expect(lines.at(-1)).toMatch(/^Reading live state: 1 object read, 1 request, 1 retry, /);
    metrics.countObjects(1);
    metrics.countRequest("GET", "/groups");
    metrics.countRetry();
    vi.advanceTimersByTime(1000);
    expect(lines.at(-1)).toMatch(/^Reading live state: 2 objects read, 2 requests, 2 retries, /);
    progress.stop();
  });

  it("is off with --no-progress, and when output is not the process's own", () => {
    expect(cliProgress(false, true)).toBeUndefined();
    expect(cliProgress(true, false)).toBeUndefined();
    expect(cliProgress(true, true)).toBeDefined();
  });

  it("writes a line to a log every FORGEFORM_PROGRESS_INTERVAL_MS, from 1 ms up to an hour; else every 5 s", () => {
    vi.useFakeTimers();
    const wrote: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((t) => {
      wrote.push(String(t));
      return true;
    });
    const isTTY = process.stderr.isTTY;
    Object.defineProperty(process.stderr, "isTTY", { value: false, configurable: true });
    try {
      /** How long after the phase starts the first line is written, for the variable's value. */
      const firstLineAfter = (value: string | undefined) => {
        if (value === undefined) delete process.env["FORGEFORM_PROGRESS_INTERVAL_MS"];
        else process.env["FORGEFORM_PROGRESS_INTERVAL_MS"] = value;
        wrote.length = 0;
        const progress = cliProgress(true, true)!;
        progress.phase("Applying", new RequestMetrics(), () => "3 of 7 changes done");
        let waited = 0;
        for (const step of [1, 999, 1000, 3000, 3_595_000]) {
          vi.advanceTimersByTime(step);
          waited += step;
          if (wrote.length > 0) break;
        }
        progress.stop();
        return waited;
      };
      expect(firstLineAfter(undefined)).toBe(5000);
      expect(firstLineAfter("1")).toBe(1);
      expect(firstLineAfter("2000")).toBe(2000);
      expect(firstLineAfter("3600000")).toBe(3_600_000);
      // Past an hour, zero, negative or not a number: the default.
      for (const value of ["3600001", "0", "-1000", "soon", ""])
        expect(firstLineAfter(value), value).toBe(5000);
      expect(wrote[0]).toBe("Applying: 3 of 7 changes done, 0 objects read, 0 requests, 5 s\n");
    } finally {
      Object.defineProperty(process.stderr, "isTTY", { value: isTTY, configurable: true });
    }
  });
});

describe("progress of a command run as the process's own", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    // Latency, so that reading and applying take many intervals of 1 ms.
    ({ bench, file } = await milestonesBench(12, { latencyMs: 20 }));
  });
  afterAll(async () => {
    await bench.stop();
  });

  const run = (args: string[]) => runOwn(bench, args);
  const READING = /^Reading live state: \d+ objects? read, \d+ requests?, \d+ s$/m;

  it("plan and drift show it while reading the live state, on stderr", async () => {
    for (const [command, report] of [
      ["plan", "Plan: 12 to create"],
      ["drift", "Drift between the platform and the manifests"],
    ] as const) {
      const { code, out, err } = await run([command, file]);
      expect(code, command).toBe(command === "plan" ? 0 : 2);
      expect(out, command).toContain(report);
      expect(err, command).toMatch(READING);
      expect(out, command).not.toContain("Reading live state");
    }
  });

  it("apply shows it while reading, then counts the changes done while applying", async () => {
    const { code, out, err } = await run(["apply", "--yes", "--concurrency", "1", file]);
    expect(code).toBe(0);
    expect(out).toContain("Apply complete: 12 done, 0 failed, 0 skipped.");
    expect(err).toMatch(READING);
    expect(err).toMatch(/^Applying: \d+ of 12 changes done, \d+ objects? read, \d+ requests?, \d+ s$/m);
  });

  it("is not shown with --no-progress", async () => {
    const { code, err } = await run(["plan", "--no-progress", file]);
    expect(code).toBe(0);
    expect(err).toBe("");
  });
});

describe("progress at a terminal", () => {
  it("is a live line, rewritten in place while apply runs", async () => {
    // 8 creates one after the other, each answered after 50 ms: applying takes more than the line's 250 ms.
    const { bench, file } = await milestonesBench(8, { latencyMs: 50 });
    try {
      const { code, err } = await runOwn(bench, ["apply", "--yes", "--concurrency", "1", file], true);
      expect(code).toBe(0);
      expect(err).toMatch(/Applying: \d+ of 8 changes done, \d+ objects? read, \d+ requests?, \d+ s\n/);
      // Erased once apply is done (ESC [2K clears the line).
      expect(err.slice(err.lastIndexOf("Applying: "))).toContain("\u001b[2K");
    } finally {
      await bench.stop();
    }
  });
});

/**
 * Runs the CLI as `forgeform` itself does (its own stdout and stderr; stderr a log, or a terminal if `tty`) against
 * `bench`, with a progress line every 1 ms in a log.
 */
async function runOwn(bench: Bench, args: string[], tty = false) {
  const out: string[] = [];
  const err: string[] = [];
  vi.spyOn(process.stdout, "write").mockImplementation((t) => out.push(String(t)) > 0);
  vi.spyOn(process.stderr, "write").mockImplementation((t) => err.push(String(t)) > 0);
  const isTTY = process.stderr.isTTY;
  Object.defineProperty(process.stderr, "isTTY", { value: tty, configurable: true });
  try {
    const code = await withEnv(
      {
        FORGEFORM_URL: bench.sandbox.url,
        FORGEFORM_TOKEN: ADMIN_TOKEN,
        FORGEFORM_PROGRESS_INTERVAL_MS: "1",
        NO_COLOR: "1",
      },
      () => main(["node", "forgeform", ...args]),
    );
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    vi.restoreAllMocks();
    Object.defineProperty(process.stderr, "isTTY", { value: isTTY, configurable: true });
  }
}
