/**
 * The sandbox's API throttles over HTTP, as Rack::Attack behaves on the platform: per user (per IP without a user's
 * token), fixed windows aligned on the epoch, 429 text/plain with RateLimit-* and Retry-After on throttled answers
 * only, nothing processed. A settable clock moves through windows, so nothing here depends on timing.
 */
import { Command } from "commander";
import { afterEach, describe, expect, it } from "vitest";
import { registerSandbox } from "../../src/cli/sandbox.js";
import { parseRateLimit } from "../../src/sandbox/throttle.js";
import { type Client, sandbox } from "./helpers.js";

/** 15 s into a minute (1,800,000,000 epoch seconds are a whole number of minutes and hours). */
const START = 1_800_000_015_000;
let now = START;
let c: Client | undefined;

afterEach(async () => {
  await c?.sb.stop();
  c = undefined;
  now = START;
});

async function throttled(rateLimit: string | { requests: number; periodSeconds: number }) {
  c = await sandbox({ rateLimit, clock: () => new Date(now) });
  return c;
}

const RATE_HEADERS = [
  "ratelimit-name",
  "ratelimit-limit",
  "ratelimit-observed",
  "ratelimit-remaining",
  "ratelimit-reset",
  "ratelimit-resettime",
  "retry-after",
];

function rateHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries(RATE_HEADERS.flatMap((h) => (headers.has(h) ? [[h, headers.get(h) ?? ""]] : [])));
}

