import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTarGz } from "../../src/sandbox/tar.js";
import { commandMissing, describeNeeding } from "../required.js";
import { type Client, importGroup, sandbox } from "./helpers.js";

/**
 * Group export and import (routes/group-import-export.ts): the platform's tar.gz of the group tree, read here with
 * GNU tar; everything an export carries comes back with an import; hostile archives are 400 and store nothing.
 */

const noTar = commandMissing("tar", "tar");

const fixture = {
  users: [
    { username: "owner", email: "owner@example.com", token: "owner-token" },
    { username: "dev", email: "Dev@Example.com", token: "dev-token" },
    { username: "guest", token: "guest-token" },
  ],
  groups: [
    {
      path: "src",
      name: "Source",
      visibility: "public",
      description: "The source tree",
      members: { owner: "owner", dev: "developer", guest: "guest" },
      project_creation_level: "maintainer",
      subgroup_creation_level: "owner",
      two_factor_grace_period: 12,
      request_access_enabled: false,
    },
    { path: "src/team", visibility: "public", members: { dev: "maintainer" } },
    { path: "src/team/inner", visibility: "internal" },
    { path: "private-home", visibility: "private", members: { owner: "owner" } },
  ],
  projects: [{ path: "src/team/app", visibility: "public", default_branch: "main" }],
  milestones: [
    { group: "src", title: "v1", description: "First", start_date: "2021-01-01", due_date: "2021-02-01" },
    { group: "src", title: "v0", state: "closed" },
    { group: "src/team/inner", title: "deep" },
    { project: "src/team/app", title: "project-only" },
  ],
  badges: [
    {
      group: "src",
      name: "pipeline",
      link_url: "https://ci.example/%{project_path}",
      image_url: "https://i.example/p.svg",
    },
    { group: "src/team", link_url: "https://t.example", image_url: "https://t.example/i.svg" },
    { project: "src/team/app", link_url: "https://p.example", image_url: "https://p.example/i.svg" },
  ],
};

type Json = Record<string, unknown>;

