import type { Ctx } from "./app.js";
import { forbidden, notFound, unauthorized } from "./errors.js";
import type { GroupRec, ProjectRec, Store, UserRec } from "./store.js";

/** Access levels (5 Minimal Access [licensed, top-level groups], 10 Guest … 50 Owner). */
export const ACCESS = {
  none: 0,
  minimal: 5,
  guest: 10,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
} as const;
export const ACCESS_LEVELS: readonly number[] = [10, 20, 30, 40, 50];

/** Any authenticated user, else 401. */
export function requireAuth(ctx: Ctx): UserRec {
  if (!ctx.user) throw unauthorized();
  return ctx.user;
}

/** Administrators only: 401 for a guest, 403 for a regular user. */
export function requireAdmin(ctx: Ctx): UserRec {
  const user = requireAuth(ctx);
  if (!user.admin) throw forbidden();
  return user;
}

/** Writes need a user (`authenticate_non_get!`): 401 for a guest on anything but GET/HEAD. */
export function authenticateNonGet(ctx: Ctx): void {
  if (ctx.req.method !== "GET" && ctx.req.method !== "HEAD" && !ctx.user) throw unauthorized();
}

/** The highest membership level of `user` on `group` or any ancestor, shares left out (0 when none). */
function hierarchyLevel(store: Store, user: UserRec, group: GroupRec): number {
  let level = 0;
  for (const g of store.ancestorsAndSelf(group)) {
    const m = store.member("group", g.id, user.id);
    if (m && m.access_level > level) level = m.access_level;
  }
  return level;
}

/**
 * The highest level of `user` on `group` (0 when none), ignoring admin rights: membership of the group or an
 * ancestor, or direct membership of a group that the group or an ancestor is shared with, capped at the share's
 * level (13.x `Group#members_with_parents` with `members_from_self_and_ancestor_group_shares`; Minimal Access
 * members of the invited group gain nothing).
 */
export function groupAccessLevel(store: Store, user: UserRec | null, group: GroupRec): number {
  if (!user) return 0;
  let level = hierarchyLevel(store, user, group);
  for (const g of store.ancestorsAndSelf(group)) {
    for (const share of g.shared_with_groups) {
      const m = store.member("group", share.group_id, user.id);
      if (m && m.access_level > ACCESS.minimal) {
        level = Math.max(level, Math.min(m.access_level, share.group_access_level));
      }
    }
  }
  return level;
}

/**
 * The highest level of `user` on `project`: a direct membership, membership of the namespace's groups
 * (inherited), a share with a group the user belongs to (capped at the share's level), or ownership of a
 * personal namespace (treated as 50).
 */
export function projectAccessLevel(store: Store, user: UserRec | null, project: ProjectRec): number {
  if (!user) return 0;
  let level = store.member("project", project.id, user.id)?.access_level ?? 0;
  const ns = store.group(project.namespace_id);
  if (ns) level = Math.max(level, groupAccessLevel(store, user, ns));
  else if (user.namespace_id === project.namespace_id) level = Math.max(level, ACCESS.owner);
  for (const share of project.shared_with_groups) {
    const g = store.group(share.group_id);
    if (!g) continue;
    const inGroup = groupAccessLevel(store, user, g);
    if (inGroup > 0) level = Math.max(level, Math.min(inGroup, share.group_access_level));
  }
  return level;
}

/** Effective level for permission checks: administrators count as owners. */
export function effectiveGroupLevel(store: Store, user: UserRec | null, group: GroupRec): number {
  if (user?.admin) return ACCESS.owner;
  return groupAccessLevel(store, user, group);
}

export function effectiveProjectLevel(store: Store, user: UserRec | null, project: ProjectRec): number {
  if (user?.admin) return ACCESS.owner;
  return projectAccessLevel(store, user, project);
}

/** Whether `user` belongs anywhere inside `group` (a descendant group or a project below it). */
function hasAccessBelow(store: Store, user: UserRec, group: GroupRec): boolean {
  const groups = [group, ...store.descendants(group)];
  const ids = new Set(groups.map((g) => g.id));
  if (
    store.data.members.some((m) => m.user_id === user.id && m.source_type === "group" && ids.has(m.source_id))
  ) {
    return true;
  }
  return store.data.projects.some(
    (p) => ids.has(p.namespace_id) && store.member("project", p.id, user.id) !== undefined,
  );
}

/** `read_group`: public to all; internal to signed-in users; private to members (also of descendants). */
export function canReadGroup(store: Store, user: UserRec | null, group: GroupRec): boolean {
  if (user?.admin) return true;
  if (group.visibility === "public") return true;
  if (!user) return false;
  if (group.visibility === "internal" && !user.external) return true;
  return groupAccessLevel(store, user, group) > 0 || hasAccessBelow(store, user, group);
}

/** `read_project`: public to all; internal to signed-in users; private to members. */
export function canReadProject(store: Store, user: UserRec | null, project: ProjectRec): boolean {
  if (user?.admin) return true;
  if (project.visibility === "public") return true;
  if (!user) return false;
  if (project.visibility === "internal" && !user.external) return true;
  return projectAccessLevel(store, user, project) > 0;
}

/** `find_group!`: by id or full path; missing or invisible is 404 `{"message":"404 Group Not Found"}`. */
export function findGroup(ctx: Ctx, ref: string): GroupRec {
  const g = ctx.store.groupByRef(ref);
  if (!g || !canReadGroup(ctx.store, ctx.user, g)) throw notFound("Group");
  return g;
}

/** `find_project!`: by id or full path; missing or invisible is 404 `{"message":"404 Project Not Found"}`. */
export function findProject(ctx: Ctx, ref: string): ProjectRec {
  const p = ctx.store.projectByRef(ref);
  if (!p || !canReadProject(ctx.store, ctx.user, p)) throw notFound("Project");
  return p;
}

/** 403 unless the caller has at least `level` on the group (admins always pass). 401 for a guest. */
export function authorizeGroup(ctx: Ctx, group: GroupRec, level: number): UserRec {
  const user = requireAuth(ctx);
  if (effectiveGroupLevel(ctx.store, user, group) < level) throw forbidden();
  return user;
}

/** 403 unless the caller has at least `level` on the project (admins always pass). 401 for a guest. */
export function authorizeProject(ctx: Ctx, project: ProjectRec, level: number): UserRec {
  const user = requireAuth(ctx);
  if (effectiveProjectLevel(ctx.store, user, project) < level) throw forbidden();
  return user;
}

/**
 * The platform's `public_access` ability: a public project for anyone, an internal one for a signed-in user who is
 * not external. It grants reading of the repository, environments, deployments and merge requests without a role.
 */
export function hasPublicAccess(user: UserRec | null, project: ProjectRec): boolean {
  if (project.visibility === "public") return true;
  return project.visibility === "internal" && user !== null && !user.external;
}
