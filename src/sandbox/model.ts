import {
  FEATURE_LEVEL_RANK,
  FEATURES,
  type Feature,
  type FeatureLevel,
  type FeatureLevels,
  LEGACY_FEATURE_FLAGS,
  type ProjectSettings,
} from "./project-settings.js";
import {
  type GroupRec,
  type ProjectRec,
  randomToken,
  type Store,
  VISIBILITY_LEVEL,
  type Visibility,
} from "./store.js";

/** Validation and creation of the core records, shared by the routes and the fixture loader. */

const PATH_FORMAT = /^(?:[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]|[a-zA-Z0-9_])$/;
const PATH_MESSAGE =
  "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.";
const NAME_FORMAT = /^[\p{L}\p{N}\u00A9-\u{1F9FF}_][\p{L}\p{N}\p{Pd}\u00A9-\u{1F9FF}_(). ]*$/u;
const NAME_MESSAGE =
  "can contain only letters, digits, emojis, '_', '.', dash, space, parenthesis. It must start with letter, digit, emoji or '_'.";

/**
 * Words the platform keeps for its own routes (GitLab 13.12, `lib/gitlab/path_regex.rb`): `TOP_LEVEL_ROUTES` for the
 * first segment of a namespace, `PROJECT_WILDCARD_ROUTES` for a project's path and, with `GROUP_ROUTES`, for every
 * later segment of a group's full path. Compared in any case, by whole segments; a word of several segments
 * (`info/lfs/objects`) is refused only as that run of segments.
 */
export const TOP_LEVEL_ROUTES = [
  "-",
  ".well-known",
  "404.html",
  "422.html",
  "500.html",
  "502.html",
  "503.html",
  "admin",
  "api",
  "apple-touch-icon-precomposed.png",
  "apple-touch-icon.png",
  "assets",
  "dashboard",
  "deploy.html",
  "explore",
  "favicon.ico",
  "favicon.png",
  "files",
  "groups",
  "health_check",
  "help",
  "import",
  "jwt",
  "login",
  "oauth",
  "profile",
  "projects",
  "public",
  "robots.txt",
  "s",
  "search",
  "sitemap",
  "sitemap.xml",
  "sitemap.xml.gz",
  "slash-command-logo.png",
  "snippets",
  "unsubscribes",
  "uploads",
  "users",
  "v2",
];

export const PROJECT_WILDCARD_ROUTES = [
  "-",
  "badges",
  "blame",
  "blob",
  "builds",
  "commits",
  "create",
  "create_dir",
  "edit",
  "environments/folders",
  "files",
  "find_file",
  "gitlab-lfs/objects",
  "info/lfs/objects",
  "new",
  "preview",
  "raw",
  "refs",
  "tree",
  "update",
  "wikis",
];

export const GROUP_ROUTES = ["-"];

/** Whether the segments from `from` on start with one of `words` (`Gitlab::PathRegex`'s `(?!(words)/)`). */
function startsWithWord(segments: string[], from: number, words: string[]): boolean {
  const rest = `${segments.slice(from).join("/")}/`.toLowerCase();
  return words.some((w) => rest.startsWith(`${w}/`));
}

/**
 * Whether the platform refuses this path as reserved: a project's path (`ProjectPathValidator`, its own segment
 * only), or a group's full path (`NamespacePathValidator`, checked whole: the root against the top-level words, each
 * later segment against the project and group words).
 */
export function reservedPath(kind: "project" | "group", fullPath: string): boolean {
  const segments = fullPath.split("/");
  if (kind === "project") return startsWithWord(segments.slice(-1), 0, PROJECT_WILDCARD_ROUTES);
  if (startsWithWord(segments, 0, TOP_LEVEL_ROUTES)) return true;
  const nested = [...PROJECT_WILDCARD_ROUTES, ...GROUP_ROUTES];
  return segments.some((_, i) => i > 0 && startsWithWord(segments, i, nested));
}

export const MAX_ANCESTORS = 20;

export type Errors = Record<string, string[]>;

export function addError(errors: Errors, key: string, msg: string): void {
  const list = errors[key] ?? [];
  list.push(msg);
  errors[key] = list;
}

/** The path's format, and whether it is reserved (`reserved`: see {@link reservedPath}). */
export function validatePath(errors: Errors, path: string, reserved: boolean): void {
  if (path === "") addError(errors, "path", "can't be blank");
  else if (path.length > 255) addError(errors, "path", "is too long (maximum is 255 characters)");
  if (path !== "" && (!PATH_FORMAT.test(path) || /\.(git|atom)$/.test(path)))
    addError(errors, "path", PATH_MESSAGE);
  if (reserved) addError(errors, "path", `${path} is a reserved name`);
}

