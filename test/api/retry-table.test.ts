/**
 * The client's decision on a failed attempt, as one table: every method × every retryable status (and some that
 * are not) × with and without `Retry-After` / `RateLimit-Reset`, and the connection failures. For each: what the
 * caller gets (the answer after a retry, `OutcomeUnknownError` so that it re-reads before creating again, or the
 * error itself), how many times the server saw the request, and how long the client waited before sending again.
 *
 * The rules, as a user relies on them:
 * - GET, HEAD, PUT, PATCH and DELETE are idempotent: 429, 502, 503 and 504 are retried, waiting what the server
 *   asked (Retry-After, else RateLimit-Reset), else a backoff; a dropped connection or a timeout too.
 * - A POST creates: sent twice it may create twice. It is sent again only when the server said it did not process
 *   it and when to come back (429 or 503 with Retry-After or RateLimit-Reset). A 502 or 504 (a gateway gave up; the
 *   backend may have acted), a 429 or 503 without a time, a dropped connection and a timeout leave its outcome
 *   unknown: OutcomeUnknownError, never a second POST.
 * - Any other status is the answer: no retry, whatever the method and the headers.
 * - A refused connection is not retried (nothing listens: the URL is wrong or the platform is down).
 *
 * The clock is fake (only `Date`) and the client's sleep records each wait and moves it on, so the waits are exact
 * and nothing really waits.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiClient, ApiError, NetworkError, OutcomeUnknownError } from "../../src/api/index.js";
import { type Handler, json, startServer, type TestServer } from "./server.js";

const METHODS = ["GET", "HEAD", "PUT", "PATCH", "DELETE", "POST"] as const;
type Method = (typeof METHODS)[number];
const RETRYABLE = [429, 502, 503, 504];
const NOT_RETRYABLE = [400, 401, 403, 404, 409, 422, 500];
/** Epoch ms of the fake clock: a whole second, so RateLimit-Reset (whole seconds) gives an exact wait. */
const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

const TIMINGS = {
  none: {},
  "Retry-After: 3": { "retry-after": "3" },
  "RateLimit-Reset: now + 7 s": { "ratelimit-reset": String(NOW / 1000 + 7) },
} as const;
type Timing = keyof typeof TIMINGS;
/** The wait each timing asks for; a backoff otherwise (random 0.5 of the first ceiling, 500 ms). */
const ASKED: Record<Timing, number> = {
  none: 250,
  "Retry-After: 3": 3000,
  "RateLimit-Reset: now + 7 s": 7000,
};

type Outcome = "retried" | "outcome unknown" | "answered";

/** What the client must do with `status` answered to `method` with `timing`. */
function expected(method: Method, status: number, timing: Timing): Outcome {
  if (!RETRYABLE.includes(status)) return "answered";
  if (method !== "POST") return "retried";
  const saysWhen = timing !== "none";
  return (status === 429 || status === 503) && saysWhen ? "retried" : "outcome unknown";
}

let server: TestServer;
/** The first answer of the current case; every later attempt succeeds. */
let first: Handler;
let attempts = 0;
beforeAll(async () => {
  server = await startServer((req, res, raw) => {
    attempts += 1;
    if (attempts === 1) return first(req, res, raw);
    json(res, req.method === "POST" ? 201 : 200, { ok: true });
  });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(NOW);
  attempts = 0;
});
afterEach(() => {
  vi.useRealTimers();
});

/** Sends one request through a new client; what it got, the attempts the server saw and the waits in between. */
async function send(method: Method, handler: Handler, extra: { url?: string; timeoutMs?: number } = {}) {
  first = handler;
  const waits: number[] = [];
  const client = new ApiClient({
    url: extra.url ?? server.url,
    token: "tok-table-1234",
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
      vi.setSystemTime(Date.now() + ms);
    },
    ...(extra.timeoutMs === undefined ? {} : { timeoutMs: extra.timeoutMs }),
  });
  try {
    const result = await client
      .request(
        method,
        "/projects/acme%2Fapi/hooks",
        method === "GET" || method === "HEAD" ? {} : { body: {} },
      )
      .then(
        (r) => ({ ok: r.status }),
        (error: unknown) => ({ error }),
      );
    return { result, attempts, waits };
  } finally {
    await client.close();
  }
}

describe("statuses", () => {
  const cases = METHODS.flatMap((method) =>
    [...RETRYABLE, ...NOT_RETRYABLE].flatMap((status) =>
      (Object.keys(TIMINGS) as Timing[]).map((timing) => ({
        method,
        status,
        timing,
        outcome: expected(method, status, timing),
      })),
    ),
  );

  it.each(cases)(
    "$method answered $status, $timing: $outcome",
    async ({ method, status, timing, outcome }) => {
      const { result, attempts, waits } = await send(method, (_req, res) =>
        json(res, status, { message: `${status}` }, TIMINGS[timing]),
      );
      if (outcome === "retried") {
        expect(result).toEqual({ ok: method === "POST" ? 201 : 200 });
        expect(attempts).toBe(2);
        expect(waits).toEqual([ASKED[timing]]);
        return;
      }
      expect(attempts).toBe(1);
      expect(waits).toEqual([]);
      expect("error" in result).toBe(true);
      const error = (result as { error: unknown }).error;
      if (outcome === "outcome unknown") {
        expect(error).toBeInstanceOf(OutcomeUnknownError);
        expect((error as OutcomeUnknownError).cause).toBeInstanceOf(ApiError);
        expect(((error as OutcomeUnknownError).cause as ApiError).status).toBe(status);
      } else {
        expect(error).toBeInstanceOf(ApiError);
        expect((error as ApiError).status).toBe(status);
      }
    },
  );
});

describe("connection failures", () => {
  it.each(METHODS)("%s: a connection dropped after the request arrived", async (method) => {
    const { result, attempts, waits } = await send(method, (_req, _res, raw) => {
      raw.socket.destroy();
    });
    if (method === "POST") {
      expect((result as { error: unknown }).error).toBeInstanceOf(OutcomeUnknownError);
      expect(((result as { error: OutcomeUnknownError }).error.cause as NetworkError).name).toBe(
        "NetworkError",
      );
      expect(attempts).toBe(1);
      expect(waits).toEqual([]);
    } else {
      expect(result).toEqual({ ok: 200 });
      expect(attempts).toBe(2);
      expect(waits).toEqual([250]);
    }
  });

  it.each(METHODS)("%s: no answer within the request timeout", async (method) => {
    // The first attempt is never answered; the client's own timer (real, 100 ms) gives up on it.
    const { result, attempts, waits } = await send(method, () => {}, { timeoutMs: 100 });
    if (method === "POST") {
      const error = (result as { error: OutcomeUnknownError }).error;
      expect(error).toBeInstanceOf(OutcomeUnknownError);
      expect((error.cause as NetworkError).code).toBe("REQUEST_TIMEOUT");
      expect(attempts).toBe(1);
    } else {
      expect(result).toEqual({ ok: 200 });
      expect(attempts).toBe(2);
      expect(waits).toEqual([250]);
    }
  });

  it.each(METHODS)("%s: a refused connection is the answer, not retried", async (method) => {
    // A port nothing listens on: the server's, once it is closed.
    const closed = await startServer(() => {});
    const url = closed.url;
    await closed.close();
    const { result, waits } = await send(method, () => {}, { url });
    const error = (result as { error: NetworkError }).error;
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.code).toBe("ECONNREFUSED");
    expect(error.attempts).toBe(1);
    expect(waits).toEqual([]);
  });
});
