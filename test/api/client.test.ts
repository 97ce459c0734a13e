import { execFileSync } from "node:child_process";
import diagnostics from "node:diagnostics_channel";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  ApiClient,
  apiPath,
  ClientConfigError,
  type ClientOptions,
  NetworkError,
  OutcomeUnknownError,
} from "../../src/api/index.js";
import { Secret } from "../../src/manifest/secret.js";
import { type Handler, json, paginated, recordingSleep, startServer, type TestServer } from "./server.js";

const TOKEN = "glpat-abcdefSECRET123";
const SCIM_TOKEN = "scim-zyxwvSECRET987";

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Handler, extra: Partial<ClientOptions> = {}) {
  server = await startServer(handler);
  client = new ApiClient({ url: server.url, token: TOKEN, scimToken: SCIM_TOKEN, ...extra });
  return { server, client };
}

const ok: Handler = (req, res) => {
  if (req.method === "DELETE") {
    res.writeHead(204);
    res.end();
    return;
  }
  json(res, 200, { ok: true });
};

describe("requests", () => {
  it("sends REST calls to /api/v4 with PRIVATE-TOKEN", async () => {
    const { server, client } = await setup(ok, { userAgent: "forgeform/9.9" });
    await client.get(apiPath`/projects/${"acme/platform"}/pipeline_schedules`);
    const req = server.seen[0]!;
    expect(req.url).toBe("/api/v4/projects/acme%2Fplatform/pipeline_schedules");
    expect(req.headers["private-token"]).toBe(TOKEN);
    expect(req.headers["authorization"]).toBeUndefined();
    expect(req.headers["accept"]).toBe("application/json");
    expect(req.headers["user-agent"]).toBe("forgeform/9.9");
  });

  it("sends SCIM calls to /api/scim/v2 with the SCIM token as Bearer and the SCIM content type", async () => {
    const { server, client } = await setup(ok);
    await client.post(apiPath`/groups/${"acme"}/Users`, { scim: true, body: { userName: "jo" } });
    const req = server.seen[0]!;
    expect(req.url).toBe("/api/scim/v2/groups/acme/Users");
    expect(req.headers["authorization"]).toBe(`Bearer ${SCIM_TOKEN}`);
    expect(req.headers["content-type"]).toBe("application/scim+json");
    expect(req.headers["private-token"]).toBeUndefined();
    expect(JSON.parse(req.body)).toEqual({ userName: "jo" });
  });

  it("refuses a SCIM call without a SCIM token, naming the variable", async () => {
    const { client } = await setup(ok, { scimToken: undefined });
    await expect(client.get("/groups/acme/Users", { scim: true })).rejects.toThrow(/FORGEFORM_SCIM_TOKEN/);
  });

  it("keeps a path prefix of the URL and drops a trailing /api/v4", async () => {
    server = await startServer(ok);
    client = new ApiClient({ url: `${server.url}/gitlab/api/v4/`, token: TOKEN });
    await client.get("/version");
    expect(server.seen[0]?.url).toBe("/gitlab/api/v4/version");
  });

  it("sends JSON bodies with Secret values revealed only on the wire", async () => {
    const { server, client } = await setup(ok);
    const secret = new Secret("hook-s3cret-value", "env:HOOK_TOKEN");
    await client.post("/hooks", { body: { url: "https://h", token: secret, nested: [{ value: secret }] } });
    const req = server.seen[0]!;
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body)).toEqual({
      url: "https://h",
      token: "hook-s3cret-value",
      nested: [{ value: "hook-s3cret-value" }],
    });
  });

  it("masks Secret values the platform echoes back in an error", async () => {
    const { client } = await setup((req, res) =>
      json(res, 400, { message: `bad value ${JSON.parse(req.body).v}` }),
    );
    const error = await client
      .post("/x", { body: { v: new Secret("echoed-s3cret", "literal") } })
      .catch((e: unknown) => e as Error);
    if (!(error instanceof Error)) throw new Error("expected the request to fail");
    expect(error.message).not.toContain("echoed-s3cret");
    expect(error.message).toContain("bad value [REDACTED]");
  });

  it("sends form bodies URL-encoded with arrays as k[]=v", async () => {
    const { server, client } = await setup(ok);
    await client.post("/projects/1/protected_environments", {
      form: { name: "prod env", deploy_access_levels: ["a", "b"], skip: undefined, variables: { K: "v 1" } },
    });
    const req = server.seen[0]!;
    expect(req.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    const form = new URLSearchParams(req.body);
    expect(form.get("name")).toBe("prod env");
    expect(form.getAll("deploy_access_levels[]")).toEqual(["a", "b"]);
    expect(form.get("variables[K]")).toBe("v 1");
    expect(form.has("skip")).toBe(false);
  });

  it("sends multipart bodies", async () => {
    const { server, client } = await setup(ok);
    const data = new FormData();
    data.set("branch", "main");
    data.set("file", new Blob(["hello"]), "a.txt");
    await client.post("/projects/1/wikis/attachments", { multipart: data });
    const req = server.seen[0]!;
    expect(req.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(req.body).toContain('name="file"; filename="a.txt"');
    expect(req.body).toContain("hello");
  });

  it("encodes query arrays as k[]=v and merges them with a query already in the path", async () => {
    const { server, client } = await setup(ok);
    await client.get("/keys?fingerprint=SHA256%3Aab%2Fc", {
      query: { ids: [1, 2], active: false, none: null },
    });
    const req = server.seen[0]!;
    expect(req.query.get("fingerprint")).toBe("SHA256:ab/c");
    expect(req.query.getAll("ids[]")).toEqual(["1", "2"]);
    expect(req.query.get("active")).toBe("false");
    expect(req.query.has("none")).toBe(false);
  });

  it("returns null for a 204 and the raw status and headers from request()", async () => {
    const { client } = await setup((req, res) =>
      req.method === "DELETE"
        ? ok(req, res, undefined as never)
        : json(res, 202, { message: "202 Accepted" }, { "x-a": "1" }),
    );
    expect(await client.delete("/projects/1/badges/2")).toBeNull();
    const response = await client.request("DELETE", "/groups/5");
    expect(response).toEqual({ status: 204, headers: expect.any(Object), body: null });
    const accepted = await client.request("POST", "/groups/5/export");
    expect(accepted).toEqual({
      status: 202,
      headers: expect.objectContaining({ "x-a": "1" }),
      body: { message: "202 Accepted" },
    });
  });
});

