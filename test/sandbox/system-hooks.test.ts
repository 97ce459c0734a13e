import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2021-03-04T05:06:07.089Z";

describe("system hooks (§3.6)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW) });
  });
  afterAll(() => c.sb.stop());

  it("administrators only: 401 without a token, 403 for a user, on every endpoint", async () => {
    for (const [method, path] of [
      ["GET", "/hooks"],
      ["POST", "/hooks"],
      ["GET", "/hooks/1"],
      ["DELETE", "/hooks/1"],
    ] as const) {
      const json = method === "POST" ? { url: "http://x.example" } : undefined;
      const guest = await c.call(method, path, { token: null, json });
      expect([method, path, guest.status, guest.body]).toEqual([
        method,
        path,
        401,
        { message: "401 Unauthorized" },
      ]);
      const user = await c.call(method, path, { token: "user-token", json });
      expect([method, path, user.status, user.body]).toEqual([
        method,
        path,
        403,
        { message: "403 Forbidden" },
      ]);
    }
  });

  it("POST creates a hook: 201 with the Hook object, model defaults, and never the token", async () => {
    const r = await c.admin("POST", "/hooks", { url: "https://hooks.example.com/in", token: "s3cret-token" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      url: "https://hooks.example.com/in",
      created_at: NOW,
      push_events: false,
      tag_push_events: false,
      merge_requests_events: false,
      repository_update_events: true,
      enable_ssl_verification: true,
    });
    expect(r.text).not.toContain("s3cret-token");
    const list = await c.admin("GET", "/hooks");
    expect(list.text).not.toContain("s3cret-token");
    const state = await c.call("GET", "/-/sandbox/state");
    expect(state.text).not.toContain("s3cret-token");
    // Only the digest is kept (the debug endpoint leaves even that out).
    const stored = (
      c.sb.store.data.areas as { system_hooks: { hooks: { id: number; token_sha256: string }[] } }
    ).system_hooks.hooks;
    const id = (r.body as { id: number }).id;
    expect(stored.find((h) => h.id === id)?.token_sha256).toBe(
      createHash("sha256").update("s3cret-token").digest("hex"),
    );
  });

  it("POST accepts form-encoded string booleans, including repository_update_events (a contract input)", async () => {
    const r = await c.call("POST", "/hooks", {
      form: "url=http%3A%2F%2Flocalhost%3A9999%2Fhook&push_events=true&tag_push_events=1&merge_requests_events=yes&repository_update_events=false&enable_ssl_verification=0",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      url: "http://localhost:9999/hook",
      push_events: true,
      tag_push_events: true,
      merge_requests_events: true,
      repository_update_events: false,
      enable_ssl_verification: false,
    });
  });

  it("POST validation: url missing is a parameter error, bad urls are model errors, bad booleans invalid", async () => {
    expect((await c.admin("POST", "/hooks", {})).body).toEqual({ error: "url is missing" });
    const blank = await c.admin("POST", "/hooks", { url: "" });
    expect([blank.status, blank.body]).toEqual([400, { message: { url: ["can't be blank"] } }]);
    const scheme = await c.admin("POST", "/hooks", { url: "ftp://files.example.com/x" });
    expect([scheme.status, scheme.body]).toEqual([
      400,
      { message: { url: ["is blocked: Only allowed schemes are http, https"] } },
    ]);
    const junk = await c.admin("POST", "/hooks", { url: "not a url" });
    expect([junk.status, junk.body]).toEqual([400, { message: { url: ["is blocked: URI is invalid"] } }]);
    const bool = await c.admin("POST", "/hooks", { url: "http://a.example", push_events: "maybe" });
    expect([bool.status, bool.body]).toEqual([400, { error: "push_events is invalid" }]);
  });

  it("with allow_local_requests_from_system_hooks off, local URLs are refused", async () => {
    await c.admin("PUT", "/application/settings", { allow_local_requests_from_system_hooks: false });
    const cases: [string, string][] = [
      ["http://localhost:9000/h", "is blocked: Requests to localhost are not allowed"],
      ["http://127.0.0.1/h", "is blocked: Requests to localhost are not allowed"],
      ["http://[::1]:8080/h", "is blocked: Requests to localhost are not allowed"],
      ["http://192.168.1.10/h", "is blocked: Requests to the local network are not allowed"],
      ["http://10.0.0.1/h", "is blocked: Requests to the local network are not allowed"],
      ["http://169.254.169.254/latest", "is blocked: Requests to the link local network are not allowed"],
    ];
    for (const [url, message] of cases) {
      const r = await c.admin("POST", "/hooks", { url });
      expect([url, r.status, r.body]).toEqual([url, 400, { message: { url: [message] } }]);
    }
    expect((await c.admin("POST", "/hooks", { url: "https://hooks.example.com/public" })).status).toBe(201);
    await c.admin("PUT", "/application/settings", { allow_local_requests_from_system_hooks: true });
    expect((await c.admin("POST", "/hooks", { url: "http://localhost:9000/h" })).status).toBe(201);
  });

  it("GET /hooks/:id is the test call: returns the sample payload and records a delivery", async () => {
    const hook = (await c.admin("POST", "/hooks", { url: "http://test.example/h", token: "t" })).body as {
      id: number;
    };
    const r = await c.admin("GET", `/hooks/${hook.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      event_name: "project_create",
      name: "Ruby",
      path: "ruby",
      project_id: 1,
      owner_name: "Someone",
      owner_email: "example@gitlabhq.com",
    });
    const deliveries = (await c.call("GET", "/-/sandbox/system_hooks/deliveries")).body as Record<
      string,
      unknown
    >[];
    expect(deliveries.at(-1)).toMatchObject({
      hook_id: hook.id,
      url: "http://test.example/h",
      event_name: "project_create",
      token_sent: true,
      delivered_at: NOW,
      payload: r.body,
    });
    const state = (await c.call("GET", "/-/sandbox/state")).body as {
      areas: { system_hooks: { deliveries: unknown[] } };
    };
    expect(state.areas.system_hooks.deliveries).toEqual(deliveries);
    expect((await c.call("GET", "/-/sandbox/system_hooks/deliveries", { token: "user-token" })).status).toBe(
      403,
    );
  });

  it("test call on a missing hook is 404 Not found (lowercase); a non-integer id is 400", async () => {
    const r = await c.admin("GET", "/hooks/99999");
    expect([r.status, r.body]).toEqual([404, { message: "404 Not found" }]);
    const bad = await c.admin("GET", "/hooks/abc");
    expect([bad.status, bad.body]).toEqual([400, { error: "id is invalid" }]);
  });

  it("DELETE: 204, then 404 System hook Not Found; there is no PUT", async () => {
    const hook = (await c.admin("POST", "/hooks", { url: "http://gone.example" })).body as { id: number };
    const put = await c.admin("PUT", `/hooks/${hook.id}`, { url: "http://other.example" });
    expect([put.status, put.body]).toEqual([405, { error: "405 Not Allowed" }]);
    const del = await c.admin("DELETE", `/hooks/${hook.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    const again = await c.admin("DELETE", `/hooks/${hook.id}`);
    expect([again.status, again.body]).toEqual([404, { message: "404 System hook Not Found" }]);
    const list = (await c.admin("GET", "/hooks")).body as { id: number }[];
    expect(list.map((h) => h.id)).not.toContain(hook.id);
  });

  it("DELETE honours If-Unmodified-Since (412 when the hook changed later)", async () => {
    const hook = (await c.admin("POST", "/hooks", { url: "http://cond.example" })).body as { id: number };
    const stale = await c.call("DELETE", `/hooks/${hook.id}`, {
      headers: { "If-Unmodified-Since": "Wed, 03 Mar 2021 00:00:00 GMT" },
    });
    expect([stale.status, stale.body]).toEqual([412, { message: "412 Precondition Failed" }]);
    expect((await c.admin("DELETE", `/hooks/${hook.id}`)).status).toBe(204);
  });
});

