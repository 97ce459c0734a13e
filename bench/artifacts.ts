/**
 * What the benchmark derives from a {@link BenchState}: the sandbox fixture, the seeding requests for areas whose
 * route module has no fixture key, forgeform's manifests and gitlabracadabra's action file.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pLimit from "p-limit";
import { stringify } from "yaml";
import type { BenchState, ObjectKind, Project } from "./state.js";

/** Areas of the sandbox the benchmark seeds; each maps to the kinds it holds. */
export type Area =
  | "pipeline_schedules"
  | "badges"
  | "protected_environments"
  | "milestones"
  | "application_settings"
  | "system_hooks"
  | "broadcast_messages";

export const AREA_KINDS: Record<Area, ObjectKind[]> = {
  pipeline_schedules: ["pipeline_schedule", "schedule_variable"],
  badges: ["badge"],
  protected_environments: ["protected_environment"],
  milestones: ["milestone"],
  application_settings: ["application_settings"],
  system_hooks: ["system_hook"],
  broadcast_messages: ["broadcast_message"],
};
export const AREAS = Object.keys(AREA_KINDS) as Area[];

/** Fixture keys whose format the benchmark knows (see the route module's doc comment). */
const FIXTURE_FORMATS: Partial<Record<Area, (state: BenchState) => unknown>> = {
  pipeline_schedules: (state) =>
    state.projects.flatMap((p) =>
      p.schedules.map((s) => ({
        project: p.fullPath,
        description: s.description,
        ref: s.ref,
        cron: s.cron,
        cron_timezone: s.cron_timezone,
        active: s.active,
        variables: s.variables.map((v) => ({ key: v.key, value: v.value, variable_type: v.variable_type })),
      })),
    ),
  badges: (state) => state.projects.flatMap((p) => p.badges.map((b) => ({ project: p.fullPath, ...b }))),
  protected_environments: (state) =>
    state.projects.flatMap((p) => p.environments.map((e) => ({ project: p.fullPath, ...e }))),
  milestones: (state) =>
    state.projects.flatMap((p) => p.milestones.map((m) => ({ project: p.fullPath, ...m }))),
  application_settings: (state) => state.settings,
};

/**
 * The sandbox fixture: groups, projects, and every area in `areas` whose fixture key is registered (`hookKeys`)
 * and known here. Returns the fixture and the areas it seeds; the others are seeded over HTTP.
 */
export function buildFixture(
  state: BenchState,
  areas: readonly Area[],
  hookKeys: ReadonlySet<string>,
): { fixture: Record<string, unknown>; seeded: Area[] } {
  const fixture: Record<string, unknown> = {
    groups: state.groups.map((g) => ({ path: g.path, description: g.description, visibility: "private" })),
    projects: state.projects.map((p) => ({
      path: p.fullPath,
      visibility: "private",
      default_branch: "main",
    })),
  };
  const seeded: Area[] = [];
  for (const area of areas) {
    const format = FIXTURE_FORMATS[area];
    if (format && hookKeys.has(area)) {
      fixture[area] = format(state);
      seeded.push(area);
    }
  }
  return { fixture, seeded };
}

