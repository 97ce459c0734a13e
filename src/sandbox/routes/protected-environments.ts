import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, projectAccessLevel } from "../auth.js";
import { conflict, forbidden, paramError, recordNotFound, unprocessable } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { coerceInteger } from "../params.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import type { ProjectRec, Store, UserRec } from "../store.js";

/**
 * Protected environments [licensed] (contract "Protected environments"; platform-behavior §3.5, the 12.8-13.x
 * interface). Absent on the core edition (`{"error":"404 Not Found"}` from the catch-all).
 *
 * - Every route, GETs included, needs Maintainer access (`before { authorize_admin_project }`): an invisible project
 *   is `404 Project Not Found`, a visible one without Maintainer access 403 (also for an anonymous caller, since
 *   there is no `authenticate!`).
 * - `:name` is one path segment: URL-encode `/` (`review%2Fapp`). A missing name is `{"message":"404 Not found"}`.
 * - POST: `name` and `deploy_access_levels` (an array of `{access_level}` 30|40|60, `{user_id}` or `{group_id}`)
 *   are required (Grape 400 `{"error":...}`); a duplicate name is 409
 *   `{"message":"Protected environment '<name>' already exists"}`; model failures are 422 with an array of full
 *   messages: no levels, a role level without access_level, a user without access to the project, a group the
 *   project is not shared with (ancestor groups of the project count as having access).
 * - No PUT in 12.8-13.x: change by DELETE (204) and POST.
 * - Entity: `name`, `deploy_access_levels[]` of `access_level` (null for user and group levels),
 *   `access_level_description` ("Maintainers", "Developers + Maintainers", "Admins", or the user's or group's
 *   name), `user_id`, `group_id`. Lists are sorted by name.
 *
 * Fixture key `protected_environments` (a list):
 * `{ project: acme/api, name: production, deploy_access_levels: [{access_level: 40}, {user: alice}, {group: ops}] }`.
 */

export interface DeployAccessLevelRec {
  id: number;
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}

export interface ProtectedEnvironmentRec {
  id: number;
  project_id: number;
  name: string;
  created_at: string;
  updated_at: string;
  deploy_access_levels: DeployAccessLevelRec[];
}

interface ProtectedEnvironmentsArea {
  environments: ProtectedEnvironmentRec[];
}

export const DEPLOY_ACCESS_LEVELS: readonly number[] = [30, 40, 60];

const HUMAN_ACCESS_LEVELS: Record<number, string> = {
  30: "Developers + Maintainers",
  40: "Maintainers",
  60: "Admins",
};

function levelJson(store: Store, l: DeployAccessLevelRec): Record<string, unknown> {
  let description = l.access_level === null ? "" : (HUMAN_ACCESS_LEVELS[l.access_level] ?? "");
  if (l.user_id !== null) description = store.user(l.user_id)?.name ?? "";
  else if (l.group_id !== null) description = store.group(l.group_id)?.name ?? "";
  return {
    access_level: l.access_level,
    access_level_description: description,
    user_id: l.user_id,
    group_id: l.group_id,
  };
}

function environmentJson(store: Store, e: ProtectedEnvironmentRec): Record<string, unknown> {
  return { name: e.name, deploy_access_levels: e.deploy_access_levels.map((l) => levelJson(store, l)) };
}

/**
 * Whether `user` may deploy to the project's environment `name` (`Environment#protected_deployable_by_user?`,
 * `ProtectedEnvironment::DeployAccessLevel#check_access`): true when the name is not protected; otherwise an
 * administrator, the named user, a direct member of the named group, or a project member with at least a role's
 * level (60 admits administrators only) passes. Used by routes/deployments.ts on the licensed edition.
 */
export function deployableBy(store: Store, user: UserRec, projectId: number, name: string): boolean {
  const table = store.area<ProtectedEnvironmentsArea>("protected_environments", () => ({ environments: [] }));
  const env = table.environments.find((e) => e.project_id === projectId && e.name === name);
  const project = store.project(projectId);
  if (!env || !project) return true;
  if (user.admin) return true;
  return env.deploy_access_levels.some((l) => {
    if (l.user_id !== null) return l.user_id === user.id;
    if (l.group_id !== null) return store.member("group", l.group_id, user.id) !== undefined;
    return l.access_level !== null && projectAccessLevel(store, user, project) >= l.access_level;
  });
}

