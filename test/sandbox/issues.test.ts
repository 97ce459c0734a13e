import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "ann", token: "ann-token" },
    { username: "ben", token: "ben-token" },
    { username: "outsider", token: "out-token" },
  ],
  groups: [
    { path: "acme", visibility: "private", members: { ann: "developer", ben: "guest" } },
    { path: "acme/sub", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/sub/deep", visibility: "private" },
    { path: "ann/open", visibility: "public" },
  ],
  milestones: [{ project: "acme/api", title: "v1" }],
  issues: [
    {
      project: "acme/api",
      iid: 1,
      title: "Login fails",
      description: "crash on submit",
      labels: ["bug", "p1"],
      milestone: "v1",
      author: "ann",
      assignees: ["ben"],
      created_at: "2021-01-01T00:00:00Z",
      updated_at: "2021-01-05T00:00:00Z",
      reactions: [{ user: "ann", emoji: "thumbsup" }],
    },
    {
      project: "acme/api",
      iid: 2,
      title: "Docs typo",
      labels: ["docs"],
      state: "closed",
      author: "ben",
      created_at: "2021-02-01T00:00:00Z",
      updated_at: "2021-02-02T00:00:00Z",
    },
    {
      project: "acme/api",
      iid: 3,
      title: "Secret plan",
      description: "login rework",
      confidential: true,
      author: "ann",
      created_at: "2021-03-01T00:00:00Z",
    },
    { project: "acme/sub/deep", title: "Deep bug", labels: ["bug"], author: "ben", assignees: ["ann"] },
    { project: "ann/open", title: "Public issue", author: "ann", created_at: "2021-04-01T00:00:00Z" },
  ],
};

type Counts = { all: number; closed: number; opened: number };
const counts = (body: unknown): Counts => (body as { statistics: { counts: Counts } }).statistics.counts;