describe("closing", () => {
  it("fails fast, without retrying, when used after close()", async () => {
    const rec = recordingSleep();
    const { server, client } = await setup(ok, { sleep: rec.sleep });
    await client.get("/version");
    await client.close();
    await expect(client.get("/version")).rejects.toThrow(/already closed/);
    expect(rec.delays).toEqual([]);
    expect(server.seen).toHaveLength(1);
  });
});

describe("transport safety", () => {
  it("refuses plain http to a host that is not loopback, and says how to fix it", () => {
    expect(() => new ApiClient({ url: "http://gitlab.example.com", token: TOKEN })).toThrow(
      ClientConfigError,
    );
    expect(() => new ApiClient({ url: "http://10.0.0.5:8080", token: TOKEN })).toThrow(
      /refusing plain http:\/\/ to 10\.0\.0\.5.*Use https:\/\/, or pass --insecure-http/,
    );
  });

  it("allows plain http to loopback addresses, and anywhere with insecureHttp", async () => {
    for (const url of [
      "http://localhost:1",
      "http://127.0.0.1:1",
      "http://127.8.9.10",
      "http://127.100.200.255",
      "http://LOCALHOST:1",
      "http://[::1]:8080",
    ]) {
      await new ApiClient({ url, token: TOKEN }).close();
    }
    await new ApiClient({ url: "http://gitlab.internal", token: TOKEN, insecureHttp: true }).close();
  });

  it("does not take a name that only starts or ends like a loopback address for one", () => {
    for (const url of ["http://127.0.0.1.nip.io", "http://localhost.example.com", "http://[::2]"]) {
      expect(() => new ApiClient({ url, token: TOKEN }), url).toThrow(/refusing plain http:\/\//);
    }
  });

  it("rejects URLs that are not http(s) or that carry credentials", () => {
    expect(() => new ApiClient({ url: "gitlab.example.com" })).toThrow(/not a valid URL.*FORGEFORM_URL/);
    expect(() => new ApiClient({ url: "ftp://gitlab.example.com" })).toThrow(/must start with https:\/\//);
    expect(() => new ApiClient({ url: "https://user:pw@gitlab.example.com" })).toThrow(
      /user name or password/,
    );
    // Either one alone is refused too.
    expect(() => new ApiClient({ url: "https://user@gitlab.example.com" })).toThrow(/user name or password/);
    expect(() => new ApiClient({ url: "https://:pw@gitlab.example.com" })).toThrow(/user name or password/);
  });

  it("says which CA file cannot be read", () => {
    expect(() => new ApiClient({ url: "https://gitlab.example.com", caFile: "/nonexistent/ca.pem" })).toThrow(
      /cannot read the CA file \/nonexistent\/ca.pem \(ENOENT\): check --ca-file/,
    );
  });

  describe("with a private CA", () => {
    let dir = "";
    let cert = "";
    let key = "";
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "forgeform-ca-"));
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=DNS:localhost,IP:127.0.0.1",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      cert = readFileSync(join(dir, "cert.pem"), "utf8");
      key = readFileSync(join(dir, "key.pem"), "utf8");
      return () => rmSync(dir, { recursive: true, force: true });
    });

    it("trusts the server with caFile and refuses it without, pointing at --ca-file", async () => {
      const https = createServer({ cert, key }, (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"version":"13.12.0"}');
      });
      await new Promise<void>((resolve) => https.listen(0, "127.0.0.1", resolve));
      const url = `https://127.0.0.1:${(https.address() as AddressInfo).port}`;
      try {
        const trusted = new ApiClient({ url, token: TOKEN, caFile: join(dir, "cert.pem") });
        expect(await trusted.get("/version")).toEqual({ version: "13.12.0" });
        await trusted.close();
        const untrusted = new ApiClient({ url, token: TOKEN, sleep: recordingSleep().sleep });
        const error = await untrusted.get("/version").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(NetworkError);
        expect((error as Error).message).toMatch(/--ca-file/);
        await untrusted.close();
      } finally {
        https.closeAllConnections();
        await new Promise((resolve) => https.close(resolve));
      }
    });
  });
});

