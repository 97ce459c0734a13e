import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "rep", token: "rep-token" },
    { username: "guesty", token: "guest-token" },
    { username: "outsider", token: "out-token" },
  ],
  groups: [
    { path: "acme", visibility: "private", members: { rep: "reporter", guesty: "guest" } },
    { path: "acme/sub", visibility: "private" },
    { path: "elsewhere", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/sub/deep", visibility: "private" },
    { path: "elsewhere/x", visibility: "private" },
  ],
  issues: [
    { project: "acme/api", iid: 1, title: "one" },
    { project: "acme/api", iid: 2, title: "two" },
    { project: "acme/sub/deep", iid: 1, title: "deep" },
    { project: "acme/api", iid: 3, title: "four" },
    { project: "elsewhere/x", iid: 1, title: "outside" },
  ],
  epics: [
    {
      group: "acme",
      iid: 1,
      title: "Platform",
      description: "All of it",
      start_date: "2021-01-01",
      end_date: "2021-06-30",
      issues: ["acme/api#1", "acme/api#2"],
    },
    { group: "acme", iid: 2, title: "Other", issues: ["acme/sub/deep#1"] },
  ],
};

interface EpicIssue {
  id: number;
  iid: number;
  title: string;
  epic_issue_id: number;
  relative_position: number;
}

