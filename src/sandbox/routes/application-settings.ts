import { createHash } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { requireAdmin } from "../auth.js";
import { paramError, validation } from "../errors.js";
import { MAX_INTEGER_COLUMN } from "../model.js";
import { declare, type ParamSpec } from "../params.js";
import type { ParamHash } from "../request.js";
import {
  ALIASES,
  REQUIRES,
  REQUIRES_ON_PRESENCE,
  SETTINGS,
  type SettingDef,
  VALUES,
} from "../settings-catalog.js";
import type { Store } from "../store.js";

/**
 * Application settings (contract "Application settings"; platform-behavior §3.8). Administrators only (401 for a
 * guest, 403 for a user). The attribute set, types and defaults are in `../settings-catalog.ts`.
 *
 * `GET /application/settings` returns `id` (1), `created_at`, `updated_at` and every setting of the edition
 * (licensed-only settings only on the licensed edition), plus the platform's other names for some of them
 * (`domain_allowlist`, `domain_denylist`, `asset_proxy_allowlist`, `abuse_notification_email`,
 * `allow_local_requests_from_hooks_and_services`, legacy `signin_enabled` and `password_authentication_enabled`,
 * and the derived `domain_allowlist_raw`, `domain_denylist_raw`, `outbound_local_requests_allowlist_raw`).
 * `asset_proxy_secret_key` and `cloudk8s_secret_access_key` are write-only: accepted, never returned, and kept only
 * as `sha256:<hex>` (so the state file and `/-/sandbox/state` do not hold them either).
 * `external_auth_client_key` and `external_auth_client_key_pass` are "stored encrypted" but the recorded platform
 * response does return them, so the sandbox does too.
 * `polling_interval_multiplier` is a JSON number, as the contract types it; the platform writes its decimal column
 * as a string (`"1.0"` in the recording), which go-gitlab's `Settings` requires: that library cannot read these
 * settings from the sandbox (test/conformance/go/gogitlab reads them into its own type).
 *
 * `PUT /application/settings` takes any setting (query or body, JSON or form; strings coerced by type; array
 * settings also as comma-separated strings) with the platform's rules:
 * - nothing given: 400 `{"error":"<every setting> are missing, at least one parameter must be provided"}`;
 * - `given X: true { requires Y }` pairs (`REQUIRES` in the catalog): 400 `{"error":"Y is missing"}`;
 * - `password_authentication_enabled_for_web`, `password_authentication_enabled`, `signin_enabled` are mutually
 *   exclusive; the legacy two are rewritten to the first, as is `allow_local_requests_from_hooks_and_services` to
 *   `allow_local_requests_from_web_hooks_and_services`, and the later `*_allowlist`/`*_denylist` names to the
 *   contract's `*_whitelist`/`*_blacklist`;
 * - values: visibilities (`private`, `internal`, `public`; `restricted_visibility_levels` also as 0/10/20), key
 *   restrictions, `default_branch_protection` 0..3, `default_project_creation` 0..2, `first_day_of_week` 0/1/6,
 *   `enabled_git_access_protocol` ssh/http/nil, `import_sources`;
 * - model validations, 400 `{"message":{...}}`: `archive_builds_in_human_readable` at least 1 day
 *   (`archive_builds_in_seconds: ["must be at least 1 day"]`; an unreadable duration is
 *   `archive_builds_in_human_readable: ["is invalid"]`), a non-empty blacklist when it is enabled, non-blank terms
 *   when they are enforced, limits that must not be negative, URLs that must be valid;
 * - `performance_bar_allowed_group_id` (or `_path`) takes a group id or full path; an unknown group clears it;
 * - on core, licensed-only settings are dropped silently; JSON `null` resets a setting whose default is null;
 * - `updated_at` moves when a value changes.
 *
 * Fixture key `application_settings`: a mapping of settings applied with the same rules as PUT.
 */

