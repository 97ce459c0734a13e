import { readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import pLimit, { type LimitFunction } from "p-limit";
import { Pool } from "undici";
import { encodeJson, encodeParams, type QueryValue } from "./encode.js";
import { ApiError, ClientConfigError, NetworkError, OutcomeUnknownError } from "./errors.js";
import { RequestMetrics } from "./metrics.js";
import { type NextPage, PER_PAGE, pageInfo } from "./pagination.js";
import { endpointTemplate } from "./path.js";
import { Redactor } from "./redact.js";
import {
  backoffMs,
  classifyError,
  IDEMPOTENT_METHODS,
  OUTCOME_UNKNOWN_STATUS,
  RETRYABLE_STATUS,
  serverDelayMs,
} from "./retry.js";

export type { QueryValue } from "./encode.js";

export interface ClientOptions {
  /** The platform's base URL, e.g. `https://gitlab.example.com` (a trailing `/api/v4` is accepted and dropped). */
  url: string;
  /** Access token, sent as `PRIVATE-TOKEN`. Never logged. */
  token?: string;
  /** SCIM token, sent as `Authorization: Bearer` on SCIM requests. Never logged. */
  scimToken?: string;
  /** Requests in flight at once, across everything this client does (default 8). */
  concurrency?: number;
  /** Per-request timeout for the response headers and between body chunks, in ms (default 30000). */
  timeoutMs?: number;
  /** Attempts per request, the first included (default 5). */
  maxAttempts?: number;
  /** Total time one request may spend waiting between retries, in ms (default 60000). */
  maxRetryWaitMs?: number;
  /** PEM file with the CA that signed the platform's certificate. */
  caFile?: string;
  /** Allow plain `http://` to a host that is not loopback (the token then travels unencrypted). */
  insecureHttp?: boolean;
  userAgent?: string;
  /** Receives one line per request/response, tokens redacted. */
  debug?: (line: string) => void;
  /** How to wait before a retry (injectable so tests need not wait). */
  sleep?: (ms: number) => Promise<void>;
  /** Random source for backoff jitter, in [0, 1) (default Math.random). */
  random?: () => number;
  /** First backoff ceiling in ms, doubled each retry (default 500). */
  backoffBaseMs?: number;
  /** Largest backoff ceiling in ms (default 20000). */
  backoffCapMs?: number;
}

export interface RequestOptions {
  /** Query parameters; arrays as `k[]=v`. */
  query?: Record<string, QueryValue>;
  /** JSON body (`Secret` values are revealed into it). */
  body?: unknown;
  /** URL-encoded form body; arrays as `k[]=v`. */
  form?: Record<string, QueryValue>;
  /** multipart/form-data body (file uploads). */
  multipart?: FormData;
  /** Send to the SCIM base (`/api/scim/v2`) with the SCIM token instead of the REST base. */
  scim?: boolean;
  headers?: Record<string, string>;
  /** Answer a successful response's body as bytes (an export archive) rather than parsed JSON or text. */
  binary?: boolean;
}

export interface ApiResponse<T> {
  status: number;
  /** Response headers, names lower-cased, repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON, the text for non-JSON responses, or null for an empty body (204). */
  body: T;
}

const DEFAULTS = {
  concurrency: 8,
  timeoutMs: 30_000,
  maxAttempts: 5,
  maxRetryWaitMs: 60_000,
  backoffBaseMs: 500,
  backoffCapMs: 20_000,
};

/** A request ready to send (and to send again). */
interface Prepared {
  method: string;
  /** Path relative to the API base, without query, redacted: what errors show. */
  shownPath: string;
  /** Full request path on the origin, query included. */
  wirePath: string;
  template: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  scim: boolean;
  binary: boolean;
  redactor: Redactor;
}

type Attempt =
  | { kind: "response"; status: number; headers: Record<string, string>; body: unknown }
  | { kind: "error"; error: unknown };

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < min) {
    throw new ClientConfigError(`${name} must be a number of at least ${min}, got ${value}`);
  }
  return value;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

