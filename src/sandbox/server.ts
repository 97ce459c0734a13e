import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CredentialStatus, type Edition, SandboxApp } from "./app.js";
import { FaultInjector, parseFaults, parseLatency } from "./faults.js";
import { applyFixture, loadFixtureFile } from "./fixture.js";
import { parseBody, parseQuery, type SandboxRequest } from "./request.js";
import { encodeJson, Reply } from "./respond.js";
import { registerAll } from "./routes/index.js";
import { randomToken, Store } from "./store.js";
import { ApiThrottle, enableRateLimit, parseRateLimit, type RateLimit } from "./throttle.js";

/** Largest request body, MiB (`--max-body-mb`): above the platform's attachment and import sizes in tests. */
export const DEFAULT_MAX_BODY_MB = 64;
/** Largest body a request without credentials may send (a form with `private_token` fits). */
export const ANONYMOUS_BODY_BYTES = 64 * 1024;

export interface SandboxOptions {
  /** Largest request body in MiB (default {@link DEFAULT_MAX_BODY_MB}); larger ones are 413 and not read. */
  maxBodyMb?: number;
  /** Interface to listen on (default 127.0.0.1). */
  host?: string;
  /** Port (default 0: any free port). */
  port?: number;
  /** State file; loaded on start when it exists, written atomically after every write request that is not refused. */
  statePath?: string;
  /** Fixture (a path to YAML/JSON, or the parsed object); applied only when there is no state file yet. */
  fixture?: string | Record<string, unknown>;
  /** Token of the administrator `root` (random when not given). */
  adminToken?: string;
  /** Token of the regular user `sandbox-user` (random when not given). */
  userToken?: string;
  /** `licensed` (default) or `core`. */
  edition?: Edition;
  /**
   * Latency per request: milliseconds (`20`) or a range (`"20-80"`), from the request's arrival to its answer (the
   * sandbox's own work is done within it).
   */
  latencyMs?: number | string;
  /** Fault spec (see faults.ts), e.g. `"429:0.05,503:0.02,reset:0.01"`. */
  faults?: string;
  /** Seed of the fault and latency PRNGs (default 1). */
  seed?: number;
  /** `host:port` used in URLs instead of the request's Host header. */
  baseUrlHost?: string;
  /** Rows above which pagination omits X-Total, X-Total-Pages and rel="last" (default 10000). */
  countLimit?: number;
  /** Clock, for tests. */
  clock?: () => Date;
  /** Retry-After seconds on injected 429s (default 1). */
  retryAfterSeconds?: number;
  /** Where unexpected handler errors are reported (default: nowhere; they become 500s). */
  log?: (line: string) => void;
  /**
   * Turns on the API throttles, per user and (without a user's token) per IP, as Rack::Attack does on the
   * platform: `"600/min"`, `"7200/h"`, `"10/2s"` or `{ requests, periodSeconds }` (see throttle.ts). They are
   * application settings, so `PUT /application/settings` can change or turn them off later.
   */
  rateLimit?: string | RateLimit;
  /** Called once per request received, before latency and faults (the benchmark counts requests with it). */
  onRequest?: (method: string, path: string) => void;
  /** Called for each request the API throttle answers 429 (the benchmark counts them with it). */
  onThrottled?: (method: string, path: string) => void;
}

export interface RunningSandbox {
  url: string;
  port: number;
  host: string;
  adminToken: string;
  userToken: string;
  store: Store;
  app: SandboxApp;
  stop(): Promise<void>;
}

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Whether a write's answer means the state is to be saved: it was not refused. A refused write (4xx:
 * unauthenticated, forbidden, not found, invalid) changes nothing, as on the platform, where it is checked before
 * anything is saved; rewriting a large state file for it would let anyone stall the sandbox.
 */
function changesState(status: number): boolean {
  return !(status >= 400 && status < 500);
}

const INTERNAL_ERROR = (): Reply => new Reply(500, { message: "500 Internal Server Error" }, {}, "json");

/**
 * Runs writes one at a time, in the order they come, each with the saving of the state that follows it: a write
 * never sees another half done, and a write whose state cannot be saved is undone before the next one starts.
 */
class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(work);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}

function send(res: ServerResponse, reply: Reply, head: boolean): void {
  const headers: Record<string, string> = { ...reply.headers };
  let payload: Buffer | undefined;
  if (reply.kind === "json") {
    headers["Content-Type"] ??= "application/json";
    payload = Buffer.from(encodeJson(reply.body));
  } else if (reply.kind === "raw") {
    payload = Buffer.isBuffer(reply.body) ? reply.body : Buffer.from(String(reply.body));
  }
  headers["Content-Length"] = String(payload?.length ?? 0);
  res.writeHead(reply.status, headers);
  res.end(head ? undefined : payload);
}

