/**
 * `forgeform convert --from terraform` on the sandbox. A Terraform state describes objects that exist: the sandbox
 * is seeded with what the state says (written here from the state's meaning, not from the conversion: the fixture,
 * and the calls that say what it cannot), and a plan of
 * the converted manifests shows no changes; after an apply, a second plan shows none either.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Conversion, convertInto, expectSecrets } from "./convert.js";
import { Bench } from "./helpers.js";

const STATE = fileURLToPath(new URL("../fixtures/convert/terraform/state.json", import.meta.url));

/** The state's secrets, by the variables the conversion names them with. */
const ENV: Record<string, string> = {
  ACME_REGISTRY_PASSWORD: "tf-registry-pass",
  ACME_CHAT_ACME_EXAMPLE_URL_KEY: "tfCHATkey99",
  API_DEPLOY_TOKEN: "tf-deploy-token-value",
  API_REGION_PRODUCTION: "eu-west-1",
  API_REGION_STAGING: "eu-central-1",
  API_CI_ACME_EXAMPLE_TOKEN: "tf-hook-token-value",
  API_NIGHTLY_BUILD_BUILD_FLAVOUR: "tf-flavour-full",
  WEB_MODE: "tf-web-mode",
  DOCKER_MIRROR: "https://mirror.acme.example",
  AUDIT_ACME_EXAMPLE_TOKEN: "tf-system-hook-token",
};

const KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJxB6P4fwJ4lFgTQ8kA8WQ7cJ3bzZ1j6Bk9a1hZJnq1H ci@acme";

/** What the state says exists on the platform. */
const fixture = {
  users: [{ username: "alice" }, { username: "bob" }],
  groups: [
    {
      path: "acme",
      name: "ACME",
      description: "Everything ACME builds",
      visibility: "internal",
      request_access_enabled: false,
      two_factor_grace_period: 24,
      project_creation_level: "maintainer",
      subgroup_creation_level: "owner",
      members: { bob: "developer" },
    },
    { path: "acme/platform", description: "The platform team", visibility: "internal" },
    { path: "auditors" },
  ],
  projects: [
    {
      path: "acme/platform/api",
      description: "The public API",
      visibility: "internal",
      default_branch: "main",
      members: { alice: "maintainer" },
      shared_with: { auditors: "reporter" },
    },
    { path: "acme/web", default_branch: "main" },
  ],
  project_settings: [
    {
      project: "acme/platform/api",
      merge_method: "ff",
      only_allow_merge_if_pipeline_succeeds: true,
      only_allow_merge_if_all_discussions_are_resolved: true,
      wiki_access_level: "disabled",
      emails_disabled: true,
      tag_list: ["api", "platform"],
      ci_config_path: "ci/main.yml",
      build_timeout: 7200,
      ci_default_git_depth: 20,
      public_builds: false,
      auto_devops_enabled: false,
    },
  ],
  ci_variables: [
    { group: "acme", key: "REGISTRY_PASSWORD", value: "tf-registry-pass", masked: true, protected: true },
    { instance: true, key: "DOCKER_MIRROR", value: "https://mirror.acme.example" },
    {
      project: "acme/platform/api",
      key: "DEPLOY_TOKEN",
      value: "tf-deploy-token-value",
      masked: true,
      protected: true,
    },
    { project: "acme/platform/api", key: "REGION", value: "eu-west-1", environment_scope: "production" },
    { project: "acme/platform/api", key: "REGION", value: "eu-central-1", environment_scope: "staging" },
    { project: "acme/web", key: "MODE", value: "tf-web-mode" },
  ],
  labels: [
    { group: "acme", name: "priority::high", color: "red", description: "Urgent" },
    { project: "acme/platform/api", name: "bug", color: "#d9534f", description: "Something is wrong" },
  ],
  badges: [
    {
      group: "acme",
      name: "docs",
      link_url: "https://docs.acme.example/%{project_path}",
      image_url: "https://docs.acme.example/badge.svg",
    },
    {
      project: "acme/platform/api",
      name: "coverage",
      link_url: "https://ci.acme.example/%{project_path}",
      image_url: "https://ci.acme.example/%{project_path}/coverage.svg",
    },
    // The state's badge without a name exists too (the conversion reports it: forgeform finds badges by name).
    {
      project: "acme/platform/api",
      link_url: "https://status.acme.example",
      image_url: "https://status.acme.example/badge.svg",
    },
  ],
  group_hooks: [
    {
      group: "acme",
      url: "https://chat.acme.example/hooks/in?key=tfCHATkey99",
      push_events: false,
      merge_requests_events: true,
      subgroup_events: true,
    },
  ],
  project_hooks: [
    {
      project: "acme/platform/api",
      url: "https://ci.acme.example/hook",
      token: "tf-hook-token-value",
      push_events: true,
      tag_push_events: true,
    },
  ],
  deploy_tokens: [
    { group: "acme", name: "group registry", scopes: ["read_registry"] },
    {
      project: "acme/platform/api",
      name: "registry",
      scopes: ["read_registry", "read_repository"],
      username: "registry-bot",
      expires_at: "2027-06-30",
    },
  ],
  pipeline_schedules: [
    {
      project: "acme/platform/api",
      description: "Nightly build",
      ref: "main",
      cron: "0 2 * * *",
      cron_timezone: "Europe/Berlin",
      variables: { BUILD_FLAVOUR: "tf-flavour-full" },
    },
  ],
  deploy_keys: [{ project: "acme/platform/api", title: "CI deploy key", key: KEY, can_push: false }],
  milestones: [
    { project: "acme/platform/api", title: "1.0", description: "First release", due_date: "2027-03-31" },
  ],
  pipeline_triggers: [{ project: "acme/platform/api", description: "deploy from chat" }],
  protected_branches: [
    {
      project: "acme/platform/api",
      name: "main",
      push_access_level: 0,
      merge_access_level: 40,
      allowed_to_push: [{ user: "alice" }],
    },
  ],
  protected_tags: [{ project: "acme/platform/api", name: "v*", create_access_level: 40 }],
  system_hooks: [
    {
      url: "https://audit.acme.example/hook",
      token: "tf-system-hook-token",
      push_events: false,
      tag_push_events: true,
      merge_requests_events: false,
      repository_update_events: true,
    },
  ],
  application_settings: {
    signup_enabled: false,
    default_projects_limit: 25,
    after_sign_out_path: "https://acme.example/bye",
  },
};

