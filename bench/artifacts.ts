/**
 * What the benchmark derives from a {@link BenchState}: the sandbox fixture, the seeding requests for areas whose
 * route module has no fixture key (the bench knows), forgeform's manifests and gitlabracadabra's action file.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import pLimit from "p-limit";
import { stringify } from "yaml";
import { startSandbox } from "../src/sandbox/server.js";
import type { BenchState, Member, ObjectKind, Project, ProjectSettings } from "./state.js";

/** Areas of the sandbox the benchmark seeds; each maps to the kinds it holds. */
export type Area =
  | "pipeline_schedules"
  | "badges"
  | "protected_environments"
  | "milestones"
  | "application_settings"
  | "system_hooks"
  | "broadcast_messages"
  | "ci_variables"
  | "project_settings"
  | "members"
  | "labels"
  | "protected_branches"
  | "project_hooks";

export const AREA_KINDS: Record<Area, ObjectKind[]> = {
  pipeline_schedules: ["pipeline_schedule", "schedule_variable"],
  badges: ["badge"],
  protected_environments: ["protected_environment"],
  milestones: ["milestone"],
  application_settings: ["application_settings"],
  system_hooks: ["system_hook"],
  broadcast_messages: ["broadcast_message"],
  ci_variables: ["group_variable", "project_variable"],
  project_settings: ["project_settings"],
  members: ["project_member"],
  labels: ["label"],
  protected_branches: ["protected_branch"],
  project_hooks: ["project_hook"],
};
export const AREAS = Object.keys(AREA_KINDS) as Area[];

/**
 * The kinds the benchmark declares: groups, the kinds of the areas the sandbox serves, and of those only the ones
 * forgeform's manifests can declare (`declarable`: see {@link declarableKinds}).
 */
export function benchKinds(areas: readonly Area[], declarable: ReadonlySet<ObjectKind>): Set<ObjectKind> {
  return new Set<ObjectKind>(
    ["group" as ObjectKind, ...areas.flatMap((a) => AREA_KINDS[a])].filter((k) => declarable.has(k)),
  );
}

/** Where each kind is declared in forgeform's manifests: the collection (or field) of a project, group or instance. */
const MANIFEST_KEYS: Record<ObjectKind, { schema: "project" | "group" | "instance"; key: string }> = {
  group: { schema: "group", key: "description" },
  pipeline_schedule: { schema: "project", key: "pipeline_schedules" },
  schedule_variable: { schema: "project", key: "pipeline_schedules" },
  badge: { schema: "project", key: "badges" },
  protected_environment: { schema: "project", key: "protected_environments" },
  milestone: { schema: "project", key: "milestones" },
  application_settings: { schema: "instance", key: "application_settings" },
  system_hook: { schema: "instance", key: "system_hooks" },
  broadcast_message: { schema: "instance", key: "broadcast_messages" },
  group_variable: { schema: "group", key: "variables" },
  project_variable: { schema: "project", key: "variables" },
  project_settings: { schema: "project", key: "merge_method" },
  project_member: { schema: "project", key: "members" },
  label: { schema: "project", key: "labels" },
  protected_branch: { schema: "project", key: "protected_branches" },
  project_hook: { schema: "project", key: "hooks" },
};

/**
 * The kinds forgeform's manifests can declare: those whose collection its schemas (`schemas/<owner>.schema.json`
 * under `root`) have. The others are left out of the manifests and reported as not declared.
 */
export function declarableKinds(root: string): Set<ObjectKind> {
  const properties = (owner: string) =>
    (
      JSON.parse(readFileSync(join(root, "schemas", `${owner}.schema.json`), "utf8")) as {
        properties?: Record<string, unknown>;
      }
    ).properties ?? {};
  const schemas = {
    project: properties("project"),
    group: properties("group"),
    instance: properties("instance"),
  };
  return new Set(
    (Object.keys(MANIFEST_KEYS) as ObjectKind[]).filter((k) => {
      const { schema, key } = MANIFEST_KEYS[k];
      return key in schemas[schema];
    }),
  );
}

