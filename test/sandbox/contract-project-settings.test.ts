/**
 * Project settings, create, update, archive, transfer and delete (`routes/projects.ts`, `model.ts`) beyond the
 * contract's dozen fields: the platform's 13.12 interface, one case per rule (each validation, each permission with
 * the role just below and just at the requirement, each error body), each against a fresh sandbox.
 */
import { describe, expect, it } from "vitest";
import { type Case, runCase } from "./cases.js";
import { sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "internal",
      members: { owner: "owner", maint: "maintainer", dev: "developer", rep: "reporter" },
    },
    { path: "other", visibility: "private", members: { owner: "owner", maint: "maintainer" } },
    {
      path: "closed",
      visibility: "private",
      project_creation_level: "noone",
      members: { owner: "maintainer" },
    },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/site", visibility: "internal" },
    { path: "other/api", visibility: "private" },
    { path: "owner/mine", visibility: "private" },
  ],
  project_settings: [
    {
      project: "acme/site",
      issues_access_level: "private",
      repository_access_level: "private",
      merge_requests_access_level: "private",
      builds_access_level: "private",
    },
  ],
};

const API = "/projects/acme%2Fapi";
const run = (c: Case) => runCase(c, fixture, "maint-token");
const put = (json: Record<string, unknown>, extra: Partial<Case> = {}): Case => ({
  name: "",
  method: "PUT",
  path: API,
  json,
  status: 200,
  ...extra,
});
const invalid = (json: Record<string, unknown>, errors: Record<string, string[]>, name: string): Case =>
  put(json, { name, status: 400, body: { message: errors } });

const AT_LEAST_ONE =
  "allow_merge_on_skipped_pipeline, autoclose_referenced_issues, auto_devops_enabled, auto_devops_deploy_strategy, auto_cancel_pending_pipelines, build_coverage_regex, build_git_strategy, build_timeout, builds_access_level, ci_config_path, ci_default_git_depth, ci_forward_deployment_enabled, container_registry_enabled, container_expiration_policy_attributes, default_branch, description, emails_disabled, forking_access_level, issues_access_level, lfs_enabled, merge_pipelines_enabled, merge_requests_access_level, merge_requests_template, merge_trains_enabled, merge_method, name, only_allow_merge_if_all_discussions_are_resolved, only_allow_merge_if_pipeline_succeeds, pages_access_level, path, printing_merge_request_link_enabled, public_builds, remove_source_branch_after_merge, repository_access_level, request_access_enabled, resolve_outdated_diff_discussions, restrict_user_defined_variables, squash_option, shared_runners_enabled, snippets_access_level, tag_list, topics, visibility, wiki_access_level, avatar, suggestion_commit_message, repository_storage, compliance_framework_setting, packages_enabled, service_desk_enabled, keep_latest_artifact, issues_enabled, jobs_enabled, merge_requests_enabled, wiki_enabled, snippets_enabled, approvals_before_merge, issues_template are missing, at least one parameter must be provided";

const defaults = {
  packages_enabled: true,
  resolve_outdated_diff_discussions: false,
  issues_access_level: "enabled",
  repository_access_level: "enabled",
  merge_requests_access_level: "enabled",
  forking_access_level: "enabled",
  wiki_access_level: "enabled",
  builds_access_level: "enabled",
  snippets_access_level: "enabled",
  pages_access_level: "private",
  operations_access_level: "enabled",
  analytics_access_level: "enabled",
  emails_disabled: null,
  lfs_enabled: true,
  ci_default_git_depth: 50,
  ci_forward_deployment_enabled: true,
  build_git_strategy: "fetch",
  build_timeout: 3600,
  auto_cancel_pending_pipelines: "enabled",
  build_coverage_regex: null,
  ci_config_path: null,
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: false,
  restrict_user_defined_variables: false,
  only_allow_merge_if_all_discussions_are_resolved: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  merge_method: "merge",
  squash_option: "default_off",
  suggestion_commit_message: null,
  auto_devops_enabled: true,
  auto_devops_deploy_strategy: "continuous",
  autoclose_referenced_issues: true,
  keep_latest_artifact: true,
  approvals_before_merge: 0,
  merge_pipelines_enabled: false,
  merge_trains_enabled: false,
};

