/** The progress line in a log (not a terminal), on fake timers: what it shows, not when. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestMetrics } from "../../src/api/metrics.js";
import { cliProgress, createProgress } from "../../src/cli/progress.js";

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
