import type { Ctx, SandboxApp } from "../app.js";
import { canReadProject, findProject, requireAuth } from "../auth.js";
import { userBasic } from "../entities.js";
import { notFound } from "../errors.js";
import { FixtureError } from "../fixture.js";
import type { Store, UserRec } from "../store.js";

/**
 * Activity events (contract "Events", "Activity event", the Events section and the 2-year retention limit;
 * platform [11.8]/[13.x] `lib/api/events.rb`, `EventsFinder`, `app/models/event.rb`).
 *
 * - `GET /events` (the caller's own events; `scope=all`: every event of projects the caller can read),
 *   `GET /users/:id/events` (id or username; 404 `User Not Found`; an empty list for a user with a private
 *   profile unless the caller is that user or an administrator), `GET /projects/:project_id/events`
 *   (404 `Project Not Found` when invisible). All need a signed-in user (401 for a guest): the sandbox has no
 *   token scopes, so "scope `read_user` or `api`" is simply "authenticated".
 * - Only events of projects the caller can read are listed (events without a project are listed to everyone).
 * - Filters: `action` (created, updated, closed, reopened, pushed, commented, merged, joined, left, destroyed,
 *   expired), `target_type` (issue, milestone, merge_request, note, project, snippet, user), `before` / `after`
 *   (dates: `created_at` before the start of `before`, after the end of `after`, UTC), `sort` asc|desc (default
 *   desc) by `created_at`, then id. Invalid values are Grape's 400 (`action does not have a valid value`,
 *   `before is invalid`).
 * - Retention: events created more than 2 years before the store's clock are never returned (the platform prunes
 *   them).
 * - `action_name` follows `Event#action_name`: created → `opened` (`created` for a project), pushed → `pushed to`
 *   (`pushed new` when `push_data.action` is `created`, `deleted` when `removed`), commented → `commented on`,
 *   merged → `accepted`, expired → `removed due to membership expiration from`, others as named.
 *
 * Fixture key `events`: a list of `{ author: <username>, action, project?: <full path>, target_type?: Issue |
 * Milestone | MergeRequest | Note | Project | Snippet | User, target_id?, target_iid?, target_title?,
 * created_at?: <datetime> (default: the clock's now), push_data?: {commit_count, action, ref_type, commit_from,
 * commit_to, ref, commit_title}, note?: {id?, body, noteable_type?, noteable_id?, noteable_iid?} }`.
 */

export const EVENT_ACTIONS = [
  "created",
  "updated",
  "closed",
  "reopened",
  "pushed",
  "commented",
  "merged",
  "joined",
  "left",
  "destroyed",
  "expired",
] as const;
type EventAction = (typeof EVENT_ACTIONS)[number];

const TARGET_TYPES: Record<string, string> = {
  issue: "Issue",
  milestone: "Milestone",
  merge_request: "MergeRequest",
  note: "Note",
  project: "Project",
  snippet: "Snippet",
  user: "User",
};

export interface EventRec {
  id: number;
  project_id: number | null;
  author_id: number;
  action: EventAction;
  target_type: string | null;
  target_id: number | null;
  target_iid: number | null;
  target_title: string | null;
  created_at: string;
  push_data: Record<string, unknown> | null;
  note: {
    id: number;
    body: string;
    noteable_type: string | null;
    noteable_id: number | null;
    noteable_iid: number | null;
  } | null;
}

interface EventsArea {
  rows: EventRec[];
}

function area(store: Store): EventsArea {
  return store.area<EventsArea>("events", () => ({ rows: [] }));
}

/** Records an event (for modules that want their actions to show up in activity feeds). */
export function recordEvent(
  store: Store,
  e: Omit<EventRec, "id" | "created_at"> & { created_at?: string },
): EventRec {
  const row: EventRec = { ...e, id: store.nextId("events"), created_at: e.created_at ?? store.nowIso() };
  area(store).rows.push(row);
  return row;
}

