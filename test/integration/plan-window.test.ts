/**
 * Top-level projects are planned a window at a time: four per connection (`--concurrency`), enough that every
 * connection has a request to send while a project waits for a dependent read (a schedule's detail after its list),
 * few enough that what a project holds while planned is released before the next ones start. Counted in the
 * requests the platform receives: no more projects are being read at once than the window, and as many as it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { startRecorder } from "./proxy.js";

const PROJECTS = Array.from({ length: 20 }, (_, i) => `fleet/p${String(i + 1).padStart(2, "0")}`);
const MANIFEST = `version: 1
projects:
${PROJECTS.map(
  (p) => `  ${p}:
    pipeline_schedules:
      - description: nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: TIER, value: gold }
`,
).join("")}`;

/** The most projects whose reads had begun and not ended at any point of the requests, in the order received. */
function mostAtOnce(paths: string[]): number {
  const span = new Map<string, [number, number]>();
  paths.forEach((path, i) => {
    const id = /^\/api\/v4\/projects\/([^/]+)\//.exec(path)?.[1];
    if (id) span.set(id, [span.get(id)?.[0] ?? i, i]);
  });
  let most = 0;
  for (let i = 0; i < paths.length; i++) {
    most = Math.max(most, [...span.values()].filter(([first, last]) => first <= i && i <= last).length);
  }
  return most;
}

describe("the window of projects planned at once", () => {
  let bench: Bench;
  let manifest: string;
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: { groups: [{ path: "fleet" }], projects: PROJECTS.map((path) => ({ path })) },
    });
    manifest = bench.manifest(MANIFEST);
    const applied = await bench.cli(["apply", "--yes", manifest]);
    expect(applied.code, applied.out + applied.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  for (const [concurrency, window] of [
    [1, 4],
    [2, 8],
  ] as const) {
    it(`is ${window} projects at --concurrency ${concurrency}`, async () => {
      const recorder = await startRecorder(bench.sandbox.url);
      try {
        const run = await bench.cli(
          ["plan", "--detailed-exitcode", "--concurrency", String(concurrency), manifest],
          {
            FORGEFORM_URL: recorder.url,
          },
        );
        expect(run.code, run.out + run.err).toBe(0);
        const paths = recorder.requests.map((r) => r.path);
        // Each project read: its schedules, then the schedule's detail (its variables).
        expect(
          new Set(paths.map((p) => /^\/api\/v4\/projects\/([^/]+)\//.exec(p)?.[1]).filter(Boolean)).size,
        ).toBe(20);
        expect(mostAtOnce(paths)).toBe(window);
      } finally {
        await recorder.close();
      }
    });
  }
});
