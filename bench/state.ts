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
  /** CI/CD variables of each project and of each group (`variables:`). */
  ciVariablesPerProject: number;
  ciVariablesPerGroup: number;
  /** Direct members of each project: the same users in every project, so there are as many users. */
  membersPerProject: number;
  labelsPerProject: number;
  protectedBranchesPerProject: number;
  hooksPerProject: number;
  systemHooks: number;
  broadcastMessages: number;
}

/**
 * The 1x shape: 12 groups with 5 CI/CD variables each, 125 projects, each with 3 schedules of 3 variables, 2 badges,
 * 1 environment, 2 milestones, 5 CI/CD variables, its settings (a dozen), 2 members, 2 labels, 1 protected branch
 * and 1 hook. 16x is then 192 groups and 2,000 projects.
 */
export const BASE_SHAPE: Shape = {
  groups: 12,
  projects: 125,
  schedulesPerProject: 3,
  variablesPerSchedule: 3,
  badgesPerProject: 2,
  environmentsPerProject: 1,
  milestonesPerProject: 2,
  ciVariablesPerProject: 5,
  ciVariablesPerGroup: 5,
  membersPerProject: 2,
  labelsPerProject: 2,
  protectedBranchesPerProject: 1,
  hooksPerProject: 1,
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
  "group_variable",
  "project_variable",
  "project_settings",
  "project_member",
  "label",
  "protected_branch",
  "project_hook",
] as const;
export type ObjectKind = (typeof KINDS)[number];

/**
 * Kinds both tools manage, each in gitlabracadabra's documented action file format (`group.md`, `project.md` of
 * its documentation): groups, schedules with variables, milestones, application settings, the CI/CD variables of
 * groups and projects (`variables`), project settings (the same names as the API), members (`members: {user:
 * level}`), labels, protected branches and project webhooks (`webhooks`). Badges, protected environments, system
 * hooks and broadcast messages are not in its format.
 */
