import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  conflict,
  forbidden,
  notFound,
  recordNotFound,
  rubyInspect,
  unauthorized,
  unprocessable,
  validation,
} from "../../src/sandbox/errors.js";
import { declare } from "../../src/sandbox/params.js";
import { parseQuery, toQuery } from "../../src/sandbox/request.js";
import { type Client, sandbox } from "./helpers.js";

describe("error envelopes (§2)", () => {
  it("builds each body exactly", () => {
    expect(notFound("Group").body).toEqual({ message: "404 Group Not Found" });
    expect(notFound().body).toEqual({ message: "404 Not Found" });
    expect(recordNotFound().body).toEqual({ message: "404 Not found" });
    expect(forbidden().body).toEqual({ message: "403 Forbidden" });
    expect(forbidden("Must be admin").body).toEqual({ message: "403 Forbidden - Must be admin" });
    expect(unauthorized().status).toBe(401);
    expect(validation({ name: ["can't be blank"] }).body).toEqual({ message: { name: ["can't be blank"] } });
    expect(conflict().body).toEqual({ message: "409 Conflict" });
    expect(unprocessable(["Name has already been taken"]).body).toEqual({
      message: ["Name has already been taken"],
    });
    expect(rubyInspect({ path: ["has already been taken"] })).toBe('{:path=>["has already been taken"]}');
  });
});

describe("parameters", () => {
  it("parses Rack-style arrays, hashes and arrays of hashes", () => {
    expect(parseQuery("a[]=1&a[]=2&h[x]=y&l[][k]=1&l[][v]=2&l[][k]=3&plain=a+b")).toEqual({
      a: ["1", "2"],
      h: { x: "y" },
      l: [{ k: "1", v: "2" }, { k: "3" }],
      plain: "a b",
    });
  });

  it("re-serialises like Rails to_query (sorted, CGI-escaped)", () => {
    expect(toQuery({ z: "1", a: ["x y", "b"], h: { k: "v*" } })).toBe(
      "a%5B%5D=b&a%5B%5D=x+y&h%5Bk%5D=v%2A&z=1",
    );
  });

  it("coerces the platform's string forms", () => {
    const p = declare(
      { b1: "true", b2: "0", b3: "no", n: "42", list: "a,b", ids: ["1", "2"], d: "2024-02-29" },
      {
        b1: { type: "boolean" },
        b2: { type: "boolean" },
        b3: { type: "boolean" },
        n: { type: "integer" },
        list: { type: "string[]", split: true },
        ids: { type: "integer[]" },
        d: { type: "date" },
        absent: { type: "boolean", default: true },
      },
    );
    expect(p).toEqual({
      b1: true,
      b2: false,
      b3: false,
      n: 42,
      list: ["a", "b"],
      ids: [1, 2],
      d: "2024-02-29",
      absent: true,
    });
  });

  it("reports Grape's messages, joined in declaration order", () => {
    const run = (params: Record<string, string>) => {
      try {
        declare(params, {
          name: { type: "string", required: true },
          path: { type: "string", required: true },
          n: { type: "integer" },
          vis: { type: "string", values: ["private", "public"] },
          ref: { type: "string", allowBlank: false },
        });
        return undefined;
      } catch (e) {
        return (e as { body: unknown }).body;
      }
    };
    expect(run({})).toEqual({ error: "name is missing, path is missing" });
    expect(run({ name: "a", path: "b", n: "x" })).toEqual({ error: "n is invalid" });
    expect(run({ name: "a", path: "b", vis: "secret" })).toEqual({
      error: "vis does not have a valid value",
    });
    expect(run({ name: "a", path: "b", ref: " " })).toEqual({ error: "ref is empty" });
  });

  it("null (go-gitlab's unset fields): not given, except a required string, which reaches the model blank", () => {
    const spec = {
      description: { type: "string", required: true },
      ref: { type: "string", required: true, allowBlank: false },
      kind: { type: "string", required: true, values: ["a", "b"] },
      note: { type: "string" },
      level: { type: "integer" },
      tags: { type: "string[]" },
    } as const;
    const ok = { description: null, ref: "main", kind: "a", note: null, level: null, tags: ["x", null] };
    expect(declare(ok, spec)).toEqual({ description: "", ref: "main", kind: "a", tags: ["x"] });
    const bad = () => declare({ description: "d", ref: null, kind: null }, spec);
    expect(bad).toThrow(
      expect.objectContaining({ body: { error: "ref is empty, kind does not have a valid value" } }),
    );
  });

  it("at_least_one_of and mutually_exclusive messages", () => {
    const f = (params: Record<string, string>, rules: Parameters<typeof declare>[2]) => {
      try {
        declare(params, { title: { type: "string" }, can_push: { type: "boolean" } }, rules);
        return undefined;
      } catch (e) {
        return (e as { body: unknown }).body;
      }
    };
    expect(f({}, { atLeastOneOf: ["title", "can_push"] })).toEqual({
      error: "title, can_push are missing, at least one parameter must be provided",
    });
    expect(f({ title: "a", can_push: "true" }, { mutuallyExclusive: [["title", "can_push"]] })).toEqual({
      error: "title, can_push are mutually exclusive",
    });
  });
});

