import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiClient, ApiError, NetworkError, OutcomeUnknownError } from "../../src/api/index.js";
import { type Handler, json, recordingSleep, startServer, type TestServer } from "./server.js";

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** Answers with `failures` in turn, then 200 `{ok: true}`. */
function failThenSucceed(failures: Handler[]): Handler {
  let i = 0;
  return (req, res, raw) => {
    const failure = failures[i++];
    if (failure) return failure(req, res, raw);
    json(res, req.method === "POST" ? 201 : 200, { ok: true });
  };
}

const status =
  (code: number, headers: Record<string, string> = {}, body: unknown = { message: `${code}` }): Handler =>
  (_req, res) =>
    json(res, code, body, headers);

const reset: Handler = (_req, _res, raw) => {
  raw.socket.destroy();
};

async function setup(handler: Handler, extra: Partial<ConstructorParameters<typeof ApiClient>[0]> = {}) {
  server = await startServer(handler);
  const rec = recordingSleep();
  client = new ApiClient({ url: server.url, token: "tok-secret-1234", sleep: rec.sleep, ...extra });
  return { server, client, delays: rec.delays };
}

describe("retries of idempotent requests", () => {
  it("honours Retry-After in seconds on a 429", async () => {
    const { client, delays, server } = await setup(
      failThenSucceed([
        (_req, res) => {
          res.writeHead(429, { "content-type": "text/plain", "retry-after": "7" });
          res.end("Retry later\n");
        },
      ]),
    );
    expect(await client.get("/projects/1")).toEqual({ ok: true });
    expect(delays).toEqual([7000]);
    expect(server.seen).toHaveLength(2);
  });

  it("honours Retry-After as an HTTP date", async () => {
    // The clock is fake (Date only): the wait is what the date says, to the millisecond.
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2026, 10, 24, 12, 0, 0, 250));
    const when = new Date(Date.UTC(2026, 10, 24, 12, 0, 30)).toUTCString();
    const { client, delays } = await setup(failThenSucceed([status(429, { "retry-after": when })]));
    await client.get("/projects/1");
    expect(delays).toEqual([29_750]);
  });

  it("honours RateLimit-Reset (unix seconds) when there is no Retry-After", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2026, 10, 24, 12, 0, 0, 400));
    const reset = Date.UTC(2026, 10, 24, 12, 0, 20) / 1000;
    const { client, delays } = await setup(
      failThenSucceed([status(429, { "ratelimit-reset": String(reset) })]),
    );
    await client.put("/projects/1/badges/2", { body: { link_url: "https://x" } });
    expect(delays).toEqual([19_600]);
  });

  it.each([502, 503, 504])("retries a %i with exponential backoff and full jitter", async (code) => {
    const { client, delays, server } = await setup(
      failThenSucceed([status(code), status(code), status(code)]),
      {
        random: () => 0.5,
        backoffBaseMs: 100,
      },
    );
    expect(await client.delete("/projects/1/triggers/3")).toEqual({ ok: true });
    expect(server.seen).toHaveLength(4);
    expect(delays).toEqual([50, 100, 200]);
  });

  it("keeps full-jitter waits between 0 and the exponential ceiling", async () => {
    const { client, delays } = await setup(
      failThenSucceed([status(503), status(503), status(503), status(503)]),
      {
        backoffBaseMs: 1000,
        backoffCapMs: 5000,
        maxAttempts: 5,
      },
    );
    await client.get("/groups");
    const ceilings = [1000, 2000, 4000, 5000];
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThan(ceilings[i] ?? 0);
    });
  });

  it("retries a connection reset (socket destroyed by the server)", async () => {
    const { client, server } = await setup(failThenSucceed([reset, reset]));
    expect(await client.get("/projects/1/pipeline_schedules/4")).toEqual({ ok: true });
    expect(server.seen).toHaveLength(3);
    expect(client.metrics.snapshot().retries).toBe(2);
  });

  it("retries a request that timed out", async () => {
    const hang: Handler = () => {};
    const { client, server } = await setup(failThenSucceed([hang]), { timeoutMs: 200 });
    expect(await client.patch("/projects/1/error_tracking/settings", { body: { active: true } })).toEqual({
      ok: true,
    });
    expect(server.seen).toHaveLength(2);
  });

  it("gives up after maxAttempts with the last error, saying how many attempts were made", async () => {
    const { client, server } = await setup(status(503, {}, { message: "503 Service Unavailable" }), {
      maxAttempts: 3,
    });
    const error = await client.get("/groups").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(503);
    expect((error as ApiError).attempts).toBe(3);
    expect((error as ApiError).message).toMatch(/after 3 attempts/);
    expect(server.seen).toHaveLength(3);
  });

  it("gives up when the server asks for a wait longer than the retry wait budget", async () => {
    const { client, server, delays } = await setup(status(429, { "retry-after": "120" }, "Retry later\n"), {
      maxRetryWaitMs: 60_000,
    });
    const error = await client.get("/groups").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toMatch(/asked to wait 120 s, more than the 60 s left/);
    expect(server.seen).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("stops once the total wait budget is used up", async () => {
    const { client, delays, server } = await setup(status(429, { "retry-after": "25" }), {
      maxAttempts: 10,
      maxRetryWaitMs: 60_000,
    });
    const error = await client.get("/groups").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(delays).toEqual([25_000, 25_000]);
    expect(server.seen).toHaveLength(3);
  });

  it("really waits with the default sleep (small delay)", async () => {
    server = await startServer(failThenSucceed([status(503, { "retry-after": "0.05" })]));
    client = new ApiClient({ url: server.url, token: "tok-secret-1234" });
    expect(await client.get("/projects/1")).toEqual({ ok: true });
    expect(server.seen).toHaveLength(2);
  });

  it("reports a connection error that persists as a NetworkError", async () => {
    const { client, server } = await setup(reset, { maxAttempts: 2 });
    const error = await client.get("/groups").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).message).toMatch(
      /^GET \/groups -> connection (reset|closed) by the server/,
    );
    expect(server.seen).toHaveLength(2);
  });

  it("does not retry other errors", async () => {
    const { client, server } = await setup(status(500, {}, { message: "500 Internal Server Error" }));
    await expect(client.get("/groups")).rejects.toBeInstanceOf(ApiError);
    expect(server.seen).toHaveLength(1);
  });

  it("does not retry a refused connection and says how to fix the URL", async () => {
    const probe = await startServer(() => {});
    const url = probe.url;
    await probe.close();
    const rec = recordingSleep();
    client = new ApiClient({ url, token: "tok-secret-1234", sleep: rec.sleep });
    const error = await client.get("/groups").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe("ECONNREFUSED");
    expect((error as Error).message).toMatch(/--url \/ FORGEFORM_URL/);
    expect(rec.delays).toEqual([]);
  });
});

