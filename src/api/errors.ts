import { STATUS_CODES } from "node:http";

/** The longest platform text quoted in an error message; the full body stays on `ApiError.body`. */
const MAX_MESSAGE = 500;

function clip(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_MESSAGE ? `${flat.slice(0, MAX_MESSAGE - 1)}…` : flat;
}

function phrase(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (Array.isArray(value)) return value.map(phrase).filter(Boolean).join(", ");
  if (value !== null && typeof value === "object") return renderFields(value as Record<string, unknown>);
  return value === undefined || value === null ? "" : String(value);
}

/** `{"name": ["can't be blank"], "path": ["has already been taken"]}` -> `name: can't be blank; path: ...`. */
function renderFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .map(([field, messages]) => {
      const text = phrase(messages);
      // Rails puts record-wide errors under `base`; app-level limiters wrap their text under `error`.
      return field === "base" || field === "error" ? text : `${field}: ${text}`;
    })
    .filter(Boolean)
    .join("; ");
}

function fromHtml(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1];
  if (title?.trim()) return title;
  return text.replace(/<[^>]*>/g, " ");
}

/**
 * A readable string from any of the platform's error bodies:
 * `{"message": "..."}`, `{"message": {field: [...]}}`, `{"message": ["..."]}`, `{"error": "...",
 * "error_description": "..."}`, SCIM `{"detail": "...", "status": 412}`, or plain text (Rack::Attack's `Retry later`).
 */
export function platformMessageOf(body: unknown, status: number): string {
  const fallback = STATUS_CODES[status] ?? `HTTP ${status}`;
  if (body === null || body === undefined) return fallback;
  if (typeof body === "string") {
    const text = clip(/^\s*</.test(body) ? fromHtml(body) : body);
    return text || fallback;
  }
  if (typeof body !== "object" || Array.isArray(body)) return clip(JSON.stringify(body)) || fallback;
  const record = body as Record<string, unknown>;
  if (record["message"] !== undefined && record["message"] !== null) {
    const text = phrase(record["message"]);
    if (text) return clip(text);
  }
  if (typeof record["error"] === "string") {
    const description = record["error_description"];
    return clip(
      typeof description === "string" && description ? `${record["error"]}: ${description}` : record["error"],
    );
  }
  if (typeof record["detail"] === "string") return clip(record["detail"]);
  if (record["error"] !== undefined) return clip(phrase(record["error"])) || fallback;
  return clip(JSON.stringify(body)) || fallback;
}

/** What to do about a 401/403/404; undefined for other statuses. */
export function hintFor(status: number, scim: boolean): string | undefined {
  switch (status) {
    case 401:
      return scim
        ? "the SCIM token was rejected: check FORGEFORM_SCIM_TOKEN (it may be expired or revoked)"
        : "the token was rejected: check FORGEFORM_TOKEN / --token (it may be expired or revoked)";
    case 403:
      return "the token's user is not allowed to do this (administrator or higher role needed?)";
    case 404:
      return "not found, or not visible to this token's user";
    default:
      return undefined;
  }
}

/** Where a 3xx points, and why forgeform does not go there; undefined for other statuses. */
function redirectHint(status: number, headers: Record<string, string>): string | undefined {
  if (status < 300 || status >= 400) return undefined;
  const location = headers["location"];
  const where = location ? `redirected to ${clip(location)}` : "answered with a redirect without a Location";
  return (
    `${where}; forgeform does not follow redirects (the token would go along): point --url / FORGEFORM_URL ` +
    "at the address the platform answers on itself (https://, the right host, no sign-in page in between)"
  );
}

export interface ApiErrorInit {
  status: number;
  method: string;
  /** The request path relative to the API base, query left out, already redacted. */
  path: string;
  body: unknown;
  headers?: Record<string, string>;
  scim?: boolean;
  /** How many attempts were made (more than 1 when retries were exhausted). */
  attempts?: number;
  /** Why retrying stopped early, e.g. the server asked to wait longer than the retry budget. */
  gaveUp?: string;
}