describe("issue statistics", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture });
  });
  afterAll(() => c.sb.stop());

  const stats = async (path: string, token = "admin-token") => {
    const r = await c.call("GET", path, { token });
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`);
    return counts(r.body);
  };

  it("requires authentication on all three endpoints (401)", async () => {
    for (const path of [
      "/issues_statistics",
      "/groups/acme/issues_statistics",
      "/projects/ann%2Fopen/issues_statistics",
    ]) {
      const r = await c.call("GET", path, { token: null });
      expect([path, r.status, r.body]).toEqual([path, 401, { message: "401 Unauthorized" }]);
    }
  });

  it("returns the statistics object; project and group scope default to all, instance to created_by_me", async () => {
    const r = await c.admin("GET", "/projects/acme%2Fapi/issues_statistics");
    expect(r.body).toEqual({ statistics: { counts: { all: 3, closed: 1, opened: 2 } } });
    expect(await stats("/groups/acme/issues_statistics")).toEqual({ all: 4, closed: 1, opened: 3 });
    expect(await stats("/issues_statistics", "ann-token")).toEqual({ all: 3, closed: 0, opened: 3 });
    expect(await stats("/issues_statistics?scope=all", "ann-token")).toEqual({
      all: 5,
      closed: 1,
      opened: 4,
    });
    expect(await stats("/issues_statistics?scope=assigned_to_me", "ann-token")).toEqual({
      all: 1,
      closed: 0,
      opened: 1,
    });
    expect(await stats("/issues_statistics?scope=assigned-to-me", "ben-token")).toEqual({
      all: 1,
      closed: 0,
      opened: 1,
    });
  });

  it("a private project or group of a non-member is 404", async () => {
    const p = await c.call("GET", "/projects/acme%2Fapi/issues_statistics", { token: "out-token" });
    expect([p.status, p.body]).toEqual([404, { message: "404 Project Not Found" }]);
    const g = await c.call("GET", "/groups/acme/issues_statistics", { token: "out-token" });
    expect([g.status, g.body]).toEqual([404, { message: "404 Group Not Found" }]);
    expect(await stats("/issues_statistics?scope=all", "out-token")).toEqual({
      all: 1,
      closed: 0,
      opened: 1,
    });
  });

  it("labels: all-of, comma-separated or labels[], None and Any", async () => {
    const base = "/projects/acme%2Fapi/issues_statistics";
    expect((await stats(`${base}?labels=bug,p1`)).all).toBe(1);
    expect((await stats(`${base}?labels[]=bug&labels[]=docs`)).all).toBe(0);
    expect((await stats(`${base}?labels=docs`)).all).toBe(1);
    expect(await stats(`${base}?labels=None`)).toEqual({ all: 1, closed: 0, opened: 1 });
    expect((await stats(`${base}?labels=Any`)).all).toBe(2);
  });

  it("milestone title, None and Any", async () => {
    const base = "/projects/acme%2Fapi/issues_statistics";
    expect((await stats(`${base}?milestone=v1`)).all).toBe(1);
    expect((await stats(`${base}?milestone=None`)).all).toBe(2);
    expect((await stats(`${base}?milestone=Any`)).all).toBe(1);
    expect((await stats(`${base}?milestone=nope`)).all).toBe(0);
  });

  it("author_id / author_username, exclusive; combined with the default scope on the instance endpoint", async () => {
    const ann = ((await c.admin("GET", "/users?username=ann")).body as { id: number }[])[0]!.id;
    const ben = ((await c.admin("GET", "/users?username=ben")).body as { id: number }[])[0]!.id;
    const base = "/groups/acme/issues_statistics";
    expect((await stats(`${base}?author_id=${ann}`)).all).toBe(2);
    expect((await stats(`${base}?author_username=ben`)).all).toBe(2);
    const both = await c.admin("GET", `${base}?author_id=${ann}&author_username=ann`);
    expect([both.status, both.body]).toEqual([
      400,
      { error: "author_id, author_username are mutually exclusive" },
    ]);
    // created_by_me (ann) AND author ben: nothing.
    expect((await stats(`/issues_statistics?author_id=${ben}`, "ann-token")).all).toBe(0);
    expect((await stats(`/issues_statistics?scope=all&author_id=${ben}`, "ann-token")).all).toBe(2);
    const bad = await c.admin("GET", `${base}?author_id=abc`);
    expect([bad.status, bad.body]).toEqual([400, { error: "author_id is invalid" }]);
  });

  it("assignee_id (integer, None, Any) and assignee_username; exclusive", async () => {
    const ben = ((await c.admin("GET", "/users?username=ben")).body as { id: number }[])[0]!.id;
    const base = "/groups/acme/issues_statistics";
    expect((await stats(`${base}?assignee_id=${ben}`)).all).toBe(1);
    expect((await stats(`${base}?assignee_id=None`)).all).toBe(2);
    expect((await stats(`${base}?assignee_id=any`)).all).toBe(2);
    expect((await stats(`${base}?assignee_username=ann`)).all).toBe(1);
    expect((await stats(`${base}?assignee_username[]=ann`)).all).toBe(1);
    const bad = await c.admin("GET", `${base}?assignee_id=someone`);
    expect([bad.status, bad.body]).toEqual([400, { error: "assignee_id should be an integer, none or any" }]);
    const both = await c.admin("GET", `${base}?assignee_id=1&assignee_username=ann`);
    expect(both.body).toEqual({ error: "assignee_id, assignee_username are mutually exclusive" });
    // Licensed: several usernames (all must be assigned).
    expect((await stats(`${base}?assignee_username[]=ann&assignee_username[]=ben`)).all).toBe(0);
  });

  it("assignee_username with more than one value is an invalid-parameter error on core", async () => {
    const core = await sandbox({ edition: "core", fixture });
    try {
      const r = await core.admin(
        "GET",
        "/groups/acme/issues_statistics?assignee_username[]=ann&assignee_username[]=ben",
      );
      expect([r.status, r.body]).toEqual([
        400,
        { error: "assignee_username allows one value, but found 2: ann, ben" },
      ]);
      const one = await core.admin("GET", "/groups/acme/issues_statistics?assignee_username[]=ann");
      expect(counts(one.body).all).toBe(1);
    } finally {
      await core.sb.stop();
    }
  });

  it("my_reaction_emoji: name, None, Any (the caller's reactions)", async () => {
    const base = "/projects/acme%2Fapi/issues_statistics";
    expect((await stats(`${base}?my_reaction_emoji=thumbsup`, "ann-token")).all).toBe(1);
    expect((await stats(`${base}?my_reaction_emoji=Any`, "ann-token")).all).toBe(1);
    expect((await stats(`${base}?my_reaction_emoji=None`, "ann-token")).all).toBe(2);
    expect((await stats(`${base}?my_reaction_emoji=Any`)).all).toBe(0);
  });

  it("iids[], search with in, confidential, state (counts stay per state)", async () => {
    const base = "/projects/acme%2Fapi/issues_statistics";
    expect((await stats(`${base}?iids[]=1&iids[]=2`)).all).toBe(2);
    expect((await stats(`${base}?search=login`)).all).toBe(2);
    expect((await stats(`${base}?search=login&in=title`)).all).toBe(1);
    expect((await stats(`${base}?search=LOGIN&in=description`)).all).toBe(1);
    expect((await stats(`${base}?confidential=true`)).all).toBe(1);
    expect((await stats(`${base}?confidential=false`)).all).toBe(2);
    expect(await stats(`${base}?state=opened`)).toEqual({ all: 3, closed: 1, opened: 2 });
    const bad = await c.admin("GET", `${base}?state=open`);
    expect(bad.body).toEqual({ error: "state does not have a valid value" });
  });

  it("created/updated after/before are inclusive", async () => {
    const base = "/projects/acme%2Fapi/issues_statistics";
    expect((await stats(`${base}?created_after=2021-02-01T00:00:00Z`)).all).toBe(2);
    expect((await stats(`${base}?created_before=2021-02-01T00:00:00Z`)).all).toBe(2);
    expect(
      (await stats(`${base}?updated_after=2021-01-05T00:00:00Z&updated_before=2021-02-02T00:00:00Z`)).all,
    ).toBe(2);
    const bad = await c.admin("GET", `${base}?created_after=yesterday`);
    expect(bad.body).toEqual({ error: "created_after is invalid" });
  });

  it("confidential issues count only for those allowed to see them", async () => {
    // ben is a guest of acme: the confidential issue by ann is hidden from him.
    expect((await stats("/projects/acme%2Fapi/issues_statistics", "ben-token")).all).toBe(2);
    expect((await stats("/projects/acme%2Fapi/issues_statistics", "ann-token")).all).toBe(3);
  });

  it("GET /projects/:id/issues lists issues newest first, paginated, with filters", async () => {
    const r = await c.admin("GET", "/projects/acme%2Fapi/issues?per_page=2");
    expect(r.status).toBe(200);
    expect((r.body as { iid: number }[]).map((i) => i.iid)).toEqual([3, 2]);
    expect(r.headers.get("x-total")).toBe("3");
    const first = (
      (await c.admin("GET", "/projects/acme%2Fapi/issues?iids[]=1")).body as Record<string, unknown>[]
    )[0]!;
    expect(first).toMatchObject({
      iid: 1,
      title: "Login fails",
      state: "opened",
      labels: ["bug", "p1"],
      confidential: false,
      upvotes: 1,
      author: { username: "ann" },
      assignees: [{ username: "ben" }],
      milestone: { title: "v1" },
      web_url: `${c.sb.url}/acme/api/-/issues/1`,
    });
    const closed = await c.admin("GET", "/projects/acme%2Fapi/issues?state=closed");
    expect((closed.body as { iid: number }[]).map((i) => i.iid)).toEqual([2]);
    const pub = await c.call("GET", "/projects/ann%2Fopen/issues", { token: null });
    expect((pub.body as { title: string }[]).map((i) => i.title)).toEqual(["Public issue"]);
  });
});
