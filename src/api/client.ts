import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { setTimeout as delay } from "node:timers/promises";
import pLimit, { type LimitFunction } from "p-limit";
import type { Dispatcher } from "undici";
import { encodeJson, encodeParams, type QueryValue } from "./encode.js";
import {
  ApiError,
  ClientConfigError,
  NetworkError,
  OutcomeUnknownError,
  RateLimitSpentError,
  ResponseError,
  rateLimitAdvice,
} from "./errors.js";
import { exchange } from "./exchange.js";
import { RequestMetrics } from "./metrics.js";
import { Pacer } from "./pacer.js";
import { type NextPage, PER_PAGE, pageInfo } from "./pagination.js";
import { endpointTemplate } from "./path.js";
import { type PlatformProxy, platformProxy, proxyFailure, proxySettings } from "./proxy.js";
import { Redactor } from "./redact.js";
import {
  backoffMs,
  classifyError,
  IDEMPOTENT_METHODS,
  OUTCOME_UNKNOWN_STATUS,
  REQUEST_TIMEOUT,
  RETRYABLE_STATUS,
  serverDelayMs,
} from "./retry.js";
import { type AnswerShape, answerProblem, asList, MAX_JSON_DEPTH, nestsTooDeep } from "./shape.js";
import { EnvHttpProxyAgent, Pool } from "./undici.js";

export type { QueryValue } from "./encode.js";
export type { AnswerShape, Shape } from "./shape.js";

export interface ClientOptions {
  /** The platform's base URL, e.g. `https://gitlab.example.com` (a trailing `/api/v4` is accepted and dropped). */
  url: string;
  /** Access token, sent as `PRIVATE-TOKEN`. Never logged. */
  token?: string;
  /** SCIM token, sent as `Authorization: Bearer` on SCIM requests. Never logged. */
  scimToken?: string;
  /** Requests in flight at once, across everything this client does (default 8). */
  concurrency?: number;
  /**
   * Per-request timeout in ms (default 30000): each attempt must be answered in full, headers and whole body,
   * within it. Waits between retries are not part of it (see maxRetryWaitMs).
   */
  timeoutMs?: number;
  /** Largest response body read, in bytes (default 64 MiB); a longer one is an error naming the request. */
  maxResponseBytes?: number;
  /** Most pages read from one list (default 10,000: a million objects at 100 per page). */
  maxPages?: number;
  /** Most bytes of answers kept of one list, all its pages together (default 1 GiB); more is an error naming it. */
  maxListBytes?: number;
  /** Attempts per request, the first included (default 8). */
  maxAttempts?: number;
  /** Total time one request may spend waiting between retries, in ms (default 60000). */
  maxRetryWaitMs?: number;
  /** PEM file with the CA that signed the platform's certificate. */
  caFile?: string;
  /** Allow plain `http://` to a host that is not loopback (the token then travels unencrypted). */
  insecureHttp?: boolean;
  userAgent?: string;
  /** Where HTTPS_PROXY, HTTP_PROXY and NO_PROXY (or their lower-case forms) are read (default process.env). */
  env?: NodeJS.ProcessEnv;
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
  /**
   * At most this many requests a minute, evenly spaced, for an instance whose rate limit is known (`--max-rate`).
   * Without it requests are paced only after a 429 (see pacer.ts).
   */
  maxRatePerMinute?: number;
  /** Clock in ms for pacing (injectable, with `sleep`, so tests need not wait; default Date.now). */
  now?: () => number;
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
  /**
   * A SCIM request sent without the SCIM token, when the run has none: the platform checks a group's SAML SSO
   * before the token, so the answer says whether the group has SCIM at all (404 without SAML SSO, 401 with it).
   */
  withoutScimToken?: boolean;
  headers?: Record<string, string>;
  /** Answer a successful response's body as bytes (an export archive) rather than parsed JSON or text. */
  binary?: boolean;
  /**
   * The fields the caller relies on (see shape.ts): a successful answer that lacks one or has one of the wrong type
   * (nested lists and objects included) is a ResponseError naming the request, the item and the field. A Shape asks
   * for an object (a list is refused); `listOf(shape)` for a list. For `list()`, the shape of each item.
   */
  shape?: AnswerShape;
}

export interface ApiResponse<T> {
  status: number;
  /** Response headers, names lower-cased, repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** Parsed JSON, the text for non-JSON responses, or null for an empty body (204). */
  body: T;
}

