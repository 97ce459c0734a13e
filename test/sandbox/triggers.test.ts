import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2021-03-04T05:06:07.089Z";

const fixture = {
  users: [
    { username: "maint", token: "maint-token" },
    { username: "maint2", token: "maint2-token" },
    { username: "dev", token: "dev-token" },
    { username: "stranger", token: "stranger-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "public",
      members: { maint: "maintainer", maint2: "maintainer", dev: "developer" },
    },
  ],
  projects: [
    { path: "acme/api", visibility: "public" },
    { path: "acme/secret", visibility: "private" },
  ],
  pipeline_triggers: [
    { project: "acme/secret", description: "legacy", owner: null, token: "0123456789abcdef0123456789abcd" },
  ],
};

type Trigger = { id: number; token: string; description: string; owner: { username: string } | null };

describe("pipeline triggers (§3.3)", () => {
  let c: Client;
  const base = "/projects/acme%2Fapi/triggers";
  const call = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
  });
  afterAll(() => c.sb.stop());

  it("POST creates a trigger: 201, 30-hex token in full for the owner, owner is the caller", async () => {
    const r = await call("maint-token", "POST", base, { description: "deploy" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      token: expect.stringMatching(/^[0-9a-f]{30}$/),
      description: "deploy",
      created_at: NOW,
      updated_at: NOW,
      last_used: null,
      owner: expect.objectContaining({ username: "maint" }),
    });
    const missing = await call("maint-token", "POST", base, {});
    expect([missing.status, missing.body]).toEqual([400, { error: "description is missing" }]);
  });

  it("form-encoded create works", async () => {
    const r = await c.call("POST", base, { token: "maint-token", form: "description=from+a+form" });
    expect([r.status, (r.body as Trigger).description]).toEqual([201, "from a form"]);
  });

  it("other maintainers see only the first 4 characters of the token; list is paginated", async () => {
    const mine = (await call("maint-token", "POST", base, { description: "masked" })).body as Trigger;
    const other = await call("maint2-token", "GET", `${base}/${mine.id}`);
    expect(other.status).toBe(200);
    expect((other.body as Trigger).token).toBe(mine.token.slice(0, 4));
    const list = await call("maint2-token", "GET", `${base}?per_page=1`);
    expect(list.headers.get("x-per-page")).toBe("1");
    expect(Number(list.headers.get("x-total"))).toBeGreaterThanOrEqual(2);
    expect((list.body as Trigger[])[0]!.token).toHaveLength(4);
    const own = (await call("maint-token", "GET", `${base}?per_page=100`)).body as Trigger[];
    expect(own.find((t) => t.id === mine.id)?.token).toBe(mine.token);
  });

  it("a legacy trigger without an owner shows its full token to every maintainer (fixture)", async () => {
    const list = (await call("maint2-token", "GET", "/projects/acme%2Fsecret/triggers")).body as Trigger[];
    expect(list).toEqual([
      expect.objectContaining({
        description: "legacy",
        token: "0123456789abcdef0123456789abcd",
        owner: null,
      }),
    ]);
  });

  it("PUT updates the description (owner only); take_ownership is 200 and gives the caller the trigger", async () => {
    const t = (await call("maint-token", "POST", base, { description: "old" })).body as Trigger;
    const r = await call("maint-token", "PUT", `${base}/${t.id}`, { description: "new" });
    expect([r.status, (r.body as Trigger).description]).toEqual([200, "new"]);
    const denied = await call("maint2-token", "PUT", `${base}/${t.id}`, { description: "mine" });
    expect([denied.status, denied.body]).toEqual([403, { message: "403 Forbidden" }]);
    const take = await call("maint2-token", "POST", `${base}/${t.id}/take_ownership`);
    expect(take.status).toBe(200);
    expect(take.body).toMatchObject({ owner: { username: "maint2" }, token: t.token });
    expect((await call("maint2-token", "PUT", `${base}/${t.id}`, { description: "mine" })).status).toBe(200);
    expect((await call("maint-token", "GET", `${base}/${t.id}`)).body).toMatchObject({
      description: "mine",
      token: t.token.slice(0, 4),
    });
  });

  it("DELETE: 204, then 404 Not found (lowercase); If-Unmodified-Since gives 412", async () => {
    const t = (await call("maint-token", "POST", base, { description: "doomed" })).body as Trigger;
    const stale = await c.call("DELETE", `${base}/${t.id}`, {
      token: "maint-token",
      headers: { "If-Unmodified-Since": "Thu, 04 Mar 2021 05:00:00 GMT" },
    });
    expect(stale.status).toBe(412);
    const r = await call("maint2-token", "DELETE", `${base}/${t.id}`);
    expect([r.status, r.text]).toEqual([204, ""]);
    for (const m of ["GET", "PUT", "DELETE"]) {
      const gone = await call(
        "maint-token",
        m,
        `${base}/${t.id}`,
        m === "PUT" ? { description: "x" } : undefined,
      );
      expect([m, gone.status, gone.body]).toEqual([m, 404, { message: "404 Not found" }]);
    }
    const bad = await call("maint-token", "GET", `${base}/abc`);
    expect([bad.status, bad.body]).toEqual([400, { error: "trigger_id is invalid" }]);
  });

  it("auth: 401 for guests even on a public project, 403 below Maintainer, 404 for invisible projects", async () => {
    for (const [m, p] of [
      ["GET", base],
      ["POST", base],
      ["GET", `${base}/1`],
      ["PUT", `${base}/1`],
      ["DELETE", `${base}/1`],
      ["POST", `${base}/1/take_ownership`],
    ] as const) {
      const guest = await call(null, m, p, m === "GET" || m === "DELETE" ? undefined : { description: "x" });
      expect([m, p, guest.status, guest.body]).toEqual([m, p, 401, { message: "401 Unauthorized" }]);
      const dev = await call(
        "dev-token",
        m,
        p,
        m === "GET" || m === "DELETE" ? undefined : { description: "x" },
      );
      expect([m, p, dev.status, dev.body]).toEqual([m, p, 403, { message: "403 Forbidden" }]);
    }
    const hidden = await call("stranger-token", "GET", "/projects/acme%2Fsecret/triggers");
    expect([hidden.status, hidden.body]).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await call("admin-token", "GET", base)).status).toBe(200);
  });
});