export function validateName(errors: Errors, name: string): void {
  if (name === "") addError(errors, "name", "can't be blank");
  else if (name.length > 255) addError(errors, "name", "is too long (maximum is 255 characters)");
  if (name !== "" && !NAME_FORMAT.test(name)) addError(errors, "name", NAME_MESSAGE);
}

/** Groups and projects share one path space per namespace (case-insensitive). */
export function pathTaken(store: Store, parentId: number | null, path: string, except?: number): boolean {
  const lower = path.toLowerCase();
  const groupClash = store.data.groups.some(
    (g) => g.parent_id === parentId && g.path.toLowerCase() === lower && g.id !== except,
  );
  if (groupClash) return true;
  if (parentId === null) return store.data.users.some((u) => u.username.toLowerCase() === lower);
  return false;
}

/** The largest value an integer column holds (PostgreSQL `integer`): the platform cannot store more. */
export const MAX_INTEGER_COLUMN = 2_147_483_647;

/**
 * Whether a name or path is taken among a new group's siblings, for a caller that knows them without a scan of every
 * group (the group import, whose parents are groups it has just created).
 */
export interface Siblings {
  nameTaken(name: string): boolean;
  pathTaken(path: string): boolean;
}

/**
 * Model validation of a group as it would be saved. `existing` is the stored group on update; `siblings` replaces
 * the scan of every group for names and paths taken under the same parent.
 */
export function validateGroup(store: Store, g: GroupRec, existing?: GroupRec, siblings?: Siblings): Errors {
  const errors: Errors = {};
  validateName(errors, g.name);
  const parent = g.parent_id === null ? undefined : store.group(g.parent_id);
  const fullPath = parent ? `${store.groupFullPath(parent)}/${g.path}` : g.path;
  validatePath(errors, g.path, reservedPath("group", fullPath));
  if (g.description.length > 255) addError(errors, "description", "is too long (maximum is 255 characters)");
  const nameTaken = () =>
    siblings
      ? siblings.nameTaken(g.name)
      : store.data.groups.some(
          (x) => x.parent_id === g.parent_id && x.name === g.name && x.id !== existing?.id,
        );
  if (!errors["name"] && nameTaken()) addError(errors, "name", "has already been taken");
  const taken = () =>
    siblings ? siblings.pathTaken(g.path) : pathTaken(store, g.parent_id, g.path, existing?.id);
  if (!errors["path"] && taken()) addError(errors, "path", "has already been taken");
  if (g.two_factor_grace_period < 0)
    addError(errors, "two_factor_grace_period", "must be greater than or equal to 0");
  // The platform's column is an integer: a larger value fails there when saved (a 500); the sandbox says why.
  if (g.two_factor_grace_period > MAX_INTEGER_COLUMN)
    addError(errors, "two_factor_grace_period", `must be less than or equal to ${MAX_INTEGER_COLUMN}`);
  if (parent) {
    if (store.ancestorsAndSelf(parent).length > MAX_ANCESTORS)
      addError(errors, "parent_id", "has too deep level of nesting");
    if (VISIBILITY_LEVEL[g.visibility] > VISIBILITY_LEVEL[parent.visibility]) {
      addError(
        errors,
        "visibility_level",
        `${g.visibility} is not allowed since the parent group has a ${parent.visibility} visibility.`,
      );
    }
  }
  if (existing) {
    const lvl = VISIBILITY_LEVEL[g.visibility];
    if (store.projectsIn(existing.id).some((p) => VISIBILITY_LEVEL[p.visibility] > lvl)) {
      addError(
        errors,
        "visibility_level",
        `${g.visibility} is not allowed since this group contains projects with higher visibility.`,
      );
    }
    if (store.data.groups.some((c) => c.parent_id === existing.id && VISIBILITY_LEVEL[c.visibility] > lvl)) {
      addError(
        errors,
        "visibility_level",
        `${g.visibility} is not allowed since there are sub-groups with higher visibility.`,
      );
    }
  }
  return errors;
}

export type GroupSettings = Partial<Omit<GroupRec, "id" | "created_at" | "runners_token">>;

/** A group record with the platform's defaults, not yet stored. */
export function buildGroup(store: Store, input: { name: string; path: string } & GroupSettings): GroupRec {
  return {
    id: 0,
    description: "",
    visibility: "private",
    parent_id: null,
    share_with_group_lock: false,
    require_two_factor_authentication: false,
    two_factor_grace_period: 48,
    project_creation_level: "developer",
    auto_devops_enabled: null,
    subgroup_creation_level: "maintainer",
    emails_disabled: null,
    mentions_disabled: null,
    lfs_enabled: true,
    default_branch_protection: 2,
    request_access_enabled: true,
    file_template_project_id: null,
    shared_runners_minutes_limit: null,
    extra_shared_runners_minutes_limit: null,
    membership_lock: false,
    shared_with_groups: [],
    ...input,
    created_at: store.nowIso(),
    runners_token: randomToken(20),
  };
}