describe("sandbox API throttle (--rate-limit)", () => {
  it("parses requests per period", () => {
    expect(parseRateLimit("600/min")).toEqual({ requests: 600, periodSeconds: 60 });
    expect(parseRateLimit("7200/h")).toEqual({ requests: 7200, periodSeconds: 3600 });
    expect(parseRateLimit("10/s")).toEqual({ requests: 10, periodSeconds: 1 });
    expect(parseRateLimit(" 10 / 2s ")).toEqual({ requests: 10, periodSeconds: 2 });
    for (const bad of ["600", "0/min", "10/0s", "ten/min", "10/day", "-1/min"]) {
      expect(() => parseRateLimit(bad), bad).toThrow(/must be requests per period/);
    }
  });

  it("is off unless asked for: no 429 and no RateLimit headers", async () => {
    c = await sandbox({ clock: () => new Date(now) });
    for (let i = 0; i < 20; i++) {
      const r = await c.admin("GET", "/version");
      expect(r.status).toBe(200);
      expect(rateHeaders(r.headers)).toEqual({});
    }
  });

  it("answers the request past the limit 429 as Rack::Attack does, with the headers only then", async () => {
    const sb = await throttled("3/min");
    for (let i = 0; i < 3; i++) {
      const r = await sb.admin("GET", "/version");
      expect(r.status).toBe(200);
      expect(rateHeaders(r.headers)).toEqual({});
    }
    const r = await sb.admin("GET", "/version");
    expect(r.status).toBe(429);
    expect(r.headers.get("content-type")).toBe("text/plain");
    expect(r.text).toBe("Retry later\n");
    expect(rateHeaders(r.headers)).toEqual({
      "ratelimit-name": "throttle_authenticated_api",
      "ratelimit-limit": "3",
      "ratelimit-observed": "4",
      "ratelimit-remaining": "0",
      "ratelimit-reset": "1800000060",
      "ratelimit-resettime": new Date(1_800_000_060_000).toUTCString(),
      "retry-after": "45",
    });
    // Throttled requests count too.
    expect((await sb.admin("GET", "/version")).headers.get("ratelimit-observed")).toBe("5");
  });

  it("does not process a throttled write", async () => {
    const sb = await throttled("1/min");
    expect((await sb.admin("POST", "/groups", { name: "first", path: "first" })).status).toBe(201);
    const r = await sb.admin("POST", "/groups", { name: "second", path: "second" });
    expect(r.status).toBe(429);
    expect(sb.sb.store.groupByFullPath("second")).toBeUndefined();
  });

  it("counts per user, and requests without a user's token per IP under their own throttle", async () => {
    const sb = await throttled("2/min");
    for (let i = 0; i < 2; i++) expect((await sb.admin("GET", "/version")).status).toBe(200);
    expect((await sb.admin("GET", "/version")).status).toBe(429);
    // Another user still has the whole window.
    for (let i = 0; i < 2; i++) expect((await sb.user("GET", "/version")).status).toBe(200);
    expect((await sb.user("GET", "/version")).status).toBe(429);
    // A token in the query string is the same user.
    const q = await sb.call("GET", "/version?private_token=user-token", { token: null });
    expect(q.status).toBe(429);
    // No token: the unauthenticated throttle, counted for this client's IP.
    for (let i = 0; i < 2; i++) expect((await sb.call("GET", "/groups", { token: null })).status).toBe(200);
    const anonymous = await sb.call("GET", "/groups", { token: null });
    expect(anonymous.status).toBe(429);
    expect(anonymous.headers.get("ratelimit-name")).toBe("throttle_unauthenticated_api");
  });

  it("uses fixed windows aligned on the epoch, not a window from the first request", async () => {
    const sb = await throttled("2/min");
    now = START + 44_000; // 59 s into the minute
    for (let i = 0; i < 2; i++) expect((await sb.admin("GET", "/version")).status).toBe(200);
    const late = await sb.admin("GET", "/version");
    expect(late.status).toBe(429);
    expect(late.headers.get("retry-after")).toBe("1");
    now = START + 45_000; // the next minute: a fresh window one second after the first requests
    expect((await sb.admin("GET", "/version")).status).toBe(200);
    expect((await sb.admin("GET", "/version")).status).toBe(200);
    expect((await sb.admin("GET", "/version")).status).toBe(429);
  });

  it("rounds RateLimit-Limit up to a 60-second window for other periods", async () => {
    const sb = await throttled({ requests: 2, periodSeconds: 3600 });
    await sb.admin("GET", "/version");
    await sb.admin("GET", "/version");
    const r = await sb.admin("GET", "/version");
    expect(r.status).toBe(429);
    expect(r.headers.get("ratelimit-limit")).toBe("1");
    // 1,800,000,000 s is a whole number of hours too: 15 s into the hour, 3,585 s are left.
    expect(r.headers.get("retry-after")).toBe("3585");
  });

  it("is configured by the application settings, which can turn it off or change its text", async () => {
    const sb = await throttled("2/min");
    const settings = (await sb.admin("GET", "/application/settings")).body as Record<string, unknown>;
    expect(settings).toMatchObject({
      throttle_authenticated_api_enabled: true,
      throttle_authenticated_api_requests_per_period: 2,
      throttle_authenticated_api_period_in_seconds: 60,
      throttle_unauthenticated_api_enabled: true,
    });
    // The GET above was the first request of the window; this PUT is the second.
    expect(
      (await sb.admin("PUT", "/application/settings", { rate_limiting_response_text: "Slow down" })).status,
    ).toBe(200);
    const r = await sb.admin("GET", "/version");
    expect(r.status).toBe(429);
    expect(r.text).toBe("Slow down\n");
    // An admin of another window turns the throttle off.
    now += 60_000;
    await sb.admin("PUT", "/application/settings", { throttle_authenticated_api_enabled: false });
    for (let i = 0; i < 5; i++) expect((await sb.admin("GET", "/version")).status).toBe(200);
  });

  it("leaves the sandbox's own endpoints outside /api alone", async () => {
    const sb = await throttled("1/min");
    for (let i = 0; i < 3; i++) expect((await sb.admin("GET", "/-/sandbox/state")).status).toBe(200);
  });

  it("forgeform sandbox --rate-limit says so, and refuses a spec it cannot read", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      out: (t: string) => void out.push(t),
      err: (t: string) => void err.push(t),
      color: false,
      interactive: false,
      prompt: async () => "",
    };
    let code = -1;
    const run = async (spec: string) => {
      const program = new Command().exitOverride();
      registerSandbox(
        program,
        io as never,
        (n) => {
          code = n;
        },
        async () => undefined,
      );
      await program.parseAsync(["node", "forgeform", "sandbox", "--port", "0", "--rate-limit", spec]);
    };
    await run("600/min");
    expect(code).toBe(0);
    expect(out.join("")).toContain(", API rate limit 600/min per user\n");
    await run("lots");
    expect(code).toBe(1);
    expect(err.join("")).toContain('sandbox: rate limit "lots" must be requests per period');
  });
});
