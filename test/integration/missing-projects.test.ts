/**
 * A declared project that does not exist is created, in its group, when it is declared by full path: a typo and a
 * wanted new project look alike, so the plan shows the create and warns when the group holds a project with a
 * close path (a typo in its name); a project in a group that does not exist is a plan error with the closest group,
 * and apply sends nothing at all. Projects whose own fields are not declared cost no request of their own: whether
 * they exist shows on the first read below them (one that declares nothing below it either is read).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { answerJson, startProxy } from "./proxy.js";

const fixture = {
  groups: [{ path: "acme" }, { path: "acme/platform" }],
  projects: [{ path: "acme/platform/api" }, { path: "acme/platform/web" }],
};

const BADGE = '{ name: docs, link_url: "https://d.example/x", image_url: "https://d.example/b.svg" }';

type JsonPlan = PlanV1;

describe("a declared project that does not exist", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("in a group that does not exist is a plan error at its place, with the closest group, and nothing is applied", async () => {
    const file = bench.manifest(
      `version: 1
projects:
  acme/platfrom/api:
    badges:
      - ${BADGE}
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 2 * * *" }
  acme/platform/web:
    badges:
      - ${BADGE}
`,
      "typo-group.yaml",
    );
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code).toBe(1);
    const json = JSON.parse(plan.out) as JsonPlan;
    expect(json.errors.map((e) => [e.address, e.message, e.source?.line, e.source?.col])).toEqual([
      [
        'project["acme/platfrom/api"]',
        'project "acme/platfrom/api" does not exist, and it cannot be created: its group "acme/platfrom" does not exist or is not visible to this token\'s user; did you mean group "acme/platform"? Check the path, or declare the group in the manifests (within the plan\'s --target, when one is given; under --changed-since, a declared group is created only when its entry changed: apply without --changed-since first)',
        3,
        3,
      ],
    ]);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(1);
    expect(apply.out + apply.err).toContain("nothing was applied");
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fweb/badges")).toEqual([]);
  });

  it("in a top-level namespace that is not a group is a plan error that says projects are created in groups", async () => {
    const file = bench.manifest(
      `version: 1
projects:
  jdoe/tools:
    visibility: internal
    badges:
      - ${BADGE}
`,
      "user-namespace.yaml",
    );
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code).toBe(1);
    const json = JSON.parse(plan.out) as JsonPlan;
    expect(json.errors.map((e) => [e.address, e.message])).toEqual([
      [
        'project["jdoe/tools"]',
        'project "jdoe/tools" does not exist, and it cannot be created: its group "jdoe" does not exist or is not visible to this token\'s user (projects are created in groups, not in a user\'s namespace). Check the path, or declare the group in the manifests (within the plan\'s --target, when one is given; under --changed-since, a declared group is created only when its entry changed: apply without --changed-since first)',
      ],
    ]);
  });

  it("whose create the platform refuses as taken says whether the project exists now or is hidden from the token's user", async () => {
    let makeIt = false;
    const proxy = await startProxy(bench.sandbox.url, async (req, res) => {
      if (req.method !== "POST" || !/^\/api\/v4\/projects(\?|$)/.test(req.url ?? "")) return false;
      // Someone makes the project between the plan and the apply (or it is there, hidden from the token's user).
      if (makeIt) {
        const group = await bench.get<{ id: number }>("/groups/acme%2Fplatform");
        await bench.send("POST", "/projects", { path: "taken", namespace_id: group.id });
      }
      return answerJson(res, 400, { message: { path: ["has already been taken"] } });
    });
    try {
      const file = bench.manifest(
        `version: 1
projects:
  acme/platform/taken:
    description: new
`,
        "taken.yaml",
      );
      const hidden = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(hidden.code).toBe(1);
      expect(hidden.out.replace(/\s+/g, " ")).toContain(
        "a project at acme/platform/taken already exists, but this token's user cannot see it (it was not found when planning), or its name is taken in the group: ask an administrator to give the token's user access to it, or choose another path or name (the platform said: ",
      );
      makeIt = true;
      const now = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(now.code).toBe(1);
      expect(now.out.replace(/\s+/g, " ")).toContain(
        "project acme/platform/taken exists now: it was made since the plan was (the platform compares paths in any case). Plan again (the platform said: ",
      );
    } finally {
      await proxy.close();
    }
  });

  it("in two groups: each is compared with its own group's projects", async () => {
    const file = bench.manifest(
      `version: 1
projects:
  acme/platform/ap:
    description: new
  acme/wbe:
    description: new too, next to nothing like it in acme
`,
      "two-groups.yaml",
    );
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    const json = JSON.parse(plan.out) as JsonPlan;
    expect(json.warnings.map((w) => w.address)).toEqual(['project["acme/platform/ap"]']);
  });

  it("next to a project with a close path is planned as a create, with a warning naming that project", async () => {
    const file = bench.manifest(
      `version: 1
projects:
  acme/platform/ap:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 2 * * *" }
  acme/platform/billing:
    badges:
      - ${BADGE}
  acme/platform/web:
    badges:
      - ${BADGE}
`,
      "new.yaml",
    );
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    const json = JSON.parse(plan.out) as JsonPlan;
    expect(json.errors).toEqual([]);
    expect(json.changes.map((c) => [c.address, c.action])).toEqual([
      ['project["acme/platform/ap"]', "create"],
      ['project["acme/platform/ap"].pipeline_schedule["nightly"]', "create"],
      ['project["acme/platform/billing"]', "create"],
      ['project["acme/platform/billing"].badge["docs"]', "create"],
      ['project["acme/platform/web"].badge["docs"]', "create"],
    ]);
    // A one-letter slip from an existing project's name is said; a new name far from any is not.
    expect(json.warnings.map((w) => [w.address, w.message, w.source?.line])).toEqual([
      [
        'project["acme/platform/ap"]',
        'project "acme/platform/ap" does not exist and will be created, next to "acme/platform/api": if the manifest means that project, correct the path',
        3,
      ],
    ]);
    // No project is read on its own (none declares a setting): each collection read tells whether it is there.
    expect(json.requests.by_endpoint["GET /projects/:id"]).toBeUndefined();
    // The group of the two new projects is listed once, for the warning.
    expect(json.requests.by_endpoint["GET /groups/:id/projects"]).toBe(1);

    const text = await bench.cli(["plan", file]);
    expect(text.out).toContain('+ project["acme/platform/billing"] will be created');
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(await bench.get("/projects/acme%2Fplatform%2Fbilling")).toMatchObject({
      name: "billing",
      namespace: { full_path: "acme/platform" },
    });
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fbilling/badges")).toHaveLength(1);
    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code, again.out).toBe(0);
  });
  it("declaring several collections costs one read below it to find it missing (and one each when it exists)", async () => {
    const asked: string[] = [];
    const own = await Bench.start({
      fixture,
      onRequest: (method, path) => {
        if (method === "GET" && path.startsWith("/api/v4/projects/")) asked.push(decodeURIComponent(path));
      },
    });
    try {
      const body = "    labels: []\n    variables: []\n    badges: []\n    milestones: [{ title: m1 }]\n";
      const file = own.manifest(
        `version: 1\nprojects:\n  acme/platform/fresh:\n${body}  acme/platform/api:\n${body}`,
      );
      const plan = await own.cli(["plan", "--format", "json", file]);
      expect(plan.code, plan.err).toBe(0);
      expect((JSON.parse(plan.out) as JsonPlan).changes.map((c) => [c.action, c.address]).sort()).toEqual([
        ["create", 'project["acme/platform/api"].milestone["m1"]'],
        ["create", 'project["acme/platform/fresh"]'],
        ["create", 'project["acme/platform/fresh"].milestone["m1"]'],
      ]);
      const below = (project: string) => asked.filter((p) => p.startsWith(`/api/v4/projects/${project}/`));
      expect(below("acme/platform/fresh")).toHaveLength(1);
      expect(below("acme/platform/api").sort()).toEqual(
        ["badges", "labels", "milestones", "variables"].map((c) => `/api/v4/projects/acme/platform/api/${c}`),
      );
      expect((await own.cli(["apply", "--yes", file])).code).toBe(0);
      expect((await own.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await own.stop();
    }
  });

  it("declared with nothing at all (`{}`) is read, planned as a create and made; one that exists is in sync", async () => {
    const file = bench.manifest(
      "version: 1\nprojects:\n  acme/platform/empty: {}\n  acme/platform/api: {}\n",
      "empty-body.yaml",
    );
    const drift = await bench.cli(["drift", "--format", "json", file]);
    const report = JSON.parse(drift.out) as {
      items: { address: string; status: string }[];
      in_sync: string[];
    };
    expect(report.items.map((c) => [c.address, c.status])).toEqual([
      ['project["acme/platform/empty"]', "missing"],
    ]);
    // Nothing would tell that a project declaring nothing is missing without a read of it: it is not "in sync".
    expect(report.in_sync).toEqual(['project["acme/platform/api"]']);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    const made = await bench.get<{ path_with_namespace: string }>("/projects/acme%2Fplatform%2Fempty");
    expect(made.path_with_namespace).toBe("acme/platform/empty");
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });
});
