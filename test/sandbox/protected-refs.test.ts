/**
 * Protected branches and protected tags (routes/protected-refs.ts), against the platform's 13.12 interface: one
 * case per endpoint, per permission (the role just below the requirement and at it), per validation and its error
 * body, the access-level boundaries (0, 30, 40, 60 and an invalid 50), on both editions.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "maint", name: "Mia Maintainer", token: "maint-token" },
    { username: "dev", name: "Dee Developer", token: "dev-token" },
    { username: "alice", name: "Alice Example", token: "alice-token" },
    { username: "eve", token: "eve-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { maint: "maintainer", dev: "developer", eve: "developer" },
    },
    { path: "ops", name: "Ops Team", visibility: "private", members: { alice: "developer" } },
    { path: "qa", visibility: "private" },
    { path: "open", visibility: "public", members: { maint: "maintainer" } },
  ],
  projects: [
    { path: "acme/api", visibility: "private", shared_with: { ops: "developer" } },
    { path: "open/site", visibility: "public" },
  ],
  protected_branches: [
    { project: "open/site", name: "main", push_access_level: 0, allowed_to_merge: [{ user: "maint" }] },
  ],
  protected_tags: [{ project: "open/site", name: "v*", create_access_level: 30 }],
};

type Level = {
  access_level: number | null;
  access_level_description: string | null;
  user_id?: number | null;
  group_id?: number | null;
};
type Branch = {
  id: number;
  name: string;
  push_access_levels: Level[];
  merge_access_levels: Level[];
  unprotect_access_levels?: Level[];
  allow_force_push: boolean;
  code_owner_approval_required?: boolean;
};

const role = (access_level: number | null, access_level_description: string | null): Level => ({
  access_level,
  access_level_description,
  user_id: null,
  group_id: null,
});

describe("protected branches (13.12 lib/api/protected_branches.rb)", () => {
  let c: Client;
  let core: Client;
  const base = "/projects/acme%2Fapi/protected_branches";
  const ids: Record<string, number> = {};
  const post = (json: unknown, token = "maint-token") => c.call("POST", base, { token, json });
  const unprotect = (name: string) =>
    c.call("DELETE", `${base}/${encodeURIComponent(name)}`, { token: "admin-token" });

  beforeAll(async () => {
    c = await sandbox({ fixture });
    core = await sandbox({ fixture: coreFixture(), edition: "core" });
    for (const u of ["maint", "dev", "alice", "eve", "outsider"]) ids[u] = c.sb.store.userByUsername(u)!.id;
    for (const g of ["acme", "ops", "qa"]) ids[g] = c.sb.store.groupByFullPath(g)!.id;
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  it("POST with a name alone: 201, Maintainers everywhere, no force push, no code owner approval", async () => {
    const r = await post({ name: "main" });
    expect(r.status, r.text).toBe(201);
    const { id, ...rest } = r.body as Branch;
    expect(typeof id).toBe("number");
    expect(rest).toEqual({
      name: "main",
      push_access_levels: [role(40, "Maintainers")],
      merge_access_levels: [role(40, "Maintainers")],
      allow_force_push: false,
      unprotect_access_levels: [role(40, "Maintainers")],
      code_owner_approval_required: false,
    });
  });

  it("a name already protected is 409 with the platform's message, and nothing changes", async () => {
    const r = await post({ name: "main", push_access_level: 30 });
    expect([r.status, r.body]).toEqual([409, { message: "Protected branch 'main' already exists" }]);
    const got = await c.call("GET", `${base}/main`, { token: "maint-token" });
    expect((got.body as Branch).push_access_levels).toEqual([role(40, "Maintainers")]);
  });

  describe("access levels: the boundaries", () => {
    it.each([
      [0, "No one"],
      [30, "Developers + Maintainers"],
      [40, "Maintainers"],
      [60, null],
    ])("%i is accepted for push, merge and unprotect, described as %j", async (level, description) => {
      const name = `level-${level}`;
      const r = await post(
        { name, push_access_level: level, merge_access_level: level, unprotect_access_level: level },
        "admin-token",
      );
      expect(r.status, r.text).toBe(201);
      const b = r.body as Branch;
      for (const list of [b.push_access_levels, b.merge_access_levels, b.unprotect_access_levels]) {
        expect(list).toEqual([role(level, description)]);
      }
    });

    it.each([
      ["push_access_level", 50, "push_access_level does not have a valid value"],
      ["merge_access_level", 50, "merge_access_level does not have a valid value"],
      ["unprotect_access_level", 50, "unprotect_access_level does not have a valid value"],
      ["push_access_level", 10, "push_access_level does not have a valid value"],
      ["merge_access_level", "maintainer", "merge_access_level is invalid"],
      ["allow_force_push", "perhaps", "allow_force_push is invalid"],
      ["code_owner_approval_required", "perhaps", "code_owner_approval_required is invalid"],
    ])("%s = %j is 400 %j", async (field, value, error) => {
      const r = await post({ name: "invalid-level", [field]: value });
      expect([r.status, r.body]).toEqual([400, { error }]);
    });

    it("no name is 400; a blank one is the model's 422", async () => {
      expect((await post({})).body).toEqual({ error: "name is missing" });
      const blank = await post({ name: " " });
      expect([blank.status, blank.body]).toEqual([422, { message: ["Name can't be blank"] }]);
    });
  });

  it("allow_force_push and code_owner_approval_required are kept", async () => {
    const r = await post({ name: "force", allow_force_push: true, code_owner_approval_required: true });
    expect(r.body).toMatchObject({ allow_force_push: true, code_owner_approval_required: true });
  });

  describe("allowed_to_push / allowed_to_merge / allowed_to_unprotect [licensed]", () => {
    it("users with access and groups shared with the project; the default 40 is left out of a kind given a list", async () => {
      const r = await post({
        name: "allowed",
        allowed_to_push: [{ user_id: ids["dev"] }, { group_id: ids["ops"] }, { access_level: 30 }],
        allowed_to_unprotect: [{ user_id: ids["maint"] }],
      });
      expect(r.status, r.text).toBe(201);
      const b = r.body as Branch;
      expect(b.push_access_levels).toEqual([
        {
          access_level: null,
          access_level_description: "Dee Developer",
          user_id: ids["dev"],
          group_id: null,
        },
        { access_level: null, access_level_description: "Ops Team", user_id: null, group_id: ids["ops"] },
        role(30, "Developers + Maintainers"),
      ]);
      expect(b.merge_access_levels).toEqual([role(40, "Maintainers")]);
      expect(b.unprotect_access_levels).toEqual([
        {
          access_level: null,
          access_level_description: "Mia Maintainer",
          user_id: ids["maint"],
          group_id: null,
        },
      ]);
    });

    it("a role level given beside the list is kept with it", async () => {
      const r = await post({
        name: "both",
        push_access_level: 0,
        allowed_to_push: [{ user_id: ids["dev"] }],
      });
      expect((r.body as Branch).push_access_levels.map((l) => l.access_level_description)).toEqual([
        "No one",
        "Dee Developer",
      ]);
    });

    it("a user with access through a shared group counts as a member", async () => {
      const r = await post({ name: "via-share", allowed_to_merge: [{ user_id: ids["alice"] }] });
      expect(r.status, r.text).toBe(201);
    });

    it.each([
      [
        "a user who does not exist (read as a role without a level)",
        () => ({ allowed_to_merge: [{ user_id: 0 }], allowed_to_push: [{ user_id: 999999 }] }),
        [
          "Merge access levels access level can't be blank",
          "Merge access levels access level is not included in the list",
          "Push access levels access level can't be blank",
          "Push access levels access level is not included in the list",
        ],
      ],
      [
        "a user who is not a member",
        () => ({ allowed_to_push: [{ user_id: ids["outsider"] }] }),
        ["Push access levels user is not a member of the project"],
      ],
      [
        "a group the project is not shared with (its own group does not count)",
        () => ({ allowed_to_push: [{ group_id: ids["qa"] }], allowed_to_merge: [{ group_id: ids["acme"] }] }),
        [
          "Merge access levels group does not have access to the project",
          "Push access levels group does not have access to the project",
        ],
      ],
      [
        "an entry naming nothing",
        () => ({ allowed_to_unprotect: [{}] }),
        [
          "Unprotect access levels access level can't be blank",
          "Unprotect access levels access level is not included in the list",
        ],
      ],
    ])("%s is the model's 422", async (_name, levels, messages) => {
      const r = await post({ name: "refused", ...levels() }, "admin-token");
      expect([r.status, r.body]).toEqual([422, { message: messages }]);
      expect((await c.call("GET", `${base}/refused`, { token: "maint-token" })).status).toBe(404);
    });

    it.each([
      [
        { allowed_to_push: [{ access_level: 50 }] },
        "allowed_to_push[0][access_level] does not have a valid value",
      ],
      [{ allowed_to_merge: [{ user_id: "bob" }] }, "allowed_to_merge[0][user_id] is invalid"],
      [{ allowed_to_unprotect: "everyone" }, "allowed_to_unprotect is invalid"],
    ])("parameter errors: %j is 400 %j", async (levels, error) => {
      const r = await post({ name: "refused", ...levels });
      expect([r.status, r.body]).toEqual([400, { error }]);
    });

    it("form-encoded lists follow Rack: a new entry starts when a key repeats", async () => {
      const r = await c.call("POST", base, {
        token: "maint-token",
        form: `name=form&allowed_to_push[][user_id]=${ids["dev"]}&allowed_to_push[][access_level]=30&allowed_to_push[][user_id]=${ids["maint"]}`,
      });
      expect(r.status, r.text).toBe(201);
      expect((r.body as Branch).push_access_levels).toEqual([
        { access_level: 30, access_level_description: "Dee Developer", user_id: ids["dev"], group_id: null },
        {
          access_level: null,
          access_level_description: "Mia Maintainer",
          user_id: ids["maint"],
          group_id: null,
        },
      ]);
    });
  });

  describe("unprotect levels guard unprotecting and protecting [licensed]", () => {
    it("a Maintainer may not protect with unprotect level 60 (403); an administrator may", async () => {
      const r = await post({ name: "admins-only", unprotect_access_level: 60 });
      expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
      expect((await post({ name: "admins-only", unprotect_access_level: 60 }, "admin-token")).status).toBe(
        201,
      );
    });

    it("a Maintainer may not unprotect it (403); an administrator may (204)", async () => {
      const path = `${base}/admins-only`;
      const r = await c.call("DELETE", path, { token: "maint-token" });
      expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
      expect((await c.call("DELETE", path, { token: "admin-token" })).status).toBe(204);
    });

    it("a user named in allowed_to_unprotect may unprotect; a Maintainer who is not named may not", async () => {
      await post({ name: "eve-unprotects", allowed_to_unprotect: [{ user_id: ids["eve"] }] }, "admin-token");
      for (const user of ["alice", "eve"]) {
        await c.call("POST", "/projects/acme%2Fapi/members", {
          json: { user_id: ids[user], access_level: 40 },
        });
      }
      const path = `${base}/eve-unprotects`;
      expect((await c.call("DELETE", path, { token: "alice-token" })).status).toBe(403);
      const r = await c.call("DELETE", path, { token: "eve-token" });
      expect(r.status, r.text).toBe(204);
    });
  });

  it("wildcards and names with '/' (URL-encoded): GET one, list, DELETE", async () => {
    const created = await post({ name: "release/*", push_access_level: 30 });
    expect(created.status, created.text).toBe(201);
    const got = await c.call("GET", `${base}/release%2F*`, { token: "maint-token" });
    expect(got.body).toEqual(created.body);
    expect((await unprotect("release/*")).status).toBe(204);
    const gone = await c.call("GET", `${base}/release%2F*`, { token: "maint-token" });
    expect([gone.status, gone.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it.each([
    ["rel", ["release-1.x", "Prerelease"]],
    ["RELEASE", ["release-1.x", "Prerelease"]],
    ["release 1.x", ["release-1.x"]],
    ["qa", ["QA"]],
    ["q", []],
  ])("search %j: the platform's fuzzy match", async (search, names) => {
    for (const name of ["release-1.x", "Prerelease", "QA", "qa-extra"]) await post({ name });
    const r = await c.call("GET", `${base}?search=${encodeURIComponent(search)}&per_page=100`, {
      token: "maint-token",
    });
    expect((r.body as Branch[]).map((b) => b.name)).toEqual(names);
    for (const name of ["release-1.x", "Prerelease", "QA", "qa-extra"]) await unprotect(name);
  });

  it("GET lists oldest first, paginated", async () => {
    const r = await c.call("GET", `${base}?per_page=1`, { token: "maint-token" });
    expect((r.body as Branch[]).map((b) => b.name)).toEqual(["main"]);
    expect(Number(r.headers.get("x-total"))).toBeGreaterThan(1);
  });

  describe("PATCH: code_owner_approval_required, the only update 13.12 has [licensed]", () => {
    it("sets it, and sets it back to false when not given", async () => {
      const r = await c.call("PATCH", `${base}/main`, {
        token: "maint-token",
        json: { code_owner_approval_required: true },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.body).toMatchObject({ name: "main", code_owner_approval_required: true });
      const reset = await c.call("PATCH", `${base}/main`, { token: "maint-token", json: {} });
      expect(reset.body).toMatchObject({ code_owner_approval_required: false });
    });

    it("other fields are not changed by it", async () => {
      const r = await c.call("PATCH", `${base}/main`, {
        token: "maint-token",
        json: { push_access_level: 0, allow_force_push: true },
      });
      expect(r.body).toMatchObject({
        push_access_levels: [role(40, "Maintainers")],
        allow_force_push: false,
      });
    });

    it("a missing name is 404 Not found; a Developer 403; no PUT", async () => {
      const missing = await c.call("PATCH", `${base}/nope`, { token: "maint-token", json: {} });
      expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
      expect((await c.call("PATCH", `${base}/main`, { token: "dev-token", json: {} })).status).toBe(403);
      const put = await c.call("PUT", `${base}/main`, { token: "maint-token", json: {} });
      expect([put.status, put.body]).toEqual([405, { error: "405 Not Allowed" }]);
    });
  });

  it("DELETE honours If-Unmodified-Since (412) and a missing name is 404", async () => {
    await post({ name: "conditional" });
    const early = await c.call("DELETE", `${base}/conditional`, {
      token: "maint-token",
      headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" },
    });
    expect(early.status).toBe(412);
    expect((await c.call("DELETE", `${base}/conditional`, { token: "maint-token" })).status).toBe(204);
    const again = await c.call("DELETE", `${base}/conditional`, { token: "maint-token" });
    expect([again.status, again.body]).toEqual([404, { message: "404 Not found" }]);
  });

  describe("permissions: Maintainer, reading included", () => {
    const routes: [string, string, unknown][] = [
      ["GET", base, undefined],
      ["GET", `${base}/main`, undefined],
      ["POST", base, { name: "perm" }],
      ["PATCH", `${base}/main`, {}],
      ["DELETE", `${base}/nope`, undefined],
    ];
    it.each([
      ["without a token (private project)", null, 404, { message: "404 Project Not Found" }],
      ["a non-member", "outsider-token", 404, { message: "404 Project Not Found" }],
      ["a Developer (just below)", "dev-token", 403, { message: "403 Forbidden" }],
    ])("%s is refused on every route", async (_name, token, status, body) => {
      for (const [method, path, json] of routes) {
        const r = await c.call(method, path, { token, json });
        expect([r.status, r.body], `${method} ${path}`).toEqual([status, body]);
      }
    });

    it("a Maintainer (the requirement) passes every route", async () => {
      const expected: Record<string, number> = { GET: 200, POST: 201, PATCH: 200, DELETE: 404 };
      for (const [method, path, json] of routes) {
        const r = await c.call(method, path, { token: "maint-token", json });
        expect(r.status, `${method} ${path} ${r.text}`).toBe(expected[method]);
      }
    });

    it("on a public project a caller without a token is 403, not 401 (no authenticate!)", async () => {
      const r = await c.call("GET", "/projects/open%2Fsite/protected_branches", { token: null });
      expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
    });
  });

  it("the fixture's protected branch", async () => {
    const r = await c.call("GET", "/projects/open%2Fsite/protected_branches/main", { token: "maint-token" });
    expect(r.body).toMatchObject({
      name: "main",
      push_access_levels: [role(0, "No one")],
      merge_access_levels: [
        {
          access_level: null,
          access_level_description: "Mia Maintainer",
          user_id: ids["maint"],
          group_id: null,
        },
      ],
    });
  });

  describe("core edition", () => {
    it("the entity has no unprotect levels, code owner approval, user or group ids", async () => {
      const r = await core.call("POST", base, {
        token: "maint-token",
        json: { name: "main", push_access_level: 30 },
      });
      expect(r.status, r.text).toBe(201);
      const { id: _id, ...rest } = r.body as Branch;
      expect(rest).toEqual({
        name: "main",
        push_access_levels: [{ access_level: 30, access_level_description: "Developers + Maintainers" }],
        merge_access_levels: [{ access_level: 40, access_level_description: "Maintainers" }],
        allow_force_push: false,
      });
    });

    it("60 is not a level there, and the licensed parameters are ignored as undeclared ones are", async () => {
      const r = await core.call("POST", base, {
        token: "maint-token",
        json: { name: "x", push_access_level: 60 },
      });
      expect([r.status, r.body]).toEqual([400, { error: "push_access_level does not have a valid value" }]);
      const ignored = await core.call("POST", base, {
        token: "maint-token",
        json: { name: "y", allowed_to_push: [{ user_id: ids["dev"] }], unprotect_access_level: 60 },
      });
      expect((ignored.body as Branch).push_access_levels).toEqual([
        { access_level: 40, access_level_description: "Maintainers" },
      ]);
    });

    it("PATCH does not exist (405)", async () => {
      const r = await core.call("PATCH", `${base}/main`, { token: "maint-token", json: {} });
      expect([r.status, r.body]).toEqual([405, { error: "405 Not Allowed" }]);
    });
  });

  it("fixture errors name the entry and the field", async () => {
    const bad = (entry: Record<string, unknown>) =>
      startSandbox({ fixture: { ...fixture, protected_branches: [entry] } });
    await expect(bad({ project: "acme/api", name: "main", push_access_level: 50 })).rejects.toThrow(
      /protected_branches\[0\]\.push_access_level must be one of 40, 30, 0, 60/,
    );
    await expect(
      bad({ project: "acme/api", name: "main", allowed_to_push: [{ user: "outsider" }] }),
    ).rejects.toThrow(/protected_branches\[0\] Push access levels user is not a member of the project/);
    await expect(bad({ project: "acme/nope", name: "main" })).rejects.toThrow(
      /protected_branches\[0\]\.project names "acme\/nope", which is not in projects/,
    );
  });
});

/** The fixture without what only the licensed edition has. */
function coreFixture(): Record<string, unknown> {
  return {
    ...fixture,
    protected_branches: [{ project: "open/site", name: "main", push_access_level: 0 }],
  };
}

