import { createHash } from "node:crypto";
import { Cron } from "croner";
import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, requireAuth } from "../auth.js";
import { userBasic } from "../entities.js";
import { forbidden, notFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { accepted, checkUnmodifiedSince, created, json } from "../respond.js";
import type { ProjectRec, Store, UserRec } from "../store.js";

/**
 * Pipeline schedules and their variables (contract "Pipeline schedules"; platform-behavior §3.2).
 *
 * - Every route needs a signed-in user (`before { authenticate! }`): 401 for a guest, even on public projects.
 * - Reading (list, detail) and creating need Developer access; a lookup the caller may not read is
 *   `404 Pipeline Schedule Not Found`. Updating, deleting and changing variables need the schedule's owner
 *   (with Developer access) or a Maintainer; taking ownership needs a Maintainer (or the owner already);
 *   playing needs Developer access.
 * - `cron` is validated with croner (5 fields, or 6 with seconds, or `@daily`-style nicknames); `cron_timezone`
 *   accepts IANA names and the friendly Rails names of {@link RAILS_TIME_ZONES}. Both failures are the model's
 *   400 `{"message":{"cron":[" is invalid syntax"]}}` (a bad time zone also adds `cron_timezone`), leading space
 *   included. `next_run_at` is the next cron tick after now in the schedule's time zone, recomputed on every save.
 * - DELETE: the platform answers 204 (`destroy_conditionally!`, §3.2 and the recordings) but the contract's table
 *   says the result is "the deleted schedule". The contract is the first source of truth, so the sandbox answers
 *   200 with the deleted schedule (detail form); clients that ignore the body (python-gitlab, the reconciler) work
 *   with both. `If-Unmodified-Since` is honoured (412), as `destroy_conditionally!` does.
 * - Playing "runs" a pipeline at once: `last_pipeline` becomes `{id, sha, ref, status: "pending", web_url}`;
 *   `next_run_at` is unaffected.
 * - Variable DELETE answers 202 with the deleted variable as its body (§3.2, recorded).
 *
 * Fixture key `pipeline_schedules` (a list):
 *
 * ```yaml
 * pipeline_schedules:
 *   - project: acme/api            # project full path (required)
 *     description: nightly         # required
 *     ref: main                    # default: the project's default branch
 *     cron: "0 2 * * *"            # required
 *     cron_timezone: UTC           # default UTC; IANA or friendly Rails names
 *     active: true                 # default true
 *     owner: alice                 # username; default root
 *     variables: { KEY: value }    # env_var variables; or a list of {key, value, variable_type}
 * ```
 */

/** Friendly time-zone names of Rails' `ActiveSupport::TimeZone::MAPPING`, with their IANA names. */
export const RAILS_TIME_ZONES: Readonly<Record<string, string>> = {
  "International Date Line West": "Etc/GMT+12",
  "Midway Island": "Pacific/Midway",
  "American Samoa": "Pacific/Pago_Pago",
  Hawaii: "Pacific/Honolulu",
  Alaska: "America/Juneau",
  "Pacific Time (US & Canada)": "America/Los_Angeles",
  Tijuana: "America/Tijuana",
  "Mountain Time (US & Canada)": "America/Denver",
  Arizona: "America/Phoenix",
  Chihuahua: "America/Chihuahua",
  Mazatlan: "America/Mazatlan",
  "Central Time (US & Canada)": "America/Chicago",
  Saskatchewan: "America/Regina",
  Guadalajara: "America/Mexico_City",
  "Mexico City": "America/Mexico_City",
  Monterrey: "America/Monterrey",
  "Central America": "America/Guatemala",
  "Eastern Time (US & Canada)": "America/New_York",
  "Indiana (East)": "America/Indiana/Indianapolis",
  Bogota: "America/Bogota",
  Lima: "America/Lima",
  Quito: "America/Lima",
  "Atlantic Time (Canada)": "America/Halifax",
  Caracas: "America/Caracas",
  "La Paz": "America/La_Paz",
  Santiago: "America/Santiago",
  Newfoundland: "America/St_Johns",
  Brasilia: "America/Sao_Paulo",
  "Buenos Aires": "America/Argentina/Buenos_Aires",
  Montevideo: "America/Montevideo",
  Georgetown: "America/Guyana",
  "Puerto Rico": "America/Puerto_Rico",
  Greenland: "America/Godthab",
  "Mid-Atlantic": "Atlantic/South_Georgia",
  Azores: "Atlantic/Azores",
  "Cape Verde Is.": "Atlantic/Cape_Verde",
  Dublin: "Europe/Dublin",
  Edinburgh: "Europe/London",
  Lisbon: "Europe/Lisbon",
  London: "Europe/London",
  Casablanca: "Africa/Casablanca",
  Monrovia: "Africa/Monrovia",
  UTC: "Etc/UTC",
  Belgrade: "Europe/Belgrade",
  Bratislava: "Europe/Bratislava",
  Budapest: "Europe/Budapest",
  Ljubljana: "Europe/Ljubljana",
  Prague: "Europe/Prague",
  Sarajevo: "Europe/Sarajevo",
  Skopje: "Europe/Skopje",
  Warsaw: "Europe/Warsaw",
  Zagreb: "Europe/Zagreb",
  Brussels: "Europe/Brussels",
  Copenhagen: "Europe/Copenhagen",
  Madrid: "Europe/Madrid",
  Paris: "Europe/Paris",
  Amsterdam: "Europe/Amsterdam",
  Berlin: "Europe/Berlin",
  Bern: "Europe/Zurich",
  Zurich: "Europe/Zurich",
  Rome: "Europe/Rome",
  Stockholm: "Europe/Stockholm",
  Vienna: "Europe/Vienna",
  "West Central Africa": "Africa/Algiers",
  Bucharest: "Europe/Bucharest",
  Cairo: "Africa/Cairo",
  Helsinki: "Europe/Helsinki",
  Kyiv: "Europe/Kiev",
  Riga: "Europe/Riga",
  Sofia: "Europe/Sofia",
  Tallinn: "Europe/Tallinn",
  Vilnius: "Europe/Vilnius",
  Athens: "Europe/Athens",
  Istanbul: "Europe/Istanbul",
  Minsk: "Europe/Minsk",
  Jerusalem: "Asia/Jerusalem",
  Harare: "Africa/Harare",
  Pretoria: "Africa/Johannesburg",
  Kaliningrad: "Europe/Kaliningrad",
  Moscow: "Europe/Moscow",
  "St. Petersburg": "Europe/Moscow",
  Volgograd: "Europe/Volgograd",
  Samara: "Europe/Samara",
  Kuwait: "Asia/Kuwait",
  Riyadh: "Asia/Riyadh",
  Nairobi: "Africa/Nairobi",
  Baghdad: "Asia/Baghdad",
  Tehran: "Asia/Tehran",
  "Abu Dhabi": "Asia/Muscat",
  Muscat: "Asia/Muscat",
  Baku: "Asia/Baku",
  Tbilisi: "Asia/Tbilisi",
  Yerevan: "Asia/Yerevan",
  Kabul: "Asia/Kabul",
  Ekaterinburg: "Asia/Yekaterinburg",
  Islamabad: "Asia/Karachi",
  Karachi: "Asia/Karachi",
  Tashkent: "Asia/Tashkent",
  Chennai: "Asia/Kolkata",
  Kolkata: "Asia/Kolkata",
  Mumbai: "Asia/Kolkata",
  "New Delhi": "Asia/Kolkata",
  Kathmandu: "Asia/Kathmandu",
  Astana: "Asia/Dhaka",
  Dhaka: "Asia/Dhaka",
  "Sri Jayawardenepura": "Asia/Colombo",
  Almaty: "Asia/Almaty",
  Novosibirsk: "Asia/Novosibirsk",
  Rangoon: "Asia/Rangoon",
  Bangkok: "Asia/Bangkok",
  Hanoi: "Asia/Bangkok",
  Jakarta: "Asia/Jakarta",
  Krasnoyarsk: "Asia/Krasnoyarsk",
  Beijing: "Asia/Shanghai",
  Chongqing: "Asia/Chongqing",
  "Hong Kong": "Asia/Hong_Kong",
  Urumqi: "Asia/Urumqi",
  "Kuala Lumpur": "Asia/Kuala_Lumpur",
  Singapore: "Asia/Singapore",
  Taipei: "Asia/Taipei",
  Perth: "Australia/Perth",
  Irkutsk: "Asia/Irkutsk",
  Ulaanbaatar: "Asia/Ulaanbaatar",
  Seoul: "Asia/Seoul",
  Osaka: "Asia/Tokyo",
  Sapporo: "Asia/Tokyo",
  Tokyo: "Asia/Tokyo",
  Yakutsk: "Asia/Yakutsk",
  Darwin: "Australia/Darwin",
  Adelaide: "Australia/Adelaide",
  Canberra: "Australia/Melbourne",
  Melbourne: "Australia/Melbourne",
  Sydney: "Australia/Sydney",
  Brisbane: "Australia/Brisbane",
  Hobart: "Australia/Hobart",
  Vladivostok: "Asia/Vladivostok",
  Guam: "Pacific/Guam",
  "Port Moresby": "Pacific/Port_Moresby",
  Magadan: "Asia/Magadan",
  Srednekolymsk: "Asia/Srednekolymsk",
  "Solomon Is.": "Pacific/Guadalcanal",
  "New Caledonia": "Pacific/Noumea",
  Fiji: "Pacific/Fiji",
  Kamchatka: "Asia/Kamchatka",
  "Marshall Is.": "Pacific/Majuro",
  Auckland: "Pacific/Auckland",
  Wellington: "Pacific/Auckland",
  "Nuku'alofa": "Pacific/Tongatapu",
  "Tokelau Is.": "Pacific/Fakaofo",
  "Chatham Is.": "Pacific/Chatham",
  Samoa: "Pacific/Apia",
};

export type VariableType = "env_var" | "file";

export interface ScheduleVariableRec {
  key: string;
  value: string;
  variable_type: VariableType;
}

export interface PipelineRec {
  id: number;
  sha: string;
  ref: string;
  status: string;
}

export interface PipelineScheduleRec {
  id: number;
  project_id: number;
  description: string;
  ref: string;
  cron: string;
  cron_timezone: string;
  next_run_at: string;
  active: boolean;
  created_at: string;
  updated_at: string;
  owner_id: number | null;
  last_pipeline: PipelineRec | null;
  variables: ScheduleVariableRec[];
}

interface SchedulesArea {
  schedules: PipelineScheduleRec[];
}

const VARIABLE_KEY = /^[a-zA-Z0-9_]+$/;
const VARIABLE_KEY_MESSAGE = "can contain only letters, digits and '_'.";
const INVALID_SYNTAX = " is invalid syntax";

/**
 * A stable, fake commit SHA for a ref of a project (the sandbox has no repositories): 40 hex characters derived from
 * the project id and the ref, so every caller sees the same "last commit" for a branch.
 */
export function fakeCommitSha(projectId: number, ref: string): string {
  return createHash("sha1").update(`forgeform-sandbox:${projectId}:${ref}`).digest("hex");
}

/** The IANA name of a friendly Rails name or an IANA name; `undefined` when the name is unknown. */
export function ianaTimeZone(name: string): string | undefined {
  const mapped = RAILS_TIME_ZONES[name];
  if (mapped !== undefined) return mapped;
  // TZInfo identifiers are case-sensitive (`Europe/Berlin`, `UTC`, `Etc/GMT+1`); Intl would also take `utc`.
  if (!/^[A-Z][A-Za-z0-9_+-]*(\/[A-Z0-9][A-Za-z0-9_+-]*)*$/.test(name)) return undefined;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return name;
  } catch {
    return undefined;
  }
}