export const COMMON_KINDS: ReadonlySet<ObjectKind> = new Set<ObjectKind>([
  "group",
  "pipeline_schedule",
  "schedule_variable",
  "milestone",
  "application_settings",
  "group_variable",
  "project_variable",
  "project_settings",
  "project_member",
  "label",
  "protected_branch",
  "project_hook",
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
/** A CI/CD variable of a group or a project (not a schedule's: {@link Variable}). */
export interface CiVariable {
  key: string;
  value: string;
  variable_type: "env_var" | "file";
  protected: boolean;
}
/**
 * A project's settings: a dozen writable ones that the platform shows back in its project listings (none that only
 * a project's own read shows, such as `build_git_strategy`), booleans, enums, a string and an integer.
 */
export interface ProjectSettings {
  merge_method: "merge" | "rebase_merge" | "ff";
  squash_option: "never" | "always" | "default_on" | "default_off";
  only_allow_merge_if_pipeline_succeeds: boolean;
  only_allow_merge_if_all_discussions_are_resolved: boolean;
  resolve_outdated_diff_discussions: boolean;
  remove_source_branch_after_merge: boolean;
  printing_merge_request_link_enabled: boolean;
  autoclose_referenced_issues: boolean;
  wiki_access_level: "disabled" | "private" | "enabled";
  auto_cancel_pending_pipelines: "enabled" | "disabled";
  ci_config_path: string;
  /** Seconds. */
  build_timeout: number;
}
/** Every project's settings in the seeded state; an edited project's build_timeout is 3 hours instead of 2. */
export const PROJECT_SETTINGS: Readonly<ProjectSettings> = {
  merge_method: "ff",
  squash_option: "default_on",
  only_allow_merge_if_pipeline_succeeds: true,
  only_allow_merge_if_all_discussions_are_resolved: true,
  resolve_outdated_diff_discussions: true,
  remove_source_branch_after_merge: false,
  printing_merge_request_link_enabled: false,
  autoclose_referenced_issues: false,
  wiki_access_level: "disabled",
  auto_cancel_pending_pipelines: "disabled",
  ci_config_path: "ci/bench.yml",
  build_timeout: 7200,
};
/** A direct member of a project: a username and an access level (10 to 40). */
export interface Member {
  user: string;
  access_level: number;
}
export interface Label {
  name: string;
  color: string;
  description: string;
}
/** A protected branch; access levels 0 (no one), 30 (developers) or 40 (maintainers). */
export interface ProtectedBranch {
  name: string;
  push_access_level: number;
  merge_access_level: number;
}
export interface ProjectHook {
  url: string;
  push_events: boolean;
  tag_push_events: boolean;
  merge_requests_events: boolean;
  pipeline_events: boolean;
  enable_ssl_verification: boolean;
}
export interface Group {
  path: string;
  description: string;
  variables: CiVariable[];
}
export interface Project {
  group: string;
  path: string;
  fullPath: string;
  schedules: Schedule[];
  badges: Badge[];
  environments: Environment[];
  milestones: Milestone[];
  variables: CiVariable[];
  settings: ProjectSettings;
  members: Member[];
  labels: Label[];
  protectedBranches: ProtectedBranch[];
  hooks: ProjectHook[];
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
  /** Usernames of the users the projects' members are (the fixture creates them). */
  users: string[];
  groups: Group[];
  projects: Project[];
  settings: Settings;
  hooks: Hook[];
  broadcasts: Broadcast[];
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

/**
 * The `count` CI/CD variables of a group or project (`prefix`: `GROUP` or `PROJECT`), the same everywhere but for
 * the edited ones: every 5th is a file, every 5th from the second protected.
 */
function ciVariables(prefix: string, count: number, edited: () => boolean): CiVariable[] {
  const out: CiVariable[] = [];
  for (let v = 0; v < count; v++)
    out.push({
      key: `BENCH_${prefix}_VAR_${v}`,
      value: `${prefix.toLowerCase()}-value-${v}${edited() ? "-edited" : ""}`,
      variable_type: v % 5 === 2 ? "file" : "env_var",
      protected: v % 5 === 1,
    });
  return out;
}

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
    const description = `Benchmark group ${g}${next("group") ? " (edited)" : ""}`;
    groups.push({
      path,
      description,
      variables: ciVariables("GROUP", shape.ciVariablesPerGroup, () => next("group_variable")),
    });
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
    const variables = ciVariables("PROJECT", shape.ciVariablesPerProject, () => next("project_variable"));
    const settings: ProjectSettings = {
      ...PROJECT_SETTINGS,
      ...(next("project_settings") ? { build_timeout: 10800 } : {}),
    };
    const members: Member[] = [];
    for (let m = 0; m < shape.membersPerProject; m++)
      members.push({ user: userName(m), access_level: next("project_member") ? 40 : m % 2 === 0 ? 30 : 20 });
    const labels: Label[] = [];
    for (let l = 0; l < shape.labelsPerProject; l++)
      labels.push({
        name: `bench-label-${l}`,
        color: l % 2 === 0 ? "#D9534F" : "#428BCA",
        description: `Benchmark label ${l}${next("label") ? " (edited)" : ""}`,
      });
    const protectedBranches: ProtectedBranch[] = [];
    for (let b = 0; b < shape.protectedBranchesPerProject; b++)
      protectedBranches.push({
        name: b === 0 ? "main" : `release-${b}/*`,
        push_access_level: next("protected_branch") ? 30 : 40,
        merge_access_level: 40,
      });
    const hooks: ProjectHook[] = [];
    for (let h = 0; h < shape.hooksPerProject; h++)
      hooks.push({
        url: `https://hooks.bench.example/project/${h}`,
        push_events: true,
        tag_push_events: false,
        merge_requests_events: true,
        pipeline_events: next("project_hook"),
        enable_ssl_verification: true,
      });
    projects.push({
      group,
      path,
      fullPath: `${group}/${path}`,
      schedules,
      badges,
      environments,
      milestones,
      variables,
      settings,
      members,
      labels,
      protectedBranches,
      hooks,
    });
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

  const users = Array.from({ length: shape.membersPerProject }, (_, m) => userName(m));
  return { shape, users, groups, projects, settings, hooks, broadcasts };
}

/** The `m`th member's username, the same in every project. */
const userName = (m: number) => `bench-user-${m}`;

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
    group_variable: shape.groups * shape.ciVariablesPerGroup,
    project_variable: shape.projects * shape.ciVariablesPerProject,
    // One object per project, as the application settings are one: a project whose settings differ is one update.
    project_settings: shape.projects,
    project_member: shape.projects * shape.membersPerProject,
    label: shape.projects * shape.labelsPerProject,
    protected_branch: shape.projects * shape.protectedBranchesPerProject,
    project_hook: shape.projects * shape.hooksPerProject,
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
