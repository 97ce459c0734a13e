/**
 * The client's exchange (src/api/exchange.ts) over real HTTP: the body's size limit at its boundary, read and
 * announced; the timeout of the whole exchange, also for a request still waiting for a connection; the headers as
 * the client reads them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type ExchangeRequest, exchange } from "../../src/api/exchange.js";
import { Pool } from "../../src/api/undici.js";

class TooLarge extends Error {
  constructor(
    readonly status: number,
    readonly declared: number | undefined,
  ) {
    super("too large");
  }
}

let closeAll: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closeAll.reverse()) await close();
  closeAll = [];
});

/** A server answering with `handle`, a pool of `connections` to it, and the requests the server received. */
async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void, connections = 1) {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    handle(req, res);
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const pool = new Pool(origin, { connections });
  closeAll.push(async () => {
    await pool.destroy();
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const request = (over: Partial<ExchangeRequest> = {}): ExchangeRequest => ({
    origin,
    path: "/x",
    method: "GET",
    headers: {},
    body: null,
    timeoutMs: 2000,
    maxBytes: 10,
    timedOut: () => new Error("timed out"),
    tooLarge: (status, declared) => new TooLarge(status, declared),
    ...over,
  });
  return { pool, request, received };
}

/** Answers `size` bytes, announced with Content-Length or sent chunked. */
const bytes = (size: number, announced: boolean) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, announced ? { "content-length": String(size) } : {});
  res.end("a".repeat(size));
};

describe("exchange", () => {
  it.each([true, false])("reads a body of exactly the limit (announced: %s)", async (announced) => {
    const { pool, request } = await serve(bytes(10, announced));
    const res = await exchange(pool, request());
    expect(res.status).toBe(200);
    expect(res.bytes.toString()).toBe("a".repeat(10));
  });

  it("refuses a body one byte over the limit while reading it", async () => {
    const { pool, request } = await serve(bytes(11, false));
    const error = await exchange(pool, request()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooLarge);
    expect(error).toMatchObject({ status: 200, declared: undefined });
  });

  it("refuses a body announced one byte over the limit before reading it", async () => {
    let written = false;
    const { pool, request } = await serve((_req, res) => {
      res.writeHead(200, { "content-length": "11" });
      res.flushHeaders();
      // The body would come a second later: the exchange must not wait for it.
      setTimeout(() => {
        written = true;
        res.end("a".repeat(11));
      }, 1000).unref();
    });
    const error = await exchange(pool, request()).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 200, declared: 11 });
    expect(written).toBe(false);
  });

  it("reads an empty body, and a HEAD's", async () => {
    const { pool, request } = await serve((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    expect((await exchange(pool, request())).bytes.length).toBe(0);
    expect((await exchange(pool, request({ method: "HEAD" }))).status).toBe(204);
  });

  it("times out the whole exchange, however the server trickles its body", async () => {
    const { pool, request } = await serve((_req, res) => {
      res.writeHead(200);
      const tick = setInterval(() => res.write("a"), 20);
      res.on("close", () => clearInterval(tick));
    });
    await expect(exchange(pool, request({ timeoutMs: 300, maxBytes: 1000 }))).rejects.toThrow("timed out");
  });

  it("times out a request still waiting for a connection, and never sends it", async () => {
    const { pool, request, received } = await serve((_req, res) => {
      setTimeout(() => res.end("{}"), 600).unref();
    }, 1);
    const first = exchange(pool, request({ path: "/first", timeoutMs: 2000 }));
    const second = exchange(pool, request({ path: "/second", timeoutMs: 200 }));
    await expect(second).rejects.toThrow("timed out");
    expect((await first).bytes.toString()).toBe("{}");
    // The second was given up while queued: once the connection is free, it is not sent after all.
    await new Promise((r) => setTimeout(r, 100));
    expect(received).toEqual(["GET /first"]);
  });

  it("sends the method, headers and body, and reads the headers by lower-case name, repeated ones joined", async () => {
    let seen: { method?: string; token?: string; body: string } = { body: "" };
    const { pool, request } = await serve((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        seen = {
          ...(req.method ? { method: req.method } : {}),
          ...(typeof req.headers["private-token"] === "string"
            ? { token: req.headers["private-token"] }
            : {}),
          body,
        };
        res.setHeader("Link", ['<a>; rel="next"', '<b>; rel="last"']);
        res.setHeader("X-Total", "3");
        res.setHeader("__proto__", "x");
        res.end("ok");
      });
    });
    const res = await exchange(
      pool,
      request({ method: "PUT", headers: { "PRIVATE-TOKEN": "t" }, body: '{"a":1}' }),
    );
    expect(seen).toEqual({ method: "PUT", token: "t", body: '{"a":1}' });
    expect(res.headers.link).toBe('<a>; rel="next", <b>; rel="last"');
    expect(res.headers["x-total"]).toBe("3");
    expect(Object.getPrototypeOf(res.headers)).toBe(Object.prototype);
    expect(Object.hasOwn(res.headers, "__proto__")).toBe(false);
  });

  it("fails with undici's error when the connection is refused", async () => {
    const { request } = await serve(bytes(1, true));
    // Port 1 on the loopback: nothing listens there.
    const pool = new Pool("http://127.0.0.1:1", { connections: 1 });
    closeAll.push(() => pool.destroy());
    await expect(exchange(pool, request({ origin: "http://127.0.0.1:1" }))).rejects.toMatchObject({
      code: "ECONNREFUSED",
    });
  });
});
