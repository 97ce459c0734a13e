/**
 * CI/CD variables of projects, groups and the instance (`routes/ci-variables.ts`), which the contract does not
 * cover: the platform's 13.12 interface, one case per rule (each validation, each permission with the role just
 * below and just at the requirement, each error body), each against a fresh sandbox of the edition it needs.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Case, runCase } from "./cases.js";
import { sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
  ],
  projects: [{ path: "acme/api" }, { path: "acme/nobuilds" }, { path: "acme/norepo" }],
  project_settings: [
    { project: "acme/nobuilds", builds_access_level: "disabled" },
    {
      project: "acme/norepo",
      repository_access_level: "disabled",
      merge_requests_access_level: "disabled",
      builds_access_level: "disabled",
    },
  ],
  ci_variables: [
    { project: "acme/api", key: "DEPLOY", value: "everywhere" },
    {
      project: "acme/api",
      key: "DEPLOY",
      value: "prod-only",
      environment_scope: "production",
      protected: true,
    },
    { project: "acme/api", key: "SINGLE", value: "one" },
    { project: "acme/nobuilds", key: "X", value: "x" },
    { group: "acme", key: "GROUP_VAR", value: "g", variable_type: "file" },
    { instance: true, key: "INSTANCE_VAR", value: "i-secret-1", masked: true },
  ],
};

const P = "/projects/acme%2Fapi/variables";
const G = "/groups/acme/variables";
const I = "/admin/ci/variables";

const run = (c: Case) => runCase(c, fixture, "maint-token");

const v = (key: string, value: string, extra: Record<string, unknown> = {}) => ({
  variable_type: "env_var",
  key,
  value,
  protected: false,
  masked: false,
  environment_scope: "*",
  ...extra,
});

const projectCases: Case[] = [
  {
    name: "list: a Maintainer sees every variable with its value and scope",
    method: "GET",
    path: P,
    status: 200,
    body: [
      v("DEPLOY", "everywhere"),
      v("DEPLOY", "prod-only", { protected: true, environment_scope: "production" }),
      v("SINGLE", "one"),
    ],
  },
  {
    name: "list: a Developer is refused (admin_build)",
    method: "GET",
    path: P,
    token: "dev-token",
    status: 403,
    body: { message: "403 Forbidden" },
  },
  {
    name: "list: a guest is 401 before the project is looked up",
    method: "GET",
    path: P,
    token: null,
    status: 401,
    body: { message: "401 Unauthorized" },
  },
  {
    name: "list: a user who cannot see the project gets 404",
    method: "GET",
    path: P,
    token: "outsider-token",
    status: 404,
    body: { message: "404 Project Not Found" },
  },
  {
    name: "list: an administrator may",
    method: "GET",
    path: "/projects/acme%2Fapi/variables?per_page=1",
    token: "admin-token",
    status: 200,
    body: [v("DEPLOY", "everywhere")],
  },
  {
    name: "list: refused to a Maintainer when CI/CD is disabled",
    method: "GET",
    path: "/projects/acme%2Fnobuilds/variables",
    status: 403,
    body: { message: "403 Forbidden" },
  },
  {
    name: "list: refused even to an administrator when CI/CD is disabled",
    method: "GET",
    path: "/projects/acme%2Fnobuilds/variables",
    token: "admin-token",
    status: 403,
  },
  {
    name: "list: refused when the repository is disabled",
    method: "GET",
    path: "/projects/acme%2Fnorepo/variables",
    status: 403,
  },
  {
    name: "get: a key held in two scopes is 409 without a filter",
    method: "GET",
    path: `${P}/DEPLOY`,
    status: 409,
    body: {
      message:
        "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
    },
  },
  {
    name: "get: filter[environment_scope] picks one",
    method: "GET",
    path: `${P}/DEPLOY?filter[environment_scope]=production`,
    status: 200,
    body: v("DEPLOY", "prod-only", { protected: true, environment_scope: "production" }),
  },
  {
    name: "get: a key in one scope needs no filter",
    method: "GET",
    path: `${P}/SINGLE`,
    status: 200,
    body: v("SINGLE", "one"),
  },
  {
    name: "get: a filter no variable matches is 404",
    method: "GET",
    path: `${P}/SINGLE?filter[environment_scope]=staging`,
    status: 404,
    body: { message: "404 Variable Not Found" },
  },
  {
    name: "get: a missing key is 404 Variable Not Found",
    method: "GET",
    path: `${P}/NOPE`,
    status: 404,
    body: { message: "404 Variable Not Found" },
  },
  {
    name: "get: a Developer is refused",
    method: "GET",
    path: `${P}/SINGLE`,
    token: "dev-token",
    status: 403,
  },
  {
    name: "create: key is required",
    method: "POST",
    path: P,
    json: { value: "x" },
    status: 400,
    body: { error: "key is missing" },
  },
  {
    name: "create: value is required",
    method: "POST",
    path: P,
    json: { key: "K" },
    status: 400,
    body: { error: "value is missing" },
  },
  {
    name: "create: a blank key",
    method: "POST",
    path: P,
    json: { key: "", value: "x" },
    status: 400,
    body: { message: { key: ["can't be blank", "can contain only letters, digits and '_'."] } },
  },
  {
    name: "create: a key with other characters",
    method: "POST",
    path: P,
    json: { key: "MY-VAR", value: "x" },
    status: 400,
    body: { message: { key: ["can contain only letters, digits and '_'."] } },
  },
  {
    name: "create: a key of 256 characters",
    method: "POST",
    path: P,
    json: { key: "K".repeat(256), value: "x" },
    status: 400,
    body: { message: { key: ["is too long (maximum is 255 characters)"] } },
  },
  {
    name: "create: a key of 255 characters",
    method: "POST",
    path: P,
    json: { key: "K".repeat(255), value: "x" },
    status: 201,
    body: v("K".repeat(255), "x"),
  },
  {
    name: "create: the key is stripped of blanks",
    method: "POST",
    path: P,
    form: "key=+TRIMMED+&value=x",
    status: 201,
    body: v("TRIMMED", "x"),
  },
  {
    name: "create: a Developer is refused",
    method: "POST",
    path: P,
    token: "dev-token",
    json: { key: "K", value: "x" },
    status: 403,
  },
  {
    name: "create: defaults (env_var, unprotected, unmasked, scope *)",
    method: "POST",
    path: P,
    json: { key: "NEW", value: "" },
    status: 201,
    body: v("NEW", ""),
  },
  {
    name: "create: a file variable",
    method: "POST",
    path: P,
    json: { key: "CFG", value: "a: 1\n", variable_type: "file" },
    status: 201,
    body: v("CFG", "a: 1\n", { variable_type: "file" }),
  },
  {
    name: "create: variable_type must be env_var or file",
    method: "POST",
    path: P,
    json: { key: "K", value: "x", variable_type: "secret" },
    status: 400,
    body: { error: "variable_type does not have a valid value" },
  },
  {
    name: "create: protected must be a Boolean",
    method: "POST",
    path: P,
    json: { key: "K", value: "x", protected: "maybe" },
    status: 400,
    body: { error: "protected is invalid" },
  },
  {
    name: "create: masked value of 7 characters",
    method: "POST",
    path: P,
    json: { key: "K", value: "abcdefg", masked: true },
    status: 400,
    body: { message: { value: ["is invalid"] } },
  },
  {
    name: "create: masked value of 8 characters",
    method: "POST",
    path: P,
    json: { key: "K", value: "abcdefgh", masked: true },
    status: 201,
    body: v("K", "abcdefgh", { masked: true }),
  },
  {
    name: "create: masked value with the allowed signs (+=/@:.~-_)",
    method: "POST",
    path: P,
    json: { key: "K", value: "a+b=c/d@e:f.g~h-i_j", masked: true },
    status: 201,
  },
  {
    name: "create: masked value with a space",
    method: "POST",
    path: P,
    json: { key: "K", value: "abcd efgh", masked: true },
    status: 400,
    body: { message: { value: ["is invalid"] } },
  },
  {
    name: "create: masked value on two lines",
    method: "POST",
    path: P,
    json: { key: "K", value: "abcdefgh\nijkl", masked: true },
    status: 400,
    body: { message: { value: ["is invalid"] } },
  },
  {
    name: "create: masked value with a sign outside the alphabet",
    method: "POST",
    path: P,
    json: { key: "K", value: "abcdefgh$", masked: true },
    status: 400,
    body: { message: { value: ["is invalid"] } },
  },
  {
    name: "create: the same key in the same scope",
    method: "POST",
    path: P,
    json: { key: "SINGLE", value: "x" },
    status: 400,
    body: { message: { key: ["(SINGLE) has already been taken"] } },
  },
  {
    name: "create: the same key in another scope",
    method: "POST",
    path: P,
    json: { key: "SINGLE", value: "x", environment_scope: "review/*" },
    status: 201,
    body: v("SINGLE", "x", { environment_scope: "review/*" }),
  },
  {
    name: "create: a scope with a character environments cannot have",
    method: "POST",
    path: P,
    json: { key: "K", value: "x", environment_scope: "prod!" },
    status: 400,
    body: {
      message: {
        environment_scope: [
          "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces",
        ],
      },
    },
  },
  {
    name: "create: a blank scope",
    method: "POST",
    path: P,
    json: { key: "K", value: "x", environment_scope: "" },
    status: 400,
    body: { message: { environment_scope: ["can't be blank"] } },
  },
  {
    name: "update: with a filter, only that scope's variable changes",
    method: "PUT",
    path: `${P}/DEPLOY?filter[environment_scope]=production`,
    json: { value: "changed", masked: false },
    status: 200,
    body: v("DEPLOY", "changed", { protected: true, environment_scope: "production" }),
    after: {
      method: "GET",
      path: `${P}/DEPLOY?filter[environment_scope]=*`,
      body: v("DEPLOY", "everywhere"),
    },
  },
  {
    name: "update: a key in two scopes without a filter is 409",
    method: "PUT",
    path: `${P}/DEPLOY`,
    json: { value: "x" },
    status: 409,
  },
  {
    name: "update: the key in the body does not rename",
    method: "PUT",
    path: `${P}/SINGLE`,
    json: { key: "OTHER", value: "two" },
    status: 200,
    body: v("SINGLE", "two"),
  },
  {
    name: "update: masking a value that cannot be masked",
    method: "PUT",
    path: `${P}/SINGLE`,
    json: { masked: true },
    status: 400,
    body: { message: { value: ["is invalid"] } },
  },
  {
    name: "update: moving to a scope that holds the key",
    method: "PUT",
    path: `${P}/DEPLOY?filter[environment_scope]=production`,
    json: { environment_scope: "*" },
    status: 400,
    body: { message: { key: ["(DEPLOY) has already been taken"] } },
  },
  {
    name: "update: a missing key is 404",
    method: "PUT",
    path: `${P}/NOPE`,
    json: { value: "x" },
    status: 404,
    body: { message: "404 Variable Not Found" },
  },
  {
    name: "update: a Developer is refused",
    method: "PUT",
    path: `${P}/SINGLE`,
    token: "dev-token",
    json: { value: "x" },
    status: 403,
  },
  {
    name: "delete: a key in two scopes without a filter is 409",
    method: "DELETE",
    path: `${P}/DEPLOY`,
    status: 409,
  },
  {
    name: "delete: with a filter, 204 and only that one goes",
    method: "DELETE",
    path: `${P}/DEPLOY?filter[environment_scope]=production`,
    status: 204,
    after: { method: "GET", path: `${P}/DEPLOY`, body: v("DEPLOY", "everywhere") },
  },
  {
    name: "delete: a missing key is 404",
    method: "DELETE",
    path: `${P}/NOPE`,
    status: 404,
    body: { message: "404 Variable Not Found" },
  },
  {
    name: "delete: a Developer is refused",
    method: "DELETE",
    path: `${P}/SINGLE`,
    token: "dev-token",
    status: 403,
  },
];

/** Group variables show the same fields (their scope only on the licensed edition). */
const gv = v;

