/**
 * Group and project members over HTTP: the lifecycle of each, access levels by name or number, usernames in any
 * case, what the platform refuses said at plan time (a user it does not know, Minimal Access on a subgroup, an
 * expiry in the past, a level below an inherited one), inherited members never unmanaged, blocked users named.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";
import { answerJson, startProxy } from "./proxy.js";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@example.com" },
    { username: "bob", name: "Bob Example", email: "bob@example.com" },
    { username: "carol", name: "Carol Example", email: "carol@example.com" },
    { username: "release-bot", name: "Release Bot", email: "release-bot@example.com" },
  ],
  groups: [
    { path: "acme", name: "Acme", visibility: "private", members: { alice: "owner" } },
    { path: "acme/platform", name: "Platform", visibility: "private", members: { carol: "maintainer" } },
  ],
  projects: [{ path: "acme/platform/api", visibility: "private", default_branch: "main" }],
};

interface Values {
  level: string | number;
  expires?: string;
}

type ApiMember = {
  username: string;
  access_level: number;
  expires_at: string | null;
  state: string;
};

/** The members of `owner` with alice declared as she is (acme's owner), and bob as `v` says. */
function manifest(
  owner: "groups" | "projects",
  path: string,
  v: Values | undefined,
  policy?: string,
): string {
  const keep = owner === "groups" ? "\n      - { user: alice, access_level: owner }" : "";
  const bob = v
    ? `\n      - user: bob\n        access_level: ${v.level}${v.expires ? `\n        expires_at: "${v.expires}"` : ""}`
    : "";
  const members = keep + bob;
  return `version: 1
instance:
  unmanaged: { groups: ignore }
${owner}:
  ${path}:
    members:${members === "" ? " []" : members}
${policy ? `    unmanaged: { members: ${policy} }\n` : ""}`;
}

const LEVELS: Record<string, number> = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 };

