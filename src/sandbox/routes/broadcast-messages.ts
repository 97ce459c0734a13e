import type { Ctx, SandboxApp } from "../app.js";
import { requireAdmin } from "../auth.js";
import { recordNotFound, validation } from "../errors.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";

/**
 * Broadcast messages (contract "Broadcast messages"; platform-behavior §3.7, the 13.x interface).
 *
 * - `GET /broadcast_messages` (paginated, newest id first) and `GET /broadcast_messages/:id` need no
 *   authentication (since 12.8); an invalid token is still a 401 (§5).
 * - POST, PUT and DELETE are for administrators: 401 for a guest, 403 for a user.
 * - POST: `message` required; `starts_at` defaults to now and `ends_at` to one hour later (the store's clock);
 *   `color` defaults to `#E75E40` and `font` to `#FFFFFF`; both must be hex colour codes when given
 *   (400 `{"message":{"color":["must be a valid color code"]}}`); `broadcast_type` is `banner` (default) or
 *   `notification`; `dismissable` boolean (false when not given); `target_path` (null when not given).
 * - `active` is computed on every read as the model's `active?`: started (`starts_at <= now`) and not ended
 *   (`ends_at < now` is ended), so it changes with the clock.
 * - DELETE answers 204 with an empty body (`destroy_conditionally!`, which also honours `If-Unmodified-Since`),
 *   as the 13.x platform does; the deleted message is not returned.
 * - A missing message is `{"message":"404 Not found"}` (`BroadcastMessage.find`).
 */

export interface BroadcastMessageRec {
  id: number;
  message: string;
  starts_at: string;
  ends_at: string;
  color: string;
  font: string;
  target_path: string | null;
  broadcast_type: "banner" | "notification";
  dismissable: boolean;
  created_at: string;
  updated_at: string;
}

const COLOR = /^#(?:[0-9a-fA-F]{3}){1,2}$/;
const TYPES = ["banner", "notification"] as const;

function messageJson(ctx: Ctx, m: BroadcastMessageRec): Record<string, unknown> {
  const now = ctx.store.now().getTime();
  const active = Date.parse(m.starts_at) <= now && !(Date.parse(m.ends_at) < now);
  return {
    id: m.id,
    message: m.message,
    starts_at: m.starts_at,
    ends_at: m.ends_at,
    color: m.color,
    font: m.font,
    active,
    target_path: m.target_path,
    broadcast_type: m.broadcast_type,
    dismissable: m.dismissable,
  };
}

/** The model's validations: message, starts_at and ends_at present; colours are hex codes when not blank. */
function validate(m: BroadcastMessageRec): void {
  const errors: Record<string, string[]> = {};
  if (m.message.trim() === "") errors["message"] = ["can't be blank"];
  if (m.color !== "" && !COLOR.test(m.color)) errors["color"] = ["must be a valid color code"];
  if (m.font !== "" && !COLOR.test(m.font)) errors["font"] = ["must be a valid color code"];
  if (Object.keys(errors).length > 0) throw validation(errors);
}

const FIELDS = {
  message: { type: "string" },
  starts_at: { type: "datetime" },
  ends_at: { type: "datetime" },
  color: { type: "string" },
  font: { type: "string" },
  target_path: { type: "string" },
  broadcast_type: { type: "string", values: TYPES },
  dismissable: { type: "boolean" },
} as const;

export function register(app: SandboxApp): void {
  const table = () => app.store.area("broadcast_messages", () => ({ rows: [] as BroadcastMessageRec[] }));

  const find = (ctx: Ctx): BroadcastMessageRec => {
    const { id } = ctx.declare({ id: { type: "integer", required: true } });
    const row = table().rows.find((m) => m.id === id);
    if (!row) throw recordNotFound();
    return row;
  };

  app.get("/broadcast_messages", (ctx) => {
    const rows = [...table().rows].sort((a, b) => b.id - a.id);
    return ctx.paginate(rows, (m) => messageJson(ctx, m));
  });

  app.get("/broadcast_messages/:id", (ctx) => messageJson(ctx, find(ctx)));

  app.post("/broadcast_messages", (ctx) => {
    requireAdmin(ctx);
    const p = ctx.declare({ ...FIELDS, message: { type: "string", required: true } });
    const now = ctx.store.now();
    const row: BroadcastMessageRec = {
      id: 0,
      message: p.message,
      starts_at: p.starts_at ?? now.toISOString(),
      ends_at: p.ends_at ?? new Date(now.getTime() + 3_600_000).toISOString(),
      color: p.color ?? "#E75E40",
      font: p.font ?? "#FFFFFF",
      target_path: p.target_path ?? null,
      broadcast_type: (p.broadcast_type as BroadcastMessageRec["broadcast_type"] | undefined) ?? "banner",
      dismissable: p.dismissable ?? false,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    validate(row);
    row.id = ctx.store.nextId("broadcast_messages");
    table().rows.push(row);
    return created(messageJson(ctx, row));
  });

  app.put("/broadcast_messages/:id", (ctx) => {
    requireAdmin(ctx);
    const row = find(ctx);
    const p = ctx.declare(FIELDS);
    const next: BroadcastMessageRec = { ...row };
    if (p.message !== undefined) next.message = p.message;
    if (p.starts_at !== undefined) next.starts_at = p.starts_at;
    if (p.ends_at !== undefined) next.ends_at = p.ends_at;
    if (p.color !== undefined) next.color = p.color;
    if (p.font !== undefined) next.font = p.font;
    if (p.target_path !== undefined) next.target_path = p.target_path;
    if (p.broadcast_type !== undefined)
      next.broadcast_type = p.broadcast_type as BroadcastMessageRec["broadcast_type"];
    if (p.dismissable !== undefined) next.dismissable = p.dismissable;
    validate(next);
    next.updated_at = ctx.store.nowIso();
    Object.assign(row, next);
    return messageJson(ctx, row);
  });

  app.delete("/broadcast_messages/:id", (ctx) => {
    requireAdmin(ctx);
    const row = find(ctx);
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), row.updated_at);
    const t = table();
    t.rows = t.rows.filter((m) => m.id !== row.id);
    return noContent();
  });
}
