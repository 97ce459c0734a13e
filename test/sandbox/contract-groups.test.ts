/**
 * The rows of the contract's SCIM, Issue statistics and Groups endpoint tables (`shared/spec/rest-interface.md`,
 * beside the repository), one case per row with valid and invalid requests, asserted over HTTP against in-process
 * sandboxes of both editions. The areas' own files (scim.test.ts, issues.test.ts, groups.test.ts,
 * group-import-export.test.ts) go deeper; contract-endpoints.test.ts checks that every row has its case.
 */
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "dev", token: "dev-token" },
    { username: "outsider", token: "outsider-token" },
    { username: "alice", email: "alice@acme.example" },
    { username: "ann" },
    { username: "ben" },
  ],
  groups: [
    { path: "acme", visibility: "internal", members: { owner: "owner", dev: "developer" } },
    { path: "acme/team", visibility: "internal" },
    { path: "acme/hidden", visibility: "private" },
    { path: "open", visibility: "public", members: { owner: "owner" } },
    { path: "secret", visibility: "private", members: { owner: "owner" } },
  ],
  projects: [
    { path: "acme/api", visibility: "internal" },
    { path: "acme/team/web", visibility: "private" },
    { path: "open/site", visibility: "public" },
    { path: "secret/app", visibility: "private" },
  ],
  milestones: [{ project: "acme/api", title: "v1" }],
  issues: [
    {
      project: "acme/api",
      title: "Login fails",
      labels: ["bug"],
      author: "dev",
      assignees: ["ann"],
      milestone: "v1",
      created_at: "2021-01-01T00:00:00Z",
    },
    {
      project: "acme/api",
      title: "Crash on start",
      labels: ["bug", "p1"],
      state: "closed",
      author: "owner",
      assignees: ["ben"],
      created_at: "2021-02-01T00:00:00Z",
    },
    { project: "acme/api", title: "Write docs", author: "dev", created_at: "2021-03-01T00:00:00Z" },
    { project: "acme/team/web", title: "Hidden", author: "owner", labels: ["bug"] },
  ],
  scim: [{ group: "secret", token: "scim-secret", identities: [{ user: "alice", extern_uid: "alice-uid" }] }],
};

type Counts = { all: number; closed: number; opened: number };
const counts = (body: unknown): Counts => (body as { statistics: { counts: Counts } }).statistics.counts;