/** A response with the size of its body as it came, in bytes (what a list counts against its limit). */
type Sized = ApiResponse<unknown> & { bytes: number };

/** The default of `maxResponseBytes`: room for the biggest legitimate answer, a project's whole wiki with content. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** The default of `maxPages`: 1,000,000 objects at 100 per page, ten times a 100,000-object instance. */
export const DEFAULT_MAX_PAGES = 10_000;

/**
 * The default of `maxListBytes`: 1 GiB of answers for one list, room for 1,000,000 objects of 1 KiB (the page cap)
 * or 200,000 full project objects of about 5 KiB.
 */
export const DEFAULT_MAX_LIST_BYTES = 1024 * 1024 * 1024;

const DEFAULTS = {
  concurrency: 8,
  timeoutMs: 30_000,
  maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
  maxPages: DEFAULT_MAX_PAGES,
  maxListBytes: DEFAULT_MAX_LIST_BYTES,
  maxAttempts: 8,
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
  /** What a successful answer must look like (RequestOptions.shape). */
  shape: AnswerShape | undefined;
}

type Attempt =
  | { kind: "response"; status: number; headers: Record<string, string>; text: string; bytes: Buffer }
  | { kind: "error"; error: unknown };

/** A request's pacing across its attempts: the end of the pause its own 429 began, which its retry waits out. */
interface Pacing {
  waitedOut: number;
  /** Whether another request was waiting for the slot when this attempt's answer came (it takes the slot). */
  slotTaken?: boolean;
}

/**
 * Resolves at the event loop's next timers phase, after this turn's check phase. undici writes a request on a
 * keep-alive connection only at a check phase (setImmediate: it first lets the idle socket show whether the server
 * closed it, GHSA-35p6-xmwp-9g52, and waits a turn before reusing a socket whose answer just ended), so a request
 * that takes the slot an answer freed is written after everything the loop runs before that: when the answer is
 * read at once (parsed, planned: about a millisecond at 16x), the request waits for it, and for the other answers
 * that came in the same turn. Handed over here, the answer waits instead of the request, whose 20 ms or more on the
 * network start sooner. Measured in docs/benchmarks.md ("Wall time").
 */
const afterWrites = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** An attempt that got no complete answer within the per-request timeout. */
class RequestTimeout extends Error {
  readonly code = REQUEST_TIMEOUT;
}

/** An answer longer than the response size limit (not retried: it would be just as long again). */
class TooLarge extends Error {
  constructor(
    readonly status: number,
    readonly limit: number,
    readonly declared: number | undefined,
  ) {
    super("response too large");
  }
}

function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return `${Number.isInteger(mib) ? mib : mib.toFixed(1)} MiB`;
}

/** Reads a PEM CA file, refusing one that holds no certificate or a certificate that does not parse. */
function readCaFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    throw new ClientConfigError(`cannot read the CA file ${file} (${code}): check --ca-file`);
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) {
    throw new ClientConfigError(
      `the CA file ${file} holds no PEM certificate (no -----BEGIN CERTIFICATE----- block): pass the CA ` +
        "certificate in PEM form with --ca-file (convert a DER file with: openssl x509 -inform der -in ca.der -out ca.pem)",
    );
  }
  blocks.forEach((block, i) => {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new ClientConfigError(
        `the CA file ${file}: certificate ${i + 1} of ${blocks.length} cannot be read (${(error as Error).message}): check --ca-file`,
      );
    }
  });
  return text;
}

/** The longest wait a timer can take (Node cuts a longer one to 1 ms): 24 hours, well below 2^31-1 ms. */
const MAX_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * The largest value each numeric option may take: far above any real use, and below what would break (a timer
 * past 2^31-1 ms fires at once; a body past 512 MiB cannot become a string).
 */
export const OPTION_MAXIMUMS = {
  timeoutMs: MAX_WAIT_MS,
  concurrency: 256,
  maxAttempts: 100,
  maxResponseBytes: 500 * 1024 * 1024,
  maxListBytes: 16 * 1024 * 1024 * 1024,
  maxPages: 10_000_000,
  maxRetryWaitMs: MAX_WAIT_MS,
  backoffBaseMs: MAX_WAIT_MS,
  backoffCapMs: MAX_WAIT_MS,
} as const;

