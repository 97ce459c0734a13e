import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

/**
 * Users' rights: external users and projects limits, as the platform's `User#ensure_user_rights_and_limits` and
 * `Project#check_personal_projects_limit` have them (an external user cannot create groups or personal projects;
 * inside groups its role decides, as for anyone), and user administration, for administrators only.
 */

type Json = Record<string, unknown>;

describe("external users", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [
          { username: "contractor", token: "contractor-token", external: true },
          { username: "temp", token: "temp-token", external: true },
        ],
        groups: [
          {
            path: "work",
            subgroup_creation_level: "maintainer",
            project_creation_level: "developer",
            members: { contractor: "developer", temp: "maintainer" },
          },
        ],
      },
    });
  });
  afterAll(() => c.sb.stop());

  const me = async (token: string) => (await c.call("GET", "/user", { token })).body as Json;

  it("from the fixture: no group creation and a projects limit of 0, whatever else it says", async () => {
    expect(await me("contractor-token")).toMatchObject({
      external: true,
      can_create_group: false,
      projects_limit: 0,
      can_create_project: false,
    });
  });

  it("cannot create a top-level group or a personal project", async () => {
    const group = await c.call("POST", "/groups", {
      token: "contractor-token",
      json: { name: "Mine", path: "mine" },
    });
    expect([group.status, group.body]).toEqual([403, { message: "403 Forbidden" }]);
    const project = await c.call("POST", "/projects", { token: "contractor-token", json: { name: "mine" } });
    expect([project.status, project.body]).toEqual([
      403,
      {
        message: [
          "Personal project creation is not allowed. Please contact your administrator with questions",
        ],
      },
    ]);
    // Refused before any other check, as on the platform: an invalid name changes nothing.
    const invalid = await c.call("POST", "/projects", { token: "contractor-token", json: { name: "-bad-" } });
    expect(invalid.status).toBe(403);
  });

  it("inside a group its role decides: a Developer creates projects, only a Maintainer creates subgroups", async () => {
    const work = c.sb.store.groupByFullPath("work")!;
    const project = await c.call("POST", "/projects", {
      token: "contractor-token",
      json: { name: "tool", namespace_id: work.id },
    });
    expect(project.status).toBe(201);
    const asDeveloper = await c.call("POST", "/groups", {
      token: "contractor-token",
      json: { name: "Sub", path: "sub", parent_id: work.id },
    });
    expect(asDeveloper.status).toBe(403);
    const asMaintainer = await c.call("POST", "/groups", {
      token: "temp-token",
      json: { name: "Sub", path: "sub", parent_id: work.id },
    });
    expect(asMaintainer.status).toBe(201);
  });

  it("POST /users with external: true ignores can_create_group and projects_limit", async () => {
    const r = await c.admin("POST", "/users", {
      username: "ext",
      name: "Ext",
      email: "ext@example.com",
      password: "secret-password",
      external: true,
      can_create_group: true,
      projects_limit: 10,
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      external: true,
      can_create_group: false,
      projects_limit: 0,
      can_create_project: false,
    });
  });

  it("PUT /users/:id external: true takes both away; false gives the defaults back unless the request sets them", async () => {
    const created = await c.admin("POST", "/users", {
      username: "flip",
      name: "Flip",
      email: "flip@example.com",
      password: "secret-password",
    });
    const id = (created.body as { id: number }).id;
    expect(created.body).toMatchObject({ can_create_group: true, projects_limit: 100000 });
    const external = await c.admin("PUT", `/users/${id}`, { external: true, can_create_group: true });
    expect(external.body).toMatchObject({ external: true, can_create_group: false, projects_limit: 0 });
    expect((await c.admin("PUT", "/application/settings", { default_projects_limit: 42 })).status).toBe(200);
    const back = await c.admin("PUT", `/users/${id}`, { external: false });
    expect(back.body).toMatchObject({ external: false, can_create_group: true, projects_limit: 42 });
    await c.admin("PUT", `/users/${id}`, { external: true });
    const set = await c.admin("PUT", `/users/${id}`, {
      external: false,
      can_create_group: false,
      projects_limit: 3,
    });
    expect(set.body).toMatchObject({ external: false, can_create_group: true, projects_limit: 3 });
  });
});

