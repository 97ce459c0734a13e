/**
 * Milestones of a project or group, identified by title. Description and dates are updated in place; `state`
 * (`active` or `closed`) is moved with `state_event` close/activate. Deleting a milestone that still has open
 * issues is refused in the plan (the issues would lose their milestone) unless the entry says `force_delete: true`.
 */
import { apiPath, objectOf, type Shape } from "../api/index.js";
import { shownText, textOf } from "../manifest/secret.js";
import { ownerPath } from "./common.js";
import type { Fields, Kind, KindContext, KindProblem, Live, Parent } from "./kind.js";

const FIELDS = ["title", "description", "start_date", "due_date"] as const;

const SHAPE: Shape = {
  id: "integer",
  title: "string",
  description: "string?",
  state: "string",
  start_date: "string?",
  due_date: "string?",
};

const STATISTICS_SHAPE: Shape = {
  statistics: objectOf({ counts: objectOf({ opened: "integer?" }, true) }, true),
};

interface ApiMilestone {
  id: number;
  title: string;
  description?: string | null;
  start_date?: string | null;
  due_date?: string | null;
  state: string;
}

const toLive = (m: ApiMilestone): Live => ({
  key: m.title,
  id: m.id,
  fields: {
    title: m.title,
    description: m.description ?? "",
    start_date: m.start_date ?? null,
    due_date: m.due_date ?? null,
    state: m.state,
  },
});

function put(ctx: KindContext, parent: Parent, id: number | string, payload: Fields): Promise<ApiMilestone> {
  return ctx.api.put<ApiMilestone>(`${ownerPath(parent)}${apiPath`/milestones/${id}`}`, {
    body: payload,
    shape: SHAPE,
  });
}

/** How many open issues have this milestone (in the project, or in the group and its projects). */
async function openIssues(ctx: KindContext, parent: Parent, title: string): Promise<number> {
  const stats = await ctx.api.get<{ statistics?: { counts?: { opened?: number } } }>(
    `${ownerPath(parent)}/issues_statistics`,
    { query: { milestone: title, scope: "all" }, shape: STATISTICS_SHAPE },
  );
  return stats.statistics?.counts?.opened ?? 0;
}

export const milestoneKind: Kind = {
  collection: "milestones",
  segment: "milestone",
  parents: ["groups", "projects"],
  updateMode: "update",

  async read(ctx, parent) {
    return (await ctx.api.list<ApiMilestone>(`${ownerPath(parent)}/milestones`, { shape: SHAPE })).map(
      toLive,
    );
  },

  check(_ctx, _parent, desired) {
    const start = textOf(desired["start_date"]);
    const due = textOf(desired["due_date"]);
    if (start !== undefined && due !== undefined && due < start)
      return [
        {
          field: "due_date",
          message: `due_date ${shownText(desired["due_date"])} is before start_date ${shownText(desired["start_date"])}: the platform refuses it`,
        },
      ];
    return [];
  },

  async checkDelete(ctx, parent, live, desired) {
    if (desired?.["force_delete"] === true) return [];
    const opened = await openIssues(ctx, parent, live.key);
    if (opened === 0) return [];
    const problem: KindProblem = {
      message: `milestone "${live.key}" still has ${opened} open issue${opened === 1 ? "" : "s"}, which would lose their milestone: close or move ${opened === 1 ? "it" : "them"} first, or set force_delete: true on the entry marked absent`,
    };
    return [problem];
  },

  async create(ctx, parent, desired, key) {
    const payload: Fields = { title: key };
    for (const name of FIELDS)
      if (desired[name] !== undefined && name !== "title") payload[name] = desired[name];
    let created = await ctx.api.post<ApiMilestone>(`${ownerPath(parent)}/milestones`, {
      body: payload,
      shape: SHAPE,
    });
    if (textOf(desired["state"]) === "closed")
      created = await put(ctx, parent, created.id, { state_event: "close" });
    return toLive(created);
  },

  async update(ctx, parent, live, desired, changed) {
    const payload: Fields = {};
    for (const name of changed) {
      if (name === "state")
        payload["state_event"] = textOf(desired["state"]) === "closed" ? "close" : "activate";
      else if ((FIELDS as readonly string[]).includes(name)) payload[name] = desired[name] ?? null;
    }
    return toLive(await put(ctx, parent, live.id!, payload));
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/milestones/${live.id!}`}`);
  },
};
