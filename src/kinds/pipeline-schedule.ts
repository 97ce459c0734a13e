/**
 * Pipeline schedules of a project, identified by description. One list read per project, plus a detail read for
 * each declared schedule (the only way to see its variables). A schedule's pipelines run as its owner: with
 * `take_ownership: true` the schedule should belong to the token's user, so the plan shows an `owner` change, and
 * apply takes ownership, only when someone else owns it; without it, ownership is never touched. The platform's
 * spellings of refs and time zones compare equal to the manifest's through the schema's `x-normalize`.
 */
import { apiPath, listOf, objectOf, type Shape } from "../api/index.js";
import { body, ownerPath, pick } from "./common.js";
import type { Fields, Kind, KindContext, Live, Parent } from "./kind.js";

const FIELDS = ["description", "ref", "cron", "cron_timezone", "active"] as const;

/** A schedule variable as the platform shows it (in a schedule's detail view, and when one is changed). */
export const VARIABLE_SHAPE: Shape = { key: "string", value: "string", variable_type: "string?" };

/** What reads of a schedule rely on: every compared field, the owner's name, the variables of the detail view. */
const SCHEDULE_SHAPE: Shape = {
  id: "integer",
  description: "string",
  ref: "string",
  cron: "string",
  cron_timezone: "string",
  active: "boolean",
  owner: objectOf({ username: "string" }, true),
  variables: listOf(VARIABLE_SHAPE, true),
};

interface ApiSchedule extends Record<string, unknown> {
  id: number;
  description: string;
  owner?: { username: string } | null;
  variables?: unknown[];
}

/** The token's user's username, asked once per run. */
function currentUsername(ctx: KindContext): Promise<string> {
  let p = ctx.memo.get("user:current") as Promise<string> | undefined;
  if (!p) {
    p = ctx.api.get<{ username: string }>("/user", { shape: { username: "string" } }).then((u) => u.username);
    ctx.memo.set("user:current", p);
  }
  return p;
}

/** What a schedule's variables are read from (see schedule-variable.ts): only they are kept of the response. */
interface ScheduleRaw {
  variables?: unknown[];
}

const toLive = (s: ApiSchedule): Live => ({
  key: s.description,
  id: s.id,
  fields: { ...pick(s, FIELDS), owner: s.owner?.username ?? null },
  raw: { ...(s.variables ? { variables: s.variables } : {}) } satisfies ScheduleRaw,
});

/** The schedule as the API shows it, rebuilt from what a live object keeps. */
const fromLive = (live: Live): ApiSchedule => {
  const owner = live.fields["owner"];
  return {
    ...pick(live.fields, FIELDS),
    id: Number(live.id),
    description: live.key,
    owner: typeof owner === "string" ? { username: owner } : null,
  };
};

async function schedulePut(ctx: KindContext, parent: Parent, id: number | string, payload: Fields) {
  return ctx.api.put<ApiSchedule>(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${id}`}`, {
    body: payload,
    shape: SCHEDULE_SHAPE,
  });
}

export const pipelineScheduleKind: Kind = {
  collection: "pipeline_schedules",
  segment: "pipeline_schedule",
  parents: ["projects"],
  updateMode: "update",

  async read(ctx, parent, wanted) {
    const list = await ctx.api.list<ApiSchedule>(`${ownerPath(parent)}/pipeline_schedules`, {
      shape: SCHEDULE_SHAPE,
    });
    const declared = new Set(wanted);
    // Variables are only in the detail view: read it for declared schedules, where they are compared.
    return Promise.all(
      list.map(async (s) =>
        declared.has(s.description)
          ? toLive(
              await ctx.api.get<ApiSchedule>(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${s.id}`}`, {
                shape: SCHEDULE_SHAPE,
              }),
            )
          : toLive(s),
      ),
    );
  },

  async prepare(ctx, _parent, fields) {
    const out = { ...fields };
    // `owner` is not a manifest field: it is how the plan shows (and compares) the ownership asked for.
    if (out["take_ownership"] === true) out["owner"] = await currentUsername(ctx);
    return out;
  },

  async create(ctx, parent, desired) {
    const created = await ctx.api.post<ApiSchedule>(`${ownerPath(parent)}/pipeline_schedules`, {
      body: body(desired, FIELDS),
      shape: SCHEDULE_SHAPE,
    });
    return toLive({ ...created, variables: [] });
  },

  async update(ctx, parent, live, desired, changed) {
    let current = fromLive(live);
    if (changed.includes("owner")) {
      current = await ctx.api.post<ApiSchedule>(
        `${ownerPath(parent)}${apiPath`/pipeline_schedules/${live.id!}/take_ownership`}`,
        { shape: SCHEDULE_SHAPE },
      );
    }
    const edits = changed.filter((f) => (FIELDS as readonly string[]).includes(f));
    if (edits.length > 0) current = await schedulePut(ctx, parent, live.id!, body(desired, edits));
    const variables = (live.raw as ScheduleRaw | undefined)?.variables;
    return toLive({ ...current, ...(variables ? { variables } : {}) });
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/pipeline_schedules/${live.id!}`}`);
  },
};