describe("protected tags (13.12 lib/api/protected_tags.rb)", () => {
  let c: Client;
  let core: Client;
  const base = "/projects/acme%2Fapi/protected_tags";

  beforeAll(async () => {
    c = await sandbox({ fixture });
    core = await sandbox({ fixture: coreFixture(), edition: "core" });
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  it("POST with a name alone: 201, Maintainers may create", async () => {
    const r = await c.call("POST", base, { token: "maint-token", json: { name: "v*" } });
    expect([r.status, r.body]).toEqual([
      201,
      { name: "v*", create_access_levels: [role(40, "Maintainers")] },
    ]);
  });

  it.each([
    [0, "No one"],
    [30, "Developers + Maintainers"],
    [40, "Maintainers"],
    [60, null],
  ])("create_access_level %i is accepted, described as %j", async (level, description) => {
    const r = await c.call("POST", base, {
      token: "maint-token",
      json: { name: `level-${level}`, create_access_level: level },
    });
    expect(r.body).toEqual({ name: `level-${level}`, create_access_levels: [role(level, description)] });
  });

  it.each([
    [
      { name: "x", create_access_level: 50 },
      400,
      { error: "create_access_level does not have a valid value" },
    ],
    [{}, 400, { error: "name is missing" }],
    [{ name: "" }, 422, { message: ["Name can't be blank"] }],
    [{ name: "v*" }, 409, { message: "Protected tag 'v*' already exists" }],
  ])("%j is refused: %i", async (json, status, body) => {
    const r = await c.call("POST", base, { token: "maint-token", json });
    expect([r.status, r.body]).toEqual([status, body]);
  });

  it("allowed_to_create is not in 13.12 (15.2): ignored", async () => {
    const r = await c.call("POST", base, {
      token: "maint-token",
      json: { name: "release/*", allowed_to_create: [{ user_id: 1 }] },
    });
    expect(r.body).toEqual({ name: "release/*", create_access_levels: [role(40, "Maintainers")] });
  });

  it("GET one (URL-encoded), list oldest first, no update, DELETE", async () => {
    const one = await c.call("GET", `${base}/release%2F*`, { token: "maint-token" });
    expect(one.body).toEqual({ name: "release/*", create_access_levels: [role(40, "Maintainers")] });
    const list = await c.call("GET", base, { token: "maint-token" });
    expect((list.body as { name: string }[]).map((t) => t.name)).toEqual([
      "v*",
      "level-0",
      "level-30",
      "level-40",
      "level-60",
      "release/*",
    ]);
    for (const method of ["PUT", "PATCH"]) {
      expect((await c.call(method, `${base}/v*`, { token: "maint-token", json: {} })).status).toBe(405);
    }
    expect((await c.call("DELETE", `${base}/release%2F*`, { token: "maint-token" })).status).toBe(204);
    const gone = await c.call("DELETE", `${base}/release%2F*`, { token: "maint-token" });
    expect([gone.status, gone.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it.each([
    ["a non-member", "outsider-token", 404],
    ["a Developer (just below)", "dev-token", 403],
    ["a Maintainer (the requirement)", "maint-token", 200],
  ])("permissions: %s reading the list", async (_name, token, status) => {
    expect((await c.call("GET", base, { token })).status).toBe(status);
  });

  it("the fixture's tag, and the core edition: no user or group ids, no level 60", async () => {
    const seeded = await c.call("GET", "/projects/open%2Fsite/protected_tags/v*", { token: "maint-token" });
    expect(seeded.body).toEqual({ name: "v*", create_access_levels: [role(30, "Developers + Maintainers")] });
    const onCore = await core.call("GET", "/projects/open%2Fsite/protected_tags/v*", {
      token: "maint-token",
    });
    expect(onCore.body).toEqual({
      name: "v*",
      create_access_levels: [{ access_level: 30, access_level_description: "Developers + Maintainers" }],
    });
    const sixty = await core.call("POST", base, {
      token: "maint-token",
      json: { name: "x", create_access_level: 60 },
    });
    expect([sixty.status, sixty.body]).toEqual([
      400,
      { error: "create_access_level does not have a valid value" },
    ]);
  });
});
