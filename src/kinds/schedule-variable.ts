/**
 * Variables of a pipeline schedule, identified by key. Read from the schedule's detail view (no request of their
 * own); compared and changed one by one, never all deleted and re-created.
 */
import { apiPath, listOf } from "../api/index.js";
import { body, ownerPath, projectOf } from "./common.js";
import type { Kind, KindContext, Live, Parent } from "./kind.js";
import { VARIABLE_SHAPE } from "./pipeline-schedule.js";

interface ApiVariable {
  key: string;
  value: string;
  variable_type?: string;
}

const toLive = (v: ApiVariable): Live => ({
  key: v.key,
  id: v.key,
  fields: { key: v.key, value: v.value, variable_type: v.variable_type ?? "env_var" },
});

function base(parent: Parent): string {
  return `${ownerPath(projectOf(parent))}${apiPath`/pipeline_schedules/${parent.ref!}/variables`}`;
}

async function liveVariables(ctx: KindContext, parent: Parent, fresh = false): Promise<ApiVariable[]> {
  const raw = parent.live?.raw as { variables?: ApiVariable[] } | undefined;
  if (raw?.variables && !fresh) return raw.variables;
  const detail = await ctx.api.get<{ variables?: ApiVariable[] }>(
    `${ownerPath(projectOf(parent))}${apiPath`/pipeline_schedules/${parent.ref!}`}`,
    { shape: { variables: listOf(VARIABLE_SHAPE, true) } },
  );
  return detail.variables ?? [];
}

export const scheduleVariableKind: Kind = {
  collection: "variables",
  segment: "variable",
  parents: ["pipeline_schedules"],
  updateMode: "update",

  async read(ctx, parent, _wanted, options) {
    return (await liveVariables(ctx, parent, options?.fresh)).map(toLive);
  },

  async create(ctx, parent, desired, key) {
    const created = await ctx.api.post<ApiVariable>(base(parent), {
      body: { key, ...body(desired, ["value", "variable_type"]) },
      shape: VARIABLE_SHAPE,
    });
    return toLive(created);
  },

  async update(ctx, parent, live, desired) {
    // The platform requires the value on every update, so send it with the variable type.
    const updated = await ctx.api.put<ApiVariable>(`${base(parent)}${apiPath`/${live.key}`}`, {
      body: body(desired, ["value", "variable_type"]),
      shape: VARIABLE_SHAPE,
    });
    return toLive(updated);
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${base(parent)}${apiPath`/${live.key}`}`);
  },
};
