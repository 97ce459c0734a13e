/** When to retry, and how long to wait first. */

export const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"]);

/** Statuses worth retrying for idempotent requests: rate limited, or a gateway/server that is briefly away. */
export const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);

/**
 * Statuses after which a POST's outcome is unknown: a gateway gave up, but the backend may have acted (502, 504);
 * or the platform was briefly away or throttling (503, 429) without saying when to come back, which usually means
 * the request was not processed, but not always. The caller re-reads before sending it again.
 */
export const OUTCOME_UNKNOWN_STATUS = new Set([429, 502, 503, 504]);

/** The code of a request that got no complete answer within the per-request timeout (headers and whole body). */
export const REQUEST_TIMEOUT = "REQUEST_TIMEOUT";

/** Errors that mean the request was sent (or may have been) and the connection failed before an answer. */
const TRANSIENT_CODES = new Set([
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "UND_ERR_CONNECT_TIMEOUT",
  REQUEST_TIMEOUT,
]);

/** Errors that mean the request never left: nothing was processed, so even a POST may be retried. */
const NOT_SENT_CODES = new Set(["UND_ERR_CONNECT_TIMEOUT"]);

export interface ErrorInfo {
  code: string;
  /** A readable description, e.g. `connection reset by the server (ECONNRESET)`. */
  description: string;
  transient: boolean;
  /** True when the request certainly did not reach the server. */
  notSent: boolean;
}

function errorCode(error: unknown): string {
  if (error !== null && typeof error === "object") {
    const code = (error as { code?: unknown }).code;
    if (typeof code === "string") return code;
    const cause = (error as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== error) return errorCode(cause);
  }
  return "UNKNOWN";
}

const DESCRIPTIONS: Record<string, string> = {
  ECONNRESET: "connection reset by the server",
  EPIPE: "connection closed while sending",
  UND_ERR_SOCKET: "connection closed by the server",
  UND_ERR_CLOSED: "the client was already closed",
  UND_ERR_DESTROYED: "the client was already closed",
  ETIMEDOUT: "connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "timed out while connecting",
  UND_ERR_HEADERS_TIMEOUT: "timed out waiting for the response",
  UND_ERR_BODY_TIMEOUT: "timed out reading the response body",
  ECONNREFUSED: "connection refused: is the URL right and the platform up? (--url / FORGEFORM_URL)",
  ENOTFOUND: "host not found: check the URL (--url / FORGEFORM_URL)",
  EAI_AGAIN: "host name lookup failed temporarily: check DNS and the URL (--url / FORGEFORM_URL)",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    "the server's TLS certificate is not trusted: pass the private CA with --ca-file <pem>",
  SELF_SIGNED_CERT_IN_CHAIN:
    "the server's TLS certificate is not trusted: pass the private CA with --ca-file <pem>",
  DEPTH_ZERO_SELF_SIGNED_CERT:
    "the server's TLS certificate is self-signed: pass it (or its CA) with --ca-file <pem>",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    "the server's TLS certificate is not trusted: pass the private CA with --ca-file <pem>",
  CERT_HAS_EXPIRED: "the server's TLS certificate has expired",
  ERR_TLS_CERT_ALTNAME_INVALID: "the server's TLS certificate does not match the host name in the URL",
};

export function classifyError(error: unknown): ErrorInfo {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  const closed = /other side closed|socket hang up/i.test(message);
  const transient = TRANSIENT_CODES.has(code) || closed;
  const known = DESCRIPTIONS[code];
  const description = known
    ? `${known} (${code})`
    : closed
      ? `connection closed by the server (${code})`
      : message;
  return { code, description, transient, notSent: NOT_SENT_CODES.has(code) };
}

/**
 * The wait the server asked for, in ms: `Retry-After` as delta seconds or an HTTP date, else `RateLimit-Reset` as
 * unix seconds. Undefined when neither header is usable.
 */
export function serverDelayMs(headers: Record<string, string>, now: number): number | undefined {
  const retryAfter = headers["retry-after"]?.trim();
  if (retryAfter) {
    if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
    const date = Date.parse(retryAfter);
    if (!Number.isNaN(date)) return Math.max(0, date - now);
  }
  const reset = headers["ratelimit-reset"]?.trim();
  if (reset && /^\d+$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now);
  return undefined;
}

export interface BackoffOptions {
  baseMs: number;
  capMs: number;
  random: () => number;
}

/** Exponential backoff with full jitter: a random wait between 0 and min(cap, base * 2^(retry-1)). */
export function backoffMs(retry: number, opts: BackoffOptions): number {
  const ceiling = Math.min(opts.capMs, opts.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(opts.random() * ceiling);
}