const readCases: Case[] = [
  {
    name: "GET shows every 13.12 setting with the platform's defaults",
    method: "GET",
    path: API,
    status: 200,
    like: defaults,
  },
  {
    name: "a private feature is enabled for members with the role",
    method: "GET",
    path: "/projects/acme%2Fsite",
    token: "rep-token",
    status: 200,
    like: {
      issues_enabled: true,
      issues_access_level: "private",
      merge_requests_enabled: true,
      ci_config_path: null,
    },
  },
  {
    name: "a private feature is not enabled for a signed-in non-member, who does not see ci_config_path",
    method: "GET",
    path: "/projects/acme%2Fsite",
    token: "outsider-token",
    status: 200,
    like: {
      issues_enabled: false,
      merge_requests_enabled: false,
      jobs_enabled: false,
      issues_access_level: "private",
    },
  },
  {
    name: "build_git_strategy is for those who may administer the project",
    method: "GET",
    path: API,
    token: "dev-token",
    status: 200,
  },
];

const updateCases: Case[] = [
  put(
    { merge_method: "ff", squash_option: "always", only_allow_merge_if_pipeline_succeeds: true },
    {
      name: "a Maintainer changes merge settings, shown by GET",
      like: { merge_method: "ff", squash_option: "always", only_allow_merge_if_pipeline_succeeds: true },
      after: { method: "GET", path: API, like: { merge_method: "ff", squash_option: "always" } },
    },
  ),
  put(
    { merge_method: "ff" },
    {
      name: "a Developer is refused (admin_project)",
      token: "dev-token",
      status: 403,
      body: { message: "403 Forbidden" },
    },
  ),
  put(
    { merge_method: "ff" },
    { name: "a guest is 401", token: null, status: 401, body: { message: "401 Unauthorized" } },
  ),
  put(
    { merge_method: "ff" },
    {
      name: "a user who cannot see the project gets 404",
      token: "outsider-token",
      status: 404,
      body: { message: "404 Project Not Found" },
    },
  ),
  put({}, { name: "none of the parameters is Grape's 400", status: 400, body: { error: AT_LEAST_ONE } }),
  put(
    { visibility: "internal" },
    { name: "visibility from a Maintainer is refused", status: 403, body: { message: "403 Forbidden" } },
  ),
  put(
    { visibility: "private" },
    { name: "visibility from a Maintainer is refused even unchanged (presence is checked)", status: 403 },
  ),
  put(
    { visibility: "internal" },
    { name: "visibility from the Owner", token: "owner-token", like: { visibility: "internal" } },
  ),
  put(
    { visibility: "public" },
    {
      name: "visibility above the group's",
      token: "owner-token",
      status: 400,
      body: { message: { visibility_level: ["public is not allowed in a internal group."] } },
    },
  ),
  put({ name: "Renamed" }, { name: "a name from a Maintainer is refused (rename_project)", status: 403 }),
  put(
    { name: "Renamed" },
    { name: "a name from the Owner", token: "owner-token", like: { name: "Renamed", path: "api" } },
  ),
  put(
    { name: "" },
    {
      name: "a blank name is not checked for Owner, and is invalid",
      status: 400,
      body: { message: { name: ["can't be blank"] } },
    },
  ),
  put(
    { path: "api-2" },
    { name: "a path from a Maintainer", like: { path: "api-2", path_with_namespace: "acme/api-2" } },
  ),
  put(
    { emails_disabled: true, lfs_enabled: false },
    {
      name: "emails_disabled from a Maintainer is dropped (set_emails_disabled), the rest kept",
      like: { emails_disabled: null, lfs_enabled: false },
    },
  ),
  put(
    { emails_disabled: true },
    { name: "emails_disabled from the Owner", token: "owner-token", like: { emails_disabled: true } },
  ),
  put(
    { merge_method: "squash" },
    { name: "merge_method values", status: 400, body: { error: "merge_method does not have a valid value" } },
  ),
  put(
    { squash_option: "sometimes" },
    {
      name: "squash_option values",
      status: 400,
      body: { error: "squash_option does not have a valid value" },
    },
  ),
  put(
    { build_git_strategy: "rsync" },
    {
      name: "build_git_strategy values",
      status: 400,
      body: { error: "build_git_strategy does not have a valid value" },
    },
  ),
  put(
    { auto_cancel_pending_pipelines: "yes" },
    {
      name: "auto_cancel_pending_pipelines values",
      status: 400,
      body: { error: "auto_cancel_pending_pipelines does not have a valid value" },
    },
  ),
  put(
    { auto_devops_deploy_strategy: "later" },
    {
      name: "auto_devops_deploy_strategy values",
      status: 400,
      body: { error: "auto_devops_deploy_strategy does not have a valid value" },
    },
  ),
  put(
    { issues_access_level: "public" },
    {
      name: "public is a level of pages only",
      status: 400,
      body: { error: "issues_access_level does not have a valid value" },
    },
  ),
  put(
    { pages_access_level: "public" },
    { name: "pages may be public", like: { pages_access_level: "public" } },
  ),
  put(
    { build_timeout: "soon" },
    { name: "build_timeout is an integer", status: 400, body: { error: "build_timeout is invalid" } },
  ),
  invalid(
    { build_timeout: 599 },
    { build_timeout: ["needs to be between 10 minutes and 1 month"] },
    "build_timeout below 10 minutes",
  ),
  put({ build_timeout: 600 }, { name: "build_timeout of 10 minutes", like: { build_timeout: 600 } }),
  put(
    { build_timeout: 2_629_745 },
    { name: "build_timeout just under a month", like: { build_timeout: 2_629_745 } },
  ),
  invalid(
    { build_timeout: 2_629_746 },
    { build_timeout: ["needs to be between 10 minutes and 1 month"] },
    "build_timeout of a month",
  ),
  invalid(
    { ci_default_git_depth: -1 },
    { "ci_cd_settings.default_git_depth": ["must be greater than or equal to 0"] },
    "ci_default_git_depth below 0",
  ),
  invalid(
    { ci_default_git_depth: 1001 },
    { "ci_cd_settings.default_git_depth": ["must be less than or equal to 1000"] },
    "ci_default_git_depth above 1000",
  ),
  put({ ci_default_git_depth: 0 }, { name: "ci_default_git_depth 0", like: { ci_default_git_depth: 0 } }),
  put(
    { ci_default_git_depth: 1000 },
    { name: "ci_default_git_depth 1000", like: { ci_default_git_depth: 1000 } },
  ),
  invalid(
    { ci_config_path: "/ci.yml" },
    { ci_config_path: ["cannot include leading slash or directory traversal."] },
    "ci_config_path with a leading slash",
  ),
  invalid(
    { ci_config_path: "ci/../x.yml" },
    { ci_config_path: ["cannot include leading slash or directory traversal."] },
    "ci_config_path with ..",
  ),
  put(
    { ci_config_path: "ci/pipeline.yml" },
    { name: "a relative ci_config_path", like: { ci_config_path: "ci/pipeline.yml" } },
  ),
  invalid(
    { description: "d".repeat(2001) },
    { description: ["is too long (maximum is 2000 characters)"] },
    "description over 2000 characters",
  ),
  invalid(
    { suggestion_commit_message: "s".repeat(256) },
    { suggestion_commit_message: ["is too long (maximum is 255 characters)"] },
    "suggestion_commit_message over 255 characters",
  ),
  invalid(
    { repository_access_level: "private" },
    {
      "project_feature.merge_requests_access_level": [
        "cannot have higher visibility level than repository access level",
      ],
      "project_feature.builds_access_level": [
        "cannot have higher visibility level than repository access level",
      ],
    },
    "merge requests and CI/CD no more open than the repository",
  ),
  put(
    {
      repository_access_level: "private",
      merge_requests_access_level: "private",
      builds_access_level: "disabled",
    },
    {
      name: "a private repository with private merge requests and no CI/CD",
      like: {
        repository_access_level: "private",
        merge_requests_access_level: "private",
        builds_access_level: "disabled",
        jobs_enabled: false,
      },
    },
  ),
  put(
    { issues_enabled: false, jobs_enabled: false, wiki_enabled: false, snippets_enabled: false },
    {
      name: "the legacy booleans disable features",
      like: {
        issues_access_level: "disabled",
        issues_enabled: false,
        builds_access_level: "disabled",
        wiki_access_level: "disabled",
        snippets_access_level: "disabled",
      },
    },
  ),
  put(
    { issues_enabled: false, issues_access_level: "private" },
    {
      name: "an access level given beside its boolean wins",
      like: { issues_access_level: "private", issues_enabled: true },
    },
  ),
  put(
    { tag_list: "a, b" },
    { name: "tag_list as a comma-separated string", like: { tag_list: ["a", "b"], topics: ["a", "b"] } },
  ),
  put(
    { approvals_before_merge: 2, merge_trains_enabled: true },
    {
      name: "licensed settings on the licensed edition",
      like: { approvals_before_merge: 2, merge_trains_enabled: true },
    },
  ),
  invalid(
    { approvals_before_merge: -1 },
    { approvals_before_merge: ["must be greater than or equal to 0"] },
    "approvals_before_merge below 0",
  ),
  put(
    { approvals_before_merge: 2, merge_method: "rebase_merge" },
    {
      name: "licensed settings are ignored on core",
      options: { edition: "core" },
      after: { method: "GET", path: API, like: { merge_method: "rebase_merge" } },
    },
  ),
  put(
    { auto_devops_enabled: false },
    { name: "auto_devops_enabled set on the project", like: { auto_devops_enabled: false } },
  ),
];