export interface ApplicationSettingsArea {
  /** Values that differ from the catalog's defaults (plain JSON). */
  values: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

const BY_NAME = new Map(SETTINGS.map((s) => [s.name, s]));
const VISIBILITY_STRINGS = ["private", "internal", "public"] as const;
const VISIBILITY_BY_LEVEL: Record<string, string> = { "0": "private", "10": "internal", "20": "public" };
const PASSWORD_FLAGS = [
  "password_authentication_enabled_for_web",
  "password_authentication_enabled",
  "signin_enabled",
];
/** Accepted on PUT besides the catalog and its aliases (legacy performance bar inputs). */
const EXTRA_INPUTS = ["performance_bar_allowed_group_path", "performance_bar_enabled"];
const URL_SETTINGS = ["home_page_url", "after_sign_out_path", "help_page_support_url"];

function available(def: SettingDef, licensed: boolean): boolean {
  return licensed || !def.licensed;
}

/** The declare() spec of one setting; visibility lists are checked separately (they take names or levels). */
function specOf(def: SettingDef): ParamSpec {
  const values = VALUES[def.name];
  switch (def.type) {
    case "visibility":
      return { type: "string", values: VISIBILITY_STRINGS };
    case "visibility[]":
      return { type: "string[]", split: true };
    case "string[]":
    case "integer[]":
      return { type: def.type, split: true, ...(values ? { values } : {}) };
    default:
      if (def.name === "performance_bar_allowed_group_id") return { type: "string" };
      return { type: def.type, ...(values ? { values } : {}) };
  }
}

// ---- durations (ChronicDuration, as archive_builds_in_human_readable uses) ----

const UNIT_SECONDS: [RegExp, number][] = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, 3600],
  [/^(d|days?)$/, 86_400],
  [/^(w|wks?|weeks?)$/, 604_800],
  [/^(mos?|mons?|months?)$/, 2_592_000],
  [/^(y|yrs?|years?)$/, 31_557_600],
];

/** Seconds of a duration such as `15 days`, `1 month 2 weeks`, `3h`; `undefined` when it cannot be read. */
export function parseDuration(text: string): number | undefined {
  const s = text
    .trim()
    .toLowerCase()
    .replace(/,|\band\b/g, " ");
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s));
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;
  let total = 0;
  let consumed = "";
  for (const m of s.matchAll(re)) {
    const unit = UNIT_SECONDS.find(([r]) => r.test(m[2] ?? ""));
    if (!unit) return undefined;
    total += Number(m[1]) * unit[1];
    consumed += m[0];
  }
  if (consumed === "" || consumed.replace(/\s/g, "") !== s.replace(/\s/g, "")) return undefined;
  return Math.round(total);
}

