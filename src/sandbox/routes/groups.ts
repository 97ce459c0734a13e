import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authenticateNonGet,
  authorizeGroup,
  canReadGroup,
  canReadProject,
  effectiveGroupLevel,
  findGroup,
  groupAccessLevel,
  projectAccessLevel,
  requireAuth,
} from "../auth.js";
import { groupDetailJson, groupJson, projectJson, projectSimple } from "../entities.js";
import { badRequest, forbidden, rubyInspect, validation } from "../errors.js";
import { addError, buildGroup, type Errors, insertGroup, validateGroup } from "../model.js";
import type { ParamSpec } from "../params.js";
import { accepted, created } from "../respond.js";
import { type GroupRec, type ProjectRec, type UserRec, VISIBILITIES } from "../store.js";

/**
 * Groups and subgroups: §3.1 of platform-behavior and the "Groups" table of the contract. Where the contract is
 * silent the sandbox follows the platform (13.x `lib/api/groups.rb`, `GroupsFinder`, `CustomAttributesFilter`):
 *
 * - `with_custom_attributes` and the `custom_attributes[key]=value` filter count for administrators only and are
 *   ignored for anyone else. The sandbox keeps no custom attributes (the contract has no endpoints for them), so
 *   `with_custom_attributes=true` adds an empty `custom_attributes` list to each group (and to each project of
 *   `GET /groups/:id/projects`), and a non-empty filter matches no group.
 * - `simple=true` on `GET /groups/:id/projects` gives the platform's `BasicProjectDetails` (ids, names, paths,
 *   URLs and a few more fields), where the contract's summary names only "id, URL, name and path".
 * - `PUT /groups/:id` (Owner, `admin_group`) follows 13.12's `Groups::UpdateService`: locking sharing
 *   (`share_with_group_lock`) locks every subgroup, and a subgroup locked by its parent is unlocked only by an owner
 *   of the parent (400 `{"message":{"share_with_group_lock":["cannot be disabled when the parent group ..."]}}`).
 */

const LIST_SPEC = {
  skip_groups: { type: "integer[]" },
  all_available: { type: "boolean" },
  search: { type: "string" },
  order_by: { type: "string", values: ["name", "path", "id", "similarity"], default: "name" },
  sort: { type: "string", values: ["asc", "desc"], default: "asc" },
  statistics: { type: "boolean", default: false },
  with_custom_attributes: { type: "boolean", default: false },
  owned: { type: "boolean", default: false },
  min_access_level: { type: "integer", values: [10, 20, 30, 40, 50] },
  top_level_only: { type: "boolean" },
} as const satisfies Record<string, ParamSpec>;

const SETTINGS_SPEC = {
  description: { type: "string" },
  visibility: { type: "string", values: VISIBILITIES },
  avatar: { type: "file" },
  share_with_group_lock: { type: "boolean" },
  require_two_factor_authentication: { type: "boolean" },
  two_factor_grace_period: { type: "integer" },
  project_creation_level: { type: "string", values: ["noone", "maintainer", "developer"] },
  auto_devops_enabled: { type: "boolean" },
  subgroup_creation_level: { type: "string", values: ["owner", "maintainer"] },
  emails_disabled: { type: "boolean" },
  mentions_disabled: { type: "boolean" },
  lfs_enabled: { type: "boolean" },
  request_access_enabled: { type: "boolean" },
  default_branch_protection: { type: "integer", values: [0, 1, 2, 3] },
  shared_runners_setting: {
    type: "string",
    values: ["enabled", "disabled_with_override", "disabled_and_unoverridable"],
  },
  membership_lock: { type: "boolean" },
  shared_runners_minutes_limit: { type: "integer" },
  extra_shared_runners_minutes_limit: { type: "integer" },
} as const satisfies Record<string, ParamSpec>;

const LICENSED_SETTINGS = [
  "membership_lock",
  "shared_runners_minutes_limit",
  "extra_shared_runners_minutes_limit",
];
const ADMIN_SETTINGS = ["shared_runners_minutes_limit", "extra_shared_runners_minutes_limit"];
/** Parameters accepted by the API but not kept by the sandbox (no observable effect in the entity). */
const UNSTORED = new Set(["avatar", "shared_runners_setting"]);