const groupCases: Case[] = [
  {
    name: "list: a Maintainer (admin_build on the group)",
    method: "GET",
    path: G,
    status: 200,
    body: [gv("GROUP_VAR", "g", { variable_type: "file" })],
  },
  {
    name: "list: a Developer is refused",
    method: "GET",
    path: G,
    token: "dev-token",
    status: 403,
    body: { message: "403 Forbidden" },
  },
  { name: "list: a guest is 401", method: "GET", path: G, token: null, status: 401 },
  {
    name: "list: a user who cannot see the group gets 404",
    method: "GET",
    path: G,
    token: "outsider-token",
    status: 404,
    body: { message: "404 Group Not Found" },
  },
  {
    name: "get: a missing key is 404 GroupVariable Not Found",
    method: "GET",
    path: `${G}/NOPE`,
    status: 404,
    body: { message: "404 GroupVariable Not Found" },
  },
  {
    name: "create: protected and masked are strings the model casts ('false' is false, 'yes' true)",
    method: "POST",
    path: G,
    form: "key=K&value=abcdefgh&protected=yes&masked=false",
    status: 201,
    body: gv("K", "abcdefgh", { protected: true }),
  },
  {
    name: "create: a blank protected is not a Boolean",
    method: "POST",
    path: G,
    json: { key: "K", value: "x", protected: "" },
    status: 400,
    body: { message: { protected: ["is not included in the list"] } },
  },
  {
    name: "create: the key rules of project variables",
    method: "POST",
    path: G,
    json: { key: "A B", value: "x" },
    status: 400,
    body: { message: { key: ["can contain only letters, digits and '_'."] } },
  },
  {
    name: "create: a taken key",
    method: "POST",
    path: G,
    json: { key: "GROUP_VAR", value: "x" },
    status: 400,
    body: { message: { key: ["(GROUP_VAR) has already been taken"] } },
  },
  {
    name: "create: licensed edition keeps an environment scope",
    method: "POST",
    path: G,
    json: { key: "GROUP_VAR", value: "x", environment_scope: "production" },
    status: 201,
    body: gv("GROUP_VAR", "x", { environment_scope: "production" }),
  },
  {
    name: "create: core ignores environment_scope and does not show one",
    options: { edition: "core" },
    method: "POST",
    path: G,
    json: { key: "GROUP_VAR", value: "x", environment_scope: "production" },
    status: 400,
    body: { message: { key: ["(GROUP_VAR) has already been taken"] } },
  },
  {
    name: "list on core: no environment_scope field",
    options: { edition: "core" },
    method: "GET",
    path: G,
    status: 200,
    body: [{ variable_type: "file", key: "GROUP_VAR", value: "g", protected: false, masked: false }],
  },
  {
    name: "get: with the key in two scopes the first is answered (no filter in 13.12)",
    before: [
      {
        method: "POST",
        path: G,
        json: { key: "GROUP_VAR", value: "second", environment_scope: "production" },
      },
    ],
    method: "GET",
    path: `${G}/GROUP_VAR`,
    status: 200,
    body: gv("GROUP_VAR", "g", { variable_type: "file" }),
  },
  {
    name: "update: changes value and type",
    method: "PUT",
    path: `${G}/GROUP_VAR`,
    json: { value: "new", variable_type: "env_var" },
    status: 200,
    body: gv("GROUP_VAR", "new"),
  },
  {
    name: "update: a missing key is 404",
    method: "PUT",
    path: `${G}/NOPE`,
    json: { value: "x" },
    status: 404,
    body: { message: "404 GroupVariable Not Found" },
  },
  {
    name: "update: a Developer is refused",
    method: "PUT",
    path: `${G}/GROUP_VAR`,
    token: "dev-token",
    json: { value: "x" },
    status: 403,
  },
  {
    name: "delete: If-Unmodified-Since before the last change is 412",
    method: "DELETE",
    path: `${G}/GROUP_VAR`,
    headers: { "If-Unmodified-Since": "Thu, 01 Jan 2015 00:00:00 GMT" },
    status: 412,
    body: { message: "412 Precondition Failed" },
  },
  {
    name: "delete: 204, then gone",
    method: "DELETE",
    path: `${G}/GROUP_VAR`,
    status: 204,
    after: { method: "GET", path: G, body: [] },
  },
  {
    name: "delete: a missing key is 404",
    method: "DELETE",
    path: `${G}/NOPE`,
    status: 404,
    body: { message: "404 GroupVariable Not Found" },
  },
];

