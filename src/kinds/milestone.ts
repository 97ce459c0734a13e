/**
 * Milestones of a project or group, identified by title: a plain collection but for its state. Description and
 * dates are updated in place; `state` (`active` or `closed`) is moved with `state_event` close/activate. Deleting a
 * milestone that still has open issues is refused in the plan (the issues would lose their milestone) unless the
 * entry says `force_delete: true`.
 */
import { objectOf, type Shape } from "../api/index.js";
import { shownText, textOf } from "../manifest/secret.js";
import { body, createBody, ownerPath } from "./common.js";
import { restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, KindProblem, Parent } from "./kind.js";

const STATISTICS_SHAPE: Shape = {
  statistics: objectOf({ counts: objectOf({ opened: "integer?" }, true) }, true),
};

/** How many open issues have this milestone (in the project, or in the group and its projects). */
async function openIssues(ctx: KindContext, parent: Parent, title: string): Promise<number> {
  const stats = await ctx.api.get<{ statistics?: { counts?: { opened?: number } } }>(
    `${ownerPath(parent)}/issues_statistics`,
    { query: { milestone: title, scope: "all" }, shape: STATISTICS_SHAPE },
  );
  return stats.statistics?.counts?.opened ?? 0;
}

export const milestoneKind = restCollection(
  {
    collection: "milestones",
    segment: "milestone",
    parents: ["groups", "projects"],
    path: "milestones",
    // `state` is the milestone's own (active, closed), read beside the schema's fields.
    shape: { state: "string" },
    live: (_parent, m, live) => ({
      ...live,
      fields: {
        title: m["title"],
        description: m["description"] ?? "",
        start_date: m["start_date"] ?? null,
        due_date: m["due_date"] ?? null,
        state: m["state"],
      },
    }),
  },
  (rest) => ({
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
      const payload: Fields = { ...createBody(desired, rest.schema().sent), title: key };
      let created = await rest.post(ctx, parent, payload);
      if (textOf(desired["state"]) === "closed")
        created = await rest.put(ctx, parent, created["id"] as number, { state_event: "close" });
      return rest.toLive(parent, created, unchecked(desired));
    },

    // A milestone found on re-reading is closed as its create would have closed it.
    async finishCreate(ctx, parent, found, desired) {
      if (textOf(desired["state"]) !== "closed" || found.fields["state"] === "closed") return found;
      return rest.toLive(
        parent,
        await rest.put(ctx, parent, found.id!, { state_event: "close" }),
        unchecked(desired),
      );
    },

    async update(ctx, parent, live, desired, changed) {
      // A field the manifest no longer sets is cleared (`null`); the state moves with state_event.
      const payload: Fields = body(
        Object.fromEntries(changed.filter((n) => n !== "state").map((n) => [n, desired[n] ?? null])),
      );
      if (changed.includes("state"))
        payload["state_event"] = textOf(desired["state"]) === "closed" ? "close" : "activate";
      return rest.toLive(parent, await rest.put(ctx, parent, live.id!, payload), unchecked(desired));
    },
  }),
);
