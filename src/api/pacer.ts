/**
 * Pacing shared by every request of a client (one run), so that a rate-limited platform is met by spacing requests
 * rather than by retrying them.
 *
 * - `--max-rate N/min` (maxPerMinute) spaces requests 60/N seconds apart from the start.
 * - A 429 pauses every new request until the platform's window resets (Retry-After, else RateLimit-Reset; at most
 *   the retry wait budget), and slows down to 95% of the limit the platform announces (RateLimit-Limit, requests
 *   a minute). A 429 while already paced at or below that (another client spending the same user's budget, or a
 *   platform that announces no limit) slows down by a tenth. 429s answering requests sent before the pause began
 *   belong to the same burst and change nothing more. Older platforms send only Retry-After: unpaced, each of
 *   their fixed windows is then spent at full speed and the requests still in flight when it runs out get 429.
 * - Each request that gets through raises the rate again by 0.1 request a minute (about 10% a minute), up to the
 *   announced limit or --max-rate, whichever is lower.
 *
 * Until a 429 or --max-rate there is no pacing at all: requests start at once, as many as the concurrency allows.
 *
 * A 429 whose window ends later than the pause allows (an hourly limit used up) means the limit is spent: no
 * request is sent until then (`spent()`), so the run stops at once with one clear error instead of crawling.
 */
import { serverDelayMs } from "./retry.js";

/** Share of the limit paced at after a 429: the windows' edges and other clients leave some room. */
const MARGIN = 0.95;
/** Slow-down when throttled at or below the target already. */
const BACKOFF = 0.9;
/** Requests a minute added to the rate per request that gets through. */
const SPEEDUP = 0.1;
/** The slowest pace, requests a minute. */
const MIN_RATE = 1;

export interface PacerOptions {
  /** `--max-rate`: never more than this many requests a minute. */
  maxPerMinute?: number;
  /** The longest pause one 429 imposes (the client's retry wait budget). */
  maxPauseMs: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  debug?: (line: string) => void;
}

/** The platform's rate limit is used up until `untilMs` (epoch ms), longer than forgeform waits. */
export interface Spent {
  untilMs: number;
  /** The limit the platform announced (RateLimit-Limit, requests a minute), when it did. */
  limitPerMinute?: number;
}

/** A request's turn: its place in the order of sending, and how long it was held back. */
export interface Turn {
  /** Increases with every request let through (a 429 tells which burst it belongs to). */
  ticket: number;
  /** How long this request waited, ms. */
  waitedMs: number;
  /** How much the run's time held back by pacing grew while it waited, ms (waits that overlap count once). */
  heldMs: number;
}

function perMinute(rate: number): string {
  return `${rate >= 10 ? Math.round(rate) : rate.toFixed(1)}/min`;
}

export class Pacer {
  readonly #opts: PacerOptions;
  /** Requests a minute allowed now; Infinity: not paced. */
  #rate: number;
  /** The rate never goes above this: --max-rate, or the limit the platform announced if lower. */
  #ceiling: number;
  /** When the next request may start, while paced. */
  #next = 0;
  #pausedUntil = 0;
  /** Counts pauses, so a request that slept through a slot learns that a pause began meanwhile. */
  #pauses = 0;
  /** Tickets handed out; the last one handed out before the latest slow-down (a 429 up to it: same burst). */
  #tickets = 0;
  #episode = 0;
  /** Until when some request is being held back (to add up overlapping waits once). */
  #heldUntil = 0;
  #spent: Spent | undefined;

  constructor(opts: PacerOptions) {
    this.#opts = opts;
    this.#ceiling = opts.maxPerMinute ?? Number.POSITIVE_INFINITY;
    this.#rate = this.#ceiling;
  }

  /** Requests a minute allowed now (Infinity when not paced). */
  get rate(): number {
    return this.#rate;
  }

  /**
   * Waits until a request may start. `waitedOut`: the end of a pause the request already waited for itself (its
   * own retry after a 429), not waited for twice.
   */
  async acquire(waitedOut = 0): Promise<Turn> {
    let waitedMs = 0;
    let heldMs = 0;
    for (;;) {
      // A spent limit: the caller sends nothing (it checks spent()), so there is no turn to wait for.
      if (this.spent()) return { ticket: this.#tickets, waitedMs, heldMs };
      const pauses = this.#pauses;
      const now = this.#opts.now();
      let start = this.#pausedUntil > waitedOut ? Math.max(now, this.#pausedUntil) : now;
      if (Number.isFinite(this.#rate)) {
        start = Math.max(start, this.#next);
        this.#next = start + 60_000 / this.#rate;
      }
      if (start <= now) return { ticket: ++this.#tickets, waitedMs, heldMs };
      heldMs += Math.max(0, start - Math.max(now, this.#heldUntil));
      this.#heldUntil = Math.max(this.#heldUntil, start);
      await this.#opts.sleep(start - now);
      waitedMs += start - now;
      // A pause that began while this request waited for its turn: wait for it too.
      if (this.#pauses === pauses) return { ticket: ++this.#tickets, waitedMs, heldMs };
    }
  }

  /** Whether the limit is used up for longer than forgeform waits: then no request is sent until it resets. */
  spent(): Spent | undefined {
    if (this.#spent && this.#spent.untilMs <= this.#opts.now()) this.#spent = undefined;
    return this.#spent;
  }

  /** A request got an answer other than 429. */
  passed(): void {
    if (this.#rate < this.#ceiling) this.#rate = Math.min(this.#ceiling, this.#rate + SPEEDUP);
  }

  /**
   * The request of this ticket was answered 429 with these headers: pause and slow down. Returns when the pause
   * ends (the request itself waits until then before it is sent again).
   */
  throttled(headers: Record<string, string>, ticket: number): number {
    const now = this.#opts.now();
    const asked = serverDelayMs(headers, now) ?? 0;
    const announced = Number(headers["ratelimit-limit"]);
    if (asked > this.#opts.maxPauseMs) {
      this.#spent = {
        untilMs: now + asked,
        ...(Number.isFinite(announced) && announced >= 1 ? { limitPerMinute: announced } : {}),
      };
    }
    const wait = Math.min(asked, this.#opts.maxPauseMs);
    const until = now + wait;
    if (until > this.#pausedUntil) {
      this.#pausedUntil = until;
      this.#pauses += 1;
    }
    // Requests let through before the first 429 of a burst came back: the same burst.
    if (ticket <= this.#episode) return this.#pausedUntil;
    this.#episode = this.#tickets;
    let target: number | undefined;
    if (Number.isFinite(announced) && announced >= 1) {
      this.#ceiling = Math.min(this.#opts.maxPerMinute ?? announced, announced);
      target = announced * MARGIN;
    }
    if (target !== undefined && this.#rate > target) this.#rate = target;
    else if (Number.isFinite(this.#rate)) this.#rate = Math.max(MIN_RATE, this.#rate * BACKOFF);
    const name = headers["ratelimit-name"];
    const what = this.#spent
      ? `the limit is used up for ${(asked / 1000).toFixed(0)} s: sending nothing more`
      : `${wait > 0 ? `pausing new requests for ${(wait / 1000).toFixed(1)} s, then ` : ""}` +
        `${Number.isFinite(this.#rate) ? `at most ${perMinute(this.#rate)}` : "at full speed"}`;
    this.#opts.debug?.(
      `  rate limited (429${name ? ` ${name}` : ""}${target === undefined ? "" : `, limit ${perMinute(announced)}`}): ${what}`,
    );
    return this.#pausedUntil;
  }
}