function positive(
  name: keyof typeof OPTION_MAXIMUMS,
  value: number | undefined,
  fallback: number,
  min = 1,
): number {
  if (value === undefined) return fallback;
  const max = OPTION_MAXIMUMS[name];
  if (!Number.isFinite(value) || value < min || value > max) {
    throw new ClientConfigError(
      `${name} must be a number from ${min} to ${max.toLocaleString("en-US")}, got ${value}`,
    );
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

/** "a" or "an" before a value's type name. */
function article(value: unknown): string {
  return typeof value === "object" || typeof value === "undefined" ? "an" : "a";
}

/** The `<title>` of an HTML page, if it has one. */
function htmlTitle(text: string): string | undefined {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.replace(/\s+/g, " ").trim();
  return title ? (title.length > 80 ? `${title.slice(0, 79)}…` : title) : undefined;
}

/** The start of a text, quoted, for an error message. */
function opening(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return JSON.stringify(flat.length > 80 ? `${flat.slice(0, 79)}…` : flat);
}

/**
 * A successful answer's body: parsed JSON, or null when empty. The platform answers every API call with JSON, so
 * anything else (an HTML page from a sign-in proxy, a cut-off or malformed document) is a problem to report.
 */
function parseSuccess(text: string, contentType: string): { body: unknown } | { problem: string } {
  if (text === "") return { body: null };
  if (/html/i.test(contentType) || (!/json/i.test(contentType) && /^\s*</.test(text))) {
    const title = htmlTitle(text);
    return {
      problem:
        `an HTML page${title ? ` ("${title}")` : ""} came back instead of JSON: check that --url / FORGEFORM_URL ` +
        "is the platform's own address (a sign-in page, proxy or portal may be answering in its place)",
    };
  }
  if (nestsTooDeep(text)) {
    return {
      problem: `the JSON answer nests deeper than ${MAX_JSON_DEPTH} levels, which the platform never sends; it begins ${opening(text)}`,
    };
  }
  try {
    return { body: JSON.parse(text) };
  } catch (error) {
    const type = contentType ? ` (content type ${contentType.split(";")[0]})` : "";
    return {
      problem: `the response${type} is not valid JSON (${(error as Error).message}); it begins ${opening(text)}`,
    };
  }
}

/** An error answer's body: JSON when it parses (and nests no deeper than JSON answers may), else the text. */
function parseBody(text: string, contentType: string): unknown {
  if (text === "") return null;
  const looksJson = /^\s*[[{"]/.test(text) || /^\s*(true|false|null|-?\d)/.test(text);
  if ((/json/i.test(contentType) || (!/html/i.test(contentType) && looksJson)) && !nestsTooDeep(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** The per_page a page request asks for: from its query, or the `per_page` of a Link rel="next" URL. */
function perPageOf(request: RequestOptions, path: string): number {
  const fromLink = new URLSearchParams(splitQuery(path)[1]).get("per_page");
  const asked = Number(request.query?.["per_page"] ?? fromLink ?? PER_PAGE);
  return Number.isSafeInteger(asked) && asked > 0 ? asked : PER_PAGE;
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
  /** A pool to the platform, or, when HTTPS_PROXY/HTTP_PROXY say so, an agent through the proxy (NO_PROXY honoured). */
  readonly #pool: Dispatcher;
  readonly #limit: LimitFunction;
  readonly #origin: string;
  readonly #prefix: string;
  readonly #token: string | undefined;
  readonly #scimToken: string | undefined;
  readonly #redactor: Redactor;
  readonly #timeoutMs: number;
  readonly #maxResponseBytes: number;
  readonly #maxPages: number;
  readonly #maxListBytes: number;
  readonly #concurrency: number;
  readonly #maxAttempts: number;
  readonly #maxRetryWaitMs: number;
  readonly #backoff: { baseMs: number; capMs: number; random: () => number };
  readonly #userAgent: string;
  readonly #debug: ((line: string) => void) | undefined;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Spaces the requests of the whole run when the platform rate-limits them (or --max-rate asks). */
  readonly #pacer: Pacer;
  /** The proxy requests go through (named in errors it causes), if any. */
  readonly #proxy: PlatformProxy | undefined;
  #closed = false;

  constructor(opts: ClientOptions) {
    const url = parseBaseUrl(opts.url, opts.insecureHttp ?? false);
    this.#origin = url.origin;
    this.#prefix = url.pathname.replace(/\/+$/, "").replace(/\/api\/v4$/, "");
    this.#token = opts.token;
    this.#scimToken = opts.scimToken;
    this.#redactor = new Redactor([opts.token, opts.scimToken]);
    const concurrency = Math.floor(positive("concurrency", opts.concurrency, DEFAULTS.concurrency));
    this.#concurrency = concurrency;
    this.#timeoutMs = positive("timeoutMs", opts.timeoutMs, DEFAULTS.timeoutMs);
    this.#maxResponseBytes = positive("maxResponseBytes", opts.maxResponseBytes, DEFAULTS.maxResponseBytes);
    this.#maxPages = Math.floor(positive("maxPages", opts.maxPages, DEFAULTS.maxPages));
    this.#maxListBytes = positive("maxListBytes", opts.maxListBytes, DEFAULTS.maxListBytes);
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
    const maxRate = opts.maxRatePerMinute;
    if (maxRate !== undefined && !(Number.isFinite(maxRate) && maxRate > 0)) {
      throw new ClientConfigError(`maxRatePerMinute must be a number above 0, got ${maxRate}`);
    }
    this.#pacer = new Pacer({
      ...(maxRate === undefined ? {} : { maxPerMinute: maxRate }),
      maxPauseMs: this.#maxRetryWaitMs,
      now: opts.now ?? Date.now,
      sleep: this.#sleep,
      ...(this.#debug ? { debug: this.#debug } : {}),
    });
    const ca = opts.caFile === undefined ? undefined : readCaFile(opts.caFile);
    this.#limit = pLimit(concurrency);
    // Requests in flight are held to `concurrency` by the limit; the pool may keep more connections than that. A
    // connection whose answer just ended takes a new request only after a turn of the event loop (afterWrites), so
    // with exactly `concurrency` connections the request that takes the freed slot would wait for it. With twice as
    // many, it goes out on an idle one at the next check phase; the others are opened only when needed, and closed
    // after the keep-alive time when they stay idle (the 16x plan: about 40 connections opened in all, at most 16
    // open at once, 1.3 s less wall time, docs/benchmarks.md).
    const connections = concurrency * 2;
    const connect = { timeout: this.#timeoutMs, ...(ca === undefined ? {} : { ca }) };
    const { httpProxy, httpsProxy, noProxy } = proxySettings(opts.env ?? process.env);
    this.#proxy = platformProxy(url, { httpProxy, httpsProxy, noProxy });
    this.#pool =
      httpProxy || httpsProxy
        ? new EnvHttpProxyAgent({
            ...(httpProxy ? { httpProxy } : {}),
            ...(httpsProxy ? { httpsProxy } : {}),
            ...(noProxy ? { noProxy } : {}),
            connections,
            headersTimeout: this.#timeoutMs,
            bodyTimeout: this.#timeoutMs,
            connect,
            requestTls: connect,
          })
        : new Pool(this.#origin, {
            connections,
            headersTimeout: this.#timeoutMs,
            bodyTimeout: this.#timeoutMs,
            connect,
          });
  }

  /** Requests in flight at most (`--concurrency`). */
  get concurrency(): number {
    return this.#concurrency;
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
    const { bytes: _, ...response } = await this.#exchange(method, path, opts);
    return response as ApiResponse<T>;
  }

  async #exchange(method: string, path: string, opts: RequestOptions): Promise<Sized> {
    const prepared = this.#prepare(method.toUpperCase(), path, opts);
    if (opts.multipart !== undefined) {
      // Serialise once, so a retry sends the same bytes and any FormData implementation works.
      const encoded = await encodeMultipart(opts.multipart);
      prepared.body = encoded.body;
      prepared.headers["content-type"] = encoded.contentType;
    }
    return this.#send(prepared);
  }

  async get<T>(path: string, opts?: RequestOptions): Promise<T> {
    const body = (await this.request<T>("GET", path, opts)).body;
    this.metrics.countObjects(Array.isArray(body) ? body.length : 1);
    return body;
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
   * `X-Total-Pages`, the remaining pages are fetched concurrently, a window of at most `concurrency` pages at a
   * time. An endpoint without pagination headers returns its array as it is. With `scim: true` it reads a SCIM
   * ListResponse page by page (`startIndex`/`count`) and returns the `Resources`.
   *
   * Every list ends: reading stops at an empty page (whatever the headers say next), at a page already read, and
   * with a ResponseError past `maxPages` pages or when the server announces more than that.
   */
  async list<T>(path: string, opts: RequestOptions = {}): Promise<T[]> {
    if (opts.scim) return this.#listScim<T>(path, opts);
    const [bare, inline] = splitQuery(path);
    const query: Record<string, QueryValue> = { per_page: PER_PAGE, ...opts.query };
    const shownPath = this.#redactor.text(bare);
    const pageOpts = (page: NextPage): [string, RequestOptions] =>
      "page" in page
        ? [path, { ...opts, query: { ...query, page: page.page } }]
        : [`${bare}?${page.search}`, { ...opts, query: {} }];
    let fetched = 0;
    const kept = { bytes: 0 };
    const fetchPage = async (page: NextPage): Promise<{ items: T[]; headers: Record<string, string> }> => {
      fetched += 1;
      if (fetched > this.#maxPages) {
        throw new ResponseError(
          "GET",
          shownPath,
          200,
          `the list goes on past ${this.#maxPages.toLocaleString("en-US")} pages, the most forgeform reads from one list ` +
            `(${(this.#maxPages * PER_PAGE).toLocaleString("en-US")} objects at ${PER_PAGE} per page), and the server ` +
            "still points at a next page: stopped there. A proxy or the platform is paginating wrongly.",
        );
      }
      const [pagePath, pageRequest] = pageOpts(page);
      const { shape, ...plain } = pageRequest;
      const response = await this.#exchange("GET", pagePath, plain);
      this.metrics.countPage();
      const which = "page" in page ? `page ${page.page}` : `page ${fetched} (following Link rel="next")`;
      const items = this.#pageItems<T>(
        response,
        shownPath,
        which,
        kept,
        perPageOf(pageRequest, pagePath),
        shape,
      );
      return { items, headers: response.headers };
    };
    const firstNumber = Number(opts.query?.["page"] ?? new URLSearchParams(inline).get("page") ?? 1) || 1;
    const first = await fetchPage({ page: firstNumber });
    const items = [...first.items];
    let info = pageInfo(first.headers);
    if (!info.paginated || first.items.length === 0) return items;
    const seen = new Set<string>([`page:${firstNumber}`]);
    let last = firstNumber;
    if (info.totalPages !== undefined && info.next !== undefined && "page" in info.next) {
      const from = info.next.page;
      const to = info.totalPages;
      if (to - firstNumber + 1 > this.#maxPages) {
        throw new ResponseError(
          "GET",
          shownPath,
          200,
          `the server says the list has ${to.toLocaleString("en-US")} pages (X-Total-Pages), more than the ` +
            `${this.#maxPages.toLocaleString("en-US")} forgeform reads from one list ` +
            `(${(this.#maxPages * PER_PAGE).toLocaleString("en-US")} objects at ${PER_PAGE} per page): not reading it`,
        );
      }
      if (from <= to) {
        const pages = await this.#window(from, to, (n) => fetchPage({ page: n }));
        for (const [offset, page] of pages.entries()) {
          items.push(...page.items);
          seen.add(`page:${from + offset}`);
          last = from + offset;
        }
        const end = pages[pages.length - 1];
        // An empty page: the list ends here, whatever the headers say. Otherwise the list may have grown while
        // we read it: carry on from the last page's own next link.
        if (end === undefined || end.items.length === 0) return items;
        info = pageInfo(end.headers);
      }
    }
    let next = info.next;
    while (next !== undefined) {
      const key = "page" in next ? `page:${next.page}` : `search:${next.search}`;
      if (seen.has(key) || ("page" in next && next.page <= last)) break;
      seen.add(key);
      if ("page" in next) last = next.page;
      const page = await fetchPage(next);
      if (page.items.length === 0) break;
      items.push(...page.items);
      next = pageInfo(page.headers).next;
    }
    return items;
  }

  /**
   * The first page of a list (`per_page=100`) and whether it is the whole list: for a caller that takes the list
   * only when it is short, and otherwise reads what it needs one by one. The page is checked as `list` checks
   * each of its pages (a list, at most the items asked for, each of the shape).
   */
  async firstPage<T>(path: string, opts: RequestOptions = {}): Promise<{ items: T[]; complete: boolean }> {
    const { shape, ...plain } = opts;
    const shownPath = this.#redactor.text(splitQuery(path)[0]);
    const response = await this.#exchange("GET", path, {
      ...plain,
      query: { per_page: PER_PAGE, ...opts.query, page: 1 },
    });
    this.metrics.countPage();
    const items = this.#pageItems<T>(
      response,
      shownPath,
      "page 1",
      { bytes: 0 },
      perPageOf(opts, path),
      shape,
    );
    const info = pageInfo(response.headers);
    const complete = info.next === undefined && (info.totalPages === undefined || info.totalPages <= 1);
    return { items, complete };
  }

  /**
   * A page of a list, checked: a list (counted), at most the items asked for when the answer is paginated (an
   * endpoint without pagination answers with everything), within the list's size limit, each item of the shape.
   */
  #pageItems<T>(
    response: Sized,
    shownPath: string,
    which: string,
    kept: { bytes: number },
    perPage: number,
    shape: AnswerShape | undefined,
  ): T[] {
    if (!Array.isArray(response.body)) {
      const got =
        response.body === null ? "an empty body" : `${article(response.body)} ${typeof response.body}`;
      throw new ResponseError(
        "GET",
        shownPath,
        response.status,
        `${got} came back where a list was expected`,
      );
    }
    this.metrics.countObjects(response.body.length);
    const asked = pageInfo(response.headers).paginated ? perPage : undefined;
    const over = this.#overLimit(kept, response.bytes, response.body.length, asked, which);
    if (over) throw new ResponseError("GET", shownPath, response.status, over);
    const problem = shape && answerProblem(response.body, asList(shape));
    if (problem) throw new ResponseError("GET", shownPath, response.status, `${which}, ${problem}`);
    return response.body as T[];
  }

  /**
   * Counts one page of a list against the list's limits: the problem when the page holds more items than were
   * asked for (`asked`, when the answer is paginated), or when the list's answers pass the list size limit.
   */
  #overLimit(
    kept: { bytes: number },
    bytes: number,
    items: number,
    asked: number | undefined,
    which: string,
  ): string | undefined {
    kept.bytes += bytes;
    if (asked !== undefined && items > asked) {
      return `${which} holds ${items.toLocaleString("en-US")} items, more than the ${asked} asked for (per_page): a broken answer, not read further`;
    }
    if (kept.bytes > this.#maxListBytes) {
      return (
        `the list's answers passed ${mebibytes(this.#maxListBytes)} with ${which}, the most forgeform keeps of one ` +
        "list: stopped there. If a list on the platform really is that large, raise the limit with --max-list-mb"
      );
    }
    return undefined;
  }

  /**
   * Fetches pages `from`..`to` with at most `concurrency` requests outstanding (so a huge page count never turns
   * into a huge queue), and stops scheduling after an empty page. Resolves to the pages in order, up to and
   * including the first empty one.
   */
  async #window<P extends { items: unknown[] }>(
    from: number,
    to: number,
    fetch: (n: number) => Promise<P>,
  ): Promise<P[]> {
    const pages: P[] = [];
    let next = from;
    let stop = false;
    const worker = async () => {
      while (!stop && next <= to) {
        const n = next++;
        try {
          const page = await fetch(n);
          pages[n - from] = page;
          if (page.items.length === 0) stop = true;
        } catch (error) {
          stop = true;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#concurrency, to - from + 1) }, worker));
    const ordered: P[] = [];
    for (const page of pages) {
      if (page === undefined) break;
      ordered.push(page);
      if (page.items.length === 0) break;
    }
    return ordered;
  }

  async #listScim<T>(path: string, opts: RequestOptions): Promise<T[]> {
    const items: T[] = [];
    const shownPath = `${this.#redactor.text(splitQuery(path)[0])} (SCIM)`;
    const limit = this.#maxPages * PER_PAGE;
    const { shape, ...plain } = opts;
    let startIndex = Number(opts.query?.["startIndex"] ?? 1) || 1;
    const kept = { bytes: 0 };
    for (let pages = 1; ; pages++) {
      if (pages > this.#maxPages) {
        throw new ResponseError(
          "GET",
          shownPath,
          200,
          `the list goes on past ${this.#maxPages.toLocaleString("en-US")} pages, the most forgeform reads from one list: stopped there`,
        );
      }
      const query = { count: PER_PAGE, ...opts.query, startIndex };
      const { status, body, bytes } = await this.#exchange("GET", path, { ...plain, query });
      this.metrics.countPage();
      const page = body as { Resources?: unknown; totalResults?: unknown } | null;
      const asked = Number(query.count) || undefined;
      if (page && Array.isArray(page.Resources)) {
        this.metrics.countObjects(page.Resources.length);
        const over = this.#overLimit(kept, bytes, page.Resources.length, asked, `startIndex ${startIndex}`);
        if (over) throw new ResponseError("GET", shownPath, status, over.replace("per_page", "count"));
      }
      if (page === null || typeof page !== "object" || !Array.isArray(page.Resources)) {
        throw new ResponseError(
          "GET",
          shownPath,
          status,
          "the answer is not a SCIM ListResponse with Resources",
        );
      }
      const problem = shape && answerProblem(page.Resources, asList(shape));
      if (problem) throw new ResponseError("GET", shownPath, status, `startIndex ${startIndex}, ${problem}`);
      items.push(...(page.Resources as T[]));
      const total =
        typeof page.totalResults === "number" &&
        Number.isSafeInteger(page.totalResults) &&
        page.totalResults >= 0
          ? page.totalResults
          : undefined;
      if (total !== undefined && total > limit) {
        throw new ResponseError(
          "GET",
          shownPath,
          status,
          `the server says there are ${total.toLocaleString("en-US")} results (totalResults), more than the ` +
            `${limit.toLocaleString("en-US")} forgeform reads from one list: not reading it`,
        );
      }
      if (page.Resources.length === 0) return items;
      // The end: where totalResults says (a server may send fewer per page than asked); without a total (RFC 7644
      // requires one; the platform always sends it), at the first page shorter than asked, as one without
      // pagination headers is read.
      if (
        total !== undefined
          ? startIndex - 1 + page.Resources.length >= total
          : page.Resources.length < (asked ?? PER_PAGE)
      )
        return items;
      startIndex += page.Resources.length;
    }
  }

  /**
   * Values never to print from now on (the run's resolved `${env:}`/`${file:}` values, names masked in a plan):
   * masked in --debug lines, request paths in errors and the platform's messages, also where a request path holds
   * one (an object named after a secret).
   */
  conceal(values: Iterable<string>): void {
    for (const value of values) this.#redactor.add(value);
  }

  /** Closes the kept-alive connections; with debug, a last line sums up the requests and the rate limiting. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#debug) {
      const m = this.metrics;
      const { total, retries } = m.snapshot();
      const rate = this.#pacer.rate;
      this.#debug(
        `requests: ${total} sent, ${retries} retries, ${m.throttled} answered 429 (rate limited); ` +
          `${m.pacedRequests} waited for their turn, holding the run back ${seconds(Math.round(m.pacedMs))}` +
          `${Number.isFinite(rate) ? `; pacing at ${Math.round(rate)}/min at the end` : ""}` +
          `; ${m.rereads} collections re-read after a create's outcome was unknown`,
      );
    }
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
      if (this.#scimToken === undefined && opts.withoutScimToken !== true) {
        throw new ClientConfigError(
          `${method} ${bare} is a SCIM request and needs a SCIM token: set FORGEFORM_SCIM_TOKEN`,
        );
      }
      if (opts.withoutScimToken !== true) headers["authorization"] = `Bearer ${this.#scimToken}`;
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
      shape: opts.shape,
    };
  }

  async #send(req: Prepared): Promise<Sized> {
    const idempotent = IDEMPOTENT_METHODS.has(req.method);
    let waited = 0;
    const pacing: Pacing = { waitedOut: 0 };
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1) this.metrics.countRetry();
      const result = await this.#limit(() => this.#paced(req, pacing));
      // The request that took this answer's slot is written first (afterWrites).
      if (pacing.slotTaken) await afterWrites();
      let retry: { wait: number; serverAsked: boolean; fail: (gaveUp?: string) => Error };
      if (result.kind === "response") {
        const contentType = result.headers["content-type"] ?? "";
        if (result.status >= 200 && result.status < 300) {
          const bytes = result.bytes.length;
          if (req.binary)
            return {
              status: result.status,
              headers: result.headers,
              body: new Uint8Array(result.bytes),
              bytes,
            };
          const parsed = parseSuccess(result.text, contentType);
          const problem =
            "problem" in parsed ? parsed.problem : req.shape && answerProblem(parsed.body, req.shape);
          if (problem) {
            const error = new ResponseError(
              req.method,
              req.shownPath,
              result.status,
              req.redactor.text(problem),
            );
            // The platform acted on the request, but its answer cannot be read: for a POST, as if it were lost.
            if (!idempotent) throw new OutcomeUnknownError(req.method, req.shownPath, error);
            throw error;
          }
          return {
            status: result.status,
            headers: result.headers,
            body: (parsed as { body: unknown }).body,
            bytes,
          };
        }
        const location = result.headers["location"];
        const fail = (gaveUp?: string) =>
          new ApiError({
            status: result.status,
            method: req.method,
            path: req.shownPath,
            body: req.redactor.value(parseBody(result.text, contentType)),
            headers: location ? { ...result.headers, location: req.redactor.text(location) } : result.headers,
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
        if (result.error instanceof TooLarge) {
          const { status, limit, declared } = result.error;
          const size = declared === undefined ? "" : ` (${mebibytes(declared)} announced)`;
          const error = new ResponseError(
            req.method,
            req.shownPath,
            status,
            `the response body is larger than the ${mebibytes(limit)} limit${size}: not read. If the platform really ` +
              "answers this with that much, raise the limit with --max-response-mb",
          );
          if (!idempotent && status >= 200 && status < 300) {
            throw new OutcomeUnknownError(req.method, req.shownPath, error);
          }
          throw error;
        }
        const info = classifyError(result.error);
        const message = result.error instanceof Error ? result.error.message : String(result.error);
        const viaProxy = this.#proxy && proxyFailure(this.#proxy, info.code, message);
        const description = req.redactor.text(viaProxy || info.description);
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
        const spent = this.#pacer.spent();
        throw retry.fail(
          `the server asked to wait ${seconds(retry.wait)}, more than the ${seconds(Math.max(0, remaining))} ` +
            `left of the ${seconds(this.#maxRetryWaitMs)} retry wait budget` +
            (spent ? `; ${rateLimitAdvice(spent.untilMs, spent.limitPerMinute)}` : ""),
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

  /**
   * One attempt once the pacer lets it start, telling the pacer how it went: a 429 pauses and slows down every
   * request of the run (whatever the method: the platform did not process it), any other answer lets the pace rise.
   */
  async #paced(req: Prepared, pacing: Pacing): Promise<Attempt> {
    const turn = await this.#pacer.acquire(pacing.waitedOut);
    const spent = this.#pacer.spent();
    if (spent) throw new RateLimitSpentError(req.method, req.shownPath, spent.untilMs, spent.limitPerMinute);
    if (turn.waitedMs > 0) this.metrics.countPaced(turn.heldMs);
    const result = await this.#attempt(req);
    // Before the limit lets the next request have the slot.
    pacing.slotTaken = this.#limit.pendingCount > 0;
    if (result.kind === "response" && result.status === 429) {
      this.metrics.countThrottled();
      pacing.waitedOut = this.#pacer.throttled(result.headers, turn.ticket);
    } else if (result.kind === "response") {
      this.#pacer.passed();
    }
    return result;
  }

  /**
   * One attempt: the request, its headers and its whole body within the per-request timeout, the body no longer
   * than the size limit. Never throws; an error is returned for #send to classify.
   */
  async #attempt(req: Prepared): Promise<Attempt> {
    const started = performance.now();
    this.metrics.countRequest(req.method, req.template);
    // Only --debug shows the request and how long it took: neither is worked out for every request otherwise.
    const shown = () => `${req.method} ${req.redactor.text(req.wirePath)}`;
    const elapsed = () => `${Math.round(performance.now() - started)} ms`;
    try {
      const { status, headers, bytes } = await exchange(this.#pool, {
        origin: this.#origin,
        path: req.wirePath,
        method: req.method,
        headers: req.headers,
        body: req.body ?? null,
        timeoutMs: this.#timeoutMs,
        maxBytes: this.#maxResponseBytes,
        timedOut: () =>
          new RequestTimeout(
            `no complete response within the ${seconds(this.#timeoutMs)} request timeout (--timeout)`,
          ),
        tooLarge: (status, declared) => new TooLarge(status, this.#maxResponseBytes, declared),
      });
      this.#debug?.(`${shown()} -> ${status} (${elapsed()})`);
      return { kind: "response", status, headers, text: bytes.toString("utf8"), bytes };
    } catch (error) {
      this.#debug?.(
        `${shown()} -> ${error instanceof TooLarge ? "too large" : classifyError(error).code} (${elapsed()})`,
      );
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
