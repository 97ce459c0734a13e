// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read the reference syntax convert writes
/**
 * A Terraform state of the platform's provider as forgeform manifests: resources grouped by owner, ids named
 * from the state, computed and default values left out, secrets as references, what has no equivalent reported.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { at, convertText } from "./helpers.js";

const P = "registry.terraform.io/gitlabhq/gitlab";

/** A `terraform show -json` of these resources (`[type, name, values, sensitive?, mode?]`). */
function show(
  resources: [string, string, Record<string, unknown>, Record<string, unknown>?, string?][],
): string {
  return JSON.stringify({
    format_version: "1.0",
    values: {
      root_module: {
        resources: resources.map(([type, name, values, sensitive, mode]) => ({
          address: `${mode === "data" ? "data." : ""}${type}.${name}`,
          mode: mode ?? "managed",
          type,
          name,
          provider_name: P,
          values,
          sensitive_values: sensitive ?? {},
        })),
      },
    },
  });
}

const tf = (text: string) => convertText("terraform", { "state.json": text });

describe("a Terraform state", () => {
  it("groups resources by owner, naming owners and users given by id from the state's resources and data sources", () => {
    const c = tf(
      show([
        ["gitlab_group", "acme", { id: "11", full_path: "acme", name: "acme", path: "acme" }],
        ["gitlab_project", "api", { id: "21", path_with_namespace: "acme/api", name: "api" }, {}, "data"],
        ["gitlab_user", "alice", { id: "2", username: "alice" }, {}, "data"],
        ["gitlab_project_label", "bug", { project: "21", name: "bug", color: "red", label_id: 3 }],
        ["gitlab_project_label", "docs", { project: "acme/api", name: "docs", color: "blue" }],
        ["gitlab_group_label", "p", { group: "11", name: "p1", color: "green" }],
        ["gitlab_project_membership", "alice", { project: "21", user_id: 2, access_level: "maintainer" }],
        ["gitlab_group_membership", "ghost", { group_id: 11, user_id: 99, access_level: "guest" }],
        [
          "gitlab_project_badge",
          "b",
          { project: "404", name: "b", link_url: "https://b", image_url: "https://b" },
        ],
      ]),
    );
    expect(c.files["acme.yaml"]).toEqual({
      version: 1,
      groups: { acme: { labels: [{ name: "p1", color: "green" }] } },
      projects: {
        "acme/api": {
          labels: [
            { name: "bug", color: "red" },
            { name: "docs", color: "blue" },
          ],
          members: [{ user: "alice", access_level: "maintainer" }],
        },
      },
    });
    expect(c.of("not-converted").map((i) => [i.source, i.message])).toEqual([
      [
        "gitlab_group_membership.ghost.user_id",
        expect.stringContaining("the user with id 99 is not in the state"),
      ],
      [
        "gitlab_project_badge.b.project",
        expect.stringContaining("the project with id 404 is not in the state"),
      ],
    ]);
  });

  it("leaves out what is computed, empty or the platform's default, and writes what differs by the platform's names", () => {
    const c = tf(
      show([
        [
          "gitlab_project",
          "api",
          {
            id: "21",
            path_with_namespace: "acme/api",
            name: "api",
            web_url: "https://x/acme/api",
            visibility_level: "internal",
            merge_method: "merge",
            squash_option: "always",
            emails_enabled: false,
            request_access_enabled: true,
            archived: false,
            topics: [],
            description: "",
            build_timeout: 3600,
            ci_default_git_depth: 20,
            archive_on_destroy: true,
            runners_token: "GR13-secret",
          },
          { runners_token: true },
        ],
      ]),
    );
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      visibility: "internal",
      squash_option: "always",
      emails_disabled: true,
      ci_default_git_depth: 20,
    });
    // visibility_level is the provider's word for visibility; emails_enabled is turned around: a person checks it.
    expect(c.of("check").map((i) => i.source)).toEqual(["gitlab_project.api.emails_enabled"]);
    expect(c.texts["acme.yaml"]).not.toContain("GR13-secret");
  });

  it("makes every variable value and token a reference, named after the item; the state's other tokens are reported, never written", () => {
    const c = tf(
      show([
        [
          "gitlab_project_variable",
          "region",
          {
            project: "acme/api",
            key: "REGION",
            value: "eu-1-value",
            environment_scope: "production",
            masked: false,
          },
        ],
        ["gitlab_instance_variable", "m", { key: "MIRROR", value: "mirror-value", protected: false }],
        [
          "gitlab_project_hook",
          "ci",
          {
            project: "acme/api",
            url: "https://ci.example/h?key=kk-value",
            token: "tok-value",
            push_events: true,
          },
          { token: true },
        ],
        [
          "gitlab_project_deploy_token",
          "r",
          {
            project: "acme/api",
            name: "registry",
            scopes: ["read_registry"],
            token: "gldt-value",
            expires_at: "",
          },
          { token: true },
        ],
        [
          "gitlab_pipeline_trigger",
          "t",
          { project: "acme/api", description: "deploy", token: "glptt-value" },
          { token: true },
        ],
      ]),
    );
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      variables: [{ key: "REGION", value: "${env:API_REGION_PRODUCTION}", environment_scope: "production" }],
      hooks: [
        {
          url: "https://ci.example/h?key=${env:API_CI_EXAMPLE_URL_KEY}",
          token: "${env:API_CI_EXAMPLE_TOKEN}",
        },
      ],
      deploy_tokens: [{ name: "registry", scopes: ["read_registry"] }],
      triggers: [{ description: "deploy" }],
    });
    expect(at(c.files["instance.yaml"], "instance", "variables")).toEqual([
      { key: "MIRROR", value: "${env:MIRROR}" },
    ]);
    const all = Object.values(c.texts).join("") + JSON.stringify(c.items);
    for (const secret of ["eu-1-value", "mirror-value", "kk-value", "tok-value", "gldt-value", "glptt-value"])
      expect(all).not.toContain(secret);
    expect(c.of("check").map((i) => i.source)).toEqual([
      "gitlab_project_deploy_token.r.token",
      "gitlab_pipeline_trigger.t.token",
    ]);
  });

  it("makes a part of a hook's URL that looks random a reference too (a Slack hook's path), the rest as it is", () => {
    const SLACK = "vKtqA7yPw3kT0JH2XeLqYz9B";
    const c = tf(
      show([
        [
          "gitlab_project_hook",
          "chat",
          {
            project: "acme/api",
            url: `https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${SLACK}`,
            push_events: true,
          },
        ],
      ]),
    );
    const hooks = at(c.files["acme.yaml"], "projects", "acme/api", "hooks") as { url: string }[];
    expect(hooks.map((h) => h.url)).toEqual([
      expect.stringMatching(
        /^https:\/\/hooks\.slack\.com\/services\/T0123ABCD\/B0456EFGH\/\$\{env:[A-Z0-9_]+\}$/,
      ),
    ]);
    expect(Object.values(c.texts).join("") + JSON.stringify(c.items)).not.toContain(SLACK);
  });

  it("joins a schedule's variables to their schedule by id, names branches and users in protections, and reports the rest", () => {
    const c = tf(
      show([
        ["gitlab_user", "alice", { id: "2", username: "alice" }, {}, "data"],
        [
          "gitlab_pipeline_schedule",
          "n",
          {
            project: "acme/api",
            description: "Nightly",
            ref: "refs/heads/main",
            cron: "0 2 * * *",
            pipeline_schedule_id: 7,
            owner: 1,
          },
        ],
        [
          "gitlab_pipeline_schedule_variable",
          "v",
          { project: "acme/api", pipeline_schedule_id: 7, key: "A", value: "a-value" },
        ],
        [
          "gitlab_pipeline_schedule_variable",
          "lost",
          { project: "acme/api", pipeline_schedule_id: 8, key: "B", value: "b" },
        ],
        [
          "gitlab_branch_protection",
          "main",
          {
            project: "acme/api",
            branch: "main",
            push_access_level: "no one",
            merge_access_level: "maintainer",
            allowed_to_push: [{ user_id: 2, group_id: 0, access_level: "", deploy_key_id: 0 }],
            allowed_to_merge: [],
          },
        ],
        ["gitlab_tag_protection", "v", { project: "acme/api", tag: "v*", create_access_level: "developer" }],
        ["gitlab_project_integration_slack", "s", { project: "acme/api", webhook: "https://slack" }],
      ]),
    );
    const api = at(c.files["acme.yaml"], "projects", "acme/api") as Record<string, unknown>;
    expect(api["pipeline_schedules"]).toEqual([
      {
        description: "Nightly",
        ref: "main",
        cron: "0 2 * * *",
        variables: [{ key: "A", value: "${env:API_NIGHTLY_A}" }],
      },
    ]);
    expect(api["protected_branches"]).toEqual([
      {
        name: "main",
        push_access_level: "no_access",
        merge_access_level: "maintainer",
        allowed_to_push: [{ user: "alice" }],
      },
    ]);
    expect(api["protected_tags"]).toEqual([{ name: "v*", create_access_level: "developer" }]);
    expect(c.of("not-converted").map((i) => i.source)).toEqual([
      "gitlab_pipeline_schedule_variable.lost",
      "gitlab_project_integration_slack.s",
    ]);
  });

  it("reads a state file of format 4 too, and says the settings of gitlab_application_settings it does not manage in one item", () => {
    const state = {
      version: 4,
      resources: [
        {
          mode: "managed",
          type: "gitlab_application_settings",
          name: "this",
          provider: `provider["${P}"]`,
          instances: [
            {
              attributes: {
                id: "1",
                signup_enabled: false,
                gravatar_enabled: true,
                duo_features_enabled: false,
              },
            },
          ],
        },
        {
          mode: "managed",
          type: "gitlab_group_badge",
          name: "b",
          instances: [
            {
              index_key: "x",
              attributes: { group: "acme", name: "x", link_url: "https://x", image_url: "https://x" },
            },
          ],
        },
      ],
    };
    const c = tf(JSON.stringify(state));
    expect(at(c.files["instance.yaml"], "instance", "application_settings")).toEqual({
      signup_enabled: false,
    });
    expect(at(c.files["acme.yaml"], "groups", "acme", "badges")).toEqual([
      { name: "x", link_url: "https://x", image_url: "https://x" },
    ]);
    expect(c.of("not-converted").map((i) => [i.source, i.message])).toEqual([
      ["gitlab_application_settings.this", expect.stringContaining(": gravatar_enabled")],
    ]);
  });

  it("takes the provider's older resources (gitlab_label, gitlab_deploy_token) and a deploy key enabled on a project", () => {
    const c = tf(
      show([
        [
          "gitlab_label",
          "bug",
          { project: "acme/api", name: "bug", color: "#ff0000", description: "Broken" },
        ],
        [
          "gitlab_deploy_token",
          "p",
          { project: "acme/api", name: "p", scopes: ["read_repository"], token: "" },
        ],
        ["gitlab_deploy_token", "g", { group: "acme", name: "g", scopes: ["read_registry"], token: "" }],
        [
          "gitlab_deploy_key_enable",
          "k",
          { project: "acme/api", key_id: "4", key: "ssh-ed25519 AAAA k", title: "K", can_push: true },
        ],
      ]),
    );
    expect(at(c.files["acme.yaml"], "projects", "acme/api")).toEqual({
      labels: [{ name: "bug", color: "#ff0000", description: "Broken" }],
      deploy_tokens: [{ name: "p", scopes: ["read_repository"] }],
      deploy_keys: [{ key: "ssh-ed25519 AAAA k", title: "K", can_push: true }],
    });
    expect(at(c.files["acme.yaml"], "groups", "acme", "deploy_tokens")).toEqual([
      { name: "g", scopes: ["read_registry"] },
    ]);
  });

  it("says what a file that is no state is", () => {
    const c = tf('{"resource": {"gitlab_project": {}}}');
    expect(c.of("not-converted").map((i) => i.message)).toEqual([
      expect.stringContaining("neither the JSON of terraform show -json"),
    ]);
  });
});

describe("the fixture state", () => {
  it("converts every resource type it claims", () => {
    const file = fileURLToPath(new URL("../fixtures/convert/terraform/state.json", import.meta.url));
    const c = convertText("terraform", { [file]: readFileSync(file, "utf8") });
    const api = at(c.files["acme.yaml"], "projects", "acme/platform/api") as Record<string, unknown>;
    for (const key of [
      "variables",
      "members",
      "shared_with_groups",
      "protected_branches",
      "protected_tags",
      "labels",
      "hooks",
      "deploy_tokens",
      "pipeline_schedules",
      "badges",
      "deploy_keys",
      "milestones",
      "triggers",
    ])
      expect(api[key], key).toBeDefined();
    const acme = at(c.files["acme.yaml"], "groups", "acme") as Record<string, unknown>;
    for (const key of [
      "variables",
      "members",
      "shared_with_groups",
      "labels",
      "badges",
      "hooks",
      "deploy_tokens",
    ])
      expect(acme[key], key).toBeDefined();
    for (const key of ["variables", "system_hooks", "application_settings"])
      expect(at(c.files["instance.yaml"], "instance", key), key).toBeDefined();
  });
});
