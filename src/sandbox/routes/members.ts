import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  ACCESS_LEVELS,
  canReadGroup,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  findProject,
  projectAccessLevel,
  requireAuth,
} from "../auth.js";
import { userBasic } from "../entities.js";
import { conflict, forbidden, notFound, paramError, recordNotFound, validation } from "../errors.js";
import { created, noContent } from "../respond.js";
import type { GroupRec, MemberRec, ProjectRec, Store } from "../store.js";

/**
 * Group and project members (`/groups/:id/members`, `/projects/:id/members`, and the `/all` forms). The contract
 * says only "409 when a member exists; 400 for all validation errors"; everything else follows the platform's
 * 13.12 `lib/api/members.rb`, `Members::{Create,Update,Destroy}Service`, the `Member`, `GroupMember` and
 * `ProjectMember` models and `GroupMemberPolicy`/`ProjectMemberPolicy`:
 *
 * - Every route needs a signed-in user (`authenticate!`): 401 for a guest, except that a GET on a group or project
 *   the guest cannot see is its 404, as the contract's error table has it for every GET on an invisible source.
 * - Adding, changing and removing members needs `admin_group` (Owner) on a group or `admin_project` (Maintainer)
 *   on a project: 403 otherwise (a member may also remove itself). So a group Maintainer can neither add nor
 *   promote anyone, an Owner least of all; reading needs only to see the group or project.
 * - `access_level`: 10, 20, 30, 40 or 50 on a group; on the licensed edition a top-level group also takes 5
 *   (Minimal Access; on a subgroup or on core the error adds `supported on top level groups only` / `not supported
 *   by license`); 10 to 40 on a project (no Owner through the API in 13.12). Otherwise 400
 *   `{"message":{"access_level":["is not included in the list"]}}`. A level below the user's membership of an
 *   ancestor group is 400 `should be greater than or equal to <Role> inherited membership from group <name>`.
 * - `expires_at`: a date (`YYYY-MM-DD`, or a datetime whose date is kept), never in the past (by the sandbox's
 *   clock): 400 `{"message":{"expires_at":["cannot be a date in the past"]}}`; anything else is
 *   `expires_at is invalid`. `PUT` without `expires_at` keeps it; with `null` clears it.
 * - `POST` with a member already there is 409 `Member already exists` (checked before the user exists: 404
 *   `User Not Found`). A `user_id` of several ids separated by commas adds them all (`Members::CreateService`):
 *   201 `{"status":"success"}`, or 201 `{"message":"<username>: <errors>","status":"error"}`; ids that are no user
 *   are skipped, existing members are updated, at most 100 ids (`Too many users specified (limit is 100)`).
 *   Invitations by e-mail are not emulated: an item that is not an id is skipped.
 * - A member that is not there (`find_by!`) is `{"message":"404 Not found"}`.
 * - The last owner of a group (the only active Owner of the group and its ancestors, or when there is none the only
 *   blocked one) can be neither changed nor removed, not even by an administrator: 403 `{"message":"403
 *   Forbidden"}`. The owner of a personal project cannot be changed or removed either. A member may always leave
 *   (DELETE of oneself), unless that last-owner rule forbids it.
 * - Removing a group member also removes the user's direct memberships of the group's subgroups and of the
 *   projects below it, unless `skip_subresources=true`.
 * - Lists are sorted by user id; `query` matches the name or username (part of it from 3 characters, exactly below
 *   3), or the e-mail exactly; `user_ids` filters. Blocked users are listed with `state: "blocked"`.
 * - `/members/all`: one entry per user. For a group, its own membership, else the highest of the groups above
 *   (the nearest on a tie; 13.12's `GroupMembersFinder` leaves out inherited rows of direct members). For a project
 *   also the members of the groups it is shared with (and of their ancestors) that are public or visible to the
 *   caller; the entry is the project membership if there is one, else a group membership, and its `access_level`
 *   is the user's effective level on the project (a share caps it), as the platform's `project_authorizations`
 *   give it.
 */

type Source = { kind: "group"; group: GroupRec } | { kind: "project"; project: ProjectRec };

