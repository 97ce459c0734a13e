/**
 * Pipeline schedules of a project, identified by description. One list read per project, plus a detail read for
 * each declared schedule (the only way to see its variables). Ownership is taken only when an update is refused
 * because the token's user does not own the schedule, and only when `take_ownership: true` allows it.
 */
import { ApiError, apiPath } from "../api/index.js";
import { RAILS_TIME_ZONES } from "../manifest/timezones.js";
import { body, ownerPath, pick, shortRef } from "./common.js";
import type { Fields, Kind, KindContext, Live, Parent } from "./kind.js";

const FIELDS = ["description", "ref", "cron", "cron_timezone", "active"] as const;

interface ApiSchedule extends Record<string, unknown> {
  id: number;
  description: string;
  variables?: unknown[];
}

/** The IANA name for a friendly name (`Pacific Time (US & Canada)`), so both spellings compare equal. */
function canonicalTimeZone(name: string): string {
  return RAILS_TIME_ZONES[name] ?? name;
}

function normalize(fields: Fields): Fields {
  const out = { ...fields };
  if ("ref" in out) out["ref"] = shortRef(out["ref"]);
  if (typeof out["cron_timezone"] === "string")
    out["cron_timezone"] = canonicalTimeZone(out["cron_timezone"]);
  if (typeof out["cron"] === "string") out["cron"] = out["cron"].trim().replace(/\s+/g, " ");
  return out;
}

const toLive = (s: ApiSchedule): Live => ({
  key: s.description,
  id: s.id,
  fields: normalize(pick(s, FIELDS)),
  raw: s,
});

async function schedulePut(ctx: KindContext, parent: Parent, id: number | string, payload: Fields) {
  return ctx.api.put<ApiSchedule>(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${id}`}`, {
    body: payload,
  });
}

export const pipelineScheduleKind: Kind = {
  collection: "pipeline_schedules",
  segment: "pipeline_schedule",
  parents: ["projects"],
  updateMode: "update",

  async read(ctx, parent, wanted) {
    const list = await ctx.api.list<ApiSchedule>(`${ownerPath(parent)}/pipeline_schedules`);
    const declared = new Set(wanted);
    // Variables are only in the detail view: read it for declared schedules, where they are compared.
    return Promise.all(
      list.map(async (s) =>
        declared.has(s.description)
          ? toLive(
              await ctx.api.get<ApiSchedule>(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${s.id}`}`),
            )
          : toLive(s),
      ),
    );
  },

  prepare: async (_ctx, _parent, fields) => normalize(fields),

  async create(ctx, parent, desired) {
    const created = await ctx.api.post<ApiSchedule>(`${ownerPath(parent)}/pipeline_schedules`, {
      body: body(desired, FIELDS),
    });
    return toLive({ ...created, variables: [] });
  },

  async update(ctx, parent, live, desired, changed) {
    const payload = body(
      desired,
      changed.filter((f) => (FIELDS as readonly string[]).includes(f)),
    );
    try {
      return toLive({
        ...(await schedulePut(ctx, parent, live.id!, payload)),
        variables: (live.raw as ApiSchedule).variables,
      });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 403) || desired["take_ownership"] !== true)
        throw error;
      await ctx.api.post(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${live.id!}/take_ownership`}`);
      return toLive({
        ...(await schedulePut(ctx, parent, live.id!, payload)),
        variables: (live.raw as ApiSchedule).variables,
      });
    }
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${live.id!}`}`);
  },
};
