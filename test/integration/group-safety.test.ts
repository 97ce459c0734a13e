/**
 * Group changes a platform engineer can trust: visibility changes ordered the way the platform accepts them, and
 * what blocks them named in the plan; the move guard only where a move is likely; settings of a new group applied
 * right after it is created; an invisible existing group explained in words.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench, USER_TOKEN } from "./helpers.js";
import { answerJson, startProxy } from "./proxy.js";

const fixture = {
  groups: [
    { path: "vis", visibility: "internal" },
    { path: "vis/sub", visibility: "internal" },
    { path: "up", visibility: "private" },
    { path: "up/sub", visibility: "private" },
    { path: "blk", visibility: "internal" },
    { path: "blk/other", visibility: "internal" },
    { path: "data", visibility: "private" },
    { path: "data/ml", visibility: "private" },
    { path: "hidden", visibility: "private" },
  ],
  projects: [
    { path: "blk/app", visibility: "internal" },
    { path: "blk/quiet", visibility: "private" },
    { path: "blk/svc" },
  ],
};

const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");
const summary = (out: string) => out.trim().split("\n").at(-1);

describe("groups a platform engineer can trust", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });
  const visibility = async (path: string) =>
    (await bench.get<{ visibility: string }>(`/groups/${encodeURIComponent(path)}`)).visibility;

  it("lowers a group and its subgroup together: the subgroup first", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  vis: { visibility: private }\n  vis/sub: { visibility: private }\n",
      "vis.yaml",
    );
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect([await visibility("vis"), await visibility("vis/sub")]).toEqual(["private", "private"]);
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
  });

  it("raises a group and its subgroup together: the parent first", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  up: { visibility: internal }\n  up/sub: { visibility: internal }\n",
      "up.yaml",
    );
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect([await visibility("up"), await visibility("up/sub")]).toEqual(["internal", "internal"]);
  });

  it("names the projects and undeclared subgroups that block a lower visibility, before anything is sent", async () => {
    const m = bench.manifest("version: 1\ngroups:\n  blk: { visibility: private }\n", "blk.yaml");
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    const text = prose(plan.out);
    expect(text).toContain("blk.yaml:3:");
    expect(text).toContain(
      'group["blk"].visibility: visibility cannot become private: the platform refuses it while the group holds more visible contents: subgroup blk/other (internal), project blk/app (internal).',
    );
    expect(text).toContain(
      "Lower their visibility first (declare them with the lower visibility to have them lowered first), or keep internal",
    );
    expect(text).not.toContain("blk/quiet");
    // Declaring the subgroup lower too leaves only the project in the way.
    const both = bench.manifest(
      "version: 1\ngroups:\n  blk: { visibility: private }\n  blk/other: { visibility: private }\n",
      "blk2.yaml",
    );
    const text2 = prose((await bench.cli(["plan", both])).out);
    expect(text2).toContain(
      "visibility cannot become private: the platform refuses it while the group holds more visible content: project blk/app (internal).",
    );
    expect(text2).not.toContain("subgroup blk/other");
    expect((await bench.cli(["apply", "--yes", m])).code).toBe(1);
    expect(await visibility("blk")).toBe("internal");
  });

  it("does not take an unrelated group with the same name for a move", async () => {
    const m = bench.manifest("version: 1\ngroups:\n  payments: {}\n  payments/ml: {}\n", "pay.yaml");
    const plan = await bench.cli(["plan", m]);
    expect(plan.code, plan.out).toBe(0);
    expect(summary(plan.out)).toBe("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("still stops a likely move: the old group sits in a managed tree and is no longer declared", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  data: {}\n  payments: {}\n  payments/ml: {}\n",
      "move.yaml",
    );
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    const text = prose(plan.out);
    expect(text).toContain("data/ml (inside data, which the manifests manage) is no longer declared");
    expect(text).toContain("declare data/ml in the manifests too");
  });

  it("applies the settings of a group it creates right after the create (directly or from a template)", async () => {
    const m = bench.manifest(
      `version: 1
templates:
  loud: { notification_settings: { level: watch } }
groups:
  fresh1: { notification_settings: { level: global } }
  fresh2: { extends: [loud] }
`,
      "fresh.yaml",
    );
    const plan = await bench.cli(["plan", m]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain('~ group["fresh2"].notification_settings will be updated in place');
    expect(prose(plan.out)).toContain('applied right after group["fresh2"] is created');
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(await bench.get("/groups/fresh2/notification_settings")).toMatchObject({ level: "watch" });
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
  });

  it("says once, in words, that error tracking must be configured first", async () => {
    const m = bench.manifest(
      "version: 1\nprojects:\n  blk/svc:\n    error_tracking: { active: true }\n",
      "et.yaml",
    );
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    const text = prose(plan.out);
    expect(text.match(/error tracking is not configured/g)).toHaveLength(1);
    expect(text).not.toContain("does not exist");
  });

  it("explains a create refused because the group exists but the token's user cannot see it", async () => {
    const m = bench.manifest("version: 1\ngroups:\n  hidden: { description: mine }\n", "hidden.yaml");
    const plan = await bench.cli(["plan", m], { FORGEFORM_TOKEN: USER_TOKEN });
    expect(plan.out).toContain('+ group["hidden"] will be created');
    const apply = await bench.cli(["apply", "--yes", m], { FORGEFORM_TOKEN: USER_TOKEN });
    expect(apply.code).toBe(1);
    const text = prose(apply.out + apply.err);
    expect(text).toContain(
      "a group at hidden already exists, but this token's user cannot see it (it was not found when planning): it may be private to others, or pending deletion. Ask an administrator to give the token's user access to hidden (or use an administrator token), or choose another path (the platform said: ",
    );
  });

  it("explains a create refused because the group was made since the plan", async () => {
    // Someone makes the group between the plan and the apply: the platform then refuses the create as taken.
    const proxy = await startProxy(bench.sandbox.url, async (req, res) => {
      if (req.method !== "POST" || !/^\/api\/v4\/groups(\?|$)/.test(req.url ?? "")) return false;
      await bench.send("POST", "/groups", { name: "Latecomer", path: "latecomer" });
      return answerJson(res, 400, { message: 'Failed to save group {:path=>["has already been taken"]}' });
    });
    try {
      const m = bench.manifest("version: 1\ngroups:\n  LateComer: { description: mine }\n", "late.yaml");
      const apply = await bench.cli(["apply", "--yes", m], { FORGEFORM_URL: proxy.url });
      expect(apply.code).toBe(1);
      const text = prose(apply.out + apply.err);
      expect(text).toContain(
        "group latecomer exists now: it was made since the plan was (the platform compares paths in any case). Plan again (the platform said: ",
      );
      expect(text).not.toContain("cannot see it");
    } finally {
      await proxy.close();
    }
  });

  it("with an administrator token, a path taken by a user's namespace is said to be one", async () => {
    const m = bench.manifest("version: 1\ngroups:\n  Sandbox-User: { description: mine }\n", "user.yaml");
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code).toBe(1);
    const text = prose(apply.out + apply.err);
    expect(text).toContain(
      "Sandbox-User is the namespace of the user sandbox-user: a top-level group cannot have a user's path (in any case)",
    );
    expect(text).not.toContain("cannot see it");
  });
});