describe("POST is never retried blindly", () => {
  it("throws OutcomeUnknownError when the connection drops after the request was received", async () => {
    const { client, server } = await setup(reset);
    const error = await client
      .post("/projects/acme%2Fapi/pipeline_schedules", { body: { description: "nightly" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).method).toBe("POST");
    expect((error as OutcomeUnknownError).path).toBe("/projects/acme%2Fapi/pipeline_schedules");
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(NetworkError);
    expect(server.seen.filter((r) => r.method === "POST")).toHaveLength(1);
  });

  it("throws OutcomeUnknownError when a POST times out", async () => {
    const { client, server } = await setup(() => {}, { timeoutMs: 200 });
    await expect(client.post("/hooks", { body: { url: "https://x" } })).rejects.toBeInstanceOf(
      OutcomeUnknownError,
    );
    expect(server.seen).toHaveLength(1);
  });

  it.each([502, 504])("throws OutcomeUnknownError on a %i from a gateway", async (code) => {
    const { client, server } = await setup(status(code, {}, "<html><title>Bad Gateway</title></html>"));
    const error = await client.post("/groups", { body: { name: "a", path: "a" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutcomeUnknownError);
    expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ApiError);
    expect(((error as OutcomeUnknownError).cause as ApiError).status).toBe(code);
    expect(server.seen).toHaveLength(1);
  });

  it.each([429, 503])("retries a POST answered %i with Retry-After (it was not processed)", async (code) => {
    const { client, server, delays } = await setup(failThenSucceed([status(code, { "retry-after": "3" })]));
    expect(await client.post("/groups", { body: { name: "a", path: "a" } })).toEqual({ ok: true });
    expect(server.seen.filter((r) => r.method === "POST")).toHaveLength(2);
    expect(delays).toEqual([3000]);
  });

  for (const code of [429, 503]) {
    it(`does not retry a POST answered ${code} without Retry-After: its outcome is unknown, so the caller re-reads`, async () => {
      const { client, server } = await setup(status(code));
      const error = await client.post("/groups", { body: {} }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ApiError);
      expect(((error as OutcomeUnknownError).cause as ApiError).status).toBe(code);
      expect(server.seen).toHaveLength(1);
    });
  }
});
