/**
 * Project hooks and group hooks [licensed] (routes/hooks.ts), against the platform's 13.12 interface: one case per
 * endpoint, per permission (the role just below the requirement and at it), per validation and its error body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { tokenDigest } from "../../src/sandbox/store.js";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", name: "Olga Owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
    { path: "acme/sub", visibility: "private" },
    { path: "open", visibility: "public", members: { maint: "maintainer" } },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/web", visibility: "private" },
    { path: "open/site", visibility: "public" },
  ],
  project_hooks: [{ project: "acme/web", url: "http://localhost:9000/seeded", token: "seeded-secret" }],
  group_hooks: [{ group: "acme/sub", url: "https://hooks.example/sub", subgroup_events: true }],
};

type Hook = Record<string, unknown> & { id: number; url: string };

/** Every field of a project hook made from a URL alone: the model's defaults. */
const PROJECT_DEFAULTS = {
  push_events: true,
  tag_push_events: false,
  merge_requests_events: false,
  repository_update_events: false,
  enable_ssl_verification: true,
  issues_events: false,
  confidential_issues_events: false,
  note_events: false,
  confidential_note_events: null,
  pipeline_events: false,
  wiki_page_events: false,
  deployment_events: false,
  job_events: false,
  releases_events: false,
  push_events_branch_filter: null,
};

const ALL_ON = {
  push_events: false,
  push_events_branch_filter: "release/*",
  issues_events: true,
  confidential_issues_events: true,
  merge_requests_events: true,
  tag_push_events: true,
  note_events: true,
  confidential_note_events: true,
  job_events: true,
  pipeline_events: true,
  wiki_page_events: true,
  deployment_events: true,
  releases_events: true,
  enable_ssl_verification: false,
};