describe("convert --from terraform: the state's objects on the sandbox, then a plan of the conversion", () => {
  let bench: Bench;
  let out: string;
  let converted: Conversion;

  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    // What the fixture cannot say: bob's membership ends, acme is shared with auditors.
    const users = await bench.get<{ id: number; username: string }[]>("/users?username=bob");
    await bench.send("PUT", `/groups/acme/members/${users[0]!.id}`, {
      access_level: 30,
      expires_at: "2027-12-31",
    });
    const auditors = await bench.get<{ id: number }>("/groups/auditors");
    await bench.send("POST", "/groups/acme/share", { group_id: auditors.id, group_access: 20 });
    out = join(bench.dir, "converted");
    converted = await convertInto(bench, "terraform", STATE, out);
  }, 60_000);
  afterAll(async () => {
    await bench?.stop();
  });

  it("groups resources by owner: one file per top-level group and the instance", () => {
    expect(converted.names).toEqual(["acme.yaml", "instance.yaml"]);
    const acme = readFileSync(join(out, "acme.yaml"), "utf8");
    // One entry per group and project, whatever module or resource declared what it owns.
    expect(acme.match(/^ {2}acme\/platform\/api:$/gm)).toHaveLength(1);
    expect(acme.match(/^ {2}acme:$/gm)).toHaveLength(1);
  });

  it("names every secret of the state and writes none", () => {
    const tokens = ["gldt-tf-project-secret", "gldt-tf-group-secret", "glptt-tf-trigger-secret"];
    expectSecrets(converted, ENV, [...tokens, "GR1348941", "random-never-shown"]);
  });

  it("says where each item is in the state, by JSON pointer and resource address", () => {
    const orphan = converted.report.items.find(
      (i) => i.source === "module.platform.gitlab_pipeline_schedule_variable.orphan",
    );
    expect(orphan).toMatchObject({
      type: "not-converted",
      pointer: expect.stringMatching(/^\/values\/root_module\/child_modules\/0\/resources\/\d+$/),
    });
    const ghost = converted.report.items.find((i) => i.source === "gitlab_group_membership.ghost.user_id");
    expect(ghost?.pointer).toMatch(/\/values\/user_id$/);
    const text = readFileSync(STATE, "utf8").split("\n");
    expect(text[ghost!.line - 1]).toContain('"user_id": 99');
  });

  it("plans no changes against the objects the state describes, and none after an apply", async () => {
    const plan = await bench.cli(["plan", out, "--detailed-exitcode"], ENV);
    expect(plan.code, plan.out + plan.err).toBe(0);
    const apply = await bench.cli(["apply", out, "--yes"], ENV);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const again = await bench.cli(["plan", out, "--detailed-exitcode"], ENV);
    expect(again.code, again.out + again.err).toBe(0);
  });
});
