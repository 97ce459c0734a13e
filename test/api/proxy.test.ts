/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY: self-hosted runners sit behind proxies. The client (CLI and Action alike)
 * goes through the proxy the environment names, and straight to hosts NO_PROXY lists.
 */
import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";

describe("proxies from the environment", () => {
  let sandbox: RunningSandbox;
  let proxy: Server;
  let proxyUrl: string;
  const tunnels: string[] = [];
  beforeAll(async () => {
    sandbox = await startSandbox({ adminToken: "proxy-admin" });
    // A CONNECT proxy that records where it tunnels to.
    proxy = createServer((_req, res) => {
      res.writeHead(405);
      res.end();
    });
    proxy.on("connect", (req, client, head) => {
      tunnels.push(String(req.url));
      const [host, port] = String(req.url).split(":");
      const upstream = connect(Number(port), host!, () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
    });
    await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
    proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await sandbox.stop();
    proxy.closeAllConnections();
    await new Promise((r) => proxy.close(r));
  });

  it("goes through HTTP_PROXY", async () => {
    tunnels.length = 0;
    const api = new ApiClient({ url: sandbox.url, token: "proxy-admin", env: { HTTP_PROXY: proxyUrl } });
    try {
      expect(await api.get<{ version: string }>("/version")).toHaveProperty("version");
    } finally {
      await api.close();
    }
    expect(tunnels).toEqual([new URL(sandbox.url).host]);
  });

  it("goes straight to a host NO_PROXY lists", async () => {
    tunnels.length = 0;
    const api = new ApiClient({
      url: sandbox.url,
      token: "proxy-admin",
      env: { http_proxy: proxyUrl, no_proxy: "127.0.0.1" },
    });
    try {
      expect(await api.get<{ version: string }>("/version")).toHaveProperty("version");
    } finally {
      await api.close();
    }
    expect(tunnels).toEqual([]);
  });
});
