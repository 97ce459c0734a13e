/** A local node:http server for the API client tests: scripted handlers, every request recorded. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Seen {
  method: string;
  /** Path and query as received. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Handler = (req: Seen, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface TestServer {
  url: string;
  seen: Seen[];
  /** Most requests in flight at the same time so far. */
  maxInFlight: () => number;
  inFlight: () => number;
  close: () => Promise<void>;
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const seen: Seen[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((raw, res) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    let done = false;
    const finish = () => {
      if (!done) {
        done = true;
        inFlight -= 1;
      }
    };
    res.on("finish", finish);
    res.on("close", finish);
    const chunks: Buffer[] = [];
    raw.on("data", (chunk: Buffer) => chunks.push(chunk));
    raw.on("end", () => {
      const url = new URL(raw.url ?? "/", "http://localhost");
      const req: Seen = {
        method: raw.method ?? "",
        url: raw.url ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: raw.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(req);
      Promise.resolve(handler(req, res, raw)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    maxInFlight: () => maxInFlight,
    inFlight: () => inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

/** Offset pagination headers the way the platform builds them. */
export function pageHeaders(opts: {
  page: number;
  perPage: number;
  total: number;
  withTotals?: boolean;
  base: string;
}): Record<string, string> {
  const totalPages = Math.max(1, Math.ceil(opts.total / opts.perPage));
  const pastEnd = opts.page > totalPages;
  const next = !pastEnd && opts.page < totalPages ? String(opts.page + 1) : "";
  const link = (page: number, rel: string) =>
    `<${opts.base}?page=${page}&per_page=${opts.perPage}>; rel="${rel}"`;
  const links: string[] = [];
  if (next) links.push(link(opts.page + 1, "next"));
  links.push(link(1, "first"));
  const headers: Record<string, string> = {
    "x-page": String(opts.page),
    "x-per-page": String(opts.perPage),
    "x-next-page": next,
    "x-prev-page": !pastEnd && opts.page > 1 ? String(opts.page - 1) : "",
  };
  if (opts.withTotals !== false) {
    links.push(link(totalPages, "last"));
    headers["x-total"] = String(opts.total);
    headers["x-total-pages"] = String(totalPages);
  }
  headers["link"] = links.join(", ");
  return headers;
}

/** Serves `items` as a paginated list at any path. */
export function paginated(
  items: unknown[],
  opts: { withTotals?: boolean; hold?: () => Promise<void> } = {},
): Handler {
  return async (req, res) => {
    const page = Number(req.query.get("page") ?? "1") || 1;
    const perPage = Math.min(100, Number(req.query.get("per_page") ?? "20") || 20);
    if (opts.hold && page > 1) await opts.hold();
    const slice = items.slice((page - 1) * perPage, page * perPage);
    const base = `http://gitlab.example.com${req.path}`;
    json(
      res,
      200,
      slice,
      pageHeaders({ page, perPage, total: items.length, withTotals: opts.withTotals, base }),
    );
  };
}

/** Sleep for tests that must not wait: records the delays it was asked for. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}