/** Collator close to the platform database's ordering of names. */
const collator = new Intl.Collator("en");

function compareBy(order: string, a: GroupRec, b: GroupRec): number {
  if (order === "path") return collator.compare(a.path, b.path);
  if (order === "id") return a.id - b.id;
  if (order === "similarity") return 0;
  return collator.compare(a.name, b.name);
}

/** `GroupsFinder` as the list endpoints use it. */
function findGroups(
  ctx: Ctx,
  parent: GroupRec | undefined,
  scope: "children" | "descendants" = "children",
): { groups: GroupRec[]; statistics: boolean; customAttributes: boolean } {
  const p = ctx.declare(LIST_SPEC);
  // Not a declared parameter on the platform either: read as given, used only when it is a hash.
  const filter = ctx.params["custom_attributes"];
  const { store, user } = ctx;
  const allAvailable = p.all_available ?? ctx.isAdmin;
  let groups: GroupRec[];
  if (p.owned) {
    groups = user
      ? store.data.groups.filter((g) => store.member("group", g.id, user.id)?.access_level === ACCESS.owner)
      : [];
  } else if (p.min_access_level !== undefined) {
    const min = p.min_access_level;
    groups = user ? store.data.groups.filter((g) => groupAccessLevel(store, user, g) >= min) : [];
  } else if (ctx.isAdmin && allAvailable) {
    groups = [...store.data.groups];
  } else if (parent) {
    groups = store.data.groups.filter((g) => canReadGroup(store, user, g));
  } else {
    const set = new Set<GroupRec>();
    if (user) {
      for (const g of store.data.groups) {
        if (store.member("group", g.id, user.id)) {
          for (const a of store.ancestorsAndSelf(g)) set.add(a);
          for (const d of store.descendants(g)) set.add(d);
        }
      }
      for (const pr of store.data.projects) {
        if (store.member("project", pr.id, user.id)) {
          const ns = store.group(pr.namespace_id);
          if (ns) for (const a of store.ancestorsAndSelf(ns)) set.add(a);
        }
      }
    }
    if (!user || allAvailable) {
      for (const g of store.data.groups) {
        if (g.visibility === "public" || (user && !user.external && g.visibility === "internal")) set.add(g);
      }
    }
    groups = [...set];
  }
  if (parent && scope === "children") groups = groups.filter((g) => g.parent_id === parent.id);
  if (parent && scope === "descendants") {
    const below = new Set(store.descendants(parent).map((g) => g.id));
    groups = groups.filter((g) => below.has(g.id));
  }
  if (p.top_level_only) groups = groups.filter((g) => g.parent_id === null);
  const byAttributes =
    typeof filter === "object" && filter !== null && !Array.isArray(filter) && Object.keys(filter).length > 0;
  // No group has custom attributes in the sandbox, so a filter on them matches none.
  if (ctx.isAdmin && byAttributes) groups = [];
  if (p.skip_groups) {
    const skip = new Set(p.skip_groups);
    groups = groups.filter((g) => !skip.has(g.id));
  }
  if (p.search) {
    const term = p.search.toLowerCase();
    groups = groups.filter((g) => g.name.toLowerCase().includes(term) || g.path.toLowerCase().includes(term));
  }
  const dir = p.sort === "desc" ? -1 : 1;
  groups.sort((a, b) => compareBy(p.order_by, a, b) * dir || a.id - b.id);
  return {
    groups,
    statistics: p.statistics && ctx.isAdmin,
    customAttributes: p.with_custom_attributes && ctx.isAdmin,
  };
}

/** Projects of a group visible to the caller, for GroupDetail (capped at 100 each). */
function detailProjects(ctx: Ctx, g: GroupRec): { projects: ProjectRec[]; shared: ProjectRec[] } {
  const visible = (p: ProjectRec) => canReadProject(ctx.store, ctx.user, p);
  const projects = ctx.store
    .projectsIn(g.id)
    .filter(visible)
    .sort((a, b) => b.id - a.id)
    .slice(0, 100);
  const shared = ctx.store.data.projects
    .filter((p) => p.shared_with_groups.some((s) => s.group_id === g.id))
    .filter(visible)
    .sort((a, b) => b.id - a.id)
    .slice(0, 100);
  return { projects, shared };
}

