import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2023-06-15T12:00:00.000Z";

const fixture = {
  users: [
    { username: "alice", token: "alice-token" },
    { username: "bob", token: "bob-token" },
  ],
  groups: [{ path: "acme", visibility: "private", members: { alice: "developer" } }],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "alice/open", visibility: "public" },
  ],
  events: [
    {
      author: "alice",
      action: "created",
      project: "acme/api",
      target_type: "Project",
      created_at: "2021-06-16T00:00:00Z",
    },
    {
      author: "alice",
      action: "created",
      project: "acme/api",
      target_type: "Issue",
      target_id: 11,
      target_iid: 1,
      target_title: "Bug",
      created_at: "2023-01-10T09:00:00Z",
    },
    {
      author: "alice",
      action: "pushed",
      project: "acme/api",
      created_at: "2023-02-01T09:00:00Z",
      push_data: { commit_count: 2, action: "pushed", ref_type: "branch", ref: "main", commit_title: "Fix" },
    },
    {
      author: "alice",
      action: "commented",
      project: "alice/open",
      target_type: "Note",
      target_title: "Bug",
      created_at: "2023-03-01T09:00:00Z",
      note: { id: 77, body: "LGTM", noteable_type: "Issue", noteable_id: 11, noteable_iid: 1 },
    },
    { author: "bob", action: "joined", project: "alice/open", created_at: "2023-04-01T09:00:00Z" },
    // older than two years by the clock: never returned
    {
      author: "alice",
      action: "closed",
      project: "alice/open",
      target_type: "Issue",
      created_at: "2021-06-14T00:00:00Z",
    },
  ],
};

interface Ev {
  action_name: string;
  created_at: string;
  project_id: number;
  target_type: string | null;
  author_username: string;
}

describe("activity events", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
  });
  afterAll(() => c.sb.stop());

  it("GET /events: the caller's events newest first, with the entity fields; 401 for a guest", async () => {
    const r = await c.call("GET", "/events", { token: "alice-token" });
    expect(r.status).toBe(200);
    const list = r.body as Ev[];
    expect(list.map((e) => e.action_name)).toEqual(["commented on", "pushed to", "opened", "created"]);
    const api = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
    expect(list[2]).toEqual({
      id: expect.any(Number),
      title: null,
      project_id: api,
      action_name: "opened",
      target_id: 11,
      target_iid: 1,
      target_type: "Issue",
      author_id: expect.any(Number),
      target_title: "Bug",
      created_at: "2023-01-10T09:00:00.000Z",
      author: expect.objectContaining({ username: "alice" }),
      author_username: "alice",
      data: null,
    });
    expect(list[1]).toMatchObject({
      push_data: { commit_count: 2, action: "pushed", ref_type: "branch", ref: "main", commit_title: "Fix" },
    });
    expect(list[0]).toMatchObject({
      note: { id: 77, body: "LGTM", noteable_type: "Issue", noteable_iid: 1, system: false },
    });
    expect(r.headers.get("x-total")).toBe("4");
    expect((await c.call("GET", "/events", { token: null })).status).toBe(401);
  });

  it("events older than 2 years (by the store's clock) are never returned", async () => {
    const r = await c.admin("GET", "/events?scope=all&sort=asc");
    const list = r.body as Ev[];
    expect(list[0]?.created_at).toBe("2021-06-16T00:00:00.000Z");
    expect(list.some((e) => e.created_at.startsWith("2021-06-14"))).toBe(false);
    const closed = await c.admin("GET", "/users/alice/events?action=closed");
    expect(closed.body).toEqual([]);
  });

  it("filters: action, target_type, before, after, sort; invalid values are 400", async () => {
    const get = async (q: string) =>
      ((await c.call("GET", `/users/alice/events?${q}`, { token: "alice-token" })).body as Ev[]).map(
        (e) => e.action_name,
      );
    expect(await get("action=pushed")).toEqual(["pushed to"]);
    expect(await get("target_type=issue")).toEqual(["opened"]);
    expect(await get("target_type=note")).toEqual(["commented on"]);
    expect(await get("after=2023-01-10")).toEqual(["commented on", "pushed to"]);
    expect(await get("before=2023-01-10")).toEqual(["created"]);
    expect(await get("after=2023-01-01&before=2023-03-01&sort=asc")).toEqual(["opened", "pushed to"]);
    const bad = await c.call("GET", "/events?action=exploded", { token: "alice-token" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "action does not have a valid value" });
    const date = await c.call("GET", "/events?before=yesterday", { token: "alice-token" });
    expect(date.status).toBe(400);
    expect(date.body).toEqual({ error: "before is invalid" });
  });

  it("user events are limited to projects the caller can read; private profiles are hidden; unknown users are 404", async () => {
    const r = await c.call("GET", "/users/alice/events", { token: "bob-token" });
    expect(r.status).toBe(200);
    expect((r.body as Ev[]).map((e) => e.action_name)).toEqual(["commented on"]);
    const alice = ((await c.admin("GET", "/users?username=alice")).body as { id: number }[])[0]!.id;
    expect((await c.admin("PUT", `/users/${alice}`, { private_profile: true })).status).toBe(200);
    expect((await c.call("GET", "/users/alice/events", { token: "bob-token" })).body).toEqual([]);
    expect(((await c.call("GET", "/users/alice/events", { token: "alice-token" })).body as Ev[]).length).toBe(
      4,
    );
    expect(((await c.admin("GET", "/users/alice/events")).body as Ev[]).length).toBe(4);
    expect((await c.admin("PUT", `/users/${alice}`, { private_profile: false })).status).toBe(200);
    const missing = await c.call("GET", "/users/nobody/events", { token: "bob-token" });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: "404 User Not Found" });
  });

  it("project events: the project's events; 404 for a project the caller cannot see", async () => {
    const r = await c.call("GET", "/projects/alice%2Fopen/events", { token: "bob-token" });
    expect(r.status).toBe(200);
    expect((r.body as Ev[]).map((e) => `${e.author_username} ${e.action_name}`)).toEqual([
      "bob joined",
      "alice commented on",
    ]);
    const hidden = await c.call("GET", "/projects/acme%2Fapi/events", { token: "bob-token" });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: "404 Project Not Found" });
    const paged = await c.call("GET", "/projects/alice%2Fopen/events?per_page=1&page=2", {
      token: "bob-token",
    });
    expect((paged.body as Ev[]).map((e) => e.action_name)).toEqual(["commented on"]);
    expect(paged.headers.get("x-total-pages")).toBe("2");
  });

  it("scope=all lists events of every readable project, not only the caller's", async () => {
    const r = await c.call("GET", "/events?scope=all", { token: "bob-token" });
    expect((r.body as Ev[]).map((e) => `${e.author_username} ${e.action_name}`)).toEqual([
      "bob joined",
      "alice commented on",
    ]);
  });
});