describe("concurrency", () => {
  it("never has more requests in flight than the limit, across separate calls", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { server, client } = await setup(
      async (req, res) => {
        if (server !== undefined && server.inFlight() >= 4) release();
        await Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 2000))]);
        ok(req, res, undefined as never);
      },
      { concurrency: 4 },
    );
    await Promise.all(Array.from({ length: 20 }, (_, i) => client.get(`/projects/${i}`)));
    expect(server.seen).toHaveLength(20);
    expect(server.maxInFlight()).toBe(4);
  });

  it("lets a retrying request wait outside the limiter, so other requests go on", async () => {
    let calls = 0;
    const order: string[] = [];
    const { client } = await setup(
      (req, res) => {
        order.push(req.path);
        if (req.path.endsWith("/slow") && calls++ === 0) return json(res, 503, {}, { "retry-after": "0.2" });
        ok(req, res, undefined as never);
      },
      { concurrency: 1 },
    );
    await Promise.all([client.get("/slow"), client.get("/fast")]);
    expect(order).toEqual(["/api/v4/slow", "/api/v4/fast", "/api/v4/slow"]);
  });
});

describe("a freed slot", () => {
  it("sends the request waiting for it before the answer that freed it goes to its caller", async () => {
    const order: string[] = [];
    const sent = (message: unknown) => {
      const { request } = message as { request: { path: string } };
      order.push(`sent ${request.path}`);
    };
    const { client } = await setup(ok, { concurrency: 1 });
    // Two requests at once on a client of one slot: the second waits for the first's answer, as every request
    // past --concurrency does. Connections are opened (and kept alive) beforehand, as in any run past its start.
    await Promise.all([client.get("/warm/1"), client.get("/warm/2"), client.get("/warm/3")]);
    diagnostics.subscribe("undici:client:sendHeaders", sent);
    try {
      await Promise.all([
        client.get("/first").then(() => order.push("answered /api/v4/first")),
        client.get("/second").then(() => order.push("answered /api/v4/second")),
      ]);
    } finally {
      diagnostics.unsubscribe("undici:client:sendHeaders", sent);
    }
    // The second is sent before the first's answer goes on; the answers' own order is the network's.
    expect(order.slice(0, 2)).toEqual(["sent /api/v4/first", "sent /api/v4/second"]);
    expect(order.slice(2).sort()).toEqual(["answered /api/v4/first", "answered /api/v4/second"]);
  });

  it("sends the request that takes a freed slot on another kept-alive connection than the one just freed", async () => {
    const ports = new Map<string, number>();
    const sent = (message: unknown) => {
      const { request, socket } = message as { request: { path: string }; socket: { localPort: number } };
      ports.set(request.path, socket.localPort);
    };
    const { client } = await setup(ok, { concurrency: 1 });
    await Promise.all([client.get("/warm/1"), client.get("/warm/2"), client.get("/warm/3")]);
    diagnostics.subscribe("undici:client:sendHeaders", sent);
    try {
      await Promise.all([client.get("/first"), client.get("/second")]);
    } finally {
      diagnostics.unsubscribe("undici:client:sendHeaders", sent);
    }
    // The first's connection is reused only a turn of the event loop after its answer: the second does not wait.
    expect(ports.get("/api/v4/second")).toBeDefined();
    expect(ports.get("/api/v4/second")).not.toBe(ports.get("/api/v4/first"));
  });

  it("hands an answer over at once when no request waits for its slot", async () => {
    const order: string[] = [];
    // A timer set as the answer's last byte is read: a held-back answer would reach its caller after it.
    const ended = () => {
      setTimeout(() => order.push("timer"), 0);
    };
    const { client } = await setup(ok, { concurrency: 2 });
    await client.get("/warm");
    diagnostics.subscribe("undici:request:trailers", ended);
    try {
      await client.get("/alone").then(() => order.push("answered /api/v4/alone"));
      await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      diagnostics.unsubscribe("undici:request:trailers", ended);
    }
    expect(order).toEqual(["answered /api/v4/alone", "timer"]);
  });
});

