import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  findProject,
  groupAccessLevel,
  projectAccessLevel,
  requireAuth,
} from "../auth.js";
import { userBasic } from "../entities.js";
import { forbidden, recordNotFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { json, noContent } from "../respond.js";
import type { GroupRec, ProjectRec, Store, UserRec } from "../store.js";
import { recordEvent } from "./events.js";

/**
 * Access requests of groups and projects (contract "Access requests", "Access request" and the states table;
 * platform [11.8]/[13.x] `lib/api/access_requests.rb`, `Members::RequestAccessService`,
 * `Members::ApproveAccessRequestService`).
 *
 * - `GET …/access_requests`: the pending requests, oldest first, paginated; only for callers who may manage
 *   members (group Owner, project Maintainer, administrators), else 403.
 * - `POST …/access_requests`: the caller requests access (201, `{id, username, name, state, avatar_url, web_url,
 *   created_at, requested_at}`). 403 when the caller already has access (a direct or inherited member, or a
 *   member through a share — the platform's `request_access` policy), or when the group or project has
 *   `request_access_enabled: false`. A second request while one is pending is the model's 400
 *   `{"message":{"user_id":["already exists in source"]}}`.
 * - `PUT …/access_requests/:user_id/approve` (`access_level`, default 30): the request becomes a membership with
 *   that level; answers 200 with the member (`access_level`, `expires_at`). An invalid level (50 on a project, or
 *   not 10/20/30/40/50) is 400 `{"message":{"access_level":["is not included in the list"]}}`. Approval on a
 *   project records the new member's `joined` activity event (as `ProjectMember#post_create_hook` does).
 * - `DELETE …/access_requests/:user_id`: denies (or, by the requester, withdraws) the request: 204.
 * - A missing request is `{"message":"404 Not found"}`; an invisible group or project is its 404.
 *
 * Fixture key `access_requests`: a list of `{ group: <full path> | project: <full path>, user: <username>,
 * requested_at?: <datetime> }` (pending requests).
 */

export interface AccessRequestRec {
  source_type: "group" | "project";
  source_id: number;
  user_id: number;
  created_at: string;
  requested_at: string;
}

interface AccessRequestsArea {
  rows: AccessRequestRec[];
}

function area(store: Store): AccessRequestsArea {
  return store.area<AccessRequestsArea>("access_requests", () => ({ rows: [] }));
}

type Source =
  | { type: "group"; group: GroupRec; id: number }
  | { type: "project"; project: ProjectRec; id: number };

function findSource(ctx: Ctx, type: "group" | "project"): Source {
  const ref = ctx.path["id"]!;
  if (type === "group") {
    const group = findGroup(ctx, ref);
    return { type, group, id: group.id };
  }
  const project = findProject(ctx, ref);
  return { type, project, id: project.id };
}

/** `admin_group` (Owner) / `admin_project` (Maintainer); administrators always. */
function canManage(ctx: Ctx, s: Source): boolean {
  return s.type === "group"
    ? effectiveGroupLevel(ctx.store, ctx.user, s.group) >= ACCESS.owner
    : effectiveProjectLevel(ctx.store, ctx.user, s.project) >= ACCESS.maintainer;
}

function hasAccess(store: Store, user: UserRec, s: Source): boolean {
  return s.type === "group"
    ? groupAccessLevel(store, user, s.group) > 0
    : projectAccessLevel(store, user, s.project) > 0;
}

function requesterJson(ctx: Ctx, r: AccessRequestRec): Record<string, unknown> {
  const u = ctx.store.user(r.user_id);
  return {
    ...(u ? userBasic(ctx, u) : { id: r.user_id }),
    created_at: r.created_at,
    requested_at: r.requested_at,
  };
}

function requestsOf(store: Store, s: Source): AccessRequestRec[] {
  return area(store).rows.filter((r) => r.source_type === s.type && r.source_id === s.id);
}

function findRequest(ctx: Ctx, s: Source): AccessRequestRec {
  const { user_id } = ctx.declare({ user_id: { type: "integer", required: true } });
  const r = requestsOf(ctx.store, s).find((x) => x.user_id === user_id);
  if (!r) throw recordNotFound();
  return r;
}

function remove(store: Store, r: AccessRequestRec): void {
  const a = area(store);
  a.rows = a.rows.filter((x) => x !== r);
}

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("access_requests must be a list");
  value.forEach((raw, i) => {
    const where = `access_requests[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw fail(`${where} must be a mapping`);
    const o = raw as Record<string, unknown>;
    let type: "group" | "project";
    let id: number;
    if (typeof o["group"] === "string") {
      const g = store.groupByFullPath(o["group"]);
      if (!g) throw fail(`${where}.group "${o["group"]}" is not in groups`);
      type = "group";
      id = g.id;
    } else if (typeof o["project"] === "string") {
      const p = store.projectByFullPath(o["project"]);
      if (!p) throw fail(`${where}.project "${o["project"]}" is not in projects`);
      type = "project";
      id = p.id;
    } else {
      throw fail(`${where} needs group: <full path> or project: <full path>`);
    }
    const user = typeof o["user"] === "string" ? store.userByUsername(o["user"]) : undefined;
    if (!user) throw fail(`${where}.user must name a user of users (got "${String(o["user"])}")`);
    if (store.member(type, id, user.id)) throw fail(`${where}: ${user.username} is already a member`);
    const at = o["requested_at"];
    const when =
      at === undefined ? store.nowIso() : new Date(at instanceof Date ? at : String(at)).toISOString();
    area(store).rows.push({
      source_type: type,
      source_id: id,
      user_id: user.id,
      created_at: when,
      requested_at: when,
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("access_requests", (value, { store, source }) => seed(value, store, source));

  for (const type of ["group", "project"] as const) {
    const base = `/${type}s/:id/access_requests`;

    app.get(base, (ctx) => {
      requireAuth(ctx);
      const s = findSource(ctx, type);
      if (!canManage(ctx, s)) throw forbidden();
      const rows = requestsOf(ctx.store, s).sort(
        (a, b) => a.requested_at.localeCompare(b.requested_at) || a.user_id - b.user_id,
      );
      return ctx.paginate(rows, (r) => requesterJson(ctx, r));
    });

    app.post(base, (ctx) => {
      const user = requireAuth(ctx);
      const s = findSource(ctx, type);
      const enabled = s.type === "group" ? s.group.request_access_enabled : s.project.request_access_enabled;
      if (!enabled || hasAccess(ctx.store, user, s)) throw forbidden();
      if (requestsOf(ctx.store, s).some((r) => r.user_id === user.id)) {
        throw validation({ user_id: ["already exists in source"] });
      }
      const now = ctx.store.nowIso();
      const r: AccessRequestRec = {
        source_type: type,
        source_id: s.id,
        user_id: user.id,
        created_at: now,
        requested_at: now,
      };
      area(ctx.store).rows.push(r);
      return json(requesterJson(ctx, r), 201);
    });

    app.put(`${base}/:user_id/approve`, (ctx) => {
      requireAuth(ctx);
      const s = findSource(ctx, type);
      if (!canManage(ctx, s)) throw forbidden();
      const p = ctx.declare({
        user_id: { type: "integer", required: true },
        access_level: { type: "integer", default: ACCESS.developer },
      });
      const r = findRequest(ctx, s);
      const allowed = type === "group" ? [10, 20, 30, 40, 50] : [10, 20, 30, 40];
      if (!allowed.includes(p.access_level))
        throw validation({ access_level: ["is not included in the list"] });
      remove(ctx.store, r);
      const m = ctx.store.setMember(type, s.id, r.user_id, p.access_level);
      if (type === "project") {
        recordEvent(ctx.store, {
          project_id: s.id,
          author_id: r.user_id,
          action: "joined",
          target_type: null,
          target_id: null,
          target_iid: null,
          target_title: null,
          push_data: null,
          note: null,
        });
      }
      const u = ctx.store.user(r.user_id);
      return json(
        {
          ...(u ? userBasic(ctx, u) : { id: r.user_id }),
          access_level: m.access_level,
          created_at: m.created_at,
          expires_at: m.expires_at,
        },
        200,
      );
    });

    app.delete(`${base}/:user_id`, (ctx) => {
      const user = requireAuth(ctx);
      const s = findSource(ctx, type);
      const r = findRequest(ctx, s);
      if (r.user_id !== user.id && !canManage(ctx, s)) throw forbidden();
      remove(ctx.store, r);
      return noContent();
    });
  }
}
