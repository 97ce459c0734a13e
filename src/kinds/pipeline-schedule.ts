/**
 * Pipeline schedules of a project, identified by description. One list read per project, plus a detail read for
 * each declared schedule (the only way to see its variables). A schedule's pipelines run as its owner: with
 * `take_ownership: true` the schedule should belong to the token's user, so the plan shows an `owner` change, and
 * apply takes ownership, only when someone else owns it; without it, ownership is never touched. The platform's
 * spellings of refs and time zones compare equal to the manifest's through the schema's `x-normalize`.
 */
import { listOf, objectOf, type Shape } from "../api/index.js";
import { body, createBody, pick, UNCHECKED } from "./common.js";
import { type ApiObject, lazySchema, type Rest, restCollection, unchecked } from "./declare.js";
import type { Live } from "./kind.js";
import { currentUsername } from "./users.js";

/** A schedule variable as the platform shows it (in a schedule's detail view, and when one is changed). */
const variableSchema = lazySchema("pipeline_schedules", "variables");
export const variableShape = (): Shape => variableSchema().shape();

/** A schedule as the API shows it. */
type ApiSchedule = ApiObject & {
  id: number;
  description: string;
  owner?: { username: string } | null;
  variables?: unknown[];
};

/** What a schedule's variables are read from (see schedule-variable.ts): only they are kept of the response. */
export interface ScheduleRaw {
  variables?: unknown[];
}

/** The schedule as the API shows it, rebuilt from what a live object keeps. */
const fromLive = (rest: Rest, live: Live): ApiSchedule => {
  const owner = live.fields["owner"];
  return {
    ...pick(live.fields, rest.schema().read),
    id: Number(live.id),
    description: live.key,
    owner: typeof owner === "string" ? { username: owner } : null,
  };
};

export const pipelineScheduleKind = restCollection(
  {
    collection: "pipeline_schedules",
    segment: "pipeline_schedule",
    parents: ["projects"],
    path: "pipeline_schedules",
    // The platform always shows these; and the owner's name, and the variables of the detail view.
    shape: {
      cron_timezone: "string",
      active: "boolean",
      owner: objectOf({ username: "string" }, true),
      variables: listOf(variableSchema().shape(), true),
    },
    // `owner` is how the plan shows (and compares) the ownership `take_ownership` asks for; the variables are
    // kept for the schedule's variables to be read from (schedule-variable.ts).
    live: (_parent, s, live) => ({
      ...live,
      fields: {
        ...live.fields,
        owner: (s["owner"] as { username: string } | null | undefined)?.username ?? null,
      },
      raw: { ...(s["variables"] ? { variables: s["variables"] as unknown[] } : {}) } satisfies ScheduleRaw,
    }),
  },
  (rest) => ({
    async read(ctx, parent, wanted, options) {
      const list = (await rest.list(ctx, parent)) as ApiSchedule[];
      const declared = new Set(wanted);
      // Variables are only in the detail view: read it for declared schedules, where they are compared.
      return Promise.all(
        list.map(async (s) =>
          rest.toLive(
            parent,
            declared.has(s.description)
              ? await ctx.api.get<ApiSchedule>(rest.itemPath(parent, s.id), { shape: rest.shape() })
              : s,
            options,
          ),
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
      const created = await rest.post(ctx, parent, createBody(desired, rest.schema().sent));
      return rest.toLive(parent, { ...created, variables: [] }, unchecked(desired));
    },

    async update(ctx, parent, live, desired, changed) {
      let current = fromLive(rest, live);
      if (changed.includes("owner")) {
        current = await ctx.api.post<ApiSchedule>(`${rest.itemPath(parent, live.id!)}/take_ownership`, {
          shape: rest.shape(),
        });
      }
      const edits = changed.filter((f) => rest.schema().sent.includes(f) || f.startsWith(UNCHECKED));
      if (edits.length > 0)
        current = (await rest.put(ctx, parent, live.id!, body(desired, edits))) as ApiSchedule;
      const variables = (live.raw as ScheduleRaw | undefined)?.variables;
      return rest.toLive(parent, { ...current, ...(variables ? { variables } : {}) }, unchecked(desired));
    },
  }),
);