function actionName(e: EventRec): string {
  switch (e.action) {
    case "created":
      return e.target_type === null || e.target_type === "Project" ? "created" : "opened";
    case "pushed": {
      const a = e.push_data?.["action"];
      return a === "created" ? "pushed new" : a === "removed" ? "deleted" : "pushed to";
    }
    case "commented":
      return "commented on";
    case "merged":
      return "accepted";
    case "expired":
      return "removed due to membership expiration from";
    default:
      return e.action;
  }
}

function eventJson(ctx: Ctx, e: EventRec): Record<string, unknown> {
  const author = ctx.store.user(e.author_id);
  const out: Record<string, unknown> = {
    id: e.id,
    title: null,
    project_id: e.project_id,
    action_name: actionName(e),
    target_id: e.target_id,
    target_iid: e.target_iid,
    target_type: e.target_type,
    author_id: e.author_id,
    target_title: e.target_title,
    created_at: e.created_at,
  };
  if (e.note) {
    out["note"] = {
      id: e.note.id,
      type: null,
      body: e.note.body,
      attachment: null,
      author: author ? userBasic(ctx, author) : null,
      created_at: e.created_at,
      updated_at: e.created_at,
      system: false,
      noteable_id: e.note.noteable_id,
      noteable_type: e.note.noteable_type,
      noteable_iid: e.note.noteable_iid,
    };
  }
  if (author) out["author"] = userBasic(ctx, author);
  if (e.push_data) out["push_data"] = e.push_data;
  out["author_username"] = author?.username ?? null;
  out["data"] = null;
  return out;
}

/** The cut-off of the 2-year retention, by the store's clock. */
function retentionCutoff(store: Store): number {
  const d = new Date(store.now().getTime());
  d.setUTCFullYear(d.getUTCFullYear() - 2);
  return d.getTime();
}