const withProject = <T extends object>(p: Project, items: T[]) =>
  items.map((item) => ({ project: p.fullPath, ...item }));

/**
 * How the fixture seeds an area: the top-level key of the route module's fixture hook (see its doc comment) and
 * its entries. Members are seeded by the fixture's core keys instead (see {@link buildFixture}).
 */
const FIXTURE_FORMATS: Partial<Record<Area, { key: string; entries: (state: BenchState) => unknown }>> = {
  pipeline_schedules: {
    key: "pipeline_schedules",
    entries: (state) =>
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
  },
  badges: { key: "badges", entries: (state) => state.projects.flatMap((p) => withProject(p, p.badges)) },
  protected_environments: {
    key: "protected_environments",
    entries: (state) => state.projects.flatMap((p) => withProject(p, p.environments)),
  },
  milestones: {
    key: "milestones",
    entries: (state) => state.projects.flatMap((p) => withProject(p, p.milestones)),
  },
  application_settings: { key: "application_settings", entries: (state) => state.settings },
  ci_variables: {
    key: "ci_variables",
    entries: (state) => [
      ...state.groups.flatMap((g) => g.variables.map((v) => ({ group: g.path, ...v }))),
      ...state.projects.flatMap((p) => withProject(p, p.variables)),
    ],
  },
  project_settings: {
    key: "project_settings",
    entries: (state) => state.projects.map((p) => ({ project: p.fullPath, ...p.settings })),
  },
  labels: { key: "labels", entries: (state) => state.projects.flatMap((p) => withProject(p, p.labels)) },
  protected_branches: {
    key: "protected_branches",
    entries: (state) => state.projects.flatMap((p) => withProject(p, p.protectedBranches)),
  },
  project_hooks: {
    key: "project_hooks",
    entries: (state) => state.projects.flatMap((p) => withProject(p, p.hooks)),
  },
};

/**
 * The sandbox fixture: the users, groups, projects, and every area in `areas` whose fixture key is registered
 * (`hookKeys`) and known here; members through the core keys (`projects[].members`, which every sandbox takes).
 * Returns the fixture and the areas it seeds; the others are seeded over HTTP.
 */