/** The platform answered with a non-2xx status. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly status: number;
  readonly statusText: string;
  readonly method: string;
  readonly path: string;
  /** The platform's own words, parsed from whichever envelope it used. */
  readonly platformMessage: string;
  /** For 401, 403 and 404: what that status usually means for the user, and where to look. */
  readonly hint: string | undefined;
  /** The parsed response body (JSON value or text), secrets redacted. */
  readonly body: unknown;
  readonly headers: Record<string, string>;
  readonly attempts: number;

  constructor(init: ApiErrorInit) {
    const statusText = STATUS_CODES[init.status] ?? "";
    const platformMessage = platformMessageOf(init.body, init.status);
    const hint = hintFor(init.status, init.scim ?? false) ?? redirectHint(init.status, init.headers ?? {});
    const detail = hint ? `${hint} (platform said: ${platformMessage})` : platformMessage;
    let message = `${init.method} ${init.path} -> ${init.status}${statusText ? ` ${statusText}` : ""}: ${detail}`;
    if ((init.attempts ?? 1) > 1) message += ` (after ${init.attempts} attempts)`;
    if (init.gaveUp) message += ` (${init.gaveUp})`;
    super(message);
    this.status = init.status;
    this.statusText = statusText;
    this.method = init.method;
    this.path = init.path;
    this.platformMessage = platformMessage;
    this.hint = hint;
    this.body = init.body;
    this.headers = init.headers ?? {};
    this.attempts = init.attempts ?? 1;
  }
}

/**
 * A non-idempotent request (POST) may or may not have taken effect: the connection dropped or timed out after the
 * request was sent, or a gateway answered 502/504. It was not retried; re-read the platform's state before deciding.
 */
/** When a spent rate limit resets, and what to do about it, for a message. */
export function rateLimitAdvice(untilMs: number, limitPerMinute?: number): string {
  const at = new Date(untilMs)
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace("T", " ");
  const limit =
    limitPerMinute === undefined
      ? ""
      : ` (it announces ${limitPerMinute} ${limitPerMinute === 1 ? "request" : "requests"} a minute for this user)`;
  return (
    `the platform's rate limit is used up until ${at}${limit}: run again after that, or keep the run under the ` +
    "limit with --max-rate"
  );
}

/** A request not sent because the platform's rate limit is used up for longer than forgeform waits. */
export class RateLimitSpentError extends Error {
  override readonly name = "RateLimitSpentError";
  readonly method: string;
  readonly path: string;

  constructor(method: string, path: string, untilMs: number, limitPerMinute?: number) {
    super(`${method} ${path}: not sent: ${rateLimitAdvice(untilMs, limitPerMinute)}`);
    this.method = method;
    this.path = path;
  }
}

export class OutcomeUnknownError extends Error {
  override readonly name = "OutcomeUnknownError";
  readonly method: string;
  readonly path: string;
  override readonly cause: Error;

  constructor(method: string, path: string, cause: Error) {
    super(
      `${method} ${path}: outcome unknown (${cause.message}); the request may or may not have taken effect, ` +
        "so it was not retried: re-read the current state before trying again",
    );
    this.method = method;
    this.path = path;
    this.cause = cause;
  }
}

/** The request never got an HTTP answer: connection refused, reset, TLS failure, or timeout. */
export class NetworkError extends Error {
  override readonly name = "NetworkError";
  readonly method: string;
  readonly path: string;
  /** The system or undici error code, e.g. `ECONNRESET`, `UND_ERR_HEADERS_TIMEOUT`. */
  readonly code: string;
  readonly attempts: number;

  constructor(
    method: string,
    path: string,
    code: string,
    description: string,
    attempts = 1,
    gaveUp?: string,
  ) {
    let message = `${method} ${path} -> ${description}`;
    if (attempts > 1) message += ` (after ${attempts} attempts)`;
    if (gaveUp) message += ` (${gaveUp})`;
    super(message);
    this.method = method;
    this.path = path;
    this.code = code;
    this.attempts = attempts;
  }
}

/**
 * The platform answered, but with something forgeform cannot use: a body over the size limit, text that is not
 * JSON (an HTML sign-in page with status 200), items of the wrong shape, or a list that never ends. Not retried:
 * asking again would get the same answer.
 */
export class ResponseError extends Error {
  override readonly name = "ResponseError";
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** What was wrong with the answer. */
  readonly problem: string;

  constructor(method: string, path: string, status: number, problem: string) {
    const statusText = STATUS_CODES[status] ?? "";
    super(`${method} ${path} -> ${status}${statusText ? ` ${statusText}` : ""}: ${problem}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.problem = problem;
  }
}

/** The client was configured in a way that cannot work or is unsafe (bad URL, plain http to a remote host...). */
export class ClientConfigError extends Error {
  override readonly name = "ClientConfigError";
}
