import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

describe("authentication and visibility (§5)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [
          { username: "alice", token: "alice-token" },
          { username: "bob", token: "bob-token" },
          { username: "carol", token: "carol-token" },
        ],
        groups: [
          { path: "pub", visibility: "public" },
          { path: "int", visibility: "internal" },
          { path: "priv", visibility: "private", members: { alice: "owner", bob: 30 } },
          { path: "priv/sub", visibility: "private" },
          { path: "other", visibility: "private", members: { carol: "owner" } },
        ],
        projects: [{ path: "priv/sub/app", visibility: "private" }],
      },
    });
  });
  afterAll(() => c.sb.stop());

  const get = (path: string, token: string | null) => c.call("GET", path, { token });

  it("an unknown token is 401 even on a public GET", async () => {
    const r = await get("/groups/pub", "wrong");
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: "401 Unauthorized" });
  });

  it("tokens are accepted in PRIVATE-TOKEN, Authorization: Bearer and ?private_token=", async () => {
    expect(
      (await c.call("GET", "/groups/priv", { token: null, headers: { Authorization: "Bearer alice-token" } }))
        .status,
    ).toBe(200);
    expect((await get("/groups/priv?private_token=alice-token", null)).status).toBe(200);
    expect((await get("/groups/priv", "alice-token")).status).toBe(200);
  });

  it("visibility: guests see public, users see internal, private needs membership (404 otherwise)", async () => {
    expect((await get("/groups/pub", null)).status).toBe(200);
    expect((await get("/groups/int", null)).status).toBe(404);
    expect((await get("/groups/int", "carol-token")).status).toBe(200);
    const hidden = await get("/groups/priv", "carol-token");
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: "404 Group Not Found" });
    expect((await get("/groups/priv", "user-token")).status).toBe(404);
    expect((await get("/groups/priv", "admin-token")).status).toBe(200);
  });

  it("membership is inherited by subgroups and projects", async () => {
    expect((await get("/groups/priv%2Fsub", "bob-token")).status).toBe(200);
    expect((await get("/projects/priv%2Fsub%2Fapp", "bob-token")).status).toBe(200);
    const p = await get("/projects/priv%2Fsub%2Fapp", "carol-token");
    expect(p.status).toBe(404);
    expect(p.body).toEqual({ message: "404 Project Not Found" });
  });

  it("writes: 401 for guests, 403 for members without the level, allowed for owners", async () => {
    expect((await c.call("PUT", "/groups/priv", { token: null, json: { description: "x" } })).status).toBe(
      401,
    );
    const dev = await c.call("PUT", "/groups/priv", { token: "bob-token", json: { description: "x" } });
    expect(dev.status).toBe(403);
    expect(dev.body).toEqual({ message: "403 Forbidden" });
    expect(
      (await c.call("PUT", "/groups/priv", { token: "carol-token", json: { description: "x" } })).status,
    ).toBe(404);
    const owner = await c.call("PUT", "/groups/priv", { token: "alice-token", json: { description: "x" } });
    expect(owner.status).toBe(200);
  });

  it("admin-only endpoints: 401 guest, 403 user, 200 admin", async () => {
    expect((await c.call("GET", "/-/sandbox/state", { token: null })).status).toBe(401);
    expect((await c.call("GET", "/-/sandbox/state", { token: "user-token" })).status).toBe(403);
    const ok = await c.call("GET", "/-/sandbox/state");
    expect(ok.status).toBe(200);
    expect(JSON.stringify(ok.body)).not.toContain("alice-token");
  });

  it("GET /groups lists what each caller may see", async () => {
    const names = async (token: string | null, q = "") =>
      ((await get(`/groups${q}`, token)).body as { full_path: string }[]).map((g) => g.full_path).sort();
    expect(await names(null)).toEqual(["pub"]);
    expect(await names("bob-token")).toEqual(["priv", "priv/sub"]);
    expect(await names("bob-token", "?all_available=true")).toEqual(["int", "priv", "priv/sub", "pub"]);
    expect(await names("admin-token")).toEqual(["int", "other", "priv", "priv/sub", "pub"]);
    expect(await names("alice-token", "?owned=true")).toEqual(["priv"]);
    expect(await names("bob-token", "?min_access_level=40")).toEqual([]);
    expect(await names("bob-token", "?min_access_level=30")).toEqual(["priv", "priv/sub"]);
  });

  it("sudo lets an administrator act as another user, and is refused to others", async () => {
    const r = await c.call("GET", "/groups/other", { headers: { Sudo: "alice" } });
    expect(r.status).toBe(404);
    const refused = await c.call("GET", "/groups/pub", { token: "bob-token", headers: { Sudo: "alice" } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: "403 Forbidden - Must be admin to use sudo" });
  });

  describe("sudo on every input path, as the platform reads it (`params[:sudo] || env['HTTP_SUDO']`)", () => {
    const owners = async (path: string) =>
      ((await c.admin("GET", `/groups/${path}/members`)).body as { username: string }[]).map(
        (m) => m.username,
      );
    const alice = () => c.sb.store.userByUsername("alice")!;

    it("in the query, a form, a JSON body (by id too) and a multipart body: the write is the sudo user's", async () => {
      expect(((await get("/user?sudo=alice", "admin-token")).body as { username: string }).username).toBe(
        "alice",
      );
      const form = await c.call("POST", "/groups", { form: "sudo=alice&name=ByForm&path=by-form" });
      expect(form.status).toBe(201);
      expect(await owners("by-form")).toEqual(["alice"]);
      const json = await c.call("POST", "/groups", {
        json: { sudo: alice().id, name: "ByJson", path: "by-json" },
      });
      expect(json.status).toBe(201);
      expect(await owners("by-json")).toEqual(["alice"]);
      const multipart = new FormData();
      for (const [k, v] of Object.entries({ sudo: "alice", name: "ByMultipart", path: "by-multipart" }))
        multipart.set(k, v);
      expect((await c.call("POST", "/groups", { multipart })).status).toBe(201);
      expect(await owners("by-multipart")).toEqual(["alice"]);
    });

    it("a parameter wins over the header, and the body's over the query's", async () => {
      const r = await c.call("POST", "/groups?sudo=bob", {
        json: { sudo: "alice", name: "Both", path: "both" },
        headers: { Sudo: "carol" },
      });
      expect(r.status).toBe(201);
      expect(await owners("both")).toEqual(["alice"]);
    });

    it("refused on every path to a token that is not an administrator's, and to a caller without a token", async () => {
      const denied = { message: "403 Forbidden - Must be admin to use sudo" };
      const asBob = (opts: Parameters<Client["call"]>[2]) =>
        c.call("POST", "/groups", { token: "bob-token", ...opts });
      expect(await asBob({ form: "sudo=alice&name=Bf&path=bf" }).then((r) => [r.status, r.body])).toEqual([
        403,
        denied,
      ]);
      expect(
        await asBob({ json: { sudo: "alice", name: "Bj", path: "bj" } }).then((r) => [r.status, r.body]),
      ).toEqual([403, denied]);
      expect((await get("/user?sudo=alice", "bob-token")).status).toBe(403);
      expect(c.sb.store.groupByFullPath("bf")).toBeUndefined();
      expect(c.sb.store.groupByFullPath("bj")).toBeUndefined();
      const anonymous = await c.call("GET", "/groups/pub", { token: null, headers: { Sudo: "alice" } });
      expect([anonymous.status, anonymous.body]).toEqual([401, { message: "401 Unauthorized" }]);
      const anonymousQuery = await get("/groups/pub?sudo=alice", null);
      expect(anonymousQuery.status).toBe(401);
    });

    it("an unknown user is 404 naming it, whichever path carried it; an empty value counts as given", async () => {
      for (const r of [
        await c.call("POST", "/groups", { form: "sudo=ghost&name=G&path=g" }),
        await c.call("POST", "/groups", { json: { sudo: "ghost", name: "G", path: "g" } }),
        await get("/user?sudo=ghost", "admin-token"),
        await c.call("GET", "/user", { headers: { Sudo: "ghost" } }),
      ]) {
        expect([r.status, r.body]).toEqual([
          404,
          { message: "404 User with ID or username 'ghost' Not Found" },
        ]);
      }
      const empty = await c.call("GET", "/user", { headers: { Sudo: "" } });
      expect([empty.status, empty.body]).toEqual([
        404,
        { message: "404 User with ID or username '' Not Found" },
      ]);
      const listy = await c.call("POST", "/groups", { json: { sudo: ["alice"], name: "L", path: "l" } });
      expect([listy.status, listy.body]).toEqual([400, { error: "sudo is invalid" }]);
    });
  });
});