/** Stores a group built by {@link buildGroup} (assigning its id from the shared namespace sequence). */
export function insertGroup(store: Store, g: GroupRec): GroupRec {
  g.id = store.nextId("namespaces");
  store.data.groups.push(g);
  return g;
}

export function validateProject(store: Store, p: ProjectRec): Errors {
  const errors: Errors = {};
  validateName(errors, p.name);
  validatePath(errors, p.path, reservedPath("project", p.path));
  const lower = p.path.toLowerCase();
  if (
    store.data.projects.some(
      (x) => x.namespace_id === p.namespace_id && x.path.toLowerCase() === lower && x.id !== p.id,
    )
  ) {
    addError(errors, "path", "has already been taken");
  }
  if (
    store.data.projects.some((x) => x.namespace_id === p.namespace_id && x.name === p.name && x.id !== p.id)
  ) {
    addError(errors, "name", "has already been taken");
  }
  const ns = store.group(p.namespace_id);
  if (ns && VISIBILITY_LEVEL[p.visibility] > VISIBILITY_LEVEL[ns.visibility]) {
    addError(errors, "visibility_level", `${p.visibility} is not allowed in a ${ns.visibility} group.`);
  }
  return errors;
}

export function buildProject(
  store: Store,
  input: { name: string; path: string; namespace_id: number; creator_id: number } & Partial<ProjectRec>,
): ProjectRec {
  const now = store.nowIso();
  const rec: ProjectRec = {
    id: 0,
    description: null,
    visibility: "private" as Visibility,
    default_branch: null,
    archived: false,
    tag_list: [],
    issues_enabled: true,
    merge_requests_enabled: true,
    wiki_enabled: true,
    jobs_enabled: true,
    snippets_enabled: true,
    container_registry_enabled: true,
    shared_runners_enabled: true,
    public_jobs: true,
    request_access_enabled: true,
    star_count: 0,
    forks_count: 0,
    open_issues_count: 0,
    shared_with_groups: [],
    ...input,
    created_at: now,
    last_activity_at: now,
  };
  rec.settings = { pages_access_level: defaultPagesLevel(rec.visibility), ...input.settings };
  return rec;
}

/** ProjectFeature's default pages level, fixed at creation: ENABLED for a public project, PRIVATE otherwise. */
export function defaultPagesLevel(visibility: Visibility): FeatureLevel {
  return visibility === "public" ? "enabled" : "private";
}

export function insertProject(store: Store, p: ProjectRec): ProjectRec {
  p.id = store.nextId("projects");
  store.data.projects.push(p);
  return p;
}

/** The group settings the API accepts on create and update (besides name, path, description and visibility). */
export const GROUP_SETTING_KEYS = [
  "share_with_group_lock",
  "require_two_factor_authentication",
  "two_factor_grace_period",
  "project_creation_level",
  "auto_devops_enabled",
  "subgroup_creation_level",
  "emails_disabled",
  "mentions_disabled",
  "lfs_enabled",
  "default_branch_protection",
  "request_access_enabled",
] as const;

// ---- project settings (13.12 `PUT /projects/:id`, `POST /projects`; ProjectFeature, ProjectSetting, CI/CD settings) ----

export {
  FEATURE_LEVEL_RANK,
  FEATURES,
  type Feature,
  type FeatureLevel,
  type FeatureLevels,
  LEGACY_FEATURE_FLAGS,
  type ProjectSettings,
};

/** Settings only the licensed edition accepts and shows. */
export const LICENSED_PROJECT_SETTINGS: ReadonlySet<keyof ProjectSettings> = new Set([
  "approvals_before_merge",
  "merge_requests_template",
  "issues_template",
  "merge_pipelines_enabled",
  "merge_trains_enabled",
]);

const SETTING_DEFAULTS: Omit<ProjectSettings, keyof FeatureLevels> = {
  merge_method: "merge",
  squash_option: "default_off",
  only_allow_merge_if_pipeline_succeeds: false,
  allow_merge_on_skipped_pipeline: false,
  only_allow_merge_if_all_discussions_are_resolved: false,
  resolve_outdated_diff_discussions: false,
  remove_source_branch_after_merge: true,
  printing_merge_request_link_enabled: true,
  suggestion_commit_message: null,
  autoclose_referenced_issues: true,
  lfs_enabled: true,
  packages_enabled: true,
  emails_disabled: null,
  show_default_award_emojis: true,
  build_git_strategy: "fetch",
  build_timeout: 3600,
  build_coverage_regex: null,
  ci_config_path: null,
  ci_default_git_depth: 50,
  ci_forward_deployment_enabled: true,
  restrict_user_defined_variables: false,
  keep_latest_artifact: true,
  auto_cancel_pending_pipelines: "enabled",
  auto_devops_enabled: null,
  auto_devops_deploy_strategy: "continuous",
  approvals_before_merge: 0,
  merge_requests_template: null,
  issues_template: null,
  merge_pipelines_enabled: false,
  merge_trains_enabled: false,
};

