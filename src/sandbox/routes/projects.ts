import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authenticateNonGet,
  authorizeProject,
  canReadGroup,
  canReadProject,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findProject,
  groupAccessLevel,
  projectAccessLevel,
  requireAuth,
} from "../auth.js";
import { projectJson, projectSimple } from "../entities.js";
import { badRequest, HttpError, notFound, rubyInspect, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import {
  buildProject,
  defaultPagesLevel,
  type Errors,
  insertProject,
  LEGACY_FEATURE_FLAGS,
  LICENSED_PROJECT_SETTINGS,
  type ProjectSettings,
  setProjectSettings,
  validateProject,
  validateProjectSettings,
} from "../model.js";
import { declare, type ParamSpec } from "../params.js";
import { type ParamHash, toQuery } from "../request.js";
import { accepted, created, json, type Reply } from "../respond.js";
import type { GroupRec, ProjectRec, Store, UserRec } from "../store.js";
import { VISIBILITIES, VISIBILITY_LEVEL } from "../store.js";

/**
 * Projects: create, read, list, update, transfer, archive, delete (sharing with groups is in shares.ts). Where the contract is
 * silent (it names a dozen fields) the sandbox follows the platform's 13.12 interface (`lib/api/projects.rb`,
 * `lib/api/helpers/projects_helpers.rb`, `ProjectPolicy`, `Projects::UpdateService`, the `Project`,
 * `ProjectFeature` and `ProjectCiCdSetting` models):
 *
 * - Every writable setting of `POST /projects` and `PUT /projects/:id` is kept and shown (`model.ts`'s
 *   `ProjectSettings`): the `*_access_level` features (`disabled`, `private`, `enabled`; pages also `public`), the
 *   legacy `issues_enabled`, `merge_requests_enabled`, `wiki_enabled`, `jobs_enabled`, `snippets_enabled` (true is
 *   `enabled`, false `disabled`; an `*_access_level` given beside its boolean wins), merge settings, CI/CD settings,
 *   `tag_list` (and the later `topics`, for newer clients). Licensed-only settings (`approvals_before_merge`,
 *   templates, merge pipelines and trains) are ignored on core and not shown there. `avatar`,
 *   `container_expiration_policy_attributes`, `repository_storage` and `service_desk_enabled` are accepted and not
 *   kept (the sandbox has no uploads, registry, storages or incoming e-mail).
 * - Validation: enum parameters answer Grape's 400 `{"error":"<name> does not have a valid value"}`; the model's
 *   rules answer 400 `{"message":{"<field>":[...]}}`: `build_timeout` from 600 s up to (not including) a month
 *   ("needs to be between 10 minutes and 1 month"), `ci_default_git_depth` 0..1000 (under
 *   `ci_cd_settings.default_git_depth`), `ci_config_path` without a leading `/` or `..`, merge requests and CI/CD
 *   no more open than the repository (`project_feature.<field>`), description up to 2000 characters, visibility no
 *   higher than the group's. `PUT` with none of its parameters is Grape's "at least one parameter" 400.
 * - Permissions (`ProjectPolicy`): `PUT` needs Maintainer (`admin_project`); a `name` in it needs the Owner
 *   (`rename_project`) and a `visibility` in it the Owner (`change_visibility_level`), whether or not the value
 *   changes, as `lib/api/projects.rb` checks presence; `emails_disabled` from a Maintainer is dropped
 *   (`set_emails_disabled`). Archiving, unarchiving (`archive_project`), transferring (`change_namespace`) and
 *   deleting (`remove_project`) need the Owner; a transferred project's visibility is lowered to its new group's. Owners are group owners (inherited) and the owner of a personal
 *   namespace; administrators pass every check.
 * - `DELETE` answers 202 `{"message":"202 Accepted"}` and removes the project at once: 13.12 delays a project's
 *   deletion only where its group opted in (`delayed_project_removal`, licensed), which the sandbox does not model.
 * - `GET /projects/:id` and the lists show the 13.12 `Entities::Project` fields; `*_enabled` say whether the caller
 *   may use the feature (a `private` feature is members-only), `build_git_strategy` and `runners_token` are shown
 *   to those who may administer the project.
 */

const LEVELS = ["disabled", "private", "enabled"] as const;

/** Create and update parameters (`optional_project_params`), typed as the platform declares them. */
export const FEATURE_SPEC = {
  description: { type: "string" },
  visibility: { type: "string", values: VISIBILITIES },
  build_git_strategy: { type: "string", values: ["fetch", "clone"] },
  build_timeout: { type: "integer" },
  auto_cancel_pending_pipelines: { type: "string", values: ["disabled", "enabled"] },
  build_coverage_regex: { type: "string" },
  ci_config_path: { type: "string" },
  service_desk_enabled: { type: "boolean" },
  keep_latest_artifact: { type: "boolean" },
  issues_enabled: { type: "boolean" },
  merge_requests_enabled: { type: "boolean" },
  wiki_enabled: { type: "boolean" },
  jobs_enabled: { type: "boolean" },
  snippets_enabled: { type: "boolean" },
  issues_access_level: { type: "string", values: LEVELS },
  repository_access_level: { type: "string", values: LEVELS },
  merge_requests_access_level: { type: "string", values: LEVELS },
  forking_access_level: { type: "string", values: LEVELS },
  wiki_access_level: { type: "string", values: LEVELS },
  builds_access_level: { type: "string", values: LEVELS },
  snippets_access_level: { type: "string", values: LEVELS },
  pages_access_level: { type: "string", values: [...LEVELS, "public"] },
  operations_access_level: { type: "string", values: LEVELS },
  analytics_access_level: { type: "string", values: LEVELS },
  emails_disabled: { type: "boolean" },
  show_default_award_emojis: { type: "boolean" },
  shared_runners_enabled: { type: "boolean" },
  resolve_outdated_diff_discussions: { type: "boolean" },
  remove_source_branch_after_merge: { type: "boolean" },
  container_registry_enabled: { type: "boolean" },
  container_expiration_policy_attributes: { type: "hash" },
  lfs_enabled: { type: "boolean" },
  public_builds: { type: "boolean" },
  public_jobs: { type: "boolean" },
  request_access_enabled: { type: "boolean" },
  only_allow_merge_if_pipeline_succeeds: { type: "boolean" },
  allow_merge_on_skipped_pipeline: { type: "boolean" },
  only_allow_merge_if_all_discussions_are_resolved: { type: "boolean" },
  tag_list: { type: "string[]", split: true },
  topics: { type: "string[]", split: true },
  avatar: { type: "file" },
  printing_merge_request_link_enabled: { type: "boolean" },
  merge_method: { type: "string", values: ["ff", "rebase_merge", "merge"] },
  suggestion_commit_message: { type: "string" },
  initialize_with_readme: { type: "boolean" },
  ci_default_git_depth: { type: "integer" },
  auto_devops_enabled: { type: "boolean" },
  auto_devops_deploy_strategy: { type: "string", values: ["continuous", "manual", "timed_incremental"] },
  autoclose_referenced_issues: { type: "boolean" },
  repository_storage: { type: "string" },
  packages_enabled: { type: "boolean" },
  squash_option: { type: "string", values: ["never", "always", "default_on", "default_off"] },
  // licensed edition (`optional_project_params_ee`)
  approvals_before_merge: { type: "integer" },
  merge_requests_template: { type: "string" },
  issues_template: { type: "string" },
} as const satisfies Record<string, ParamSpec>;

/** `optional_update_params`: only on `PUT`. */
const UPDATE_ONLY_SPEC = {
  ci_forward_deployment_enabled: { type: "boolean" },
  restrict_user_defined_variables: { type: "boolean" },
  merge_pipelines_enabled: { type: "boolean" },
  merge_trains_enabled: { type: "boolean" },
} as const satisfies Record<string, ParamSpec>;

/** `update_params_at_least_one_of` (13.12, with the later `topics`): a `PUT` must carry one of these. */
const UPDATE_AT_LEAST_ONE_OF = [
  "allow_merge_on_skipped_pipeline",
  "autoclose_referenced_issues",
  "auto_devops_enabled",
  "auto_devops_deploy_strategy",
  "auto_cancel_pending_pipelines",
  "build_coverage_regex",
  "build_git_strategy",
  "build_timeout",
  "builds_access_level",
  "ci_config_path",
  "ci_default_git_depth",
  "ci_forward_deployment_enabled",
  "container_registry_enabled",
  "container_expiration_policy_attributes",
  "default_branch",
  "description",
  "emails_disabled",
  "forking_access_level",
  "issues_access_level",
  "lfs_enabled",
  "merge_pipelines_enabled",
  "merge_requests_access_level",
  "merge_requests_template",
  "merge_trains_enabled",
  "merge_method",
  "name",
  "only_allow_merge_if_all_discussions_are_resolved",
  "only_allow_merge_if_pipeline_succeeds",
  "pages_access_level",
  "path",
  "printing_merge_request_link_enabled",
  "public_builds",
  "remove_source_branch_after_merge",
  "repository_access_level",
  "request_access_enabled",
  "resolve_outdated_diff_discussions",
  "restrict_user_defined_variables",
  "squash_option",
  "shared_runners_enabled",
  "snippets_access_level",
  "tag_list",
  "topics",
  "visibility",
  "wiki_access_level",
  "avatar",
  "suggestion_commit_message",
  "repository_storage",
  "compliance_framework_setting",
  "packages_enabled",
  "service_desk_enabled",
  "keep_latest_artifact",
  "issues_enabled",
  "jobs_enabled",
  "merge_requests_enabled",
  "wiki_enabled",
  "snippets_enabled",
];

/** The licensed edition's additions to {@link UPDATE_AT_LEAST_ONE_OF}. */
const UPDATE_AT_LEAST_ONE_OF_LICENSED = ["approvals_before_merge", "issues_template"];

/** Accepted and not kept: no observable effect in the sandbox. */
const UNSTORED = new Set([
  "avatar",
  "container_expiration_policy_attributes",
  "repository_storage",
  "service_desk_enabled",
  "initialize_with_readme",
]);

/** Fields of the core record itself; everything else is a setting (`ProjectRec.settings`). */
const RECORD_FIELDS = new Set([
  "name",
  "path",
  "description",
  "visibility",
  "default_branch",
  "container_registry_enabled",
  "shared_runners_enabled",
  "request_access_enabled",
]);

const collator = new Intl.Collator("en");

/** `ProjectWithAccess`: the project with the caller's memberships (`permissions`). */
function withAccess(ctx: Ctx, p: ProjectRec): Record<string, unknown> {
  const out = projectJson(ctx, ctx.store, p, { admin: canAdmin(ctx, p) });
  const user = ctx.user;
  const direct = user ? ctx.store.member("project", p.id, user.id) : undefined;
  const ns = ctx.store.group(p.namespace_id);
  const groupLevel = user && ns ? groupAccessLevel(ctx.store, user, ns) : 0;
  out["permissions"] = {
    project_access: direct ? { access_level: direct.access_level, notification_level: 3 } : null,
    group_access: groupLevel > 0 ? { access_level: groupLevel, notification_level: 3 } : null,
  };
  return out;
}

/**
 * Applies create/update parameters to a record: aliases (`public_builds`/`public_jobs`, `topics`/`tag_list`), the
 * legacy feature booleans, settings the edition lacks dropped.
 */
export function applyFeatures(
  ctx: Pick<Ctx, "licensed">,
  p: ProjectRec,
  input: Record<string, unknown>,
): void {
  const { public_builds, public_jobs, topics, tag_list, initialize_with_readme, ...rest } = input;
  const settings: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined || UNSTORED.has(k)) continue;
    if (LICENSED_PROJECT_SETTINGS.has(k as keyof ProjectSettings) && !ctx.licensed) continue;
    if (k in LEGACY_FEATURE_FLAGS) {
      const feature = LEGACY_FEATURE_FLAGS[k as keyof typeof LEGACY_FEATURE_FLAGS];
      // An access level given beside its legacy boolean wins.
      if (rest[`${feature}_access_level`] === undefined)
        settings[`${feature}_access_level`] = v === true ? "enabled" : "disabled";
    } else if (RECORD_FIELDS.has(k)) (p as unknown as Record<string, unknown>)[k] = v;
    else settings[k] = v;
  }
  const publicJobs = public_builds ?? public_jobs;
  if (publicJobs !== undefined) p.public_jobs = publicJobs as boolean;
  if (tag_list !== undefined) p.tag_list = tag_list as string[];
  if (topics !== undefined) p.tag_list = topics as string[];
  if (initialize_with_readme === true && p.default_branch === null) p.default_branch = "master";
  setProjectSettings(p, settings as Partial<ProjectSettings>);
}

