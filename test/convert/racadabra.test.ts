// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read the reference syntax convert writes
/**
 * gitlabracadabra's action files as forgeform manifests: objects by type, hidden objects as templates, extends
 * with its strategies, include, unknown_* policies, and what has no equivalent in the report.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { at, convertText } from "./helpers.js";

const rc = (text: string, more: Record<string, string> = {}) =>
  convertText("gitlabracadabra", { "a.yml": text, ...more }, { first: "a.yml" });

describe("gitlabracadabra's objects", () => {
  it("are groups (a key ending in / or type: group), projects, the instance's settings; users are not converted", () => {
    const c = rc(`acme/:
  create_object: true
  description: ACME
acme/sub:
  type: group
  create_object: true
acme/api:
  create_object: true
  description: The API
settings:
  type: application-settings
  signup_enabled: false
bob:
  type: user
  name: Bob
`);
    expect(c.files["a.yaml"]).toEqual({
      version: 1,
      instance: { application_settings: { signup_enabled: false } },
      groups: { acme: { description: "ACME" }, "acme/sub": {} },
      projects: { "acme/api": { description: "The API" } },
    });
    expect(c.of("not-converted").map((i) => [i.at.line, i.message])).toEqual([
      [13, "forgeform does not manage users"],
    ]);
  });

  it("reports an object without create_object: true (gitlabracadabra leaves it alone when missing, forgeform creates it)", () => {
    const c = rc("acme/api:\n  description: x\n");
    expect(c.of("check").map((i) => [i.at.line, i.message])).toEqual([
      [1, expect.stringContaining("create_object is not true")],
    ]);
  });

  it("maps members, groups, protected branches and tags to lists with levels by name, unknown_* to prune policies", () => {
    const c = rc(`acme/api:
  create_object: true
  members: { alice: maintainer, bob: developer }
  unknown_members: remove
  groups: { auditors: reporter }
  unknown_groups: skip
  protected_branches:
    main: { push_access_level: noone, merge_access_level: maintainer }
  unknown_protected_branches: delete
  protected_tags: { "v*": developer }
  unknown_protected_tags: ignore
`);
    expect(at(c.files["a.yaml"], "projects", "acme/api")).toEqual({
      members: [
        { user: "alice", access_level: "maintainer" },
        { user: "bob", access_level: "developer" },
      ],
      unmanaged: {
        members: "delete",
        shared_with_groups: "ignore",
        protected_branches: "delete",
        protected_tags: "ignore",
      },
      shared_with_groups: [{ group: "auditors", group_access: "reporter" }],
      protected_branches: [
        { name: "main", push_access_level: "no_access", merge_access_level: "maintainer" },
      ],
      protected_tags: [{ name: "v*", create_access_level: "developer" }],
    });
    expect(c.of("check").map((i) => i.message)).toEqual(['the access level "noone" is written no_access']);
  });

  it("keeps variables' and hooks' secrets out of the files, and schedules' variables with their policy", () => {
    const c = rc(`acme/api:
  create_object: true
  variables:
    - { key: TOKEN, value: v4lue-secret, masked: true }
  webhooks:
    - { url: "https://h.example/x?token=qu3ry", token: t0ken-secret, push_events: true }
  unknown_webhooks: delete
  pipeline_schedules:
    - description: Build
      ref: main
      cron: "0 1 * * 5"
      variables: [{ key: MODE, value: fast }]
  unknown_pipeline_schedule_variables: delete
`);
    const api = at(c.files["a.yaml"], "projects", "acme/api");
    expect(api).toEqual({
      variables: [{ key: "TOKEN", value: "${env:API_TOKEN}", masked: true }],
      hooks: [
        {
          url: "https://h.example/x?token=${env:API_H_EXAMPLE_URL_TOKEN}",
          token: "${env:API_H_EXAMPLE_TOKEN}",
          push_events: true,
        },
      ],
      unmanaged: { hooks: "delete" },
      pipeline_schedules: [
        {
          description: "Build",
          ref: "main",
          cron: "0 1 * * 5",
          variables: [{ key: "MODE", value: "${env:API_BUILD_MODE}" }],
          unmanaged: { variables: "delete" },
        },
      ],
    });
    for (const secret of ["v4lue-secret", "qu3ry", "t0ken-secret", "fast"])
      expect(c.texts["a.yaml"] + JSON.stringify(c.items)).not.toContain(secret);
  });

  it("turns deprecated switches and older names into the settings that replaced them, reported", () => {
    const c = rc(`acme/api:
  create_object: true
  issues_enabled: false
  tag_list: [a]
  public_builds: true
`);
    expect(at(c.files["a.yaml"], "projects", "acme/api")).toEqual({
      issues_access_level: "disabled",
      topics: ["a"],
      public_jobs: true,
    });
    expect(c.of("check").map((i) => i.at.line)).toEqual([3, 4, 5]);
  });

  it("reports what forgeform does not manage, and a label that only sets a group label's priority", () => {
    const c = rc(`acme/api:
  create_object: true
  mirrors: [{ url: "https://x.example/r.git" }]
  boards: []
  branches: [main]
  labels:
    - { name: bug, color: red }
    - { name: group-label, priority: 1 }
`);
    expect(c.of("not-converted").map((i) => i.at.line)).toEqual([3, 4, 5, 8]);
    expect(at(c.files["a.yaml"], "projects", "acme/api", "labels")).toEqual([{ name: "bug", color: "red" }]);
  });
});

describe("gitlabracadabra's extends and include", () => {
  it("hidden objects become templates, extends stays extends where both tools merge alike", () => {
    const c = rc(`.base:
  create_object: true
  visibility: private
  merge_method: ff
acme/api:
  extends: .base
  description: The API
`);
    expect(c.files["a.yaml"]).toEqual({
      version: 1,
      templates: { base: { visibility: "private", merge_method: "ff" } },
      projects: { "acme/api": { extends: ["base"], description: "The API" } },
    });
  });

  it("writes what gitlabracadabra's merge gives where forgeform's would differ: maps of members, the aggregate strategy", () => {
    const c = rc(`.team:
  create_object: true
  members: { alice: maintainer }
  variables: [{ key: A, value: "1" }]
acme/api:
  extends: .team
  members: { bob: developer }
acme/web:
  extends: [{ .team: aggregate }]
  variables: [{ key: B, value: "2" }]
`);
    // gitlabracadabra merges the members maps (deep): forgeform's lists would replace, so the body says both.
    expect(at(c.files["a.yaml"], "projects", "acme/api", "members")).toEqual([
      { user: "bob", access_level: "developer" },
      { user: "alice", access_level: "maintainer" },
    ]);
    // aggregate: the template's list, then the object's; one value of the source is one variable wherever it goes.
    expect(at(c.files["a.yaml"], "projects", "acme/web", "variables")).toEqual([
      { key: "A", value: "${env:TEAM_A}" },
      { key: "B", value: "${env:WEB_B}" },
    ]);
  });

  it("keeps replace's meaning: the object's own keys replace the template's whole", () => {
    const c = rc(`.base:
  create_object: true
  visibility: private
  members: { alice: maintainer }
acme/api:
  extends: [{ .base: replace }]
  members: { bob: developer }
`);
    expect(at(c.files["a.yaml"], "projects", "acme/api")).toEqual({
      extends: ["base"],
      members: [{ user: "bob", access_level: "developer" }],
    });
    expect(at(c.files["a.yaml"], "templates", "base", "visibility")).toBe("private");
  });

  it("reports a merge strategy gitlabracadabra does not have, and a template that is not there", () => {
    const c = rc(`.base:
  create_object: true
acme/api:
  extends: [{ .base: shallow }, .missing]
  create_object: true
`);
    expect(c.of("not-converted").map((i) => [i.at.line, i.message])).toEqual([
      [4, '"shallow" is not a merge strategy'],
      [4, ".missing is not an object of the action files: not applied"],
    ]);
  });

  it("writes out in full an object that extends a declared object, and reports it", () => {
    const c = rc(`acme/api:
  create_object: true
  description: The API
  merge_method: ff
acme/api2:
  extends: acme/api
  description: Another
`);
    expect(at(c.files["a.yaml"], "projects", "acme/api2")).toEqual({
      description: "Another",
      merge_method: "ff",
    });
    expect(c.of("check").map((i) => i.message)).toContainEqual(
      expect.stringContaining("written out in full"),
    );
  });

  it("writes an included file to a file of its own; an object declared in both merges into the including file's entry", () => {
    const c = rc("include: [b.yml]\nacme/:\n  create_object: true\n  description: from a\n", {
      "b.yml":
        "acme/:\n  create_object: true\n  visibility: internal\n  description: from b\nother/:\n  create_object: true\n",
    });
    expect(at(c.files["a.yaml"], "groups")).toEqual({
      acme: { description: "from a", visibility: "internal" },
    });
    expect(at(c.files["b.yaml"], "groups")).toEqual({ other: {} });
    expect(c.of("check").map((i) => [i.at.file, i.at.line])).toEqual([["b.yml", 1]]);
  });

  it("refuses an include that leaves the directory, as gitlabracadabra does", () => {
    const c = rc("include: [../x.yml, {local: /etc/passwd}]\n");
    expect(c.of("not-converted").map((i) => i.message)).toEqual([
      expect.stringContaining("refuses a path with .."),
      expect.stringContaining("refuses a path with .."),
    ]);
  });
});

describe("the fixture action files", () => {
  it("convert every key they claim", () => {
    const dir = fileURLToPath(new URL("../fixtures/convert/gitlabracadabra/", import.meta.url));
    const c = convertText(
      "gitlabracadabra",
      {
        [`${dir}main.yml`]: readFileSync(`${dir}main.yml`, "utf8"),
        [`${dir}shared.yml`]: readFileSync(`${dir}shared.yml`, "utf8"),
      },
      { first: `${dir}main.yml` },
    );
    expect(Object.keys(c.files).sort()).toEqual(["main.yaml", "shared.yaml"]);
    const api = at(c.files["main.yaml"], "projects", "conv/api") as Record<string, unknown>;
    expect(api["extends"]).toEqual(["service"]);
    // The template's labels stay in the template (templates hold any project key), as the source wrote them.
    const service = at(c.files["main.yaml"], "templates", "service") as Record<string, unknown>;
    expect(service["labels"]).toEqual([{ name: "bug", color: "#d9534f", description: "Something is wrong" }]);
    const own = { ...service, ...api };
    for (const key of [
      "members",
      "shared_with_groups",
      "protected_branches",
      "protected_tags",
      "variables",
      "hooks",
      "milestones",
      "pipeline_schedules",
      "labels",
    ])
      expect(own[key], key).toBeDefined();
    expect(at(c.files["main.yaml"], "instance", "application_settings")).toBeDefined();
  });
});
