/**
 * Cases of `src/kinds` that only an unusual answer of the platform, or an unusual manifest, reaches (the last
 * mutation survivors, docs/kinds-survivors.md): a platform before 14.0 that shows a project's topics as `tag_list`
 * only, two projects declared in a group that does not exist, the token's own user declared with an expiry where
 * the platform does not make it an owner, and a group deleted while it is exported.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { answerEdited, startProxy } from "./proxy.js";

/** A plan's changes and errors, from `plan --format json`. */
type JsonPlan = PlanV1;

const oneLine = (text: string) => text.replace(/\s+/g, " ");

describe("a project's topics from a platform that shows them as tag_list only (13.12)", () => {
  let bench: Bench;
  let proxy: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }, { path: "acme/web" }] },
    });
    await bench.send("PUT", "/projects/acme%2Fapp", { tag_list: ["alpha", "beta"] });
    // The sandbox shows `topics` beside `tag_list` for newer clients; 13.12 shows `tag_list` alone.
    const withoutTopics = (body: unknown) => {
      for (const p of Array.isArray(body) ? body : [body])
        if (p && typeof p === "object" && "tag_list" in p) delete (p as Record<string, unknown>)["topics"];
    };
    proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && (req.url ?? "").includes("/projects")
        ? answerEdited(bench.sandbox.url, req, res, withoutTopics)
        : false,
    );
  });
  afterAll(async () => {
    await proxy.close();
    await bench.stop();
  });

  const plan = async (manifest: string) => {
    const r = await bench.cli(["plan", "--format", "json", bench.manifest(manifest)], {
      FORGEFORM_URL: proxy.url,
    });
    expect(r.err).toBe("");
    return JSON.parse(r.out) as JsonPlan;
  };

  it("are read from tag_list: the same topics declared plan nothing, other ones show the live ones", async () => {
    // The project on its own (one project of its group) and through its group's listing (two).
    for (const also of ["", "  acme/web: {}\n"]) {
      const same = await plan(`version: 1\nprojects:\n  acme/app:\n    topics: [alpha, beta]\n${also}`);
      expect(same).toMatchObject({ changes: [], errors: [] });
      const other = await plan(`version: 1\nprojects:\n  acme/app:\n    topics: [alpha, gamma]\n${also}`);
      expect(other.errors).toEqual([]);
      expect(other.changes).toMatchObject([
        {
          address: 'project["acme/app"]',
          action: "update",
          fields: [{ field: "topics", before: ["alpha", "beta"], after: ["alpha", "gamma"] }],
        },
      ]);
    }
  });

  it("are exported from tag_list", async () => {
    const out = join(bench.dir, "exported");
    const r = await bench.cli(["export", "--project", "acme/app", "--out", out], {
      FORGEFORM_URL: proxy.url,
    });
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(out, "acme__app.yaml"), "utf8")).toMatch(
      /\n {4}topics:\n {6}- alpha\n {6}- beta\n/,
    );
  });
});

describe("projects declared in a group that does not exist", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] } });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("are each a plan error naming the group, however many are read from its listing", async () => {
    // Two or more projects of one group are read from the group's listing, which the platform answers 404.
    for (const names of [
      ["one", "two"],
      ["one", "two", "three"],
    ]) {
      const file = bench.manifest(
        `version: 1\nprojects:\n${names.map((n) => `  ghost/${n}: { description: ${n} }\n`).join("")}`,
      );
      const r = await bench.cli(["plan", "--format", "json", file]);
      expect(r.code, r.err).toBe(1);
      const plan = JSON.parse(r.out) as JsonPlan;
      // Each is read as missing (a create, which the error keeps from being applied), none read as something else.
      expect(plan.changes.map((c) => [c.action, c.address])).toEqual(
        names.map((n) => ["create", `project["ghost/${n}"]`]),
      );
      expect(plan.errors.map((e) => [e.address, e.message])).toEqual(
        names.map((n) => [
          `project["ghost/${n}"]`,
          `project "ghost/${n}" does not exist, and it cannot be created: its group "ghost" does not exist or is not visible to this token's user (projects are created in groups, not in a user's namespace). Check the path, or declare the group in the manifests (within the plan's --target, when one is given; under --changed-since, a declared group is created only when its entry changed: apply without --changed-since first)`,
        ]),
      );
    }
  });
});

