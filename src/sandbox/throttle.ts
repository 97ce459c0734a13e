/**
 * The platform's API throttles (Rack::Attack; platform-behavior §2 "429 from Rack::Attack"), configured as on the
 * platform by application settings: `throttle_authenticated_api_*` counts the API requests of each user (the owner
 * of the token), `throttle_unauthenticated_api_*` those that carry no user's token, per client IP. `--rate-limit`
 * (`rateLimit`) turns both on at start; `PUT /application/settings` changes them at any time.
 *
 * Each throttle counts in fixed windows of `*_period_in_seconds`, aligned on the Unix epoch as Rack::Attack's
 * cache keys are (`floor(now / period)`, `now` in whole seconds). Every request counts, throttled ones included.
 * A request past `*_requests_per_period` in its window is not processed: it is answered 429, `Content-Type:
 * text/plain`, with `rate_limiting_response_text` (default `Retry later`) and a newline, and the headers GitLab
 * sends on throttled answers only: RateLimit-Name, -Limit (rounded up to a 60-second window), -Observed,
 * -Remaining, -Reset (unix seconds), -ResetTime (HTTP date) and Retry-After (`period - now % period`).
 */
import { Reply } from "./respond.js";
import { settingValue, updateSettings } from "./routes/application-settings.js";
import type { Store } from "./store.js";

export interface RateLimit {
  /** Requests allowed in one window. */
  requests: number;
  /** The window, in seconds. */
  periodSeconds: number;
}

export class RateLimitSpecError extends Error {
  override name = "RateLimitSpecError";
}

const UNITS: Record<string, number> = { s: 1, sec: 1, min: 60, h: 3600, hour: 3600 };

/** `600/min`, `7200/h`, `10/s` or `10/2s`: requests per period. */
export function parseRateLimit(spec: string): RateLimit {
  const m = /^(\d+)\s*\/\s*(\d*)\s*(s|sec|min|h|hour)$/.exec(spec.trim());
  const requests = Number(m?.[1]);
  const periodSeconds = (m?.[2] ? Number(m[2]) : 1) * (UNITS[m?.[3] ?? ""] ?? 0);
  if (!m || !(requests >= 1) || !(periodSeconds >= 1) || !Number.isSafeInteger(requests * periodSeconds)) {
    throw new RateLimitSpecError(
      `sandbox: rate limit "${spec}" must be requests per period, at least 1 of each: 600/min, 7200/h, 10/s or 10/2s`,
    );
  }
  return { requests, periodSeconds };
}

/** Turns on the authenticated (per user) and unauthenticated (per IP) API throttles with this limit. */
export function enableRateLimit(store: Store, limit: RateLimit, licensed: boolean): void {
  const values: Record<string, boolean | number> = {};
  for (const name of ["throttle_authenticated_api", "throttle_unauthenticated_api"]) {
    values[`${name}_enabled`] = true;
    values[`${name}_requests_per_period`] = limit.requests;
    values[`${name}_period_in_seconds`] = limit.periodSeconds;
  }
  updateSettings(store, values, licensed);
}

export class ApiThrottle {
  /** The current window's count per throttle and discriminator (user id or IP); an older window is replaced. */
  readonly #counts = new Map<string, { window: number; count: number }>();

  constructor(private readonly store: Store) {}

  /**
   * Counts one request; the 429 answer when it is over its throttle's limit, else undefined. `userOf` gives the
   * token owner's id (undefined without a user's token; asked only when a throttle is on), `ip` the client's address.
   */
  check(path: string, userOf: () => number | undefined, ip: string): Reply | undefined {
    if (!path.startsWith("/api/")) return undefined;
    const enabled = (name: string) => settingValue(this.store, `${name}_enabled`) === true;
    if (!enabled("throttle_authenticated_api") && !enabled("throttle_unauthenticated_api")) return undefined;
    const userId = userOf();
    const name = userId === undefined ? "throttle_unauthenticated_api" : "throttle_authenticated_api";
    if (!enabled(name)) return undefined;
    const limit = Number(settingValue(this.store, `${name}_requests_per_period`));
    const period = Number(settingValue(this.store, `${name}_period_in_seconds`));
    if (!(limit >= 1) || !(period >= 1)) return undefined;
    const now = Math.floor(this.store.now().getTime() / 1000);
    const window = Math.floor(now / period);
    const key = `${name}:${userId ?? ip}`;
    const entry = this.#counts.get(key);
    const count = entry?.window === window ? entry.count + 1 : 1;
    this.#counts.set(key, { window, count });
    if (count <= limit) return undefined;
    const retryAfter = period - (now % period);
    const reset = new Date((now + retryAfter) * 1000);
    const text = settingValue(this.store, "rate_limiting_response_text");
    return new Reply(
      429,
      `${typeof text === "string" && text.trim() !== "" ? text : "Retry later"}\n`,
      {
        "Content-Type": "text/plain",
        "RateLimit-Name": name,
        "RateLimit-Limit": String(Math.ceil((limit * 60) / period)),
        "RateLimit-Observed": String(count),
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": String(reset.getTime() / 1000),
        "RateLimit-ResetTime": reset.toUTCString(),
        "Retry-After": String(retryAfter),
      },
      "raw",
    );
  }
}
