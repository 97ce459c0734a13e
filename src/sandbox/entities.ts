import { createHash } from "node:crypto";
import type { Ctx } from "./app.js";
import { canReadGroup, canReadProject, effectiveGroupLevel, effectiveProjectLevel } from "./auth.js";
import { FEATURES, type Feature, featureLevels, projectSettings } from "./model.js";
import type { GroupRec, ProjectRec, Store, UserRec } from "./store.js";

/** The JSON views of the core records, shared by every route module. */

function hostOf(baseUrl: string): string {
  return new URL(baseUrl).hostname;
}

export function avatarUrl(email: string): string {
  const hash = createHash("md5").update(email.trim().toLowerCase()).digest("hex");
  return `https://www.gravatar.com/avatar/${hash}?s=80&d=identicon`;
}

/** User (brief): id, name, username, state, avatar_url, web_url. */
export function userBasic(ctx: Pick<Ctx, "baseUrl">, u: UserRec): Record<string, unknown> {
  return {
    id: u.id,
    name: u.name,
    username: u.username,
    state: u.state,
    avatar_url: avatarUrl(u.email),
    web_url: `${ctx.baseUrl}/${u.username}`,
  };
}

/**
 * User (extended). With `self` (GET /user) or for administrators the private fields are added;
 * administrators also see `is_admin`.
 */
export function userFull(
  ctx: Pick<Ctx, "baseUrl" | "isAdmin" | "user" | "licensed" | "store">,
  u: UserRec,
  opts: { self?: boolean } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...userBasic(ctx, u),
    created_at: u.created_at,
    bio: u.bio,
    location: u.location,
    public_email: u.public_email,
    skype: u.skype,
    linkedin: u.linkedin,
    twitter: u.twitter,
    website_url: u.website_url,
    organization: u.organization,
  };
  if (opts.self || ctx.isAdmin) {
    Object.assign(out, {
      last_sign_in_at: null,
      confirmed_at: u.confirmed_at,
      last_activity_on: null,
      email: u.email,
      theme_id: 1,
      color_scheme_id: 1,
      projects_limit: u.projects_limit,
      current_sign_in_at: null,
      identities: u.identities.map((i) => ({ ...i })),
      can_create_group: u.can_create_group,
      can_create_project: ctx.store.projectsLimitLeft(u) > 0,
      two_factor_enabled: false,
      external: u.external,
      private_profile: u.private_profile,
    });
    if (ctx.isAdmin) out["is_admin"] = u.admin;
    if (ctx.isAdmin && ctx.licensed) {
      out["shared_runners_minutes_limit"] = null;
      out["extra_shared_runners_minutes_limit"] = null;
    }
  }
  return out;
}

/** The namespace object embedded in projects and returned by /namespaces. */
export function namespaceJson(
  ctx: Pick<Ctx, "baseUrl">,
  store: Store,
  namespaceId: number,
): Record<string, unknown> {
  const g = store.group(namespaceId);
  if (g) {
    return {
      id: g.id,
      name: g.name,
      path: g.path,
      kind: "group",
      full_path: store.groupFullPath(g),
      parent_id: g.parent_id,
      avatar_url: null,
      web_url: `${ctx.baseUrl}/groups/${store.groupFullPath(g)}`,
    };
  }
  const u = store.userByNamespace(namespaceId);
  return {
    id: namespaceId,
    name: u?.name ?? "",
    path: u?.username ?? "",
    kind: "user",
    full_path: u?.username ?? "",
    parent_id: null,
    avatar_url: u ? avatarUrl(u.email) : null,
    web_url: `${ctx.baseUrl}/${u?.username ?? ""}`,
  };
}

function sharedWithGroups(store: Store, shares: GroupRec["shared_with_groups"]): Record<string, unknown>[] {
  return shares.flatMap((s) => {
    const g = store.group(s.group_id);
    if (!g) return [];
    return [
      {
        group_id: g.id,
        group_name: g.name,
        group_full_path: store.groupFullPath(g),
        group_access_level: s.group_access_level,
        expires_at: s.expires_at,
      },
    ];
  });
}

