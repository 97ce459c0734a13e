import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2022-06-07T08:09:10.111Z";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "asker", token: "asker-token" },
    { username: "other", token: "other-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "internal",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
    { path: "closed", visibility: "internal", request_access_enabled: false },
    { path: "secret", visibility: "private", members: { owner: "owner" } },
  ],
  projects: [
    { path: "acme/api", visibility: "internal" },
    { path: "owner/tool", visibility: "public" },
  ],
  access_requests: [{ group: "acme", user: "other", requested_at: "2022-06-01T00:00:00Z" }],
};

interface Req {
  id: number;
  username: string;
  requested_at: string;
  access_level?: number;
}

describe("access requests", () => {
  let c: Client;
  let asker: number;
  let other: number;
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
    asker = ((await c.call("GET", "/user", { token: "asker-token" })).body as { id: number }).id;
    other = ((await c.call("GET", "/user", { token: "other-token" })).body as { id: number }).id;
  });
  afterAll(() => c.sb.stop());

  it("a non-member requests access to a group: 201 with the requester and requested_at", async () => {
    const r = await c.call("POST", "/groups/acme/access_requests", { token: "asker-token" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: asker,
      name: "asker",
      username: "asker",
      state: "active",
      avatar_url: expect.stringContaining("gravatar"),
      web_url: `${c.sb.url}/asker`,
      created_at: NOW,
      requested_at: NOW,
    });
    const again = await c.call("POST", "/groups/acme/access_requests", { token: "asker-token" });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: { user_id: ["already exists in source"] } });
  });

  it("lists pending requests, oldest first, paginated, to owners and admins only", async () => {
    const r = await c.call("GET", "/groups/acme/access_requests", { token: "owner-token" });
    expect(r.status).toBe(200);
    expect((r.body as Req[]).map((x) => x.username)).toEqual(["other", "asker"]);
    expect((r.body as Req[])[0]?.requested_at).toBe("2022-06-01T00:00:00.000Z");
    expect(r.headers.get("x-total")).toBe("2");
    const page = await c.call("GET", "/groups/acme/access_requests?per_page=1&page=2", {
      token: "owner-token",
    });
    expect((page.body as Req[]).map((x) => x.username)).toEqual(["asker"]);
    expect((await c.admin("GET", "/groups/acme/access_requests")).status).toBe(200);
    expect((await c.call("GET", "/groups/acme/access_requests", { token: "maint-token" })).status).toBe(403);
    expect((await c.call("GET", "/groups/acme/access_requests", { token: null })).status).toBe(401);
  });

  it("a member, a group without request_access_enabled and an invisible group refuse the request", async () => {
    const member = await c.call("POST", "/groups/acme/access_requests", { token: "dev-token" });
    expect(member.status).toBe(403);
    expect(member.body).toEqual({ message: "403 Forbidden" });
    expect((await c.call("POST", "/groups/closed/access_requests", { token: "asker-token" })).status).toBe(
      403,
    );
    const hidden = await c.call("POST", "/groups/secret/access_requests", { token: "asker-token" });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: "404 Group Not Found" });
    // an inherited member of a project cannot request access to it either
    expect(
      (await c.call("POST", "/projects/acme%2Fapi/access_requests", { token: "dev-token" })).status,
    ).toBe(403);
  });

  it("approve: the requester becomes a member with access_level (default 30), the request is gone", async () => {
    expect(
      (await c.call("PUT", `/groups/acme/access_requests/${asker}/approve`, { token: "maint-token" })).status,
    ).toBe(403);
    const bad = await c.call("PUT", `/groups/acme/access_requests/${asker}/approve`, {
      token: "owner-token",
      form: "access_level=35",
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { access_level: ["is not included in the list"] } });
    const r = await c.call("PUT", `/groups/acme/access_requests/${asker}/approve`, { token: "owner-token" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: asker, username: "asker", access_level: 30, expires_at: null });
    const member = await c.admin("GET", `/groups/acme/members/${asker}`);
    expect(member.body).toMatchObject({ access_level: 30 });
    const list = await c.call("GET", "/groups/acme/access_requests", { token: "owner-token" });
    expect((list.body as Req[]).map((x) => x.username)).toEqual(["other"]);
    const missing = await c.call("PUT", `/groups/acme/access_requests/${asker}/approve`, {
      token: "owner-token",
    });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "404 Not found" });
  });

  it("approve on a project takes a form-encoded access_level; 50 is not a project level", async () => {
    const created = await c.call("POST", "/projects/owner%2Ftool/access_requests", { token: "asker-token" });
    expect(created.status).toBe(201);
    const owner = await c.call("PUT", `/projects/owner%2Ftool/access_requests/${asker}/approve`, {
      token: "owner-token",
      form: "access_level=50",
    });
    expect(owner.status).toBe(400);
    const r = await c.call("PUT", `/projects/owner%2Ftool/access_requests/${asker}/approve`, {
      token: "owner-token",
      form: "access_level=20",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ username: "asker", access_level: 20 });
    expect((await c.admin("GET", `/projects/owner%2Ftool/members/${asker}`)).body).toMatchObject({
      access_level: 20,
    });
    const events = await c.call("GET", "/projects/owner%2Ftool/events", { token: "asker-token" });
    expect(
      (events.body as { action_name: string; author_username: string }[]).map((e) => [
        e.author_username,
        e.action_name,
      ]),
    ).toEqual([["asker", "joined"]]);
  });

  it("deny (DELETE) removes the request: 204, then 404; a stranger gets 403, the requester may withdraw", async () => {
    expect(
      (await c.call("DELETE", `/groups/acme/access_requests/${other}`, { token: "dev-token" })).status,
    ).toBe(403);
    const r = await c.call("DELETE", `/groups/acme/access_requests/${other}`, { token: "owner-token" });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    expect((await c.call("GET", `/groups/acme/members/${other}`, { token: "owner-token" })).status).toBe(404);
    const gone = await c.call("DELETE", `/groups/acme/access_requests/${other}`, { token: "owner-token" });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: "404 Not found" });

    expect((await c.call("POST", "/groups/acme/access_requests", { token: "other-token" })).status).toBe(201);
    const withdraw = await c.call("DELETE", `/groups/acme/access_requests/${other}`, {
      token: "other-token",
    });
    expect(withdraw.status).toBe(204);
  });

  it("a non-integer user_id is Grape's 400", async () => {
    const r = await c.call("PUT", "/groups/acme/access_requests/abc/approve", { token: "owner-token" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: "user_id is invalid" });
  });
});