function parseBaseUrl(raw: string, insecureHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ClientConfigError(
      `the platform URL "${raw}" is not a valid URL: use the form https://gitlab.example.com (--url / FORGEFORM_URL)`,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ClientConfigError(
      `the platform URL must start with https:// (got ${url.protocol}//): fix --url / FORGEFORM_URL`,
    );
  }
  if (url.username || url.password) {
    throw new ClientConfigError(
      "the platform URL must not contain a user name or password: remove them from --url / FORGEFORM_URL " +
        "and pass the token with FORGEFORM_TOKEN or --token-file",
    );
  }
  if (url.protocol === "http:" && !insecureHttp && !isLoopback(url.hostname)) {
    throw new ClientConfigError(
      `refusing plain http:// to ${url.hostname}: the token would cross the network unencrypted. ` +
        "Use https://, or pass --insecure-http (insecureHttp: true) if you accept that risk.",
    );
  }
  return url;
}

function normaliseHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseBody(text: string, contentType: string): unknown {
  if (text === "") return null;
  const looksJson = /^\s*[[{"]/.test(text) || /^\s*(true|false|null|-?\d)/.test(text);
  if (/json/i.test(contentType) || (!/html/i.test(contentType) && looksJson)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

/**
 * The platform client: authentication, encoding, pagination, bounded concurrency over kept-alive connections,
 * retries with backoff, typed errors, metrics. Every request goes through one limiter.
 */
export class ApiClient {
  readonly metrics = new RequestMetrics();
  readonly #pool: Pool;
  readonly #limit: LimitFunction;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #token: string | undefined;
  readonly #scimToken: string | undefined;
  readonly #redactor: Redactor;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #maxRetryWaitMs: number;
  readonly #backoff: { baseMs: number; capMs: number; random: () => number };
  readonly #userAgent: string;
  readonly #debug: ((line: string) => void) | undefined;
  readonly #sleep: (ms: number) => Promise<void>;
  #closed = false;

  constructor(opts: ClientOptions) {
    const url = parseBaseUrl(opts.url, opts.insecureHttp ?? false);
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, "").replace(/\/api\/v4$/, "");
    this.#token = opts.token;
    this.#scimToken = opts.scimToken;
    this.#redactor = new Redactor([opts.token, opts.scimToken]);
    const concurrency = Math.floor(positive("concurrency", opts.concurrency, DEFAULTS.concurrency));
    this.#timeoutMs = positive("timeoutMs", opts.timeoutMs, DEFAULTS.timeoutMs);
    this.#maxAttempts = Math.floor(positive("maxAttempts", opts.maxAttempts, DEFAULTS.maxAttempts));
    this.#maxRetryWaitMs = positive("maxRetryWaitMs", opts.maxRetryWaitMs, DEFAULTS.maxRetryWaitMs, 0);
    this.#backoff = {
      baseMs: positive("backoffBaseMs", opts.backoffBaseMs, DEFAULTS.backoffBaseMs, 0),
      capMs: positive("backoffCapMs", opts.backoffCapMs, DEFAULTS.backoffCapMs, 0),
      random: opts.random ?? Math.random,
    };
    this.#userAgent = opts.userAgent ?? "forgeform";
    this.#debug = opts.debug;
    this.#sleep = opts.sleep ?? ((ms) => delay(ms));
    let ca: string | undefined;
    if (opts.caFile !== undefined) {
      try {
        ca = readFileSync(opts.caFile, "utf8");
      } catch (error) {
        const code = (error as { code?: string }).code ?? String(error);
        throw new ClientConfigError(`cannot read the CA file ${opts.caFile} (${code}): check --ca-file`);
      }
    }
    this.#limit = pLimit(concurrency);
    this.#pool = new Pool(this.#origin, {
      connections: concurrency,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: { timeout: this.#timeoutMs, ...(ca === undefined ? {} : { ca }) },
    });
  }

  /** Attempts per request, the first included: also how many rounds a caller gives a create it re-reads. */
  get maxAttempts(): number {
    return this.#maxAttempts;
  }

  /** Waits as before the given retry (exponential backoff with jitter), for callers that retry whole operations. */
  async pause(retry: number): Promise<void> {
    const wait = Math.min(backoffMs(retry, this.#backoff), this.#maxRetryWaitMs);
    if (wait > 0) await this.#sleep(wait);
  }

  /** Sends one request (retrying where safe) and returns status, headers and parsed body; throws on non-2xx. */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse<T>> {
    const prepared = this.#prepare(method.toUpperCase(), path, opts);
    if (opts.multipart !== undefined) {
      // Serialise once, so a retry sends the same bytes and any FormData implementation works.
      const encoded = await encodeMultipart(opts.multipart);
      prepared.body = encoded.body;
      prepared.headers["content-type"] = encoded.contentType;
    }
    const response = await this.#send(prepared);
    return response as ApiResponse<T>;
  }

  async get<T>(path: string, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>("GET", path, opts)).body;
  }

  async post<T>(path: string, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>("POST", path, opts)).body;
  }

  async put<T>(path: string, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>("PUT", path, opts)).body;
  }

  async patch<T>(path: string, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>("PATCH", path, opts)).body;
  }

  async delete<T>(path: string, opts?: RequestOptions): Promise<T> {
    return (await this.request<T>("DELETE", path, opts)).body;
  }

  /**
   * Every item of a list endpoint: `per_page=100`, following `X-Next-Page` / `Link rel="next"`. When page 1 tells
   * `X-Total-Pages`, the remaining pages are fetched concurrently. An endpoint without pagination headers returns
   * its array as it is. With `scim: true` it reads a SCIM ListResponse page by page (`startIndex`/`count`) and
   * returns the `Resources`.
   */
  async list<T>(path: string, opts: RequestOptions = {}): Promise<T[]> {
    if (opts.scim) return this.#listScim<T>(path, opts);
    const [bare, inline] = splitQuery(path);
    const query: Record<string, QueryValue> = { per_page: PER_PAGE, ...opts.query };
    const pageOpts = (page: NextPage): [string, RequestOptions] =>
      "page" in page
        ? [path, { ...opts, query: { ...query, page: page.page } }]
        : [`${bare}?${page.search}`, { ...opts, query: {} }];
    const fetchPage = async (page: NextPage): Promise<ApiResponse<unknown>> => {
      const [pagePath, pageRequest] = pageOpts(page);
      const response = await this.request<unknown>("GET", pagePath, pageRequest);
      this.metrics.countPage();
      if (!Array.isArray(response.body)) {
        const got = response.body === null ? "an empty body" : `a ${typeof response.body}`;
        throw new TypeError(
          `GET ${this.#redactor.text(bare)} returned ${got}, not a list: read it with get() instead of list()`,
        );
      }
      return response;
    };
    const firstNumber = Number(opts.query?.["page"] ?? new URLSearchParams(inline).get("page") ?? 1) || 1;
    const first = await fetchPage({ page: firstNumber });
    const items = [...(first.body as T[])];
    let info = pageInfo(first.headers);
    if (!info.paginated) return items;
    const seen = new Set<string>([`page:${firstNumber}`]);
    let last = firstNumber;
    if (info.totalPages !== undefined && info.next !== undefined && "page" in info.next) {
      const from = info.next.page;
      const numbers: number[] = [];
      for (let n = from; n <= info.totalPages; n++) numbers.push(n);
      if (numbers.length > 0) {
        const pages = await Promise.all(numbers.map((page) => fetchPage({ page })));
        for (const page of pages) items.push(...(page.body as T[]));
        for (const n of numbers) seen.add(`page:${n}`);
        last = numbers[numbers.length - 1] ?? last;
        // The list may have grown while we read it: carry on from the last page's own next link.
        info = pageInfo(pages[pages.length - 1]?.headers ?? {});
      }
    }
    let next = info.next;
    while (next !== undefined) {
      const key = "page" in next ? `page:${next.page}` : `search:${next.search}`;
      if (seen.has(key) || ("page" in next && next.page <= last)) break;
      seen.add(key);
      if ("page" in next) last = next.page;
      const page = await fetchPage(next);
      items.push(...(page.body as T[]));
      next = pageInfo(page.headers).next;
    }
    return items;
  }

  async #listScim<T>(path: string, opts: RequestOptions): Promise<T[]> {
    const items: T[] = [];
    let startIndex = Number(opts.query?.["startIndex"] ?? 1) || 1;
    for (;;) {
      const query = { count: PER_PAGE, ...opts.query, startIndex };
      const { body } = await this.request<unknown>("GET", path, { ...opts, query });
      this.metrics.countPage();
      const page = body as { Resources?: unknown; totalResults?: unknown } | null;
      if (page === null || typeof page !== "object" || !Array.isArray(page.Resources)) {
        throw new TypeError(
          `GET ${this.#redactor.text(splitQuery(path)[0])} (SCIM) did not return a ListResponse with Resources`,
        );
      }
      items.push(...(page.Resources as T[]));
      const total = typeof page.totalResults === "number" ? page.totalResults : items.length;
      if (page.Resources.length === 0 || startIndex - 1 + page.Resources.length >= total) return items;
      startIndex += page.Resources.length;
    }
  }

  /** Closes the kept-alive connections. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.close();
  }

  #prepare(method: string, path: string, opts: RequestOptions): Prepared {
    if (!path.startsWith("/")) {
      throw new TypeError(`request path must start with "/" (relative to the API base), got "${path}"`);
    }
    const scim = opts.scim ?? false;
    const revealed: string[] = [];
    const [bare, inline] = splitQuery(path);
    const extra = opts.query ? encodeParams(opts.query, revealed) : "";
    const search = [inline, extra].filter(Boolean).join("&");
    const base = scim ? "/api/scim/v2" : "/api/v4";
    const headers: Record<string, string> = {
      accept: scim ? "application/scim+json, application/json" : "application/json",
      "user-agent": this.#userAgent,
    };
    if (scim) {
      if (this.#scimToken === undefined) {
        throw new ClientConfigError(
          `${method} ${bare} is a SCIM request and needs a SCIM token: set FORGEFORM_SCIM_TOKEN`,
        );
      }
      headers["authorization"] = `Bearer ${this.#scimToken}`;
      headers["content-type"] = "application/scim+json";
    } else if (this.#token !== undefined) {
      headers["private-token"] = this.#token;
    }
    let body: string | undefined;
    const kinds = [opts.body !== undefined, opts.form !== undefined, opts.multipart !== undefined];
    if (kinds.filter(Boolean).length > 1) {
      throw new TypeError(`${method} ${bare}: pass only one of body, form and multipart`);
    }
    if (opts.body !== undefined) {
      body = encodeJson(opts.body, revealed);
      if (!scim) headers["content-type"] = "application/json";
    } else if (opts.form !== undefined) {
      body = encodeParams(opts.form, revealed);
      headers["content-type"] = "application/x-www-form-urlencoded";
    } else if (opts.multipart !== undefined) {
      delete headers["content-type"];
    }
    for (const [name, value] of Object.entries(opts.headers ?? {})) headers[name.toLowerCase()] = value;
    const redactor = revealed.length > 0 ? this.#redactor.with(revealed) : this.#redactor;
    return {
      method,
      shownPath: redactor.text(bare),
      wirePath: `${this.#prefix}${base}${bare}${search ? `?${search}` : ""}`,
      template: (scim ? "scim:" : "") + endpointTemplate(bare),
      headers,
      body,
      scim,
      binary: opts.binary === true,
      redactor,
    };
  }

  async #send(req: Prepared): Promise<ApiResponse<unknown>> {
    const idempotent = IDEMPOTENT_METHODS.has(req.method);
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) this.metrics.countRetry();
      const result = await this.#limit(() => this.#attempt(req));
      let retry: { wait: number; serverAsked: boolean; fail: (gaveUp?: string) => Error };
      if (result.kind === "response") {
        if (result.status >= 200 && result.status < 300) {
          return { status: result.status, headers: result.headers, body: result.body };
        }
        const fail = (gaveUp?: string) =>
          new ApiError({
            status: result.status,
            method: req.method,
            path: req.shownPath,
            body: req.redactor.value(result.body),
            headers: result.headers,
            scim: req.scim,
            attempts: attempt,
            ...(gaveUp === undefined ? {} : { gaveUp }),
          });
        const asked = serverDelayMs(result.headers, Date.now());
        // A 429 or 503 that says when to come back was not processed: even a POST is sent again (below).
        const askedToWait = (result.status === 429 || result.status === 503) && asked !== undefined;
        if (!idempotent && OUTCOME_UNKNOWN_STATUS.has(result.status) && !askedToWait) {
          throw new OutcomeUnknownError(req.method, req.shownPath, fail());
        }
        const retryable = idempotent ? RETRYABLE_STATUS.has(result.status) : askedToWait;
        if (!retryable) throw fail();
        retry = { wait: asked ?? backoffMs(attempt, this.#backoff), serverAsked: asked !== undefined, fail };
      } else {
        const info = classifyError(result.error);
        const description = req.redactor.text(info.description);
        const fail = (gaveUp?: string) =>
          new NetworkError(req.method, req.shownPath, info.code, description, attempt, gaveUp);
        if (!info.transient) throw fail();
        if (!idempotent && !info.notSent) {
          throw new OutcomeUnknownError(req.method, req.shownPath, fail());
        }
        retry = { wait: backoffMs(attempt, this.#backoff), serverAsked: false, fail };
      }
      if (attempt >= this.#maxAttempts) throw retry.fail();
      const remaining = this.#maxRetryWaitMs - waited;
      if (retry.serverAsked && retry.wait > remaining) {
        throw retry.fail(
          `the server asked to wait ${seconds(retry.wait)}, more than the ${seconds(Math.max(0, remaining))} ` +
            `left of the ${seconds(this.#maxRetryWaitMs)} retry wait budget`,
        );
      }
      if (remaining <= 0)
        throw retry.fail(`the ${seconds(this.#maxRetryWaitMs)} retry wait budget is used up`);
      const wait = Math.min(retry.wait, remaining);
      this.#debug?.(
        `  retrying ${req.method} ${req.redactor.text(req.wirePath)} in ${seconds(wait)}` +
          ` (attempt ${attempt + 1} of ${this.#maxAttempts}${retry.serverAsked ? ", as the server asked" : ""})`,
      );
      if (wait > 0) await this.#sleep(wait);
      waited += wait;
    }
  }

  async #attempt(req: Prepared): Promise<Attempt> {
    const started = performance.now();
    this.metrics.countRequest(req.method, req.template);
    const shown = `${req.method} ${req.redactor.text(req.wirePath)}`;
    const elapsed = () => `${Math.round(performance.now() - started)} ms`;
    try {
      const response = await this.#pool.request({
        path: req.wirePath,
        method: req.method as "GET",
        headers: req.headers,
        body: req.body ?? null,
        headersTimeout: this.#timeoutMs,
        bodyTimeout: this.#timeoutMs,
      });
      const bytes = new Uint8Array(await response.body.arrayBuffer());
      const headers = normaliseHeaders(response.headers);
      this.#debug?.(`${shown} -> ${response.statusCode} (${elapsed()})`);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        kind: "response",
        status: response.statusCode,
        headers,
        body:
          req.binary && ok
            ? bytes
            : parseBody(new TextDecoder().decode(bytes), headers["content-type"] ?? ""),
      };
    } catch (error) {
      this.#debug?.(`${shown} -> ${classifyError(error).code} (${elapsed()})`);
      return { kind: "error", error };
    }
  }
}

async function encodeMultipart(form: FormData): Promise<{ body: Uint8Array; contentType: string }> {
  const response = new Response(form);
  const contentType = response.headers.get("content-type");
  if (contentType === null) throw new TypeError("multipart body: could not determine its content type");
  return { body: new Uint8Array(await response.arrayBuffer()), contentType };
}

function splitQuery(path: string): [string, string] {
  const index = path.indexOf("?");
  return index < 0 ? [path, ""] : [path.slice(0, index), path.slice(index + 1)];
}
