/**
 * Shares over HTTP: a group shared with a group, a project shared with a group. Each goes through its lifecycle (a
 * change is a replacement: the platform has no update), and the platform's rules are explained at plan time: a
 * project whose group locks sharing (also when a share would be made again), a project shared with its own group,
 * a group the platform does not know.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";

const fixture = {
  users: [{ username: "alice", name: "Alice Example", email: "alice@example.com" }],
  groups: [
    { path: "acme", members: { alice: "owner" } },
    { path: "acme/platform" },
    { path: "partners" },
    // Its path begins with acme's first characters, and it is not above acme's projects.
    { path: "acm" },
    { path: "locked", share_with_group_lock: true },
  ],
  projects: [
    { path: "acme/platform/api", default_branch: "main" },
    // Shared before its group was locked.
    { path: "locked/app", default_branch: "main", shared_with: { partners: "reporter" } },
    // A personal project: no group above it to lock sharing.
    { path: "alice/notes", default_branch: "main" },
  ],
};

interface Values {
  access: string | number;
  expires?: string;
}

function manifest(
  owner: "groups" | "projects",
  path: string,
  v: Values | undefined,
  policy?: string,
  group = "partners",
) {
  const share = v
    ? `\n      - group: ${group}\n        group_access: ${v.access}${v.expires ? `\n        expires_at: "${v.expires}"` : ""}`
    : " []";
  return `version: 1
instance:
  unmanaged: { groups: ignore }
${owner}:
  ${path}:
    shared_with_groups:${share}
${policy ? `    unmanaged: { shared_with_groups: ${policy} }\n` : ""}`;
}

const LEVELS: Record<string, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };
const level = (v: Values) => (typeof v.access === "number" ? v.access : LEVELS[v.access]);

type ApiShare = { group_full_path: string; group_access_level: number; expires_at: string | null };

describe("shares", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const sharesOf = async (owner: "groups" | "projects", path: string): Promise<ApiShare[]> =>
    (await bench.get<{ shared_with_groups: ApiShare[] }>(`/${owner}/${encodeURIComponent(path)}`))
      .shared_with_groups;

  const cycle = (owner: "groups" | "projects", path: string, segment: string, raised: string | number) =>
    lifecycle<Values>({
      bench,
      address: `${segment}["${path}"].share["partners"]`,
      render: (v, policy) => manifest(owner, path, v, policy),
      base: { access: "developer" },
      edits: [
        { values: { access: raised }, fields: ["group_access"], action: "replace" },
        { values: { access: raised, expires: "2031-01-31" }, fields: ["expires_at"], action: "replace" },
        { values: { access: 20 }, fields: ["group_access", "expires_at"], action: "replace" },
      ],
      without: (policy) => manifest(owner, path, undefined, policy),
      read: async () =>
        (await sharesOf(owner, path)).filter((s) => s.group_full_path === "partners") as Record<
          string,
          unknown
        >[],
      expected: (v) => ({ group_access_level: level(v), expires_at: v.expires ?? null }),
    });

  it("a group shared with a group goes through the whole lifecycle", async () => {
    await cycle("groups", "acme", "group", "owner");
  });

  it("a project shared with a group goes through the whole lifecycle", async () => {
    await cycle("projects", "acme/platform/api", "project", "maintainer");
  });

  it("says why a change is a replacement, and what a share gives", async () => {
    const file = bench.manifest(
      manifest("projects", "acme/platform/api", { access: "Developer".toLowerCase() }),
    );
    const create = await planJson(bench, file);
    expect(create.changes[0]?.reason).toBe(
      "each member of partners gets the lower of their own level there and developer on the project",
    );
    // A group's share reaches below it.
    const forGroup = await planJson(
      bench,
      bench.manifest(manifest("groups", "acme", { access: "reporter" }), "group.yaml"),
    );
    expect(forGroup.changes[0]?.reason).toBe(
      "each member of partners gets the lower of their own level there and reporter on this group, its subgroups and projects",
    );
    await apply(bench, file);
    // Full paths match in any case.
    await expectNoChanges(
      bench,
      bench.manifest(manifest("projects", "acme/platform/api", { access: 30 }, undefined, "Partners")),
    );
    const change = await planJson(
      bench,
      bench.manifest(manifest("projects", "acme/platform/api", { access: 40 })),
    );
    expect(change.changes[0]).toMatchObject({
      action: "replace",
      reason:
        "the platform has no call that changes a share: it is removed and made again, and the group's members lose the access it gives between the two calls",
      fields: [{ field: "group_access", before: "developer", after: "maintainer", forces_replacement: true }],
    });
    await apply(bench, bench.manifest(manifest("projects", "acme/platform/api", undefined, "delete")));
  });

  it("explains a group's share_with_group_lock at plan time, also before a share is made again", async () => {
    const lock =
      "group locked has share_with_group_lock set, so the platform refuses to share its projects with other groups: unset it on locked (and the groups above it) first, or give access through members";
    const newShare = bench.manifest(
      manifest("projects", "locked/app", { access: "reporter" }, undefined, "acme"),
    );
    const created = await bench.cli(["plan", "--format", "json", newShare]);
    expect(created.code).toBe(1);
    expect(JSON.parse(created.out).errors).toEqual([
      expect.objectContaining({ address: 'project["locked/app"].share["acme"]', message: lock }),
    ]);
    // The share made before the lock: changing it would remove it, and the platform would not make it again.
    const replaced = bench.manifest(manifest("projects", "locked/app", { access: "developer" }));
    const plan = await bench.cli(["plan", "--format", "json", replaced]);
    expect(plan.code).toBe(1);
    expect(JSON.parse(plan.out).errors).toEqual([
      expect.objectContaining({ address: 'project["locked/app"].share["partners"]', message: lock }),
    ]);
    expect((await bench.cli(["apply", "--yes", replaced])).code).toBe(1);
    expect(await sharesOf("projects", "locked/app")).toMatchObject([
      { group_full_path: "partners", group_access_level: 20 },
    ]);
    // Left as it is, it plans no change.
    await expectNoChanges(bench, bench.manifest(manifest("projects", "locked/app", { access: "reporter" })));
  });

  it("shares a personal project with a group: no group above it locks sharing", async () => {
    const file = bench.manifest(manifest("projects", "alice/notes", { access: "reporter" }));
    expectChanges(await planJson(bench, file), [
      { address: 'project["alice/notes"].share["partners"]', action: "create" },
    ]);
    await apply(bench, file);
    expect(await sharesOf("projects", "alice/notes")).toMatchObject([
      { group_full_path: "partners", group_access_level: 20 },
    ]);
    await expectNoChanges(bench, file);
  });

  it("refuses a project shared with its own group or one above it, and a group shared with itself", async () => {
    const own = await bench.cli([
      "plan",
      bench.manifest(manifest("projects", "acme/platform/api", { access: "reporter" }, undefined, "acme")),
    ]);
    expect(own.code).toBe(1);
    expect(own.out.replace(/\s+/g, " ")).toContain(
      'project["acme/platform/api"].share["acme"].group: acme/platform/api is in acme, and the platform does not share a project with its own group or one above it',
    );
    const prefix = await bench.cli([
      "plan",
      bench.manifest(manifest("projects", "acme/platform/api", { access: "reporter" }, undefined, "acm")),
    ]);
    expect(prefix.code, prefix.out).toBe(0);
    expect(prefix.out).toContain('+ project["acme/platform/api"].share["acm"]');
    const self = await bench.cli([
      "plan",
      bench.manifest(manifest("groups", "partners", { access: "reporter" }, undefined, "partners")),
    ]);
    expect(self.code).toBe(1);
    expect(self.out.replace(/\s+/g, " ")).toContain(
      'group["partners"].share["partners"].group: a group cannot be shared with itself',
    );
  });

  it("names the closest group for one the platform does not know", async () => {
    const top = await bench.cli([
      "plan",
      bench.manifest(manifest("groups", "acme", { access: "reporter" }, undefined, "partnres")),
    ]);
    expect(top.code).toBe(1);
    expect(top.out.replace(/\s+/g, " ")).toContain(
      'forgeform.yaml:7:16: group["acme"].share["partnres"].group: group "partnres" does not exist (or is not visible to this token\'s user): did you mean "partners"?',
    );
    const sub = await bench.cli([
      "plan",
      bench.manifest(manifest("groups", "partners", { access: "reporter" }, undefined, "acme/platfrom")),
    ]);
    expect(sub.out.replace(/\s+/g, " ")).toContain(
      'group "acme/platfrom" does not exist (or is not visible to this token\'s user): did you mean "acme/platform"?',
    );
  });

  it("shares with groups the same plan creates, a subgroup too, once they are created", async () => {
    const file = bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  acme:
    shared_with_groups:
      - { group: Vendors/Tools, group_access: reporter }
  vendors:
    visibility: private
  vendors/tools:
    visibility: private
projects:
  acme/platform/api:
    shared_with_groups:
      - { group: vendors, group_access: developer }
`);
    // The shares come before the groups in the manifest: each still waits for its group's create.
    expectChanges(await planJson(bench, file), [
      { address: 'group["acme"].share["Vendors/Tools"]', action: "create" },
      { address: 'group["vendors"]', action: "create" },
      { address: 'group["vendors/tools"]', action: "create" },
      { address: 'project["acme/platform/api"].share["vendors"]', action: "create" },
    ]);
    await apply(bench, file);
    await expectNoChanges(bench, file);
    const sharedWith = async (owner: "groups" | "projects", path: string) =>
      (await sharesOf(owner, path)).map((s) => s.group_full_path);
    expect(await sharedWith("groups", "acme")).toEqual(["vendors/tools"]);
    expect(await sharedWith("projects", "acme/platform/api")).toEqual(["vendors"]);
    // Unknown stays unknown: a group neither there nor created by the plan.
    const r = await bench.cli([
      "plan",
      bench.manifest(manifest("groups", "acme", { access: "reporter" }, undefined, "suppliers")),
    ]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain(
      'group["acme"].share["suppliers"].group: group "suppliers" does not exist',
    );
  });
});

describe("a share with a group whose update fails", () => {
  let bench: Bench;
  beforeAll(async () => {
    // Every group update is refused with a 500 (not retried: the outcome of a 500 is not unknown).
    bench = await Bench.start({ fixture, faults: "500:1@PUT/api/v4/groups" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("is made all the same: a share waits for its group's create, not for an update", async () => {
    const file = bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  partners:
    description: Our partners
projects:
  acme/platform/api:
    shared_with_groups:
      - { group: partners, group_access: developer }
`);
    const run = await bench.cli(["apply", "--yes", "--format", "json", file]);
    expect(run.code, run.err).toBe(1);
    const outcomes = (JSON.parse(run.out) as { outcomes: { address: string; status: string }[] }).outcomes;
    expect(outcomes.map((o) => `${o.status} ${o.address}`).sort()).toEqual([
      'done project["acme/platform/api"].share["partners"]',
      'failed group["partners"]',
    ]);
    const shared = await bench.get<{ shared_with_groups: ApiShare[] }>("/projects/acme%2Fplatform%2Fapi");
    expect(shared.shared_with_groups.map((s) => s.group_full_path)).toEqual(["partners"]);
  });
});

describe("a share a pattern and a full-path entry both declare, in two spellings of the group", () => {
  it("is one share, with the fields of the more specific entry", async () => {
    const bench = await Bench.start({ fixture });
    try {
      // A group's path is one in any case: PARTNERS of the pattern is partners of the project's entry.
      const file = bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
projects:
  acme/**:
    shared_with_groups: [{ group: PARTNERS, group_access: guest }]
  acme/platform/api:
    shared_with_groups: [{ group: partners, group_access: reporter }]
`);
      expectChanges(await planJson(bench, file), [
        { address: 'project["acme/platform/api"].share["partners"]', action: "create" },
      ]);
      await apply(bench, file);
      const shared = await bench.get<{ shared_with_groups: ApiShare[] }>("/projects/acme%2Fplatform%2Fapi");
      expect(shared.shared_with_groups.map((s) => [s.group_full_path, s.group_access_level])).toEqual([
        ["partners", 20],
      ]);
      await expectNoChanges(bench, file);
    } finally {
      await bench.stop();
    }
  });
});