const actionCases: Case[] = [
  {
    name: "archive: a Maintainer is refused (archive_project)",
    method: "POST",
    path: `${API}/archive`,
    status: 403,
  },
  {
    name: "archive: the Owner, 201 with the project",
    method: "POST",
    path: `${API}/archive`,
    token: "owner-token",
    status: 201,
    like: { archived: true },
  },
  {
    name: "unarchive: the Owner",
    before: [{ method: "POST", path: `${API}/archive`, token: "owner-token" }],
    method: "POST",
    path: `${API}/unarchive`,
    token: "owner-token",
    status: 201,
    like: { archived: false },
  },
  { name: "unarchive: a Maintainer is refused", method: "POST", path: `${API}/unarchive`, status: 403 },
  {
    name: "delete: a Maintainer is refused (remove_project)",
    method: "DELETE",
    path: API,
    status: 403,
    body: { message: "403 Forbidden" },
  },
  {
    name: "delete: the Owner, 202 Accepted, then gone",
    method: "DELETE",
    path: API,
    token: "owner-token",
    status: 202,
    body: { message: "202 Accepted" },
    after: { method: "GET", path: API, token: "owner-token", body: { message: "404 Project Not Found" } },
  },
  {
    name: "delete: a personal project's owner",
    method: "DELETE",
    path: "/projects/owner%2Fmine",
    token: "owner-token",
    status: 202,
  },
  {
    name: "transfer: a Maintainer is refused (change_namespace)",
    method: "PUT",
    path: `${API}/transfer`,
    json: { namespace: "other" },
    status: 403,
  },
  {
    name: "transfer: namespace is required",
    method: "PUT",
    path: `${API}/transfer`,
    json: {},
    status: 400,
    body: { error: "namespace is missing" },
  },
  {
    name: "transfer: the Owner moves an internal project to a private group, which lowers its visibility",
    method: "PUT",
    path: "/projects/acme%2Fsite/transfer",
    token: "owner-token",
    json: { namespace: "other" },
    status: 200,
    like: { path_with_namespace: "other/site", visibility: "private" },
  },
  {
    name: "transfer: a private project to another group",
    before: [
      {
        method: "PUT",
        path: "/projects/other%2Fapi",
        token: "owner-token",
        json: { path: "api-old", name: "api old" },
      },
    ],
    method: "PUT",
    path: `${API}/transfer`,
    token: "owner-token",
    json: { namespace: "other" },
    status: 200,
    like: { path_with_namespace: "other/api" },
  },
  {
    name: "transfer: a project of the same path there",
    method: "PUT",
    path: `${API}/transfer`,
    token: "owner-token",
    json: { namespace: "other" },
    status: 400,
    body: {
      message:
        'Failed to transfer project {:new_namespace=>["Project with same name or path in target namespace already exists"]}',
    },
  },
  {
    name: "transfer: to its own namespace",
    method: "PUT",
    path: `${API}/transfer`,
    token: "owner-token",
    json: { namespace: "acme" },
    status: 400,
    body: {
      message:
        'Failed to transfer project {:new_namespace=>["Please select a new namespace for your project."]}',
    },
  },
  {
    name: "transfer: to a group where the caller may not create projects",
    method: "PUT",
    path: `${API}/transfer`,
    token: "owner-token",
    json: { namespace: "closed" },
    status: 400,
    body: {
      message:
        'Failed to transfer project {:new_namespace=>["You don\'t have permission to transfer this project."]}',
    },
  },
  {
    name: "transfer: a namespace the caller cannot see",
    method: "PUT",
    path: `${API}/transfer`,
    token: "owner-token",
    json: { namespace: "nowhere" },
    status: 404,
    body: { message: "404 Namespace Not Found" },
  },
];

