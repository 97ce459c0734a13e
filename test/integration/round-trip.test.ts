/**
 * Every declared field of every kind, generated from the schemas: applied (variant A), re-planned (empty), checked
 * by an independent read of the platform; then changed (variant B), re-planned, checked again. A field a kind's
 * schema adds is covered here without anyone writing a test for it, and a collection a new kind adds fails the
 * guard at the end until it has a case here (or an exclusion that says why it cannot have one).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kinds } from "../../src/kinds/index.js";
import { accessLevelNumber, durationSeconds } from "../../src/manifest/normalize.js";
import { type Deployer, deployersByName, sortedDeployers } from "./cycle.js";
import { Bench } from "./helpers.js";
import { collections, loadSchema, type Schema, type Variant, values, yamlFields } from "./schema-values.js";

const SCIM_TOKEN = "rt-scim-token";

const fixture = {
  users: [
    { username: "rt-user", name: "RT User", email: "rt-user@rt.example" },
    { username: "rt-member", name: "RT Member", email: "rt-member@rt.example" },
  ],
  groups: [
    { path: "rt", visibility: "public", members: { "rt-user": "developer" } },
    { path: "rt-partner", visibility: "public" },
    { path: "rt-vendor", visibility: "public" },
  ],
  projects: [
    {
      path: "rt/app",
      default_branch: "main",
      visibility: "private",
      shared_with: { "rt-vendor": "developer" },
    },
  ],
  issues: [{ project: "rt/app", iid: 1, title: "rt issue" }],
  epics: [{ group: "rt", iid: 1, title: "RT epic" }],
  scim: [{ group: "rt", token: SCIM_TOKEN }],
  error_tracking: [
    {
      project: "rt/app",
      active: false,
      project_name: "app",
      tracker_external_url: "https://errors.rt.example/app",
      api_url: "https://errors.rt.example/api/0/projects/rt/app",
    },
  ],
};

type Overrides = Record<string, [unknown, unknown] | null>;

interface KindCase {
  name: string;
  /** The collection this case covers, as `<parent collection>.<collection>` (`projects.badges`). */
  at: string;
  schema: string;
  /** Environment for the CLI (a SCIM token). */
  env?: Record<string, string>;
  overrides?: Overrides;
  /** Fields the platform never returns (write-only) or returns in another form: compared by `same` instead. */
  skipCompare?: string[];
  /** The manifest for the generated fields (`y(indent)` renders them at that indentation). */
  manifest: (y: (indent: string) => string) => string;
  read: (bench: Bench) => Promise<Record<string, unknown>[]>;
  /** How a live value is compared with the declared one, where it is not simply equal. */
  same?: (field: string, live: unknown, declared: unknown) => boolean | undefined;
}

const sameInstant = (a: unknown, b: unknown) => Date.parse(String(a)) === Date.parse(String(b));
/** A live instant and a declared date (midnight UTC) or instant. */
const sameDay = (live: unknown, declared: unknown) =>
  sameInstant(
    live,
    /^\d{4}-\d{2}-\d{2}$/.test(String(declared)) ? `${String(declared)}T00:00:00Z` : declared,
  );

/** An access level as the platform gives it, for one declared by name or number. */
const sameLevel = (live: unknown, declared: unknown) => live === accessLevelNumber(declared);

type ApiAccess = { access_level: number | null; user_id: number | null; group_id: number | null };

/**
 * A protected branch's entries of one kind (push, merge, unprotect) in the manifest's terms, by independent reads:
 * the first role is the level, every other entry an allowance (users by username, groups by full path).
 */
async function refEntries(
  b: Bench,
  entries: ApiAccess[],
): Promise<{ level: number | null; allowed: unknown[] }> {
  const first = entries.findIndex((e) => e.user_id === null && e.group_id === null);
  const allowed = await Promise.all(
    entries
      .filter((_, i) => i !== first)
      .map(async (e) =>
        e.user_id !== null
          ? { user: (await b.get<{ username: string }>(`/users/${e.user_id}`)).username }
          : e.group_id !== null
            ? { group: (await b.get<{ full_path: string }>(`/groups/${e.group_id}`)).full_path }
            : { access_level: e.access_level },
      ),
  );
  return { level: first < 0 ? null : entries[first]!.access_level, allowed };
}