describe("the token's own user declared with an expiry where the platform does not make it an owner", () => {
  let bench: Bench;
  beforeAll(async () => {
    // Groups without an owner (their owners' accounts deleted, say): nobody above a new project or a new member
    // counts as one.
    bench = await Bench.start({
      fixture: {
        users: [{ username: "alice", name: "Alice Example", email: "alice@example.com" }],
        groups: [{ path: "acme", members: { alice: "maintainer" } }, { path: "solo" }, { path: "lone" }],
      },
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const members = (path: string) =>
    bench.get<{ username: string; access_level: number; expires_at: string | null }[]>(`${path}/members`);

  it.each([
    ["a project this plan creates", "projects:\n  acme/fresh:", "/projects/acme%2Ffresh", 40],
    ["a group that exists", "groups:\n  solo:", "/groups/solo", 40],
    ["a group that exists, as an owner", "groups:\n  lone:", "/groups/lone", 50],
  ])("%s: planned and made as declared", async (_what, owner, path, level) => {
    const file = bench.manifest(
      `version: 1\n${owner}\n    members:\n      - { user: root, access_level: ${level === 50 ? "owner" : "maintainer"}, expires_at: "2099-12-31" }\n`,
    );
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect((JSON.parse(plan.out) as JsonPlan).errors).toEqual([]);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(await members(path)).toContainEqual(
      expect.objectContaining({ username: "root", access_level: level, expires_at: "2099-12-31" }),
    );
    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code, again.out + again.err).toBe(0);
  });
});

describe("a group deleted while it is exported", () => {
  it("fails the export naming the request the platform refused, writes nothing, and asks about no epic it did not list", async () => {
    const epicReads: string[] = [];
    let deleted = false;
    const bench: Bench = await Bench.start({
      edition: "licensed",
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        issues: [{ project: "acme/api", iid: 1, title: "issue 1" }],
        epics: [{ group: "acme", iid: 1, title: "Launch", issues: ["acme/api#1"] }],
      },
      // Someone deletes the group just as the export lists its epics (after it has read the group).
      onRequest: (method, path) => {
        if (!/\/groups\/[^/]+\/epics/.test(path)) return;
        epicReads.push(`${method} ${path.replace(/\/groups\/[^/]+\//, "/groups/acme/")}`);
        if (deleted) return;
        deleted = true;
        bench.sandbox.store.removeGroup(bench.sandbox.store.groupByFullPath("acme")!.id);
      },
    });
    try {
      const out = join(bench.dir, "exported");
      const r = await bench.cli(["export", "--group", "acme", "--out", out]);
      expect(r.code).toBe(1);
      expect(oneLine(r.err)).toMatch(
        /GET \/groups\/\d+\/projects -> 404 Not Found: not found, or not visible to this token's user \(platform said: 404 Group Not Found\)/,
      );
      expect(existsSync(out)).toBe(false);
      // The listing answered 404: no epic is read, none made up from nothing.
      expect(epicReads).toEqual(["GET /api/v4/groups/acme/epics"]);
    } finally {
      await bench.stop();
    }
  });
});

describe("a new project or subgroup whose declared group a --changed-since plan leaves out", () => {
  it("is a plan error naming the group and what to do, and nothing is created", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/api" }] },
    });
    try {
      // The groups are declared in a file the change leaves as it is, and were never applied (errors come by file).
      const repo = mkdtempSync(join(tmpdir(), "forgeform-repo-"));
      const git = (...args: string[]) =>
        execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
      git("init", "-q");
      writeFileSync(join(repo, "groups.yaml"), "version: 1\ngroups:\n  newteam: {}\n  acme/team: {}\n");
      writeFileSync(join(repo, "projects.yaml"), "version: 1\nprojects:\n  acme/api: { description: api }\n");
      git("add", "-A");
      git("commit", "-q", "-m", "base");
      writeFileSync(
        join(repo, "projects.yaml"),
        "version: 1\nprojects:\n  acme/api: { description: api }\n  newteam/svc: { description: s }\n  acme/team/svc: { description: s }\n",
      );
      writeFileSync(join(repo, "subgroups.yaml"), "version: 1\ngroups:\n  newteam/sub: {}\n");
      const plan = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", repo]);
      expect(plan.code, plan.err).toBe(1);
      const errors = (JSON.parse(plan.out) as JsonPlan).errors.map((e) => [e.address, e.message]);
      expect(errors).toEqual([
        ...(
          [
            ["newteam/svc", "newteam", " (projects are created in groups, not in a user's namespace)"],
            ["acme/team/svc", "acme/team", ""],
          ] as const
        ).map(([project, group, note]) => [
          `project["${project}"]`,
          `project "${project}" does not exist, and it cannot be created: its group "${group}" does not exist or is not visible to this token's user${note}. Check the path, or declare the group in the manifests (within the plan's --target, when one is given; under --changed-since, a declared group is created only when its entry changed: apply without --changed-since first)`,
        ]),
        [
          'group["newteam/sub"]',
          "its parent group newteam does not exist and is outside the plan's --target (or, under --changed-since, its entry did not change), so it is not created: add --target newteam (or apply without --changed-since first)",
        ],
      ]);
      const apply = await bench.cli(["apply", "--yes", "--changed-since", "HEAD", repo]);
      expect(apply.code).toBe(1);
      expect(apply.err).toContain("the plan has errors (above); nothing was applied");
      const projects = await bench.get<{ path_with_namespace: string }[]>("/projects");
      expect(projects.map((p) => p.path_with_namespace)).toEqual(["acme/api"]);
      expect((await bench.get<{ full_path: string }[]>("/groups")).map((g) => g.full_path)).toEqual(["acme"]);
      // Applied in full, the groups are created first, then the projects in them.
      const full = await bench.cli(["apply", "--yes", repo]);
      expect(full.code, full.out + full.err).toBe(0);
      expect(
        (await bench.get<{ path_with_namespace: string }[]>("/projects"))
          .map((p) => p.path_with_namespace)
          .sort(),
      ).toEqual(["acme/api", "acme/team/svc", "newteam/svc"]);
    } finally {
      await bench.stop();
    }
  });
});