/** The GroupDetail entity (Group without its project lists when `withProjects` is false). */
export function detail(
  ctx: Ctx,
  g: GroupRec,
  withProjects = true,
  customAttributes = false,
): Record<string, unknown> {
  if (!withProjects) return groupJson(ctx, ctx.store, g, { customAttributes });
  const { projects, shared } = detailProjects(ctx, g);
  return groupDetailJson(ctx, ctx.store, g, { projects, sharedProjects: shared, customAttributes });
}

/** Orders projects as the platform does, with `id` as the tiebreak in the same direction. */
function sortProjects(list: ProjectRec[], orderBy: string, sort: string): void {
  const dir = sort === "asc" ? 1 : -1;
  const key = (x: ProjectRec): string | number => {
    switch (orderBy) {
      case "name":
        return x.name;
      case "path":
        return x.path;
      case "created_at":
        return x.created_at;
      case "updated_at":
      case "last_activity_at":
        return x.last_activity_at;
      default:
        return x.id;
    }
  };
  list.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const c =
      typeof ka === "number" && typeof kb === "number" ? ka - kb : collator.compare(String(ka), String(kb));
    return c * dir || (a.id - b.id) * dir;
  });
}

const PROJECT_ORDER = [
  "id",
  "name",
  "path",
  "created_at",
  "updated_at",
  "last_activity_at",
  "similarity",
] as const;

function groupProjects(ctx: Ctx, g: GroupRec): unknown {
  const p = ctx.declare({
    archived: { type: "boolean" },
    visibility: { type: "string", values: VISIBILITIES },
    order_by: { type: "string", values: PROJECT_ORDER, default: "created_at" },
    sort: { type: "string", values: ["asc", "desc"], default: "desc" },
    search: { type: "string" },
    simple: { type: "boolean", default: false },
    owned: { type: "boolean", default: false },
    starred: { type: "boolean", default: false },
    with_issues_enabled: { type: "boolean", default: false },
    with_merge_requests_enabled: { type: "boolean", default: false },
    with_shared: { type: "boolean", default: true },
    include_subgroups: { type: "boolean", default: false },
    min_access_level: { type: "integer", values: [10, 20, 30, 40, 50] },
    with_custom_attributes: { type: "boolean", default: false },
    with_security_reports: { type: "boolean", default: false },
  });
  const { store, user } = ctx;
  const groupIds = new Set([g.id, ...(p.include_subgroups ? store.descendants(g).map((d) => d.id) : [])]);
  const set = new Set<ProjectRec>(store.data.projects.filter((x) => groupIds.has(x.namespace_id)));
  if (p.with_shared) {
    for (const x of store.data.projects)
      if (x.shared_with_groups.some((s) => s.group_id === g.id)) set.add(x);
  }
  let list = [...set].filter((x) => canReadProject(store, user, x));
  if (p.archived !== undefined) list = list.filter((x) => x.archived === p.archived);
  if (p.visibility) list = list.filter((x) => x.visibility === p.visibility);
  if (p.search) {
    const t = p.search.toLowerCase();
    list = list.filter(
      (x) =>
        x.name.toLowerCase().includes(t) ||
        x.path.toLowerCase().includes(t) ||
        (x.description ?? "").toLowerCase().includes(t),
    );
  }
  if (p.owned) list = user ? list.filter((x) => x.namespace_id === user.namespace_id) : [];
  if (p.starred) list = [];
  if (p.with_issues_enabled) list = list.filter((x) => x.issues_enabled);
  if (p.with_merge_requests_enabled) list = list.filter((x) => x.merge_requests_enabled);
  if (p.min_access_level !== undefined) {
    const min = p.min_access_level;
    list = user ? list.filter((x) => (user.admin ? 50 : projectAccessLevel(store, user, x)) >= min) : [];
  }
  sortProjects(list, p.order_by, p.sort);
  const customAttributes = p.with_custom_attributes && ctx.isAdmin;
  return ctx.paginate(list, (x) => {
    const out = p.simple ? projectSimple(ctx, store, x) : projectJson(ctx, store, x);
    return customAttributes ? { ...out, custom_attributes: [] } : out;
  });
}

