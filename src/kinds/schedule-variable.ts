/**
 * Variables of a pipeline schedule, identified by key. Read from the schedule's detail view (no request of their
 * own); compared and changed one by one, never all deleted and re-created. The platform requires the value on every
 * update, so the value and the type are sent together.
 */
import { apiPath, listOf } from "../api/index.js";
import { body, ownerPath, projectOf, UNCHECKED } from "./common.js";
import { type ApiObject, restCollection, unchecked } from "./declare.js";
import type { KindContext, Parent } from "./kind.js";
import { type ScheduleRaw, variableShape } from "./pipeline-schedule.js";

function schedulePath(parent: Parent): string {
  return `${ownerPath(projectOf(parent))}${apiPath`/pipeline_schedules/${parent.ref!}`}`;
}

/** The schedule's variables as its detail view shows them: read with it, or read again (`fresh`). */
async function liveVariables(ctx: KindContext, parent: Parent, fresh = false): Promise<ApiObject[]> {
  const raw = parent.live?.raw as ScheduleRaw | undefined;
  if (raw?.variables && !fresh) return raw.variables as ApiObject[];
  const detail = await ctx.api.get<{ variables?: ApiObject[] }>(schedulePath(parent), {
    shape: { variables: listOf(variableShape(), true) },
  });
  return detail.variables ?? [];
}

export const scheduleVariableKind = restCollection(
  {
    collection: "variables",
    segment: "variable",
    parents: ["pipeline_schedules"],
    path: (parent) => `${schedulePath(parent)}/variables`,
    id: { field: "key", type: "string" },
    live: (_parent, v, live) => ({
      ...live,
      fields: { key: v["key"], value: v["value"], variable_type: v["variable_type"] ?? "env_var" },
    }),
  },
  (rest) => ({
    async read(ctx, parent, _wanted, options) {
      return (await liveVariables(ctx, parent, options?.fresh)).map((v) => rest.toLive(parent, v, options));
    },
    async update(ctx, parent, live, desired, changed) {
      const payload = body(desired, [
        "value",
        "variable_type",
        ...changed.filter((f) => f.startsWith(UNCHECKED)),
      ]);
      return rest.toLive(parent, await rest.put(ctx, parent, live.id!, payload), unchecked(desired));
    },
  }),
);
