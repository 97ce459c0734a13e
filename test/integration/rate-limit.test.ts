/**
 * The client against the sandbox's Rack::Attack throttle. The sandbox's window is shortened to one second (20
 * requests a second, announced as 1,200/min). Where a check depends on how many requests fall in one window, the
 * sandbox and the client share a clock that only the client's waits move, so the result is the same on a fast
 * machine and a slow one; the checks count requests and 429s, and time nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { ADMIN_TOKEN, Bench } from "./helpers.js";

let sandbox: RunningSandbox | undefined;
let bench: Bench | undefined;

afterEach(async () => {
  await sandbox?.stop();
  await bench?.stop();
  sandbox = undefined;
  bench = undefined;
});

/**
 * A clock for the sandbox and the client: it stands still while requests are sent and answered, and moves only
 * when the client waits (each wait adds its length: time never runs slower than the client's schedule).
 */
function sharedClock() {
  let now = Date.UTC(2026, 10, 24, 12, 0, 0);
  return {
    now: () => now,
    date: () => new Date(now),
    sleep: async (ms: number) => {
      now += ms;
    },
  };
}

/** A sandbox counting what it answers: every request, and the 429s. */
async function counted(rateLimit?: string, clock?: () => Date) {
  const seen = { requests: 0, throttled: 0 };
  sandbox = await startSandbox({
    adminToken: ADMIN_TOKEN,
    ...(rateLimit ? { rateLimit } : {}),
    ...(clock ? { clock } : {}),
    onRequest: () => {
      seen.requests += 1;
    },
    onThrottled: () => {
      seen.throttled += 1;
    },
  });
  return { sb: sandbox, seen };
}

describe("adaptive pacing under the platform's rate limit", () => {
  it("finishes every read and write of a run with few 429s, creating each object once", async () => {
    const clock = sharedClock();
    const s = await counted("20/1s", clock.date);
    const client = new ApiClient({
      url: s.sb.url,
      token: ADMIN_TOKEN,
      concurrency: 8,
      now: clock.now,
      sleep: clock.sleep,
    });
    const reads = Array.from({ length: 40 }, () => client.get("/version"));
    const writes = Array.from({ length: 6 }, (_, i) =>
      client.post("/groups", { body: { name: `paced-${i}`, path: `paced-${i}` } }),
    );
    const results = await Promise.allSettled([...reads, ...writes]);
    await client.close();
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    // Each group exists once: a 429 on a POST was not processed, and the POST was sent again.
    for (let i = 0; i < 6; i++) expect(s.sb.store.groupByFullPath(`paced-${i}`)).toBeDefined();
    expect(s.sb.store.data.groups.filter((g) => g.path.startsWith("paced-"))).toHaveLength(6);
    // The throttle engaged (46 requests in a window of 20: whatever the machine's speed); the client saw what the
    // sandbox answered.
    expect(s.seen.throttled).toBeGreaterThan(0);
    expect(client.metrics.throttled).toBe(s.seen.throttled);
    expect(client.metrics.snapshot().total).toBe(s.seen.requests);
    // Few 429s: about the requests in flight when the first window ran out, not one per request and window.
    expect(s.seen.throttled).toBeLessThanOrEqual(12);
    expect(client.metrics.pacedRequests).toBeGreaterThan(0);
  });

  it("a plan under the limit reads everything; --debug sums up the requests and the rate limiting", async () => {
    const groups = Array.from({ length: 12 }, (_, i) => `g${i}`);
    bench = await Bench.start({
      rateLimit: "20/1s",
      fixture: { groups: groups.map((path) => ({ name: path, path, description: `Group ${path}` })) },
    });
    const file = bench.manifest(
      `version: 1\ngroups:\n${groups.map((g) => `  ${g}:\n    description: Group ${g}\n`).join("")}`,
    );
    const plan = await bench.cli(["plan", "--debug", "--detailed-exitcode", file]);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.err).toMatch(/^requests: \d+ sent, \d+ retries, \d+ answered 429 \(rate limited\); /m);
  });
});

describe("a rate limit used up for longer than forgeform waits (an hourly limit)", () => {
  it("stops at once with one error saying until when and what to do, sending nothing more", async () => {
    const groups = Array.from({ length: 12 }, (_, i) => `h${i}`);
    // The sandbox's clock runs from half past an hour: the window cannot end during the run, as it would when the
    // real clock is a few seconds before the hour.
    const started = Date.now();
    bench = await Bench.start({
      rateLimit: "5/h",
      clock: () => new Date(Date.UTC(2026, 0, 1, 10, 30) + (Date.now() - started)),
      fixture: { groups: groups.map((path) => ({ name: path, path })) },
    });
    let sent = 0;
    const file = bench.manifest(
      `version: 1\ngroups:\n${groups.map((g) => `  ${g}: { description: Group ${g} }\n`).join("")}`,
    );
    const plan = await bench.cli(["plan", "--debug", file]);
    sent = (plan.err.match(/^(GET|POST|PUT|DELETE) /gm) ?? []).length;
    expect(plan.code).toBe(1);
    const said = (plan.out + plan.err).replace(/\s+/g, " ");
    expect(said).toMatch(
      /the platform's rate limit is used up until \d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ \(it announces 1 request a minute for this user\): run again after that, or keep the run under the limit with --max-rate/,
    );
    // The five the window allows, the 429s of the requests in flight then, and nothing after: no request waits.
    expect(sent).toBeGreaterThanOrEqual(5);
    expect(sent).toBeLessThanOrEqual(5 + 8);
    expect(plan.err).not.toMatch(/retrying/);
  });
});

describe("--max-rate", () => {
  it("spaces the run's requests 60/N seconds apart, counted on the client's clock", async () => {
    const s = await counted();
    const clock = { now: 0 };
    const starts: number[] = [];
    const client = new ApiClient({
      url: s.sb.url,
      token: ADMIN_TOKEN,
      maxRatePerMinute: 600,
      now: () => clock.now,
      // The pacer's waits are recorded and the clock stands still, so nothing really waits.
      sleep: async (ms) => {
        starts.push(clock.now + ms);
      },
    });
    await Promise.all(Array.from({ length: 10 }, () => client.get("/version")));
    await client.close();
    expect(s.seen.requests).toBe(10);
    expect(starts.sort((a, b) => a - b)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900]);
    expect(client.metrics.pacedRequests).toBe(9);
    // The waits overlap: the run was held back 900 ms in all.
    expect(client.metrics.pacedMs).toBe(900);
    expect(client.metrics.throttled).toBe(0);
  });
});