class Api {
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const res = await fetch(`${this.url}/api/v4${path}`, {
      method,
      headers: { "PRIVATE-TOKEN": this.token, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: keep the text for the message
    }
    return { status: res.status, json };
  }

  async write(method: string, path: string, body?: unknown): Promise<unknown> {
    const res = await this.call(method, path, body);
    if (res.status >= 300)
      throw new Error(
        `bench: seeding failed: ${method} ${path} answered ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`,
      );
    return res.json;
  }
}

const enc = (p: Project) => encodeURIComponent(p.fullPath);

/** Areas whose routes the sandbox serves: a missing route answers `{"error":"404 Not Found"}`. */
export async function availableAreas(url: string, token: string, sample: Project): Promise<Area[]> {
  const api = new Api(url, token);
  const probes: Record<Area, string> = {
    pipeline_schedules: `/projects/${enc(sample)}/pipeline_schedules`,
    badges: `/projects/${enc(sample)}/badges`,
    protected_environments: `/projects/${enc(sample)}/protected_environments`,
    milestones: `/projects/${enc(sample)}/milestones`,
    application_settings: "/application/settings",
    system_hooks: "/hooks",
    broadcast_messages: "/broadcast_messages",
  };
  const out: Area[] = [];
  for (const area of AREAS) {
    const res = await api.call("GET", probes[area]);
    if (res.status === 200) out.push(area);
    else if (!(res.status === 404 && (res.json as { error?: string }).error === "404 Not Found"))
      throw new Error(`bench: probing ${probes[area]} answered ${res.status} ${JSON.stringify(res.json)}`);
  }
  return out;
}

/** Creates the objects of `areas` through the API, `concurrency` requests at a time. */
export async function seedOverHttp(
  url: string,
  token: string,
  state: BenchState,
  areas: readonly Area[],
  concurrency = 32,
): Promise<void> {
  const api = new Api(url, token);
  const limit = pLimit(concurrency);
  const jobs: Promise<unknown>[] = [];
  const has = new Set(areas);
  for (const p of state.projects) {
    const base = `/projects/${enc(p)}`;
    if (has.has("pipeline_schedules"))
      for (const s of p.schedules)
        jobs.push(
          limit(async () => {
            const { variables, ...fields } = s;
            const created = (await api.write("POST", `${base}/pipeline_schedules`, fields)) as { id: number };
            await Promise.all(
              variables.map((v) =>
                api.write("POST", `${base}/pipeline_schedules/${created.id}/variables`, v),
              ),
            );
          }),
        );
    if (has.has("badges"))
      for (const b of p.badges) jobs.push(limit(() => api.write("POST", `${base}/badges`, b)));
    if (has.has("protected_environments"))
      for (const e of p.environments)
        jobs.push(limit(() => api.write("POST", `${base}/protected_environments`, e)));
    if (has.has("milestones"))
      for (const m of p.milestones) jobs.push(limit(() => api.write("POST", `${base}/milestones`, m)));
  }
  if (has.has("application_settings"))
    jobs.push(limit(() => api.write("PUT", "/application/settings", state.settings)));
  // Hooks and messages are listed in creation order; create them one after the other so ids follow the state.
  if (has.has("system_hooks"))
    jobs.push(
      limit(async () => {
        for (const h of state.hooks) await api.write("POST", "/hooks", h);
      }),
    );
  if (has.has("broadcast_messages"))
    jobs.push(
      limit(async () => {
        for (const b of state.broadcasts) await api.write("POST", "/broadcast_messages", b);
      }),
    );
  await Promise.all(jobs);
}

function projectBody(p: Project, kinds: ReadonlySet<ObjectKind>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (kinds.has("pipeline_schedule"))
    body["pipeline_schedules"] = p.schedules.map((s) =>
      kinds.has("schedule_variable") ? s : { ...s, variables: undefined },
    );
  if (kinds.has("badge")) body["badges"] = p.badges;
  if (kinds.has("protected_environment")) body["protected_environments"] = p.environments;
  if (kinds.has("milestone")) body["milestones"] = p.milestones;
  return body;
}

type Obj = Record<string, unknown>;

/** The identity field of each collection a project body holds (and of a schedule's variables). */
const IDENTITY: Record<string, string> = {
  pipeline_schedules: "description",
  variables: "key",
  badges: "name",
  protected_environments: "name",
  milestones: "title",
};

/**
 * What a more specific entry must add to `policy` for `body` (collections merge by identity; other fields are
 * replaced): the differing fields, and the differing items whole (a manifest item has its required fields even
 * where it overrides a pattern's) with only the differing items of their own collections. Undefined when `body` is
 * `policy`.
 */
export function overridesOf(policy: Obj, body: Obj): Obj | undefined {
  const out: Obj = {};
  for (const [key, value] of Object.entries(body)) {
    const base = policy[key];
    const id = IDENTITY[key];
    if (id && Array.isArray(value) && Array.isArray(base)) {
      const ids = new Set(value.map((item) => (item as Obj)[id]));
      if (base.some((b) => !ids.has((b as Obj)[id])))
        throw new Error(
          `bench: ${key} of the policy has an item a project lacks: patterns cannot declare that`,
        );
      const items = (value as Obj[]).flatMap((item) => {
        const match = (base as Obj[]).find((b) => b[id] === item[id]);
        if (!match) return [item];
        const diff = overridesOf(match, item);
        if (!diff) return [];
        const fields = Object.fromEntries(Object.entries(item).filter(([k]) => IDENTITY[k] === undefined));
        return [{ ...fields, ...diff }];
      });
      if (items.length > 0) out[key] = items;
    } else if (JSON.stringify(value) !== JSON.stringify(base)) out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * How the manifests declare the projects: `paths`, one entry per project; `patterns`, one `**` entry holding the
 * policy of every kind (the `policy` project's objects), plus a full-path entry for each project that differs from
 * it, holding only what differs (the edited objects).
 */
export type Declared = { by: "paths" } | { by: "patterns"; policy: Project };

/**
 * Writes forgeform's manifests for the `kinds` into `dir`: one file per group (the group and, declared by path, its
 * projects), `projects.yaml` when declared by patterns, and `instance.yaml`. Returns the directory.
 */
export function writeForgeformManifests(
  state: BenchState,
  kinds: ReadonlySet<ObjectKind>,
  dir: string,
  declared: Declared = { by: "paths" },
): string {
  mkdirSync(dir, { recursive: true });
  const byGroup = new Map<string, Project[]>();
  for (const p of state.projects) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
  const projectKinds = ["pipeline_schedule", "badge", "protected_environment", "milestone"] as const;
  const anyProjectKind = projectKinds.some((k) => kinds.has(k));
  for (const g of state.groups) {
    const doc: Record<string, unknown> = { version: 1 };
    if (kinds.has("group"))
      doc["groups"] = { [g.path]: { description: g.description, visibility: "private" } };
    if (anyProjectKind && declared.by === "paths")
      doc["projects"] = Object.fromEntries(
        (byGroup.get(g.path) ?? []).map((p) => [p.fullPath, projectBody(p, kinds)]),
      );
    writeFileSync(join(dir, `${g.path}.yaml`), stringify(doc, { lineWidth: 0 }));
  }
  if (anyProjectKind && declared.by === "patterns") {
    const policy = projectBody(declared.policy, kinds);
    const projects: Obj = { "**": policy };
    for (const p of state.projects) {
      const diff = overridesOf(policy, projectBody(p, kinds));
      if (diff) projects[p.fullPath] = diff;
    }
    writeFileSync(join(dir, "projects.yaml"), stringify({ version: 1, projects }, { lineWidth: 0 }));
  }
  const instance: Record<string, unknown> = {};
  if (kinds.has("application_settings")) instance["application_settings"] = state.settings;
  if (kinds.has("system_hook")) instance["system_hooks"] = state.hooks;
  if (kinds.has("broadcast_message")) instance["broadcast_messages"] = state.broadcasts;
  if (Object.keys(instance).length > 0)
    writeFileSync(join(dir, "instance.yaml"), stringify({ version: 1, instance }, { lineWidth: 0 }));
  return dir;
}

/**
 * gitlabracadabra's action file for the kinds both tools manage (groups, schedules with variables, milestones,
 * application settings), restricted to `kinds`. Written as JSON, which is YAML too: PyYAML reads YAML 1.1, where an
 * unquoted 2027-01-01 would be a date.
 */
export function writePeerActionFile(state: BenchState, kinds: ReadonlySet<ObjectKind>, file: string): string {
  const actions: Record<string, unknown> = {};
  if (kinds.has("application_settings"))
    actions["application_settings"] = { type: "application-settings", ...state.settings };
  if (kinds.has("group"))
    for (const g of state.groups)
      actions[`${g.path}/`] = { type: "group", description: g.description, visibility: "private" };
  for (const p of state.projects) {
    const body: Record<string, unknown> = { type: "project" };
    if (kinds.has("pipeline_schedule"))
      body["pipeline_schedules"] = p.schedules.map((s) => ({
        description: s.description,
        ref: s.ref,
        cron: s.cron,
        // gitlabracadabra 1.12's schema has no cron_timezone; the state's schedules use the default, UTC.
        active: s.active,
        ...(kinds.has("schedule_variable") ? { variables: s.variables } : {}),
      }));
    if (kinds.has("milestone")) body["milestones"] = p.milestones.map((m) => ({ ...m, state: "active" }));
    actions[p.fullPath] = body;
  }
  writeFileSync(file, `${JSON.stringify(actions, null, 1)}\n`);
  return file;
}