const createCases: Case[] = [
  {
    name: "create: namespace_id is an id, not a path",
    method: "POST",
    path: "/projects",
    token: "owner-token",
    json: {
      name: "New",
      namespace_id: "acme",
      merge_method: "rebase_merge",
      build_timeout: 7200,
      wiki_access_level: "disabled",
    },
    status: 400,
    body: { error: "namespace_id is invalid" },
  },
  {
    name: "create: the model's rules apply",
    method: "POST",
    path: "/projects",
    token: "owner-token",
    json: { name: "Fresh", build_timeout: 1 },
    status: 400,
    body: { message: { build_timeout: ["needs to be between 10 minutes and 1 month"] } },
  },
  {
    name: "create: a public project's pages are enabled, a private one's private",
    method: "POST",
    path: "/projects",
    token: "owner-token",
    json: { name: "Open", visibility: "public", merge_method: "ff", issues_enabled: false },
    status: 201,
    like: {
      pages_access_level: "enabled",
      merge_method: "ff",
      issues_access_level: "disabled",
      build_git_strategy: "fetch",
    },
  },
];

describe("project settings: reads", () => {
  it.each(readCases)("$name", run);

  it("build_git_strategy is left out for a Developer and shown to a Maintainer", async () => {
    const c = await sandbox({ fixture });
    try {
      expect((await c.call("GET", API, { token: "dev-token" })).body).not.toHaveProperty(
        "build_git_strategy",
      );
      expect((await c.call("GET", API, { token: "maint-token" })).body).toHaveProperty(
        "build_git_strategy",
        "fetch",
      );
      const core = (await c.call("GET", API)).body as Record<string, unknown>;
      expect(Object.keys(core)).toEqual(expect.arrayContaining(Object.keys(defaults)));
    } finally {
      await c.sb.stop();
    }
  });

  it("core does not show licensed settings", async () => {
    const c = await sandbox({ fixture, edition: "core" });
    try {
      const body = (await c.call("GET", API)).body as Record<string, unknown>;
      for (const k of ["approvals_before_merge", "merge_trains_enabled", "merge_requests_template"])
        expect(body).not.toHaveProperty(k);
    } finally {
      await c.sb.stop();
    }
  });
});

describe("project settings: PUT /projects/:id", () => {
  it.each(updateCases)("$name", run);
});

describe("project archive, delete, transfer", () => {
  it.each(actionCases)("$name", run);
});

describe("project create", () => {
  it.each(createCases)("$name", run);
});

describe("fixture key project_settings", () => {
  it("refuses a setting the API does not take", async () => {
    await expect(
      sandbox({
        fixture: { projects: [{ path: "root/p" }], project_settings: [{ project: "root/p", colour: "red" }] },
      }),
    ).rejects.toThrow(/project_settings\[0\] has settings the API does not take: colour/);
  });

  it("refuses a value the model refuses", async () => {
    await expect(
      sandbox({
        fixture: {
          projects: [{ path: "root/p" }],
          project_settings: [{ project: "root/p", build_timeout: 5 }],
        },
      }),
    ).rejects.toThrow(/project_settings\[0\] .*needs to be between 10 minutes and 1 month/);
  });
});