/** Project, basic form (`simple=true`). */
export function projectSimple(
  ctx: Pick<Ctx, "baseUrl">,
  store: Store,
  p: ProjectRec,
): Record<string, unknown> {
  const fullPath = store.projectFullPath(p);
  const nsName =
    store.group(p.namespace_id) !== undefined
      ? store.groupFullName(store.group(p.namespace_id)!)
      : (store.userByNamespace(p.namespace_id)?.name ?? "");
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${nsName} / ${p.name}`,
    path: p.path,
    path_with_namespace: fullPath,
    created_at: p.created_at,
    default_branch: p.default_branch,
    tag_list: [...p.tag_list],
    topics: [...p.tag_list],
    ssh_url_to_repo: `git@${hostOf(ctx.baseUrl)}:${fullPath}.git`,
    http_url_to_repo: `${ctx.baseUrl}/${fullPath}.git`,
    web_url: `${ctx.baseUrl}/${fullPath}`,
    readme_url: null,
    avatar_url: null,
    forks_count: p.forks_count,
    star_count: p.star_count,
    last_activity_at: p.last_activity_at,
    namespace: namespaceJson(ctx, store, p.namespace_id),
  };
}

/** The minimum role a `private` feature needs (`ProjectFeature.required_minimum_access_level`). */
function privateFeatureMinimum(feature: Feature, p: ProjectRec): number {
  if (feature === "merge_requests") return 20;
  if (feature === "repository" && p.visibility === "private") return 20;
  return 10;
}

/** `ProjectFeature#feature_available?` for the caller: disabled for all, private for members with the role. */
function featureAvailable(
  store: Store,
  user: UserRec | null | undefined,
  p: ProjectRec,
  feature: Feature,
): boolean {
  const level = featureLevels(p)[`${feature}_access_level`];
  if (level === "disabled") return false;
  if (level !== "private") return true;
  if (!user) return false;
  return effectiveProjectLevel(store, user, p) >= privateFeatureMinimum(feature, p);
}

/** Auto DevOps of a project that does not set it: the nearest group that does, else the instance default (on). */
function autoDevopsEnabled(store: Store, p: ProjectRec, own: boolean | null): boolean {
  if (own !== null) return own;
  const ns = store.group(p.namespace_id);
  const groups = ns ? store.ancestorsAndSelf(ns).reverse() : [];
  return groups.find((g) => g.auto_devops_enabled !== null)?.auto_devops_enabled ?? true;
}

/**
 * Project, full form (lists and single reads): 13.12's `Entities::Project`. `ctx.user` decides the `*_enabled`
 * flags (whether the caller may use the feature); `opts.admin` (the caller may administer the project, on single
 * reads and writes) adds `build_git_strategy`; `licensed` adds the licensed edition's fields.
 */
export function projectJson(
  ctx: Pick<Ctx, "baseUrl"> & Partial<Pick<Ctx, "user" | "licensed">>,
  store: Store,
  p: ProjectRec,
  opts: { admin?: boolean } = {},
): Record<string, unknown> {
  const api = `${ctx.baseUrl}/api/v4/projects/${p.id}`;
  const s = projectSettings(p);
  const user = ctx.user ?? null;
  const can = (f: Feature) => featureAvailable(store, user, p, f);
  const out: Record<string, unknown> = {
    ...projectSimple(ctx, store, p),
    _links: {
      self: api,
      issues: `${api}/issues`,
      merge_requests: `${api}/merge_requests`,
      repo_branches: `${api}/repository/branches`,
      labels: `${api}/labels`,
      events: `${api}/events`,
      members: `${api}/members`,
    },
    packages_enabled: s.packages_enabled,
    empty_repo: p.default_branch === null,
    archived: p.archived,
    visibility: p.visibility,
  };
  const owner = store.userByNamespace(p.namespace_id);
  if (owner) out["owner"] = userBasic(ctx, owner);
  Object.assign(out, {
    resolve_outdated_diff_discussions: s.resolve_outdated_diff_discussions,
    container_registry_enabled: p.container_registry_enabled,
    issues_enabled: can("issues"),
    merge_requests_enabled: can("merge_requests"),
    wiki_enabled: can("wiki"),
    jobs_enabled: can("builds"),
    snippets_enabled: can("snippets"),
    service_desk_enabled: false,
    service_desk_address: null,
    can_create_merge_request_in: user !== null && can("merge_requests") && canReadProject(store, user, p),
  });
  for (const f of FEATURES) out[`${f}_access_level`] = s[`${f}_access_level`];
  Object.assign(out, {
    emails_disabled: s.emails_disabled,
    shared_runners_enabled: p.shared_runners_enabled,
    lfs_enabled: s.lfs_enabled,
    creator_id: p.creator_id,
    import_status: p.import_status ?? "none",
  });
  if (can("issues")) out["open_issues_count"] = p.open_issues_count;
  Object.assign(out, {
    ci_default_git_depth: s.ci_default_git_depth,
    ci_forward_deployment_enabled: s.ci_forward_deployment_enabled,
    public_jobs: p.public_jobs,
  });
  if (opts.admin) out["build_git_strategy"] = s.build_git_strategy;
  Object.assign(out, {
    build_timeout: s.build_timeout,
    auto_cancel_pending_pipelines: s.auto_cancel_pending_pipelines,
    build_coverage_regex: s.build_coverage_regex,
  });
  if (can("repository")) out["ci_config_path"] = s.ci_config_path;
  Object.assign(out, {
    shared_with_groups: sharedWithGroups(store, p.shared_with_groups),
    only_allow_merge_if_pipeline_succeeds: s.only_allow_merge_if_pipeline_succeeds,
    allow_merge_on_skipped_pipeline: s.allow_merge_on_skipped_pipeline,
    restrict_user_defined_variables: s.restrict_user_defined_variables,
    request_access_enabled: p.request_access_enabled,
    only_allow_merge_if_all_discussions_are_resolved: s.only_allow_merge_if_all_discussions_are_resolved,
    remove_source_branch_after_merge: s.remove_source_branch_after_merge,
    printing_merge_request_link_enabled: s.printing_merge_request_link_enabled,
    merge_method: s.merge_method,
    squash_option: s.squash_option,
    suggestion_commit_message: s.suggestion_commit_message,
    auto_devops_enabled: autoDevopsEnabled(store, p, s.auto_devops_enabled),
    auto_devops_deploy_strategy: s.auto_devops_deploy_strategy,
    autoclose_referenced_issues: s.autoclose_referenced_issues,
    keep_latest_artifact: s.keep_latest_artifact,
  });
  if (ctx.licensed) {
    Object.assign(out, {
      approvals_before_merge: s.approvals_before_merge,
      mirror: false,
      external_authorization_classification_label: null,
      marked_for_deletion_at: null,
      marked_for_deletion_on: null,
      requirements_enabled: true,
      compliance_frameworks: [],
      issues_template: s.issues_template,
      merge_requests_template: s.merge_requests_template,
      merge_pipelines_enabled: s.merge_pipelines_enabled,
      merge_trains_enabled: s.merge_trains_enabled,
    });
  }
  return out;
}

/** Group (list form). Statistics only when asked for by an administrator. */
export function groupJson(
  ctx: Pick<Ctx, "baseUrl" | "licensed">,
  store: Store,
  g: GroupRec,
  opts: { statistics?: boolean; customAttributes?: boolean } = {},
): Record<string, unknown> {
  const fullPath = store.groupFullPath(g);
  const out: Record<string, unknown> = {
    id: g.id,
    web_url: `${ctx.baseUrl}/groups/${fullPath}`,
    name: g.name,
    path: g.path,
    description: g.description,
    visibility: g.visibility,
    share_with_group_lock: g.share_with_group_lock,
    require_two_factor_authentication: g.require_two_factor_authentication,
    two_factor_grace_period: g.two_factor_grace_period,
    project_creation_level: g.project_creation_level,
    auto_devops_enabled: g.auto_devops_enabled,
    subgroup_creation_level: g.subgroup_creation_level,
    emails_disabled: g.emails_disabled,
    mentions_disabled: g.mentions_disabled,
    lfs_enabled: g.lfs_enabled,
    default_branch_protection: g.default_branch_protection,
    avatar_url: null,
    request_access_enabled: g.request_access_enabled,
    full_name: store.groupFullName(g),
    full_path: fullPath,
    created_at: g.created_at,
    parent_id: g.parent_id,
  };
  // `with_custom_attributes` (administrators): the sandbox keeps no custom attributes, so the list is empty.
  if (opts.customAttributes) out["custom_attributes"] = [];
  if (ctx.licensed) {
    out["ldap_cn"] = null;
    out["ldap_access"] = null;
    out["marked_for_deletion_on"] = null;
  }
  if (opts.statistics) {
    out["statistics"] = {
      storage_size: 0,
      repository_size: 0,
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 0,
    };
  }
  if (ctx.licensed) out["file_template_project_id"] = g.file_template_project_id;
  return out;
}

/** GroupDetail: Group plus shared_with_groups, runners_token (group admins), projects, shared_projects. */
export function groupDetailJson(
  ctx: Pick<Ctx, "baseUrl" | "licensed" | "user">,
  store: Store,
  g: GroupRec,
  opts: { projects?: ProjectRec[]; sharedProjects?: ProjectRec[]; customAttributes?: boolean } = {},
): Record<string, unknown> {
  const out = groupJson(ctx, store, g, { customAttributes: opts.customAttributes });
  // `shared_with_group_links.public_or_visible_to_user`: only the groups the caller may see.
  const visible = g.shared_with_groups.filter((s) => {
    const shared = store.group(s.group_id);
    return shared !== undefined && canReadGroup(store, ctx.user, shared);
  });
  out["shared_with_groups"] = sharedWithGroups(store, visible);
  if (effectiveGroupLevel(store, ctx.user, g) >= 50) out["runners_token"] = g.runners_token;
  if (opts.projects) out["projects"] = opts.projects.map((p) => projectJson(ctx, store, p));
  if (opts.sharedProjects)
    out["shared_projects"] = opts.sharedProjects.map((p) => projectJson(ctx, store, p));
  if (ctx.licensed) {
    out["shared_runners_minutes_limit"] = g.shared_runners_minutes_limit;
    out["extra_shared_runners_minutes_limit"] = g.extra_shared_runners_minutes_limit;
  }
  return out;
}