describe("routing (§4)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        groups: [
          { path: "a", visibility: "public" },
          { path: "a/b", visibility: "public" },
        ],
        projects: [{ path: "a/p", visibility: "public" }],
      },
    });
  });
  afterAll(() => c.sb.stop());

  it("an unknown route is 404 with the error envelope", async () => {
    const r = await c.admin("GET", "/no/such/thing");
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: "404 Not Found" });
  });

  it("a known path with another method is 405", async () => {
    const r = await c.admin("PATCH", "/groups");
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ error: "405 Not Allowed" });
  });

  it("an encoded full path reaches the group; an unencoded slash matches a different route", async () => {
    const enc = await c.admin("GET", "/groups/a%2Fb");
    expect((enc.body as { full_path: string }).full_path).toBe("a/b");
    const unenc = await c.admin("GET", "/groups/a/b");
    expect(unenc.status).toBe(404);
    expect(unenc.body).toEqual({ error: "404 Not Found" });
    const projects = await c.admin("GET", "/groups/a/projects");
    expect(projects.status).toBe(200);
    expect((projects.body as { path: string }[]).map((p) => p.path)).toEqual(["p"]);
  });

  it("full paths are matched case-insensitively; digits are always an id", async () => {
    const r = await c.admin("GET", "/groups/A%2FB");
    expect((r.body as { full_path: string }).full_path).toBe("a/b");
    const id = (r.body as { id: number }).id;
    const byId = await c.admin("GET", `/groups/${id}`);
    expect((byId.body as { full_path: string }).full_path).toBe("a/b");
  });

  it("responds with JSON escaping like the platform and HEAD without a body", async () => {
    const head = await c.call("HEAD", "/groups/a");
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
  });

  it("a body that is not JSON is a 400", async () => {
    const r = await c.call("POST", "/groups", {
      headers: { "Content-Type": "application/json" },
      raw: "{nope",
    });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "message body does not match declared format" });
  });
});

describe("mounts and route options", () => {
  it("serves SCIM routes under /api/scim/v2 without token resolution, and root routes without a prefix", async () => {
    const { createSandboxApp } = await import("../../src/sandbox/server.js");
    const { json } = await import("../../src/sandbox/respond.js");
    const { app } = createSandboxApp({ edition: "core" });
    app.get(
      "/groups/:group/Probe",
      (ctx) =>
        json({ group: ctx.path["group"], auth: ctx.req.header("authorization") }, 200, {
          "Content-Type": "application/scim+json",
        }),
      { mount: "scim" },
    );
    app.get("/only-licensed", () => ({ ok: true }), { licensed: true });
    const req = (method: string, path: string, headers: Record<string, string> = {}) => ({
      method,
      path,
      rawQuery: "",
      query: {},
      body: {},
      json: undefined,
      rawBody: Buffer.alloc(0),
      headers,
      header: (n: string) => headers[n.toLowerCase()],
    });
    const scim = await app.handle(
      req("GET", "/api/scim/v2/groups/acme%2Fsub/Probe", { authorization: "Bearer scim-secret" }),
    );
    expect(scim.status).toBe(200);
    expect(scim.body).toEqual({ group: "acme/sub", auth: "Bearer scim-secret" });
    expect(scim.headers["Content-Type"]).toBe("application/scim+json");
    const rest = await app.handle(req("GET", "/api/v4/groups/acme/Probe"));
    expect(rest.body).toEqual({ error: "404 Not Found" });
    const gated = await app.handle(req("GET", "/api/v4/only-licensed"));
    expect(gated.status).toBe(404);
    expect(gated.body).toEqual({ error: "404 Not Found" });
  });
});

describe("helpers for route modules", () => {
  it("checkUnmodifiedSince gives 412 for a stale If-Unmodified-Since and passes otherwise", async () => {
    const { checkUnmodifiedSince } = await import("../../src/sandbox/respond.js");
    const updated = "2021-01-01T10:00:00.500Z";
    expect(() => checkUnmodifiedSince("Fri, 01 Jan 2021 09:59:59 GMT", updated)).toThrow(
      expect.objectContaining({ status: 412, body: { message: "412 Precondition Failed" } }),
    );
    expect(() => checkUnmodifiedSince("Fri, 01 Jan 2021 10:00:00 GMT", updated)).not.toThrow();
    expect(() => checkUnmodifiedSince(undefined, updated)).not.toThrow();
  });

  it("hash[] accepts JSON arrays of objects and the Rack l[][k]=v form", () => {
    // Rack starts a new hash only when a key repeats, so differing keys merge into one hash, as on the platform.
    const fromForm = declare(
      parseQuery("levels[][access_level]=40&levels[][user_id]=5&levels[][access_level]=30"),
      {
        levels: { type: "hash[]", required: true },
      },
    );
    expect(fromForm.levels).toEqual([{ access_level: "40", user_id: "5" }, { access_level: "30" }]);
    const fromJson = declare({ levels: [{ access_level: 40 }] }, { levels: { type: "hash[]" } });
    expect(fromJson.levels).toEqual([{ access_level: 40 }]);
    expect(() => declare({ levels: "x" }, { levels: { type: "hash[]" } })).toThrow(
      expect.objectContaining({ body: { error: "levels is invalid" } }),
    );
  });
});
