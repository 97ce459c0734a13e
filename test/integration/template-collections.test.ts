/**
 * Templates hold any group or project key (docs/manifests.md, "Templates and `extends`"): labels, hooks and deploy
 * tokens too, which the template schema once left out ("unknown key"). Over HTTP: a template used by a group and a
 * project applies, then plans nothing; a project-only field in a template used by a group is an error at the
 * template's line; and the template's keys are exactly the group's and project's, but those of an entry alone.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSchemas } from "../../src/manifest/index.js";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [{ path: "acme" }, { path: "tools" }],
  projects: [{ path: "tools/api" }],
  labels: [{ project: "tools/api", name: "stale", color: "#111111" }],
};

const MANIFEST = `version: 1
templates:
  team:
    labels:
      - { name: bug, color: red, description: Something is broken }
    hooks:
      - { url: "https://ci.example.com/hook", pipeline_events: true, push_events: false }
    deploy_tokens:
      - { name: registry pull, scopes: [read_registry], expires_at: 2031-01-01 }
    unmanaged: { labels: delete }
groups:
  acme: { extends: [team] }
projects:
  tools/api: # in another group: a project label may not share a name with a label of a group above
    extends: [team]
    labels: # replaces the template's list
      - { name: bug, color: red, description: Something is broken }
      - { name: needs-review, color: "#1f75cb", priority: 1 }
`;

describe("templates with labels, hooks and deploy tokens", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
    file = join(bench.dir, "acme.yaml");
    writeFileSync(file, MANIFEST);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("a template's collections apply to the group and the project that extend it, then plan nothing", async () => {
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const labels = await bench.send("GET", "/projects/tools%2Fapi/labels");
    const own = (labels as { name: string; priority: number | null; is_project_label: boolean }[])
      .filter((l) => l.is_project_label)
      .map((l) => [l.name, l.priority]);
    // The project's own list replaced the template's; the stale label went by the template's policy.
    expect(own.sort()).toEqual([
      ["bug", null],
      ["needs-review", 1],
    ]);
    const groupHooks = await bench.send("GET", "/groups/acme/hooks");
    expect((groupHooks as { url: string }[]).map((h) => h.url)).toEqual(["https://ci.example.com/hook"]);
    const tokens = await bench.send("GET", "/projects/tools%2Fapi/deploy_tokens");
    expect((tokens as { name: string }[]).map((t) => t.name)).toEqual(["registry pull"]);
    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toContain("No changes");
  });

  it("a project's field in a template a group uses is an error at the template's line", async () => {
    const bad = join(bench.dir, "bad.yaml");
    writeFileSync(
      bad,
      `version: 1
templates:
  team:
    labels:
      - { name: bug, color: red, priority: 1 }
groups:
  acme: { extends: [team] }
`,
    );
    const run = await bench.cli(["validate", bad]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain(
      `${bad}:5:34: groups.acme.labels[0].priority: priority exists only for the labels of projects`,
    );
  });

  it("the template schema takes every key of a group or project but those of an entry alone", () => {
    const { files } = loadSchemas();
    const keys = (name: string) => Object.keys((files[name]!.properties ?? {}) as object);
    const entryOnly = new Set(["state", "except", "include_archived"]);
    const wanted = new Set([...keys("group.schema.json"), ...keys("project.schema.json")]);
    for (const k of entryOnly) wanted.delete(k);
    expect(keys("template.schema.json").sort()).toEqual([...wanted].sort());
  });
});