describe("project hooks (13.12 lib/api/project_hooks.rb)", () => {
  let c: Client;
  const base = "/projects/acme%2Fapi/hooks";
  let projectId: number;
  const hooksArea = () =>
    (c.sb.store.data.areas["web_hooks"] as { hooks: (Hook & { token_sha256: string | null })[] }).hooks;

  beforeAll(async () => {
    c = await sandbox({ fixture });
    projectId = c.sb.store.projectByFullPath("acme/api")!.id;
  });
  afterAll(() => c.sb.stop());

  it("POST with a URL alone: 201, every event switch at the model's default, the project's id", async () => {
    const r = await c.call("POST", base, { token: "maint-token", json: { url: "https://ci.example/a" } });
    expect(r.status, r.text).toBe(201);
    const { id, created_at, ...rest } = r.body as Hook;
    expect(rest).toEqual({ url: "https://ci.example/a", project_id: projectId, ...PROJECT_DEFAULTS });
    expect(typeof id).toBe("number");
    expect(created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("POST with every 13.12 switch, the branch filter and a token: each is kept, the token never shown", async () => {
    const r = await c.call("POST", base, {
      token: "maint-token",
      json: { url: "https://ci.example/all", token: "s3cret", ...ALL_ON },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ ...ALL_ON, repository_update_events: false });
    expect(r.text).not.toContain("s3cret");
    expect(Object.keys(r.body as Hook)).not.toContain("token");
    const stored = hooksArea().find((h) => h.id === (r.body as Hook).id)!;
    expect(stored.token_sha256).toBe(tokenDigest("s3cret"));
    expect(JSON.stringify(c.sb.store.data)).not.toContain("s3cret");
    const listed = await c.call("GET", base, { token: "maint-token" });
    expect(listed.text).not.toContain("s3cret");
  });

  it("form-encoded booleans and strings (Ruby and Perl clients)", async () => {
    const r = await c.call("POST", base, {
      token: "maint-token",
      form: "url=https%3A%2F%2Fci.example%2Fform&push_events=false&note_events=1&push_events_branch_filter=main",
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      push_events: false,
      note_events: true,
      push_events_branch_filter: "main",
    });
  });

  it("GET lists the project's hooks oldest first, paginated; another project's hooks are not there", async () => {
    const r = await c.call("GET", `${base}?per_page=2`, { token: "maint-token" });
    expect(r.status).toBe(200);
    expect((r.body as Hook[]).map((h) => h.url)).toEqual(["https://ci.example/a", "https://ci.example/all"]);
    expect(r.headers.get("x-total")).toBe("3");
    expect(r.headers.get("x-next-page")).toBe("2");
    const web = await c.call("GET", "/projects/acme%2Fweb/hooks", { token: "maint-token" });
    expect((web.body as Hook[]).map((h) => h.url)).toEqual(["http://localhost:9000/seeded"]);
  });

  it("GET /:hook_id reads one hook; another project's hook and a missing one are 404 Not found", async () => {
    const [first] = (await c.call("GET", base, { token: "maint-token" })).body as Hook[];
    const r = await c.call("GET", `${base}/${first!.id}`, { token: "maint-token" });
    expect(r.body).toEqual(first);
    const seeded = (
      (await c.call("GET", "/projects/acme%2Fweb/hooks", { token: "maint-token" })).body as Hook[]
    )[0]!;
    for (const path of [`${base}/${seeded.id}`, `${base}/999999`]) {
      const miss = await c.call("GET", path, { token: "maint-token" });
      expect([miss.status, miss.body], path).toEqual([404, { message: "404 Not found" }]);
    }
    const bad = await c.call("GET", `${base}/abc`, { token: "maint-token" });
    expect([bad.status, bad.body]).toEqual([400, { error: "hook_id is invalid" }]);
  });

  it("PUT changes only what it is given, needs url, and keeps or clears the token", async () => {
    const created = (
      await c.call("POST", base, {
        token: "maint-token",
        json: { url: "https://ci.example/put", token: "keep-me", issues_events: true },
      })
    ).body as Hook;
    const path = `${base}/${created.id}`;
    const r = await c.call("PUT", path, {
      token: "maint-token",
      json: { url: "https://ci.example/put2", job_events: true },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ ...created, url: "https://ci.example/put2", job_events: true });
    const stored = () => hooksArea().find((h) => h.id === created.id)!;
    expect(stored().token_sha256).toBe(tokenDigest("keep-me"));
    const noUrl = await c.call("PUT", path, { token: "maint-token", json: { job_events: false } });
    expect([noUrl.status, noUrl.body]).toEqual([400, { error: "url is missing" }]);
    await c.call("PUT", path, { token: "maint-token", json: { url: "https://ci.example/put2", token: "" } });
    expect(stored().token_sha256).toBeNull();
    const missing = await c.call("PUT", `${base}/999999`, {
      token: "maint-token",
      json: { url: "https://x.example" },
    });
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("DELETE answers 204, honours If-Unmodified-Since (412), and the hook is gone (404)", async () => {
    const created = (
      await c.call("POST", base, { token: "maint-token", json: { url: "https://ci.example/del" } })
    ).body as Hook;
    const path = `${base}/${created.id}`;
    const early = await c.call("DELETE", path, {
      token: "maint-token",
      headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" },
    });
    expect([early.status, early.body]).toEqual([412, { message: "412 Precondition Failed" }]);
    const r = await c.call("DELETE", path, { token: "maint-token" });
    expect([r.status, r.text]).toEqual([204, ""]);
    const again = await c.call("DELETE", path, { token: "maint-token" });
    expect([again.status, again.body]).toEqual([404, { message: "404 Not found" }]);
  });

  describe("validation: each rule and its error body", () => {
    it.each([
      ["no url", {}, 400, { error: "url is missing" }],
      ["a blank url", { url: "" }, 422, { error: "Invalid url given" }],
      ["a url that is not a URL", { url: "not a url" }, 422, { error: "Invalid url given" }],
      ["a url with another scheme", { url: "ftp://files.example/x" }, 422, { error: "Invalid url given" }],
      [
        "a localhost url (local requests off)",
        { url: "http://127.0.0.1:8080/x" },
        422,
        { error: "Invalid url given" },
      ],
      ["a local network url", { url: "http://10.1.2.3/x" }, 422, { error: "Invalid url given" }],
      [
        "a boolean that is not one",
        { url: "https://a.example", push_events: "maybe" },
        400,
        { error: "push_events is invalid" },
      ],
      [
        "a branch filter that is no branch name",
        { url: "https://a.example", push_events_branch_filter: "bad..name" },
        422,
        { error: "Invalid branch filter given" },
      ],
      [
        "a branch filter of 4001 characters",
        { url: "https://a.example", push_events_branch_filter: "b".repeat(4001) },
        422,
        { error: "Invalid branch filter given" },
      ],
      [
        "a token with a line break (the platform's not_found! with the errors)",
        { url: "https://a.example", token: "a\nb" },
        404,
        { message: '404 Project hook {:token=>["is invalid"]} Not Found' },
      ],
      [
        "a bad url and a bad filter: the url wins",
        { url: "ftp://x", push_events_branch_filter: "a b" },
        422,
        { error: "Invalid url given" },
      ],
    ])("%s", async (_name, json, status, body) => {
      const before = hooksArea().length;
      const r = await c.call("POST", base, { token: "maint-token", json });
      expect([r.status, r.body]).toEqual([status, body]);
      expect(hooksArea().length).toBe(before);
    });

    it.each([
      ["a wildcard filter", "release/*"],
      ["4000 characters", "b".repeat(4000)],
      ["a nested branch", "feature/login/v2"],
    ])("a branch filter that is accepted: %s", async (_name, filter) => {
      const r = await c.call("POST", base, {
        token: "maint-token",
        json: { url: "https://a.example/ok", push_events_branch_filter: filter },
      });
      expect(r.status, r.text).toBe(201);
      expect((r.body as Hook)["push_events_branch_filter"]).toBe(filter);
    });

    it("local URLs are accepted once allow_local_requests_from_web_hooks_and_services is on", async () => {
      await c.call("PUT", "/application/settings", {
        json: { allow_local_requests_from_web_hooks_and_services: true },
      });
      try {
        const r = await c.call("POST", base, {
          token: "maint-token",
          json: { url: "http://localhost:3000/x" },
        });
        expect(r.status, r.text).toBe(201);
      } finally {
        await c.call("PUT", "/application/settings", {
          json: { allow_local_requests_from_web_hooks_and_services: false },
        });
      }
    });
  });

  describe("permissions: Maintainer on the project, reading included", () => {
    let hookId: number;
    beforeAll(async () => {
      hookId = ((await c.call("GET", base, { token: "maint-token" })).body as Hook[])[0]!.id;
    });
    const routes = (): [string, string, unknown][] => [
      ["GET", base, undefined],
      ["GET", `${base}/${hookId}`, undefined],
      ["POST", base, { url: "https://perm.example" }],
      ["PUT", `${base}/${hookId}`, { url: "https://ci.example/a" }],
      ["DELETE", `${base}/999999`, undefined],
    ];
    it.each([
      ["without a token", null, 401, { message: "401 Unauthorized" }],
      ["a non-member of the private project", "outsider-token", 404, { message: "404 Project Not Found" }],
      ["a Developer (just below)", "dev-token", 403, { message: "403 Forbidden" }],
    ])("%s is refused on every route", async (_name, token, status, body) => {
      for (const [method, path, json] of routes()) {
        const r = await c.call(method, path, { token, json });
        expect([r.status, r.body], `${method} ${path}`).toEqual([status, body]);
      }
    });
    it("a Maintainer (the requirement) and an administrator pass every route", async () => {
      for (const token of ["maint-token", "admin-token"]) {
        for (const [method, path, json] of routes()) {
          const r = await c.call(method, path, { token, json });
          const expected = method === "POST" ? 201 : method === "DELETE" ? 404 : 200;
          expect(r.status, `${token} ${method} ${path} ${r.text}`).toBe(expected);
        }
      }
    });
    it("a public project's hooks are not public: a guest is 401 there", async () => {
      const r = await c.call("GET", "/projects/open%2Fsite/hooks", { token: null });
      expect([r.status, r.body]).toEqual([401, { message: "401 Unauthorized" }]);
    });
  });

  it("the fixture's project hook: local URL allowed, token kept as its digest, defaults filled in", () => {
    const seeded = hooksArea().find((h) => h.url === "http://localhost:9000/seeded")!;
    expect(seeded).toMatchObject({ push_events: true, token_sha256: tokenDigest("seeded-secret") });
  });
});

describe("group hooks [licensed] (13.12 ee/lib/api/group_hooks.rb)", () => {
  let c: Client;
  let core: Client;
  const base = "/groups/acme/hooks";
  let groupId: number;

  beforeAll(async () => {
    c = await sandbox({ fixture });
    const { group_hooks: _g, ...coreFixture } = fixture;
    core = await sandbox({ fixture: coreFixture, edition: "core" });
    groupId = c.sb.store.groupByFullPath("acme")!.id;
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  it("POST by the group's Owner: 201 with the group hook entity and its defaults, subgroup events included", async () => {
    const r = await c.call("POST", base, {
      token: "owner-token",
      json: { url: "https://hooks.example/g", subgroup_events: true, releases_events: true, token: "gs" },
    });
    expect(r.status, r.text).toBe(201);
    const { id: _id, created_at: _c, ...rest } = r.body as Hook;
    expect(rest).toEqual({
      url: "https://hooks.example/g",
      group_id: groupId,
      ...PROJECT_DEFAULTS,
      releases_events: true,
      subgroup_events: true,
    });
    expect(r.text).not.toContain('"token"');
  });

  it("GET, GET one, PUT and DELETE", async () => {
    const [hook] = (await c.call("GET", base, { token: "owner-token" })).body as Hook[];
    expect((await c.call("GET", `${base}/${hook!.id}`, { token: "owner-token" })).body).toEqual(hook);
    const put = await c.call("PUT", `${base}/${hook!.id}`, {
      token: "owner-token",
      json: { url: "https://hooks.example/g2", push_events_branch_filter: "main", subgroup_events: false },
    });
    expect(put.body).toEqual({
      ...hook,
      url: "https://hooks.example/g2",
      push_events_branch_filter: "main",
      subgroup_events: false,
    });
    const sub = await c.call("GET", "/groups/acme%2Fsub/hooks", { token: "owner-token" });
    expect((sub.body as Hook[]).map((h) => [h.url, h["subgroup_events"]])).toEqual([
      ["https://hooks.example/sub", true],
    ]);
    expect((await c.call("DELETE", `${base}/${hook!.id}`, { token: "owner-token" })).status).toBe(204);
    expect((await c.call("GET", `${base}/${hook!.id}`, { token: "owner-token" })).body).toEqual({
      message: "404 Not found",
    });
  });

  it.each([
    ["a blank url", { url: "" }, 422, { error: "Invalid url given" }],
    ["a localhost url", { url: "http://localhost/x" }, 422, { error: "Invalid url given" }],
    [
      "a bad branch filter: the group's 422 with the errors",
      { url: "https://a.example", push_events_branch_filter: "a b" },
      422,
      { message: 'Group hook {:push_events_branch_filter=>["is not a valid branch name"]}' },
    ],
    [
      "a token with a line break",
      { url: "https://a.example", token: "x\ny" },
      422,
      { message: 'Group hook {:token=>["is invalid"]}' },
    ],
    ["no url", {}, 400, { error: "url is missing" }],
  ])("validation: %s", async (_name, json, status, body) => {
    const r = await c.call("POST", base, { token: "owner-token", json });
    expect([r.status, r.body]).toEqual([status, body]);
  });

  it.each([
    ["without a token", null, 401, { message: "401 Unauthorized" }],
    ["a non-member of the private group", "outsider-token", 404, { message: "404 Group Not Found" }],
    ["a Maintainer (just below Owner)", "maint-token", 403, { message: "403 Forbidden" }],
  ])("permissions: %s is refused, reading included", async (_name, token, status, body) => {
    for (const [method, json] of [
      ["GET", undefined],
      ["POST", { url: "https://p.example" }],
    ] as const) {
      const r = await c.call(method, base, { token, json });
      expect([r.status, r.body], method).toEqual([status, body]);
    }
  });

  it("on the core edition the routes do not exist (the catch-all 404), project hooks do", async () => {
    const r = await core.call("GET", base, { token: "owner-token" });
    expect([r.status, r.body]).toEqual([404, { error: "404 Not Found" }]);
    expect((await core.call("GET", "/projects/acme%2Fapi/hooks", { token: "maint-token" })).status).toBe(200);
  });

  it("the fixture's group_hooks is refused on the core edition, and a bad URL on any", async () => {
    await expect(startSandbox({ edition: "core", fixture })).rejects.toThrow(
      /group_hooks\[0\] is a group hook, which only the licensed edition has/,
    );
    await expect(
      startSandbox({ fixture: { ...fixture, project_hooks: [{ project: "acme/api", url: "gopher://x" }] } }),
    ).rejects.toThrow(/project_hooks\[0\]\.url is blocked: Only allowed schemes are http, https/);
  });
});
