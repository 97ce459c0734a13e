import { paramError, preconditionFailed } from "./errors.js";
import { coerceInteger } from "./params.js";
import { type ParamHash, toQuery } from "./request.js";

/** A response a handler returns. A handler may also return a plain value, which becomes 200 JSON. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
    /** `json`: serialise body as JSON; `raw`: body is a Buffer or string sent as is. */
    readonly kind: "json" | "raw" | "empty" = "json",
  ) {}
}

export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Reply {
  return new Reply(status, body, headers);
}

/** 201 with a body (the created resource). */
export function created(body: unknown = { message: "201 Created" }): Reply {
  return new Reply(201, body);
}

/** 202 with `{"message":"202 Accepted"}` unless another body is given. */
export function accepted(body: unknown = { message: "202 Accepted" }): Reply {
  return new Reply(202, body);
}

/** 204 with an empty body. */
export function noContent(): Reply {
  return new Reply(204, undefined, {}, "empty");
}

/** A non-JSON body (archives, raw text). */
export function raw(body: Buffer | string, contentType: string, headers: Record<string, string> = {}): Reply {
  return new Reply(200, body, { "Content-Type": contentType, ...headers }, "raw");
}

/** Datetime as the platform writes it: `YYYY-MM-DDThh:mm:ss.sssZ`. */
export function formatTime(d: Date | string | number): string {
  return new Date(d).toISOString();
}

/** Date as `YYYY-MM-DD`. */
export function formatDate(d: Date | string | number): string {
  return new Date(d).toISOString().slice(0, 10);
}

/**
 * The platform's JSON encoding (ActiveSupport): `<`, `>`, `&`, U+2028 and U+2029 are written as `\uXXXX`.
 */
export function encodeJson(body: unknown): string {
  return JSON.stringify(body).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

export interface PaginationSettings {
  /** Above this many rows X-Total, X-Total-Pages and rel="last" are omitted (platform default 10000). */
  countLimit: number;
}

export interface PageRequest {
  /** `http://host[:port]` from the Host header (or the configured override). */
  baseUrl: string;
  /** The request path (as received, percent-encoded), e.g. `/api/v4/groups/5/projects`. */
  path: string;
  /** Every request parameter (route parameters plus query), used to build Link URLs. */
  linkParams: ParamHash;
  /** The raw page/per_page values from the request. */
  page: unknown;
  perPage: unknown;
}

/**
 * Reads `page` and `per_page` as the platform does (§1.1). A page beyond 2^53 - 1 is 400 `page is invalid`: the
 * sandbox cannot count that far exactly (it would answer `X-Page: 1e+23`), and the platform's database cannot skip
 * that many rows either (its offset overflows).
 */
export function pageParams(page: unknown, perPage: unknown): { page: number; perPage: number } {
  let p = 1;
  let pp = 20;
  if (page !== undefined && page !== "") {
    const n = coerceInteger(page);
    if (n === undefined || n > Number.MAX_SAFE_INTEGER) throw paramError("page is invalid");
    p = n <= 0 ? 1 : n;
  }
  if (perPage !== undefined && perPage !== "") {
    const n = coerceInteger(perPage);
    if (n === undefined) throw paramError("per_page is invalid");
    pp = n <= 0 ? 20 : Math.min(n, 100);
  }
  return { page: p, perPage: pp };
}

/** Offset pagination of a full list, with the platform's headers (§1.1). */
export function paginate<T>(
  items: readonly T[],
  req: PageRequest,
  settings: PaginationSettings,
  map: (item: T) => unknown = (x) => x,
): Reply {
  const { page, perPage } = pageParams(req.page, req.perPage);
  const total = items.length;
  const countsSkipped = total > settings.countLimit;
  const totalPages = Math.ceil(total / perPage);
  const slice = items.slice((page - 1) * perPage, page * perPage);
  const hasMore = total > page * perPage;
  const outOfRange = countsSkipped ? slice.length === 0 && page > 1 : page > totalPages;
  const next = !outOfRange && hasMore ? page + 1 : undefined;
  const prev = !outOfRange && page > 1 ? page - 1 : undefined;
  const link = (n: number) => {
    const params: ParamHash = { ...req.linkParams, page: String(n), per_page: String(perPage) };
    return `<${req.baseUrl}${req.path}?${toQuery(params)}>`;
  };
  const links: string[] = [];
  if (prev !== undefined) links.push(`${link(prev)}; rel="prev"`);
  if (next !== undefined) links.push(`${link(next)}; rel="next"`);
  links.push(`${link(1)}; rel="first"`);
  if (!countsSkipped) links.push(`${link(Math.max(totalPages, 1))}; rel="last"`);
  const headers: Record<string, string> = {
    Link: links.join(", "),
    "X-Next-Page": next === undefined ? "" : String(next),
    "X-Page": String(page),
    "X-Per-Page": String(perPage),
    "X-Prev-Page": prev === undefined ? "" : String(prev),
  };
  if (!countsSkipped) {
    headers["X-Total"] = String(total);
    headers["X-Total-Pages"] = String(Math.max(totalPages, 1));
  }
  return new Reply(200, slice.map(map), headers);
}

/**
 * `destroy_conditionally!`: a DELETE carrying `If-Unmodified-Since` older than the record's `updated_at` (compared
 * in whole seconds) is 412 `{"message":"412 Precondition Failed"}`. Call it before deleting.
 */
export function checkUnmodifiedSince(header: string | undefined, updatedAt: string): void {
  if (!header) return;
  const since = Date.parse(header);
  if (Number.isNaN(since)) return;
  if (Math.floor(Date.parse(updatedAt) / 1000) > Math.floor(since / 1000)) throw preconditionFailed();
}