describe("metrics and debug output", () => {
  it("counts requests per method and endpoint template, plus total, retries and pages", async () => {
    let failed = false;
    const list = paginated(Array.from({ length: 150 }, (_, i) => ({ id: i })));
    const { client } = await setup(
      (req, res, raw) => {
        if (req.path.endsWith("/pipeline_schedules")) return list(req, res, raw);
        if (!failed) {
          failed = true;
          return json(res, 502, {});
        }
        ok(req, res, raw);
      },
      { sleep: recordingSleep().sleep },
    );
    await client.get(apiPath`/projects/${"acme/api"}/pipeline_schedules/${3}`);
    await client.put(apiPath`/projects/${"acme/api"}/pipeline_schedules/${4}`, { body: {} });
    await client.list(apiPath`/projects/${12}/pipeline_schedules`);
    await client.list("/projects/acme%2Fweb/pipeline_schedules");
    expect(client.metrics.snapshot()).toEqual({
      total: 7,
      retries: 1,
      pages: 4,
      byMethod: { GET: 6, PUT: 1 },
      byEndpoint: {
        "GET /projects/:id/pipeline_schedules": 4,
        "GET /projects/:id/pipeline_schedules/:id": 2,
        "PUT /projects/:id/pipeline_schedules/:id": 1,
      },
    });
  });

  it("writes one debug line per request, with the token redacted", async () => {
    const lines: string[] = [];
    const { client } = await setup(
      (req, res) =>
        req.query.get("fail") ? json(res, 429, {}, { "retry-after": "1" }) : ok(req, res, undefined as never),
      { debug: (line) => lines.push(line), sleep: recordingSleep().sleep, maxAttempts: 2 },
    );
    await client.get(`/projects/1?private_token=${TOKEN}`);
    await client.get("/projects/2", { query: { fail: 1, token: TOKEN } }).catch(() => undefined);
    // Each 429 also says how the run's pacing reacts (see pacer.test.ts).
    expect(lines).toHaveLength(6);
    expect(lines[0]).toMatch(/^GET \/api\/v4\/projects\/1\?private_token=\[REDACTED\] -> 200 \(\d+ ms\)$/);
    expect(lines[1]).toMatch(/^GET \/api\/v4\/projects\/2\?fail=1&token=\[REDACTED\] -> 429 \(\d+ ms\)$/);
    expect(lines[2]).toBe("  rate limited (429): pausing new requests for 1.0 s, then at full speed");
    expect(lines[3]).toMatch(/retrying GET .* in 1\.0 s \(attempt 2 of 2, as the server asked\)/);
    expect(lines.join("\n")).not.toContain(TOKEN);
  });

  it("keeps the token out of OutcomeUnknownError and NetworkError", async () => {
    const { client } = await setup((_req, _res, raw) => void raw.socket.destroy(), {
      maxAttempts: 1,
      sleep: recordingSleep().sleep,
    });
    const post = await client.post(`/x?private_token=${TOKEN}`, { body: {} }).catch((e: unknown) => e);
    expect(post).toBeInstanceOf(OutcomeUnknownError);
    const get = await client.get(`/x?private_token=${TOKEN}`).catch((e: unknown) => e);
    expect(get).toBeInstanceOf(NetworkError);
    for (const error of [post, get] as Error[]) {
      expect(JSON.stringify({ m: error.message, s: error.stack, c: String(error.cause) })).not.toContain(
        TOKEN,
      );
    }
  });
});
