/**
 * The hostile-server harness for the client's security probes: a platform stand-in (a node:http server, see
 * test/api/server.ts) that answers `/version` like the platform and, on the routes a probe names, misbehaves in
 * one of the ways below. Probes drive the real CLI (in-process, `runCli`) or the real ApiClient against it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import { ApiClient, type ClientOptions } from "../../src/api/index.js";
import { type Handler, json, startServer, type TestServer } from "../api/server.js";
import { type CliResult, runCli } from "../integration/helpers.js";

export const TOKEN = "glpat-hostile-probe-token-0123";

/** Routes as `METHOD /path` (the path after /api/v4 or /api/scim/v2, query left out) -> handler. */
export type Routes = Record<string, Handler>;

export interface HostilePlatform {
  server: TestServer;
  /** Requests seen on a route (`METHOD /path`), in order. */
  seenOn: (route: string) => number;
  /** Runs the CLI against this server with the probe token. */
  cli: (args: string[], env?: Record<string, string>) => Promise<CliResult>;
  close: () => Promise<void>;
}

/** Starts the platform stand-in: `GET /version` answers as the platform does unless `routes` says otherwise. */
export async function hostilePlatform(routes: Routes): Promise<HostilePlatform> {
  const all: Routes = {
    "GET /version": (_req, res) => json(res, 200, { version: "16.11.0-ee", revision: "abc" }),
    ...routes,
  };
  const route = (method: string, path: string) =>
    `${method} ${path.replace(/^\/api\/(v4|scim\/v2)/, "").replace(/%2F/gi, "/")}`;
  const server = await startServer(async (req, res, raw) => {
    const handler = all[route(req.method, req.path)];
    if (handler) return handler(req, res, raw);
    json(res, 404, { message: "404 Not Found" });
  });
  return {
    server,
    seenOn: (name) => server.seen.filter((r) => route(r.method, r.path) === name).length,
    cli: (args, env = {}) => runCli(args, { FORGEFORM_URL: server.url, FORGEFORM_TOKEN: TOKEN, ...env }),
    close: () => server.close(),
  };
}

/**
 * For a test file of probes: `start` a platform stand-in, `connect` a real ApiClient to it (probe token, SCIM
 * token, any options); both are closed after each test.
 */
export function probes() {
  const platforms: HostilePlatform[] = [];
  const clients: ApiClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close();
    for (const p of platforms.splice(0)) await p.close();
  });
  return {
    start: async (routes: Routes): Promise<HostilePlatform> => {
      const p = await hostilePlatform(routes);
      platforms.push(p);
      return p;
    },
    connect: (p: HostilePlatform, extra: Partial<ClientOptions> = {}): ApiClient => {
      const c = new ApiClient({
        url: p.server.url,
        token: TOKEN,
        scimToken: "scim-probe-token-4567",
        ...extra,
      });
      clients.push(c);
      return c;
    },
  };
}

/** Writes a manifest into a new temporary directory; returns its path. */
export function manifest(text: string, name = "forgeform.yaml"): string {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-probe-"));
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** One project with one trigger: reading it lists `GET /projects/acme/api/triggers` and nothing else. */
export const TRIGGER_MANIFEST = `version: 1
projects:
  acme/api:
    triggers:
      - description: deploy
`;

const page = (req: { query: URLSearchParams }) => Number(req.query.get("page") ?? "1") || 1;

// ---- Pagination that never ends ----

/**
 * The first `full` pages hold one object each; every page after them is empty, and every page says there is a next
 * one (X-Next-Page = page + 1).
 */
export function endlessNextPage(full: number, item: (n: number) => unknown): Handler {
  return (req, res) =>
    json(res, 200, page(req) <= full ? [item(page(req))] : [], {
      "x-page": String(page(req)),
      "x-next-page": String(page(req) + 1),
    });
}

/** As endlessNextPage, with a `Link rel="next"` holding a new cursor on every page instead. */
export function endlessCursor(full: number, item: (n: number) => unknown): Handler {
  return (req, res) => {
    const n = Number(req.query.get("cursor") ?? "1");
    json(res, 200, n <= full ? [item(n)] : [], {
      link: `<http://hostile.invalid/api/v4${req.path}?cursor=${n + 1}&per_page=100>; rel="next"`,
    });
  };
}

/** Every page holds one more object and points at the next page: a list with no end. */
export function endlessPages(item: (n: number) => unknown): Handler {
  return (req, res) =>
    json(res, 200, [item(page(req))], { "x-page": String(page(req)), "x-next-page": String(page(req) + 1) });
}

/**
 * `X-Total-Pages: totalPages` on every page, but only the first `real` pages hold anything: a client that
 * trusts the header queues `totalPages` requests.
 */
export function hugeTotalPages(totalPages: number, real: number, item: (n: number) => unknown): Handler {
  return (req, res) =>
    json(res, 200, page(req) <= real ? [item(page(req))] : [], {
      "x-page": String(page(req)),
      "x-next-page": String(page(req) + 1),
      "x-total-pages": String(totalPages),
      "x-total": String(totalPages * 100),
    });
}

/** A SCIM ListResponse of one user per page that claims `totalResults` users. */
export function scimEndless(totalResults: number): Handler {
  return (req, res) => {
    const start = Number(req.query.get("startIndex") ?? "1");
    json(res, 200, {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults,
      itemsPerPage: 1,
      startIndex: start,
      Resources: [{ id: `u${start}`, userName: `user${start}`, active: true }],
    });
  };
}

// ---- Bodies that are too big or too slow ----

/** A 200 JSON list `bytes` long, streamed in 64 KiB chunks; `declare` sends its Content-Length first. */
export function bigBody(bytes: number, declare: boolean): Handler {
  return (_req, res) => {
    res.writeHead(200, {
      "content-type": "application/json",
      ...(declare ? { "content-length": String(bytes) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, " ");
    let sent = 0;
    res.write("[");
    sent += 1;
    const pump = () => {
      while (sent < bytes - 1) {
        const n = Math.min(chunk.length, bytes - 1 - sent);
        sent += n;
        if (!res.write(chunk.subarray(0, n))) return void res.once("drain", pump);
        if (res.destroyed) return;
      }
      res.end("]");
    };
    res.on("error", () => {});
    pump();
  };
}

/** Headers at once, then a JSON body one byte every `everyMs`: never idle long enough for a between-bytes timer. */
export function trickle(body: string, everyMs: number): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    let i = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(body[i++] ?? "");
      if (i >= body.length) {
        clearInterval(timer);
        res.end();
      }
    }, everyMs);
    res.on("close", () => clearInterval(timer));
  };
}

// ---- Broken answers ----

/** Status 200, JSON content type, a body cut off in the middle. */
export const malformedJson: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "application/json" });
  res.end('{"version": "16.11.0-ee", "revis');
};

/** Status 200 with a sign-in page, as a single-sign-on proxy answers. */
export const loginPage: Handler = (_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end(
    "<!DOCTYPE html><html><head><title>Sign in · Example SSO</title></head><body><form></form></body></html>",
  );
};

/** A redirect to `location` (and nothing else). */
export function redirect(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location });
    res.end();
  };
}

/** An error whose message is `message` (e.g. terminal escape sequences). */
export function errorSaying(message: string, status = 400): Handler {
  return (_req, res) => json(res, status, { message });
}

/** Output with wrapped lines joined and runs of white space made one space, for matching whole sentences. */
export const prose = (text: string) => text.replace(/\s+/g, " ");