/** Builds the store and application without listening (used by the server and by tests). */
export function createSandboxApp(opts: SandboxOptions = {}): {
  app: SandboxApp;
  store: Store;
  adminToken: string;
  userToken: string;
} {
  const { store, loaded } = opts.statePath
    ? Store.load(opts.statePath, opts.clock)
    : { store: new Store({ clock: opts.clock }), loaded: false };
  const app = new SandboxApp(store, {
    edition: opts.edition ?? "licensed",
    countLimit: opts.countLimit ?? 10000,
    baseUrlHost: opts.baseUrlHost,
  });
  registerAll(app);
  if (!loaded) {
    store.createUser({ username: "root", name: "Administrator", email: "admin@example.com", admin: true });
    store.createUser({ username: "sandbox-user", name: "Sandbox User", email: "sandbox-user@example.com" });
    if (opts.fixture !== undefined) {
      const source = typeof opts.fixture === "string" ? opts.fixture : "<inline>";
      const data = typeof opts.fixture === "string" ? loadFixtureFile(opts.fixture) : opts.fixture;
      applyFixture(store, data, app.fixtureHooks, source);
    }
  }
  const root =
    store.userByUsername("root") ??
    store.createUser({ username: "root", name: "Administrator", email: "admin@example.com", admin: true });
  root.admin = true;
  const regular =
    store.userByUsername("sandbox-user") ??
    store.createUser({ username: "sandbox-user", name: "Sandbox User", email: "sandbox-user@example.com" });
  const adminToken = opts.adminToken ?? `sbx-admin-${randomToken(20)}`;
  const userToken = opts.userToken ?? `sbx-user-${randomToken(20)}`;
  // The tokens given at start replace those given at earlier starts: restarting with another token revokes the old.
  store.setStartToken(adminToken, root.id, "admin");
  store.setStartToken(userToken, regular.id, "user");
  if (opts.rateLimit !== undefined) {
    const limit = typeof opts.rateLimit === "string" ? parseRateLimit(opts.rateLimit) : opts.rateLimit;
    enableRateLimit(store, limit, app.licensed);
  }
  store.persist();
  return { app, store, adminToken, userToken };
}