/** The feature access levels of a project; features the record predates follow its legacy booleans. */
export function featureLevels(p: ProjectRec): FeatureLevels {
  const s = p.settings ?? {};
  const flag = (on: boolean): FeatureLevel => (on ? "enabled" : "disabled");
  return {
    issues_access_level: s.issues_access_level ?? flag(p.issues_enabled),
    repository_access_level: s.repository_access_level ?? "enabled",
    merge_requests_access_level: s.merge_requests_access_level ?? flag(p.merge_requests_enabled),
    forking_access_level: s.forking_access_level ?? "enabled",
    wiki_access_level: s.wiki_access_level ?? flag(p.wiki_enabled),
    builds_access_level: s.builds_access_level ?? flag(p.jobs_enabled),
    snippets_access_level: s.snippets_access_level ?? flag(p.snippets_enabled),
    // ProjectFeature's default: ENABLED for a public project, PRIVATE otherwise.
    pages_access_level: s.pages_access_level ?? defaultPagesLevel(p.visibility),
    operations_access_level: s.operations_access_level ?? "enabled",
    analytics_access_level: s.analytics_access_level ?? "enabled",
  };
}

/** Every setting of a project, defaults filled in. */
export function projectSettings(p: ProjectRec): ProjectSettings {
  return { ...SETTING_DEFAULTS, ...p.settings, ...featureLevels(p) };
}

/**
 * Sets settings on a project record, keeping the legacy booleans (`issues_enabled`, ..., which other areas read)
 * in step with the feature levels: a level other than `disabled` is enabled.
 */
export function setProjectSettings(p: ProjectRec, changes: Partial<ProjectSettings>): void {
  const settings: Partial<ProjectSettings> = { ...p.settings };
  for (const [k, v] of Object.entries(changes)) {
    if (v !== undefined) (settings as Record<string, unknown>)[k] = v;
  }
  p.settings = settings;
  const levels = featureLevels(p);
  for (const [flag, feature] of Object.entries(LEGACY_FEATURE_FLAGS)) {
    p[flag as keyof typeof LEGACY_FEATURE_FLAGS] = levels[`${feature}_access_level`] !== "disabled";
  }
}

/** 10 minutes and ActiveSupport's month (30.436875 days), the bounds of `build_timeout`. */
export const BUILD_TIMEOUT_MIN = 600;
export const BUILD_TIMEOUT_MAX_EXCLUSIVE = 2_629_746;

/** The model's validations of project settings (`Project`, `ProjectFeature`, `ProjectCiCdSetting`). */
export function validateProjectSettings(p: ProjectRec): Errors {
  const errors: Errors = {};
  const s = projectSettings(p);
  if ((p.description ?? "").length > 2000)
    addError(errors, "description", "is too long (maximum is 2000 characters)");
  if (
    !Number.isInteger(s.build_timeout) ||
    s.build_timeout < BUILD_TIMEOUT_MIN ||
    s.build_timeout >= BUILD_TIMEOUT_MAX_EXCLUSIVE
  ) {
    addError(errors, "build_timeout", "needs to be between 10 minutes and 1 month");
  }
  if (s.ci_config_path !== null && s.ci_config_path !== "") {
    if (/\.\.|^\//.test(s.ci_config_path))
      addError(errors, "ci_config_path", "cannot include leading slash or directory traversal.");
    if (s.ci_config_path.length > 255)
      addError(errors, "ci_config_path", "is too long (maximum is 255 characters)");
  }
  if (s.suggestion_commit_message !== null && s.suggestion_commit_message.length > 255)
    addError(errors, "suggestion_commit_message", "is too long (maximum is 255 characters)");
  if (s.ci_default_git_depth < 0)
    addError(errors, "ci_cd_settings.default_git_depth", "must be greater than or equal to 0");
  if (s.ci_default_git_depth > 1000)
    addError(errors, "ci_cd_settings.default_git_depth", "must be less than or equal to 1000");
  if (s.approvals_before_merge < 0)
    addError(errors, "approvals_before_merge", "must be greater than or equal to 0");
  // ProjectFeature#repository_children_level
  for (const field of ["merge_requests_access_level", "builds_access_level"] as const) {
    if (FEATURE_LEVEL_RANK[s[field]] > FEATURE_LEVEL_RANK[s.repository_access_level]) {
      addError(
        errors,
        `project_feature.${field}`,
        "cannot have higher visibility level than repository access level",
      );
    }
  }
  return errors;
}
