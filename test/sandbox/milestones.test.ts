import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2021-03-04T05:06:07.089Z";

const fixture = {
  users: [
    { username: "dev", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "outsider", token: "out-token" },
    { username: "gst", token: "gst-token" },
  ],
  groups: [
    { path: "acme", visibility: "private", members: { dev: "developer", rep: "reporter", gst: "guest" } },
    { path: "other", visibility: "private", members: { dev: "reporter" } },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/web", visibility: "private" },
    { path: "other/svc", visibility: "private", members: { dev: "developer" } },
    { path: "dev/personal", visibility: "private", members: { rep: "reporter" } },
    { path: "dev/open", visibility: "public" },
  ],
  milestones: [
    {
      project: "acme/api",
      title: "v1",
      description: "first",
      due_date: "2021-05-01",
      start_date: "2021-04-01",
    },
    { project: "acme/api", title: "v0", state: "closed" },
    { project: "acme/web", title: "v1" },
    { group: "acme", title: "Q2" },
  ],
  issues: [
    { project: "acme/api", title: "in v1", milestone: "v1", author: "dev" },
    { project: "acme/api", title: "closed in v1", milestone: "v1", state: "closed", author: "dev" },
    { project: "acme/web", title: "web v1", milestone: "v1", author: "dev" },
    { project: "acme/web", title: "group q2", milestone: "Q2", author: "dev" },
  ],
  deployments: [
    {
      project: "acme/api",
      environment: "production",
      merge_requests: [{ title: "ship v1", milestone: "v1" }],
    },
    {
      project: "acme/web",
      environment: "production",
      merge_requests: [{ title: "web for v1", milestone: "v1" }],
    },
  ],
};

interface Ms {
  id: number;
  iid: number;
  title: string;
  state: string;
  project_id?: number;
  group_id?: number;
}

