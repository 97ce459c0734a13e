import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

interface Project {
  id: number;
  path_with_namespace: string;
  description: string | null;
  default_branch: string | null;
  visibility: string;
  namespace: { id: number; kind: string; full_path: string };
  permissions?: {
    project_access: { access_level: number } | null;
    group_access: { access_level: number } | null;
  };
}

describe("projects, members, users, namespaces", () => {
  let c: Client;
  let team: { id: number };
  beforeAll(async () => {
    c = await sandbox({
      fixture: {
        users: [
          { username: "dev", token: "dev-token" },
          { username: "lead", token: "lead-token" },
        ],
        groups: [
          { path: "team", visibility: "private", members: { lead: "owner", dev: "developer" } },
          { path: "other", visibility: "private" },
        ],
      },
    });
    team = (await c.admin("GET", "/groups/team")).body as { id: number };
  });
  afterAll(() => c.sb.stop());

  it("POST /projects creates in a group namespace (201) with the recorded shape", async () => {
    const r = await c.call("POST", "/projects", {
      token: "dev-token",
      json: {
        path: "project_pull_mirror",
        name: "project_pull_mirror",
        namespace_id: team.id,
        default_branch: "main",
      },
    });
    expect(r.status).toBe(201);
    const p = r.body as Project;
    expect(p).toMatchObject({
      description: null,
      path_with_namespace: "team/project_pull_mirror",
      default_branch: "main",
      visibility: "private",
      namespace: { id: team.id, kind: "group", full_path: "team" },
    });
    expect(p.permissions?.group_access?.access_level).toBe(30);
  });

  it("name or path is required; duplicates are validation errors; namespaces need permission", async () => {
    expect((await c.admin("POST", "/projects", { description: "x" })).body).toEqual({
      error: "name, path are missing, at least one parameter must be provided",
    });
    const dup = await c.admin("POST", "/projects", { path: "project_pull_mirror", namespace_id: team.id });
    expect(dup.status).toBe(400);
    expect((dup.body as { message: Record<string, string[]> }).message["path"]).toEqual([
      "has already been taken",
    ]);
    const other = (await c.admin("GET", "/groups/other")).body as { id: number };
    const denied = await c.call("POST", "/projects", {
      token: "dev-token",
      json: { name: "x", namespace_id: other.id },
    });
    expect(denied.status).toBe(400);
    expect(denied.body).toEqual({ message: { namespace: ["is not valid"] } });
  });

  it("a project without namespace goes to the caller's personal namespace", async () => {
    const r = await c.call("POST", "/projects", { token: "dev-token", json: { name: "Mine" } });
    expect((r.body as Project).path_with_namespace).toBe("dev/mine");
    expect((r.body as Project).namespace.kind).toBe("user");
  });

  it("GET /projects lists visible projects; membership narrows; simple trims", async () => {
    const mine = (await c.call("GET", "/projects?membership=true", { token: "dev-token" })).body as Project[];
    expect(mine.map((p) => p.path_with_namespace).sort()).toEqual(["dev/mine", "team/project_pull_mirror"]);
    const guest = (await c.call("GET", "/projects", { token: null })).body as Project[];
    expect(guest).toEqual([]);
    const simple = (await c.admin("GET", "/projects?simple=true")).body as Record<string, unknown>[];
    expect(simple[0]).not.toHaveProperty("visibility");
  });

  it("PUT needs Maintainer (403 for a developer); DELETE is 202 with a body", async () => {
    const denied = await c.call("PUT", "/projects/team%2Fproject_pull_mirror", {
      token: "dev-token",
      json: { description: "x" },
    });
    expect(denied.status).toBe(403);
    const ok = await c.call("PUT", "/projects/team%2Fproject_pull_mirror", {
      token: "lead-token",
      json: { description: "updated", issues_enabled: "false" },
    });
    expect(ok.body).toMatchObject({ description: "updated", issues_enabled: false });
    const del = await c.call("DELETE", "/projects/dev%2Fmine", { token: "dev-token" });
    expect(del.status).toBe(202);
    expect(del.body).toEqual({ message: "202 Accepted" });
    expect((await c.admin("GET", "/projects/dev%2Fmine")).status).toBe(404);
  });

  it("a project path without a slash is never found (§4)", async () => {
    const r = await c.admin("GET", "/projects/project_pull_mirror");
    expect(r.body).toEqual({ message: "404 Project Not Found" });
  });

  it("project sharing with a group gives its members access, capped at the share level", async () => {
    const other = (await c.admin("GET", "/groups/other")).body as { id: number };
    const lead = (await c.admin("GET", "/users?username=lead")).body as { id: number }[];
    await c.admin("POST", `/groups/${other.id}/members`, { user_id: lead[0]!.id, access_level: 50 });
    const share = await c.admin("POST", "/projects/team%2Fproject_pull_mirror/share", {
      group_id: other.id,
      group_access: 20,
    });
    expect(share.status).toBe(201);
    const p = (await c.admin("GET", "/projects/team%2Fproject_pull_mirror")).body as {
      shared_with_groups: unknown[];
    };
    expect(p.shared_with_groups).toEqual([
      {
        group_id: other.id,
        group_name: "other",
        group_full_path: "other",
        group_access_level: 20,
        expires_at: null,
      },
    ]);
    const unshare = await c.admin("DELETE", `/projects/team%2Fproject_pull_mirror/share/${other.id}`);
    expect(unshare.status).toBe(204);
  });

  it("group sharing: 201 GroupDetail listing the link, 204 to remove it, 404 when absent", async () => {
    const other = (await c.admin("GET", "/groups/other")).body as { id: number };
    const r = await c.admin("POST", `/groups/${team.id}/share`, {
      group_id: other.id,
      group_access: 30,
      expires_at: null,
    });
    expect(r.status).toBe(201);
    expect((r.body as { shared_with_groups: unknown[] }).shared_with_groups).toEqual([
      {
        group_id: other.id,
        group_name: "other",
        group_full_path: "other",
        group_access_level: 30,
        expires_at: null,
      },
    ]);
    expect((await c.admin("DELETE", `/groups/${team.id}/share/${other.id}`)).status).toBe(204);
    expect((await c.admin("DELETE", `/groups/${team.id}/share/${other.id}`)).status).toBe(404);
  });

  it("members: list, add (201), 409 when present, 400 for a bad level, update, all (inherited), delete (204)", async () => {
    const users = (await c.admin("GET", "/users?username=dev")).body as { id: number }[];
    const devId = users[0]!.id;
    const list = (await c.admin("GET", `/groups/${team.id}/members`)).body as {
      username: string;
      access_level: number;
    }[];
    expect(list.map((m) => [m.username, m.access_level])).toEqual([
      ["dev", 30],
      ["lead", 50],
    ]);
    const created = await c.admin("POST", "/users", {
      username: "newbie",
      name: "Newbie",
      email: "n@example.com",
    });
    const newbie = (created.body as { id: number }).id;
    const add = await c.call("POST", `/groups/${team.id}/members`, {
      form: `user_id=${newbie}&access_level=20`,
    });
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ id: newbie, username: "newbie", access_level: 20, expires_at: null });
    const again = await c.admin("POST", `/groups/${team.id}/members`, { user_id: newbie, access_level: 20 });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "Member already exists" });
    const bad = await c.admin("PUT", `/groups/${team.id}/members/${newbie}`, { access_level: 60 });
    expect(bad.body).toEqual({ message: { access_level: ["is not included in the list"] } });
    const up = await c.admin("PUT", `/groups/${team.id}/members/${newbie}`, { access_level: 40 });
    expect(up.body).toMatchObject({ access_level: 40 });
    const proj = await c.admin("GET", "/projects/team%2Fproject_pull_mirror/members/all");
    expect((proj.body as { username: string }[]).map((m) => m.username).sort()).toEqual([
      "dev",
      "lead",
      "newbie",
    ]);
    expect(
      (
        await c.call("POST", `/groups/${team.id}/members`, {
          token: "dev-token",
          json: { user_id: devId, access_level: 10 },
        })
      ).status,
    ).toBe(403);
    expect((await c.admin("DELETE", `/groups/${team.id}/members/${newbie}`)).status).toBe(204);
    // `find_by!`: the platform's lowercase record-not-found message
    expect((await c.admin("DELETE", `/groups/${team.id}/members/${newbie}`)).body).toEqual({
      message: "404 Not found",
    });
  });

  it("users: /user shows private fields, /users is brief for non-admins, POST /users is admin-only with 409s", async () => {
    const me = (await c.call("GET", "/user", { token: "dev-token" })).body as Record<string, unknown>;
    expect(me).toMatchObject({ username: "dev", email: "dev@example.com", can_create_group: true });
    expect(me).not.toHaveProperty("is_admin");
    const asUser = (await c.call("GET", "/users?username=lead", { token: "dev-token" })).body as Record<
      string,
      unknown
    >[];
    expect(Object.keys(asUser[0]!).sort()).toEqual([
      "avatar_url",
      "id",
      "name",
      "state",
      "username",
      "web_url",
    ]);
    const asAdmin = (await c.admin("GET", "/users?username=lead")).body as Record<string, unknown>[];
    expect(asAdmin[0]).toMatchObject({ email: "lead@example.com", is_admin: false });
    expect(
      (await c.user("POST", "/users", { username: "x", name: "x", email: "x@example.com" })).status,
    ).toBe(403);
    const dupMail = await c.admin("POST", "/users", { username: "x2", name: "x", email: "dev@example.com" });
    expect(dupMail).toMatchObject({ status: 409, body: { message: "Email has already been taken" } });
    const dupName = await c.admin("POST", "/users", { username: "dev", name: "x", email: "x3@example.com" });
    expect(dupName.body).toEqual({ message: "Username has already been taken" });
    expect((await c.admin("GET", "/users/999")).body).toEqual({ message: "404 User Not Found" });
  });

  it("namespaces: by id or path; 404 Namespace Not Found otherwise", async () => {
    const byPath = (await c.admin("GET", "/namespaces/team")).body as Record<string, unknown>;
    expect(byPath).toMatchObject({
      id: team.id,
      name: "team",
      path: "team",
      kind: "group",
      full_path: "team",
      parent_id: null,
    });
    expect(byPath["members_count_with_descendants"]).toBe(2);
    const user = (await c.call("GET", "/namespaces/dev", { token: "dev-token" })).body as Record<
      string,
      unknown
    >;
    expect(user).toMatchObject({ kind: "user", path: "dev" });
    expect((await c.admin("GET", "/namespaces/test%2Fmissing_parent")).body).toEqual({
      message: "404 Namespace Not Found",
    });
    expect((await c.call("GET", "/namespaces/other", { token: "dev-token" })).status).toBe(404);
  });
});