/** Starts the sandbox on node:http. */
export async function startSandbox(opts: SandboxOptions = {}): Promise<RunningSandbox> {
  const { app, store, adminToken, userToken } = createSandboxApp(opts);
  const injector = new FaultInjector(
    parseFaults(opts.faults ?? ""),
    parseLatency(opts.latencyMs),
    opts.seed ?? 1,
  );
  const retryAfter = String(opts.retryAfterSeconds ?? 1);
  const throttle = new ApiThrottle(store);
  const writes = new WriteQueue();
  /**
   * A write runs alone (after its route's `prepare`), and its state is saved before it is answered. When the state
   * cannot be saved, or the handler fails unexpectedly, the change is undone in memory (the state as last saved is
   * put back) and the answer is a 500: a write is never answered as done unless it is kept.
   */
  const exclusive = (method: string, path: string) => (run: () => Promise<Reply>) =>
    writes.run(async () => {
      let reply: Reply;
      try {
        reply = await run();
      } catch (error) {
        opts.log?.(`sandbox: ${method} ${path} failed: ${(error as Error).stack ?? String(error)}`);
        if (store.rollback()) opts.log?.(`sandbox: ${method} ${path}: its changes were undone`);
        return INTERNAL_ERROR();
      }
      if (!changesState(reply.status)) return reply;
      try {
        store.persist();
      } catch (error) {
        opts.log?.(`${(error as Error).message}; ${method} ${path} answered 500 and was undone`);
        store.rollback();
        return INTERNAL_ERROR();
      }
      return reply;
    });

  const maxBody = Math.round((opts.maxBodyMb ?? DEFAULT_MAX_BODY_MB) * 1024 * 1024);
  const server = createServer((req, res) => {
    // Who is asking is known before the body is read: only a request whose every credential is a token of this
    // sandbox may send more than a small body (a form carrying private_token), and no body may exceed the cap. A
    // refused body is not read: the answer goes out and the connection is closed.
    const rawUrl = req.url ?? "/";
    const queryAt = rawUrl.indexOf("?");
    let credentials: CredentialStatus;
    try {
      credentials = app.credentialsOf(
        req.headers,
        queryAt < 0 ? "" : rawUrl.slice(queryAt + 1),
        queryAt < 0 ? rawUrl : rawUrl.slice(0, queryAt),
      );
    } catch (error) {
      // A route module's check failing (a broken table in the state file) must not take the server down.
      opts.log?.(
        `sandbox: checking the credentials of ${req.method} failed: ${(error as Error).stack ?? String(error)}`,
      );
      credentials = "unknown";
    }
    const limit = credentials === "known" ? maxBody : ANONYMOUS_BODY_BYTES;
    const refuse = () => {
      if (res.headersSent) return;
      const [status, message] =
        credentials === "known"
          ? [
              413,
              `413 Request Entity Too Large: bodies may have at most ${opts.maxBodyMb ?? DEFAULT_MAX_BODY_MB} MiB`,
            ]
          : [401, "401 Unauthorized"];
      req.pause();
      res.writeHead(status, { "Content-Type": "application/json", Connection: "close" });
      res.end(JSON.stringify({ message }), () => req.socket.destroy());
    };
    if (Number(req.headers["content-length"] ?? 0) > limit) {
      refuse();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (c: Buffer) => {
      if (refused) return;
      size += c.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        refuse();
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => {
      if (refused) return;
      void (async () => {
        const method = (req.method ?? "GET").toUpperCase();
        const url = req.url ?? "/";
        const q = url.indexOf("?");
        const path = q < 0 ? url : url.slice(0, q);
        const rawQuery = q < 0 ? "" : url.slice(q + 1);
        opts.onRequest?.(method, path);
        // The latency is the time from a request's arrival to its answer, the sandbox's own work included (as a
        // real server's is in what a client sees): the request is handled at once, and answered when it is up.
        const arrived = performance.now();
        const delay = injector.delay();
        const latencyUp = async () => {
          const rest = delay - (performance.now() - arrived);
          if (rest > 0) await new Promise((r) => setTimeout(r, rest));
        };
        const fault = credentials === "none" ? undefined : injector.pick(method, path);
        if (fault !== undefined && fault !== "drop-after-commit") await latencyUp();
        if (fault === "reset") {
          req.socket.destroy();
          return;
        }
        if (fault === "429") {
          res.writeHead(429, { "Content-Type": "text/plain", "Retry-After": retryAfter });
          res.end("Retry later\n");
          return;
        }
        if (fault === "500") {
          send(res, INTERNAL_ERROR(), false);
          return;
        }
        if (fault === "502" || fault === "503") {
          const text = fault === "502" ? "502 Bad Gateway" : "503 Service Unavailable";
          res.writeHead(Number(fault), { "Content-Type": "text/html" });
          res.end(`<html><head><title>${text}</title></head><body><h1>${text}</h1></body></html>\n`);
          return;
        }
        const rawBody = Buffer.concat(chunks);
        let reply: Reply;
        let throttled = false;
        try {
          const { body, json } = await parseBody(req.headers, rawBody);
          const sreq: SandboxRequest = {
            method,
            path,
            rawQuery,
            query: parseQuery(rawQuery),
            body,
            json,
            rawBody,
            headers: req.headers,
            header: (name) => {
              const v = req.headers[name.toLowerCase()];
              return Array.isArray(v) ? v[0] : v;
            },
          };
          // Rack::Attack answers before the application: a throttled request is not processed.
          const userOf = () => {
            const token = SandboxApp.tokenOf(sreq);
            return token === undefined ? undefined : store.userByToken(token)?.id;
          };
          const limited = throttle.check(path, userOf, req.socket.remoteAddress ?? "");
          throttled = limited !== undefined;
          if (throttled) opts.onThrottled?.(method, path);
          reply =
            limited ?? (await app.handle(sreq, READS.has(method) ? undefined : exclusive(method, path)));
        } catch (error) {
          const e = error as { status?: number; body?: unknown; headers?: Record<string, string> };
          if (typeof e.status === "number" && e.body !== undefined) {
            reply = { status: e.status, body: e.body, headers: e.headers ?? {}, kind: "json" } as Reply;
          } else {
            opts.log?.(`sandbox: ${method} ${path} failed: ${(error as Error).stack ?? String(error)}`);
            reply = INTERNAL_ERROR();
          }
        }
        await latencyUp();
        if (fault === "drop-after-commit") {
          req.socket.destroy();
          return;
        }
        send(res, reply, method === "HEAD");
      })().catch((error: unknown) => {
        opts.log?.(`sandbox: ${String(error)}`);
        if (!res.headersSent) res.writeHead(500, { "Content-Type": "application/json" });
        res.end('{"message":"500 Internal Server Error"}');
      });
    });
  });

  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    adminToken,
    userToken,
    store,
    app,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