export function validationErrors(store: Store, p: ProjectRec): Errors {
  return { ...validateProject(store, p), ...validateProjectSettings(p) };
}

function canCreateIn(ctx: Ctx, user: UserRec, g: GroupRec): boolean {
  if (user.admin) return true;
  const level = effectiveGroupLevel(ctx.store, user, g);
  if (g.project_creation_level === "noone") return level >= ACCESS.owner;
  if (g.project_creation_level === "maintainer") return level >= ACCESS.maintainer;
  return level >= ACCESS.developer;
}

/**
 * Keyset pagination of GET /projects (§1.2, 13.x): only with `order_by=id`; `id_after`/`id_before` select the
 * page, the next page is announced by `Link` (and the deprecated `Links`) with `rel="next"`, absent at the end.
 */
function keysetPage(
  ctx: Ctx,
  sorted: ProjectRec[],
  orderBy: string,
  sort: string,
  view: (p: ProjectRec) => unknown,
): Reply {
  if (orderBy !== "id") throw methodNotAllowedKeyset();
  const q = ctx.declare({
    id_after: { type: "integer" },
    id_before: { type: "integer" },
    per_page: { type: "integer" },
  });
  const perPage = q.per_page === undefined || q.per_page <= 0 ? 20 : Math.min(q.per_page, 100);
  let rows = sorted;
  if (q.id_after !== undefined) rows = rows.filter((x) => x.id > (q.id_after as number));
  if (q.id_before !== undefined) rows = rows.filter((x) => x.id < (q.id_before as number));
  const page = rows.slice(0, perPage);
  const headers: Record<string, string> = {};
  const last = page[page.length - 1];
  if (last && rows.length > perPage) {
    const params: Record<string, unknown> = { ...ctx.req.query, per_page: String(perPage) };
    delete params["id_after"];
    delete params["id_before"];
    params[sort === "asc" ? "id_after" : "id_before"] = String(last.id);
    const link = `<${ctx.baseUrl}${ctx.req.path}?${toQuery(params)}>; rel="next"`;
    headers["Link"] = link;
    headers["Links"] = link;
  }
  return json(page.map(view), 200, headers);
}

