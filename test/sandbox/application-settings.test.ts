import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

type Settings = Record<string, unknown>;

/** Every attribute the contract's table and response list name (licensed ones marked). */
const CONTRACT_CORE = [
  "admin_notification_email",
  "after_sign_out_path",
  "after_sign_up_text",
  "spam_service_api_key",
  "spam_service_enabled",
  "allow_local_requests_from_hooks_and_services",
  "allow_local_requests_from_system_hooks",
  "allow_local_requests_from_web_hooks_and_services",
  "archive_builds_in_human_readable",
  "asset_proxy_enabled",
  "asset_proxy_url",
  "asset_proxy_whitelist",
  "authorized_keys_enabled",
  "auto_devops_domain",
  "auto_devops_enabled",
  "commit_email_hostname",
  "container_registry_token_expire_delay",
  "default_artifacts_expire_in",
  "default_branch_protection",
  "default_ci_config_path",
  "default_group_visibility",
  "default_project_creation",
  "default_projects_limit",
  "default_project_visibility",
  "default_snippet_visibility",
  "diff_max_patch_bytes",
  "disabled_oauth_sign_in_sources",
  "dns_rebinding_protection_enabled",
  "domain_blacklist",
  "domain_blacklist_enabled",
  "domain_whitelist",
  "dsa_key_restriction",
  "ecdsa_key_restriction",
  "ed25519_key_restriction",
  "rsa_key_restriction",
  "cloudk8s_integration_enabled",
  "cloudk8s_account_id",
  "cloudk8s_access_key_id",
  "email_author_in_body",
  "enabled_git_access_protocol",
  "enforce_terms",
  "terms",
  "external_auth_client_cert",
  "external_auth_client_key",
  "external_auth_client_key_pass",
  "external_authorization_service_default_label",
  "external_authorization_service_enabled",
  "external_authorization_service_url",
  "external_authorization_service_timeout",
  "id",
  "created_at",
  "updated_at",
  "signup_enabled",
  "password_authentication_enabled_for_web",
  "avatar_service_enabled",
  "sign_in_text",
  "home_page_url",
  "restricted_visibility_levels",
  "max_attachment_size",
  "session_expire_delay",
  "user_oauth_applications",
  "outbound_local_requests_whitelist",
  "repository_storages",
  "diagram_enabled",
  "diagram_url",
  "terminal_max_session_time",
  "polling_interval_multiplier",
  "first_day_of_week",
  "performance_bar_allowed_group_id",
  "instance_statistics_visibility_private",
  "user_show_add_ssh_key_message",
  "local_markdown_version",
];
const CONTRACT_LICENSED = [
  "allow_group_owners_to_manage_ldap",
  "check_namespace_plan",
  "searchengine_hosted",
  "searchengine_hosted_region",
  "searchengine_hosted_access_key",
  "searchengine_hosted_secret_access_key",
  "searchengine_indexing",
  "searchengine_limit_indexing",
  "searchengine_search",
  "searchengine_namespace_ids",
  "searchengine_project_ids",
  "searchengine_url",
  "email_additional_text",
  "file_template_project_id",
  "geo_node_allowed_ips",
  "geo_status_timeout",
  "deletion_adjourned_period",
];

/** The recorded response under the contract's neutral names (vendor names translated). */
function recordedNeutral(): Settings {
  const raw = JSON.parse(
    readFileSync(new URL("../fixtures/recordings/application-settings.json", import.meta.url), "utf8"),
  ) as Settings;
  const out: Settings = {};
  for (const [k, v] of Object.entries(raw)) {
    const n = k
      .replace(/^akismet_/, "spam_service_")
      .replace(/^eks_/, "cloudk8s_")
      .replace(/^elasticsearch_aws/, "searchengine_hosted")
      .replace(/^elasticsearch_/, "searchengine_")
      .replace(/^plantuml_/, "diagram_")
      .replace(/^gravatar_enabled$/, "avatar_service_enabled");
    out[n] = v;
  }
  return out;
}