export interface LevelInput {
  access_level?: number;
  user_id?: number;
  group_id?: number;
}

/** The model's validation of a new protected environment's levels: full messages, empty when valid. */
function levelErrors(store: Store, project: ProjectRec, levels: LevelInput[]): string[] {
  const errors: string[] = [];
  if (levels.length === 0) errors.push("Deploy access levels is too short (minimum is 1 character)");
  const ns = store.group(project.namespace_id);
  const ancestors = new Set(ns ? store.ancestorsAndSelf(ns).map((g) => g.id) : []);
  for (const l of levels) {
    if (l.user_id !== undefined) {
      const user = store.user(l.user_id);
      if (!user || projectAccessLevel(store, user, project) === 0) {
        errors.push("Deploy access levels user is not a member of the project");
      }
    } else if (l.group_id !== undefined) {
      const shared = project.shared_with_groups.some((s) => s.group_id === l.group_id);
      if (!store.group(l.group_id) || !(shared || ancestors.has(l.group_id))) {
        errors.push("Deploy access levels group does not have access to the project");
      }
    } else if (l.access_level === undefined) {
      errors.push("Deploy access levels access level can't be blank");
    }
  }
  return [...new Set(errors)];
}

/**
 * Grape's checks of an array of access levels (`requires :deploy_access_levels, type: Array do optional
 * :access_level, values:; optional :user_id, :group_id, type: Integer end`): 400 naming each bad entry,
 * `deploy_access_levels[0][access_level] does not have a valid value`. Shared with routes/protected-refs.ts.
 */
export function parseAccessLevels(
  raw: Record<string, unknown>[],
  param: string,
  allowed: readonly number[],
): LevelInput[] {
  const errors: string[] = [];
  const out = raw.map((item, i) => {
    const level: LevelInput = {};
    for (const key of ["access_level", "user_id", "group_id"] as const) {
      const v = item[key];
      if (v === undefined || v === null || v === "") continue;
      const n = coerceInteger(v);
      if (n === undefined) errors.push(`${param}[${i}][${key}] is invalid`);
      else if (key === "access_level" && !allowed.includes(n))
        errors.push(`${param}[${i}][${key}] does not have a valid value`);
      else level[key] = n;
    }
    return level;
  });
  if (errors.length > 0) throw paramError(errors.join(", "));
  return out;
}