function methodNotAllowedKeyset(): HttpError {
  return new HttpError(405, { error: "Keyset pagination is not yet available for this type of request" });
}

/** `admin_project`: Maintainer or more (administrators too). */
function canAdmin(ctx: Ctx, p: ProjectRec): boolean {
  return effectiveProjectLevel(ctx.store, ctx.user, p) >= ACCESS.maintainer;
}

/** The namespace `POST /projects` creates in: the caller's own, or a group where the caller may create projects. */
export function creationNamespace(ctx: Ctx, user: UserRec, namespaceId: number | undefined): number {
  if (namespaceId === undefined || namespaceId === user.namespace_id) return user.namespace_id;
  const g = ctx.store.group(namespaceId);
  if (!g) {
    if (ctx.store.userByNamespace(namespaceId) && user.admin) return namespaceId;
    throw notFound("Namespace");
  }
  if (!canCreateIn(ctx, user, g)) throw validation({ namespace: ["is not valid"] });
  return g.id;
}

/** `find_namespace!`: an id or a full path of a group or user namespace the caller can see, else 404. */
export function findNamespace(ctx: Ctx, ref: string): number {
  const byId = /^\d+$/.test(ref);
  const g = byId ? ctx.store.group(Number(ref)) : ctx.store.groupByFullPath(ref);
  if (g && canReadGroup(ctx.store, ctx.user, g)) return g.id;
  const u = byId ? ctx.store.userByNamespace(Number(ref)) : ctx.store.userByUsername(ref);
  if (u && (ctx.user?.admin || ctx.user?.id === u.id)) return u.namespace_id;
  throw notFound("Namespace");
}