const HUMAN_ACCESS: Record<number, string> = {
  [ACCESS.minimal]: "Minimal Access",
  [ACCESS.guest]: "Guest",
  [ACCESS.reporter]: "Reporter",
  [ACCESS.developer]: "Developer",
  [ACCESS.maintainer]: "Maintainer",
  [ACCESS.owner]: "Owner",
};
/** `Gitlab::Access.values`: the levels of project members and project shares (no Owner in 13.12). */
export const PROJECT_LEVELS: readonly number[] = ACCESS_LEVELS.filter((l) => l !== ACCESS.owner);
/** `Members::CreateService::DEFAULT_LIMIT`. */
const BULK_LIMIT = 100;

const sourceType = (s: Source): "group" | "project" => s.kind;
const sourceId = (s: Source): number => (s.kind === "group" ? s.group.id : s.project.id);

function readSource(ctx: Ctx, kind: "groups" | "projects"): Source {
  const ref = ctx.path["id"]!;
  return kind === "groups"
    ? { kind: "group", group: findGroup(ctx, ref) }
    : { kind: "project", project: findProject(ctx, ref) };
}

/** The groups above the source: a group's ancestors, a project's namespace group and its ancestors. Nearest first. */
function groupsAbove(store: Store, s: Source): GroupRec[] {
  if (s.kind === "group") return store.ancestorsAndSelf(s.group).reverse().slice(1);
  const ns = store.group(s.project.namespace_id);
  return ns ? store.ancestorsAndSelf(ns).reverse() : [];
}

/** `admin_group` (Owner) on a group, `admin_project` (Maintainer) on a project; administrators always. */
function canAdminMembers(ctx: Ctx, s: Source): boolean {
  return s.kind === "group"
    ? effectiveGroupLevel(ctx.store, ctx.user, s.group) >= ACCESS.owner
    : effectiveProjectLevel(ctx.store, ctx.user, s.project) >= ACCESS.maintainer;
}

const isActive = (store: Store, userId: number) => store.user(userId)?.state === "active";

/**
 * `Group#member_last_owner? || member_last_blocked_owner?`: the user owns the group (here or above) and is its only
 * active owner, or there is no active owner and the member is the group's only blocked owner.
 */
function isLastOwner(store: Store, group: GroupRec, m: MemberRec): boolean {
  const hierarchy = store.ancestorsAndSelf(group);
  const activeOwners = hierarchy.flatMap((g) =>
    store.members("group", g.id).filter((x) => x.access_level === ACCESS.owner && isActive(store, x.user_id)),
  );
  if (activeOwners.some((x) => x.user_id === m.user_id)) return activeOwners.length === 1;
  if (activeOwners.length > 0) return false;
  const blockedOwners = store
    .members("group", group.id)
    .filter((x) => x.access_level === ACCESS.owner && store.user(x.user_id)?.state === "blocked");
  return blockedOwners.length === 1 && blockedOwners[0]!.user_id === m.user_id;
}

/** `ProjectMemberPolicy`'s `target_is_owner`: the member owns the personal namespace the project is in. */
function ownsPersonalProject(store: Store, project: ProjectRec, userId: number): boolean {
  return store.userByNamespace(project.namespace_id)?.id === userId;
}

/** Whether the member's record is protected from changes and removal (last owner, personal project owner). */
function protectedMember(store: Store, s: Source, m: MemberRec): boolean {
  return s.kind === "group"
    ? isLastOwner(store, s.group, m)
    : ownsPersonalProject(store, s.project, m.user_id);
}

/** The levels the source takes: Minimal Access only on top-level groups of the licensed edition. */
function levelErrors(ctx: Ctx, s: Source, level: number): string[] {
  if (s.kind === "project") return PROJECT_LEVELS.includes(level) ? [] : ["is not included in the list"];
  const minimalAllowed = ctx.licensed && s.group.parent_id === null;
  if (ACCESS_LEVELS.includes(level) || (level === ACCESS.minimal && minimalAllowed)) return [];
  const out = ["is not included in the list"];
  if (level === ACCESS.minimal) {
    if (s.group.parent_id !== null) out.push("supported on top level groups only");
    if (!ctx.licensed) out.push("not supported by license");
  }
  return out;
}