describe("projects limit", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [{ username: "lim", token: "lim-token" }],
        groups: [{ path: "team", members: { lim: "maintainer" } }],
      },
    });
    const lim = c.sb.store.userByUsername("lim")!;
    expect((await c.admin("PUT", `/users/${lim.id}`, { projects_limit: 2 })).status).toBe(200);
  });
  afterAll(() => c.sb.stop());

  it("counts personal projects only: the limit's worth is allowed, one more is 403, group projects do not count", async () => {
    const create = (json: Json) => c.call("POST", "/projects", { token: "lim-token", json });
    expect((await create({ name: "one" })).status).toBe(201);
    expect(((await c.call("GET", "/user", { token: "lim-token" })).body as Json)["can_create_project"]).toBe(
      true,
    );
    expect((await create({ name: "two" })).status).toBe(201);
    expect(((await c.call("GET", "/user", { token: "lim-token" })).body as Json)["can_create_project"]).toBe(
      false,
    );
    const three = await create({ name: "three" });
    expect([three.status, three.body]).toEqual([
      403,
      { message: ["Your project limit is 2 projects! Please contact your administrator to increase it"] },
    ]);
    const team = c.sb.store.groupByFullPath("team")!;
    expect((await create({ name: "in-team", namespace_id: team.id })).status).toBe(201);
  });
});

describe("a state file from before the rule", () => {
  it("is read with the rule applied: its external users can no longer create groups", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "external-state-")), "state.json");
    const first = await sandbox({ statePath, fixture: { users: [{ username: "old", token: "old-token" }] } });
    await first.sb.stop();
    const state = JSON.parse(readFileSync(statePath, "utf8")) as { users: Json[] };
    const old = state.users.find((u) => u["username"] === "old")!;
    Object.assign(old, { external: true, can_create_group: true, projects_limit: 100000 });
    writeFileSync(statePath, JSON.stringify(state));
    const c = await sandbox({ statePath });
    try {
      const r = await c.call("POST", "/groups", {
        token: "old-token",
        json: { name: "Old", path: "old-group" },
      });
      expect(r.status).toBe(403);
      expect((await c.call("POST", "/projects", { token: "old-token", json: { name: "p" } })).status).toBe(
        403,
      );
    } finally {
      await c.sb.stop();
    }
  });
});

describe("user administration: administrators only, and not through sudo", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture: { users: [{ username: "target", token: "target-token" }] } });
  });
  afterAll(() => c.sb.stop());

  it("every administration route refuses a user (403), and an administrator acting as a user through sudo", async () => {
    const target = c.sb.store.userByUsername("target")!;
    const routes: [string, string, Json?][] = [
      [
        "POST",
        "/users",
        { username: "new", name: "New", email: "new@example.com", password: "secret-password" },
      ],
      ["PUT", `/users/${target.id}`, { admin: true }],
      ["POST", `/users/${target.id}/block`],
      ["POST", `/users/${target.id}/unblock`],
      ["POST", `/users/${target.id}/deactivate`],
      ["POST", `/users/${target.id}/activate`],
      ["DELETE", `/users/${target.id}`],
    ];
    const before = JSON.stringify(c.sb.store.data.users);
    for (const [method, path, json] of routes) {
      const asUser = await c.call(method, path, { token: "user-token", json });
      expect([asUser.status, asUser.body], `${method} ${path}`).toEqual([403, { message: "403 Forbidden" }]);
      const throughSudo = await c.call(method, path, { json, headers: { Sudo: "sandbox-user" } });
      expect(throughSudo.status, `${method} ${path} with sudo`).toBe(403);
    }
    expect(JSON.stringify(c.sb.store.data.users)).toBe(before);
    // The same routes work for the administrator itself.
    for (const [method, path, json] of routes) {
      const r = await c.call(method, path, { json });
      expect(r.status, `${method} ${path}`).toBeLessThan(300);
    }
    expect(c.sb.store.userByUsername("target")).toBeUndefined();
  });
});