describe("system hooks pagination", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox();
  });
  afterAll(() => c.sb.stop());

  it("GET /hooks is paginated in id order with the platform's headers", async () => {
    for (let i = 1; i <= 5; i++) await c.admin("POST", "/hooks", { url: `http://h${i}.example` });
    const p1 = await c.admin("GET", "/hooks?per_page=2");
    expect((p1.body as { url: string }[]).map((h) => h.url)).toEqual([
      "http://h1.example",
      "http://h2.example",
    ]);
    expect(p1.headers.get("x-total")).toBe("5");
    expect(p1.headers.get("x-total-pages")).toBe("3");
    expect(p1.headers.get("x-next-page")).toBe("2");
    const p3 = await c.admin("GET", "/hooks?per_page=2&page=3");
    expect((p3.body as { url: string }[]).map((h) => h.url)).toEqual(["http://h5.example"]);
    expect(p3.headers.get("x-next-page")).toBe("");
  });
});

describe("system hooks from the fixture", () => {
  it("seeds hooks with the API's defaults and keeps only a hash of the token", async () => {
    const { startSandbox } = await import("../../src/sandbox/server.js");
    const sb = await startSandbox({
      adminToken: "fixture-admin",
      fixture: {
        system_hooks: [
          { url: "https://audit.example.com/hook", token: "t0ken", push_events: true },
          { url: "https://other.example.com/hook" },
        ],
      },
    });
    try {
      const res = await fetch(`${sb.url}/api/v4/hooks`, { headers: { "PRIVATE-TOKEN": "fixture-admin" } });
      const hooks = (await res.json()) as Record<string, unknown>[];
      expect(hooks.map((h) => [h["url"], h["push_events"], h["repository_update_events"]])).toEqual([
        ["https://audit.example.com/hook", true, true],
        ["https://other.example.com/hook", false, true],
      ]);
      expect(JSON.stringify(hooks)).not.toContain("t0ken");
    } finally {
      await sb.stop();
    }
  });

  it("refuses a fixture hook without an http(s) URL", async () => {
    const { startSandbox } = await import("../../src/sandbox/server.js");
    await expect(startSandbox({ fixture: { system_hooks: [{ url: "ftp://x" }] } })).rejects.toThrow(
      /system_hooks\[0\]\.url must be an http\(s\) URL/,
    );
  });
});