/** The model's validations of a membership, in the platform's order; `{}` when valid. */
function memberErrors(
  ctx: Ctx,
  s: Source,
  userId: number,
  level: number,
  expiresAt: string | null,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => {
    errors[field] = [...(errors[field] ?? []), msg];
  };
  if (expiresAt !== null && expiresAt < ctx.store.nowIso().slice(0, 10)) {
    add("expires_at", "cannot be a date in the past");
  }
  // `higher_access_level_than_group`: the highest membership of the same user in a group above.
  let highest: { level: number; group: GroupRec } | undefined;
  for (const g of groupsAbove(ctx.store, s)) {
    const m = ctx.store.member("group", g.id, userId);
    if (m && (!highest || m.access_level >= highest.level)) highest = { level: m.access_level, group: g };
  }
  if (highest && highest.level > level) {
    add(
      "access_level",
      `should be greater than or equal to ${HUMAN_ACCESS[highest.level] ?? highest.level} inherited membership from group ${highest.group.name}`,
    );
  }
  for (const msg of levelErrors(ctx, s, level)) add("access_level", msg);
  return errors;
}

/** Rails' `full_messages.to_sentence` of an errors hash. */
function fullSentence(errors: Record<string, string[]>): string {
  const humanize = (f: string) => {
    const words = f.replace(/_id$/, "").replace(/_/g, " ");
    return words.charAt(0).toUpperCase() + words.slice(1);
  };
  return toSentence(Object.entries(errors).flatMap(([f, msgs]) => msgs.map((m) => `${humanize(f)} ${m}`)));
}

/** Ruby's `Array#to_sentence`: `a`, `a and b`, `a, b, and c`. */
export function toSentence(items: string[]): string {
  if (items.length <= 2) return items.join(" and ");
  return `${items.slice(0, -1).join(", ")}, and ${items[items.length - 1]}`;
}

/**
 * Grape's `DateTime` coercion of `expires_at` as the member keeps it (a date): `YYYY-MM-DD` or an ISO datetime
 * (its date part); `null`, empty or absent is no date. Anything else is `expires_at is invalid`.
 */