describeNeeding(noTar)("group export/import", () => {
  let c: Client;
  let archive: Buffer;
  let tree: string;
  const ids: Record<string, number> = {};

  const upload = (token: string, file: Buffer, fields: Record<string, string>) =>
    importGroup(c, token, file, fields);
  const get = async <T>(path: string, token = "admin-token"): Promise<T> => {
    const r = await c.call("GET", path, { token });
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    return r.body as T;
  };
  const read = (name: string) => readFileSync(join(tree, name), "utf8");
  const rows = (name: string) =>
    read(name)
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Json);

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date("2021-03-04T05:06:07.089Z"), fixture });
    for (const path of ["src", "src/team", "src/team/inner"]) {
      ids[path] = (await get<{ id: number }>(`/groups/${encodeURIComponent(path)}`)).id;
    }
    const guest = (await get<{ id: number }[]>("/users?username=guest"))[0]!;
    const expiring = await c.call("PUT", `/groups/src/members/${guest.id}`, {
      json: { access_level: 10, expires_at: "2030-01-31" },
    });
    expect(expiring.status).toBe(200);
    expect((await c.call("POST", "/groups/src/export", { token: "owner-token" })).status).toBe(202);
    const res = await fetch(`${c.sb.url}/api/v4/groups/src/export/download`, {
      headers: { "PRIVATE-TOKEN": "owner-token" },
    });
    expect(res.status).toBe(200);
    archive = Buffer.from(await res.arrayBuffer());
    tree = mkdtempSync(join(tmpdir(), "group-export-"));
    const x = spawnSync("tar", ["-xzf", "-"], { cwd: tree, input: archive });
    expect(x.status, String(x.stderr)).toBe(0);
  });
  afterAll(() => c.sb.stop());

  it("the archive is the platform's layout: VERSION, the ids parents first, attributes, one NDJSON per relation", () => {
    expect(read("VERSION")).toBe("0.2.4");
    expect(read("GITLAB_VERSION")).toBe("13.12.0-ee");
    expect(read("tree/groups/_all.ndjson")).toBe(
      `${ids["src"]}\n${ids["src/team"]}\n${ids["src/team/inner"]}\n`,
    );
    expect(JSON.parse(read(`tree/groups/${ids["src"]}.json`))).toMatchObject({
      id: ids["src"],
      name: "Source",
      path: "src",
      description: "The source tree",
      parent_id: null,
      visibility_level: 20,
      project_creation_level: 1,
      subgroup_creation_level: 0,
      two_factor_grace_period: 12,
      request_access_enabled: false,
      type: "Group",
    });
    expect(JSON.parse(read(`tree/groups/${ids["src/team/inner"]}.json`))).toMatchObject({
      parent_id: ids["src/team"],
      visibility_level: 10,
    });
    for (const id of Object.values(ids)) {
      for (const relation of ["milestones", "badges", "labels", "boards", "members"]) {
        expect(() => read(`tree/groups/${id}/${relation}.ndjson`)).not.toThrow();
      }
    }
    expect(rows(`tree/groups/${ids["src"]}/milestones.ndjson`).map((m) => [m["title"], m["state"]])).toEqual([
      ["v1", "active"],
      ["v0", "closed"],
    ]);
    expect(rows(`tree/groups/${ids["src"]}/milestones.ndjson`)[0]).toMatchObject({
      group_id: ids["src"],
      project_id: null,
      iid: 1,
      description: "First",
      start_date: "2021-01-01",
      due_date: "2021-02-01",
    });
    // A project's milestones and badges are not the group's.
    expect(read(`tree/groups/${ids["src/team"]}/milestones.ndjson`)).toBe("");
    expect(rows(`tree/groups/${ids["src/team"]}/badges.ndjson`)).toEqual([
      expect.objectContaining({
        link_url: "https://t.example",
        group_id: ids["src/team"],
        type: "GroupBadge",
      }),
    ]);
    const members = rows(`tree/groups/${ids["src"]}/members.ndjson`);
    expect(members.map((m) => [(m["user"] as Json)["username"], m["access_level"]])).toEqual([
      ["owner", 50],
      ["dev", 30],
      ["guest", 10],
    ]);
    expect(members[1]).toMatchObject({ source_type: "Namespace", user: { email: "Dev@Example.com" } });
    expect(members[2]).toMatchObject({ expires_at: "2030-01-31" });
  });

  it("an import brings back the settings, subgroups, milestones, badges and members (matched by e-mail)", async () => {
    const r = await upload("owner-token", archive, { name: "Copy", path: "copy" });
    const copy = await get<Json>("/groups/copy");
    // 202 as on the platform, with the imported group as the contract gives the result
    expect([r.status, r.body]).toEqual([202, copy]);
    expect(copy).toMatchObject({
      name: "Copy",
      visibility: "public",
      description: "The source tree",
      project_creation_level: "maintainer",
      subgroup_creation_level: "owner",
      two_factor_grace_period: 12,
      request_access_enabled: false,
    });
    const subs = await get<Json[]>("/groups/copy/descendant_groups");
    expect(subs.map((g) => [g["full_path"], g["visibility"]]).sort()).toEqual([
      ["copy/team", "public"],
      ["copy/team/inner", "internal"],
    ]);
    const milestones = await get<Json[]>("/groups/copy/milestones");
    expect(milestones.map((m) => [m["iid"], m["title"], m["state"], m["start_date"], m["due_date"]])).toEqual(
      [
        [2, "v0", "closed", null, null],
        [1, "v1", "active", "2021-01-01", "2021-02-01"],
      ],
    );
    expect(milestones[1]!["description"]).toBe("First");
    expect((await get<Json[]>("/groups/copy%2Fteam%2Finner/milestones")).map((m) => m["title"])).toEqual([
      "deep",
    ]);
    const badges = await get<Json[]>("/groups/copy/badges");
    expect(badges).toEqual([
      expect.objectContaining({
        name: "pipeline",
        kind: "group",
        link_url: "https://ci.example/%{project_path}",
        image_url: "https://i.example/p.svg",
      }),
    ]);
    expect((await get<Json[]>("/groups/copy%2Fteam/badges")).map((b) => b["link_url"])).toEqual([
      "https://t.example",
    ]);
    // The importer is an Owner of every group; the others come back by e-mail, whatever its case.
    const members = await get<Json[]>("/groups/copy/members");
    expect(members.map((m) => [m["username"], m["access_level"], m["expires_at"]])).toEqual([
      ["owner", 50, null],
      ["dev", 30, null],
      ["guest", 10, "2030-01-31"],
    ]);
    const team = await get<Json[]>("/groups/copy%2Fteam/members");
    expect(team.map((m) => [m["username"], m["access_level"]])).toEqual([
      ["owner", 50],
      ["dev", 40],
    ]);
    // Its own export carries the same tree again.
    expect((await c.call("POST", "/groups/copy/export", { token: "owner-token" })).status).toBe(202);
    const again = await c.call("GET", "/groups/copy/export/download", { token: "owner-token" });
    expect(again.status).toBe(200);
  });

  it("into a parent: the group and its subgroups are lowered to the parent's visibility", async () => {
    const home = await get<{ id: number }>("/groups/private-home");
    const r = await upload("owner-token", archive, {
      name: "Nested",
      path: "nested",
      parent_id: String(home.id),
    });
    expect(r.status).toBe(202);
    const groups = await get<Json[]>("/groups/private-home/descendant_groups");
    expect(groups.map((g) => [g["full_path"], g["visibility"]]).sort()).toEqual([
      ["private-home/nested", "private"],
      ["private-home/nested/team", "private"],
      ["private-home/nested/team/inner", "private"],
    ]);
  });

  it("reads an archive GNU tar made; unknown members are left out; labels are imported and exported again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "group-import-"));
    const file = (name: string, text: string) => {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    };
    file("VERSION", "0.2.4\n");
    file("tree/groups/_all.ndjson", "41\n42\n");
    file("tree/groups/41.json", JSON.stringify({ id: 41, name: "Old", path: "old", visibility_level: 10 }));
    file("tree/groups/42.json", JSON.stringify({ id: 42, name: "Kid", path: "kid", parent_id: 41 }));
    file("tree/groups/41/labels.ndjson", '{"id":5,"title":"bug","color":"#d9534f","type":"GroupLabel"}\n');
    file(
      "tree/groups/41/members.ndjson",
      '{"access_level":40,"user":{"id":9,"email":"nobody@else.example"}}\n',
    );
    const tarred = spawnSync("tar", ["-czf", "-", "."], { cwd: dir });
    expect(tarred.status).toBe(0);
    const r = await upload("owner-token", tarred.stdout, { name: "From tar", path: "from-tar" });
    expect([r.status, r.body]).toEqual([202, expect.objectContaining({ full_path: "from-tar" })]);
    expect(await get<Json>("/groups/from-tar")).toMatchObject({ visibility: "internal" });
    expect(await get<Json>("/groups/from-tar%2Fkid")).toMatchObject({ name: "Kid", visibility: "private" });
    expect((await get<Json[]>("/groups/from-tar/members")).map((m) => m["username"])).toEqual(["owner"]);
    expect((await c.call("POST", "/groups/from-tar/export", { token: "owner-token" })).status).toBe(202);
    const res = await fetch(`${c.sb.url}/api/v4/groups/from-tar/export/download`, {
      headers: { "PRIVATE-TOKEN": "owner-token" },
    });
    const out = mkdtempSync(join(tmpdir(), "group-reexport-"));
    spawnSync("tar", ["-xzf", "-"], { cwd: out, input: Buffer.from(await res.arrayBuffer()) });
    const id = (await get<{ id: number }>("/groups/from-tar")).id;
    expect((await get<Json[]>("/groups/from-tar/labels")).map((l) => [l["name"], l["color"]])).toEqual([
      ["bug", "#d9534f"],
    ]);
    const labels = readFileSync(join(out, `tree/groups/${id}/labels.ndjson`), "utf8")
      .trim()
      .split("\n");
    expect(labels.map((l) => JSON.parse(l) as Json)).toEqual([
      expect.objectContaining({ title: "bug", color: "#d9534f", type: "GroupLabel", group_id: id }),
    ]);
  });

  describe("hostile or broken archives: 400 with the reason, and nothing stored", () => {
    const files = (entries: Record<string, string>) =>
      writeTarGz(
        Object.entries(entries).map(([name, text]) => ({ name, data: Buffer.from(text) })),
        new Date(0),
      );
    const minimal = {
      "tree/groups/_all.ndjson": "1\n",
      "tree/groups/1.json": '{"id":1,"name":"A","path":"a"}',
    };
    const tarOf = (cwd: string, ...args: string[]) =>
      spawnSync("tar", ["-czf", "-", ...args], { cwd }).stdout;
    const dir = mkdtempSync(join(tmpdir(), "group-hostile-"));
    mkdirSync(join(dir, "in"));
    writeFileSync(join(dir, "outside"), "x");

    const cases: [string, () => Buffer, string][] = [
      ["old gzipped JSON", () => gzipSync(Buffer.from('{"format":"json"}')), "it is not a tar archive"],
      ["not gzip", () => Buffer.from("just text"), "it is not a gzip-compressed tar archive"],
      [
        "a path climbing out",
        () => spawnSync("tar", ["-P", "-czf", "-", "../outside"], { cwd: join(dir, "in") }).stdout,
        'the entry "../outside" points outside the archive',
      ],
      [
        "a gzip bomb",
        () => gzipSync(Buffer.alloc(40 * 1024 * 1024)),
        "it unpacks to more than 33554432 bytes",
      ],
      ["no group tree", () => tarOf(dir, "outside"), "The import file is incompatible"],
      [
        "another format version",
        () => files({ ...minimal, VERSION: "0.2.3" }),
        "Import version mismatch: Required 0.2.4 but was 0.2.3",
      ],
      [
        "a missing group file",
        () => files({ "tree/groups/_all.ndjson": "1\n" }),
        "tree/groups/1.json is missing",
      ],
      [
        "a group id that differs",
        () => files({ ...minimal, "tree/groups/1.json": '{"id":2,"name":"A","path":"a"}' }),
        "Invalid group_id for 1",
      ],
      [
        "a subgroup before its parent",
        () =>
          files({
            "tree/groups/_all.ndjson": "1\n2\n",
            "tree/groups/1.json": '{"id":1,"name":"A","path":"a"}',
            "tree/groups/2.json": '{"id":2,"name":"B","path":"b","parent_id":3}',
          }),
        "tree/groups/2.json: its parent group 3 is not listed before it",
      ],
      [
        "broken JSON",
        () => files({ ...minimal, "tree/groups/1.json": "{" }),
        "tree/groups/1.json is not valid JSON",
      ],
      [
        "a prototype key",
        () => files({ ...minimal, "tree/groups/1/badges.ndjson": '{"__proto__":{"admin":true}}\n' }),
        'tree/groups/1/badges.ndjson line 1: the name "__proto__" is not allowed',
      ],
      [
        "a setting of the wrong type",
        () =>
          files({
            ...minimal,
            "tree/groups/1.json": '{"id":1,"name":"A","path":"a","visibility_level":"public"}',
          }),
        "tree/groups/1.json: visibility_level must be 0, 10 or 20",
      ],
      [
        "a milestone row of the wrong shape",
        () =>
          files({
            ...minimal,
            "tree/groups/1/milestones.ndjson": '{"title":"x","iid":1,"due_date":"soon"}\n',
          }),
        "tree/groups/1/milestones.ndjson row 1: due_date must be a date YYYY-MM-DD",
      ],
      [
        "a member row without a level",
        () => files({ ...minimal, "tree/groups/1/members.ndjson": '{"user":{"email":"a@b.c"}}\n' }),
        "tree/groups/1/members.ndjson row 1: access_level must be 10, 20, 30, 40 or 50",
      ],
    ];
    for (const [title, make, reason] of cases) {
      it(title, async () => {
        const before = (await get<unknown[]>("/groups?all_available=true&per_page=100")).length;
        const r = await upload("owner-token", make(), { name: "Bad", path: "bad" });
        expect([r.status, r.body]).toEqual([
          400,
          { message: `Failed to import group: export.tar.gz: ${reason}` },
        ]);
        expect((await get<unknown[]>("/groups?all_available=true&per_page=100")).length).toBe(before);
      });
    }
  });

  it("permissions: export and download need Owner; import needs create_group or create_subgroup on the parent", async () => {
    expect((await c.call("POST", "/groups/src/export", { token: "dev-token" })).status).toBe(403);
    expect((await c.call("GET", "/groups/src/export/download", { token: "dev-token" })).status).toBe(403);
    expect((await c.call("POST", "/groups/src/export", { token: null })).status).toBe(401);
    const src = ids["src"]!;
    // dev is a Developer of src: no subgroup there, whatever the file holds (checked before the archive).
    const r = await upload("dev-token", Buffer.from("not even gzip"), {
      name: "X",
      path: "x",
      parent_id: String(src),
    });
    expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
    const taken = await upload("owner-token", archive, { name: "Another", path: "src" });
    expect(taken.status).toBe(400);
    expect(taken.body).toEqual({
      message: expect.stringMatching(/^Failed to save group \{:path=>\["has already been taken"\]/),
    });
    const missing = await c.call("POST", "/groups/import", {
      token: "owner-token",
      json: { name: "n", path: "p" },
    });
    expect([missing.status, missing.body]).toEqual([400, { error: "file is missing" }]);
  });

  it("the download is the archive as GNU tar reads it, named like the platform's", async () => {
    const res = await fetch(`${c.sb.url}/api/v4/groups/src%2Fteam/export/download`, {
      headers: { "PRIVATE-TOKEN": "owner-token" },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "404 Not found or has expired" });
    expect((await c.call("POST", "/groups/src%2Fteam/export", { token: "owner-token" })).status).toBe(202);
    const ok = await fetch(`${c.sb.url}/api/v4/groups/src%2Fteam/export/download`, {
      headers: { "PRIVATE-TOKEN": "owner-token" },
    });
    expect(ok.headers.get("content-disposition")).toBe(
      'attachment; filename="20210304050607_src_team_export.tar.gz"',
    );
    const tar = gunzipSync(Buffer.from(await ok.arrayBuffer()));
    expect(tar.subarray(257, 263).toString("latin1")).toBe("ustar\u0000");
  });
});
