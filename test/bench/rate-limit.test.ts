/**
 * The plan under a rate limit at a tiny size, so the mechanism cannot rot: the sandbox's throttle (shortened to
 * windows of one second), forgeform's pacing with and without --max-rate, the rows and the results section. It
 * checks counts and structure, never timings.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AREAS, benchKinds, declarableKinds } from "../../bench/artifacts.js";
import type { BenchResult } from "../../bench/bench.js";
import { readRequests } from "../../bench/bound.js";
import { repoRoot } from "../../bench/measure.js";
import { RATE_LIMIT_COLUMNS, type RateLimitRow, runRateLimitBench } from "../../bench/rate-limit.js";
import { renderMarkdown } from "../../bench/report.js";
import { BASE_SHAPE, type Shape } from "../../bench/state.js";

const TINY: Shape = { ...BASE_SHAPE, groups: 2, projects: 3, systemHooks: 3, broadcastMessages: 2 };
const LIMIT = { requests: 10, periodSeconds: 1 };

describe("the plan under a rate limit, at a tiny size", () => {
  let work: string;
  let rows: RateLimitRow[];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "forgeform-bench-rate-"));
    rows = await runRateLimitBench({
      base: TINY,
      factor: 1,
      latencyMs: 2,
      concurrency: 4,
      ...LIMIT,
      runs: ["adaptive", "max-rate"],
      work,
    });
  }, 120_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("plans the unchanged state without failure, once not knowing the limit and once told it", () => {
    expect(rows.map((r) => r.run)).toEqual(["adaptive", "max-rate"]);
    for (const r of rows) {
      expect(r.changes, r.run).toBe(0);
      // Everything was read: at least what the contract needs, with the 429s on top.
      expect(r.requests - r.throttled, r.run).toBeGreaterThanOrEqual(
        readRequests(TINY, benchKinds(AREAS, declarableKinds(repoRoot()))),
      );
      // forgeform counted every request the sandbox received, the 429s included.
      expect(r.clientRequests, r.run).toBe(r.requests);
      expect(r.limitWallMs).toBe(((r.requests - r.throttled) / LIMIT.requests) * 1000);
    }
  });

  it("meets the throttle when it does not know the limit: it starts as a window begins and needs several", () => {
    const adaptive = rows.find((r) => r.run === "adaptive")!;
    expect(adaptive.requests - adaptive.throttled).toBeGreaterThan(2 * LIMIT.requests);
    expect(adaptive.throttled).toBeGreaterThan(0);
  });

  it("writes the section of the results file with its columns", () => {
    // The committed results of a full run, with these rows added.
    const latest = JSON.parse(
      readFileSync(join(repoRoot(), "bench/results/latest.json"), "utf8"),
    ) as BenchResult;
    const result: BenchResult = { ...latest, rateLimit: rows };
    const markdown = renderMarkdown(result);
    const section = markdown.slice(markdown.indexOf("## Under a rate limit"));
    expect(section).toContain(`| ${RATE_LIMIT_COLUMNS.join(" | ")} |`);
    expect(section).toContain("| 1x | plan, limit not known | 10/1s |");
    expect(section).toContain("| 1x | plan, --max-rate 10/1s | 10/1s |");
    expect(renderMarkdown({ ...result, rateLimit: undefined })).not.toContain("## Under a rate limit");
  });
});
