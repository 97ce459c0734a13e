/** The progress line in a log (not a terminal), on fake timers: what it shows, not when. */
import { afterEach, describe, expect, it, vi } from "vitest";
import { RequestMetrics } from "../../src/api/metrics.js";
import { createProgress } from "../../src/cli/progress.js";

afterEach(() => {
  vi.useRealTimers();
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
});