describe("application settings (§3.8), licensed edition", () => {
  let c: Client;
  let clock = "2021-03-04T05:06:07.089Z";
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(clock), fixture: { groups: [{ path: "perf" }] } });
  });
  afterAll(() => c.sb.stop());

  it("administrators only: 401 for a guest, 403 for a user", async () => {
    for (const method of ["GET", "PUT"]) {
      const json = method === "PUT" ? { signup_enabled: false } : undefined;
      expect((await c.call(method, "/application/settings", { token: null, json })).body).toEqual({
        message: "401 Unauthorized",
      });
      const user = await c.call(method, "/application/settings", { token: "user-token", json });
      expect([user.status, user.body]).toEqual([403, { message: "403 Forbidden" }]);
    }
    expect(((await c.admin("GET", "/application/settings")).body as Settings)["signup_enabled"]).toBe(true);
  });

  it("GET returns every contract attribute with the documented defaults", async () => {
    const s = (await c.admin("GET", "/application/settings")).body as Settings;
    for (const k of [...CONTRACT_CORE, ...CONTRACT_LICENSED]) expect(Object.keys(s), k).toContain(k);
    expect(s).toMatchObject({
      id: 1,
      created_at: clock,
      updated_at: clock,
      default_branch_protection: 2,
      default_project_visibility: "private",
      default_group_visibility: "private",
      default_snippet_visibility: "private",
      default_projects_limit: 100000,
      domain_whitelist: null,
      domain_blacklist: [],
      domain_blacklist_enabled: false,
      rsa_key_restriction: 0,
      dsa_key_restriction: 0,
      ecdsa_key_restriction: 0,
      ed25519_key_restriction: 0,
      restricted_visibility_levels: [],
      spam_service_enabled: false,
      spam_service_api_key: null,
      terms: null,
      enforce_terms: false,
      external_authorization_service_timeout: 0.5,
      commit_email_hostname: "users.noreply.127.0.0.1",
      signin_enabled: true,
      password_authentication_enabled: true,
    });
  });

  it("GET carries the recorded attribute set and defaults, under neutral names", async () => {
    const s = (await c.admin("GET", "/application/settings")).body as Settings;
    const rec = recordedNeutral();
    // Recorded test data, not defaults; and values the contract types differently.
    const notDefaults = new Set([
      "terms",
      "searchengine_namespace_ids",
      "searchengine_project_ids",
      "commit_email_hostname",
      "polling_interval_multiplier",
    ]);
    for (const [k, v] of Object.entries(rec)) {
      expect(Object.keys(s), k).toContain(k);
      if (!notDefaults.has(k)) expect([k, s[k]]).toEqual([k, v]);
    }
    expect(s["polling_interval_multiplier"]).toBe(1);
  });

  it("write-only secrets are accepted and never returned", async () => {
    const r = await c.admin("PUT", "/application/settings", {
      asset_proxy_enabled: true,
      asset_proxy_url: "https://proxy.example.com",
      asset_proxy_secret_key: "proxy-secret-value",
      cloudk8s_integration_enabled: true,
      cloudk8s_account_id: "123",
      cloudk8s_access_key_id: "AKIA",
      cloudk8s_secret_access_key: "k8s-secret-value",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ asset_proxy_enabled: true, cloudk8s_integration_enabled: true });
    const get = await c.admin("GET", "/application/settings");
    for (const text of [r.text, get.text]) {
      expect(text).not.toContain("proxy-secret-value");
      expect(text).not.toContain("k8s-secret-value");
      expect(text).not.toContain("asset_proxy_secret_key");
      expect(text).not.toContain("cloudk8s_secret_access_key");
    }
    const state = await c.call("GET", "/-/sandbox/state");
    expect(state.text).not.toContain("proxy-secret-value");
    expect(state.text).not.toContain("k8s-secret-value");
    await c.admin("PUT", "/application/settings", {
      asset_proxy_enabled: false,
      cloudk8s_integration_enabled: false,
    });
  });

  it("an empty PUT lists every setting as missing (at_least_one_of)", async () => {
    const r = await c.admin("PUT", "/application/settings", {});
    expect(r.status).toBe(400);
    const error = (r.body as { error: string }).error;
    expect(error).toMatch(
      /^admin_notification_email, after_sign_out_path, after_sign_up_text, spam_service_api_key, .* are missing, at least one parameter must be provided$/,
    );
    expect(error).toContain("searchengine_url");
    expect(error).toContain("signin_enabled");
  });

  it("requires rules: enabling a feature without its settings is 400 '<name> is missing'", async () => {
    const cases: [Settings, string][] = [
      [{ spam_service_enabled: true }, "spam_service_api_key is missing"],
      [{ domain_blacklist_enabled: "true" }, "domain_blacklist is missing"],
      [
        { cloudk8s_integration_enabled: true, cloudk8s_account_id: "1" },
        "cloudk8s_access_key_id is missing, cloudk8s_secret_access_key is missing",
      ],
      [{ enforce_terms: true }, "terms is missing"],
      [{ external_auth_client_cert: "PEM" }, "external_auth_client_key is missing"],
      [
        { external_authorization_service_enabled: true },
        "external_authorization_service_default_label is missing",
      ],
      [{ asset_proxy_enabled: true }, "asset_proxy_url is missing"],
      [{ searchengine_indexing: true }, "searchengine_url is missing"],
      [{ searchengine_hosted: true }, "searchengine_hosted_region is missing"],
      [{ diagram_enabled: true }, "diagram_url is missing"],
      [{ require_two_factor_authentication: true }, "two_factor_grace_period is missing"],
    ];
    for (const [body, error] of cases) {
      const r = await c.admin("PUT", "/application/settings", body);
      expect([body, r.status, r.body]).toEqual([body, 400, { error }]);
    }
    // false never requires anything; with the dependency given it succeeds.
    expect((await c.admin("PUT", "/application/settings", { spam_service_enabled: false })).status).toBe(200);
    const ok = await c.admin("PUT", "/application/settings", {
      spam_service_enabled: true,
      spam_service_api_key: "akey",
    });
    expect(ok.body).toMatchObject({ spam_service_enabled: true, spam_service_api_key: "akey" });
  });

  it("form-encoded PUT: strings coerced by type, comma-separated arrays, levels as names or numbers", async () => {
    const r = await c.call("PUT", "/application/settings", {
      form: [
        "signup_enabled=false",
        "default_projects_limit=42",
        "external_authorization_service_timeout=2.5",
        "domain_blacklist_enabled=1",
        "domain_blacklist=spam.example%2C%20*.junk.example",
        "restricted_visibility_levels=public%2C10",
        "import_sources=github%2Cgit",
        "disabled_oauth_sign_in_sources=github",
        "asset_proxy_whitelist=a.example%2Cb.example",
        "default_group_visibility=internal",
      ].join("&"),
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      signup_enabled: false,
      default_projects_limit: 42,
      external_authorization_service_timeout: 2.5,
      domain_blacklist_enabled: true,
      domain_blacklist: ["spam.example", "*.junk.example"],
      domain_denylist: ["spam.example", "*.junk.example"],
      domain_denylist_enabled: true,
      domain_denylist_raw: "spam.example\n*.junk.example",
      restricted_visibility_levels: ["public", "internal"],
      import_sources: ["github", "git"],
      disabled_oauth_sign_in_sources: ["github"],
      asset_proxy_whitelist: ["a.example", "b.example"],
      asset_proxy_allowlist: ["a.example", "b.example"],
      default_group_visibility: "internal",
    });
    const arrays = await c.call(
      "PUT",
      "/application/settings?domain_whitelist[]=ok.example&domain_whitelist[]=x.example",
      {},
    );
    expect((arrays.body as Settings)["domain_whitelist"]).toEqual(["ok.example", "x.example"]);
    expect((arrays.body as Settings)["domain_allowlist"]).toEqual(["ok.example", "x.example"]);
    const reset = await c.admin("PUT", "/application/settings", { domain_whitelist: null });
    expect((reset.body as Settings)["domain_whitelist"]).toBeNull();
    await c.admin("PUT", "/application/settings", {
      domain_blacklist_enabled: false,
      signup_enabled: true,
      restricted_visibility_levels: [],
    });
  });

  it("blacklist enabled with an empty list is a model error", async () => {
    const r = await c.admin("PUT", "/application/settings", {
      domain_blacklist_enabled: true,
      domain_blacklist: "",
    });
    expect([r.status, r.body]).toEqual([
      400,
      { message: { domain_blacklist: ["Domain blacklist cannot be empty if Blacklist is enabled."] } },
    ]);
  });

  it("value validation: visibilities, key restrictions, branch protection, protocols, import sources, types", async () => {
    const cases: [Settings, string][] = [
      [{ default_project_visibility: "secret" }, "default_project_visibility does not have a valid value"],
      [
        { restricted_visibility_levels: ["private", "hidden"] },
        "restricted_visibility_levels does not have a valid value",
      ],
      [{ rsa_key_restriction: 1000 }, "rsa_key_restriction does not have a valid value"],
      [{ ed25519_key_restriction: 1024 }, "ed25519_key_restriction does not have a valid value"],
      [{ default_branch_protection: 4 }, "default_branch_protection does not have a valid value"],
      [{ default_project_creation: 3 }, "default_project_creation does not have a valid value"],
      [{ enabled_git_access_protocol: "ftp" }, "enabled_git_access_protocol does not have a valid value"],
      [{ import_sources: "github,svn" }, "import_sources does not have a valid value"],
      [{ first_day_of_week: 3 }, "first_day_of_week does not have a valid value"],
      [{ default_projects_limit: "many" }, "default_projects_limit is invalid"],
      [{ signup_enabled: "sometimes" }, "signup_enabled is invalid"],
    ];
    for (const [body, error] of cases) {
      const r = await c.admin("PUT", "/application/settings", body);
      expect([body, r.status, r.body]).toEqual([body, 400, { error }]);
    }
    const ok = await c.call("PUT", "/application/settings", {
      form: "rsa_key_restriction=-1&ecdsa_key_restriction=384&default_branch_protection=0&enabled_git_access_protocol=ssh",
    });
    expect(ok.body).toMatchObject({
      rsa_key_restriction: -1,
      ecdsa_key_restriction: 384,
      default_branch_protection: 0,
      enabled_git_access_protocol: "ssh",
    });
    const both = await c.admin("PUT", "/application/settings", { enabled_git_access_protocol: "nil" });
    expect((both.body as Settings)["enabled_git_access_protocol"]).toBeNull();
    const limit = await c.admin("PUT", "/application/settings", { default_projects_limit: -1 });
    expect([limit.status, limit.body]).toEqual([
      400,
      { message: { default_projects_limit: ["must be greater than or equal to 0"] } },
    ]);
    const url = await c.admin("PUT", "/application/settings", { home_page_url: "not a url" });
    expect([url.status, url.body]).toEqual([400, { message: { home_page_url: ["must be a valid URL"] } }]);
    await c.admin("PUT", "/application/settings", {
      rsa_key_restriction: 0,
      ecdsa_key_restriction: 0,
      default_branch_protection: 2,
    });
  });

  it("archive_builds_in_human_readable: at least 1 day, normalised, empty means never", async () => {
    const short = await c.admin("PUT", "/application/settings", {
      archive_builds_in_human_readable: "3 hours",
    });
    expect([short.status, short.body]).toEqual([
      400,
      { message: { archive_builds_in_seconds: ["must be at least 1 day"] } },
    ]);
    const junk = await c.admin("PUT", "/application/settings", {
      archive_builds_in_human_readable: "soonish",
    });
    expect([junk.status, junk.body]).toEqual([
      400,
      { message: { archive_builds_in_human_readable: ["is invalid"] } },
    ]);
    for (const [input, shown] of [
      ["15 days", "15 days"],
      ["1 month", "1 month"],
      ["2 years", "2 years"],
      ["1d", "1 day"],
      ["2 weeks", "14 days"],
    ]) {
      const r = await c.admin("PUT", "/application/settings", { archive_builds_in_human_readable: input });
      expect([input, r.status, (r.body as Settings)["archive_builds_in_human_readable"]]).toEqual([
        input,
        200,
        shown,
      ]);
    }
    const never = await c.admin("PUT", "/application/settings", { archive_builds_in_human_readable: "" });
    expect((never.body as Settings)["archive_builds_in_human_readable"]).toBeNull();
  });

  it("aliases: deprecated hooks flag and legacy password flags are rewritten; the password flags are exclusive", async () => {
    const r = await c.admin("PUT", "/application/settings", {
      allow_local_requests_from_hooks_and_services: true,
    });
    expect(r.body).toMatchObject({
      allow_local_requests_from_web_hooks_and_services: true,
      allow_local_requests_from_hooks_and_services: true,
    });
    const legacy = await c.call("PUT", "/application/settings", { form: "signin_enabled=false" });
    expect(legacy.body).toMatchObject({
      password_authentication_enabled_for_web: false,
      password_authentication_enabled: false,
      signin_enabled: false,
    });
    const both = await c.admin("PUT", "/application/settings", {
      password_authentication_enabled_for_web: true,
      signin_enabled: true,
    });
    expect([both.status, both.body]).toEqual([
      400,
      { error: "password_authentication_enabled_for_web, signin_enabled are mutually exclusive" },
    ]);
    await c.admin("PUT", "/application/settings", {
      password_authentication_enabled: true,
      allow_local_requests_from_web_hooks_and_services: false,
    });
    expect(
      ((await c.admin("GET", "/application/settings")).body as Settings)[
        "password_authentication_enabled_for_web"
      ],
    ).toBe(true);
  });

  it("performance_bar_allowed_group_id takes a group id or path; an unknown group clears it", async () => {
    const group = (await c.admin("GET", "/groups/perf")).body as { id: number };
    const byPath = await c.admin("PUT", "/application/settings", {
      performance_bar_allowed_group_id: "perf",
    });
    expect((byPath.body as Settings)["performance_bar_allowed_group_id"]).toBe(group.id);
    const cleared = await c.admin("PUT", "/application/settings", {
      performance_bar_allowed_group_id: "nope",
    });
    expect((cleared.body as Settings)["performance_bar_allowed_group_id"]).toBeNull();
    const byId = await c.admin("PUT", "/application/settings", {
      performance_bar_allowed_group_id: group.id,
    });
    expect((byId.body as Settings)["performance_bar_allowed_group_id"]).toBe(group.id);
  });

  it("updated_at moves when a value changes, not when a PUT changes nothing; values persist", async () => {
    clock = "2021-03-05T00:00:00.000Z";
    const same = await c.admin("PUT", "/application/settings", { signup_enabled: true });
    expect((same.body as Settings)["updated_at"]).not.toBe(clock);
    const r = await c.call(
      "PUT",
      "/application/settings?after_sign_out_path=https%3A%2F%2Fexample.org%2Fsign_out",
      {},
    );
    expect(r.body).toMatchObject({ after_sign_out_path: "https://example.org/sign_out", updated_at: clock });
    expect(((await c.admin("GET", "/application/settings")).body as Settings)["after_sign_out_path"]).toBe(
      "https://example.org/sign_out",
    );
  });
});