function expiresAtParam(ctx: Ctx): string | null {
  const raw = ctx.params["expires_at"];
  if (raw === undefined || raw === null || raw === "") return null;
  const m =
    typeof raw === "string"
      ? /^(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.exec(
          raw.trim(),
        )
      : null;
  const date = m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
  if (
    !date ||
    Number.isNaN(Date.parse(`${date}T00:00:00Z`)) ||
    new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date
  ) {
    throw paramError("expires_at is invalid");
  }
  return date;
}

function memberJson(ctx: Ctx, m: MemberRec, accessLevel = m.access_level): Record<string, unknown> {
  const u = ctx.store.user(m.user_id);
  return {
    ...(u ? userBasic(ctx, u) : { id: m.user_id }),
    access_level: accessLevel,
    created_at: m.created_at,
    expires_at: m.expires_at,
  };
}

/** `User.search` as the members lists use it (`query`), and `user_ids`. */
function filterMembers(ctx: Ctx, list: MemberRec[]): MemberRec[] {
  const p = ctx.declare({ query: { type: "string" }, user_ids: { type: "integer[]", split: true } });
  let out = list;
  if (p.query !== undefined && p.query !== "") {
    const q = p.query.replace(/^@/, "").toLowerCase();
    const matches = (value: string) =>
      q.length >= 3 ? value.toLowerCase().includes(q) : value.toLowerCase() === q;
    out =
      q.trim() === ""
        ? []
        : out.filter((m) => {
            const u = ctx.store.user(m.user_id);
            return u !== undefined && (matches(u.name) || matches(u.username) || u.email.toLowerCase() === q);
          });
  }
  if (p.user_ids && p.user_ids.length > 0) {
    const ids = new Set(p.user_ids);
    out = out.filter((m) => ids.has(m.user_id));
  }
  return out;
}

/** `/members/all`: each user once, with the membership and level the platform shows. */
function allMembers(ctx: Ctx, s: Source): { member: MemberRec; level: number }[] {
  const { store } = ctx;
  const best = new Map<number, MemberRec>();
  const consider = (m: MemberRec) => {
    const cur = best.get(m.user_id);
    if (!cur || m.access_level > cur.access_level) best.set(m.user_id, m);
  };
  const own = store.members(sourceType(s), sourceId(s));
  for (const g of groupsAbove(store, s)) for (const m of store.members("group", g.id)) consider(m);
  if (s.kind === "group") {
    for (const m of own) best.delete(m.user_id);
    for (const m of own) consider(m);
    return [...best.values()].map((member) => ({ member, level: member.access_level }));
  }
  // The groups the project is shared with, and their ancestors, when public or visible to the caller.
  for (const share of s.project.shared_with_groups) {
    const invited = store.group(share.group_id);
    if (!invited) continue;
    for (const g of store.ancestorsAndSelf(invited)) {
      if (!canReadGroup(store, ctx.user, g)) continue;
      for (const m of store.members("group", g.id)) if (m.access_level > ACCESS.minimal) consider(m);
    }
  }
  for (const m of own) best.set(m.user_id, m);
  return [...best.values()].map((member) => {
    const user = store.user(member.user_id);
    const effective = user ? projectAccessLevel(store, user, s.project) : 0;
    return { member, level: effective > 0 ? effective : member.access_level };
  });
}

/** Removes the user's direct memberships of the group's subgroups and of the projects below it. */
function removeSubresources(store: Store, group: GroupRec, userId: number): void {
  const groups = [group, ...store.descendants(group)];
  const ids = new Set(groups.map((g) => g.id));
  for (const g of groups.slice(1)) store.removeMember("group", g.id, userId);
  for (const p of store.data.projects)
    if (ids.has(p.namespace_id)) store.removeMember("project", p.id, userId);
}

/** `Members::CreateService` for a `user_id` listing several ids. */
function addSeveral(ctx: Ctx, s: Source, list: string, level: number, expiresAt: string | null): unknown {
  const items = list
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  if (items.length === 0) return { message: "No users specified.", status: "error" };
  if (items.length > BULK_LIMIT) {
    return { message: `Too many users specified (limit is ${BULK_LIMIT})`, status: "error" };
  }
  const users = [...new Set(items.filter((x) => /^\d+$/.test(x)).map(Number))].flatMap((id) => {
    const u = ctx.store.user(id);
    return u ? [u] : [];
  });
  const failures: string[] = [];
  for (const user of users) {
    const existing = ctx.store.member(sourceType(s), sourceId(s), user.id);
    if (existing && protectedMember(ctx.store, s, existing)) continue;
    const errors = memberErrors(ctx, s, user.id, level, expiresAt);
    if (Object.keys(errors).length > 0) {
      failures.push(`${user.username}: ${fullSentence(errors)}`);
      continue;
    }
    const m = ctx.store.setMember(sourceType(s), sourceId(s), user.id, level);
    m.expires_at = expiresAt;
  }
  return failures.length > 0 ? { message: toSentence(failures), status: "error" } : { status: "success" };
}

export function register(app: SandboxApp): void {
  for (const kind of ["groups", "projects"] as const) {
    /** GETs: the source first (an invisible one is 404 for a guest too), then a signed-in user. */
    const readable = (ctx: Ctx): Source => {
      const s = readSource(ctx, kind);
      requireAuth(ctx);
      return s;
    };

    app.get(`/${kind}/:id/members`, (ctx) => {
      const s = readable(ctx);
      const list = filterMembers(ctx, ctx.store.members(sourceType(s), sourceId(s))).sort(
        (a, b) => a.user_id - b.user_id,
      );
      return ctx.paginate(list, (m) => memberJson(ctx, m));
    });

    app.get(`/${kind}/:id/members/all`, (ctx) => {
      const s = readable(ctx);
      const entries = allMembers(ctx, s);
      const kept = new Set(
        filterMembers(
          ctx,
          entries.map((e) => e.member),
        ),
      );
      const list = entries
        .filter((e) => kept.has(e.member))
        .sort((a, b) => a.member.user_id - b.member.user_id);
      return ctx.paginate(list, (e) => memberJson(ctx, e.member, e.level));
    });

    app.get(`/${kind}/:id/members/:user_id`, (ctx) => {
      const s = readable(ctx);
      const { user_id } = ctx.declare({ user_id: { type: "integer", required: true } });
      const m = ctx.store.member(sourceType(s), sourceId(s), user_id);
      if (!m) throw recordNotFound();
      return memberJson(ctx, m);
    });

    app.get(`/${kind}/:id/members/all/:user_id`, (ctx) => {
      const s = readable(ctx);
      const { user_id } = ctx.declare({ user_id: { type: "integer", required: true } });
      const found = allMembers(ctx, s).find((e) => e.member.user_id === user_id);
      if (!found) throw recordNotFound();
      return memberJson(ctx, found.member, found.level);
    });

    app.post(`/${kind}/:id/members`, (ctx) => {
      requireAuth(ctx);
      const p = ctx.declare({
        access_level: { type: "integer", required: true },
        user_id: { type: "string", required: true },
      });
      const expiresAt = expiresAtParam(ctx);
      const s = readSource(ctx, kind);
      if (!canAdminMembers(ctx, s)) throw forbidden();
      if (p.user_id.includes(",")) return created(addSeveral(ctx, s, p.user_id, p.access_level, expiresAt));
      const userId = /^\s*\d+\s*$/.test(p.user_id) ? Number(p.user_id) : undefined;
      if (userId !== undefined && ctx.store.member(sourceType(s), sourceId(s), userId)) {
        throw conflict("Member already exists");
      }
      const user = userId === undefined ? undefined : ctx.store.user(userId);
      if (!user) throw notFound("User");
      const errors = memberErrors(ctx, s, user.id, p.access_level, expiresAt);
      if (Object.keys(errors).length > 0) throw validation(errors);
      const m = ctx.store.setMember(sourceType(s), sourceId(s), user.id, p.access_level);
      m.expires_at = expiresAt;
      return created(memberJson(ctx, m));
    });

    app.put(`/${kind}/:id/members/:user_id`, (ctx) => {
      requireAuth(ctx);
      const p = ctx.declare({
        user_id: { type: "integer", required: true },
        access_level: { type: "integer", required: true },
      });
      const expiresAt = expiresAtParam(ctx);
      const s = readSource(ctx, kind);
      if (!canAdminMembers(ctx, s)) throw forbidden();
      const m = ctx.store.member(sourceType(s), sourceId(s), p.user_id);
      if (!m) throw recordNotFound();
      if (protectedMember(ctx.store, s, m)) throw forbidden();
      const nextExpiry = ctx.has("expires_at") ? expiresAt : m.expires_at;
      const errors = memberErrors(ctx, s, m.user_id, p.access_level, nextExpiry);
      if (Object.keys(errors).length > 0) throw validation(errors);
      m.access_level = p.access_level;
      m.expires_at = nextExpiry;
      return memberJson(ctx, m);
    });

    app.delete(`/${kind}/:id/members/:user_id`, (ctx) => {
      const user = requireAuth(ctx);
      const p = ctx.declare({
        user_id: { type: "integer", required: true },
        skip_subresources: { type: "boolean", default: false },
        unassign_issuables: { type: "boolean", default: false },
      });
      const s = readSource(ctx, kind);
      const m = ctx.store.member(sourceType(s), sourceId(s), p.user_id);
      if (!m) throw recordNotFound();
      const mayRemove = canAdminMembers(ctx, s) || user.id === m.user_id;
      if (!mayRemove || protectedMember(ctx.store, s, m)) throw forbidden();
      ctx.store.removeMember(sourceType(s), sourceId(s), m.user_id);
      if (s.kind === "group" && !p.skip_subresources) removeSubresources(ctx.store, s.group, m.user_id);
      return noContent();
    });
  }
}