describe("milestones (§3.10)", () => {
  let c: Client;
  let api: number;
  let acme: number;
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
    api = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
    acme = ((await c.admin("GET", "/groups/acme")).body as { id: number }).id;
  });
  afterAll(() => c.sb.stop());

  it("lists a project's milestones id desc with the entity fields and the recorded Link (state=all default)", async () => {
    const r = await c.admin("GET", "/projects/acme%2Fapi/milestones");
    expect(r.status).toBe(200);
    const list = r.body as Ms[];
    expect(list.map((m) => m.title)).toEqual(["v0", "v1"]);
    expect(list[1]).toEqual({
      id: expect.any(Number),
      iid: 1,
      project_id: api,
      title: "v1",
      description: "first",
      state: "active",
      created_at: NOW,
      updated_at: NOW,
      due_date: "2021-05-01",
      start_date: "2021-04-01",
      web_url: `${c.sb.url}/acme/api/-/milestones/1`,
    });
    expect(list[0]!.id).toBeGreaterThan(list[1]!.id);
    expect(r.headers.get("x-total")).toBe("2");
    expect(r.headers.get("link")).toContain("state=all");
    expect(r.headers.get("link")).toContain("id=acme%2Fapi");
  });

  it("filters by state, iids[], title and search; rejects an unknown state", async () => {
    const titles = async (q: string) =>
      ((await c.admin("GET", `/projects/${api}/milestones?${q}`)).body as Ms[]).map((m) => m.title);
    expect(await titles("state=closed")).toEqual(["v0"]);
    expect(await titles("state=active")).toEqual(["v1"]);
    expect(await titles("iids[]=2")).toEqual(["v0"]);
    expect(await titles("title=v1")).toEqual(["v1"]);
    expect(await titles("search=FIRST")).toEqual(["v1"]);
    expect(await titles("include_parent_milestones=true")).toEqual(["Q2", "v0", "v1"]);
    const bad = await c.admin("GET", `/projects/${api}/milestones?state=open`);
    expect([bad.status, bad.body]).toEqual([400, { error: "state does not have a valid value" }]);
  });

  it("paginates", async () => {
    const r = await c.admin("GET", `/projects/${api}/milestones?per_page=1&page=2`);
    expect((r.body as Ms[]).map((m) => m.title)).toEqual(["v1"]);
    expect(r.headers.get("x-prev-page")).toBe("1");
    expect(r.headers.get("x-total-pages")).toBe("2");
  });

  it("get by id; a missing or foreign id is 404 Not found; a non-integer id is 400", async () => {
    const list = (await c.admin("GET", `/projects/${api}/milestones`)).body as Ms[];
    const one = await c.admin("GET", `/projects/${api}/milestones/${list[0]!.id}`);
    expect([one.status, (one.body as Ms).title]).toEqual([200, "v0"]);
    const groupMs = ((await c.admin("GET", `/groups/${acme}/milestones`)).body as Ms[])[0]!;
    expect(groupMs).toMatchObject({ group_id: acme, title: "Q2", iid: 1 });
    expect(groupMs).not.toHaveProperty("project_id");
    expect(groupMs).toMatchObject({ web_url: `${c.sb.url}/groups/acme/-/milestones/1` });
    const foreign = await c.admin("GET", `/projects/${api}/milestones/${groupMs.id}`);
    expect([foreign.status, foreign.body]).toEqual([404, { message: "404 Not found" }]);
    const bad = await c.admin("GET", `/projects/${api}/milestones/abc`);
    expect([bad.status, bad.body]).toEqual([400, { error: "milestone_id is invalid" }]);
  });

  it("create: 201, title required, dates, uniqueness across project and group (Ruby-inspect message)", async () => {
    const r = await c.call("POST", `/projects/${api}/milestones`, {
      token: "dev-token",
      form: "title=v2&description=second&due_date=2021-07-01&start_date=2021-06-01",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ iid: 3, title: "v2", state: "active", due_date: "2021-07-01" });
    const missing = await c.admin("POST", `/projects/${api}/milestones`, { description: "x" });
    expect([missing.status, missing.body]).toEqual([400, { error: "title is missing" }]);
    const dup = await c.admin("POST", `/projects/${api}/milestones`, { title: "v2" });
    expect([dup.status, dup.body]).toEqual([
      400,
      {
        message:
          'Failed to create milestone {:title=>["already being used for another group or project milestone."]}',
      },
    ]);
    const groupTitle = await c.admin("POST", `/projects/${api}/milestones`, { title: "Q2" });
    expect(groupTitle.status).toBe(400);
    // The group checks its projects' titles: "v2" exists in acme/api.
    const fromGroup = await c.admin("POST", `/groups/${acme}/milestones`, { title: "v2" });
    expect(fromGroup.body).toEqual({
      message:
        'Failed to create milestone {:title=>["already being used for another group or project milestone."]}',
    });
    const dates = await c.admin("POST", `/projects/${api}/milestones`, {
      title: "v3",
      start_date: "2021-06-01",
      due_date: "2021-05-01",
    });
    expect([dates.status, dates.body]).toEqual([
      400,
      { message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' },
    ]);
    const blank = await c.admin("POST", `/projects/${api}/milestones`, { title: "" });
    expect(blank.body).toEqual({ message: `Failed to create milestone {:title=>["can't be blank"]}` });
  });

  it("update: at_least_one_of, state_event close/activate moves the state, errors as Failed to update", async () => {
    const m = (await c.admin("POST", `/projects/${api}/milestones`, { title: "upd" })).body as Ms;
    const none = await c.admin("PUT", `/projects/${api}/milestones/${m.id}`, {});
    expect([none.status, none.body]).toEqual([
      400,
      {
        error:
          "title, description, due_date, start_date, state_event are missing, at least one parameter must be provided",
      },
    ]);
    const closed = await c.call("PUT", `/projects/${api}/milestones/${m.id}`, { form: "state_event=close" });
    expect([closed.status, (closed.body as Ms).state]).toEqual([200, "closed"]);
    const active = await c.admin("PUT", `/projects/${api}/milestones/${m.id}`, { state_event: "activate" });
    expect((active.body as Ms).state).toBe("active");
    const bad = await c.admin("PUT", `/projects/${api}/milestones/${m.id}`, { state_event: "reopen" });
    expect([bad.status, bad.body]).toEqual([400, { error: "state_event does not have a valid value" }]);
    const clash = await c.admin("PUT", `/projects/${api}/milestones/${m.id}`, { title: "v1" });
    expect(clash.body).toEqual({
      message:
        'Failed to update milestone {:title=>["already being used for another group or project milestone."]}',
    });
    const renamed = await c.admin("PUT", `/projects/${api}/milestones/${m.id}`, {
      title: "upd2",
      description: "d",
    });
    expect(renamed.body).toMatchObject({ title: "upd2", description: "d" });
    const missing = await c.admin("PUT", `/projects/${api}/milestones/999999`, { title: "x" });
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("roles: guest 401 on writes, reporter 403, developer may delete (204); outsider 404", async () => {
    const m = (await c.admin("POST", `/projects/${api}/milestones`, { title: "del" })).body as Ms;
    const guest = await c.call("DELETE", `/projects/${api}/milestones/${m.id}`, { token: null });
    expect(guest.status).toBe(404); // a guest cannot see the private project
    const rep = await c.call("DELETE", `/projects/${api}/milestones/${m.id}`, { token: "rep-token" });
    expect([rep.status, rep.body]).toEqual([403, { message: "403 Forbidden" }]);
    const repRead = await c.call("GET", `/projects/${api}/milestones`, { token: "rep-token" });
    expect(repRead.status).toBe(200);
    const out = await c.call("GET", `/projects/${api}/milestones`, { token: "out-token" });
    expect([out.status, out.body]).toEqual([404, { message: "404 Project Not Found" }]);
    // A group's milestones are written by its Developers, not its Reporters.
    const repGroup = await c.call("POST", `/groups/${acme}/milestones`, {
      token: "rep-token",
      json: { title: "g" },
    });
    expect([repGroup.status, repGroup.body]).toEqual([403, { message: "403 Forbidden" }]);
    const outGroup = await c.call("GET", `/groups/${acme}/milestones`, { token: "out-token" });
    expect([outGroup.status, outGroup.body]).toEqual([404, { message: "404 Group Not Found" }]);
    const del = await c.call("DELETE", `/projects/${api}/milestones/${m.id}`, { token: "dev-token" });
    expect([del.status, del.text]).toEqual([204, ""]);
    const again = await c.admin("GET", `/projects/${api}/milestones/${m.id}`);
    expect(again.status).toBe(404);
  });

  it("a public project's milestones are readable without a token; writes need one (401) and Developer (403)", async () => {
    const read = await c.call("GET", "/projects/dev%2Fopen/milestones", { token: null });
    expect([read.status, read.body]).toEqual([200, []]);
    const write = await c.call("POST", "/projects/dev%2Fopen/milestones", {
      token: null,
      json: { title: "x" },
    });
    expect([write.status, write.body]).toEqual([401, { message: "401 Unauthorized" }]);
    const user = await c.call("POST", "/projects/dev%2Fopen/milestones", {
      token: "user-token",
      json: { title: "x" },
    });
    expect([user.status, user.body]).toEqual([403, { message: "403 Forbidden" }]);
    const owner = await c.call("POST", "/projects/dev%2Fopen/milestones", {
      token: "dev-token",
      json: { title: "x" },
    });
    expect(owner.status).toBe(201);
  });

  it("group milestones: create, update, delete with iids per group", async () => {
    const r = await c.admin("POST", `/groups/${acme}/milestones`, { title: "Q3", due_date: "2021-09-30" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ group_id: acme, iid: 2, title: "Q3", due_date: "2021-09-30" });
    const id = (r.body as Ms).id;
    const u = await c.admin("PUT", `/groups/${acme}/milestones/${id}`, { state_event: "close" });
    expect((u.body as Ms).state).toBe("closed");
    const d = await c.admin("DELETE", `/groups/${acme}/milestones/${id}`);
    expect(d.status).toBe(204);
  });

  it("issues and merge requests of a milestone (project and group)", async () => {
    const list = (await c.admin("GET", `/projects/${api}/milestones?title=v1`)).body as Ms[];
    const issues = await c.admin("GET", `/projects/${api}/milestones/${list[0]!.id}/issues`);
    expect(issues.status).toBe(200);
    expect((issues.body as { title: string; milestone: { title: string } }[]).map((i) => i.title)).toEqual([
      "in v1",
      "closed in v1",
    ]);
    expect((issues.body as { milestone: { title: string } }[])[0]!.milestone.title).toBe("v1");
    expect(issues.headers.get("x-total")).toBe("2");
    const q2 = ((await c.admin("GET", `/groups/${acme}/milestones?title=Q2`)).body as Ms[])[0]!;
    const gi = await c.admin("GET", `/groups/${acme}/milestones/${q2.id}/issues`);
    expect((gi.body as { title: string }[]).map((i) => i.title)).toEqual(["group q2"]);
    const mrs = await c.admin("GET", `/projects/${api}/milestones/${list[0]!.id}/merge_requests`);
    expect([mrs.status, mrs.headers.get("x-total")]).toEqual([200, "1"]);
    expect(mrs.body).toEqual([
      expect.objectContaining({ title: "ship v1", milestone: expect.objectContaining({ title: "v1" }) }),
    ]);
    const none = await c.call("GET", `/projects/${api}/milestones/${list[0]!.id}/merge_requests`, {
      token: "out-token",
    });
    expect(none.status).toBe(404);
    // A Guest of the private project sees the milestone but not its merge requests; a Reporter sees them.
    const asGuest = await c.call("GET", `/projects/${api}/milestones/${list[0]!.id}/merge_requests`, {
      token: "gst-token",
    });
    expect([asGuest.status, asGuest.body]).toEqual([200, []]);
    const asReporter = await c.call("GET", `/projects/${api}/milestones/${list[0]!.id}/merge_requests`, {
      token: "rep-token",
    });
    expect((asReporter.body as { title: string }[]).map((m) => m.title)).toEqual(["ship v1"]);
  });

  it("burndown events are licensed and derived from the issues", async () => {
    const list = (await c.admin("GET", `/projects/${api}/milestones?title=v1`)).body as Ms[];
    const r = await c.admin("GET", `/projects/${api}/milestones/${list[0]!.id}/burndown_events`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { created_at: NOW, weight: null, action: "created" },
      { created_at: NOW, weight: null, action: "created" },
      { created_at: NOW, weight: null, action: "closed" },
    ]);
    const core = await sandbox({ edition: "core", fixture });
    try {
      const pid = ((await core.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
      const ms = (await core.admin("GET", `/projects/${pid}/milestones`)).body as Ms[];
      const r2 = await core.admin("GET", `/projects/${pid}/milestones/${ms[0]!.id}/burndown_events`);
      expect([r2.status, r2.body]).toEqual([404, { error: "404 Not Found" }]);
    } finally {
      await core.sb.stop();
    }
  });

  it("promote: becomes a group milestone, merging same-titled project milestones and moving their issues and merge requests", async () => {
    const web = ((await c.admin("GET", "/projects/acme%2Fweb")).body as { id: number }).id;
    const v1 = ((await c.admin("GET", `/projects/${api}/milestones?title=v1`)).body as Ms[])[0]!;
    const rep = await c.call("POST", `/projects/${api}/milestones/${v1.id}/promote`, { token: "rep-token" });
    expect(rep.status).toBe(403);
    const r = await c.call("POST", `/projects/${api}/milestones/${v1.id}/promote`, { token: "dev-token" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      group_id: acme,
      title: "v1",
      description: "first",
      due_date: "2021-05-01",
    });
    const gid = (r.body as Ms).id;
    expect(((await c.admin("GET", `/projects/${api}/milestones?title=v1`)).body as Ms[]).length).toBe(0);
    expect(((await c.admin("GET", `/projects/${web}/milestones?title=v1`)).body as Ms[]).length).toBe(0);
    const moved = await c.admin("GET", `/groups/${acme}/milestones/${gid}/issues`);
    expect((moved.body as { title: string }[]).map((i) => i.title).sort()).toEqual([
      "closed in v1",
      "in v1",
      "web v1",
    ]);
    const movedMrs = await c.admin("GET", `/groups/${acme}/milestones/${gid}/merge_requests`);
    expect(
      (movedMrs.body as { title: string; milestone: { id: number } }[]).map((m) => [m.title, m.milestone.id]),
    ).toEqual([
      ["ship v1", gid],
      ["web for v1", gid],
    ]);
  });

  it("promote: a project outside a group is 400; developer access to the group is required", async () => {
    const personal = ((await c.admin("GET", "/projects/dev%2Fpersonal")).body as { id: number }).id;
    const m = (await c.admin("POST", `/projects/${personal}/milestones`, { title: "solo" })).body as Ms;
    const r = await c.admin("POST", `/projects/${personal}/milestones/${m.id}/promote`);
    expect([r.status, r.body]).toEqual([400, { message: "Project does not belong to a group." }]);
    // A Reporter of the project is refused before the group is looked for.
    const byRep = await c.call("POST", `/projects/${personal}/milestones/${m.id}/promote`, {
      token: "rep-token",
    });
    expect([byRep.status, byRep.body]).toEqual([403, { message: "403 Forbidden" }]);
    const svc = ((await c.admin("GET", "/projects/other%2Fsvc")).body as { id: number }).id;
    const s = (await c.admin("POST", `/projects/${svc}/milestones`, { title: "s1" })).body as Ms;
    const notGroupDev = await c.call("POST", `/projects/${svc}/milestones/${s.id}/promote`, {
      token: "dev-token",
    });
    expect([notGroupDev.status, notGroupDev.body]).toEqual([403, { message: "403 Forbidden" }]);
  });
});