export function buildFixture(
  state: BenchState,
  areas: readonly Area[],
  hookKeys: ReadonlySet<string>,
): { fixture: Record<string, unknown>; seeded: Area[] } {
  const members = areas.includes("members");
  const fixture: Record<string, unknown> = {
    users: state.users.map((username) => ({ username, name: username })),
    groups: state.groups.map((g) => ({ path: g.path, description: g.description, visibility: "private" })),
    projects: state.projects.map((p) => ({
      path: p.fullPath,
      visibility: "private",
      default_branch: "main",
      ...(members ? { members: p.members.map((m) => ({ user: m.user, access_level: m.access_level })) } : {}),
    })),
  };
  const seeded: Area[] = members ? ["members"] : [];
  for (const area of areas) {
    const format = FIXTURE_FORMATS[area];
    if (format && hookKeys.has(format.key)) {
      fixture[format.key] = format.entries(state);
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

/** The project settings of the state, by name: what the sandbox must show back for the area to be measured. */
const SETTING_NAMES = (sample: Project) => Object.keys(sample.settings) as (keyof ProjectSettings)[];

/**
 * Areas whose routes the sandbox serves: a missing route answers `{"error":"404 Not Found"}`. Project settings are
 * served when the project's read shows every setting the state has (the route itself is always there); the
 * group's CI/CD variables are probed beside the project's.
 */
export async function availableAreas(url: string, token: string, sample: Project): Promise<Area[]> {
  const api = new Api(url, token);
  const project = `/projects/${enc(sample)}`;
  const probes: Record<Area, string[]> = {
    pipeline_schedules: [`${project}/pipeline_schedules`],
    badges: [`${project}/badges`],
    protected_environments: [`${project}/protected_environments`],
    milestones: [`${project}/milestones`],
    application_settings: ["/application/settings"],
    system_hooks: ["/hooks"],
    broadcast_messages: ["/broadcast_messages"],
    ci_variables: [`${project}/variables`, `/groups/${encodeURIComponent(sample.group)}/variables`],
    project_settings: [project],
    members: [`${project}/members`],
    labels: [`${project}/labels`],
    protected_branches: [`${project}/protected_branches`],
    project_hooks: [`${project}/hooks`],
  };
  const out: Area[] = [];
  for (const area of AREAS) {
    let served = true;
    for (const path of probes[area]) {
      const res = await api.call("GET", path);
      if (res.status === 404 && (res.json as { error?: string }).error === "404 Not Found") served = false;
      else if (res.status !== 200)
        throw new Error(`bench: probing ${path} answered ${res.status} ${JSON.stringify(res.json)}`);
      else if (area === "project_settings")
        served &&= SETTING_NAMES(sample).every((name) => name in (res.json as Record<string, unknown>));
    }
    if (served) out.push(area);
  }
  return out;
}

/** The ids of the state's users, by username (`GET /users?username=`), for adding members over HTTP. */
async function userIds(api: Api, members: Member[]): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const user of new Set(members.map((m) => m.user))) {
    const found = (await api.write("GET", `/users?username=${encodeURIComponent(user)}`)) as { id: number }[];
    if (found.length !== 1) throw new Error(`bench: seeding failed: user ${user} is not in the sandbox`);
    ids.set(user, found[0]!.id);
  }
  return ids;
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
  const users = has.has("members")
    ? await userIds(
        api,
        state.projects.flatMap((p) => p.members),
      )
    : new Map();
  /** Creates `items` at `path` one after the other, so that lists show them in the state's order. */
  const inOrder = (path: string, items: readonly unknown[]) =>
    jobs.push(
      limit(async () => {
        for (const item of items) await api.write("POST", path, item);
      }),
    );
  if (has.has("ci_variables"))
    for (const g of state.groups) inOrder(`/groups/${encodeURIComponent(g.path)}/variables`, g.variables);
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
    if (has.has("ci_variables")) inOrder(`${base}/variables`, p.variables);
    if (has.has("project_settings")) jobs.push(limit(() => api.write("PUT", base, p.settings)));
    if (has.has("members"))
      inOrder(
        `${base}/members`,
        p.members.map((m) => ({ user_id: users.get(m.user), access_level: m.access_level })),
      );
    if (has.has("labels")) inOrder(`${base}/labels`, p.labels);
    if (has.has("protected_branches")) inOrder(`${base}/protected_branches`, p.protectedBranches);
    if (has.has("project_hooks")) inOrder(`${base}/hooks`, p.hooks);
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
  const body: Record<string, unknown> = kinds.has("project_settings") ? { ...p.settings } : {};
  if (kinds.has("pipeline_schedule"))
    body["pipeline_schedules"] = p.schedules.map((s) =>
      kinds.has("schedule_variable") ? s : { ...s, variables: undefined },
    );
  if (kinds.has("badge")) body["badges"] = p.badges;
  if (kinds.has("protected_environment")) body["protected_environments"] = p.environments;
  if (kinds.has("milestone")) body["milestones"] = p.milestones;
  if (kinds.has("project_variable")) body["variables"] = p.variables;
  if (kinds.has("project_member")) body["members"] = p.members;
  if (kinds.has("label")) body["labels"] = p.labels;
  if (kinds.has("protected_branch")) body["protected_branches"] = p.protectedBranches;
  if (kinds.has("project_hook")) body["hooks"] = p.hooks;
  return body;
}

/** The kinds a project's entry declares. */
const PROJECT_KINDS = (Object.keys(MANIFEST_KEYS) as ObjectKind[]).filter(
  (k) => MANIFEST_KEYS[k].schema === "project",
);

type Obj = Record<string, unknown>;

/** The identity field of each collection a project body holds (and of a schedule's variables). */
const IDENTITY: Record<string, string> = {
  pipeline_schedules: "description",
  variables: "key",
  badges: "name",
  protected_environments: "name",
  milestones: "title",
  members: "user",
  labels: "name",
  protected_branches: "name",
  hooks: "url",
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
  const anyProjectKind = PROJECT_KINDS.some((k) => kinds.has(k));
  for (const g of state.groups) {
    const doc: Record<string, unknown> = { version: 1 };
    if (kinds.has("group") || kinds.has("group_variable"))
      doc["groups"] = {
        [g.path]: {
          ...(kinds.has("group") ? { description: g.description, visibility: "private" } : {}),
          ...(kinds.has("group_variable") ? { variables: g.variables } : {}),
        },
      };
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

/** gitlabracadabra's names of members' access levels, and of protected branches' (`noone` for 0). */
const PEER_MEMBER_LEVELS: Record<number, string> = {
  10: "guest",
  20: "reporter",
  30: "developer",
  40: "maintainer",
};
const PEER_BRANCH_LEVELS: Record<number, string> = { 0: "noone", 30: "developer", 40: "maintainer" };

/**
 * gitlabracadabra's action file for the kinds both tools manage (COMMON_KINDS), restricted to `kinds`, in the
 * format its documentation gives (`group.md`, `project.md`). Written as JSON, which is YAML too: PyYAML reads
 * YAML 1.1, where an unquoted 2027-01-01 would be a date.
 */
export function writePeerActionFile(state: BenchState, kinds: ReadonlySet<ObjectKind>, file: string): string {
  const actions: Record<string, unknown> = {};
  if (kinds.has("application_settings"))
    actions["application_settings"] = { type: "application-settings", ...state.settings };
  if (kinds.has("group") || kinds.has("group_variable"))
    for (const g of state.groups)
      actions[`${g.path}/`] = {
        type: "group",
        ...(kinds.has("group") ? { description: g.description, visibility: "private" } : {}),
        ...(kinds.has("group_variable") ? { variables: g.variables } : {}),
      };
  for (const p of state.projects) {
    const body: Record<string, unknown> = {
      type: "project",
      ...(kinds.has("project_settings") ? p.settings : {}),
    };
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
    if (kinds.has("project_variable")) body["variables"] = p.variables;
    if (kinds.has("project_member"))
      body["members"] = Object.fromEntries(
        p.members.map((m) => [m.user, PEER_MEMBER_LEVELS[m.access_level]]),
      );
    if (kinds.has("label")) body["labels"] = p.labels;
    if (kinds.has("protected_branch"))
      body["protected_branches"] = Object.fromEntries(
        p.protectedBranches.map((b) => [
          b.name,
          {
            push_access_level: PEER_BRANCH_LEVELS[b.push_access_level],
            merge_access_level: PEER_BRANCH_LEVELS[b.merge_access_level],
          },
        ]),
      );
    if (kinds.has("project_hook")) body["webhooks"] = p.hooks;
    actions[p.fullPath] = body;
  }
  writeFileSync(file, `${JSON.stringify(actions, null, 1)}\n`);
  return file;
}

/**
 * The areas the sandbox serves, probed on a sandbox holding one project of `seed`, and the fixture that seeds what
 * it can of them (buildFixture); the other areas are seeded over HTTP.
 */
export async function probedFixture(
  seed: BenchState,
  hookKeys: ReadonlySet<string>,
): Promise<{ areas: Area[]; fixture: Record<string, unknown>; seeded: Area[] }> {
  const one = { ...seed, groups: seed.groups.slice(0, 1), projects: seed.projects.slice(0, 1) };
  const probe = await startSandbox({ fixture: buildFixture(one, [], hookKeys).fixture });
  const areas = await availableAreas(probe.url, probe.adminToken, seed.projects[0]!).finally(() =>
    probe.stop(),
  );
  return { areas, ...buildFixture(seed, areas, hookKeys) };
}