const iv = (key: string, value: string, extra: Record<string, unknown> = {}) => ({
  variable_type: "env_var",
  key,
  value,
  protected: false,
  masked: false,
  ...extra,
});

const instanceCases: Case[] = [
  {
    name: "list: administrators only (no scope field)",
    method: "GET",
    path: I,
    token: "admin-token",
    status: 200,
    body: [iv("INSTANCE_VAR", "i-secret-1", { masked: true })],
  },
  {
    name: "list: a signed-in user who is not an administrator is 403",
    method: "GET",
    path: I,
    token: "owner-token",
    status: 403,
    body: { message: "403 Forbidden" },
  },
  {
    name: "list: a guest is 401",
    method: "GET",
    path: I,
    token: null,
    status: 401,
    body: { message: "401 Unauthorized" },
  },
  {
    name: "get: a missing key is 404 InstanceVariable Not Found",
    method: "GET",
    path: `${I}/NOPE`,
    token: "admin-token",
    status: 404,
    body: { message: "404 InstanceVariable Not Found" },
  },
  {
    name: "create: environment_scope is not a parameter",
    method: "POST",
    path: I,
    token: "admin-token",
    json: { key: "K", value: "x", environment_scope: "prod" },
    status: 201,
    body: iv("K", "x"),
  },
  {
    name: "create: a value of 10,000 characters",
    method: "POST",
    path: I,
    token: "admin-token",
    json: { key: "K", value: "x".repeat(10_000) },
    status: 201,
  },
  {
    name: "create: a value over 10,000 characters",
    method: "POST",
    path: I,
    token: "admin-token",
    json: { key: "K", value: "x".repeat(10_001) },
    status: 400,
    body: { message: { value: ["The value of the provided variable exceeds the 10000 character limit"] } },
  },
  {
    name: "create: a taken key",
    method: "POST",
    path: I,
    token: "admin-token",
    json: { key: "INSTANCE_VAR", value: "x" },
    status: 400,
    body: { message: { key: ["(INSTANCE_VAR) has already been taken"] } },
  },
  {
    name: "create: the 26th variable is over the limit",
    before: Array.from({ length: 24 }, (_, i) => ({
      method: "POST",
      path: I,
      token: "admin-token",
      json: { key: `V${i}`, value: "x" },
    })),
    method: "POST",
    path: I,
    token: "admin-token",
    json: { key: "ONE_TOO_MANY", value: "x" },
    status: 400,
    body: { message: { base: ["Maximum number of ci instance level variables (25) exceeded"] } },
  },
  {
    name: "create: the 25th variable is within the limit",
    before: Array.from({ length: 23 }, (_, i) => ({
      method: "POST",
      path: I,
      token: "admin-token",
      json: { key: `V${i}`, value: "x" },
    })),
    method: "POST",
    path: I,
    token: "admin-token",
    json: { key: "LAST", value: "x" },
    status: 201,
  },
  {
    name: "update: unmasking",
    method: "PUT",
    path: `${I}/INSTANCE_VAR`,
    token: "admin-token",
    json: { masked: "false", value: "short" },
    status: 200,
    body: iv("INSTANCE_VAR", "short"),
  },
  {
    name: "update: a non-administrator is 403",
    method: "PUT",
    path: `${I}/INSTANCE_VAR`,
    token: "owner-token",
    json: { value: "x" },
    status: 403,
  },
  {
    name: "delete: 204, then gone",
    method: "DELETE",
    path: `${I}/INSTANCE_VAR`,
    token: "admin-token",
    status: 204,
    after: { method: "GET", path: I, token: "admin-token", body: [] },
  },
  {
    name: "delete: a missing key is 404",
    method: "DELETE",
    path: `${I}/NOPE`,
    token: "admin-token",
    status: 404,
    body: { message: "404 InstanceVariable Not Found" },
  },
];

