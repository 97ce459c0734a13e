import { randomBytes } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, requireAuth } from "../auth.js";
import { userBasic } from "../entities.js";
import { forbidden, recordNotFound } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { checkUnmodifiedSince, created, json, noContent } from "../respond.js";
import type { ProjectRec, UserRec } from "../store.js";

/**
 * Pipeline triggers (contract "Pipeline triggers"; platform-behavior §3.3, the 12.x/13.x interface).
 *
 * - Every route needs a signed-in user (401 for a guest) and Maintainer access to the project (`admin_build`,
 *   403 otherwise); an invisible project is `404 Project Not Found`.
 * - A trigger that is not found is `{"message":"404 Not found"}` (lowercase: `triggers.find` raises
 *   RecordNotFound); a non-integer `trigger_id` is 400 `{"error":"trigger_id is invalid"}`.
 * - `token` is 30 hex characters (`SecureRandom.hex(15)`), shown in full only to the trigger's owner (or for a
 *   trigger without an owner); other maintainers see its first 4 characters.
 * - PUT needs the trigger's owner (`admin_trigger`: owner, or a trigger without one); other maintainers get 403
 *   and must take ownership first (`POST .../take_ownership`, 200, as the platform's `status :ok`).
 * - DELETE answers 204 and honours `If-Unmodified-Since` (412).
 *
 * Fixture key `pipeline_triggers` (a list): `{ project: acme/api, description: deploy, owner: alice }` (owner is a
 * username, default root; `owner: null` makes a legacy trigger without an owner), optionally `token: <30 hex>`.
 */

export interface TriggerRec {
  id: number;
  project_id: number;
  token: string;
  description: string;
  owner_id: number | null;
  created_at: string;
  updated_at: string;
  last_used: string | null;
}

interface TriggersArea {
  triggers: TriggerRec[];
}

function newToken(): string {
  return randomBytes(15).toString("hex");
}

function triggerJson(ctx: Ctx, t: TriggerRec): Record<string, unknown> {
  const owner = t.owner_id === null ? undefined : ctx.store.user(t.owner_id);
  const full = t.owner_id === null || t.owner_id === ctx.user?.id;
  return {
    id: t.id,
    token: full ? t.token : t.token.slice(0, 4),
    description: t.description,
    created_at: t.created_at,
    updated_at: t.updated_at,
    last_used: t.last_used,
    owner: owner ? userBasic(ctx, owner) : null,
  };
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<TriggersArea>("pipeline_triggers", () => ({ triggers: [] }));

  /** `authenticate!` + `authorize! :admin_build, user_project`. */
  const maintained = (ctx: Ctx): { user: UserRec; project: ProjectRec } => {
    const user = requireAuth(ctx);
    const project = findProject(ctx, ctx.path["id"]!);
    if (effectiveProjectLevel(ctx.store, user, project) < ACCESS.maintainer) throw forbidden();
    return { user, project };
  };

  const trigger = (ctx: Ctx, project: ProjectRec): TriggerRec => {
    const id = ctx.declare({ trigger_id: { type: "integer", required: true } }).trigger_id;
    const t = area().triggers.find((x) => x.project_id === project.id && x.id === id);
    if (!t) throw recordNotFound();
    return t;
  };

  app.get("/projects/:id/triggers", (ctx) => {
    const { project } = maintained(ctx);
    const rows = area()
      .triggers.filter((t) => t.project_id === project.id)
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(rows, (t) => triggerJson(ctx, t));
  });

  app.get("/projects/:id/triggers/:trigger_id", (ctx) => {
    const { project } = maintained(ctx);
    return triggerJson(ctx, trigger(ctx, project));
  });

  app.post("/projects/:id/triggers", (ctx) => {
    const { user, project } = maintained(ctx);
    const b = ctx.declare({ description: { type: "string", required: true } });
    const now = ctx.store.nowIso();
    const t: TriggerRec = {
      id: ctx.store.nextId("pipeline_triggers"),
      project_id: project.id,
      token: newToken(),
      description: b.description,
      owner_id: user.id,
      created_at: now,
      updated_at: now,
      last_used: null,
    };
    area().triggers.push(t);
    return created(triggerJson(ctx, t));
  });

  app.put("/projects/:id/triggers/:trigger_id", (ctx) => {
    const { user, project } = maintained(ctx);
    const t = trigger(ctx, project);
    if (t.owner_id !== null && t.owner_id !== user.id) throw forbidden();
    const b = ctx.declare({ description: { type: "string" } });
    if (b.description !== undefined) t.description = b.description;
    t.updated_at = ctx.store.nowIso();
    return triggerJson(ctx, t);
  });

  app.post("/projects/:id/triggers/:trigger_id/take_ownership", (ctx) => {
    const { user, project } = maintained(ctx);
    const t = trigger(ctx, project);
    t.owner_id = user.id;
    t.updated_at = ctx.store.nowIso();
    return json(triggerJson(ctx, t));
  });

  app.delete("/projects/:id/triggers/:trigger_id", (ctx) => {
    const { project } = maintained(ctx);
    const t = trigger(ctx, project);
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), t.updated_at);
    const a = area();
    a.triggers = a.triggers.filter((x) => x.id !== t.id);
    return noContent();
  });

  app.onFixture("pipeline_triggers", (value, { store, source }) => {
    const fail = (where: string, msg: string) =>
      new FixtureError(`sandbox: fixture ${source}: pipeline_triggers${where} ${msg}`);
    if (!Array.isArray(value)) throw fail("", "must be a list");
    const table = store.area<TriggersArea>("pipeline_triggers", () => ({ triggers: [] }));
    value.forEach((raw, i) => {
      const where = `[${i}]`;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw fail(where, "must be a mapping");
      const e = raw as Record<string, unknown>;
      if (typeof e["project"] !== "string") throw fail(`${where}.project`, "must be a project full path");
      const project = store.projectByFullPath(e["project"]);
      if (!project) throw fail(`${where}.project`, `names "${e["project"]}", which is not in projects`);
      if (typeof e["description"] !== "string") throw fail(`${where}.description`, "is required (a string)");
      let ownerId: number | null;
      if (e["owner"] === null) ownerId = null;
      else {
        const name = e["owner"] === undefined ? "root" : String(e["owner"]);
        const owner = store.userByUsername(name);
        if (!owner) throw fail(`${where}.owner`, `names user "${name}", which is not in users`);
        ownerId = owner.id;
      }
      const token = e["token"] === undefined ? newToken() : String(e["token"]);
      if (!/^[0-9a-f]{30}$/.test(token)) throw fail(`${where}.token`, "must be 30 lowercase hex characters");
      const now = store.nowIso();
      table.triggers.push({
        id: store.nextId("pipeline_triggers"),
        project_id: project.id,
        token,
        description: e["description"],
        owner_id: ownerId,
        created_at: now,
        updated_at: now,
        last_used: null,
      });
    });
  });
}
