/**
 * Group settings of `PUT /groups/:id` and `POST /groups` (`routes/groups.ts`, `model.ts`): the platform's 13.12
 * interface, one case per rule (each validation, each permission with the role just below and just at the
 * requirement, each error body), each against a fresh sandbox.
 */
import { describe, it } from "vitest";
import { type Case, runCase } from "./cases.js";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "subowner", token: "subowner-token" },
    // A maintainer of acme and an owner of acme/sub: one role short of unlocking what acme locks.
    { username: "submaint", token: "submaint-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "internal",
      members: { owner: "owner", maint: "maintainer", submaint: "maintainer" },
    },
    { path: "acme/sub", visibility: "internal", members: { subowner: "owner", submaint: "owner" } },
  ],
  projects: [{ path: "acme/site", visibility: "internal" }],
};

/** The platform's answer to unlocking a subgroup its parent locks, by anyone but an owner of the parent. */
const LOCKED_BY_PARENT = {
  message: {
    share_with_group_lock: [
      'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
    ],
  },
};

const run = (c: Case) => runCase(c, fixture, "owner-token");
const put = (json: Record<string, unknown>, extra: Partial<Case> = {}): Case => ({
  name: "",
  method: "PUT",
  path: "/groups/acme",
  json,
  status: 200,
  ...extra,
});

const cases: Case[] = [
  put(
    { description: "x" },
    {
      name: "a Maintainer is refused (admin_group)",
      token: "maint-token",
      status: 403,
      body: { message: "403 Forbidden" },
    },
  ),
  put({ description: "x" }, { name: "a guest is 401", token: null, status: 401 }),
  put(
    { description: "x" },
    {
      name: "a signed-in non-member of an internal group is refused",
      token: "outsider-token",
      status: 403,
      body: { message: "403 Forbidden" },
    },
  ),
  put(
    {
      description: "Acme",
      share_with_group_lock: true,
      require_two_factor_authentication: true,
      two_factor_grace_period: 12,
      project_creation_level: "maintainer",
      subgroup_creation_level: "owner",
      auto_devops_enabled: false,
      emails_disabled: true,
      mentions_disabled: true,
      lfs_enabled: false,
      request_access_enabled: false,
      default_branch_protection: 3,
      membership_lock: true,
    },
    {
      name: "the Owner sets every setting, shown in the answer",
      like: {
        description: "Acme",
        share_with_group_lock: true,
        require_two_factor_authentication: true,
        two_factor_grace_period: 12,
        project_creation_level: "maintainer",
        subgroup_creation_level: "owner",
        auto_devops_enabled: false,
        emails_disabled: true,
        mentions_disabled: true,
        lfs_enabled: false,
        request_access_enabled: false,
        default_branch_protection: 3,
      },
      after: {
        method: "GET",
        path: "/groups/acme",
        like: { default_branch_protection: 3, lfs_enabled: false },
      },
    },
  ),
  put(
    { project_creation_level: "everyone" },
    {
      name: "project_creation_level values",
      status: 400,
      body: { error: "project_creation_level does not have a valid value" },
    },
  ),
  put(
    { subgroup_creation_level: "developer" },
    {
      name: "subgroup_creation_level values",
      status: 400,
      body: { error: "subgroup_creation_level does not have a valid value" },
    },
  ),
  put(
    { default_branch_protection: 4 },
    {
      name: "default_branch_protection is 0 to 3",
      status: 400,
      body: { error: "default_branch_protection does not have a valid value" },
    },
  ),
  put(
    { visibility: "secret" },
    { name: "visibility values", status: 400, body: { error: "visibility does not have a valid value" } },
  ),
  put(
    { shared_runners_setting: "sometimes" },
    {
      name: "shared_runners_setting values",
      status: 400,
      body: { error: "shared_runners_setting does not have a valid value" },
    },
  ),
  put(
    { two_factor_grace_period: "soon" },
    {
      name: "two_factor_grace_period is an integer",
      status: 400,
      body: { error: "two_factor_grace_period is invalid" },
    },
  ),
  put(
    { two_factor_grace_period: -1 },
    {
      name: "two_factor_grace_period below 0",
      status: 400,
      body: { message: { two_factor_grace_period: ["must be greater than or equal to 0"] } },
    },
  ),
  put(
    { description: "d".repeat(256) },
    {
      name: "description over 255 characters",
      status: 400,
      body: { message: { description: ["is too long (maximum is 255 characters)"] } },
    },
  ),
  put(
    { visibility: "private" },
    {
      name: "visibility below a project's",
      status: 400,
      body: {
        message: {
          visibility_level: [
            "private is not allowed since this group contains projects with higher visibility.",
            "private is not allowed since there are sub-groups with higher visibility.",
          ],
        },
      },
    },
  ),
  put(
    { visibility: "public" },
    {
      name: "visibility above the parent's",
      path: "/groups/acme%2Fsub",
      status: 400,
      body: {
        message: {
          visibility_level: ["public is not allowed since the parent group has a internal visibility."],
        },
      },
    },
  ),
  put(
    { shared_runners_minutes_limit: 100 },
    { name: "an Owner may not set the admin-only minutes limit", status: 403 },
  ),
  put(
    { shared_runners_minutes_limit: 100 },
    {
      name: "an administrator sets the minutes limit",
      token: "admin-token",
      like: { shared_runners_minutes_limit: 100 },
    },
  ),
  put(
    { membership_lock: true, description: "core" },
    {
      name: "licensed settings are ignored on core",
      options: { edition: "core" },
      like: { description: "core" },
      after: { method: "GET", path: "/groups/acme", like: { description: "core" } },
    },
  ),
  put(
    { share_with_group_lock: true },
    {
      name: "locking sharing locks the subgroups",
      after: {
        method: "GET",
        path: "/groups/acme%2Fsub",
        token: "subowner-token",
        like: { share_with_group_lock: true },
      },
    },
  ),
  put(
    { share_with_group_lock: false },
    {
      name: "a subgroup locked by its parent is not unlocked by its own owner",
      before: [{ method: "PUT", path: "/groups/acme", json: { share_with_group_lock: true } }],
      path: "/groups/acme%2Fsub",
      token: "subowner-token",
      status: 400,
      body: LOCKED_BY_PARENT,
    },
  ),
  put(
    { share_with_group_lock: false },
    {
      name: "nor by an owner of the subgroup who is a maintainer of the parent",
      before: [{ method: "PUT", path: "/groups/acme", json: { share_with_group_lock: true } }],
      path: "/groups/acme%2Fsub",
      token: "submaint-token",
      status: 400,
      body: LOCKED_BY_PARENT,
    },
  ),
  put(
    { share_with_group_lock: false },
    {
      name: "the parent's owner unlocks the subgroup",
      before: [{ method: "PUT", path: "/groups/acme", json: { share_with_group_lock: true } }],
      path: "/groups/acme%2Fsub",
      like: { share_with_group_lock: false },
    },
  ),
  {
    name: "POST /groups with settings",
    method: "POST",
    path: "/groups",
    json: {
      name: "New Group",
      path: "new-group",
      project_creation_level: "noone",
      two_factor_grace_period: 0,
      default_branch_protection: 0,
    },
    status: 201,
    like: {
      project_creation_level: "noone",
      two_factor_grace_period: 0,
      default_branch_protection: 0,
      visibility: "private",
    },
  },
  {
    name: "POST /groups: name and path are required",
    method: "POST",
    path: "/groups",
    json: {},
    status: 400,
    body: { error: "name is missing, path is missing" },
  },
];

describe("group settings: PUT /groups/:id and POST /groups", () => {
  it.each(cases)("$name", run);
});
