/**
 * The client's undici (src/api/undici.ts): undici's own modules, loaded without its index. They must be the
 * index's classes (an undici release that moves them fails here, not in a user's run), and the client's exchange
 * (src/api/exchange.ts) must make requests through them in a process that never loads the index (the command
 * line's).
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import * as undici from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, EnvHttpProxyAgent, Pool } from "../../src/api/undici.js";

const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);

describe("undici's modules the client loads", () => {
  it("are the classes undici's index exports", () => {
    expect(Pool).toBe(undici.Pool);
    expect(EnvHttpProxyAgent).toBe(undici.EnvHttpProxyAgent);
    expect(connect).toBe(undici.Dispatcher.prototype.connect);
  });

  describe("in a process that loads only them", () => {
    let server: ReturnType<typeof createServer>;
    let url = "";
    beforeAll(async () => {
      server = createServer((req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ method: req.method, path: req.url }));
      });
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((r) => server.close(() => r())));

    it("make requests, and neither undici's index nor its request API is ever loaded", async () => {
      const script = `
        import { createRequire } from "node:module";
        const { Pool, EnvHttpProxyAgent } = await import(${JSON.stringify(join(ROOT, "lib/api/undici.js"))});
        const { exchange } = await import(${JSON.stringify(join(ROOT, "lib/api/exchange.js"))});
        const request = (method, path) => ({
          origin: ${JSON.stringify(url)}, path, method, headers: {}, body: null, timeoutMs: 5000, maxBytes: 1000,
          timedOut: () => new Error("timed out"), tooLarge: () => new Error("too large"),
        });
        const pool = new Pool(${JSON.stringify(url)}, { connections: 2 });
        const res = await exchange(pool, request("GET", "/api/v4/version"));
        const body = JSON.parse(res.bytes.toString("utf8"));
        await pool.close();
        const agent = new EnvHttpProxyAgent({ noProxy: "*" });
        const viaAgent = await exchange(agent, request("HEAD", "/x"));
        await agent.close();
        const require = createRequire(import.meta.url);
        const loaded = Object.keys(require.cache);
        console.log(JSON.stringify({
          status: res.status, body, agentStatus: viaAgent.status,
          indexLoaded: loaded.includes(require.resolve("undici")),
          requestApiLoaded: loaded.includes(require.resolve("undici/lib/api/api-request.js")),
        }));`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT });
      expect(JSON.parse(stdout)).toEqual({
        status: 200,
        body: { method: "GET", path: "/api/v4/version" },
        agentStatus: 200,
        indexLoaded: false,
        requestApiLoaded: false,
      });
    });
  });
});
