// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read the reference syntax convert writes
/**
 * GitLabForm's configuration, section by section, as forgeform manifests: levels to entries with the same
 * precedence, labelled sections to lists with identities, what has no equivalent in the report at its line.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { at, convertText } from "./helpers.js";

const FIXTURE = fileURLToPath(new URL("../fixtures/convert/gitlabform/config.yml", import.meta.url));

const gf = (body: string) => convertText("gitlabform", { "config.yml": `config_version: 4\n${body}` });

describe("GitLabForm's levels", () => {
  it('turn "*" into the patterns of every group and project, group/* into the group, its subgroups and projects below, a project into its own entry', () => {
    const c = gf(`projects_and_groups:
  "*":
    group_settings: { request_access_enabled: false }
    project_settings: { merge_method: ff }
  acme/*:
    group_settings: { description: ACME }
    project_settings: { squash_option: always }
  acme/api:
    project_settings: { description: The API }
`);
    expect(at(c.files["all.yaml"], "groups", "**")).toEqual({ request_access_enabled: false });
    expect(at(c.files["all.yaml"], "projects", "**")).toEqual({ merge_method: "ff" });
    expect(at(c.files["acme.yaml"], "groups")).toEqual({
      acme: { description: "ACME" },
      "acme/**": { description: "ACME" },
    });
    expect(at(c.files["acme.yaml"], "projects")).toEqual({
      "acme/**": { squash_option: "always" },
      "acme/api": { description: "The API" },
    });
    expect(c.items).toEqual([]);
  });

  it("turn skip_groups and skip_projects into except: on the patterns that hold them, and skip their own entries", () => {
    const c = gf(`skip_groups: [acme/old/*, legacy]
skip_projects: [acme/scratch, acme/tmp/*]
projects_and_groups:
  "*":
    project_settings: { merge_method: ff }
  acme/*:
    group_settings: { description: ACME }
    project_settings: { squash_option: always }
  legacy/*:
    group_settings: { description: never }
  acme/scratch:
    project_settings: { description: never }
`);
    expect(at(c.files["all.yaml"], "projects", "**", "except")).toEqual([
      "acme/old",
      "legacy",
      "acme/scratch",
      "acme/tmp/**",
    ]);
    expect(at(c.files["acme.yaml"], "groups", "acme/**", "except")).toEqual(["acme/old"]);
    expect(at(c.files["acme.yaml"], "projects", "acme/**", "except")).toEqual([
      "acme/old",
      "acme/scratch",
      "acme/tmp/**",
    ]);
    expect(c.files["legacy.yaml"]).toBeUndefined();
    expect(at(c.files["acme.yaml"], "projects", "acme/scratch")).toBeUndefined();
    expect(c.of("check").map((i) => [i.at.line, i.message])).toEqual([
      [2, expect.stringContaining("leaves out the group with its subgroups and projects")],
      [10, expect.stringContaining('skip_groups lists "legacy"')],
      [12, expect.stringContaining('skip_projects lists "acme/scratch"')],
    ]);
  });

  it("report a name pattern and an entry that names no group, and take the rest", () => {
    const c = gf(`projects_and_groups:
  acme/api-*:
    project_settings: { merge_method: ff }
  lonely:
    project_settings: { merge_method: ff }
  acme/api:
    project_settings: { merge_method: ff }
`);
    expect(c.of("not-converted").map((i) => [i.at.line, i.source])).toEqual([
      [3, 'projects_and_groups["acme/api-*"]'],
      [5, "projects_and_groups.lonely"],
    ]);
    expect(at(c.files["acme.yaml"], "projects", "acme/api", "merge_method")).toBe("ff");
  });
});

describe("GitLabForm's sections", () => {
  it("variables keyed by labels become a list; a value is never written, enforce is the delete policy, delete: true is state: absent", () => {
    const c = gf(`projects_and_groups:
  acme/api:
    variables:
      token: { key: TOKEN, value: "s3cret-value", masked: true, protected: true }
      prod: { key: REGION, value: eu, environment_scope: production, "filter[environment_scope]": production }
      old: { key: OLD, delete: true }
      enforce: true
`);
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      unmanaged: { variables: "delete" },
      variables: [
        { key: "TOKEN", value: "${env:API_TOKEN}", masked: true, protected: true },
        { key: "REGION", value: "${env:API_REGION_PRODUCTION}", environment_scope: "production" },
        { key: "OLD", state: "absent" },
      ],
    });
    expect(c.of("secret").map((i) => [i.env, i.at.line])).toEqual([
      ["API_TOKEN", 5],
      ["API_REGION_PRODUCTION", 6],
    ]);
    expect(c.texts["acme.yaml"]).not.toContain("s3cret-value");
  });

  it("a label repeated at a more specific level to change one field keeps what its less specific level gives", () => {
    const c = gf(`projects_and_groups:
  "*":
    variables:
      mode: { key: MODE, value: safe }
    schedules:
      nightly: { ref: main, cron: "0 2 * * *" }
  acme/api:
    variables:
      mode: { value: fast }
    schedules:
      nightly: { cron: "0 4 * * *" }
`);
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      variables: [{ key: "MODE", value: "${env:API_MODE}" }],
      pipeline_schedules: [{ description: "nightly", cron: "0 4 * * *", ref: "main" }],
    });
  });

  it("members become members and shared groups, with access levels written by name and spellings reported", () => {
    const c = gf(`projects_and_groups:
  acme/*:
    group_members:
      users:
        alice: { access_level: owner }
        bob: { access_level: 30, expires_at: 2027-12-31 }
      groups:
        auditors: { group_access: Reporter }
        nobody: { group_access: no access }
      enforce: true
      keep_bots: true
  acme/api:
    members:
      users:
        carol: { access_level: planner }
`);
    expect(at(c.files["acme.yaml"], "groups", "acme")).toEqual({
      unmanaged: { members: "delete", shared_with_groups: "delete" },
      members: [
        { user: "alice", access_level: "owner" },
        { user: "bob", access_level: 30, expires_at: "2027-12-31" },
      ],
      shared_with_groups: [{ group: "auditors", group_access: "reporter" }],
    });
    const lines = (type: "check" | "not-converted") => c.of(type).map((i) => i.at.line);
    expect(lines("check")).toEqual([9, 10, 12]);
    expect(c.of("check")[0]!.message).toBe('the access level "Reporter" is written reporter');
    expect(c.of("check")[2]!.message).toMatch(/^keep_bots has no equivalent/);
    expect(lines("not-converted")).toEqual([10, 16]);
    expect(c.of("not-converted")[1]!.message).toMatch(/"planner" is not an access level/);
  });

  it("hooks are keyed by URL: a token and a credential in the URL become references, and the URL is masked in the report", () => {
    const c = gf(`projects_and_groups:
  acme/*:
    hooks:
      "https://chat.example/in?key=k3y-value":
        token: t0ken-value
        push_events: false
      "https://old.example/hook":
        delete: true
`);
    expect(at(c.files["acme.yaml"], "projects", "acme/**", "hooks")).toEqual([
      {
        url: "https://chat.example/in?key=${env:ACME_CHAT_EXAMPLE_URL_KEY}",
        token: "${env:ACME_CHAT_EXAMPLE_TOKEN}",
        push_events: false,
      },
      { url: "https://old.example/hook", state: "absent" },
    ]);
    const report = JSON.stringify(c.items);
    expect(report).not.toContain("k3y-value");
    expect(report).not.toContain("t0ken-value");
    expect(c.of("secret").map((i) => i.source)).toEqual([
      'projects_and_groups["acme/*"].hooks["https://chat.example/in?key=(sensitive)"]',
      'projects_and_groups["acme/*"].hooks["https://chat.example/in?key=(sensitive)"].token',
    ]);
  });

  it("branches and tags: protected: false unprotects, ids of users and groups cannot be converted", () => {
    const c = gf(`projects_and_groups:
  acme/api:
    branches:
      main:
        protected: true
        push_access_level: no access
        merge_access_level: developer
        allowed_to_push:
          - user: alice
          - user_id: 15
          - access_level: maintainer
      develop:
        protected: false
    tags:
      "v*": { protected: true, create_access_level: noone }
      old: { protected: false }
`);
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      protected_branches: [
        {
          name: "main",
          push_access_level: "no_access",
          merge_access_level: "developer",
          allowed_to_push: [{ user: "alice" }, { access_level: "maintainer" }],
        },
        { name: "develop", state: "absent" },
      ],
      protected_tags: [
        { name: "v*", create_access_level: "no_access" },
        { name: "old", state: "absent" },
      ],
    });
    expect(c.of("not-converted").map((i) => [i.at.line, i.message])).toEqual([
      [11, expect.stringContaining("not by id; write it as user: <username>")],
    ]);
  });

  it("schedules: GitLabForm's cron aliases written with H, every H reported; deploy keys, badges, protected environments and archive", () => {
    const c = gf(`projects_and_groups:
  acme/api:
    schedules:
      Weekly:
        ref: main
        cron: "@weekly"
        variables:
          FLAVOUR: { value: full, variable_type: file }
      enforce: true
    deploy_keys:
      ci: { key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJxB6P4fwJ4lFgTQ8kA8WQ7cJ3bzZ1j6Bk9a1hZJnq1H ci", title: CI }
      gone: { title: Old, delete: true }
    badges:
      cov: { name: coverage, link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/c.svg" }
    protected_environments:
      production:
        deploy_access_levels: [{ access_level: maintainer }, { user: alice }]
    project:
      archive: true
`);
    const api = at(c.files["acme.yaml"], "projects", "acme/api") as Record<string, unknown>;
    expect(api["pipeline_schedules"]).toEqual([
      {
        description: "Weekly",
        ref: "main",
        cron: "H H * * H",
        variables: [{ key: "FLAVOUR", value: "${env:WEEKLY_FLAVOUR}", variable_type: "file" }],
      },
    ]);
    expect(api["unmanaged"]).toEqual({ pipeline_schedules: "delete" });
    expect(api["deploy_keys"]).toEqual([
      {
        key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJxB6P4fwJ4lFgTQ8kA8WQ7cJ3bzZ1j6Bk9a1hZJnq1H ci",
        title: "CI",
      },
    ]);
    expect(api["badges"]).toEqual([
      {
        name: "coverage",
        link_url: "https://ci.example/%{project_path}",
        image_url: "https://ci.example/c.svg",
      },
    ]);
    expect(api["protected_environments"]).toEqual([
      { name: "production", deploy_access_levels: [{ access_level: "maintainer" }, { user: "alice" }] },
    ]);
    expect(api["archived"]).toBe(true);
    expect(c.of("check").map((i) => i.at.line)).toEqual([7]);
    expect(c.of("not-converted").map((i) => [i.at.line, i.message])).toEqual([
      [13, expect.stringContaining("forgeform finds deploy keys by their key")],
    ]);
  });

  it("settings pass through by their API names: renamed ones are written by the 13.12 name and reported", () => {
    const c = gf(`projects_and_groups:
  acme/api:
    project_settings:
      emails_enabled: true
      public_builds: false
      topics: [{ keep_existing: true }, a, { b: { delete: true } }, c]
`);
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      emails_disabled: false,
      public_jobs: false,
      topics: ["a", "c"],
    });
    expect(c.of("check").map((i) => i.at.line)).toEqual([5, 6, 7]);
  });

  it("a group setting this version does not know goes under unchecked: (a secret one as a reference), reported", () => {
    const c = convertText(
      "gitlabform",
      {
        "config.yml": `projects_and_groups:
  acme/*:
    group_settings:
      membership_lock: true
      ldap_sync_token: hunter2-value
`,
      },
      { fit: true },
    );
    expect(at(c.files["acme.yaml"], "groups", "acme", "unchecked")).toEqual({
      membership_lock: true,
      ldap_sync_token: "${env:ACME_LDAP_SYNC_TOKEN}",
    });
    expect(c.of("check").map((i) => i.message)).toEqual([
      expect.stringContaining("does not know the setting membership_lock"),
      expect.stringContaining("does not know the setting ldap_sync_token"),
    ]);
    expect(c.texts["acme.yaml"]).not.toContain("hunter2-value");
  });

  it("reports each section it has no equivalent for, inherit: false and skip: true, at their lines", () => {
    const c = gf(`gitlab: { url: "https://g.example", token: glpat-secret-token }
projects_and_groups:
  acme/api:
    files: { README.md: { content: hi } }
    integrations: { slack: {} }
    badges:
      inherit: false
      b: { name: b, link_url: "https://b.example", image_url: "https://b.example/b.svg" }
    deploy_keys:
      skip: true
    group_settings: { description: on a project }
    surprises: {}
`);
    expect(c.of("not-converted").map((i) => [i.at.line, i.source])).toEqual([
      [2, "gitlab"],
      [5, 'projects_and_groups["acme/api"].files'],
      [6, 'projects_and_groups["acme/api"].integrations'],
      [8, 'projects_and_groups["acme/api"].badges.inherit'],
      [11, 'projects_and_groups["acme/api"].deploy_keys.skip'],
      [12, 'projects_and_groups["acme/api"].group_settings'],
      [13, 'projects_and_groups["acme/api"].surprises'],
    ]);
    expect(JSON.stringify(c.items)).not.toContain("glpat-secret-token");
    // The badges are still converted.
    expect(at(c.files["acme.yaml"], "projects", "acme/api", "badges", 0, "name")).toBe("b");
  });
});

describe("the fixture configuration", () => {
  it("converts every section it claims", () => {
    const c = convertText("gitlabform", { [FIXTURE]: readFileSync(FIXTURE, "utf8") });
    expect(Object.keys(c.files).sort()).toEqual(["acme.yaml", "all.yaml", "instance.yaml"]);
    const acme = c.files["acme.yaml"];
    for (const key of ["variables", "badges", "labels", "hooks", "members", "shared_with_groups"])
      expect(at(acme, "groups", "acme", key), key).toBeDefined();
    for (const key of [
      "variables",
      "labels",
      "hooks",
      "deploy_keys",
      "protected_environments",
      "topics",
      "members",
      "shared_with_groups",
      "protected_branches",
      "protected_tags",
    ])
      expect(at(acme, "projects", "acme/**", key), key).toBeDefined();
    expect(at(c.files["instance.yaml"], "instance", "application_settings", "signup_enabled")).toBe(false);
  });
});
