/**
 * Every declared field of every kind, generated from the schemas: applied (variant A), re-planned (empty), checked
 * by an independent read of the platform; then changed (variant B), re-planned, checked again. A field a kind's
 * schema adds is covered here without anyone writing a test for it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { loadSchema, type Schema, type Variant, values, yamlFields } from "./schema-values.js";

const fixture = {
  users: [{ username: "rt-user", name: "RT User", email: "rt-user@rt.example" }],
  groups: [{ path: "rt", visibility: "public" }],
  projects: [{ path: "rt/app", default_branch: "main", visibility: "private" }],
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
  schema: string;
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

const CASES: KindCase[] = [
  {
    name: "group",
    schema: "group.schema.json",
    overrides: { name: ["RT A", "RT B"], visibility: ["public", "internal"], description: ["rt a", "rt b"] },
    manifest: (y) => `groups:\n  rt/sub:\n${y("    ")}\n`,
    read: async (b) =>
      (await b.get<Record<string, unknown>[]>("/groups/rt/subgroups")).filter((g) => g["path"] === "sub"),
  },
  {
    name: "broadcast message",
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
    schema: "error-tracking.schema.json",
    manifest: (y) => `projects:\n  rt/app:\n    error_tracking:\n${y("      ")}\n`,
    read: async (b) => [await b.get<Record<string, unknown>>("/projects/rt%2Fapp/error_tracking/settings")],
  },
];

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
        const apply = await bench.cli(["apply", "--yes", file], {});
        expect(apply.code, apply.out + apply.err).toBe(0);
        const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
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