describe("project variables (/projects/:id/variables)", () => {
  it.each(projectCases)("$name", run);
});

describe("group variables (/groups/:id/variables)", () => {
  it.each(groupCases)("$name", run);
});

describe("instance variables (/admin/ci/variables)", () => {
  it.each(instanceCases)("$name", run);
});

describe("fixture key ci_variables", () => {
  it("refuses a variable the API would refuse, naming the entry and the rule", async () => {
    await expect(
      sandbox({
        fixture: {
          projects: [{ path: "root/p" }],
          ci_variables: [{ project: "root/p", key: "BAD KEY", value: "x" }],
        },
      }),
    ).rejects.toThrow(/ci_variables\[0\] \(BAD KEY\): key can contain only letters, digits and '_'\./);
  });

  it("refuses an environment scope on core group variables", async () => {
    await expect(
      sandbox({
        edition: "core",
        fixture: {
          groups: [{ path: "g" }],
          ci_variables: [{ group: "g", key: "K", value: "x", environment_scope: "prod" }],
        },
      }),
    ).rejects.toThrow(/ci_variables\[0\]\.environment_scope is not kept for group variables on this edition/);
  });

  it("persists variables in the state file: a restarted sandbox still has those the API created", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "ci-vars-")), "state.json");
    const first = await sandbox({ fixture, statePath });
    try {
      const r = await first.call("POST", P, {
        token: "maint-token",
        json: { key: "AFTER_RESTART", value: "kept" },
      });
      expect(r.status).toBe(201);
    } finally {
      await first.sb.stop();
    }
    const second = await sandbox({ statePath });
    try {
      const r = await second.call("GET", `${P}/AFTER_RESTART`, { token: "maint-token" });
      expect([r.status, r.body]).toEqual([200, v("AFTER_RESTART", "kept")]);
    } finally {
      await second.sb.stop();
    }
  });
});