/** ChronicDuration's long output: `1 year 2 months 3 days`. */
export function formatDuration(seconds: number): string {
  const parts: string[] = [];
  let rest = seconds;
  for (const [name, size] of [
    ["year", 31_557_600],
    ["month", 2_592_000],
    ["day", 86_400],
    ["hour", 3600],
    ["minute", 60],
    ["second", 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${name}${n === 1 ? "" : "s"}`);
    rest -= n * size;
  }
  return parts.join(" ") || "0 seconds";
}

function validUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname !== "";
  } catch {
    return false;
  }
}

export class SettingsError extends Error {
  override name = "SettingsError";
}

/**
 * Validates and applies a set of settings as `PUT /application/settings` does. Throws the platform's 400s.
 * Returns the names that changed.
 */
export function applySettings(
  store: Store,
  area: ApplicationSettingsArea,
  raw: ParamHash,
  licensed: boolean,
): string[] {
  const inputs = [...SETTINGS.map((s) => s.name), ...Object.keys(ALIASES), ...EXTRA_INPUTS];
  const params: ParamHash = {};
  for (const name of inputs)
    if (Object.hasOwn(raw, name) && raw[name] !== undefined) params[name] = raw[name] ?? null;
  if (Object.keys(params).length === 0) {
    const listed = [
      ...SETTINGS.filter((s) => available(s, licensed)).map((s) => s.name),
      ...Object.keys(ALIASES),
    ];
    throw paramError(`${listed.join(", ")} are missing, at least one parameter must be provided`);
  }
  // JSON null resets a nullable setting; it is kept out of the coercion below.
  const nulls = Object.keys(params).filter((k) => params[k] === null);
  for (const k of nulls) delete params[k];

  const spec: Record<string, ParamSpec> = {};
  for (const def of SETTINGS) spec[def.name] = specOf(def);
  for (const [alias, target] of Object.entries(ALIASES)) {
    const def = BY_NAME.get(target);
    if (def) spec[alias] = specOf(def);
  }
  spec["performance_bar_allowed_group_path"] = { type: "string" };
  spec["performance_bar_enabled"] = { type: "boolean" };
  const out = declare(params, spec, { mutuallyExclusive: [PASSWORD_FLAGS] }) as Record<string, unknown>;

  // Aliases become the contract's names (an explicit contract name wins).
  for (const [alias, target] of Object.entries(ALIASES)) {
    if (out[alias] !== undefined && out[target] === undefined) out[target] = out[alias];
    delete out[alias];
    if (nulls.includes(alias) && !nulls.includes(target)) nulls.push(target);
  }

  // given X: true { requires Y }
  const missing: string[] = [];
  for (const [trigger, deps] of REQUIRES) {
    const def = BY_NAME.get(trigger);
    if (!def || !available(def, licensed)) continue;
    const v = out[trigger];
    const fired = REQUIRES_ON_PRESENCE.has(trigger) ? v !== undefined : v === true;
    if (!fired) continue;
    for (const dep of deps) if (out[dep] === undefined) missing.push(`${dep} is missing`);
  }
  if (missing.length > 0) throw paramError([...new Set(missing)].join(", "));

  // Visibility lists take names or levels.
  const rvl = out["restricted_visibility_levels"];
  if (Array.isArray(rvl)) {
    const mapped = rvl.map((x) => VISIBILITY_BY_LEVEL[String(x)] ?? String(x));
    if (!mapped.every((x) => (VISIBILITY_STRINGS as readonly string[]).includes(x)))
      throw paramError("restricted_visibility_levels does not have a valid value");
    out["restricted_visibility_levels"] = [...new Set(mapped)];
  }

  const next: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(out)) {
    const def = BY_NAME.get(name);
    if (!def || !available(def, licensed)) continue; // core drops licensed settings silently
    next[name] = value;
  }
  for (const name of nulls) {
    const def = BY_NAME.get(name);
    if (def && available(def, licensed) && (def.default === null || def.type.endsWith("[]")))
      next[name] = null;
  }

  // Legacy performance bar inputs.
  const barRef =
    out["performance_bar_allowed_group_path"] ??
    (typeof out["performance_bar_allowed_group_id"] === "string"
      ? out["performance_bar_allowed_group_id"]
      : undefined);
  if (typeof barRef === "string") {
    const group = barRef === "" ? undefined : store.groupByRef(barRef);
    next["performance_bar_allowed_group_id"] = group ? group.id : null;
  }
  if (out["performance_bar_enabled"] === false) next["performance_bar_allowed_group_id"] = null;

  if (next["enabled_git_access_protocol"] === "nil" || next["enabled_git_access_protocol"] === "")
    next["enabled_git_access_protocol"] = null;

  // Model validations.
  const errors: Record<string, string[]> = {};
  const merged = { ...currentValues(area), ...next };
  const archive = next["archive_builds_in_human_readable"];
  if (typeof archive === "string") {
    if (archive.trim() === "") next["archive_builds_in_human_readable"] = null;
    else {
      const seconds = parseDuration(archive);
      if (seconds === undefined) errors["archive_builds_in_human_readable"] = ["is invalid"];
      else if (seconds < 86_400) errors["archive_builds_in_seconds"] = ["must be at least 1 day"];
      else next["archive_builds_in_human_readable"] = formatDuration(seconds);
    }
  }
  for (const name of [
    "default_projects_limit",
    "session_expire_delay",
    "terminal_max_session_time",
    "two_factor_grace_period",
  ]) {
    const v = next[name];
    if (typeof v === "number" && v < 0) errors[name] = ["must be greater than or equal to 0"];
  }
  // An integer column: the platform cannot store more (it fails with a 500); the sandbox says why instead.
  const grace = next["two_factor_grace_period"];
  if (typeof grace === "number" && grace > MAX_INTEGER_COLUMN)
    errors["two_factor_grace_period"] = [`must be less than or equal to ${MAX_INTEGER_COLUMN}`];
  for (const name of ["max_attachment_size", "container_registry_token_expire_delay"]) {
    const v = next[name];
    if (typeof v === "number" && v <= 0) errors[name] = ["must be greater than 0"];
  }
  const timeout = next["external_authorization_service_timeout"];
  if (typeof timeout === "number" && (timeout <= 0 || timeout > 10))
    errors["external_authorization_service_timeout"] = [
      timeout <= 0 ? "must be greater than 0" : "must be less than or equal to 10",
    ];
  for (const name of URL_SETTINGS) {
    const v = next[name];
    if (typeof v === "string" && v !== "" && !validUrl(v)) errors[name] = ["must be a valid URL"];
  }
  if (merged["domain_blacklist_enabled"] === true) {
    const list = merged["domain_blacklist"];
    if (!Array.isArray(list) || list.length === 0)
      errors["domain_blacklist"] = ["Domain blacklist cannot be empty if Blacklist is enabled."];
  }
  if (
    merged["enforce_terms"] === true &&
    (typeof merged["terms"] !== "string" || merged["terms"].trim() === "")
  )
    errors["terms"] = ["can't be blank"];
  if (Object.keys(errors).length > 0) throw validation(errors);

  const changed: string[] = [];
  for (const [name, given] of Object.entries(next)) {
    const def = BY_NAME.get(name);
    if (!def) continue;
    // Write-only secrets are kept only as a SHA-256, so neither the state file nor /-/sandbox/state holds them.
    const value =
      def.writeOnly && typeof given === "string" && given !== ""
        ? `sha256:${createHash("sha256").update(given).digest("hex")}`
        : given;
    const before = name in area.values ? area.values[name] : def.default;
    if (JSON.stringify(before) === JSON.stringify(value)) continue;
    changed.push(name);
    if (JSON.stringify(def.default) === JSON.stringify(value)) delete area.values[name];
    else area.values[name] = structuredClone(value);
  }
  if (changed.length > 0) area.updated_at = store.nowIso();
  return changed;
}

/**
 * The current value of one setting (its default when never set), for other route modules whose behaviour
 * depends on the instance's settings (`settingValue(store, "default_projects_limit")`). Undefined for an unknown name.
 */
export function settingValue(store: Store, name: string): unknown {
  const def = BY_NAME.get(ALIASES[name] ?? name);
  if (!def) return undefined;
  const area = store.data.areas["application_settings"] as ApplicationSettingsArea | undefined;
  const v = area && def.name in area.values ? area.values[def.name] : def.default;
  return structuredClone(v);
}

function currentValues(area: ApplicationSettingsArea): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const def of SETTINGS) out[def.name] = def.name in area.values ? area.values[def.name] : def.default;
  return out;
}

function settingsJson(ctx: Ctx, area: ApplicationSettingsArea): Record<string, unknown> {
  const values = currentValues(area);
  const body: Record<string, unknown> = {
    id: 1,
    created_at: area.created_at,
    updated_at: area.updated_at,
  };
  for (const def of SETTINGS) {
    if (!available(def, ctx.licensed) || def.writeOnly) continue;
    body[def.name] = structuredClone(values[def.name]);
  }
  if (body["commit_email_hostname"] === null)
    body["commit_email_hostname"] = `users.noreply.${new URL(ctx.baseUrl).hostname}`;
  for (const [alias, target] of Object.entries(ALIASES)) body[alias] = structuredClone(values[target]);
  body["domain_allowlist"] = values["domain_whitelist"] ?? [];
  const lines = (v: unknown) => (Array.isArray(v) ? v.join("\n") : "");
  body["domain_allowlist_raw"] = lines(values["domain_whitelist"]);
  body["domain_denylist_raw"] = lines(values["domain_blacklist"]);
  body["outbound_local_requests_allowlist_raw"] = lines(values["outbound_local_requests_whitelist"]);
  const sorted: Record<string, unknown> = { id: 1 };
  for (const k of Object.keys(body).sort()) if (k !== "id") sorted[k] = body[k];
  return sorted;
}

/** The settings' own table in the store, created on first use. */
function settingsArea(store: Store): ApplicationSettingsArea {
  return store.area<ApplicationSettingsArea>("application_settings", () => {
    const now = store.nowIso();
    return { values: {}, created_at: now, updated_at: now };
  });
}

/**
 * Changes settings as `PUT /application/settings` does, for sandbox options that configure the instance
 * (`--rate-limit` turns the API throttles on). Returns the names that changed.
 */
export function updateSettings(store: Store, values: ParamHash, licensed: boolean): string[] {
  return applySettings(store, settingsArea(store), values, licensed);
}

export function register(app: SandboxApp): void {
  const area = () => settingsArea(app.store);

  app.get("/application/settings", (ctx) => {
    requireAdmin(ctx);
    return settingsJson(ctx, area());
  });

  app.put("/application/settings", (ctx) => {
    requireAdmin(ctx);
    applySettings(ctx.store, area(), ctx.params, ctx.licensed);
    return settingsJson(ctx, area());
  });

  app.onFixture("application_settings", (value, { store, source }) => {
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new SettingsError(
        `sandbox: fixture ${source}: application_settings must be a mapping of setting names to values`,
      );
    const a = settingsArea(store);
    try {
      applySettings(store, a, value as ParamHash, app.licensed);
    } catch (error) {
      const detail =
        error && typeof error === "object" && "body" in error
          ? JSON.stringify((error as { body: unknown }).body)
          : String(error);
      throw new SettingsError(`sandbox: fixture ${source}: application_settings are not valid: ${detail}`);
    }
  });
}