describe("contract endpoint tables: SCIM, Issue statistics, Groups", () => {
  let c: Client;
  let core: Client;

  const scim = async (
    method: string,
    path: string,
    body?: unknown,
    opts: { token?: string; sb?: Client } = {},
  ) => {
    const res = await fetch(`${(opts.sb ?? c).sb.url}/api/scim/v2${path}`, {
      method,
      headers: {
        Authorization: `Bearer ${opts.token ?? "scim-secret"}`,
        "Content-Type": "application/scim+json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      text,
      body: text ? (JSON.parse(text) as unknown) : undefined,
    };
  };
  const scimError = (status: number, detail: string) => ({
    schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
    detail,
    status,
  });
  const newUser = (uid: string, username: string) => ({
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
    externalId: uid,
    userName: username,
    emails: [{ type: "work", value: `${username}@acme.example`, primary: true }],
    name: { formatted: `${username} Example`, familyName: "Example", givenName: username },
    meta: { resourceType: "User" },
    active: true,
  });

  beforeAll(async () => {
    c = await sandbox({ fixture });
    core = await sandbox({ fixture: { ...fixture, scim: [] }, edition: "core" });
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("SCIM [licensed] (SCIM base)", () => {
    it("GET /groups/:group_path/Users | filter (eq only), startIndex, count | SCIM list response", async () => {
      const r = await scim(
        "GET",
        "/groups/secret/Users?filter=id%20eq%20%22alice-uid%22&startIndex=0&count=5",
      );
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/^application\/scim\+json/);
      expect(r.body).toEqual({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        totalResults: 1,
        itemsPerPage: 5,
        startIndex: 1,
        Resources: [expect.objectContaining({ id: "alice-uid", userName: "alice" })],
      });
      const none = await scim("GET", "/groups/secret/Users?filter=id%20eq%20%22nobody%22");
      expect((none.body as { totalResults: number }).totalResults).toBe(0);
      const unsupported = await scim("GET", "/groups/secret/Users?filter=userName%20sw%20%22a%22");
      expect([unsupported.status, unsupported.body]).toEqual([412, scimError(412, "Unsupported Filter")]);
      const wrongToken = await scim("GET", "/groups/secret/Users", undefined, { token: "nope" });
      expect([wrongToken.status, wrongToken.body]).toEqual([401, { message: "401 Unauthorized" }]);
      const noSso = await scim("GET", "/groups/open/Users");
      expect([noSso.status, noSso.body]).toEqual([
        404,
        scimError(404, "Group open does not have SAML SSO configured"),
      ]);
      const onCore = await scim("GET", "/groups/secret/Users", undefined, { sb: core });
      expect([onCore.status, onCore.body]).toEqual([404, { error: "404 Not Found" }]);
    });

    it("GET /groups/:group_path/Users/:id | id string req (external UID) | SCIM user", async () => {
      const r = await scim("GET", "/groups/secret/Users/alice-uid");
      expect(r.body).toEqual({
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        id: "alice-uid",
        active: true,
        "name.formatted": "alice",
        userName: "alice",
        meta: { resourceType: "User" },
        emails: [{ type: "work", value: "alice@acme.example", primary: true }],
      });
      const missing = await scim("GET", "/groups/secret/Users/nobody");
      expect([missing.status, missing.body]).toEqual([404, scimError(404, "Resource nobody not found")]);
    });

    it("POST /groups/:group_path/Users | externalId, userName, emails, name req; meta, schemas, active | 201 and SCIM user", async () => {
      const r = await scim("POST", "/groups/secret/Users", newUser("carol-uid", "carol"));
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        id: "carol-uid",
        userName: "carol",
        active: true,
        "name.formatted": "carol Example",
        emails: [{ type: "work", value: "carol@acme.example", primary: true }],
      });
      const again = await scim("POST", "/groups/secret/Users", newUser("carol-uid", "carol2"));
      expect(again.status).toBe(409);
      const { externalId: _, ...noUid } = newUser("x", "xavier");
      const missing = await scim("POST", "/groups/secret/Users", noUid);
      expect([missing.status, missing.body]).toEqual([400, { error: "externalId is missing" }]);
    });

    it("PATCH /groups/:group_path/Users/:id | Operations req ({op: Replace|Add, path, value}) | 204, empty body", async () => {
      const r = await scim("PATCH", "/groups/secret/Users/carol-uid", {
        Operations: [{ op: "Replace", path: "name.formatted", value: "Carol C" }],
      });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await scim("GET", "/groups/secret/Users/carol-uid")).body).toMatchObject({
        "name.formatted": "Carol C",
      });
      expect((await scim("PATCH", "/groups/secret/Users/carol-uid", {})).body).toEqual({
        error: "Operations is missing",
      });
      const missing = await scim("PATCH", "/groups/secret/Users/nobody", {
        Operations: [{ op: "Replace", path: "active", value: false }],
      });
      expect(missing.status).toBe(404);
    });

    it("DELETE /groups/:group_path/Users/:id | id string req | 204, empty body", async () => {
      const r = await scim("DELETE", "/groups/secret/Users/carol-uid");
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await scim("GET", "/groups/secret/Users/carol-uid")).status).toBe(404);
      const again = await scim("DELETE", "/groups/secret/Users/carol-uid");
      expect([again.status, again.body]).toEqual([404, scimError(404, "Resource carol-uid not found")]);
    });
  });

  describe("Issue statistics (authentication required on all)", () => {
    it("GET /issues_statistics | filters; scope default created_by_me | statistics", async () => {
      const mine = await c.call("GET", "/issues_statistics", { token: "dev-token" });
      expect(mine.status).toBe(200);
      expect(mine.body).toEqual({ statistics: { counts: { all: 2, closed: 0, opened: 2 } } });
      const all = await c.call("GET", "/issues_statistics?scope=all&labels=bug&in=title&search=crash", {
        token: "owner-token",
      });
      expect(counts(all.body)).toEqual({ all: 1, closed: 1, opened: 0 });
      expect((await c.call("GET", "/issues_statistics", { token: null })).status).toBe(401);
      const bad = await c.call("GET", "/issues_statistics?scope=mine", { token: "dev-token" });
      expect([bad.status, bad.body]).toEqual([400, { error: "scope does not have a valid value" }]);
      const both = await c.call("GET", "/issues_statistics?author_id=1&author_username=dev", {
        token: "dev-token",
      });
      expect(both.status).toBe(400);
    });

    it("GET /groups/:id/issues_statistics | id req; the same filters | statistics", async () => {
      const r = await c.call("GET", "/groups/acme/issues_statistics?milestone=v1", { token: "dev-token" });
      expect(r.body).toEqual({ statistics: { counts: { all: 1, closed: 0, opened: 1 } } });
      const sub = await c.admin("GET", "/groups/acme/issues_statistics?labels=bug");
      expect(counts(sub.body)).toEqual({ all: 3, closed: 1, opened: 2 });
      expect(counts((await c.admin("GET", "/groups/acme/issues_statistics?labels=None")).body).all).toBe(1);
      expect((await c.call("GET", "/groups/acme/issues_statistics", { token: null })).status).toBe(401);
      expect((await c.call("GET", "/groups/secret/issues_statistics", { token: "dev-token" })).status).toBe(
        404,
      );
      const twoAssignees = "assignee_username[]=ann&assignee_username[]=ben";
      expect((await c.admin("GET", `/groups/acme/issues_statistics?${twoAssignees}`)).status).toBe(200);
      expect((await core.admin("GET", `/groups/acme/issues_statistics?${twoAssignees}`)).body).toEqual({
        error: "assignee_username allows one value, but found 2: ann, ben",
      });
    });

    it("GET /projects/:id/issues_statistics | id req; the same filters | statistics; 404 for a private project's non-member", async () => {
      const r = await c.call(
        "GET",
        "/projects/acme%2Fapi/issues_statistics?created_after=2021-01-15T00:00:00Z&assignee_id=Any",
        { token: "dev-token" },
      );
      expect(r.body).toEqual({ statistics: { counts: { all: 1, closed: 1, opened: 0 } } });
      const hidden = await c.call("GET", "/projects/acme%2Fteam%2Fweb/issues_statistics", {
        token: "outsider-token",
      });
      expect([hidden.status, hidden.body]).toEqual([404, { message: "404 Project Not Found" }]);
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/issues_statistics?iids[]=x", { token: "dev-token" })).body,
      ).toEqual({ error: "iids is invalid" });
    });
  });

  describe("Groups", () => {
    const paths = (body: unknown) => (body as { full_path: string }[]).map((g) => g.full_path);

    it("GET /groups | skip_groups, all_available, search, order_by, sort, statistics, owned, min_access_level | array of group", async () => {
      const guest = await c.call("GET", "/groups", { token: null });
      expect(paths(guest.body)).toEqual(["open"]);
      const owned = await c.call("GET", "/groups?owned=true&order_by=path&sort=desc", {
        token: "owner-token",
      });
      expect(paths(owned.body)).toEqual(["secret", "open", "acme"]);
      const stats = await c.admin("GET", "/groups?search=acm&statistics=true&order_by=id");
      expect(paths(stats.body)).toEqual(["acme"]);
      expect((stats.body as { statistics: object }[])[0]!.statistics).toEqual(
        expect.objectContaining({ storage_size: expect.any(Number), repository_size: expect.any(Number) }),
      );
      const userStats = await c.call("GET", "/groups?statistics=true", { token: "dev-token" });
      expect((userStats.body as object[]).every((g) => !("statistics" in g))).toBe(true);
      const acme = (stats.body as { id: number }[])[0]!.id;
      const skipped = await c.call("GET", `/groups?skip_groups[]=${acme}&min_access_level=30`, {
        token: "dev-token",
      });
      expect(paths(skipped.body)).toEqual(["acme/hidden", "acme/team"]);
      // custom attributes count for administrators only; the sandbox keeps none
      const attrs = (await c.admin("GET", "/groups?with_custom_attributes=true&search=acme"))
        .body as object[];
      expect(attrs[0]).toHaveProperty("custom_attributes", []);
      expect((await c.admin("GET", "/groups?custom_attributes[team]=a")).body).toEqual([]);
      const ignored = await c.call("GET", "/groups?custom_attributes[team]=a&with_custom_attributes=true", {
        token: "owner-token",
      });
      const unfiltered = (await c.call("GET", "/groups", { token: "owner-token" })).body as object[];
      expect((ignored.body as object[]).length).toBe(unfiltered.length);
      expect((ignored.body as object[])[0]).not.toHaveProperty("custom_attributes");
      expect((await c.admin("GET", "/groups?order_by=size")).body).toEqual({
        error: "order_by does not have a valid value",
      });
      expect((await c.admin("GET", "/groups?skip_groups[]=x")).status).toBe(400);
    });

    it("GET /groups/:id/subgroups | id req plus the parameters of /groups | visible direct subgroups", async () => {
      const r = await c.call("GET", "/groups/acme/subgroups", { token: "outsider-token" });
      expect(paths(r.body)).toEqual(["acme/team"]);
      const dev = await c.call("GET", "/groups/acme/subgroups?order_by=path&sort=desc", {
        token: "dev-token",
      });
      expect(paths(dev.body)).toEqual(["acme/team", "acme/hidden"]);
      expect((await c.call("GET", "/groups/acme/subgroups", { token: null })).status).toBe(404);
      expect((await c.call("GET", "/groups/acme/subgroups?sort=up", { token: "dev-token" })).status).toBe(
        400,
      );
    });

    it("GET /groups/:id/projects | archived, visibility, order_by, sort, search, simple, include_subgroups, ... | array of project", async () => {
      const r = await c.call("GET", "/groups/acme/projects?include_subgroups=true&order_by=path&sort=asc", {
        token: "dev-token",
      });
      expect((r.body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace)).toEqual([
        "acme/api",
        "acme/team/web",
      ]);
      const simple = await c.call("GET", "/groups/acme/projects?simple=true&visibility=internal", {
        token: "outsider-token",
      });
      expect(simple.body).toEqual([
        expect.objectContaining({ path_with_namespace: "acme/api", name: "api", path: "api" }),
      ]);
      expect(Object.keys((simple.body as object[])[0]!)).not.toContain("shared_with_groups");
      const full = (await c.call("GET", "/groups/acme/projects", { token: "dev-token" })).body as object[];
      expect(Object.keys(full[0]!)).toEqual(
        expect.arrayContaining(["namespace", "shared_with_groups", "request_access_enabled", "star_count"]),
      );
      const attrs = await c.admin("GET", "/groups/open/projects?with_custom_attributes=true");
      expect((attrs.body as object[])[0]).toHaveProperty("custom_attributes", []);
      const publicOnly = await c.call("GET", "/groups/open/projects", { token: null });
      expect((publicOnly.body as { path: string }[]).map((p) => p.path)).toEqual(["site"]);
      expect(
        (await c.call("GET", "/groups/acme/projects?visibility=secret", { token: "dev-token" })).body,
      ).toEqual({ error: "visibility does not have a valid value" });
      expect((await c.call("GET", "/groups/secret/projects", { token: "dev-token" })).status).toBe(404);
    });

    it("GET /groups/:id | id req; with_custom_attributes, with_projects (default true) | group with projects and shared_projects", async () => {
      const r = await c.call("GET", "/groups/open", { token: null });
      expect(r.status).toBe(200);
      const g = r.body as Record<string, unknown>;
      expect(Object.keys(g)).toEqual(
        expect.arrayContaining([
          "id",
          "name",
          "path",
          "description",
          "visibility",
          "share_with_group_lock",
          "require_two_factor_authentication",
          "two_factor_grace_period",
          "project_creation_level",
          "subgroup_creation_level",
          "auto_devops_enabled",
          "emails_disabled",
          "mentions_disabled",
          "lfs_enabled",
          "default_branch_protection",
          "avatar_url",
          "web_url",
          "request_access_enabled",
          "full_name",
          "full_path",
          "file_template_project_id",
          "parent_id",
          "projects",
          "shared_projects",
          "shared_runners_minutes_limit",
          "extra_shared_runners_minutes_limit",
        ]),
      );
      expect(g).not.toHaveProperty("runners_token");
      expect((g["projects"] as { path: string }[]).map((p) => p.path)).toEqual(["site"]);
      expect((await c.call("GET", "/groups/open", { token: "owner-token" })).body).toHaveProperty(
        "runners_token",
      );
      const bare = (await c.call("GET", "/groups/open?with_projects=false", { token: null })).body as object;
      expect(bare).not.toHaveProperty("projects");
      expect((await c.admin("GET", "/groups/open?with_custom_attributes=true")).body).toHaveProperty(
        "custom_attributes",
        [],
      );
      const onCore = (await core.call("GET", "/groups/open", { token: null })).body as object;
      expect(onCore).not.toHaveProperty("shared_runners_minutes_limit");
      expect(onCore).not.toHaveProperty("file_template_project_id");
      const hidden = await c.call("GET", "/groups/secret", { token: "dev-token" });
      expect([hidden.status, hidden.body]).toEqual([404, { message: "404 Group Not Found" }]);
      expect((await c.call("GET", "/groups/open?with_projects=maybe", { token: null })).body).toEqual({
        error: "with_projects is invalid",
      });
    });

    it("POST /groups/:id/export | id req | 202 with object {message}", async () => {
      const r = await c.call("POST", "/groups/acme/export", { token: "owner-token" });
      expect([r.status, r.body]).toEqual([202, { message: "202 Accepted" }]);
      expect((await c.call("POST", "/groups/acme/export", { token: "dev-token" })).status).toBe(403);
      expect((await c.call("POST", "/groups/acme/export", { token: null })).status).toBe(401);
      expect((await c.call("POST", "/groups/secret/export", { token: "dev-token" })).status).toBe(404);
    });

    it("GET /groups/:id/export/download | id req | the export archive, or 404", async () => {
      const res = await fetch(`${c.sb.url}/api/v4/groups/acme/export/download`, {
        headers: { "PRIVATE-TOKEN": "owner-token" },
      });
      expect(res.status).toBe(200);
      const tar = gunzipSync(Buffer.from(await res.arrayBuffer()));
      expect(tar.subarray(257, 262).toString("latin1")).toBe("ustar");
      const none = await c.call("GET", "/groups/open/export/download", { token: "owner-token" });
      expect([none.status, none.body]).toEqual([404, { message: "404 Not found or has expired" }]);
      expect((await c.call("GET", "/groups/acme/export/download", { token: "dev-token" })).status).toBe(403);
    });

    it("POST /groups/import | multipart: name, path, file req; parent_id opt | imported group", async () => {
      const archive = await fetch(`${c.sb.url}/api/v4/groups/acme/export/download`, {
        headers: { "PRIVATE-TOKEN": "owner-token" },
      }).then(async (res) => Buffer.from(await res.arrayBuffer()));
      const upload = async (fields: Record<string, string>, file = archive) => {
        const form = new FormData();
        for (const [k, v] of Object.entries(fields)) form.set(k, v);
        form.set("file", new Blob([file]), "acme_export.tar.gz");
        const r = await c.call("POST", "/groups/import", { token: "owner-token", multipart: form });
        return { status: r.status, body: r.body as Record<string, unknown> };
      };
      const open = ((await c.admin("GET", "/groups/open")).body as { id: number }).id;
      const r = await upload({ name: "Acme Copy", path: "acme-copy", parent_id: String(open) });
      expect(r.status).toBe(202);
      expect(r.body).toMatchObject({ name: "Acme Copy", full_path: "open/acme-copy", parent_id: open });
      expect(paths((await c.admin("GET", "/groups/open%2Facme-copy/subgroups")).body)).toEqual([
        "open/acme-copy/hidden",
        "open/acme-copy/team",
      ]);
      const bad = await upload({ name: "Bad", path: "bad" }, Buffer.from("not an archive"));
      expect([bad.status, bad.body]).toEqual([
        400,
        { message: "Failed to import group: acme_export.tar.gz: it is not a gzip-compressed tar archive" },
      ]);
      expect((await upload({ path: "nameless" })).body).toEqual({ error: "name is missing" });
      expect((await c.admin("GET", "/groups/bad")).status).toBe(404);
    });
  });
});
