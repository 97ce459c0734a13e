import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

interface Group {
  id: number;
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  parent_id: number | null;
  visibility: string;
  description: string;
  projects?: { path: string }[];
  shared_projects?: unknown[];
  runners_token?: string;
  web_url: string;
}

describe("groups (§3.1)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({
      clock: () => new Date("2021-03-04T05:06:07.089Z"),
      fixture: {
        users: [
          { username: "alice", token: "alice-token" },
          { username: "bob", token: "bob-token" },
        ],
        groups: [
          { path: "test", visibility: "internal", members: { alice: "owner", bob: "maintainer" } },
          { path: "test/sub", visibility: "internal" },
        ],
        projects: [
          { path: "test/alpha", visibility: "internal" },
          { path: "test/beta", visibility: "private" },
          { path: "test/sub/gamma", visibility: "internal" },
        ],
        milestones: [{ group: "test/sub", title: "Q3", due_date: "2021-09-30", state: "closed" }],
        badges: [
          {
            group: "test",
            name: "docs",
            link_url: "https://d.example",
            image_url: "https://d.example/b.svg",
          },
        ],
      },
    });
  });
  afterAll(() => c.sb.stop());

  it("POST /groups creates a subgroup: 201 GroupDetail with the recorded fields", async () => {
    const test = (await c.admin("GET", "/groups/test")).body as Group;
    const r = await c.call("POST", "/groups", {
      token: "alice-token",
      json: { path: "create_group", name: "create_group", parent_id: test.id },
    });
    expect(r.status).toBe(201);
    const g = r.body as Record<string, unknown>;
    expect(Object.keys(g).slice(0, 22)).toEqual([
      "id",
      "web_url",
      "name",
      "path",
      "description",
      "visibility",
      "share_with_group_lock",
      "require_two_factor_authentication",
      "two_factor_grace_period",
      "project_creation_level",
      "auto_devops_enabled",
      "subgroup_creation_level",
      "emails_disabled",
      "mentions_disabled",
      "lfs_enabled",
      "default_branch_protection",
      "avatar_url",
      "request_access_enabled",
      "full_name",
      "full_path",
      "created_at",
      "parent_id",
    ]);
    expect(g).toMatchObject({
      name: "create_group",
      full_path: "test/create_group",
      full_name: "test / create_group",
      parent_id: test.id,
      visibility: "private",
      description: "",
      created_at: "2021-03-04T05:06:07.089Z",
      projects: [],
      shared_projects: [],
    });
    expect(g["web_url"]).toMatch(/\/groups\/test\/create_group$/);
    expect(typeof g["runners_token"]).toBe("string");
  });

  it("a duplicate path is 400 with the Ruby-inspect message", async () => {
    const r = await c.admin("POST", "/groups", { path: "test", name: "Again" });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: 'Failed to save group {:path=>["has already been taken"]}' });
  });

  it("missing, invalid, reserved and too-visible values are refused like the platform", async () => {
    expect((await c.admin("POST", "/groups", {})).body).toEqual({
      error: "name is missing, path is missing",
    });
    expect((await c.admin("POST", "/groups", { name: "x", path: "x", visibility: "secret" })).body).toEqual({
      error: "visibility does not have a valid value",
    });
    expect((await c.admin("POST", "/groups", { name: "x", path: "admin" })).body).toEqual({
      message: 'Failed to save group {:path=>["admin is a reserved name"]}',
    });
    expect((await c.admin("POST", "/groups", { name: "x", path: "-bad." })).body).toEqual({
      message:
        "Failed to save group {:path=>[\"can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.\"]}",
    });
    const test = (await c.admin("GET", "/groups/test")).body as Group;
    const vis = await c.admin("POST", "/groups", {
      name: "p",
      path: "p",
      parent_id: test.id,
      visibility: "public",
    });
    expect(vis.body).toEqual({
      message:
        'Failed to save group {:visibility_level=>["public is not allowed since the parent group has a internal visibility."]}',
    });
  });

  it("creating a subgroup needs the parent's subgroup creation level (403), and a token (401)", async () => {
    const test = (await c.admin("GET", "/groups/test")).body as Group;
    expect((await c.call("POST", "/groups", { token: null, json: { name: "a", path: "a" } })).status).toBe(
      401,
    );
    const bobSub = await c.call("POST", "/groups", {
      token: "bob-token",
      json: { name: "b", path: "b", parent_id: test.id },
    });
    expect(bobSub.status).toBe(201);
    await c.admin("PUT", `/groups/${test.id}`, { subgroup_creation_level: "owner" });
    const refused = await c.call("POST", "/groups", {
      token: "bob-token",
      json: { name: "c", path: "c", parent_id: test.id },
    });
    expect(refused.status).toBe(403);
    await c.admin("PUT", `/groups/${test.id}`, { subgroup_creation_level: "maintainer" });
  });

  it("form-encoded string values are coerced (Ruby and Perl clients)", async () => {
    const r = await c.call("POST", "/groups", {
      form: "name=Form+Group&path=form-group&request_access_enabled=false&two_factor_grace_period=12&lfs_enabled=0",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      name: "Form Group",
      request_access_enabled: false,
      two_factor_grace_period: 12,
      lfs_enabled: false,
    });
  });

  it("PUT updates settings, ignores parent_id, and reports validation as a field hash", async () => {
    const g = (await c.admin("GET", "/groups/form-group")).body as Group;
    const r = await c.admin("PUT", `/groups/${g.id}`, {
      description: "Group with simple parameters",
      parent_id: 999,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ description: "Group with simple parameters", parent_id: null });
    const bad = await c.admin("PUT", `/groups/${g.id}`, { path: "test" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { path: ["has already been taken"] } });
  });

  it("GET /groups/:id lists visible projects and hides them with with_projects=false", async () => {
    const full = (await c.call("GET", "/groups/test", { token: "alice-token" })).body as Group;
    expect(full.projects?.map((p) => p.path).sort()).toEqual(["alpha", "beta"]);
    const asUser = (await c.call("GET", "/groups/test", { token: "user-token" })).body as Group;
    expect(asUser.projects?.map((p) => p.path)).toEqual(["alpha"]);
    expect(asUser.runners_token).toBeUndefined();
    const bare = (await c.admin("GET", "/groups/test?with_projects=false")).body as Group;
    expect(bare.projects).toBeUndefined();
    expect(bare.shared_projects).toBeUndefined();
  });

  it("GET /groups/:id/subgroups lists direct children only", async () => {
    const r = await c.admin("GET", "/groups/test/subgroups");
    const paths = (r.body as Group[]).map((g) => g.full_path);
    expect(paths).toContain("test/sub");
    expect(paths.every((p) => p.split("/").length === 2)).toBe(true);
  });

  it("GET /groups/:id/projects filters and orders as documented", async () => {
    const paths = async (q: string) =>
      ((await c.admin("GET", `/groups/test/projects${q}`)).body as { path: string }[]).map((p) => p.path);
    expect(await paths("?order_by=name&sort=asc")).toEqual(["alpha", "beta"]);
    expect(await paths("?order_by=name&sort=asc&include_subgroups=true")).toEqual(["alpha", "beta", "gamma"]);
    expect(await paths("?visibility=private")).toEqual(["beta"]);
    expect(await paths("?search=alp")).toEqual(["alpha"]);
    expect(await paths("?archived=true")).toEqual([]);
    const simple = (await c.admin("GET", "/groups/test/projects?simple=true")).body as Record<
      string,
      unknown
    >[];
    expect(simple[0]).not.toHaveProperty("visibility");
    expect(simple[0]).toHaveProperty("path_with_namespace");
    const full = (await c.admin("GET", "/groups/test/projects")).body as Record<string, unknown>[];
    expect(full[0]).toHaveProperty("visibility");
    expect(full[0]).toHaveProperty("shared_with_groups");
    expect((full[0] as { namespace: { kind: string } }).namespace.kind).toBe("group");
  });

  it("GET /groups supports search, order_by and sort with an id tiebreak, and skip_groups", async () => {
    const list = (await c.admin("GET", "/groups?search=sub&order_by=path&sort=desc")).body as Group[];
    expect(list.map((g) => g.full_path)).toEqual(["test/sub"]);
    const all = (await c.admin("GET", "/groups?order_by=id")).body as Group[];
    const skip = (await c.admin("GET", `/groups?order_by=id&skip_groups[]=${all[0]!.id}`)).body as Group[];
    expect(skip.map((g) => g.id)).toEqual(all.slice(1).map((g) => g.id));
    const stats = (await c.admin("GET", "/groups?statistics=true")).body as Record<string, unknown>[];
    expect(stats[0]).toHaveProperty("statistics");
    const noStats = (await c.call("GET", "/groups?statistics=true", { token: "alice-token" })).body as Record<
      string,
      unknown
    >[];
    expect(noStats[0]).not.toHaveProperty("statistics");
  });

  it("export: 404 before scheduling, 202 to schedule, then a downloadable archive; import recreates it", async () => {
    const test = (await c.admin("GET", "/groups/test")).body as Group;
    const before = await c.admin("GET", `/groups/${test.id}/export/download`);
    expect(before.status).toBe(404);
    const sched = await c.admin("POST", `/groups/${test.id}/export`);
    expect(sched.status).toBe(202);
    expect(sched.body).toEqual({ message: "202 Accepted" });
    const res = await fetch(`${c.sb.url}/api/v4/groups/${test.id}/export/download`, {
      headers: { "PRIVATE-TOKEN": "admin-token" },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/attachment; filename=".*_test_export\.tar\.gz"/);
    const archive = Buffer.from(await res.arrayBuffer());
    // The platform's layout, read by GNU tar: the group tree as NDJSON.
    const listing = spawnSync("tar", ["-tzf", "-"], { input: archive, encoding: "utf8" });
    expect(listing.status, listing.stderr).toBe(0);
    const sub = (await c.admin("GET", "/groups/test%2Fsub")).body as Group;
    expect(listing.stdout.split("\n")).toEqual(
      expect.arrayContaining([
        "./VERSION",
        "./tree/groups/_all.ndjson",
        `./tree/groups/${test.id}.json`,
        `./tree/groups/${test.id}/badges.ndjson`,
        `./tree/groups/${sub.id}/milestones.ndjson`,
        `./tree/groups/${sub.id}/members.ndjson`,
      ]),
    );

    const form = new FormData();
    form.set("name", "Imported");
    form.set("path", "imported");
    form.set("file", new Blob([archive]), "export.tar.gz");
    const imp = await fetch(`${c.sb.url}/api/v4/groups/import`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": "admin-token" },
      body: form,
    });
    expect(imp.status).toBe(202);
    const imported = (await c.admin("GET", "/groups/imported")).body as Group;
    expect(imported.visibility).toBe("internal");
    const subs = (await c.admin("GET", "/groups/imported/subgroups")).body as Group[];
    expect(subs.map((g) => g.path)).toContain("sub");
    const members = (await c.admin("GET", "/groups/imported/members")).body as { username: string }[];
    expect(members.map((m) => m.username)).toEqual(expect.arrayContaining(["alice", "bob"]));
    const milestones = (await c.admin("GET", "/groups/imported%2Fsub/milestones")).body as unknown[];
    expect(milestones).toEqual([
      expect.objectContaining({ title: "Q3", state: "closed", due_date: "2021-09-30" }),
    ]);
    const badges = (await c.admin("GET", "/groups/imported/badges")).body as unknown[];
    expect(badges).toEqual([expect.objectContaining({ name: "docs", link_url: "https://d.example" })]);
  });

  it("DELETE is 202 with a body and removes the group, its subgroups and projects", async () => {
    const r = await c.call("DELETE", "/groups/imported");
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ message: "202 Accepted" });
    expect((await c.admin("GET", "/groups/imported")).status).toBe(404);
    expect((await c.admin("GET", "/groups/imported%2Fsub")).status).toBe(404);
  });

  it("licensed fields are absent on the core edition", async () => {
    const core = await sandbox({ edition: "core", fixture: { groups: [{ path: "g" }] } });
    try {
      const g = (await core.admin("GET", "/groups/g")).body as Record<string, unknown>;
      expect(g).not.toHaveProperty("ldap_cn");
      expect(g).not.toHaveProperty("shared_runners_minutes_limit");
      expect(g).toHaveProperty("runners_token");
      expect((await core.admin("GET", "/version")).body).toEqual({
        version: "13.12.0",
        revision: expect.any(String),
      });
    } finally {
      await core.sb.stop();
    }
    const lic = (await c.admin("GET", "/groups/test")).body as Record<string, unknown>;
    expect(lic).toHaveProperty("shared_runners_minutes_limit", null);
    expect((await c.admin("GET", "/version")).body).toMatchObject({ version: "13.12.0-ee" });
  });
});