/** Drops settings the edition or the caller may not set; 403 for admin-only settings from a non-admin. */
function settingsFrom(ctx: Ctx, input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (v === undefined || UNSTORED.has(k)) continue;
    if (LICENSED_SETTINGS.includes(k) && !ctx.licensed) continue;
    if (ADMIN_SETTINGS.includes(k) && !ctx.isAdmin) throw forbidden();
    out[k] = v;
  }
  return out;
}

/**
 * `change_share_with_group_lock` (GroupPolicy): an unchanged lock needs nothing; a locked subgroup of a locked parent
 * is unlocked only by an owner of the parent (administrators included).
 */
function canChangeShareLock(ctx: Ctx, g: GroupRec, wanted: boolean): boolean {
  if (wanted === g.share_with_group_lock || !g.share_with_group_lock) return true;
  const parent = g.parent_id === null ? undefined : ctx.store.group(g.parent_id);
  if (!parent?.share_with_group_lock) return true;
  return effectiveGroupLevel(ctx.store, ctx.user, parent) >= ACCESS.owner;
}

function canCreateSubgroup(ctx: Ctx, parent: GroupRec): boolean {
  const needed = parent.subgroup_creation_level === "owner" ? ACCESS.owner : ACCESS.maintainer;
  return effectiveGroupLevel(ctx.store, ctx.user, parent) >= needed;
}

/**
 * The parent a new group goes under (`parent_id`), after the platform's checks: 404 for an invisible parent, 403
 * without `create_subgroup` on it, or without `create_group` for a top-level group.
 */
export function creationParent(ctx: Ctx, user: UserRec, parentRef: number | undefined): GroupRec | undefined {
  if (parentRef !== undefined) {
    const parent = findGroup(ctx, String(parentRef));
    if (!canCreateSubgroup(ctx, parent)) throw forbidden();
    return parent;
  }
  if (!user.can_create_group && !user.admin) throw forbidden();
  return undefined;
}

/** `POST /groups` and the import: creates a group with the caller as owner, or fails like the platform. */
export function createGroup(
  ctx: Ctx,
  user: UserRec,
  input: Record<string, unknown> & { name: string; path: string },
  parentRef?: number,
): GroupRec {
  const parent = creationParent(ctx, user, parentRef);
  const g = buildGroup(ctx.store, {
    ...(input as Partial<GroupRec> & { name: string; path: string }),
    parent_id: parent?.id ?? null,
  });
  const errors = validateGroup(ctx.store, g);
  if (Object.keys(errors).length > 0) throw badRequest(`Failed to save group ${rubyInspect(errors)}`);
  insertGroup(ctx.store, g);
  ctx.store.setMember("group", g.id, user.id, ACCESS.owner);
  return g;
}

