/**
 * The benchmark's state: a deterministic description of groups, projects and their objects, from which the bench
 * derives the sandbox fixture, the seeding requests, forgeform's manifests, gitlabracadabra's action file, the
 * expected number of changes and the lower bound. One description feeds all of them, so they cannot disagree.
 */

/** How big one state is. Instance-level objects (settings, hooks, broadcasts) do not grow with the size. */
export interface Shape {
  groups: number;
  projects: number;
  schedulesPerProject: number;
  variablesPerSchedule: number;
  badgesPerProject: number;
  environmentsPerProject: number;
  milestonesPerProject: number;
  systemHooks: number;
  broadcastMessages: number;
}

/**
 * The 1x shape: 12 groups, 125 projects, each with 3 schedules of 3 variables, 2 badges, 1 environment, 2 milestones.
 * 16x is then 192 groups and 2,000 projects.
 */
export const BASE_SHAPE: Shape = {
  groups: 12,
  projects: 125,
  schedulesPerProject: 3,
  variablesPerSchedule: 3,
  badgesPerProject: 2,
  environmentsPerProject: 1,
  milestonesPerProject: 2,
  systemHooks: 20,
  broadcastMessages: 10,
};

/** `base` with groups and projects multiplied by `factor`. */
export function scaleShape(base: Shape, factor: number): Shape {
  return { ...base, groups: base.groups * factor, projects: base.projects * factor };
}

/** The kinds of objects the benchmark declares; `common` ones are managed by both forgeform and the peer. */
export const KINDS = [
  "group",
  "pipeline_schedule",
  "schedule_variable",
  "badge",
  "protected_environment",
  "milestone",
  "application_settings",
  "system_hook",
  "broadcast_message",
] as const;
export type ObjectKind = (typeof KINDS)[number];

/** Kinds both tools manage: groups, schedules with variables, milestones, application settings. */
export const COMMON_KINDS: ReadonlySet<ObjectKind> = new Set<ObjectKind>([
  "group",
  "pipeline_schedule",
  "schedule_variable",
  "milestone",
  "application_settings",
]);

/** Every `CHANGE_EVERY`th object of each kind (index 0, 10, 20, ...) differs in the changed manifests: 10%. */
export const CHANGE_EVERY = 10;
const changed = (index: number) => index % CHANGE_EVERY === 0;

export interface Variable {
  key: string;
  value: string;
  variable_type: "env_var";
}
export interface Schedule {
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  active: boolean;
  variables: Variable[];
}
export interface Badge {
  name: string;
  link_url: string;
  image_url: string;
}
export interface Environment {
  name: string;
  deploy_access_levels: { access_level: number }[];
}
export interface Milestone {
  title: string;
  description: string;
  start_date: string;
  due_date: string;
}
export interface Group {
  path: string;
  description: string;
}
export interface Project {
  group: string;
  path: string;
  fullPath: string;
  schedules: Schedule[];
  badges: Badge[];
  environments: Environment[];
  milestones: Milestone[];
}
export interface Hook {
  url: string;
  token: string;
  push_events: boolean;
  tag_push_events: boolean;
  merge_requests_events: boolean;
  enable_ssl_verification: boolean;
}
export interface Broadcast {
  message: string;
  color: string;
  font: string;
  broadcast_type: "banner";
  dismissable: boolean;
}
export interface Settings {
  signup_enabled: boolean;
  default_projects_limit: number;
  default_project_visibility: string;
}

