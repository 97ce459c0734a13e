import type { Ctx, SandboxApp } from "../app.js";
import { findGroup, findProject, requireAuth } from "../auth.js";
import { badRequest, validation } from "../errors.js";
import type { ParamSpec } from "../params.js";
import type { Store, UserRec } from "../store.js";

/**
 * Notification settings (contract "Notification settings"; platform-behavior §3.12).
 *
 * - `GET|PUT /notification_settings` (global: `level`, `notification_email`), `GET|PUT /groups/:id/…` and
 *   `GET|PUT /projects/:id/…` (by id or URL-encoded full path; the group or project must be visible, else 404).
 *   Every call needs a user (401).
 * - Levels: disabled, participating, watch, global, mention, custom. An unknown level is 400
 *   `{"message":"'foo' is not a valid level"}` (the enum's ArgumentError, rendered as is).
 * - A setting is created on first read: the global one with level `participating` (the platform's default for a
 *   user), a group's or project's with level `global`.
 * - `events` appears only when the level is `custom`: the contract's event switches, plus `new_epic` for groups and
 *   the global setting on the licensed edition. A switch never set reads `null`, except `failed_pipeline` and
 *   `fixed_pipeline`, which read `true` (the model's getters). PUT sets only the switches it is given, at any level.
 * - `notification_email` must be the user's own e-mail address, else 400
 *   `{"message":{"notification_email":["is not an email you own"]}}`; it defaults to the primary e-mail.
 */

export const LEVELS = ["disabled", "participating", "watch", "global", "mention", "custom"] as const;
type Level = (typeof LEVELS)[number];

export const EMAIL_EVENTS = [
  "new_note",
  "new_issue",
  "reopen_issue",
  "close_issue",
  "reassign_issue",
  "issue_due",
  "new_merge_request",
  "push_to_merge_request",
  "reopen_merge_request",
  "close_merge_request",
  "reassign_merge_request",
  "merge_merge_request",
  "failed_pipeline",
  "fixed_pipeline",
  "success_pipeline",
] as const;

const DEFAULT_TRUE = new Set(["failed_pipeline", "fixed_pipeline"]);

type SourceType = "global" | "group" | "project";

export interface NotificationSettingRec {
  user_id: number;
  source_type: SourceType;
  source_id: number | null;
  level: Level;
  events: Record<string, boolean | null>;
}

interface NotificationArea {
  settings: NotificationSettingRec[];
  /** user id → notification e-mail, when set apart from the primary address. */
  emails: Record<string, string>;
}

function area(store: Store): NotificationArea {
  return store.area<NotificationArea>("notification_settings", () => ({ settings: [], emails: {} }));
}

function eventsFor(ctx: Ctx, type: SourceType): string[] {
  const events: string[] = [...EMAIL_EVENTS];
  if (ctx.licensed && type !== "project") events.push("new_epic");
  return events;
}

function settingFor(ctx: Ctx, user: UserRec, type: SourceType, id: number | null): NotificationSettingRec {
  const a = area(ctx.store);
  let s = a.settings.find((x) => x.user_id === user.id && x.source_type === type && x.source_id === id);
  if (!s) {
    s = {
      user_id: user.id,
      source_type: type,
      source_id: id,
      level: type === "global" ? "participating" : "global",
      events: {},
    };
    a.settings.push(s);
  }
  return s;
}

function settingJson(ctx: Ctx, s: NotificationSettingRec, user: UserRec): Record<string, unknown> {
  const out: Record<string, unknown> = { level: s.level };
  if (s.level === "custom") {
    const events: Record<string, boolean | null> = {};
    for (const e of eventsFor(ctx, s.source_type)) {
      const v = s.events[e];
      events[e] = v === undefined || v === null ? (DEFAULT_TRUE.has(e) ? true : null) : v;
    }
    out["events"] = events;
  }
  if (s.source_type === "global")
    out["notification_email"] = area(ctx.store).emails[String(user.id)] ?? user.email;
  return out;
}

function update(ctx: Ctx, s: NotificationSettingRec, user: UserRec): void {
  const spec: Record<string, ParamSpec> = { level: { type: "string" } };
  if (s.source_type === "global") spec["notification_email"] = { type: "string" };
  for (const e of eventsFor(ctx, s.source_type)) spec[e] = { type: "boolean" };
  const p = ctx.declare(spec) as Record<string, unknown>;
  const level = p["level"] as string | undefined;
  if (level !== undefined && !LEVELS.includes(level as Level))
    throw badRequest(`'${level}' is not a valid level`);
  const email = p["notification_email"] as string | undefined;
  if (email !== undefined && email !== "" && email.toLowerCase() !== user.email.toLowerCase()) {
    throw validation({ notification_email: ["is not an email you own"] });
  }
  if (email !== undefined) {
    const emails = area(ctx.store).emails;
    if (email === "" || email.toLowerCase() === user.email.toLowerCase()) delete emails[String(user.id)];
    else emails[String(user.id)] = email;
  }
  if (level !== undefined) s.level = level as Level;
  for (const e of eventsFor(ctx, s.source_type)) {
    if (typeof p[e] === "boolean") s.events[e] = p[e] as boolean;
  }
}

export function register(app: SandboxApp): void {
  app.get("/notification_settings", (ctx) => {
    const user = requireAuth(ctx);
    return settingJson(ctx, settingFor(ctx, user, "global", null), user);
  });

  app.put("/notification_settings", (ctx) => {
    const user = requireAuth(ctx);
    const s = settingFor(ctx, user, "global", null);
    update(ctx, s, user);
    return settingJson(ctx, s, user);
  });

  for (const type of ["group", "project"] as const) {
    const path =
      type === "group" ? "/groups/:id/notification_settings" : "/projects/:id/notification_settings";
    const source = (ctx: Ctx): number =>
      type === "group" ? findGroup(ctx, ctx.path["id"]!).id : findProject(ctx, ctx.path["id"]!).id;

    app.get(path, (ctx) => {
      const user = requireAuth(ctx);
      return settingJson(ctx, settingFor(ctx, user, type, source(ctx)), user);
    });

    app.put(path, (ctx) => {
      const user = requireAuth(ctx);
      const s = settingFor(ctx, user, type, source(ctx));
      update(ctx, s, user);
      return settingJson(ctx, s, user);
    });
  }
}