describe("members", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const membersOf = (path: string) =>
    bench.get<ApiMember[]>(
      `/${path.includes("/api") ? "projects" : "groups"}/${encodeURIComponent(path)}/members`,
    );

  const cycle = (owner: "groups" | "projects", path: string, segment: string) =>
    lifecycle<Values>({
      bench,
      address: `${segment}["${path}"].member["bob"]`,
      render: (v, policy) => manifest(owner, path, v, policy),
      base: { level: "developer" },
      edits: [
        { values: { level: 40 }, fields: ["access_level"] },
        { values: { level: "maintainer", expires: "2031-06-30" }, fields: ["expires_at"] },
        { values: { level: "reporter", expires: "2031-07-31" }, fields: ["access_level", "expires_at"] },
        // Left out, the expiry is removed: the membership never ends.
        { values: { level: "reporter" }, fields: ["expires_at"] },
      ],
      without: (policy) => manifest(owner, path, undefined, policy),
      read: async () => (await membersOf(path)).filter((m) => m.username === "bob"),
      expected: (v) => ({
        access_level: typeof v.level === "number" ? v.level : LEVELS[v.level],
        expires_at: v.expires ?? null,
      }),
    });

  it("group members go through the whole lifecycle, field by field", async () => {
    await cycle("groups", "acme", "group");
  });

  it("project members go through the whole lifecycle, field by field", async () => {
    await cycle("projects", "acme/platform/api", "project");
  });

  it("shows levels by name whichever way they are written, and matches usernames in any case", async () => {
    const m = bench.manifest(manifest("groups", "acme", { level: 20 }).replace("user: bob", "user: Bob"));
    const plan = await planJson(bench, m);
    expectChanges(plan, [{ address: 'group["acme"].member["Bob"]', action: "create" }]);
    expect(plan.changes[0]?.fields).toEqual([
      { field: "user", after: "Bob" },
      { field: "access_level", after: "reporter" },
    ]);
    await apply(bench, m);
    await expectNoChanges(bench, m);
    await expectNoChanges(bench, bench.manifest(manifest("groups", "acme", { level: "reporter" })));
    const change = await planJson(bench, bench.manifest(manifest("groups", "acme", { level: 30 })));
    expect(change.changes[0]?.fields).toEqual([
      { field: "access_level", before: "reporter", after: "developer" },
    ]);
    await apply(bench, bench.manifest(manifest("groups", "acme", undefined, "delete")));
  });

  it("never lists inherited members as unmanaged, and says when a declared one has inherited access", async () => {
    // carol is a maintainer of acme/platform, alice the owner of acme: both have access to the project.
    const none = bench.manifest(manifest("projects", "acme/platform/api", undefined));
    expectChanges(await planJson(bench, none), []);
    const declared = bench.manifest(
      manifest("projects", "acme/platform/api", undefined).replace(
        "members: []",
        "members:\n      - { user: carol, access_level: maintainer }",
      ),
    );
    const plan = await planJson(bench, declared);
    expectChanges(plan, [{ address: 'project["acme/platform/api"].member["carol"]', action: "create" }]);
    expect(plan.changes[0]?.reason).toBe(
      "carol already has maintainer access inherited from the project's group: this adds a direct membership",
    );
  });

  it("warns that a member marked absent whose access is inherited keeps it", async () => {
    const plan = await bench.cli([
      "plan",
      "--format",
      "json",
      bench.manifest(
        "version: 1\nprojects:\n  acme/platform/api:\n    members:\n      - { user: carol, state: absent }\n      - { user: release-bot, state: absent }\n    badges:\n      - { name: never-made, state: absent }\n",
      ),
    ]);
    expect(plan.code, plan.err).toBe(0);
    const json = JSON.parse(plan.out) as {
      changes: unknown[];
      warnings: { address: string; message: string }[];
    };
    expect(json.changes).toEqual([]);
    // Only carol's: a member or a badge marked absent that is not there at all is simply done.
    expect(json.warnings.map((w) => ({ address: w.address, message: w.message }))).toEqual([
      {
        address: 'project["acme/platform/api"].member["carol"]',
        message:
          "carol is not a direct member of acme/platform/api: its maintainer access is inherited from the project's group, which state: absent here does not remove; remove the membership there",
      },
    ]);
  });

  it("refuses at plan time a member below the level inherited from a group above", async () => {
    // alice owns acme: a direct membership of acme/platform below owner is refused by the platform.
    const m = bench.manifest(
      "version: 1\ngroups:\n  acme/platform:\n    members:\n      - { user: carol, access_level: maintainer }\n      - { user: alice, access_level: developer }\n",
    );
    const r = await bench.cli(["plan", m]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain(
      'forgeform.yaml:6:38: group["acme/platform"].member["alice"].access_level: alice is owner (50) inherited from a group above, and the platform refuses a direct membership below that: declare owner or higher, or leave the user out here',
    );
    // The same for a project: carol is a maintainer of its group.
    const project = await bench.cli([
      "plan",
      bench.manifest(
        "version: 1\nprojects:\n  acme/platform/api:\n    members:\n      - { user: carol, access_level: developer }\n",
      ),
    ]);
    expect(project.code).toBe(1);
    expect(project.out.replace(/\s+/g, " ")).toContain(
      'project["acme/platform/api"].member["carol"].access_level: carol is maintainer (40) inherited from the project\'s group, and the platform refuses a direct membership below that',
    );
    const ok = bench.manifest(
      "version: 1\ngroups:\n  acme/platform:\n    members:\n      - { user: carol, access_level: maintainer }\n      - { user: alice, access_level: owner }\n",
    );
    const plan = await planJson(bench, ok);
    expect(plan.changes[0]?.reason).toBe(
      "alice already has owner access inherited from a group above: this adds a direct membership",
    );
  });

  it("names the closest username for one the platform does not know, at its place in the manifest", async () => {
    const r = await bench.cli([
      "plan",
      bench.manifest(
        manifest("groups", "acme", { level: "developer" }).replace("user: bob", "user: relase-bot"),
      ),
    ]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain(
      'forgeform.yaml:8:15: group["acme"].member["relase-bot"].user: user "relase-bot" does not exist (or is not visible to this token\'s user): did you mean "release-bot"?',
    );
  });

  it("refuses Minimal Access on a subgroup and an expiry in the past, each at its field", async () => {
    const sub = bench.manifest(
      "version: 1\ngroups:\n  acme/platform:\n    members:\n      - { user: carol, access_level: maintainer }\n      - { user: bob, access_level: minimal_access }\n",
    );
    const r = await bench.cli(["plan", sub]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain(
      'group["acme/platform"].member["bob"].access_level: minimal_access (5) exists only for top-level groups of the licensed edition, and acme/platform is a subgroup: choose guest or higher',
    );
    const past = await bench.cli([
      "plan",
      bench.manifest(manifest("groups", "acme", { level: "developer", expires: "2001-01-01" })),
    ]);
    expect(past.code).toBe(1);
    expect(past.out.replace(/\s+/g, " ")).toContain(
      'group["acme"].member["bob"].expires_at: 2001-01-01 is in the past: the platform refuses a membership that has already ended',
    );
    // On a top-level group of the licensed edition, Minimal Access is a level like any other.
    const top = bench.manifest(manifest("groups", "acme", { level: "minimal_access" }));
    await apply(bench, top);
    expect((await membersOf("acme")).find((x) => x.username === "bob")?.access_level).toBe(5);
    await expectNoChanges(bench, top);
    await apply(bench, bench.manifest(manifest("groups", "acme", undefined, "delete")));
  });

  it("names a blocked user as such in every change it is in", async () => {
    const [bot] = await bench.get<{ id: number }[]>("/users?username=release-bot");
    await bench.send("POST", `/users/${bot!.id}/block`);
    const declared = (level: string) =>
      bench.manifest(
        manifest("groups", "acme", { level: "developer" })
          .replace("user: bob", "user: release-bot")
          .replace("developer", level),
      );
    const create = await planJson(bench, declared("developer"));
    expect(create.changes[0]?.reason).toBe(
      "release-bot is blocked: the membership gives no access while the user stays blocked",
    );
    await apply(bench, declared("developer"));
    const update = await planJson(bench, declared("reporter"));
    expect(update.changes[0]?.action).toBe("update");
    expect(update.changes[0]?.reason).toBe(
      "release-bot is blocked: the membership gives no access while the user stays blocked",
    );
    const unmanaged = await planJson(bench, bench.manifest(manifest("groups", "acme", undefined)));
    expect(unmanaged.changes[0]?.reason).toMatch(/; release-bot is blocked: the membership gives no access/);
    await apply(bench, bench.manifest(manifest("groups", "acme", undefined, "delete")));
  });
});

describe("the creator of a group the plan creates, declared as a member", () => {
  /** A manifest that creates the group `name` (other groups left alone) with the one member given. */
  const newGroup = (bench: Bench, name: string, member: string) =>
    bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  ${name}:
    visibility: private
    members:
      - ${member}
`);

  it("is its owner already: the member's create finds it there, and nothing more is sent", async () => {
    const requests: string[] = [];
    const bench = await Bench.start({
      fixture: { users: fixture.users },
      onRequest: (method: string, path: string) => void requests.push(`${method} ${path.split("?")[0]}`),
    });
    try {
      const withRoot = (name: string) => newGroup(bench, name, "{ user: root, access_level: owner }");
      const writes = () => requests.filter((r) => !r.startsWith("GET ") && r.includes("/members"));
      // As the platform has it: the creator (the token's user, root) is the new group's owner, with no expiry.
      await apply(bench, withRoot("fresh"));
      // (The group is addressed by the id its create returned.)
      expect(writes()).toEqual([expect.stringMatching(/^POST \/api\/v4\/groups\/\d+\/members$/)]);
      await expectNoChanges(bench, withRoot("fresh"));
    } finally {
      await bench.stop();
    }
  });

  it("declared with an expiry: refused as the new group's last owner; below an owner, created, found there and updated", async () => {
    const requests: string[] = [];
    const bench = await Bench.start({
      fixture: { users: fixture.users, groups: [fixture.groups[0]!] },
      onRequest: (method: string, path: string) => void requests.push(`${method} ${path.split("?")[0]}`),
    });
    try {
      const withRoot = (name: string) =>
        newGroup(bench, name, '{ user: root, access_level: owner, expires_at: "2099-12-31" }');
      // A new top-level group: root, its creator, is its only owner, whose membership the platform never changes.
      const refused = await bench.cli(["plan", withRoot("fresh")]);
      expect(refused.code).toBe(1);
      expect(refused.out.replace(/\s+/g, " ")).toContain(
        'group["fresh"].member["root"].expires_at: root is the token\'s own user, which the platform makes the owner of fresh when this plan creates it, with no expiry; root is the last owner of fresh once the plan is applied, and the platform refuses to change a group\'s last owner: declare another owner (access_level: owner) first, or leave expires_at out',
      );
      expect((await bench.cli(["apply", "--yes", withRoot("fresh")])).code).toBe(1);
      await expect(bench.get("/groups/fresh")).rejects.toThrow(/-> 404/);
      // Below acme, whose owner is alice: root's membership can change.
      requests.length = 0;
      await apply(bench, withRoot("acme/fresh"));
      const writes = requests.filter((r) => !r.startsWith("GET ") && r.includes("/members"));
      expect(writes).toEqual([
        expect.stringMatching(/^POST \/api\/v4\/groups\/\d+\/members$/),
        expect.stringMatching(/^PUT \/api\/v4\/groups\/\d+\/members\/\d+$/),
      ]);
      const members = await bench.get<
        { username: string; access_level: number; expires_at: string | null }[]
      >("/groups/acme%2Ffresh/members");
      expect(members.find((m) => m.username === "root")).toMatchObject({
        access_level: 50,
        expires_at: "2099-12-31",
      });
      await expectNoChanges(bench, withRoot("acme/fresh"));
    } finally {
      await bench.stop();
    }
  });

  it("declared below owner, is refused at plan time, top-level group or subgroup: its create would demote the token's user", async () => {
    const bench = await Bench.start({ fixture: { users: fixture.users, groups: [fixture.groups[0]!] } });
    try {
      for (const [name, level] of [
        ["fresh", "developer"],
        ["acme/fresh", "maintainer"],
      ] as const) {
        const file = newGroup(bench, name, `{ user: root, access_level: ${level} }`);
        const plan = await bench.cli(["plan", file]);
        expect(plan.code).toBe(1);
        expect(plan.out.replace(/\s+/g, " ")).toContain(
          `group["${name}"].member["root"].access_level: root is the token's own user, which the platform makes the owner of ${name} when this plan creates it, and forgeform never demotes the token's user`,
        );
        // Nothing is applied: not the group either.
        expect((await bench.cli(["apply", "--yes", file])).code).toBe(1);
        await expect(bench.get(`/groups/${encodeURIComponent(name)}`)).rejects.toThrow(/-> 404/);
      }
      // Another user declared below owner in a new group is created as declared.
      await apply(bench, newGroup(bench, "fresh", "{ user: bob, access_level: developer }"));
    } finally {
      await bench.stop();
    }
  });
});

describe("a member's create the platform refuses", () => {
  it("fails with the platform's answer to the POST, and nothing is read in its place", async () => {
    const bench = await Bench.start({ fixture });
    const seen: string[] = [];
    const proxy = await startProxy(bench.sandbox.url, (req, res) => {
      const path = (req.url ?? "").replace(/\?.*$/, "");
      if (/\/members\/\d+$/.test(path)) seen.push(`${req.method} ${path}`);
      if (req.method !== "POST" || !path.endsWith("/members")) return false;
      return answerJson(res, 422, { message: "refused by a policy" });
    });
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    members:
      - { user: bob, access_level: developer }
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code).toBe(1);
      const said = (r.out + r.err).replace(/\s+/g, " ");
      expect(said).toContain("POST /projects/");
      expect(said).toContain("-> 422");
      expect(said).toContain("refused by a policy");
      // Not taken for a member already there (409), which is then read and updated.
      expect(seen).toEqual([]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("members on the core edition", () => {
  it("refuses Minimal Access on a top-level group too, saying it is the edition", async () => {
    const bench = await Bench.start({ fixture, edition: "core" });
    try {
      const r = await bench.cli([
        "plan",
        bench.manifest(manifest("groups", "acme", { level: "minimal_access" })),
      ]);
      expect(r.code).toBe(1);
      expect(r.out.replace(/\s+/g, " ")).toContain(
        'group["acme"].member["bob"].access_level: minimal_access (5) exists only for top-level groups of the licensed edition, and acme is on the core edition: choose guest or higher',
      );
    } finally {
      await bench.stop();
    }
  });
});

describe("a membership's end date", () => {
  /** The plan's errors and its changes but the subgroup the manifest does not declare. */
  const planned = async (bench: Bench, path: string) => {
    const plan = await planJson(bench, path);
    return {
      errors: plan.errors,
      changes: plan.changes.filter((c) => c.action !== "unmanaged").map((c) => [c.address, c.action]),
    };
  };
  const file = (bench: Bench, expires: string) =>
    bench.manifest(`version: 1
groups:
  acme:
    members:
      - { user: alice, access_level: owner }
      - { user: bob, access_level: developer, expires_at: "${expires}" }
`);

  it("may be today: only a day already gone is refused", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const today = new Date().toISOString().slice(0, 10);
      expect(await planned(bench, file(bench, today))).toEqual({
        errors: [],
        changes: [['group["acme"].member["bob"]', "create"]],
      });
    } finally {
      await bench.stop();
    }
  });

  it("that has passed on the platform already, and is declared as it is, is no error and no change", async () => {
    // The platform's clock says 2020: it took an end date in 2020 that has passed for forgeform's.
    const bench = await Bench.start({ fixture, clock: () => new Date("2020-01-01T12:00:00Z") });
    try {
      const [bob] = await bench.get<{ id: number }[]>("/users?username=bob");
      await bench.send("POST", "/groups/acme/members", {
        user_id: bob!.id,
        access_level: 30,
        expires_at: "2020-06-01",
      });
      expect(await planned(bench, file(bench, "2020-06-01"))).toEqual({ errors: [], changes: [] });
      const moved = await bench.cli(["plan", file(bench, "2020-05-01")]);
      expect(moved.code).toBe(1);
      expect(moved.out.replace(/\s+/g, " ")).toContain(
        "2020-05-01 is in the past: the platform refuses a membership that has already ended (remove the member with state: absent instead)",
      );
    } finally {
      await bench.stop();
    }
  });
});

describe("what a member's create says", () => {
  it("nothing for an active user new to the group; that a blocked user is blocked and what it has already", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const [carol] = await bench.get<{ id: number }[]>("/users?username=carol");
      await bench.send("POST", `/users/${carol!.id}/block`);
      const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    members:
      - { user: bob, access_level: developer }
      - { user: carol, access_level: maintainer }
groups:
  acme/platform:
    members:
      - { user: alice, state: absent }
`);
      const plan = await planJson(bench, file);
      const reasons = Object.fromEntries(
        plan.changes.filter((c) => c.action === "create").map((c) => [c.address, c.reason]),
      );
      expect(reasons).toEqual({
        'project["acme/platform/api"].member["bob"]': undefined,
        'project["acme/platform/api"].member["carol"]':
          "carol is blocked: the membership gives no access while the user stays blocked; carol already has maintainer access inherited from the project's group: this adds a direct membership",
      });
      // The token's own user below owner in a group that exists already is a member like any other.
      const mine = bench.manifest(
        "version: 1\ngroups:\n  acme/platform:\n    members:\n      - { user: root, access_level: developer }\n",
        "root.yaml",
      );
      const rootPlan = await planJson(bench, mine);
      expect(rootPlan.errors).toEqual([]);
      expect(rootPlan.changes.filter((c) => c.action === "create").map((c) => c.address)).toEqual([
        'group["acme/platform"].member["root"]',
      ]);
      // A member of a subgroup marked absent whose access comes from the group above: nothing to remove here.
      const warnings = (
        JSON.parse((await bench.cli(["plan", "--format", "json", file])).out) as {
          warnings: { address: string; message: string }[];
        }
      ).warnings;
      expect(warnings).toContainEqual(
        expect.objectContaining({
          address: 'group["acme/platform"].member["alice"]',
          message:
            "alice is not a direct member of acme/platform: its owner access is inherited from a group above, which state: absent here does not remove; remove the membership there",
        }),
      );
    } finally {
      await bench.stop();
    }
  });
});

