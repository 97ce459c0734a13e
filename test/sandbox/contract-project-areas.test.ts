/**
 * The rows of the contract's Wikis, Milestones (project), Badges, Access requests, Protected environments,
 * Error-tracking settings and Epic issues endpoint tables (`shared/spec/rest-interface.md`, beside the repository),
 * one case per row with valid and invalid requests, asserted over HTTP against in-process sandboxes of both
 * editions where the contract marks something licensed. The areas' own test files go deeper;
 * contract-endpoints.test.ts checks that every row has its case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "asker", token: "asker-token" },
    { username: "other", token: "other-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { owner: "owner", maint: "maintainer", dev: "developer", rep: "reporter" },
    },
    { path: "ops", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "private", default_branch: "main", shared_with: { ops: "developer" } },
    { path: "acme/web", visibility: "private" },
    { path: "outsider/own", visibility: "private" },
  ],
  milestones: [
    {
      project: "acme/api",
      title: "v1",
      description: "First",
      start_date: "2021-04-01",
      due_date: "2021-05-01",
    },
    { project: "acme/api", title: "v2", state: "closed" },
    { group: "acme", title: "Q3" },
  ],
  issues: [
    { project: "acme/api", title: "Login fails", milestone: "v1", created_at: "2021-04-02T00:00:00Z" },
    {
      project: "acme/api",
      title: "Crash",
      milestone: "v1",
      state: "closed",
      created_at: "2021-04-03T00:00:00Z",
      closed_at: "2021-04-10T00:00:00Z",
    },
    { project: "acme/web", title: "Layout" },
  ],
  deployments: [
    {
      project: "acme/api",
      environment: "production",
      merge_requests: [{ title: "Add login", milestone: "v1" }, { title: "Unplanned" }],
    },
  ],
  wikis: [{ project: "acme/api", title: "Home", content: "Welcome" }],
  badges: [
    {
      project: "acme/api",
      name: "coverage",
      link_url: "https://ci.example/%{project_path}",
      image_url: "https://ci.example/c.svg",
    },
    {
      group: "acme",
      name: "chat",
      link_url: "https://chat.example",
      image_url: "https://chat.example/b.svg",
    },
  ],
  access_requests: [
    { group: "acme", user: "asker", requested_at: "2021-03-01T10:00:00Z" },
    { project: "acme/api", user: "asker", requested_at: "2021-03-02T10:00:00Z" },
  ],
  protected_environments: [
    { project: "acme/api", name: "production", deploy_access_levels: [{ access_level: 40 }] },
  ],
  error_tracking: [
    {
      project: "acme/api",
      active: true,
      project_name: "api",
      tracker_external_url: "https://sentry.example/acme/api",
      api_url: "https://sentry.example/api/0/projects/acme/api",
    },
  ],
  epics: [{ group: "acme", iid: 1, title: "Platform", issues: ["acme/api#1"] }],
};

type Row = { id: number; title: string };

describe("contract endpoint tables: Wikis, Milestones, Badges, Access requests, Protected environments, Error tracking, Epic issues", () => {
  let c: Client;
  let core: Client;
  const uid: Record<string, number> = {};
  const milestone: Record<string, number> = {};
  const issue: Record<string, number> = {};
  const badge: Record<string, number> = {};

  beforeAll(async () => {
    c = await sandbox({ fixture });
    core = await sandbox({ fixture: { ...fixture, protected_environments: [], epics: [] }, edition: "core" });
    for (const name of ["asker", "other", "dev", "outsider"]) {
      uid[name] = ((await c.admin("GET", `/users?username=${name}`)).body as { id: number }[])[0]!.id;
    }
    for (const m of (await c.admin("GET", "/projects/acme%2Fapi/milestones")).body as Row[])
      milestone[m.title] = m.id;
    for (const i of (c.sb.store.data.areas["issues"] as { rows: Row[] }).rows) issue[i.title] = i.id;
    for (const b of (await c.admin("GET", "/projects/acme%2Fapi/badges")).body as {
      id: number;
      name: string;
    }[]) {
      badge[b.name] = b.id;
    }
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("Wikis", () => {
    const wikis = "/projects/acme%2Fapi/wikis";

    it("GET /projects/:id/wikis | with_content boolean opt | array of wiki page", async () => {
      const r = await c.call("GET", wikis, { token: "rep-token" });
      expect(r.body).toEqual([{ format: "markdown", slug: "Home", title: "Home" }]);
      const full = await c.call("GET", `${wikis}?with_content=true`, { token: "rep-token" });
      expect(full.body).toEqual([{ format: "markdown", slug: "Home", title: "Home", content: "Welcome" }]);
      expect((await c.call("GET", `${wikis}?with_content=perhaps`, { token: "rep-token" })).body).toEqual({
        error: "with_content is invalid",
      });
      expect((await c.call("GET", wikis, { token: "outsider-token" })).status).toBe(404);
    });

    it("GET /projects/:id/wikis/:slug | slug string req | wiki page", async () => {
      const r = await c.call("GET", `${wikis}/Home`, { token: "rep-token" });
      expect(r.body).toEqual({ format: "markdown", slug: "Home", title: "Home", content: "Welcome" });
      const missing = await c.call("GET", `${wikis}/Nowhere`, { token: "rep-token" });
      expect([missing.status, missing.body]).toEqual([404, { message: "404 Wiki Page Not Found" }]);
    });

    it("POST /projects/:id/wikis | content, title req; format opt (markdown, rdoc, asciidoc, org) | wiki page", async () => {
      const r = await c.call("POST", wikis, {
        token: "dev-token",
        json: { title: "docs/Getting Started", content: "* one", format: "org" },
      });
      expect([r.status, r.body]).toEqual([
        201,
        { format: "org", slug: "docs/Getting-Started", title: "Getting Started", content: "* one" },
      ]);
      expect((await c.call("POST", wikis, { token: "dev-token", json: { title: "x" } })).body).toEqual({
        error: "content is missing",
      });
      expect(
        (
          await c.call("POST", wikis, {
            token: "dev-token",
            json: { title: "x", content: "y", format: "textile" },
          })
        ).body,
      ).toEqual({ error: "format does not have a valid value" });
      expect(
        (await c.call("POST", wikis, { token: "rep-token", json: { title: "x", content: "y" } })).status,
      ).toBe(403);
    });

    it("PUT /projects/:id/wikis/:slug | content or title (at least one); format opt | wiki page", async () => {
      const r = await c.call("PUT", `${wikis}/docs%2FGetting-Started`, {
        token: "dev-token",
        form: "content=*+two",
      });
      expect(r.body).toMatchObject({ slug: "docs/Getting-Started", content: "* two", format: "org" });
      const none = await c.call("PUT", `${wikis}/Home`, { token: "dev-token", json: {} });
      expect([none.status, none.body]).toEqual([
        400,
        { error: "content, title, format are missing, at least one parameter must be provided" },
      ]);
      expect(
        (await c.call("PUT", `${wikis}/Nowhere`, { token: "dev-token", json: { content: "x" } })).status,
      ).toBe(404);
    });

    it("DELETE /projects/:id/wikis/:slug | | 204, no body", async () => {
      expect((await c.call("DELETE", `${wikis}/docs%2FGetting-Started`, { token: "dev-token" })).status).toBe(
        403,
      );
      const r = await c.call("DELETE", `${wikis}/docs%2FGetting-Started`, { token: "maint-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect(
        (await c.call("DELETE", `${wikis}/docs%2FGetting-Started`, { token: "maint-token" })).body,
      ).toEqual({
        message: "404 Wiki Page Not Found",
      });
    });

    it("POST /projects/:id/wikis/attachments | multipart: file req; branch opt | attachment result", async () => {
      const upload = async (token: string, branch?: string) => {
        const form = new FormData();
        form.append("file", new Blob(["# notes"]), "notes.md");
        if (branch) form.append("branch", branch);
        const r = await c.call("POST", `${wikis}/attachments`, { token, multipart: form });
        return { status: r.status, body: r.body as Record<string, unknown> };
      };
      const r = await upload("dev-token", "wiki-main");
      expect(r.status).toBe(201);
      const path = r.body["file_path"] as string;
      expect(r.body).toEqual({
        file_name: "notes.md",
        file_path: expect.stringMatching(/^uploads\/[0-9a-f]{32}\/notes\.md$/),
        branch: "wiki-main",
        link: { url: path, markdown: `[notes.md](${path})` },
      });
      expect((await upload("dev-token")).body["branch"]).toBe("master");
      expect((await c.call("POST", `${wikis}/attachments`, { token: "dev-token", json: {} })).body).toEqual({
        error: "file is missing",
      });
      expect((await upload("rep-token")).status).toBe(403);
    });
  });

  describe("Milestones (project)", () => {
    const ms = "/projects/acme%2Fapi/milestones";

    it("GET /projects/:id/milestones | iids[], state, title, search opt | array of milestone", async () => {
      const r = await c.call("GET", ms, { token: "rep-token" });
      expect((r.body as Row[]).map((m) => m.title)).toEqual(["v2", "v1"]);
      expect((r.body as object[])[1]).toMatchObject({
        id: milestone["v1"],
        iid: 1,
        project_id: expect.any(Number),
        title: "v1",
        description: "First",
        state: "active",
        start_date: "2021-04-01",
        due_date: "2021-05-01",
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const f = await c.call("GET", `${ms}?iids[]=1&iids[]=2&state=active&search=first`, {
        token: "rep-token",
      });
      expect((f.body as Row[]).map((m) => m.title)).toEqual(["v1"]);
      expect(
        ((await c.call("GET", `${ms}?title=v2`, { token: "rep-token" })).body as Row[]).map((m) => m.title),
      ).toEqual(["v2"]);
      expect((await c.call("GET", `${ms}?state=open`, { token: "rep-token" })).body).toEqual({
        error: "state does not have a valid value",
      });
      expect((await c.call("GET", ms, { token: "outsider-token" })).body).toEqual({
        message: "404 Project Not Found",
      });
    });

    it("GET /projects/:id/milestones/:milestone_id | | milestone", async () => {
      const r = await c.call("GET", `${ms}/${milestone["v1"]}`, { token: "rep-token" });
      expect(r.body).toMatchObject({ id: milestone["v1"], title: "v1" });
      expect((await c.call("GET", `${ms}/999999`, { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
    });

    it("POST /projects/:id/milestones | title req; description, due_date, start_date opt | milestone", async () => {
      const r = await c.call("POST", ms, {
        token: "dev-token",
        json: { title: "v3", description: "Third", start_date: "2021-07-01", due_date: "2021-08-01" },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ title: "v3", iid: 3, state: "active", due_date: "2021-08-01" });
      expect((await c.call("POST", ms, { token: "dev-token", json: {} })).body).toEqual({
        error: "title is missing",
      });
      const taken = await c.call("POST", ms, { token: "dev-token", json: { title: "Q3" } });
      expect([taken.status, taken.body]).toEqual([
        400,
        {
          message:
            'Failed to create milestone {:title=>["already being used for another group or project milestone."]}',
        },
      ]);
      expect((await c.call("POST", ms, { token: "rep-token", json: { title: "v9" } })).status).toBe(403);
    });

    it("PUT /projects/:id/milestones/:milestone_id | title, description, due_date, start_date, state_event opt | milestone", async () => {
      const id = milestone["v2"];
      const r = await c.call("PUT", `${ms}/${id}`, {
        token: "dev-token",
        json: { state_event: "activate", description: "Second" },
      });
      expect(r.body).toMatchObject({ id, state: "active", description: "Second" });
      const backwards = await c.call("PUT", `${ms}/${id}`, {
        token: "dev-token",
        json: { start_date: "2021-09-01", due_date: "2021-08-01" },
      });
      expect([backwards.status, backwards.body]).toEqual([
        400,
        { message: 'Failed to update milestone {:due_date=>["must be greater than start date"]}' },
      ]);
      expect(
        (await c.call("PUT", `${ms}/${id}`, { token: "dev-token", json: { state_event: "reopen" } })).body,
      ).toEqual({
        error: "state_event does not have a valid value",
      });
    });

    it("DELETE /projects/:id/milestones/:milestone_id | Developer access required | removed", async () => {
      const id = ((await c.call("POST", ms, { token: "dev-token", json: { title: "tmp" } })).body as Row).id;
      expect((await c.call("DELETE", `${ms}/${id}`, { token: "rep-token" })).status).toBe(403);
      const r = await c.call("DELETE", `${ms}/${id}`, { token: "dev-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.call("DELETE", `${ms}/${id}`, { token: "dev-token" })).body).toEqual({
        message: "404 Not found",
      });
    });

    it("GET /projects/:id/milestones/:milestone_id/issues | | issues of the milestone", async () => {
      const r = await c.call("GET", `${ms}/${milestone["v1"]}/issues`, { token: "rep-token" });
      expect((r.body as { title: string; state: string }[]).map((i) => [i.title, i.state])).toEqual([
        ["Login fails", "opened"],
        ["Crash", "closed"],
      ]);
      expect((await c.call("GET", `${ms}/${milestone["v2"]}/issues`, { token: "rep-token" })).body).toEqual(
        [],
      );
      expect((await c.call("GET", `${ms}/999999/issues`, { token: "rep-token" })).status).toBe(404);
    });

    it("GET /projects/:id/milestones/:milestone_id/merge_requests | | merge requests of the milestone", async () => {
      const r = await c.call("GET", `${ms}/${milestone["v1"]}/merge_requests`, { token: "rep-token" });
      expect(r.body).toEqual([
        expect.objectContaining({
          title: "Add login",
          state: "merged",
          milestone: expect.objectContaining({ title: "v1" }),
        }),
      ]);
      expect(
        (await c.call("GET", `${ms}/${milestone["v2"]}/merge_requests`, { token: "rep-token" })).body,
      ).toEqual([]);
      expect((await c.call("GET", `${ms}/999999/merge_requests`, { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect(
        (await c.call("GET", `${ms}/${milestone["v1"]}/merge_requests`, { token: "outsider-token" })).status,
      ).toBe(404);
    });

    it("POST /projects/:id/milestones/:milestone_id/promote | Developer access to the group | group milestone", async () => {
      const id = ((await c.call("POST", ms, { token: "dev-token", json: { title: "v4" } })).body as Row).id;
      const r = await c.call("POST", `${ms}/${id}/promote`, { token: "dev-token" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ title: "v4", group_id: expect.any(Number) });
      expect(r.body).not.toHaveProperty("project_id");
      expect((await c.call("GET", `${ms}/${id}`, { token: "dev-token" })).status).toBe(404);
      expect((await c.call("POST", `${ms}/${milestone["v1"]}/promote`, { token: "rep-token" })).status).toBe(
        403,
      );
      const own = (
        (
          await c.call("POST", "/projects/outsider%2Fown/milestones", {
            token: "outsider-token",
            json: { title: "m" },
          })
        ).body as Row
      ).id;
      const personal = await c.call("POST", `/projects/outsider%2Fown/milestones/${own}/promote`, {
        token: "outsider-token",
      });
      expect([personal.status, personal.body]).toEqual([
        400,
        { message: "Project does not belong to a group." },
      ]);
    });

    it("GET /projects/:id/milestones/:milestone_id/burndown_events | [licensed] | burndown events", async () => {
      const r = await c.call("GET", `${ms}/${milestone["v1"]}/burndown_events`, { token: "rep-token" });
      expect(r.body).toEqual([
        { created_at: "2021-04-02T00:00:00.000Z", weight: null, action: "created" },
        { created_at: "2021-04-03T00:00:00.000Z", weight: null, action: "created" },
        { created_at: "2021-04-10T00:00:00.000Z", weight: null, action: "closed" },
      ]);
      expect((await c.call("GET", `${ms}/999999/burndown_events`, { token: "rep-token" })).status).toBe(404);
      const onCore = await core.call("GET", `${ms}/${milestone["v1"]}/burndown_events`, {
        token: "rep-token",
      });
      expect([onCore.status, onCore.body]).toEqual([404, { error: "404 Not Found" }]);
    });
  });

  describe("Badges", () => {
    const badges = "/projects/acme%2Fapi/badges";

    it("GET /projects/:id/badges | name opt (case-sensitive) | project and group badges", async () => {
      const r = await c.call("GET", badges, { token: "rep-token" });
      expect(r.body).toEqual([
        {
          id: badge["coverage"],
          name: "coverage",
          link_url: "https://ci.example/%{project_path}",
          image_url: "https://ci.example/c.svg",
          rendered_link_url: "https://ci.example/acme/api",
          rendered_image_url: "https://ci.example/c.svg",
          kind: "project",
        },
        expect.objectContaining({ name: "chat", kind: "group" }),
      ]);
      expect(
        ((await c.call("GET", `${badges}?name=Chat`, { token: "rep-token" })).body as unknown[]).length,
      ).toBe(0);
      expect(
        ((await c.call("GET", `${badges}?name=chat`, { token: "rep-token" })).body as unknown[]).length,
      ).toBe(1);
      expect((await c.call("GET", badges, { token: null })).body).toEqual({
        message: "404 Project Not Found",
      });
    });

    it("GET /projects/:id/badges/:badge_id | badge_id integer req | badge", async () => {
      const r = await c.call("GET", `${badges}/${badge["coverage"]}`, { token: "rep-token" });
      expect(r.body).toMatchObject({
        id: badge["coverage"],
        kind: "project",
        rendered_link_url: "https://ci.example/acme/api",
      });
      expect((await c.call("GET", `${badges}/999999`, { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await c.call("GET", `${badges}/x`, { token: "rep-token" })).body).toEqual({
        error: "badge_id is invalid",
      });
    });

    it("POST /projects/:id/badges | link_url, image_url req | badge", async () => {
      const r = await c.call("POST", badges, {
        token: "maint-token",
        json: {
          link_url: "https://docs.example/%{default_branch}",
          image_url: "https://docs.example/b.svg",
          name: "docs",
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        name: "docs",
        kind: "project",
        rendered_link_url: "https://docs.example/main",
      });
      badge["docs"] = (r.body as { id: number }).id;
      expect(
        (await c.call("POST", badges, { token: "maint-token", json: { link_url: "https://x.example" } }))
          .body,
      ).toEqual({
        error: "image_url is missing",
      });
      const ftp = await c.call("POST", badges, {
        token: "maint-token",
        json: { link_url: "ftp://x.example", image_url: "https://x.example/i.svg" },
      });
      expect(ftp.status).toBe(400);
      expect((ftp.body as { message: object }).message).toHaveProperty("link_url");
      expect(
        (
          await c.call("POST", badges, {
            token: "dev-token",
            json: { link_url: "https://a.example", image_url: "https://a.example/i" },
          })
        ).status,
      ).toBe(403);
    });

    it("PUT /projects/:id/badges/:badge_id | link_url, image_url opt | badge", async () => {
      const r = await c.call("PUT", `${badges}/${badge["docs"]}`, {
        token: "maint-token",
        json: { image_url: "https://docs.example/%{project_id}.svg" },
      });
      const pid = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
      expect(r.body).toMatchObject({
        link_url: "https://docs.example/%{default_branch}",
        rendered_image_url: `https://docs.example/${pid}.svg`,
      });
      expect(
        (
          await c.call("PUT", `${badges}/${badge["docs"]}`, {
            token: "maint-token",
            json: { link_url: "nope" },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await c.call("PUT", `${badges}/999999`, {
            token: "maint-token",
            json: { link_url: "https://a.example" },
          })
        ).status,
      ).toBe(404);
    });

    it("DELETE /projects/:id/badges/:badge_id | removes only project badges | removed", async () => {
      const group = await c.call("DELETE", `${badges}/${badge["chat"]}`, { token: "maint-token" });
      expect([group.status, group.body]).toEqual([
        403,
        { error: "To delete a Group badge please use the Group endpoint" },
      ]);
      const r = await c.call("DELETE", `${badges}/${badge["docs"]}`, { token: "maint-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.call("DELETE", `${badges}/${badge["docs"]}`, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
    });

    it("GET /projects/:id/badges/render | link_url, image_url req (URL-encoded) | link_url, image_url, rendered_link_url, rendered_image_url", async () => {
      const q = `link_url=${encodeURIComponent("https://r.example/%{project_path}")}&image_url=${encodeURIComponent("https://r.example/i.svg")}`;
      const r = await c.call("GET", `${badges}/render?${q}`, { token: "maint-token" });
      expect(r.body).toEqual({
        link_url: "https://r.example/%{project_path}",
        image_url: "https://r.example/i.svg",
        rendered_link_url: "https://r.example/acme/api",
        rendered_image_url: "https://r.example/i.svg",
      });
      expect(
        (await c.call("GET", `${badges}/render?link_url=https://r.example`, { token: "maint-token" })).body,
      ).toEqual({
        error: "image_url is missing",
      });
      expect((await c.call("GET", `${badges}/render?${q}`, { token: "dev-token" })).status).toBe(403);
      expect((await c.call("GET", `${badges}/render?${q}`, { token: null })).body).toEqual({
        message: "404 Project Not Found",
      });
    });
  });

  describe("Access requests (groups and projects)", () => {
    it("GET /groups/:id/access_requests | | array of access request visible to the caller", async () => {
      const r = await c.call("GET", "/groups/acme/access_requests", { token: "owner-token" });
      expect(r.body).toEqual([
        expect.objectContaining({
          id: uid["asker"],
          username: "asker",
          state: "active",
          requested_at: "2021-03-01T10:00:00.000Z",
        }),
      ]);
      expect(Object.keys((r.body as object[])[0]!)).toEqual(expect.arrayContaining(["name", "created_at"]));
      expect((await c.call("GET", "/groups/acme/access_requests", { token: "dev-token" })).status).toBe(403);
      expect((await c.call("GET", "/groups/acme/access_requests", { token: "outsider-token" })).status).toBe(
        404,
      );
    });

    it("POST /groups/:id/access_requests | | access request for the caller", async () => {
      const r = await c.call("POST", "/groups/ops/access_requests", { token: "other-token" });
      // ops is private: invisible to other
      expect(r.status).toBe(404);
      c.sb.store.data.groups.find((g) => g.path === "ops")!.visibility = "internal";
      const ok = await c.call("POST", "/groups/ops/access_requests", { token: "other-token" });
      expect(ok.status).toBe(201);
      expect(ok.body).toMatchObject({
        id: uid["other"],
        username: "other",
        requested_at: expect.any(String),
      });
      const again = await c.call("POST", "/groups/ops/access_requests", { token: "other-token" });
      expect([again.status, again.body]).toEqual([
        400,
        { message: { user_id: ["already exists in source"] } },
      ]);
      expect((await c.call("POST", "/groups/acme/access_requests", { token: "dev-token" })).status).toBe(403);
    });

    it("PUT /groups/:id/access_requests/:user_id/approve | user_id req; access_level opt (default 30) | approved requester", async () => {
      const url = `/groups/acme/access_requests/${uid["asker"]}/approve`;
      expect((await c.call("PUT", url, { token: "owner-token", json: { access_level: 60 } })).body).toEqual({
        message: { access_level: ["is not included in the list"] },
      });
      const r = await c.call("PUT", url, { token: "owner-token", json: { access_level: 20 } });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: uid["asker"], username: "asker", access_level: 20 });
      expect((await c.call("PUT", url, { token: "owner-token" })).body).toEqual({ message: "404 Not found" });
      expect(
        (await c.call("PUT", "/groups/acme/access_requests/x/approve", { token: "owner-token" })).body,
      ).toEqual({
        error: "user_id is invalid",
      });
    });

    it("DELETE /groups/:id/access_requests/:user_id | user_id req | denies the request", async () => {
      // ops is internal now: dev sees it but may not manage its members
      expect(
        (await c.call("DELETE", `/groups/ops/access_requests/${uid["other"]}`, { token: "dev-token" }))
          .status,
      ).toBe(403);
      const r = await c.admin("DELETE", `/groups/ops/access_requests/${uid["other"]}`);
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.admin("DELETE", `/groups/ops/access_requests/${uid["other"]}`)).body).toEqual({
        message: "404 Not found",
      });
    });

    it("GET /projects/:id/access_requests | | array of access request visible to the caller", async () => {
      const r = await c.call("GET", "/projects/acme%2Fapi/access_requests", { token: "maint-token" });
      expect(r.body).toEqual([
        expect.objectContaining({ username: "asker", requested_at: "2021-03-02T10:00:00.000Z" }),
      ]);
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/access_requests", { token: "dev-token" })).status,
      ).toBe(403);
      expect((await c.call("GET", "/projects/acme%2Fapi/access_requests", { token: null })).status).toBe(401);
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/access_requests", { token: "outsider-token" })).status,
      ).toBe(404);
    });

    it("POST /projects/:id/access_requests | | access request for the caller", async () => {
      const web = c.sb.store.data.projects.find((p) => p.path === "web")!;
      web.visibility = "internal";
      const r = await c.call("POST", "/projects/acme%2Fweb/access_requests", { token: "other-token" });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ username: "other", state: "active" });
      expect(
        (await c.call("POST", "/projects/acme%2Fweb/access_requests", { token: "maint-token" })).status,
      ).toBe(403);
      expect((await c.call("POST", "/projects/acme%2Fweb/access_requests", { token: null })).status).toBe(
        401,
      );
    });

    it("PUT /projects/:id/access_requests/:user_id/approve | user_id req; access_level opt (default 30) | approved requester", async () => {
      const url = `/projects/acme%2Fweb/access_requests/${uid["other"]}/approve`;
      expect((await c.call("PUT", url, { token: "maint-token", form: "access_level=50" })).body).toEqual({
        message: { access_level: ["is not included in the list"] },
      });
      expect((await c.call("PUT", url, { token: "dev-token" })).status).toBe(403);
      const r = await c.call("PUT", url, { token: "maint-token" });
      expect([r.status, (r.body as { access_level: number }).access_level]).toEqual([200, 30]);
    });

    it("DELETE /projects/:id/access_requests/:user_id | user_id req | denies the request", async () => {
      const url = `/projects/acme%2Fapi/access_requests/${uid["asker"]}`;
      expect((await c.call("DELETE", url, { token: "other-token" })).status).toBe(404);
      const r = await c.call("DELETE", url, { token: "maint-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.call("DELETE", url, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
    });
  });

  describe("Protected environments [licensed]", () => {
    const pe = "/projects/acme%2Fapi/protected_environments";

    it("GET /projects/:id/protected_environments | | array", async () => {
      const r = await c.call("GET", pe, { token: "maint-token" });
      expect(r.body).toEqual([
        {
          name: "production",
          deploy_access_levels: [
            { access_level: 40, access_level_description: "Maintainers", user_id: null, group_id: null },
          ],
        },
      ]);
      expect((await c.call("GET", pe, { token: "dev-token" })).status).toBe(403);
      expect((await core.call("GET", pe, { token: "maint-token" })).body).toEqual({ error: "404 Not Found" });
    });

    it("GET /projects/:id/protected_environments/:name | name string req | one", async () => {
      expect((await c.call("GET", `${pe}/production`, { token: "maint-token" })).body).toMatchObject({
        name: "production",
      });
      expect((await c.call("GET", `${pe}/staging`, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await core.call("GET", `${pe}/production`, { token: "maint-token" })).status).toBe(404);
    });

    it("POST /projects/:id/protected_environments | name, deploy_access_levels req ({user_id}, {group_id} or {access_level}) | protected environment", async () => {
      const ops = ((await c.admin("GET", "/groups/ops")).body as { id: number }).id;
      const r = await c.call("POST", pe, {
        token: "maint-token",
        json: {
          name: "review/app",
          deploy_access_levels: [{ access_level: 30 }, { user_id: uid["dev"] }, { group_id: ops }],
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({
        name: "review/app",
        deploy_access_levels: [
          {
            access_level: 30,
            access_level_description: "Developers + Maintainers",
            user_id: null,
            group_id: null,
          },
          { access_level: null, access_level_description: "dev", user_id: uid["dev"], group_id: null },
          { access_level: null, access_level_description: "ops", user_id: null, group_id: ops },
        ],
      });
      expect((await c.call("POST", pe, { token: "maint-token", json: { name: "x" } })).body).toEqual({
        error: "deploy_access_levels is missing",
      });
      const stranger = await c.call("POST", pe, {
        token: "maint-token",
        json: { name: "canary", deploy_access_levels: [{ user_id: uid["outsider"] }] },
      });
      expect(stranger.status).toBe(422);
      expect(Array.isArray((stranger.body as { message: unknown }).message)).toBe(true);
      const dup = await c.call("POST", pe, {
        token: "maint-token",
        json: { name: "production", deploy_access_levels: [{ access_level: 40 }] },
      });
      expect([dup.status, dup.body]).toEqual([
        409,
        { message: "Protected environment 'production' already exists" },
      ]);
      expect(
        (
          await core.call("POST", pe, {
            token: "maint-token",
            json: { name: "x", deploy_access_levels: [{ access_level: 40 }] },
          })
        ).status,
      ).toBe(404);
    });

    it("DELETE /projects/:id/protected_environments/:name | name string req | unprotects", async () => {
      expect((await c.call("DELETE", `${pe}/review%2Fapp`, { token: "dev-token" })).status).toBe(403);
      const r = await c.call("DELETE", `${pe}/review%2Fapp`, { token: "maint-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.call("DELETE", `${pe}/review%2Fapp`, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await core.call("DELETE", `${pe}/production`, { token: "maint-token" })).status).toBe(404);
    });
  });

  describe("Error-tracking settings (project maintainers only)", () => {
    const et = "/projects/acme%2Fapi/error_tracking/settings";

    it("GET /projects/:id/error_tracking/settings | | settings", async () => {
      const r = await c.call("GET", et, { token: "maint-token" });
      expect(r.body).toEqual({
        active: true,
        project_name: "api",
        tracker_external_url: "https://sentry.example/acme/api",
        api_url: "https://sentry.example/api/0/projects/acme/api",
      });
      expect((await c.call("GET", et, { token: "dev-token" })).body).toEqual({ message: "403 Forbidden" });
      expect(
        (await c.call("GET", "/projects/acme%2Fweb/error_tracking/settings", { token: "maint-token" })).body,
      ).toEqual({
        message: "404 Error Tracking Setting Not Found",
      });
    });

    it("PATCH /projects/:id/error_tracking/settings | active boolean req | settings", async () => {
      const r = await c.call("PATCH", et, { token: "maint-token", form: "active=false" });
      expect([r.status, (r.body as { active: boolean }).active]).toEqual([200, false]);
      expect((await c.call("PATCH", et, { token: "maint-token", json: {} })).body).toEqual({
        error: "active is missing",
      });
      expect(
        (await c.call("PATCH", et, { token: "maint-token", json: { active: "sometimes" } })).body,
      ).toEqual({
        error: "active is invalid",
      });
      expect((await c.call("PATCH", et, { token: "dev-token", json: { active: true } })).status).toBe(403);
    });
  });

  describe("Epic issues [licensed]", () => {
    const epic = "/groups/acme/epics/1/issues";
    type Listed = { id: number; title: string; epic_issue_id: number; relative_position: number };

    it("GET /groups/:id/epics/:epic_iid/issues | epic_iid req | array of issue", async () => {
      const r = await c.call("GET", epic, { token: "rep-token" });
      expect(r.body).toEqual([
        expect.objectContaining({
          id: issue["Login fails"],
          title: "Login fails",
          state: "opened",
          epic_issue_id: expect.any(Number),
          relative_position: expect.any(Number),
          milestone: expect.objectContaining({ title: "v1" }),
          time_stats: expect.any(Object),
          _links: expect.objectContaining({ self: expect.any(String) }),
        }),
      ]);
      expect((await c.call("GET", epic, { token: null })).status).toBe(401);
      expect((await c.call("GET", "/groups/acme/epics/9/issues", { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await core.call("GET", epic, { token: "rep-token" })).body).toEqual({
        message: "403 Forbidden",
      });
    });

    it("POST /groups/:id/epics/:epic_iid/issues/:issue_id | issue_id req | association", async () => {
      const r = await c.call("POST", `${epic}/${issue["Crash"]}`, { token: "rep-token" });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        id: expect.any(Number),
        epic: { iid: 1, title: "Platform" },
        issue: { title: "Crash" },
      });
      expect(Object.keys((r.body as { epic: object }).epic)).toEqual(
        expect.arrayContaining(["id", "iid", "title", "description", "author", "start_date", "end_date"]),
      );
      expect((await c.call("POST", `${epic}/${issue["Crash"]}`, { token: "rep-token" })).body).toEqual({
        message: "Issue(s) already assigned",
      });
      expect((await c.call("POST", `${epic}/999999`, { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await core.call("POST", `${epic}/${issue["Crash"]}`, { token: "rep-token" })).status).toBe(403);
    });

    it("PUT /groups/:id/epics/:epic_iid/issues/:epic_issue_id | move_before_id, move_after_id opt | array of issue with relative_position", async () => {
      const list = (await c.call("GET", epic, { token: "rep-token" })).body as Listed[];
      expect(list.map((i) => i.title)).toEqual(["Crash", "Login fails"]);
      const [crash, login] = list as [Listed, Listed];
      const r = await c.call("PUT", `${epic}/${crash.epic_issue_id}`, {
        token: "rep-token",
        json: { move_before_id: login.epic_issue_id },
      });
      expect(r.status).toBe(200);
      expect((r.body as Listed[]).map((i) => i.title)).toEqual(["Login fails", "Crash"]);
      const bad = await c.call("PUT", `${epic}/${crash.epic_issue_id}`, {
        token: "rep-token",
        json: { move_after_id: 999999 },
      });
      expect([bad.status, bad.body]).toEqual([404, { message: "Epic issue not found for given params" }]);
      expect(
        (await core.call("PUT", `${epic}/${crash.epic_issue_id}`, { token: "rep-token", json: {} })).status,
      ).toBe(403);
    });

    it("DELETE /groups/:id/epics/:epic_iid/issues/:epic_issue_id | epic_issue_id req | removed association", async () => {
      const list = (await c.call("GET", epic, { token: "rep-token" })).body as Listed[];
      const crash = list.find((i) => i.title === "Crash")!;
      const r = await c.call("DELETE", `${epic}/${crash.epic_issue_id}`, { token: "rep-token" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: crash.epic_issue_id, issue: { title: "Crash" }, epic: { iid: 1 } });
      expect((await c.call("DELETE", `${epic}/${crash.epic_issue_id}`, { token: "rep-token" })).body).toEqual(
        {
          message: "404 Not found",
        },
      );
      expect((await c.call("DELETE", `${epic}/${crash.epic_issue_id}`, { token: null })).status).toBe(401);
    });
  });
});