describe("group model rules", () => {
  it("names are unique among siblings, nesting stops at 20 ancestors, and visibility cannot drop below children", async () => {
    const chain = Array.from({ length: 21 }, (_, i) => ({
      path: Array.from({ length: i + 1 }, (_, j) => `n${j}`).join("/"),
      visibility: "public",
    }));
    const c = await sandbox({ fixture: { groups: chain } });
    try {
      const top = (await c.admin("GET", "/groups/n0")).body as Group;
      const dupName = await c.admin("POST", "/groups", { name: "n1", path: "other-path", parent_id: top.id });
      expect(dupName.body).toEqual({ message: 'Failed to save group {:name=>["has already been taken"]}' });

      const deepest = c.sb.store.groupByFullPath(chain[20]!.path)!;
      const tooDeep = await c.admin("POST", "/groups", { name: "x", path: "x", parent_id: deepest.id });
      expect(tooDeep.body).toEqual({
        message: 'Failed to save group {:parent_id=>["has too deep level of nesting"]}',
      });

      const down = await c.admin("PUT", `/groups/${top.id}`, { visibility: "private" });
      expect(down.status).toBe(400);
      expect(down.body).toEqual({
        message: {
          visibility_level: ["private is not allowed since there are sub-groups with higher visibility."],
        },
      });
    } finally {
      await c.sb.stop();
    }
  });

  it("GET /groups/:id/projects/shared lists projects shared with the group", async () => {
    const c = await sandbox({
      fixture: {
        groups: [{ path: "a" }, { path: "b" }],
        projects: [{ path: "a/x", shared_with: { b: 30 } }, { path: "a/y" }],
      },
    });
    try {
      const r = await c.admin("GET", "/groups/b/projects/shared");
      expect((r.body as { path_with_namespace: string }[]).map((p) => p.path_with_namespace)).toEqual([
        "a/x",
      ]);
      const detail = (await c.admin("GET", "/groups/b")).body as { shared_projects: { path: string }[] };
      expect(detail.shared_projects.map((p) => p.path)).toEqual(["x"]);
    } finally {
      await c.sb.stop();
    }
  });
});