/** Allowances compare as a set, roles by number. */
const sameAllowances = (live: unknown, declared: unknown) => {
  const text = (entries: Record<string, unknown>[]) =>
    entries
      .map((e) =>
        JSON.stringify("access_level" in e ? { access_level: accessLevelNumber(e["access_level"]) } : e),
      )
      .sort();
  return (
    JSON.stringify(text(live as Record<string, unknown>[])) ===
    JSON.stringify(text(declared as Record<string, unknown>[]))
  );
};

/** A share as the manifest names its fields. */
const shareFields = (s: Record<string, unknown>) => ({
  group: s["group_full_path"],
  group_access: s["group_access_level"],
  expires_at: s["expires_at"],
});

const CASES: KindCase[] = [
  {
    // Created by the first variant (with everything the platform takes on update only, and archived), then changed.
    name: "project",
    at: "instance.projects",
    schema: "project.schema.json",
    overrides: {
      name: ["RT Settings", "RT Settings B"],
      visibility: ["public", "internal"],
      default_branch: ["main", "develop"],
      build_timeout: ["90 minutes", 7200],
      // A disabled repository hides ci_config_path (refused in the plan: project-settings.test.ts).
      repository_access_level: ["enabled", "private"],
    },
    manifest: (y) => `projects:\n  rt/settings:\n${y("    ")}\n`,
    read: async (b) => {
      const p = await b.get<Record<string, unknown>>("/projects/rt%2Fsettings").catch(() => undefined);
      return p ? [p] : [];
    },
    same: (field, live, declared) =>
      field === "build_timeout"
        ? live === (typeof declared === "number" ? declared : durationSeconds(String(declared)))
        : undefined,
  },
  {
    name: "group",
    at: "instance.groups",
    schema: "group.schema.json",
    overrides: { name: ["RT A", "RT B"], visibility: ["public", "internal"], description: ["rt a", "rt b"] },
    manifest: (y) => `groups:\n  rt/sub:\n${y("    ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/subgroups")).filter((g) => g["path"] === "sub"),
  },
  {
    name: "broadcast message",
    at: "instance.broadcast_messages",
    schema: "broadcast-message.schema.json",
    overrides: {
      message: null,
      target_path: ["/dashboard", "/projects"],
      ends_at: ["2027-01-06T08:00:00Z", "2027-01-07T09:30:00Z"],
    },
    manifest: (y) => `instance:\n  broadcast_messages:\n    - message: Round trip\n${y("      ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/broadcast_messages")).filter(
        (m) => m["message"] === "Round trip",
      ),
    same: (field, live, declared) =>
      field.endsWith("_at")
        ? sameInstant(live, declared)
        : field === "color" || field === "font"
          ? String(live).toLowerCase() === String(declared).toLowerCase()
          : undefined,
  },
  {
    name: "system hook",
    at: "instance.system_hooks",
    schema: "system-hook.schema.json",
    overrides: { url: null, token: ["rt-token-a", "rt-token-b"] },
    skipCompare: ["token"],
    manifest: (y) => `instance:\n  system_hooks:\n    - url: https://hooks.rt.example/in\n${y("      ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/hooks")).filter(
        (h) => h["url"] === "https://hooks.rt.example/in",
      ),
  },
  {
    name: "group milestone",
    at: "groups.milestones",
    schema: "milestone.schema.json",
    overrides: {
      title: null,
      start_date: ["2027-01-01", "2027-02-01"],
      due_date: ["2027-03-31", "2027-04-30"],
    },
    manifest: (y) => `groups:\n  rt:\n    milestones:\n      - title: rt-m\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/milestones")).filter((m) => m["title"] === "rt-m"),
  },
  {
    name: "project milestone",
    at: "projects.milestones",
    schema: "milestone.schema.json",
    overrides: {
      title: null,
      start_date: ["2027-01-01", "2027-02-01"],
      due_date: ["2027-03-31", "2027-04-30"],
    },
    // Titles are unique across a group and its projects: another title than the group milestone's.
    manifest: (y) => `projects:\n  rt/app:\n    milestones:\n      - title: rt-pm\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/milestones")).filter(
        (m) => m["title"] === "rt-pm",
      ),
  },
  {
    name: "pipeline schedule",
    at: "projects.pipeline_schedules",
    schema: "pipeline-schedule.schema.json",
    overrides: { description: null, ref: ["main", "release"] },
    manifest: (y) =>
      `projects:\n  rt/app:\n    pipeline_schedules:\n      - description: rt-s\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/pipeline_schedules")).filter(
        (s) => s["description"] === "rt-s",
      ),
  },
  {
    name: "project badge",
    at: "projects.badges",
    schema: "badge.schema.json",
    overrides: { name: null },
    manifest: (y) => `projects:\n  rt/app:\n    badges:\n      - name: rt-b\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/badges")).filter(
        (x) => x["name"] === "rt-b" && x["kind"] === "project",
      ),
  },
  {
    name: "deploy key",
    at: "projects.deploy_keys",
    schema: "deploy-key.schema.json",
    overrides: { key: null },
    manifest: (y) => `projects:\n  rt/app:\n    deploy_keys:\n      - key: "${KEY}"\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/deploy_keys")).filter((k) =>
        String(k["key"]).includes(KEY.split(" ")[1]!),
      ),
  },
  {
    name: "wiki page",
    at: "projects.wiki_pages",
    schema: "wiki-page.schema.json",
    overrides: {
      title: null,
      slug: null,
      content_file: null,
      attachments: null,
      content: ["Round trip A", "Round trip B"],
    },
    manifest: (y) => `projects:\n  rt/app:\n    wiki_pages:\n      - title: RT Page\n${y("        ")}\n`,
    read: async (b) => {
      const page = await b
        .get<Record<string, unknown>>("/projects/rt%2Fapp/wikis/RT-Page")
        .catch(() => undefined);
      return page ? [page] : [];
    },
  },
  {
    name: "project notification settings",
    at: "projects.notification_settings",
    schema: "notification-settings.schema.json",
    // new_epic is a group's switch: a validation error on a project (tested below).
    overrides: { notification_email: null, level: ["custom", "custom"], new_epic: null },
    manifest: (y) => `projects:\n  rt/app:\n    notification_settings:\n${y("      ")}\n`,
    read: async (b) => {
      const s = await b.get<{ level: string; events?: Record<string, unknown> }>(
        "/projects/rt%2Fapp/notification_settings",
      );
      return [{ level: s.level, ...(s.events ?? {}) }];
    },
  },
  {
    name: "group notification settings",
    at: "groups.notification_settings",
    schema: "notification-settings.schema.json",
    overrides: { notification_email: null, level: ["custom", "custom"] },
    manifest: (y) => `groups:\n  rt:\n    notification_settings:\n${y("      ")}\n`,
    read: async (b) => {
      const s = await b.get<{ level: string; events?: Record<string, unknown> }>(
        "/groups/rt/notification_settings",
      );
      return [{ level: s.level, ...(s.events ?? {}) }];
    },
  },
  {
    name: "schedule variable",
    at: "pipeline_schedules.variables",
    schema: "schedule-variable.schema.json",
    overrides: { key: null, value: ["rt-value-a", "rt-value-b"] },
    manifest: (y) =>
      `projects:\n  rt/app:\n    pipeline_schedules:\n      - description: rt-vars\n        ref: main\n        cron: "0 1 * * *"\n        variables:\n          - key: RT_VAR\n${y("            ")}\n`,
    read: async (b) => {
      const [s] = (
        await b.get<{ id: number; description: string }[]>("/projects/rt%2Fapp/pipeline_schedules")
      ).filter((x) => x.description === "rt-vars");
      const detail = await b.get<{ variables: Record<string, unknown>[] }>(
        `/projects/rt%2Fapp/pipeline_schedules/${s!.id}`,
      );
      return detail.variables.filter((v) => v["key"] === "RT_VAR");
    },
  },
  {
    name: "application settings",
    at: "instance.application_settings",
    schema: "application-settings.schema.json",
    overrides: {
      // Deprecated: sent under its replacement, which is declared too.
      allow_local_requests_from_hooks_and_services: null,
      performance_bar_allowed_group_path: ["rt", ""],
    },
    skipCompare: ["asset_proxy_secret_key", "cloudk8s_secret_access_key"],
    manifest: (y) => `instance:\n  application_settings:\n${y("    ")}\n`,
    read: async (b) => {
      const live = await b.get<Record<string, unknown>>("/application/settings");
      // The platform answers with the group's id; the manifest names its path.
      const id = live["performance_bar_allowed_group_id"];
      const path =
        typeof id === "number" ? (await b.get<{ full_path: string }>(`/groups/${id}`)).full_path : "";
      return [{ ...live, performance_bar_allowed_group_path: path }];
    },
    same: (field, live, declared) => {
      if (field === "archive_builds_in_human_readable") {
        return { "30 days": "1 month", "2 years": "2 years" }[String(declared)] === live;
      }
      if (Array.isArray(declared) && typeof live === "string") return live === declared.join(",");
      // A list setting written as comma-separated text reads back as a list.
      if (typeof declared === "string" && Array.isArray(live)) return live.join(",") === declared;
      return undefined;
    },
  },
  {
    name: "error tracking",
    at: "projects.error_tracking",
    schema: "error-tracking.schema.json",
    manifest: (y) => `projects:\n  rt/app:\n    error_tracking:\n${y("      ")}\n`,
    read: async (b) => [await b.get<Record<string, unknown>>("/projects/rt%2Fapp/error_tracking/settings")],
  },
  {
    name: "group badge",
    at: "groups.badges",
    schema: "badge.schema.json",
    overrides: { name: null },
    manifest: (y) => `groups:\n  rt:\n    badges:\n      - name: rt-gb\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/badges")).filter((x) => x["name"] === "rt-gb"),
  },
  {
    name: "protected environment",
    at: "projects.protected_environments",
    schema: "protected-environment.schema.json",
    overrides: {
      name: null,
      // Deployers of each kind; the user is a member of the project's group, and a project's own group has access.
      deploy_access_levels: [
        [{ access_level: 40 }],
        [{ access_level: 30 }, { user: "rt-user" }, { group: "rt" }],
      ],
    },
    manifest: (y) =>
      `projects:\n  rt/app:\n    protected_environments:\n      - name: rt-env\n${y("        ")}\n`,
    read: async (b) => {
      const envs = (
        await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/protected_environments")
      ).filter((e) => e["name"] === "rt-env");
      // The platform names deployers by id: back to the manifest's terms by independent reads.
      return Promise.all(
        envs.map(async (e) => ({
          ...e,
          deploy_access_levels: await deployersByName(
            b,
            e["deploy_access_levels"] as Parameters<typeof deployersByName>[1],
          ),
        })),
      );
    },
    // A set of deployers: the order is not the platform's to keep.
    same: (field, live, declared) =>
      field === "deploy_access_levels"
        ? JSON.stringify(live) === JSON.stringify(sortedDeployers(declared as Deployer[]))
        : undefined,
  },
  {
    name: "trigger",
    at: "projects.triggers",
    schema: "trigger.schema.json",
    // The description is the identity and the trigger's only field (token_file is local, never sent).
    overrides: { description: null },
    manifest: (y) =>
      `projects:\n  rt/app:\n    triggers:\n      - description: rt-trigger\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/triggers")).filter(
        (t) => t["description"] === "rt-trigger",
      ),
  },
  {
    name: "SCIM user",
    at: "groups.scim_users",
    schema: "scim-user.schema.json",
    env: { FORGEFORM_SCIM_TOKEN: SCIM_TOKEN },
    overrides: {
      externalId: null,
      // A username is letters, digits, '_', '-' and '.' (the platform refuses others).
      userName: ["rt-scim-a", "rt-scim-b"],
      name: [
        { formatted: "RT Scim A", givenName: "RT", familyName: "Scim A" },
        { formatted: "RT Scim B", givenName: "RT", familyName: "Scim B" },
      ],
      emails: [
        [{ type: "work", value: "scim-a@rt.example", primary: true }],
        [{ type: "work", value: "scim-b@rt.example", primary: true }],
      ],
    },
    manifest: (y) => `groups:\n  rt:\n    scim_users:\n      - externalId: rt-idp-1\n${y("        ")}\n`,
    read: async (b) => {
      const res = await fetch(`${b.sandbox.url}/api/scim/v2/groups/rt/Users/rt-idp-1`, {
        headers: { authorization: `Bearer ${SCIM_TOKEN}` },
      });
      if (res.status === 404) return [];
      const u = (await res.json()) as Record<string, unknown>;
      return [{ ...u, name: { formatted: u["name.formatted"] } }];
    },
    // The platform keeps only the formatted name (given and family names are sent on create, never compared).
    same: (field, live, declared) =>
      field === "name"
        ? (live as { formatted: string }).formatted === (declared as { formatted: string }).formatted
        : undefined,
  },
  {
    name: "epic",
    at: "groups.epics",
    schema: "epic.schema.json",
    // Epics are not created: an entry names an existing epic by its iid, its only own field.
    overrides: { iid: null },
    manifest: (y) => `groups:\n  rt:\n    epics:\n      - iid: 1\n${y("        ")}\n`,
    read: async (b) => [await b.get<Record<string, unknown>>("/groups/rt/epics/1")],
  },
  {
    name: "epic issue link",
    at: "epics.issues",
    schema: "epic.schema.json#/properties/issues/items",
    // A link is only its identity (the issue's project and iid).
    overrides: { project: null, iid: null },
    manifest: (y) =>
      `groups:\n  rt:\n    epics:\n      - iid: 1\n        issues:\n          - project: rt/app\n            iid: 1\n${y("            ")}\n`,
    read: async (b) => {
      const project = await b.get<{ id: number }>("/projects/rt%2Fapp");
      return (await b.get<Record<string, unknown>[]>("/groups/rt/epics/1/issues")).filter(
        (i) => i["project_id"] === project.id && i["iid"] === 1,
      );
    },
  },
  {
    name: "instance notification settings",
    at: "instance.notification_settings",
    schema: "instance-notification-settings.schema.json",
    overrides: {
      level: ["custom", "custom"],
      // The platform accepts only the token user's own address (a foreign one is refused: notification-settings.test.ts).
      notification_email: ["admin@example.com", "admin@example.com"],
    },
    manifest: (y) => `instance:\n  notification_settings:\n${y("    ")}\n`,
    read: async (b) => {
      const s = await b.get<{ level: string; notification_email: string; events?: Record<string, unknown> }>(
        "/notification_settings",
      );
      return [{ level: s.level, notification_email: s.notification_email, ...(s.events ?? {}) }];
    },
  },
  {
    name: "group member",
    at: "groups.members",
    schema: "group-member.schema.json",
    // At most the project member's levels below: the platform refuses a project member below its group's level.
    overrides: { user: null, access_level: ["guest", 20], expires_at: ["2031-01-31", "2031-06-30"] },
    manifest: (y) => `groups:\n  rt:\n    members:\n      - user: rt-member\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/members")).filter(
        (m) => m["username"] === "rt-member",
      ),
    same: (field, live, declared) => (field === "access_level" ? sameLevel(live, declared) : undefined),
  },
  {
    name: "project member",
    at: "projects.members",
    schema: "project-member.schema.json",
    overrides: { user: null, access_level: ["reporter", 40], expires_at: ["2031-01-31", "2031-06-30"] },
    manifest: (y) => `projects:\n  rt/app:\n    members:\n      - user: rt-member\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/members")).filter(
        (m) => m["username"] === "rt-member",
      ),
    same: (field, live, declared) => (field === "access_level" ? sameLevel(live, declared) : undefined),
  },
  {
    name: "group share",
    at: "groups.shared_with_groups",
    schema: "group-share.schema.json",
    overrides: { group: null, group_access: ["developer", 50], expires_at: ["2031-01-31", "2031-06-30"] },
    manifest: (y) => `groups:\n  rt:\n    shared_with_groups:\n      - group: rt-partner\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<{ shared_with_groups: Record<string, unknown>[] }>("/groups/rt")).shared_with_groups
        .filter((x) => x["group_full_path"] === "rt-partner")
        .map(shareFields),
    same: (field, live, declared) => (field === "group_access" ? sameLevel(live, declared) : undefined),
  },
  {
    name: "project share",
    at: "projects.shared_with_groups",
    schema: "project-share.schema.json",
    overrides: { group: null, group_access: ["guest", 40], expires_at: ["2031-01-31", "2031-06-30"] },
    manifest: (y) =>
      `projects:\n  rt/app:\n    shared_with_groups:\n      - group: rt-partner\n${y("        ")}\n`,
    read: async (b) =>
      (
        await b.get<{ shared_with_groups: Record<string, unknown>[] }>("/projects/rt%2Fapp")
      ).shared_with_groups
        .filter((x) => x["group_full_path"] === "rt-partner")
        .map(shareFields),
    same: (field, live, declared) => (field === "group_access" ? sameLevel(live, declared) : undefined),
  },
  {
    name: "protected branch",
    at: "projects.protected_branches",
    schema: "protected-branch.schema.json",
    overrides: {
      name: null,
      push_access_level: ["no_access", 30],
      merge_access_level: ["developer", 40],
      unprotect_access_level: ["maintainer", 30],
      // A user with access to the project, a group it is shared with, and a role besides the level.
      allowed_to_push: [[{ user: "rt-user" }], [{ group: "rt-vendor" }, { access_level: "maintainer" }]],
      allowed_to_merge: [[{ group: "rt-vendor" }], [{ user: "rt-user" }]],
      allowed_to_unprotect: [[{ user: "rt-user" }], [{ access_level: 60 }]],
    },
    manifest: (y) =>
      `projects:\n  rt/app:\n    protected_branches:\n      - name: "rt-*"\n${y("        ")}\n`,
    read: async (b) => {
      const found = (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/protected_branches")).filter(
        (x) => x["name"] === "rt-*",
      );
      return Promise.all(
        found.map(async (x) => {
          const out: Record<string, unknown> = { ...x };
          for (const list of ["push", "merge", "unprotect"]) {
            const { level, allowed } = await refEntries(b, x[`${list}_access_levels`] as ApiAccess[]);
            out[`${list}_access_level`] = level;
            out[`allowed_to_${list}`] = allowed;
          }
          return out;
        }),
      );
    },
    same: (field, live, declared) =>
      field.endsWith("_access_level")
        ? sameLevel(live, declared)
        : field.startsWith("allowed_to_")
          ? sameAllowances(live, declared)
          : undefined,
  },
  {
    name: "protected tag",
    at: "projects.protected_tags",
    schema: "protected-tag.schema.json",
    overrides: { name: null, create_access_level: ["developer", 0] },
    manifest: (y) => `projects:\n  rt/app:\n    protected_tags:\n      - name: "rt-v*"\n${y("        ")}\n`,
    read: async (b) =>
      (
        await b.get<{ name: string; create_access_levels: ApiAccess[] }[]>(
          "/projects/rt%2Fapp/protected_tags",
        )
      )
        .filter((t) => t.name === "rt-v*")
        .map((t) => ({ ...t, create_access_level: t.create_access_levels[0]?.access_level })),
    same: (field, live, declared) =>
      field === "create_access_level" ? sameLevel(live, declared) : undefined,
  },
  {
    name: "group label",
    at: "groups.labels",
    schema: "label.schema.json",
    // A group label has no priority (a validate error: labels.test.ts).
    overrides: { name: null, color: ["#112233", "red"], priority: null },
    manifest: (y) => `groups:\n  rt:\n    labels:\n      - name: rt-gl\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/labels")).filter((l) => l["name"] === "rt-gl"),
    // A CSS colour name is kept as its upper-case hex.
    same: (field, live, declared) =>
      field === "color" ? live === (declared === "red" ? "#FF0000" : declared) : undefined,
  },
  {
    name: "project label",
    at: "projects.labels",
    schema: "label.schema.json",
    overrides: { name: null, color: ["#abc", "#D9534F"], priority: [1, 0] },
    manifest: (y) => `projects:\n  rt/app:\n    labels:\n      - name: rt-pl\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/labels")).filter(
        (l) => l["name"] === "rt-pl" && l["is_project_label"] === true,
      ),
  },
  {
    name: "group hook",
    at: "groups.hooks",
    schema: "hook.schema.json",
    overrides: {
      url: null,
      token: ["rt-token-a", "rt-token-b"],
      push_events_branch_filter: ["release/*", "main"],
    },
    skipCompare: ["token"],
    manifest: (y) =>
      `groups:\n  rt:\n    hooks:\n      - url: https://hooks.rt.example/g\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/hooks")).filter(
        (h) => h["url"] === "https://hooks.rt.example/g",
      ),
  },
  {
    name: "project hook",
    at: "projects.hooks",
    schema: "hook.schema.json",
    // A project has no subgroups (a validate error: hooks.test.ts).
    overrides: {
      url: null,
      token: ["rt-token-a", "rt-token-b"],
      push_events_branch_filter: ["release/*", "main"],
      subgroup_events: null,
    },
    skipCompare: ["token"],
    manifest: (y) =>
      `projects:\n  rt/app:\n    hooks:\n      - url: https://hooks.rt.example/p\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/hooks")).filter(
        (h) => h["url"] === "https://hooks.rt.example/p",
      ),
  },
  {
    name: "group deploy token",
    at: "groups.deploy_tokens",
    schema: "deploy-token.schema.json",
    overrides: {
      name: null,
      expires_at: ["2031-01-01", "2032-02-02T10:00:00Z"],
      username: ["rt-user-a", "rt-user-b"],
    },
    manifest: (y) => `groups:\n  rt:\n    deploy_tokens:\n      - name: rt-gt\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/deploy_tokens")).filter(
        (t) => t["name"] === "rt-gt",
      ),
    same: (field, live, declared) => (field === "expires_at" ? sameDay(live, declared) : undefined),
  },
  {
    name: "project deploy token",
    at: "projects.deploy_tokens",
    schema: "deploy-token.schema.json",
    overrides: {
      name: null,
      expires_at: ["2031-01-01", "2032-02-02T10:00:00Z"],
      username: ["rt-user-c", "rt-user-d"],
    },
    manifest: (y) => `projects:\n  rt/app:\n    deploy_tokens:\n      - name: rt-pt\n${y("        ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/projects/rt%2Fapp/deploy_tokens")).filter(
        (t) => t["name"] === "rt-pt",
      ),
    same: (field, live, declared) => (field === "expires_at" ? sameDay(live, declared) : undefined),
  },
  ...(["projects", "groups", "instance"] as const).map(
    (owner): KindCase => ({
      name: `${owner === "instance" ? "instance" : owner.slice(0, -1)} CI/CD variable`,
      at: `${owner}.variables`,
      schema: owner === "instance" ? "instance-variable.schema.json" : "ci-variable.schema.json",
      env: { RT_MASKED: "rt-masked-value-a" },
      overrides: {
        key: null,
        // Masked in variant A, so its value comes from the environment (a masked value is never written in clear).
        masked: [true, false],
        value: [`\${env:RT_MASKED}`, "rt-plain-b"],
        // Part of the identity: the same in both variants, so that B changes the same variable.
        ...(owner === "instance" ? {} : { environment_scope: ["review/*", "review/*"] }),
      },
      manifest: (y) =>
        owner === "instance"
          ? `instance:\n  variables:\n    - key: RT_VAR\n${y("      ")}\n`
          : `${owner}:\n  ${owner === "groups" ? "rt" : "rt/app"}:\n    variables:\n      - key: RT_VAR\n${y("        ")}\n`,
      read: async (b) =>
        (
          await b.get<Record<string, unknown>[]>(
            owner === "instance"
              ? "/admin/ci/variables"
              : owner === "groups"
                ? "/groups/rt/variables"
                : "/projects/rt%2Fapp/variables",
          )
        ).filter((v) => v["key"] === "RT_VAR"),
      same: (field, live, declared) =>
        field === "value" && declared === `\${env:RT_MASKED}` ? live === "rt-masked-value-a" : undefined,
    }),
  ),
];

/**
 * Collections with no round-trip case, each with the reason. The guard below fails for any collection of the
 * registry or the manifest schema that is neither here nor in CASES.
 */
const EXCLUDED: Record<string, string> = {};

const KEY = (await import("./schema-values.js")).sshKey("rt-key");

describe("every field of every kind, from the schemas", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it.each(CASES)(
    "$name: every field applies, converges and reads back, then changes the same way",
    async (k) => {
      const schema: Schema = loadSchema(k.schema);
      for (const variant of [0, 1] as Variant[]) {
        const { values: fields, missing } = values(schema, variant, k.overrides);
        expect(missing, "fields the schema gives no value for: add an override").toEqual([]);
        const file = bench.manifest(
          `version: 1\n${k.manifest((indent) => yamlFields(fields, indent))}`,
          "round-trip.yaml",
        );
        const apply = await bench.cli(["apply", "--yes", file], k.env);
        expect(apply.code, apply.out + apply.err).toBe(0);
        const plan = await bench.cli(["plan", "--detailed-exitcode", file], k.env);
        expect(plan.code, plan.out + plan.err).toBe(0);
        const live = await k.read(bench);
        expect(live).toHaveLength(1);
        for (const [field, declared] of Object.entries(fields)) {
          if (k.skipCompare?.includes(field)) continue;
          const got = live[0]![field];
          const custom = k.same?.(field, got, declared);
          if (custom !== undefined)
            expect(custom, `${field}: ${JSON.stringify(got)} vs ${JSON.stringify(declared)}`).toBe(true);
          else expect(got, field).toEqual(declared);
        }
      }
    },
  );
});

describe("fields that belong elsewhere", () => {
  it("new_epic on a project's notification settings is an error that says where it belongs", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const file = bench.manifest(
        "version: 1\nprojects:\n  rt/app:\n    notification_settings: { level: custom, new_epic: true }\n",
      );
      const run = await bench.cli(["validate", file]);
      expect(run.code).toBe(1);
      expect(run.out + run.err).toContain(
        "new_epic exists only for groups and your global notification settings",
      );
    } finally {
      await bench.stop();
    }
  });
});

describe("every collection has a round-trip case", () => {
  const covered = new Map(CASES.map((c) => [c.at, c.name]));
  const registry = kinds.flatMap((k) => k.parents.map((p) => `${p}.${k.collection}`));
  const schema = collections();

  it("the registry's and the manifest schema's collections are the same", () => {
    expect([...new Set(registry)].sort()).toEqual([...new Set(schema)].sort());
  });

  it.each([...new Set([...registry, ...schema])].sort())("%s has a case or a reasoned exclusion", (at) => {
    const reason = EXCLUDED[at];
    expect(
      covered.has(at) || (reason !== undefined && reason.length > 20),
      `${at}: add a case to CASES in round-trip.test.ts (or an entry in EXCLUDED that says why it cannot have one)`,
    ).toBe(true);
    expect(covered.has(at) && reason !== undefined, `${at} is both covered and excluded`).toBe(false);
  });

  it("no case or exclusion names a collection that does not exist", () => {
    const known = new Set([...registry, ...schema]);
    expect([...covered.keys(), ...Object.keys(EXCLUDED)].filter((at) => !known.has(at))).toEqual([]);
  });
});