/** Applies visibility, retention, the filters and the order, then paginates. */
function list(ctx: Ctx, rows: EventRec[], user: UserRec) {
  const p = ctx.declare({
    action: { type: "string", values: [...EVENT_ACTIONS] },
    target_type: { type: "string", values: Object.keys(TARGET_TYPES) },
    before: { type: "date" },
    after: { type: "date" },
    sort: { type: "string", values: ["asc", "desc"], default: "desc" },
  });
  const cutoff = retentionCutoff(ctx.store);
  const readable = new Map<number, boolean>();
  const canRead = (projectId: number | null): boolean => {
    if (projectId === null) return true;
    let ok = readable.get(projectId);
    if (ok === undefined) {
      const project = ctx.store.project(projectId);
      ok = project !== undefined && canReadProject(ctx.store, user, project);
      readable.set(projectId, ok);
    }
    return ok;
  };
  const dayStart = (d: unknown) => Date.parse(`${String(d).slice(0, 10)}T00:00:00.000Z`);
  const before = p.before === undefined ? undefined : dayStart(p.before);
  const after = p.after === undefined ? undefined : dayStart(p.after) + 86_400_000;
  const targetType = p.target_type === undefined ? undefined : TARGET_TYPES[p.target_type];
  const out = rows.filter((e) => {
    const t = Date.parse(e.created_at);
    if (t < cutoff) return false;
    if (!canRead(e.project_id)) return false;
    if (p.action !== undefined && e.action !== p.action) return false;
    if (targetType !== undefined && e.target_type !== targetType) return false;
    if (before !== undefined && !(t < before)) return false;
    if (after !== undefined && !(t >= after)) return false;
    return true;
  });
  const dir = p.sort === "asc" ? 1 : -1;
  out.sort((a, b) => dir * (a.created_at.localeCompare(b.created_at) || a.id - b.id));
  return ctx.paginate(out, (e) => eventJson(ctx, e));
}

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("events must be a list");
  value.forEach((rawRow, i) => {
    const where = `events[${i}]`;
    if (typeof rawRow !== "object" || rawRow === null || Array.isArray(rawRow)) {
      throw fail(`${where} must be a mapping`);
    }
    const o = rawRow as Record<string, unknown>;
    const author = typeof o["author"] === "string" ? store.userByUsername(o["author"]) : undefined;
    if (!author) throw fail(`${where}.author must name a user of users (got "${String(o["author"])}")`);
    if (!(EVENT_ACTIONS as readonly unknown[]).includes(o["action"])) {
      throw fail(`${where}.action must be one of ${EVENT_ACTIONS.join(", ")} (got "${String(o["action"])}")`);
    }
    let projectId: number | null = null;
    if (o["project"] !== undefined) {
      const project = store.projectByFullPath(String(o["project"]));
      if (!project) throw fail(`${where}.project "${String(o["project"])}" is not in projects`);
      projectId = project.id;
    }
    const targetType = o["target_type"] === undefined ? null : String(o["target_type"]);
    if (targetType !== null && !Object.values(TARGET_TYPES).includes(targetType)) {
      throw fail(
        `${where}.target_type must be one of ${Object.values(TARGET_TYPES).join(", ")} (got "${targetType}")`,
      );
    }
    const int = (k: string): number | null => {
      const v = o[k];
      if (v === undefined || v === null) return null;
      if (typeof v !== "number" || !Number.isInteger(v)) throw fail(`${where}.${k} must be an integer`);
      return v;
    };
    let createdAt: string | undefined;
    if (o["created_at"] !== undefined) {
      const d = o["created_at"] instanceof Date ? o["created_at"] : new Date(String(o["created_at"]));
      if (Number.isNaN(d.getTime())) throw fail(`${where}.created_at must be a datetime`);
      createdAt = d.toISOString();
    }
    let note: EventRec["note"] = null;
    if (o["note"] !== undefined) {
      const n = o["note"] as Record<string, unknown>;
      if (typeof n !== "object" || n === null || typeof n["body"] !== "string") {
        throw fail(`${where}.note must be a mapping with body`);
      }
      note = {
        id: typeof n["id"] === "number" ? n["id"] : store.nextId("notes"),
        body: n["body"],
        noteable_type: typeof n["noteable_type"] === "string" ? n["noteable_type"] : null,
        noteable_id: typeof n["noteable_id"] === "number" ? n["noteable_id"] : null,
        noteable_iid: typeof n["noteable_iid"] === "number" ? n["noteable_iid"] : null,
      };
    }
    const pushData = o["push_data"];
    if (
      pushData !== undefined &&
      (typeof pushData !== "object" || pushData === null || Array.isArray(pushData))
    ) {
      throw fail(`${where}.push_data must be a mapping`);
    }
    recordEvent(store, {
      project_id: projectId,
      author_id: author.id,
      action: o["action"] as EventAction,
      target_type: targetType,
      target_id: int("target_id") ?? (note ? note.id : null),
      target_iid: int("target_iid"),
      target_title: o["target_title"] === undefined ? null : String(o["target_title"]),
      created_at: createdAt,
      push_data: (pushData as Record<string, unknown> | undefined) ?? null,
      note,
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("events", (value, { store, source }) => seed(value, store, source));

  app.get("/events", (ctx) => {
    const user = requireAuth(ctx);
    const { scope } = ctx.declare({ scope: { type: "string" } });
    const rows = area(ctx.store).rows.filter((e) => scope === "all" || e.author_id === user.id);
    return list(ctx, rows, user);
  });

  app.get("/users/:id/events", (ctx) => {
    const user = requireAuth(ctx);
    const target = ctx.store.userByIdOrUsername(ctx.path["id"]!);
    if (!target) throw notFound("User");
    // `read_user_profile`: a private profile's activity is hidden from everyone else.
    if (target.private_profile === true && target.id !== user.id && !user.admin) return list(ctx, [], user);
    return list(
      ctx,
      area(ctx.store).rows.filter((e) => e.author_id === target.id),
      user,
    );
  });

  app.get("/projects/:project_id/events", (ctx) => {
    const user = requireAuth(ctx);
    const project = findProject(ctx, ctx.path["project_id"]!);
    return list(
      ctx,
      area(ctx.store).rows.filter((e) => e.project_id === project.id),
      user,
    );
  });
}