describe("a member someone else added between the plan and the apply", () => {
  it("is given the declared expiry when it lacks it, and left alone when it has it", async () => {
    const bench = await Bench.start({ fixture });
    const writes: string[] = [];
    let addedExpiry: string | null = null;
    const [bob] = await bench.get<{ id: number }[]>("/users?username=bob");
    const platform = await bench.get<{ id: number }>("/groups/acme%2Fplatform");
    const proxy = await startProxy(bench.sandbox.url, async (req) => {
      const path = (req.url ?? "").replace(/\?.*$/, "");
      if (req.method !== "GET") writes.push(`${req.method} ${path.replace(/^\/api\/v4/, "")}`);
      if (req.method === "POST" && path.endsWith("/members"))
        await bench.send("POST", `/groups/${platform.id}/members`, {
          user_id: bob!.id,
          access_level: 30,
          ...(addedExpiry ? { expires_at: addedExpiry } : {}),
        });
      return false;
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme/platform:
    members:
      - { user: bob, access_level: developer, expires_at: "2030-01-01" }
`);
      const env = { FORGEFORM_URL: proxy.url };
      const members = () => bench.get<ApiMember[]>("/groups/acme%2Fplatform/members");
      // Added without an expiry: the create finds it there (409), reads it and sets the expiry.
      const first = await bench.cli(["apply", "--yes", file], env);
      expect(first.code, first.out + first.err).toBe(0);
      expect((await members()).find((m) => m.username === "bob")).toMatchObject({
        access_level: 30,
        expires_at: "2030-01-01",
      });
      expect(writes.filter((w) => w.startsWith("PUT"))).toHaveLength(1);
      // Added with that very expiry: found as declared, nothing more sent.
      await bench.send("DELETE", `/groups/${platform.id}/members/${bob!.id}`);
      writes.length = 0;
      addedExpiry = "2030-01-01";
      const second = await bench.cli(["apply", "--yes", file], env);
      expect(second.code, second.out + second.err).toBe(0);
      expect(writes).toEqual([`POST /groups/${platform.id}/members`]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("a group member removed", () => {
  it("keeps the user's direct memberships of the subgroups and projects below: the plan removes only what it shows", async () => {
    const bench = await Bench.start({
      fixture: {
        ...fixture,
        groups: [
          { path: "acme", members: { alice: "owner", bob: "developer" } },
          { path: "acme/platform", members: { bob: "maintainer" } },
        ],
        projects: [{ path: "acme/platform/api", members: { bob: "maintainer" } }],
      },
    });
    try {
      // The platform removes a group member's memberships below too, unless asked not to (skip_subresources).
      const file = bench.manifest(`version: 1
groups:
  acme:
    members: [{ user: alice, access_level: owner }]
    unmanaged: { members: delete }
  acme/platform:
    members: [{ user: bob, access_level: maintainer }]
`);
      expectChanges(await planJson(bench, file), [
        { address: 'group["acme"].member["bob"]', action: "delete" },
      ]);
      await apply(bench, file);
      const direct = async (path: string) =>
        (await bench.get<ApiMember[]>(`${path}/members`)).map((m) => [m.username, m.access_level]);
      expect(await direct("/groups/acme")).toEqual([["alice", 50]]);
      expect(await direct("/groups/acme%2Fplatform")).toEqual([["bob", 40]]);
      expect(await direct("/projects/acme%2Fplatform%2Fapi")).toEqual([["bob", 40]]);
      await expectNoChanges(bench, file);
    } finally {
      await bench.stop();
    }
  });
});