export function register(app: SandboxApp): void {
  const area = () =>
    app.store.area<ProtectedEnvironmentsArea>("protected_environments", () => ({ environments: [] }));

  /** `authorize_admin_project`: 404 for an invisible project, 403 below Maintainer (guests included). */
  const adminProject = (ctx: Ctx): ProjectRec => {
    const project = findProject(ctx, ctx.path["id"]!);
    if (effectiveProjectLevel(ctx.store, ctx.user, project) < ACCESS.maintainer) throw forbidden();
    return project;
  };

  const find = (ctx: Ctx, project: ProjectRec): ProtectedEnvironmentRec => {
    const name = ctx.path["name"]!;
    const env = area().environments.find((e) => e.project_id === project.id && e.name === name);
    if (!env) throw recordNotFound();
    return env;
  };

  const opts = { licensed: true };

  app.get(
    "/projects/:id/protected_environments",
    (ctx) => {
      const project = adminProject(ctx);
      const rows = area()
        .environments.filter((e) => e.project_id === project.id)
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
      return ctx.paginate(rows, (e) => environmentJson(ctx.store, e));
    },
    opts,
  );

  app.get(
    "/projects/:id/protected_environments/:name",
    (ctx) => environmentJson(ctx.store, find(ctx, adminProject(ctx))),
    opts,
  );

  app.post(
    "/projects/:id/protected_environments",
    (ctx) => {
      const project = adminProject(ctx);
      const p = ctx.declare({
        name: { type: "string", required: true },
        deploy_access_levels: { type: "hash[]", required: true },
      });
      const levels = parseAccessLevels(p.deploy_access_levels, "deploy_access_levels", DEPLOY_ACCESS_LEVELS);
      if (area().environments.some((e) => e.project_id === project.id && e.name === p.name)) {
        throw conflict(`Protected environment '${p.name}' already exists`);
      }
      const errors = p.name.trim() === "" ? ["Name can't be blank"] : [];
      errors.push(...levelErrors(ctx.store, project, levels));
      if (errors.length > 0) throw unprocessable(errors);
      const now = ctx.store.nowIso();
      const env: ProtectedEnvironmentRec = {
        id: ctx.store.nextId("protected_environments"),
        project_id: project.id,
        name: p.name,
        created_at: now,
        updated_at: now,
        deploy_access_levels: levels.map((l) => ({
          id: ctx.store.nextId("protected_environment_deploy_access_levels"),
          access_level: l.user_id !== undefined || l.group_id !== undefined ? null : (l.access_level ?? null),
          user_id: l.user_id ?? null,
          group_id: l.user_id === undefined ? (l.group_id ?? null) : null,
        })),
      };
      area().environments.push(env);
      return created(environmentJson(ctx.store, env));
    },
    opts,
  );

  app.delete(
    "/projects/:id/protected_environments/:name",
    (ctx) => {
      const env = find(ctx, adminProject(ctx));
      checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), env.updated_at);
      const a = area();
      a.environments = a.environments.filter((e) => e.id !== env.id);
      return noContent();
    },
    opts,
  );

  app.onFixture("protected_environments", (value, { store, source }) => {
    const fail = (where: string, msg: string) =>
      new FixtureError(`sandbox: fixture ${source}: protected_environments${where} ${msg}`);
    if (!Array.isArray(value)) throw fail("", "must be a list");
    const table = store.area<ProtectedEnvironmentsArea>("protected_environments", () => ({
      environments: [],
    }));
    value.forEach((raw, i) => {
      const where = `[${i}]`;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw fail(where, "must be a mapping");
      const e = raw as Record<string, unknown>;
      if (typeof e["project"] !== "string") throw fail(`${where}.project`, "must be a project full path");
      const project = store.projectByFullPath(e["project"]);
      if (!project) throw fail(`${where}.project`, `names "${e["project"]}", which is not in projects`);
      if (typeof e["name"] !== "string" || e["name"] === "") throw fail(`${where}.name`, "is required");
      const name = e["name"];
      if (table.environments.some((x) => x.project_id === project.id && x.name === name)) {
        throw fail(`${where}.name`, `"${name}" is listed twice for ${e["project"]}`);
      }
      if (!Array.isArray(e["deploy_access_levels"]))
        throw fail(`${where}.deploy_access_levels`, "must be a list");
      const levels = (e["deploy_access_levels"] as unknown[]).map((l, j): LevelInput => {
        const w = `${where}.deploy_access_levels[${j}]`;
        if (typeof l !== "object" || l === null) throw fail(w, "must be a mapping");
        const m = l as Record<string, unknown>;
        if (typeof m["user"] === "string") {
          const u = store.userByUsername(m["user"]);
          if (!u) throw fail(w, `names user "${m["user"]}", which is not in users`);
          return { user_id: u.id };
        }
        if (typeof m["group"] === "string") {
          const g = store.groupByFullPath(m["group"]);
          if (!g) throw fail(w, `names group "${m["group"]}", which is not in groups`);
          return { group_id: g.id };
        }
        const lvl = coerceInteger(m["access_level"]);
        if (lvl === undefined || !DEPLOY_ACCESS_LEVELS.includes(lvl)) {
          throw fail(w, "needs access_level (30, 40 or 60), user (a username) or group (a group full path)");
        }
        return { access_level: lvl };
      });
      const errors = levelErrors(store, project, levels);
      if (errors.length > 0) throw fail(where, errors.join("; "));
      const now = store.nowIso();
      table.environments.push({
        id: store.nextId("protected_environments"),
        project_id: project.id,
        name,
        created_at: now,
        updated_at: now,
        deploy_access_levels: levels.map((l) => ({
          id: store.nextId("protected_environment_deploy_access_levels"),
          access_level: l.access_level ?? null,
          user_id: l.user_id ?? null,
          group_id: l.group_id ?? null,
        })),
      });
    });
  });
}