describe("application settings on the core edition", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ edition: "core", fixture: { application_settings: { default_projects_limit: 7 } } });
  });
  afterAll(() => c.sb.stop());

  it("licensed attributes are absent from GET and dropped silently from PUT; the fixture applies settings", async () => {
    const s = (await c.admin("GET", "/application/settings")).body as Settings;
    for (const k of CONTRACT_LICENSED) expect(Object.keys(s), k).not.toContain(k);
    for (const k of CONTRACT_CORE) expect(Object.keys(s), k).toContain(k);
    expect(s["default_projects_limit"]).toBe(7);
    const r = await c.admin("PUT", "/application/settings", {
      searchengine_indexing: true,
      email_additional_text: "x",
      signup_enabled: false,
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ signup_enabled: false });
    expect(Object.keys(r.body as Settings)).not.toContain("searchengine_indexing");
    const state = await c.call("GET", "/-/sandbox/state");
    expect(state.text).not.toContain("email_additional_text");
  });

  it("a fixture with an invalid setting stops the start-up with a message naming it", async () => {
    await expect(
      sandbox({ fixture: { application_settings: { default_branch_protection: 9 } } }),
    ).rejects.toThrow(
      /application_settings are not valid: .*default_branch_protection does not have a valid value/,
    );
  });
});
