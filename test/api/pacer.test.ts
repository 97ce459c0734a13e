/**
 * Pacing, by counting on a clock the test moves: the pacer's waits are recorded, never slept, so nothing here
 * depends on how fast the machine is.
 */
import { describe, expect, it } from "vitest";
import { Pacer, type PacerOptions } from "../../src/api/pacer.js";

/** A pacer on a test clock; `starts` holds when each acquire let a request start. */
function pacer(opts: Partial<PacerOptions> = {}) {
  const clock = { now: 0 };
  const starts: number[] = [];
  const lines: string[] = [];
  const p = new Pacer({
    maxPauseMs: 60_000,
    now: () => clock.now,
    sleep: async (ms) => {
      clock.now += ms;
    },
    debug: (line) => lines.push(line),
    ...opts,
  });
  const go = async (waitedOut?: number) => {
    const turn = await p.acquire(waitedOut);
    starts.push(clock.now);
    return turn;
  };
  return { p, clock, starts, lines, go };
}

const limited = (limit: number, retryAfter: number) => ({
  "content-type": "text/plain",
  "ratelimit-name": "throttle_authenticated_api",
  "ratelimit-limit": String(limit),
  "retry-after": String(retryAfter),
});

const gaps = (times: number[]) => times.slice(1).map((t, i) => Math.round(t - (times[i] ?? 0)));

describe("pacing", () => {
  it("does not pace at all until a 429 or --max-rate", async () => {
    const { p, go, starts } = pacer();
    for (let i = 0; i < 20; i++) expect((await go()).waitedMs).toBe(0);
    expect(starts.every((t) => t === 0)).toBe(true);
    expect(p.rate).toBe(Number.POSITIVE_INFINITY);
  });

  it("--max-rate spaces requests evenly from the first one", async () => {
    const { go, starts } = pacer({ maxPerMinute: 60 });
    for (let i = 0; i < 5; i++) await go();
    expect(starts).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it("--max-rate spaces concurrent requests too: each takes the next turn", async () => {
    // All ask at once (the clock does not move while they wait).
    const { p } = pacer({ maxPerMinute: 600, sleep: async () => {} });
    const turns = await Promise.all(Array.from({ length: 5 }, () => p.acquire()));
    expect(turns.map((t) => t.waitedMs)).toEqual([0, 100, 200, 300, 400]);
    expect(turns.map((t) => t.ticket)).toEqual([1, 2, 3, 4, 5]);
    // The waits overlap: the run was held back 400 ms, not 1,000.
    expect(turns.reduce((n, t) => n + t.heldMs, 0)).toBe(400);
  });

  it("a 429 pauses every new request until the reset, then paces at 95% of the announced limit", async () => {
    const { p, clock, go, starts, lines } = pacer();
    const first = await go();
    clock.now = 10_000;
    const until = p.throttled(limited(600, 30), first.ticket);
    expect(until).toBe(40_000);
    expect(p.rate).toBe(570);
    for (let i = 0; i < 4; i++) await go();
    expect(starts.slice(1)[0]).toBe(40_000);
    expect(gaps(starts.slice(1))).toEqual([105, 105, 105]);
    expect(lines).toEqual([
      "  rate limited (429 throttle_authenticated_api, limit 600/min): pausing new requests for 30.0 s, then at most 570/min",
    ]);
  });

  it("takes RateLimit-Reset when there is no Retry-After, and pauses at most the retry wait budget", async () => {
    const { p, clock } = pacer({ maxPauseMs: 5_000 });
    clock.now = 1_000_000;
    expect(p.throttled({ "ratelimit-reset": "1003" }, 1)).toBe(1_003_000);
    expect(p.throttled({ "retry-after": "3600" }, 2)).toBe(1_005_000);
  });

  it("a window that ends later than the pause allows is a spent limit: nothing waits, until it resets", async () => {
    const { p, clock, go } = pacer({ maxPauseMs: 60_000 });
    clock.now = 1_000_000;
    expect(p.spent()).toBeUndefined();
    p.throttled(limited(2, 3_000), 1);
    expect(p.spent()).toEqual({ untilMs: 4_000_000, limitPerMinute: 2 });
    // A request asking for its turn now is not made to wait out the pause: its caller sends nothing.
    const turn = await go();
    expect(turn.waitedMs).toBe(0);
    expect(clock.now).toBe(1_000_000);
    clock.now = 4_000_000;
    expect(p.spent()).toBeUndefined();
    // A 429 within the pause budget is an ordinary pause, not a spent limit.
    p.throttled(limited(2, 30), 9);
    expect(p.spent()).toBeUndefined();
  });

  it("the rest of a burst changes nothing more; a later 429 at or below the target slows down by a tenth", async () => {
    const { p, clock, go } = pacer();
    const burst = [];
    for (let i = 0; i < 8; i++) burst.push(await go());
    clock.now = 1_000;
    p.throttled(limited(600, 59), burst[0]?.ticket ?? 0);
    expect(p.rate).toBe(570);
    // Answers to the other requests let through before the first 429 came back.
    for (const turn of burst.slice(1)) p.throttled(limited(600, 59), turn.ticket);
    expect(p.rate).toBe(570);
    const later = await go();
    p.throttled(limited(600, 30), later.ticket);
    expect(p.rate).toBeCloseTo(513);
  });

  it("a 429 without an announced limit pauses only, unless already paced", async () => {
    const { p } = pacer();
    p.throttled({ "retry-after": "2" }, 1);
    expect(p.rate).toBe(Number.POSITIVE_INFINITY);
    const paced = pacer({ maxPerMinute: 100 });
    paced.p.throttled({ "retry-after": "0" }, 1);
    expect(paced.p.rate).toBe(90);
  });

  it("speeds up again as requests get through, up to the announced limit (or --max-rate)", async () => {
    const { p } = pacer();
    p.throttled(limited(600, 1), 1);
    for (let i = 0; i < 200; i++) p.passed();
    expect(p.rate).toBeCloseTo(590);
    for (let i = 0; i < 200; i++) p.passed();
    expect(p.rate).toBe(600);
    const capped = pacer({ maxPerMinute: 300 });
    capped.p.throttled(limited(600, 1), 1);
    expect(capped.p.rate).toBe(300 * 0.9);
    for (let i = 0; i < 1000; i++) capped.p.passed();
    expect(capped.p.rate).toBe(300);
  });

  it("a request that waited out its own 429 is not made to wait for that pause again", async () => {
    const { p, clock } = pacer();
    clock.now = 1_000;
    const until = p.throttled({ "retry-after": "7" }, 1);
    // Its retry slept 7 s by the recording sleep of the client's tests, which does not move the clock.
    expect((await p.acquire(until)).waitedMs).toBe(0);
    // Another request waits for the pause.
    expect((await p.acquire()).waitedMs).toBe(7_000);
  });

  it("a request waiting for its turn when a pause begins waits for the pause too", async () => {
    const clock = { now: 0 };
    let wake: () => void = () => {};
    const sleeps: number[] = [];
    const p = new Pacer({
      maxPerMinute: 60,
      maxPauseMs: 60_000,
      now: () => clock.now,
      sleep: (ms) => {
        sleeps.push(ms);
        return ms === 1000 ? new Promise<void>((r) => (wake = r)) : Promise.resolve();
      },
    });
    await p.acquire();
    const second = p.acquire();
    // While the second request waits its 1 s turn, a 429 asks everyone to wait 20 s.
    clock.now = 500;
    p.throttled({ "retry-after": "20" }, 1);
    clock.now = 1000;
    wake();
    await second;
    expect(sleeps).toEqual([1000, 19_500]);
  });
});