export function register(app: SandboxApp): void {
  app.onFixture("project_settings", (value, { store, source }) => {
    const fail = (where: string, msg: string) =>
      new FixtureError(`sandbox: fixture ${source}: project_settings${where} ${msg}`);
    if (!Array.isArray(value)) throw fail("", "must be a list");
    value.forEach((raw, i) => {
      const where = `[${i}]`;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw fail(where, "must be a mapping");
      const { project: path, ...settings } = raw as Record<string, unknown>;
      if (typeof path !== "string") throw fail(`${where}.project`, "must be a project full path");
      const p = store.projectByFullPath(path);
      if (!p) throw fail(`${where}.project`, `names "${path}", which is not in projects`);
      let input: Record<string, unknown>;
      try {
        input = declare(settings as ParamHash, { ...FEATURE_SPEC, ...UPDATE_ONLY_SPEC });
      } catch (error) {
        throw fail(where, error instanceof HttpError ? JSON.stringify(error.body) : String(error));
      }
      const unknown = Object.keys(settings).filter((k) => !(k in input));
      if (unknown.length > 0) throw fail(where, `has settings the API does not take: ${unknown.join(", ")}`);
      const next: ProjectRec = structuredClone(p);
      applyFeatures({ licensed: app.licensed }, next, input);
      const errors = validationErrors(store, next);
      if (Object.keys(errors).length > 0) throw fail(where, JSON.stringify(errors));
      Object.assign(p, next);
    });
  });

  app.get("/projects", (ctx) => {
    const p = ctx.declare({
      archived: { type: "boolean" },
      visibility: { type: "string", values: VISIBILITIES },
      order_by: {
        type: "string",
        values: ["id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity"],
        default: "created_at",
      },
      sort: { type: "string", values: ["asc", "desc"], default: "desc" },
      search: { type: "string" },
      simple: { type: "boolean", default: false },
      owned: { type: "boolean", default: false },
      membership: { type: "boolean", default: false },
      starred: { type: "boolean", default: false },
      min_access_level: { type: "integer", values: [10, 20, 30, 40, 50] },
      with_issues_enabled: { type: "boolean", default: false },
      with_merge_requests_enabled: { type: "boolean", default: false },
      statistics: { type: "boolean", default: false },
      with_custom_attributes: { type: "boolean", default: false },
    });
    const { store, user } = ctx;
    let list = store.data.projects.filter((x) => canReadProject(store, user, x));
    if (p.archived !== undefined) list = list.filter((x) => x.archived === p.archived);
    if (p.visibility) list = list.filter((x) => x.visibility === p.visibility);
    if (p.search) {
      const t = p.search.toLowerCase();
      list = list.filter((x) => x.name.toLowerCase().includes(t) || x.path.toLowerCase().includes(t));
    }
    if (p.owned) list = user ? list.filter((x) => x.namespace_id === user.namespace_id) : [];
    if (p.membership) list = user ? list.filter((x) => projectAccessLevel(store, user, x) > 0) : [];
    if (p.starred) list = [];
    if (p.min_access_level !== undefined) {
      const min = p.min_access_level;
      list = user ? list.filter((x) => projectAccessLevel(store, user, x) >= min) : [];
    }
    if (p.with_issues_enabled) list = list.filter((x) => x.issues_enabled);
    if (p.with_merge_requests_enabled) list = list.filter((x) => x.merge_requests_enabled);
    const dir = p.sort === "asc" ? 1 : -1;
    const key = (x: ProjectRec): string | number =>
      p.order_by === "name"
        ? x.name
        : p.order_by === "path"
          ? x.path
          : p.order_by === "created_at"
            ? x.created_at
            : p.order_by === "updated_at" || p.order_by === "last_activity_at"
              ? x.last_activity_at
              : x.id;
    list.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const c =
        typeof ka === "number" && typeof kb === "number" ? ka - kb : collator.compare(String(ka), String(kb));
      return c * dir || (a.id - b.id) * dir;
    });
    const view = (x: ProjectRec) => (p.simple ? projectSimple(ctx, store, x) : projectJson(ctx, store, x));
    if (ctx.params["pagination"] === "keyset") return keysetPage(ctx, list, p.order_by, p.sort, view);
    return ctx.paginate(list, view);
  });

  app.get("/projects/:id", (ctx) => {
    const p = findProject(ctx, ctx.path["id"]!);
    ctx.declare({
      statistics: { type: "boolean" },
      license: { type: "boolean" },
      with_custom_attributes: { type: "boolean" },
    });
    return withAccess(ctx, p);
  });

  app.post("/projects", (ctx) => {
    authenticateNonGet(ctx);
    const user = requireAuth(ctx);
    const p = ctx.declare(
      {
        name: { type: "string" },
        path: { type: "string" },
        namespace_id: { type: "integer" },
        default_branch: { type: "string" },
        ...FEATURE_SPEC,
      },
      { atLeastOneOf: ["name", "path"] },
    );
    const { name, path, namespace_id, ...features } = p;
    const namespaceId = creationNamespace(ctx, user, namespace_id);
    const finalName = name ?? path ?? "";
    const finalPath = path ?? finalName.toLowerCase().replace(/[^a-z0-9_.-]+/g, "-");
    const rec = buildProject(ctx.store, {
      name: finalName,
      path: finalPath,
      namespace_id: namespaceId,
      creator_id: user.id,
    });
    applyFeatures(ctx, rec, features);
    if (features.pages_access_level === undefined)
      setProjectSettings(rec, { pages_access_level: defaultPagesLevel(rec.visibility) });
    // `Project#check_personal_projects_limit`, which the API answers with 403 before any other error.
    if (!ctx.store.group(namespaceId) && ctx.store.projectsLimitLeft(user) <= 0) {
      throw new HttpError(403, {
        message: [
          user.projects_limit === 0
            ? "Personal project creation is not allowed. Please contact your administrator with questions"
            : `Your project limit is ${user.projects_limit} projects! Please contact your administrator to increase it`,
        ],
      });
    }
    const errors = validationErrors(ctx.store, rec);
    if (Object.keys(errors).length > 0) throw validation(errors);
    insertProject(ctx.store, rec);
    if (!ctx.store.group(namespaceId)) ctx.store.setMember("project", rec.id, user.id, ACCESS.maintainer);
    return created(withAccess(ctx, rec));
  });

  app.put("/projects/:id", (ctx) => {
    authenticateNonGet(ctx);
    // Grape validates the parameters before the endpoint looks the project up.
    const input = ctx.declare(
      {
        name: { type: "string" },
        path: { type: "string" },
        default_branch: { type: "string" },
        ...FEATURE_SPEC,
        ...UPDATE_ONLY_SPEC,
      },
      {
        atLeastOneOf: ctx.licensed
          ? [...UPDATE_AT_LEAST_ONE_OF, ...UPDATE_AT_LEAST_ONE_OF_LICENSED]
          : UPDATE_AT_LEAST_ONE_OF,
      },
    );
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    const owner = effectiveProjectLevel(ctx.store, ctx.user, p) >= ACCESS.owner;
    // `authorize! :rename_project if attrs[:name].present?`, `:change_visibility_level if attrs[:visibility].present?`
    if ((input.name !== undefined && input.name.trim() !== "") || input.visibility !== undefined)
      authorizeProject(ctx, p, ACCESS.owner);
    const changes: Record<string, unknown> = { ...input };
    if (!owner) delete changes["emails_disabled"];
    const next: ProjectRec = structuredClone(p);
    applyFeatures(ctx, next, changes);
    const errors = validationErrors(ctx.store, next);
    if (Object.keys(errors).length > 0) throw validation(errors);
    Object.assign(p, next, { last_activity_at: ctx.store.nowIso() });
    return projectJson(ctx, ctx.store, p, { admin: true });
  });

  app.put("/projects/:id/transfer", (ctx) => {
    authenticateNonGet(ctx);
    const { namespace } = ctx.declare({ namespace: { type: "string", required: true } });
    const p = findProject(ctx, ctx.path["id"]!);
    const user = authorizeProject(ctx, p, ACCESS.owner);
    const target = findNamespace(ctx, namespace);
    const fail = (msg: string) =>
      badRequest(`Failed to transfer project ${rubyInspect({ new_namespace: [msg] })}`);
    if (target === p.namespace_id) throw fail("Please select a new namespace for your project.");
    const group = ctx.store.group(target);
    const allowed = group ? canCreateIn(ctx, user, group) : user.admin || user.namespace_id === target;
    if (!allowed) throw fail("You don't have permission to transfer this project.");
    const lower = p.path.toLowerCase();
    if (
      ctx.store.data.projects.some(
        (x) => x.namespace_id === target && (x.path.toLowerCase() === lower || x.name === p.name),
      )
    )
      throw fail("Project with same name or path in target namespace already exists");
    // `update_namespace_and_visibility`: a visibility the new group does not allow becomes the group's.
    const lowered = group && VISIBILITY_LEVEL[p.visibility] > VISIBILITY_LEVEL[group.visibility];
    const next: ProjectRec = {
      ...p,
      namespace_id: target,
      visibility: lowered ? group.visibility : p.visibility,
    };
    const errors = validateProject(ctx.store, next);
    if (Object.keys(errors).length > 0) throw badRequest(`Failed to transfer project ${rubyInspect(errors)}`);
    Object.assign(p, next, { last_activity_at: ctx.store.nowIso() });
    return projectJson(ctx, ctx.store, p);
  });

  app.delete("/projects/:id", (ctx) => {
    authenticateNonGet(ctx);
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.owner);
    ctx.store.removeProject(p.id);
    return accepted();
  });

  app.post("/projects/:id/archive", (ctx) => {
    authenticateNonGet(ctx);
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.owner);
    p.archived = true;
    return created(projectJson(ctx, ctx.store, p));
  });

  app.post("/projects/:id/unarchive", (ctx) => {
    authenticateNonGet(ctx);
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.owner);
    p.archived = false;
    return created(projectJson(ctx, ctx.store, p));
  });
}