/** A croner pattern for a cron expression the platform accepts, or `undefined`. */
function cronPattern(cron: string): string | undefined {
  const trimmed = cron.trim();
  if (trimmed === "") return undefined;
  if (trimmed.startsWith("@")) {
    return ["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"].includes(
      trimmed.toLowerCase(),
    )
      ? trimmed.toLowerCase()
      : undefined;
  }
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return undefined;
  return fields.join(" ");
}

/** The next run after `from`, or `undefined` when cron or time zone is invalid (or the pattern never fires). */
export function nextRunAt(cron: string, timeZone: string, from: Date): Date | undefined {
  const pattern = cronPattern(cron);
  const zone = ianaTimeZone(timeZone);
  if (pattern === undefined || zone === undefined) return undefined;
  try {
    return new Cron(pattern, { timezone: zone, paused: true }).nextRun(from) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The model validation of a schedule as it would be saved (`{"field": [messages]}`; empty when valid). */
function scheduleErrors(s: Pick<PipelineScheduleRec, "description" | "ref" | "cron" | "cron_timezone">) {
  const errors: Record<string, string[]> = {};
  const add = (k: string, m: string) => {
    errors[k] = [...(errors[k] ?? []), m];
  };
  if (s.description.trim() === "") add("description", "can't be blank");
  if (s.ref.trim() === "") add("ref", "can't be blank");
  if (s.cron.trim() === "") add("cron", "can't be blank");
  const zoneOk = ianaTimeZone(s.cron_timezone) !== undefined;
  if (s.cron.trim() !== "" && (!zoneOk || nextRunAt(s.cron, s.cron_timezone, new Date(0)) === undefined)) {
    add("cron", INVALID_SYNTAX);
  }
  if (s.cron_timezone.trim() === "") add("cron_timezone", "can't be blank");
  else if (!zoneOk) add("cron_timezone", INVALID_SYNTAX);
  return errors;
}

function variableErrors(key: string, existing: ScheduleVariableRec[]): Record<string, string[]> {
  const msgs: string[] = [];
  if (key === "") msgs.push("can't be blank");
  if (key.length > 255) msgs.push("is too long (maximum is 255 characters)");
  if (key !== "" && !VARIABLE_KEY.test(key)) msgs.push(VARIABLE_KEY_MESSAGE);
  if (existing.some((v) => v.key === key)) msgs.push("has already been taken");
  return msgs.length > 0 ? { key: msgs } : {};
}

function variableJson(v: ScheduleVariableRec): Record<string, unknown> {
  return { variable_type: v.variable_type, key: v.key, value: v.value };
}

function ownerJson(ctx: Pick<Ctx, "baseUrl">, store: Store, s: PipelineScheduleRec): unknown {
  const owner = s.owner_id === null ? undefined : store.user(s.owner_id);
  return owner ? userBasic(ctx, owner) : null;
}

/** The `PipelineSchedule` entity (lists). */
function scheduleJson(
  ctx: Pick<Ctx, "baseUrl">,
  store: Store,
  s: PipelineScheduleRec,
): Record<string, unknown> {
  return {
    id: s.id,
    description: s.description,
    ref: s.ref,
    cron: s.cron,
    cron_timezone: s.cron_timezone,
    next_run_at: s.next_run_at,
    active: s.active,
    created_at: s.created_at,
    updated_at: s.updated_at,
    owner: ownerJson(ctx, store, s),
  };
}

/** The `PipelineScheduleDetails` entity: adds `last_pipeline` and `variables`. */
function scheduleDetailJson(
  ctx: Pick<Ctx, "baseUrl">,
  store: Store,
  s: PipelineScheduleRec,
): Record<string, unknown> {
  const project = store.project(s.project_id);
  const p = s.last_pipeline;
  return {
    ...scheduleJson(ctx, store, s),
    last_pipeline:
      p === null
        ? null
        : {
            id: p.id,
            sha: p.sha,
            ref: p.ref,
            status: p.status,
            web_url: `${ctx.baseUrl}/${project ? store.projectFullPath(project) : "-"}/-/pipelines/${p.id}`,
          },
    variables: s.variables.map(variableJson),
  };
}

function reschedule(store: Store, s: PipelineScheduleRec): void {
  const next = nextRunAt(s.cron, s.cron_timezone, store.now());
  if (next) s.next_run_at = next.toISOString();
}

function level(ctx: Ctx, project: ProjectRec): number {
  return effectiveProjectLevel(ctx.store, ctx.user, project);
}

/** Owner (with Developer access) or Maintainer: `update_pipeline_schedule` / `admin_pipeline_schedule`. */
function canAdmin(ctx: Ctx, project: ProjectRec, s: PipelineScheduleRec): boolean {
  const l = level(ctx, project);
  return l >= ACCESS.maintainer || (l >= ACCESS.developer && s.owner_id === ctx.user?.id);
}

function scheduleId(ctx: Ctx): number {
  return ctx.declare({ pipeline_schedule_id: { type: "integer", required: true } }).pipeline_schedule_id;
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<SchedulesArea>("pipeline_schedules", () => ({ schedules: [] }));

  /** `user_project` after `authenticate!`. */
  const project = (ctx: Ctx): { user: UserRec; project: ProjectRec } => {
    const user = requireAuth(ctx);
    return { user, project: findProject(ctx, ctx.path["id"]!) };
  };

  /** The `pipeline_schedule` helper: missing or unreadable is `404 Pipeline Schedule Not Found`. */
  const schedule = (ctx: Ctx, p: ProjectRec): PipelineScheduleRec => {
    const id = scheduleId(ctx);
    const s = area().schedules.find((x) => x.project_id === p.id && x.id === id);
    if (!s || level(ctx, p) < ACCESS.developer) throw notFound("Pipeline Schedule");
    return s;
  };

  app.get("/projects/:id/pipeline_schedules", (ctx) => {
    const { project: p } = project(ctx);
    const q = ctx.declare({ scope: { type: "string", values: ["active", "inactive"] } });
    if (level(ctx, p) < ACCESS.developer) throw forbidden();
    const rows = area()
      .schedules.filter((s) => s.project_id === p.id)
      .filter((s) => q.scope === undefined || s.active === (q.scope === "active"))
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(rows, (s) => scheduleJson(ctx, ctx.store, s));
  });

  app.get("/projects/:id/pipeline_schedules/:pipeline_schedule_id", (ctx) => {
    const { project: p } = project(ctx);
    return scheduleDetailJson(ctx, ctx.store, schedule(ctx, p));
  });

  app.post("/projects/:id/pipeline_schedules", (ctx) => {
    requireAuth(ctx); // 401 first; then Grape validates parameters (400) before any lookup (404)
    const b = ctx.declare({
      description: { type: "string", required: true },
      ref: { type: "string", required: true, allowBlank: false },
      cron: { type: "string", required: true },
      cron_timezone: { type: "string", default: "UTC" },
      active: { type: "boolean", default: true },
    });
    const { user, project: p } = project(ctx);
    if (level(ctx, p) < ACCESS.developer) throw forbidden();
    const now = ctx.store.nowIso();
    const s: PipelineScheduleRec = {
      id: 0,
      project_id: p.id,
      description: b.description,
      ref: b.ref,
      cron: b.cron,
      cron_timezone: b.cron_timezone,
      next_run_at: now,
      active: b.active,
      created_at: now,
      updated_at: now,
      owner_id: user.id,
      last_pipeline: null,
      variables: [],
    };
    const errors = scheduleErrors(s);
    if (Object.keys(errors).length > 0) throw validation(errors);
    s.id = ctx.store.nextId("pipeline_schedules");
    reschedule(ctx.store, s);
    area().schedules.push(s);
    return created(scheduleDetailJson(ctx, ctx.store, s));
  });

  app.put("/projects/:id/pipeline_schedules/:pipeline_schedule_id", (ctx) => {
    requireAuth(ctx); // 401 first; then Grape validates parameters (400) before any lookup (404)
    const b = ctx.declare({
      description: { type: "string" },
      ref: { type: "string", allowBlank: false },
      cron: { type: "string" },
      cron_timezone: { type: "string" },
      active: { type: "boolean" },
    });
    const { project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (!canAdmin(ctx, p, s)) throw forbidden();
    const next = {
      description: b.description ?? s.description,
      ref: b.ref ?? s.ref,
      cron: b.cron ?? s.cron,
      cron_timezone: b.cron_timezone ?? s.cron_timezone,
    };
    const errors = scheduleErrors(next);
    if (Object.keys(errors).length > 0) throw validation(errors);
    Object.assign(s, next);
    if (b.active !== undefined) s.active = b.active;
    s.updated_at = ctx.store.nowIso();
    reschedule(ctx.store, s);
    return scheduleDetailJson(ctx, ctx.store, s);
  });

  app.post("/projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership", (ctx) => {
    const { user, project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (s.owner_id !== user.id && level(ctx, p) < ACCESS.maintainer) throw forbidden();
    if (s.owner_id !== user.id) {
      s.owner_id = user.id;
      s.updated_at = ctx.store.nowIso();
      reschedule(ctx.store, s);
    }
    return created(scheduleDetailJson(ctx, ctx.store, s));
  });

  app.delete("/projects/:id/pipeline_schedules/:pipeline_schedule_id", (ctx) => {
    const { project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (!canAdmin(ctx, p, s)) throw forbidden();
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), s.updated_at);
    const body = scheduleDetailJson(ctx, ctx.store, s);
    const a = area();
    a.schedules = a.schedules.filter((x) => x.id !== s.id);
    // Contract: "the deleted schedule" (the platform itself answers 204; see the module comment).
    return json(body);
  });

  app.post("/projects/:id/pipeline_schedules/:pipeline_schedule_id/play", (ctx) => {
    const { project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (level(ctx, p) < ACCESS.developer) throw forbidden();
    s.last_pipeline = {
      id: ctx.store.nextId("pipelines"),
      sha: fakeCommitSha(p.id, s.ref),
      ref: s.ref,
      status: "pending",
    };
    return created({ message: "201 Created" });
  });

  app.post("/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables", (ctx) => {
    requireAuth(ctx); // 401 first; then Grape validates parameters (400) before any lookup (404)
    const b = ctx.declare({
      key: { type: "string", required: true },
      value: { type: "string", required: true },
      variable_type: { type: "string", values: ["env_var", "file"], default: "env_var" },
    });
    const { project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (!canAdmin(ctx, p, s)) throw forbidden();
    const errors = variableErrors(b.key, s.variables);
    if (Object.keys(errors).length > 0) throw validation(errors);
    const v: ScheduleVariableRec = {
      key: b.key,
      value: b.value,
      variable_type: b.variable_type as VariableType,
    };
    s.variables.push(v);
    s.updated_at = ctx.store.nowIso();
    return created(variableJson(v));
  });

  const variable = (ctx: Ctx, s: PipelineScheduleRec): ScheduleVariableRec => {
    const v = s.variables.find((x) => x.key === ctx.path["key"]);
    if (!v) throw notFound("Pipeline Schedule Variable");
    return v;
  };

  app.put("/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key", (ctx) => {
    requireAuth(ctx); // 401 first; then Grape validates parameters (400) before any lookup (404)
    // The contract requires `value` on update (the 11.8 code had it optional; the contract is the first source).
    const b = ctx.declare({
      value: { type: "string", required: true },
      variable_type: { type: "string", values: ["env_var", "file"] },
    });
    const { project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (!canAdmin(ctx, p, s)) throw forbidden();
    const v = variable(ctx, s);
    v.value = b.value;
    if (b.variable_type !== undefined) v.variable_type = b.variable_type as VariableType;
    s.updated_at = ctx.store.nowIso();
    return variableJson(v);
  });

  app.delete("/projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key", (ctx) => {
    const { project: p } = project(ctx);
    const s = schedule(ctx, p);
    if (!canAdmin(ctx, p, s)) throw forbidden();
    const v = variable(ctx, s);
    s.variables = s.variables.filter((x) => x !== v);
    s.updated_at = ctx.store.nowIso();
    return accepted(variableJson(v));
  });

  app.onFixture("pipeline_schedules", (value, { store, source }) => {
    const fail = (where: string, msg: string) =>
      new FixtureError(`sandbox: fixture ${source}: pipeline_schedules${where} ${msg}`);
    if (!Array.isArray(value)) throw fail("", "must be a list");
    value.forEach((raw, i) => {
      const where = `[${i}]`;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw fail(where, "must be a mapping");
      const e = raw as Record<string, unknown>;
      const str = (k: string, fallback?: string): string => {
        const v = e[k];
        if (v === undefined || v === null) {
          if (fallback !== undefined) return fallback;
          throw fail(`${where}.${k}`, "is required");
        }
        if (typeof v !== "string") throw fail(`${where}.${k}`, "must be a string");
        return v;
      };
      const proj = store.projectByFullPath(str("project"));
      if (!proj) throw fail(`${where}.project`, `names "${str("project")}", which is not in projects`);
      const ownerName = str("owner", "root");
      const owner = store.userByUsername(ownerName);
      if (!owner) throw fail(`${where}.owner`, `names user "${ownerName}", which is not in users`);
      const now = store.nowIso();
      const s: PipelineScheduleRec = {
        id: 0,
        project_id: proj.id,
        description: str("description"),
        ref: str("ref", proj.default_branch ?? "main"),
        cron: str("cron"),
        cron_timezone: str("cron_timezone", "UTC"),
        next_run_at: now,
        active: e["active"] === undefined ? true : e["active"] === true,
        created_at: now,
        updated_at: now,
        owner_id: owner.id,
        last_pipeline: null,
        variables: [],
      };
      const errors = scheduleErrors(s);
      if (Object.keys(errors).length > 0) {
        const text = Object.entries(errors).map(([k, m]) => `${k}: ${m.map((x) => x.trim()).join(", ")}`);
        throw fail(where, `is not a valid schedule (${text.join("; ")})`);
      }
      const vars = e["variables"];
      const list: { key: unknown; value: unknown; variable_type?: unknown }[] = Array.isArray(vars)
        ? (vars as { key: unknown; value: unknown }[])
        : typeof vars === "object" && vars !== null
          ? Object.entries(vars).map(([key, v]) => ({ key, value: v }))
          : [];
      for (const v of list) {
        const key = String(v.key ?? "");
        const verr = variableErrors(key, s.variables);
        if (verr["key"]) throw fail(`${where}.variables`, `key "${key}" ${verr["key"].join(", ")}`);
        const type = v.variable_type ?? "env_var";
        if (type !== "env_var" && type !== "file") {
          throw fail(`${where}.variables`, `"${key}": variable_type must be env_var or file`);
        }
        s.variables.push({ key, value: String(v.value ?? ""), variable_type: type });
      }
      s.id = store.nextId("pipeline_schedules");
      reschedule(store, s);
      store.area<SchedulesArea>("pipeline_schedules", () => ({ schedules: [] })).schedules.push(s);
    });
  });
}