describe("epic issues [licensed]", () => {
  let c: Client;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    c = await sandbox({ fixture });
    for (const i of (c.sb.store.data.areas["issues"] as { rows: { id: number; title: string }[] }).rows) {
      ids[i.title] = i.id;
    }
  });
  afterAll(() => c.sb.stop());
  const titles = (body: unknown) => (body as EpicIssue[]).map((i) => i.title);

  it("lists an epic's issues in order with epic_issue_id and relative_position, paginated", async () => {
    const r = await c.admin("GET", "/groups/acme/epics/1/issues");
    expect(r.status).toBe(200);
    expect(titles(r.body)).toEqual(["one", "two"]);
    const first = (r.body as EpicIssue[])[0]!;
    expect(first).toMatchObject({
      iid: 1,
      project_id: expect.any(Number),
      state: "opened",
      epic_issue_id: expect.any(Number),
      relative_position: expect.any(Number),
      subscribed: false,
      _links: expect.objectContaining({ self: expect.stringContaining("/issues/1") }),
    });
    expect(r.headers.get("x-total")).toBe("2");
  });

  it("requires authentication (401); an invisible group is 404; a missing epic 404 Not found", async () => {
    for (const [method, path] of [
      ["GET", "/groups/acme/epics/1/issues"],
      ["POST", "/groups/acme/epics/1/issues/1"],
      ["PUT", "/groups/acme/epics/1/issues/1"],
      ["DELETE", "/groups/acme/epics/1/issues/1"],
    ] as const) {
      const r = await c.call(method, path, { token: null });
      expect([method, r.status, r.body]).toEqual([method, 401, { message: "401 Unauthorized" }]);
    }
    const out = await c.call("GET", "/groups/acme/epics/1/issues", { token: "out-token" });
    expect([out.status, out.body]).toEqual([404, { message: "404 Group Not Found" }]);
    const missing = await c.admin("GET", "/groups/acme/epics/99/issues");
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("the epic itself is readable (for clients that load it first)", async () => {
    const r = await c.admin("GET", "/groups/acme/epics/1");
    expect(r.body).toMatchObject({
      iid: 1,
      title: "Platform",
      description: "All of it",
      start_date: "2021-01-01",
      end_date: "2021-06-30",
      author: { username: "root" },
    });
    const list = await c.admin("GET", "/groups/acme/epics");
    expect((list.body as { iid: number }[]).map((e) => e.iid)).toEqual([2, 1]);
  });

  it("assigns an issue (201 association, placed first); a guest gets 403; already assigned is 409", async () => {
    const guest = await c.call("POST", `/groups/acme/epics/1/issues/${ids["four"]}`, {
      token: "guest-token",
    });
    expect([guest.status, guest.body]).toEqual([403, { message: "403 Forbidden" }]);
    const r = await c.call("POST", `/groups/acme/epics/1/issues/${ids["four"]}`, { token: "rep-token" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.any(Number),
      relative_position: expect.any(Number),
      epic: { iid: 1, title: "Platform" },
      issue: { iid: 3, title: "four" },
    });
    expect(titles((await c.admin("GET", "/groups/acme/epics/1/issues")).body)).toEqual([
      "four",
      "one",
      "two",
    ]);
    const again = await c.admin("POST", `/groups/acme/epics/1/issues/${ids["four"]}`);
    expect([again.status, again.body]).toEqual([409, { message: "Issue(s) already assigned" }]);
  });

  it("moves an issue that is in another epic", async () => {
    const r = await c.admin("POST", `/groups/acme/epics/1/issues/${ids["deep"]}`);
    expect(r.status).toBe(201);
    expect(titles((await c.admin("GET", "/groups/acme/epics/2/issues")).body)).toEqual([]);
    expect(titles((await c.admin("GET", "/groups/acme/epics/1/issues")).body)).toEqual([
      "deep",
      "four",
      "one",
      "two",
    ]);
  });

  it("an unknown issue is 404 Not found; one outside the group's hierarchy is 404 No Issue found", async () => {
    const none = await c.admin("POST", "/groups/acme/epics/1/issues/99999");
    expect([none.status, none.body]).toEqual([404, { message: "404 Not found" }]);
    const outside = await c.admin("POST", `/groups/acme/epics/1/issues/${ids["outside"]}`);
    expect([outside.status, outside.body]).toEqual([404, { message: "No Issue found for given params" }]);
  });

  it("reorders with move_before_id (the link to follow) and move_after_id (the link to precede)", async () => {
    const list = (await c.admin("GET", "/groups/acme/epics/1/issues")).body as EpicIssue[];
    const link = (t: string) => list.find((i) => i.title === t)!.epic_issue_id;
    // deep, four, one, two  ->  four, one, deep, two
    const r = await c.call("PUT", `/groups/acme/epics/1/issues/${link("deep")}`, {
      token: "rep-token",
      form: `move_before_id=${link("one")}`,
    });
    expect(r.status).toBe(200);
    expect(titles(r.body)).toEqual(["four", "one", "deep", "two"]);
    const positions = (r.body as EpicIssue[]).map((i) => i.relative_position);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // -> two first
    const r2 = await c.admin("PUT", `/groups/acme/epics/1/issues/${link("two")}`, {
      move_after_id: link("four"),
    });
    expect(titles(r2.body)).toEqual(["two", "four", "one", "deep"]);
    // between four and one
    const r3 = await c.admin("PUT", `/groups/acme/epics/1/issues/${link("deep")}`, {
      move_before_id: link("four"),
      move_after_id: link("one"),
    });
    expect(titles(r3.body)).toEqual(["two", "four", "deep", "one"]);
    const bad = await c.admin("PUT", `/groups/acme/epics/1/issues/${link("deep")}`, {
      move_before_id: 424242,
    });
    expect([bad.status, bad.body]).toEqual([404, { message: "Epic issue not found for given params" }]);
    // A Guest of the group may not reorder (a Reporter may).
    const byGuest = await c.call("PUT", `/groups/acme/epics/1/issues/${link("deep")}`, {
      token: "guest-token",
      json: { move_before_id: link("two") },
    });
    expect([byGuest.status, byGuest.body]).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("keeps order when positions run out of room (rebalancing)", async () => {
    for (let n = 0; n < 12; n++) {
      const list = (await c.admin("GET", "/groups/acme/epics/1/issues")).body as EpicIssue[];
      const [a, b, x] = [list[0]!, list[1]!, list[list.length - 1]!];
      const r = await c.admin("PUT", `/groups/acme/epics/1/issues/${x.epic_issue_id}`, {
        move_before_id: a.epic_issue_id,
        move_after_id: b.epic_issue_id,
      });
      expect(titles(r.body)).toEqual([a.title, x.title, ...list.slice(1, -1).map((i) => i.title)]);
    }
  });

  it("removes an association (200 with it); a missing one is 404 Not found", async () => {
    const list = (await c.admin("GET", "/groups/acme/epics/1/issues")).body as EpicIssue[];
    const one = list.find((i) => i.title === "one")!;
    // A Guest of the group may not remove it (a Reporter may).
    const byGuest = await c.call("DELETE", `/groups/acme/epics/1/issues/${one.epic_issue_id}`, {
      token: "guest-token",
    });
    expect([byGuest.status, byGuest.body]).toEqual([403, { message: "403 Forbidden" }]);
    const r = await c.call("DELETE", `/groups/acme/epics/1/issues/${one.epic_issue_id}`, {
      token: "rep-token",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: one.epic_issue_id, epic: { iid: 1 }, issue: { title: "one" } });
    expect(titles((await c.admin("GET", "/groups/acme/epics/1/issues")).body)).not.toContain("one");
    const again = await c.admin("DELETE", `/groups/acme/epics/1/issues/${one.epic_issue_id}`);
    expect([again.status, again.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("on the core edition the routes exist but answer 403", async () => {
    const core = await sandbox({ edition: "core", fixture });
    try {
      for (const [method, path] of [
        ["GET", "/groups/acme/epics/1/issues"],
        ["POST", "/groups/acme/epics/1/issues/1"],
        ["PUT", "/groups/acme/epics/1/issues/1"],
        ["DELETE", "/groups/acme/epics/1/issues/1"],
      ] as const) {
        const r = await core.call(method, path);
        expect([method, r.status, r.body]).toEqual([method, 403, { message: "403 Forbidden" }]);
      }
      const guest = await core.call("GET", "/groups/acme/epics/1/issues", { token: null });
      expect(guest.status).toBe(401);
    } finally {
      await core.sb.stop();
    }
  });
});