export function register(app: SandboxApp): void {
  app.get("/groups", (ctx) => {
    const { groups, ...opts } = findGroups(ctx, undefined);
    return ctx.paginate(groups, (g) => groupJson(ctx, ctx.store, g, opts));
  });

  app.get("/groups/:id", (ctx) => {
    const g = findGroup(ctx, ctx.path["id"]!);
    const p = ctx.declare({
      with_custom_attributes: { type: "boolean", default: false },
      with_projects: { type: "boolean", default: true },
    });
    return detail(ctx, g, p.with_projects, p.with_custom_attributes && ctx.isAdmin);
  });

  app.get("/groups/:id/subgroups", (ctx) => {
    const parent = findGroup(ctx, ctx.path["id"]!);
    const { groups, ...opts } = findGroups(ctx, parent);
    return ctx.paginate(groups, (g) => groupJson(ctx, ctx.store, g, opts));
  });

  app.get("/groups/:id/descendant_groups", (ctx) => {
    const parent = findGroup(ctx, ctx.path["id"]!);
    const { groups, ...opts } = findGroups(ctx, parent, "descendants");
    return ctx.paginate(groups, (g) => groupJson(ctx, ctx.store, g, opts));
  });

  app.get("/groups/:id/projects", (ctx) => groupProjects(ctx, findGroup(ctx, ctx.path["id"]!)));

  app.get("/groups/:id/projects/shared", (ctx) => {
    const g = findGroup(ctx, ctx.path["id"]!);
    const p = ctx.declare({
      archived: { type: "boolean" },
      visibility: { type: "string", values: VISIBILITIES },
      order_by: { type: "string", values: PROJECT_ORDER, default: "created_at" },
      sort: { type: "string", values: ["asc", "desc"], default: "desc" },
      search: { type: "string" },
      simple: { type: "boolean", default: false },
      min_access_level: { type: "integer", values: [10, 20, 30, 40, 50] },
    });
    let list = ctx.store.data.projects.filter(
      (x) => x.shared_with_groups.some((s) => s.group_id === g.id) && canReadProject(ctx.store, ctx.user, x),
    );
    if (p.archived !== undefined) list = list.filter((x) => x.archived === p.archived);
    if (p.visibility) list = list.filter((x) => x.visibility === p.visibility);
    if (p.search) {
      const t = p.search.toLowerCase();
      list = list.filter((x) => x.name.toLowerCase().includes(t) || x.path.toLowerCase().includes(t));
    }
    if (p.min_access_level !== undefined) {
      const min = p.min_access_level;
      const user = ctx.user;
      list = user
        ? list.filter((x) => (user.admin ? 50 : projectAccessLevel(ctx.store, user, x)) >= min)
        : [];
    }
    sortProjects(list, p.order_by, p.sort);
    return ctx.paginate(list, (x) =>
      p.simple ? projectSimple(ctx, ctx.store, x) : projectJson(ctx, ctx.store, x),
    );
  });

  app.post("/groups", (ctx) => {
    authenticateNonGet(ctx);
    const user = requireAuth(ctx);
    const p = ctx.declare({
      name: { type: "string", required: true },
      path: { type: "string", required: true },
      parent_id: { type: "integer" },
      ...SETTINGS_SPEC,
    });
    const { name, path, parent_id, ...rest } = p;
    const g = createGroup(ctx, user, { ...settingsFrom(ctx, rest), name, path }, parent_id);
    return created(detail(ctx, g));
  });

  app.put("/groups/:id", (ctx) => {
    authenticateNonGet(ctx);
    const g = findGroup(ctx, ctx.path["id"]!);
    authorizeGroup(ctx, g, ACCESS.owner);
    const p = ctx.declare({
      name: { type: "string" },
      path: { type: "string" },
      file_template_project_id: { type: "integer" },
      ...SETTINGS_SPEC,
    });
    const changes = settingsFrom(ctx, p);
    if (changes["file_template_project_id"] !== undefined && !ctx.licensed)
      delete changes["file_template_project_id"];
    const next: GroupRec = { ...g, ...(changes as Partial<GroupRec>) };
    const errors: Errors = validateGroup(ctx.store, next, g);
    if (!canChangeShareLock(ctx, g, next.share_with_group_lock)) {
      addError(
        errors,
        "share_with_group_lock",
        'cannot be disabled when the parent group "Share with group lock" is enabled, except by the owner of the parent group',
      );
    }
    if (Object.keys(errors).length > 0) throw validation(errors);
    // `force_share_with_group_lock_on_descendants`: locking a group locks every group below it.
    if (next.share_with_group_lock && !g.share_with_group_lock) {
      for (const d of ctx.store.descendants(g)) d.share_with_group_lock = true;
    }
    Object.assign(g, changes);
    return detail(ctx, g);
  });

  app.delete("/groups/:id", (ctx) => {
    authenticateNonGet(ctx);
    const g = findGroup(ctx, ctx.path["id"]!);
    authorizeGroup(ctx, g, ACCESS.owner);
    ctx.store.removeGroup(g.id);
    return accepted();
  });
}
