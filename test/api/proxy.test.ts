/**
 * HTTPS_PROXY / HTTP_PROXY / NO_PROXY: self-hosted runners sit behind proxies. The client (CLI and Action alike)
 * goes through the proxy the environment names, and straight to hosts NO_PROXY lists.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { platformProxy, proxySettings } from "../../src/api/proxy.js";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { type ConnectProxy, startConnectProxy } from "../connect-proxy.js";

describe("proxies from the environment", () => {
  let sandbox: RunningSandbox;
  let proxy: ConnectProxy;
  let proxyUrl: string;
  let tunnels: string[];
  beforeAll(async () => {
    sandbox = await startSandbox({ adminToken: "proxy-admin" });
    // A CONNECT proxy that records where it tunnels to.
    proxy = await startConnectProxy();
    proxyUrl = proxy.url;
    tunnels = proxy.tunnels;
  });
  afterAll(async () => {
    await sandbox.stop();
    await proxy.stop();
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

  it("blames a refused connection on the proxy only when the request went through it", async () => {
    // A port nothing listens on: both the platform's and the proxy's address refuse.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const attempt = async (env: NodeJS.ProcessEnv) => {
      const api = new ApiClient({ url: `http://127.0.0.1:${port}`, token: "t", maxAttempts: 1, env });
      try {
        return await api.get("/version").then(
          () => "answered",
          (error: Error) => error.message,
        );
      } finally {
        await api.close();
      }
    };
    const proxy = `http://127.0.0.1:${port}`;
    expect(await attempt({ HTTP_PROXY: proxy })).toBe(
      `GET /version -> the proxy ${proxy} (HTTP_PROXY) refused the connection: check that it is up and that HTTP_PROXY is right (ECONNREFUSED)`,
    );
    expect(await attempt({ HTTP_PROXY: proxy, NO_PROXY: `127.0.0.1:${port}` })).toBe(
      "GET /version -> connection refused: is the URL right and the platform up? (--url / FORGEFORM_URL) (ECONNREFUSED)",
    );
  });
});

describe("which proxy a request to the platform goes through", () => {
  const via = (url: string, env: NodeJS.ProcessEnv) => platformProxy(new URL(url), proxySettings(env));

  it("takes HTTPS_PROXY for https (HTTP_PROXY when it is not set) and HTTP_PROXY for http", () => {
    const env = { HTTPS_PROXY: "http://secure:3128", HTTP_PROXY: "http://plain:3128" };
    expect(via("https://code.example.com", env)).toEqual({
      variable: "HTTPS_PROXY",
      shown: "http://secure:3128",
    });
    expect(via("http://code.example.com", env)).toEqual({
      variable: "HTTP_PROXY",
      shown: "http://plain:3128",
    });
    expect(via("https://code.example.com", { http_proxy: "http://plain:3128" })).toEqual({
      variable: "HTTP_PROXY",
      shown: "http://plain:3128",
    });
    expect(via("https://code.example.com", {})).toBeUndefined();
  });

  it("goes straight to hosts NO_PROXY lists: a name, a domain suffix, a port, or every host", () => {
    const env = (noProxy: string) => ({ HTTPS_PROXY: "http://user:pw@proxy:3128", NO_PROXY: noProxy });
    expect(via("https://code.example.com", env("code.example.com"))).toBeUndefined();
    expect(via("https://code.example.com", env(".example.com"))).toBeUndefined();
    expect(via("https://code.example.com", env("*.example.com"))).toBeUndefined();
    expect(via("https://code.example.com", env("example.com:443"))).toBeUndefined();
    expect(via("https://code.example.com", env("*"))).toBeUndefined();
    // Another port, another host, a name that only ends alike: through the proxy, its credentials masked.
    for (const other of ["code.example.com:8443", "other.example.com", "ample.com"]) {
      expect(via("https://code.example.com", env(other)), other).toEqual({
        variable: "HTTPS_PROXY",
        shown: "http://***@proxy:3128",
      });
    }
  });

  it("refuses a proxy variable that is not an http(s) URL, naming it and hiding its credentials", () => {
    expect(() => proxySettings({ HTTP_PROXY: "proxy.corp:3128" })).toThrow(
      "HTTP_PROXY (proxy.corp:3128) is not a proxy URL forgeform can use: it has no scheme (http://)",
    );
    expect(() => proxySettings({ https_proxy: "socks5://u:p@proxy.corp:1080" })).toThrow(
      "HTTPS_PROXY (socks5://***@proxy.corp:1080) is not a proxy URL forgeform can use: its scheme is socks5, and only http and https proxies are supported",
    );
  });
});
