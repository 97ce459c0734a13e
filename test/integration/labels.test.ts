/**
 * Group and project labels over HTTP: the lifecycle field by field, colours compared as the platform stores them
 * (a CSS name as upper-case hex, hex kept as written), names compared case-sensitively, and a group's labels
 * read-only in its projects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, FIXTURE, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";

interface Label {
  color: string;
  description: string;
  priority?: number | null;
}

function manifest(owner: "groups" | "projects", path: string, l: Label | undefined, policy?: string): string {
  const fields = l
    ? `      - name: Needs review\n        color: "${l.color}"\n        description: ${l.description}\n${
        l.priority !== undefined ? `        priority: ${l.priority}\n` : ""
      }`
    : "";
  return `version: 1
instance:
  unmanaged:
    groups: ignore
${owner}:
  ${path}:
    labels:${l ? "" : " []"}
${fields}${policy ? `    unmanaged:\n      labels: ${policy}\n` : ""}`;
}

const API = "/projects/acme%2Fplatform%2Fapi/labels";

describe("labels", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("project labels go through the whole lifecycle, field by field", async () => {
    const base: Label = { color: "#1f75cb", description: "Waiting for a reviewer", priority: 3 };
    await lifecycle({
      bench,
      address: 'project["acme/platform/api"].label["Needs review"]',
      render: (v, policy) => manifest("projects", "acme/platform/api", v, policy),
      base,
      edits: [
        { values: { ...base, color: "#D9534F" }, fields: ["color"] },
        { values: { ...base, color: "#D9534F", description: "Two reviewers" }, fields: ["description"] },
        { values: { color: "#D9534F", description: "Two reviewers", priority: 0 }, fields: ["priority"] },
        // null removes the priority.
        { values: { color: "#D9534F", description: "Two reviewers", priority: null }, fields: ["priority"] },
      ],
      without: (policy) => manifest("projects", "acme/platform/api", undefined, policy),
      read: async () =>
        (await bench.get<Record<string, unknown>[]>(API)).filter(
          (l) => l["name"] === "Needs review" && l["is_project_label"] === true,
        ),
      expected: (v) => ({ color: v.color, description: v.description, priority: v.priority ?? null }),
    });
  });

  it("group labels go through the whole lifecycle", async () => {
    const base: Label = { color: "#428bca", description: "Waiting for a reviewer" };
    await lifecycle({
      bench,
      address: 'group["acme/platform"].label["Needs review"]',
      render: (v, policy) => manifest("groups", "acme/platform", v, policy),
      base,
      edits: [
        { values: { ...base, color: "#5cb85c" }, fields: ["color"] },
        { values: { color: "#5cb85c", description: "Any reviewer" }, fields: ["description"] },
      ],
      without: (policy) => manifest("groups", "acme/platform", undefined, policy),
      read: async () =>
        (
          await bench.get<Record<string, unknown>[]>(
            "/groups/acme%2Fplatform/labels?include_ancestor_groups=false",
          )
        ).filter((l) => l["name"] === "Needs review"),
      expected: (v) => ({ color: v.color, description: v.description }),
    });
  });

  it("compares a colour as the platform stores it: a CSS name as its hex, hex in any case or length", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    labels:
      - { name: red one, color: red }
      - { name: Red one, color: "#FFF" }
      - { name: short, color: "#abc" }
`);
    expectChanges(await planJson(bench, file), [
      { address: 'project["acme/platform/api"].label["red one"]', action: "create" },
      // Another label: names are compared case-sensitively, as the platform does.
      { address: 'project["acme/platform/api"].label["Red one"]', action: "create" },
      { address: 'project["acme/platform/api"].label["short"]', action: "create" },
    ]);
    await apply(bench, file);
    const live = await bench.get<{ name: string; color: string }[]>(API);
    expect(live.filter((l) => ["red one", "Red one", "short"].includes(l.name))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: "red one", color: "#FF0000" }),
        expect.objectContaining({ name: "Red one", color: "#FFF" }),
        expect.objectContaining({ name: "short", color: "#abc" }),
      ]),
    );
    await expectNoChanges(bench, file);
    // The same colours written otherwise are the same colours: nothing to change.
    const respelled = bench.manifest(`version: 1
projects:
  acme/platform/api:
    labels:
      - { name: red one, color: "#ff0000" }
      - { name: Red one, color: white }
      - { name: short, color: "#AABBCC" }
`);
    await expectNoChanges(bench, respelled);
    // A different colour is a change, shown as written on each side.
    const changed = bench.manifest(`version: 1
projects:
  acme/platform/api:
    labels:
      - { name: red one, color: maroon }
`);
    const plan = await planJson(bench, changed);
    expect(plan.changes.filter((c) => c.action !== "unmanaged")).toEqual([
      expect.objectContaining({
        address: 'project["acme/platform/api"].label["red one"]',
        action: "update",
        fields: [expect.objectContaining({ field: "color", before: "#FF0000", after: "maroon" })],
      }),
    ]);
  });

  it("never changes or deletes a group's label through a project", async () => {
    await apply(
      bench,
      bench.manifest(manifest("groups", "acme", { color: "#ff0000", description: "Broken" })),
    );
    const listed = await bench.get<{ name: string; is_project_label: boolean }[]>(API);
    expect(listed.some((l) => l.name === "Needs review" && !l.is_project_label)).toBe(true);
    // A delete policy in the project leaves the group's label alone (it is not even reported there).
    const prune = bench.manifest(manifest("projects", "acme/platform/api", undefined, "delete"));
    const plan = await planJson(bench, prune);
    expect(plan.changes.filter((c) => c.address.includes('label["Needs review"]'))).toEqual([]);
    await apply(bench, prune);
    const groupLabels = await bench.get<{ name: string }[]>("/groups/acme/labels");
    expect(groupLabels.map((l) => l.name)).toContain("Needs review");
    // Declaring the group's label in the project is an error that says where it is managed.
    const clash = bench.manifest(
      manifest("projects", "acme/platform/api", { color: "#000000", description: "Mine" }),
    );
    const r = await bench.cli(["plan", clash]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain(
      "a group label the project shows; manage it in its group's manifest",
    );
    const after = await bench.get<{ name: string; color: string }[]>("/groups/acme/labels");
    expect(after.find((l) => l.name === "Needs review")?.color).toBe("#ff0000");
  });

  /** Applies a label of the top-level group acme, its other labels left as they are. */
  const groupLabel = (name: string, color: string) =>
    apply(
      bench,
      bench.manifest(
        `version: 1\ngroups:\n  acme:\n    labels:\n      - { name: ${name}, color: "${color}" }\n`,
      ),
    );

  it("never changes or deletes a label of a group above through a subgroup", async () => {
    await groupLabel("From above", "#00ff00");
    // The platform lists the labels of the groups above with a group's own unless asked not to.
    const listed = await bench.get<{ name: string }[]>("/groups/acme%2Fplatform/labels");
    expect(listed.map((l) => l.name)).toContain("From above");
    const prune = bench.manifest(manifest("groups", "acme/platform", undefined, "delete"));
    const plan = await planJson(bench, prune);
    expect(plan.changes.filter((c) => c.address.includes("From above"))).toEqual([]);
    await apply(bench, prune);
    const above = await bench.get<{ name: string }[]>("/groups/acme/labels");
    expect(above.map((l) => l.name)).toContain("From above");
  });

  it("a subgroup's new label whose name a group above has already: a plan error at the label, nothing sent", async () => {
    await groupLabel("Upstairs", "#00ff00");
    const file = bench.manifest(
      `version: 1\ngroups:\n  acme/platform:\n    labels:\n      - { name: Upstairs, color: "#111111" }\n      - { name: Downstairs, color: "#222222" }\n`,
    );
    const run = await bench.cli(["plan", file]);
    expect(run.code, run.out + run.err).toBe(1);
    expect((run.out + run.err).replace(/\s+/g, " ")).toContain(
      'a group above acme/platform has a label "Upstairs" already, and the platform refuses a second one of that name below it',
    );
    const refused = await bench.cli(["apply", "--yes", file]);
    expect(refused.code).toBe(1);
    const own = await bench.get<{ name: string }[]>(
      "/groups/acme%2Fplatform/labels?include_ancestor_groups=false",
    );
    expect(own.map((l) => l.name)).not.toContain("Downstairs");
  });

  it("a new project's or new subgroup's label whose name a group above has: a plan error, one read for each nearest existing group", async () => {
    const asked: string[] = [];
    const own = await Bench.start({
      fixture: FIXTURE,
      onRequest: (method, path) => {
        if (method === "GET" && /^\/api\/v4\/groups\/.*\/labels$/.test(path))
          asked.push(decodeURIComponent(path));
      },
    });
    try {
      await own.send("POST", "/groups/acme/labels", { name: "Attic", color: "#00ff00" });
      // A project and a subgroup this plan creates, and a project in a subgroup it creates too: the nearest group
      // that exists above each is acme/platform, which sees acme's label.
      const file = own.manifest(`version: 1
groups:
  acme/platform/new-team:
    labels:
      - { name: Attic, color: "#111111" }
      - { name: Cellar, color: "#222222" }
projects:
  acme/platform/new-api:
    labels: [{ name: Attic, color: "#333333" }]
  acme/platform/new-team/new-web:
    labels: [{ name: Attic, color: "#444444" }, { name: Porch, color: "#555555" }]
`);
      asked.length = 0;
      const run = await own.cli(["plan", file]);
      expect(run.code, run.out + run.err).toBe(1);
      const text = (run.out + run.err).replace(/\s+/g, " ");
      for (const parent of [
        "acme/platform/new-team",
        "acme/platform/new-api",
        "acme/platform/new-team/new-web",
      ])
        expect(text).toContain(
          `a group above ${parent} has a label "Attic" already, and the platform refuses a second one of that name below it`,
        );
      for (const name of ["Cellar", "Porch"]) expect(text).not.toContain(`label "${name}" already`);
      // acme/platform asked once for the labels it sees, acme/platform/new-team (not found) once.
      expect(asked.sort()).toEqual([
        "/api/v4/groups/acme/platform/labels",
        "/api/v4/groups/acme/platform/new-team/labels",
      ]);
      const refused = await own.cli(["apply", "--yes", file]);
      expect(refused.code).toBe(1);
      await expect(own.get("/groups/acme%2Fplatform%2Fnew-team")).rejects.toThrow(/404/);
    } finally {
      await own.stop();
    }
  });

  it("manages a project's own label where a group above has one of the same name", async () => {
    const own = (color: string) =>
      bench.manifest(`version: 1
projects:
  acme/platform/api:
    labels:
      - { name: Twin, color: "${color}" }
`);
    await apply(bench, own("#111111"));
    await groupLabel("Twin", "#222222");
    expectChanges(await planJson(bench, own("#333333")), [
      { address: 'project["acme/platform/api"].label["Twin"]', action: "update", fields: ["color"] },
    ]);
    await apply(bench, own("#333333"));
    const listed = await bench.get<{ name: string; color: string; is_project_label: boolean }[]>(API);
    expect(
      listed
        .filter((l) => l.name === "Twin")
        .map((l) => [l.is_project_label, l.color])
        .sort(),
    ).toEqual([
      [false, "#222222"],
      [true, "#333333"],
    ]);
  });

  it("a name declared in a group and in a project and a subgroup below it, all new: made in each, then no change", async () => {
    // A sandbox of its own: nothing the other cases left behind.
    const own = await Bench.start({ fixture: FIXTURE });
    try {
      await madeInEach(own);
    } finally {
      await own.stop();
    }
  });

  async function madeInEach(bench: Bench): Promise<void> {
    const file = bench.manifest(`version: 1
instance:
  unmanaged:
    groups: ignore
groups:
  acme:
    labels:
      - { name: Everywhere, color: "#111111" }
  acme/platform:
    labels:
      - { name: Everywhere, color: "#222222" }
projects:
  acme/platform/api:
    labels:
      - { name: Everywhere, color: "#333333" }
`);
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const own = async (path: string) =>
      (await bench.get<{ name: string; color: string; is_project_label?: boolean }[]>(path))
        .filter((l) => l.name === "Everywhere" && l.is_project_label !== false)
        .map((l) => l.color);
    expect(await own(API)).toEqual(["#333333"]);
    expect(await own("/groups/acme%2Fplatform/labels?include_ancestor_groups=false")).toEqual(["#222222"]);
    expect(await own("/groups/acme/labels?include_ancestor_groups=false")).toEqual(["#111111"]);
    await expectNoChanges(bench, file);
  }

  it("refuses what the platform would refuse or rewrite, at validate, with the place", async () => {
    const file = bench.manifest(
      `version: 1
groups:
  acme:
    labels:
      - { name: "a, b", color: red }
      - { name: fine, color: "#12345", priority: 1 }
projects:
  acme/platform/api:
    labels:
      - { name: " padded", color: rebeccapurple }
      - { name: empty, color: red, description: "" }
      - { name: tagged, color: red, description: "see <b>this</b>" }
`,
      "invalid.yaml",
    );
    const r = await bench.cli(["validate", file]);
    expect(r.code).toBe(1);
    const text = (r.out + r.err).replace(/\s+/g, " ");
    expect(text).toContain(
      'invalid.yaml:5:17: groups.acme.labels[0].name: "a, b" must not contain a comma, an HTML tag, or blanks at either end',
    );
    expect(text).toContain('groups.acme.labels[1].color: "#12345" is not a colour');
    expect(text).toContain("groups.acme.labels[1].priority: priority exists only for the labels of projects");
    expect(text).toContain('projects["acme/platform/api"].labels[0].name: " padded" must not contain');
    // rebeccapurple is CSS 4: the platform's list (13.12) does not have it.
    expect(text).toContain('projects["acme/platform/api"].labels[0].color: "rebeccapurple" is not a colour');
    expect(text).toContain('projects["acme/platform/api"].labels[1].description: must not be empty');
    expect(text).toContain(
      'projects["acme/platform/api"].labels[2].description: "see <b>this</b>" must not hold an HTML tag',
    );
  });
});