export interface BenchState {
  shape: Shape;
  groups: Group[];
  projects: Project[];
  settings: Settings;
  hooks: Hook[];
  broadcasts: Broadcast[];
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/**
 * The state of a shape: `variant` "seed" is what the sandbox holds; "changed" is the desired state after 10% of the
 * objects of each kind (the ones whose index within the kind is a multiple of 10) were edited.
 */
export function buildState(shape: Shape, variant: "seed" | "changed"): BenchState {
  const edit = variant === "changed";
  const counters: Record<ObjectKind, number> = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<
    ObjectKind,
    number
  >;
  const next = (kind: ObjectKind) => edit && changed(counters[kind]++);
  const gw = Math.max(4, String(shape.groups).length);
  const pw = Math.max(5, String(shape.projects).length);

  const groups: Group[] = [];
  for (let g = 0; g < shape.groups; g++) {
    const path = `bench-g${pad(g, gw)}`;
    groups.push({ path, description: `Benchmark group ${g}${next("group") ? " (edited)" : ""}` });
  }

  const projects: Project[] = [];
  for (let p = 0; p < shape.projects; p++) {
    const group = groups[p % groups.length]!.path;
    const path = `p${pad(p, pw)}`;
    const schedules: Schedule[] = [];
    for (let s = 0; s < shape.schedulesPerProject; s++) {
      const scheduleEdited = next("pipeline_schedule");
      const variables: Variable[] = [];
      for (let v = 0; v < shape.variablesPerSchedule; v++) {
        variables.push({
          key: `BENCH_VAR_${v}`,
          // The same in every project (as the other objects are), so that one pattern entry can declare them all.
          value: `value-${s}-${v}${next("schedule_variable") ? "-edited" : ""}`,
          variable_type: "env_var",
        });
      }
      schedules.push({
        description: `Benchmark schedule ${s}`,
        ref: "main",
        cron: `${(s * 10) % 60} ${scheduleEdited ? 4 : 2} * * *`,
        cron_timezone: "UTC",
        active: true,
        variables,
      });
    }
    const badges: Badge[] = [];
    for (let b = 0; b < shape.badgesPerProject; b++) {
      badges.push({
        name: `badge-${b}`,
        link_url: `https://ci.bench.example/%{project_path}/badge-${b}`,
        image_url: `https://ci.bench.example/%{project_path}/badge-${b}${next("badge") ? "-edited" : ""}.svg`,
      });
    }
    const environments: Environment[] = [];
    for (let e = 0; e < shape.environmentsPerProject; e++) {
      environments.push({
        name: e === 0 ? "production" : `env-${e}`,
        deploy_access_levels: [{ access_level: next("protected_environment") ? 30 : 40 }],
      });
    }
    const milestones: Milestone[] = [];
    for (let m = 0; m < shape.milestonesPerProject; m++) {
      milestones.push({
        title: `v${m + 1}.0`,
        description: `Release ${m + 1}${next("milestone") ? " (edited)" : ""}`,
        start_date: "2027-01-01",
        due_date: `2027-${pad((m % 12) + 1, 2)}-28`,
      });
    }
    projects.push({ group, path, fullPath: `${group}/${path}`, schedules, badges, environments, milestones });
  }

  const settings: Settings = {
    signup_enabled: false,
    default_projects_limit: next("application_settings") ? 50 : 500,
    default_project_visibility: "private",
  };

  const hooks: Hook[] = [];
  for (let h = 0; h < shape.systemHooks; h++) {
    hooks.push({
      url: `https://hooks.bench.example/system/${h}`,
      token: `bench-hook-secret-${h}`,
      push_events: !next("system_hook"),
      tag_push_events: true,
      merge_requests_events: false,
      enable_ssl_verification: true,
    });
  }

  const broadcasts: Broadcast[] = [];
  for (let b = 0; b < shape.broadcastMessages; b++) {
    broadcasts.push({
      message: `Benchmark broadcast ${b}`,
      color: next("broadcast_message") ? "#1F75CB" : "#E75E40",
      font: "#FFFFFF",
      broadcast_type: "banner",
      dismissable: true,
    });
  }

  return { shape, groups, projects, settings, hooks, broadcasts };
}

/** Number of objects of each kind in a shape. */
export function objectCounts(shape: Shape): Record<ObjectKind, number> {
  const schedules = shape.projects * shape.schedulesPerProject;
  return {
    group: shape.groups,
    pipeline_schedule: schedules,
    schedule_variable: schedules * shape.variablesPerSchedule,
    badge: shape.projects * shape.badgesPerProject,
    protected_environment: shape.projects * shape.environmentsPerProject,
    milestone: shape.projects * shape.milestonesPerProject,
    application_settings: 1,
    system_hook: shape.systemHooks,
    broadcast_message: shape.broadcastMessages,
  };
}

/** Objects of each kind that differ between the "seed" and "changed" states. */
export function changedCounts(shape: Shape): Record<ObjectKind, number> {
  const counts = objectCounts(shape);
  return Object.fromEntries(KINDS.map((k) => [k, Math.ceil(counts[k] / CHANGE_EVERY)])) as Record<
    ObjectKind,
    number
  >;
}
