/**
 * The safety rules of members, over HTTP: a plan never removes or demotes the token's own user, nor a group's last
 * owner. Asked for explicitly (`state: absent`, a lower level) it is a plan error that says why, before anything is
 * sent; under a `delete` prune policy the member is left alone and the plan says why. Who counts as an owner once
 * the plan is applied: undeclared owners a warn policy keeps and the token's own user, not blocked owners, members
 * of a lower level, or owners a delete policy removes; above a subgroup, the active owners of the groups above.
 * Each case is checked on the platform by an independent read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@example.com" },
    { username: "bob", name: "Bob Example", email: "bob@example.com" },
    { username: "carol", name: "Carol Example", email: "carol@example.com" },
    { username: "dave", name: "Dave Example", email: "dave@example.com" },
    { username: "eve", name: "Eve Example", email: "eve@example.com" },
  ],
  groups: [
    // The token's user (root, an administrator) is a maintainer of team.
    { path: "team", members: { root: "maintainer", alice: "owner" } },
    { path: "solo", members: { alice: "owner", bob: "developer" } },
    { path: "solo/sub", members: { carol: "owner" } },
    // Owners the manifests below do not declare: dave (active), eve (blocked before the tests), root (the token's).
    { path: "duo", members: { alice: "owner", dave: "owner" } },
    { path: "blocked", members: { alice: "owner", eve: "owner", bob: "developer" } },
    { path: "with-root", members: { alice: "owner", root: "owner" } },
    { path: "blocked/sub", members: { carol: "owner" } },
    { path: "lost", members: { eve: "owner" } },
    { path: "lost/sub", members: { carol: "owner" } },
  ],
};

const group = (path: string, members: string, policy?: string) =>
  `version: 1\ninstance:\n  unmanaged: { groups: ignore }\ngroups:\n  ${path}:\n    members:\n${members
    .trim()
    .split("\n")
    .map((m) => `      - ${m.trim()}`)
    .join("\n")}\n${policy ? `    unmanaged: { members: ${policy} }\n` : ""}`;

describe("members: what a plan never does", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const levels = async (path: string) =>
    Object.fromEntries(
      (
        await bench.get<{ username: string; access_level: number }[]>(
          `/groups/${encodeURIComponent(path)}/members`,
        )
      ).map((m) => [m.username, m.access_level]),
    );

  /** Plans `text`: exit 1 with `message` at `address`, and nothing applied when asked to. */
  async function refused(text: string, address: string, message: string): Promise<void> {
    const file = bench.manifest(text);
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code, plan.out + plan.err).toBe(1);
    const errors = (JSON.parse(plan.out) as { errors: { address: string; message: string }[] }).errors;
    expect(errors).toContainEqual(expect.objectContaining({ address, message }));
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code).toBe(1);
  }

  it("never removes the token's own user", async () => {
    await refused(
      group("team", "{ user: alice, access_level: owner }\n{ user: root, state: absent }"),
      'group["team"].member["root"]',
      "root is the token's own user: forgeform never removes it (the token could lose the access this plan and the next need); change it on the platform by hand, or plan with another user's token",
    );
    expect(await levels("team")).toEqual({ root: 40, alice: 50 });
  });

  it("never demotes the token's own user, but promotes it", async () => {
    await refused(
      group("team", "{ user: alice, access_level: owner }\n{ user: root, access_level: developer }"),
      'group["team"].member["root"].access_level',
      "root is the token's own user: forgeform never demotes it (the token could lose the access this plan and the next need); change it on the platform by hand, or plan with another user's token",
    );
    expect(await levels("team")).toEqual({ root: 40, alice: 50 });
    await apply(
      bench,
      bench.manifest(
        group("team", "{ user: alice, access_level: owner }\n{ user: root, access_level: owner }"),
      ),
    );
    expect(await levels("team")).toEqual({ root: 50, alice: 50 });
  });

  it("leaves the token's own user alone under a delete policy, and says why", async () => {
    const file = bench.manifest(group("team", "{ user: alice, access_level: owner }", "delete"));
    const plan = await planJson(bench, file);
    expectChanges(plan, [{ address: 'group["team"].member["root"]', action: "unmanaged" }]);
    expect(plan.changes[0]?.reason).toBe(
      "not in the manifests, and left alone although the members prune policy is delete: root is the token's own user: forgeform never removes it (the token could lose the access this plan and the next need); change it on the platform by hand, or plan with another user's token",
    );
    await apply(bench, file);
    expect(await levels("team")).toEqual({ root: 50, alice: 50 });
  });

  it("never removes a group's last owner", async () => {
    await refused(
      group("solo", "{ user: alice, state: absent }\n{ user: bob, access_level: developer }"),
      'group["solo"].member["alice"]',
      "alice is the last owner of solo once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
    );
    expect(await levels("solo")).toEqual({ alice: 50, bob: 30 });
  });

  it("never demotes a group's last owner", async () => {
    await refused(
      group("solo", "{ user: alice, access_level: maintainer }\n{ user: bob, access_level: developer }"),
      'group["solo"].member["alice"].access_level',
      "alice is the last owner of solo once the plan is applied, and the platform refuses to demote a group's last owner: declare another owner (access_level: owner) first",
    );
    expect(await levels("solo")).toEqual({ alice: 50, bob: 30 });
  });

  it("leaves the last owner alone under a delete policy, and says why", async () => {
    const file = bench.manifest(group("solo", "{ user: bob, access_level: developer }", "delete"));
    const plan = await planJson(bench, file);
    expectChanges(plan, [{ address: 'group["solo"].member["alice"]', action: "unmanaged" }]);
    expect(plan.changes[0]?.reason).toMatch(
      /left alone although the members prune policy is delete: alice is the last owner of solo/,
    );
    await apply(bench, file);
    expect(await levels("solo")).toEqual({ alice: 50, bob: 30 });
  });

  it("removes a former owner once another owner is declared, promoting first", async () => {
    const file = bench.manifest(
      group("solo", "{ user: alice, state: absent }\n{ user: bob, access_level: owner }"),
    );
    const plan = await planJson(bench, file);
    expectChanges(plan, [
      { address: 'group["solo"].member["alice"]', action: "delete" },
      { address: 'group["solo"].member["bob"]', action: "update" },
    ]);
    await apply(bench, file);
    expect(await levels("solo")).toEqual({ bob: 50 });
  });

  it("counts the owners of the groups above a subgroup, as the platform does", async () => {
    // carol is solo/sub's only direct owner, and bob owns solo above it: carol may go.
    const file = bench.manifest(group("solo/sub", "{ user: carol, state: absent }"));
    expectChanges(await planJson(bench, file), [
      { address: 'group["solo/sub"].member["carol"]', action: "delete" },
    ]);
    await apply(bench, file);
    expect(await levels("solo/sub")).toEqual({});
  });

  describe("who counts as an owner once the plan is applied", () => {
    beforeAll(async () => {
      const [eve] = await bench.get<{ id: number }[]>("/users?username=eve");
      await bench.send("POST", `/users/${eve!.id}/block`);
    });

    it("an owner the manifests leave alone (prune policy warn): the other owner may go", async () => {
      const file = bench.manifest(group("duo", "{ user: alice, state: absent }"));
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expectChanges(plan, [
        { address: 'group["duo"].member["alice"]', action: "delete" },
        { address: 'group["duo"].member["dave"]', action: "unmanaged" },
      ]);
    });

    it("not an owner the delete policy removes: then neither may go, and the plan says why", async () => {
      await refused(
        group("duo", "{ user: alice, state: absent }", "delete"),
        'group["duo"].member["alice"]',
        "alice is the last owner of duo once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
      expect(await levels("duo")).toEqual({ alice: 50, dave: 50 });
    });

    it("not a blocked owner, nor a member of a lower level", async () => {
      await refused(
        group("blocked", "{ user: alice, state: absent }"),
        'group["blocked"].member["alice"]',
        "alice is the last owner of blocked once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
      expect(await levels("blocked")).toEqual({ alice: 50, eve: 50, bob: 30 });
    });

    it("not a blocked owner declared as owner, nor a blocked owner of the group above a subgroup", async () => {
      await refused(
        group("blocked", "{ user: alice, state: absent }\n{ user: eve, access_level: owner }"),
        'group["blocked"].member["alice"]',
        "alice is the last owner of blocked once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
      // carol is the only direct owner of both subgroups: above blocked/sub, alice (who stays) counts; above
      // lost/sub, only eve, who is blocked.
      const file = bench.manifest(group("blocked/sub", "{ user: carol, state: absent }"));
      expectChanges(await planJson(bench, file), [
        { address: 'group["blocked/sub"].member["carol"]', action: "delete" },
      ]);
      await refused(
        group("lost/sub", "{ user: carol, state: absent }"),
        'group["lost/sub"].member["carol"]',
        "carol is the last owner of lost/sub once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
    });

    it("a blocked owner may go while an active owner stays, not when it is the group's only owner", async () => {
      const file = bench.manifest(
        group("blocked", "{ user: eve, state: absent }\n{ user: alice, access_level: owner }"),
      );
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expectChanges(plan, [
        { address: 'group["blocked"].member["eve"]', action: "delete" },
        { address: 'group["blocked"].member["bob"]', action: "unmanaged" },
      ]);
      // With no active owner, the platform keeps its only blocked owner.
      await refused(
        group("lost", "{ user: eve, state: absent }"),
        'group["lost"].member["eve"]',
        "eve is the last owner of lost once the plan is applied (blocked, with no active owner in it or above it), and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
      expect(await levels("lost")).toEqual({ eve: 50 });
    });

    it("not two owners who both go or both step down: neither may, whatever the case they are written in", async () => {
      await refused(
        group("duo", "{ user: Alice, state: absent }\n{ user: dave, state: absent }"),
        'group["duo"].member["Alice"]',
        "alice is the last owner of duo once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
      await refused(
        group("duo", "{ user: alice, access_level: developer }\n{ user: Dave, access_level: developer }"),
        'group["duo"].member["alice"].access_level',
        "alice is the last owner of duo once the plan is applied, and the platform refuses to demote a group's last owner: declare another owner (access_level: owner) first",
      );
      expect(await levels("duo")).toEqual({ alice: 50, dave: 50 });
    });

    it("not a member of a lower level in the group above a subgroup", async () => {
      // lost has no active owner (eve is blocked); a developer there does not count either.
      const [bob] = await bench.get<{ id: number }[]>("/users?username=bob");
      const lost = await bench.get<{ id: number }>("/groups/lost");
      await bench.send("POST", `/groups/${lost.id}/members`, { user_id: bob!.id, access_level: 30 });
      await refused(
        group("lost/sub", "{ user: carol, state: absent }"),
        'group["lost/sub"].member["carol"]',
        "carol is the last owner of lost/sub once the plan is applied, and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first",
      );
    });

    it("the token's own user, which no policy removes: the other owner may go under delete", async () => {
      const file = bench.manifest(group("with-root", "{ user: alice, state: absent }", "delete"));
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expect(plan.changes.find((c) => c.address === 'group["with-root"].member["alice"]')?.action).toBe(
        "delete",
      );
      await apply(bench, file);
      expect(await levels("with-root")).toEqual({ root: 50 });
    });
  });
});
