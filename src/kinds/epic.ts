/**
 * Epics of a group [licensed], identified by iid. Epics are not created, changed or deleted by forgeform: an epic
 * entry names an existing epic so its issue links (the `issues` collection, see epic-issue.ts) can be managed.
 * Only the declared epics are read: one request each, their issue list, which the links reuse (an export, which
 * declares none, lists the group's epics first).
 */
import { apiPath } from "../api/index.js";
import { orNotFound, ownerPath } from "./common.js";
import type { Kind, Live, Parent } from "./kind.js";

/** The fields of an epic's issue link that reads rely on. */
export const EPIC_ISSUE_SHAPE = {
  id: "integer",
  iid: "integer",
  project_id: "integer",
  epic_issue_id: "integer",
} as const;

export interface ApiEpicIssue {
  id: number;
  iid: number;
  project_id: number;
  epic_issue_id: number;
  relative_position?: number | null;
}

/** `/groups/:id/epics/:iid/issues` of an epic node. */
export function epicIssuesPath(epic: Parent): string {
  if (!epic.parent) throw new Error(`${epic.address} has no group`);
  return `${ownerPath(epic.parent)}${apiPath`/epics/${epic.ref!}/issues`}`;
}

export const epicKind: Kind = {
  collection: "epics",
  segment: "epic",
  parents: ["groups"],
  updateMode: "update",
  explicitDeleteOnly: true,

  async read(ctx, parent, wanted) {
    // Planning reads the declared epics only; exporting (nothing declared) lists the group's epics first.
    const iids =
      wanted.length > 0
        ? wanted
        : (
            (await orNotFound(
              ctx.api.list<{ iid: number }>(`${ownerPath(parent)}/epics`, { shape: { iid: "integer" } }),
            )) ?? []
          ).map((e) => String(e.iid));
    const found = await Promise.all(
      iids.map(async (iid): Promise<Live | undefined> => {
        const issues = await orNotFound(
          ctx.api.list<ApiEpicIssue>(`${ownerPath(parent)}${apiPath`/epics/${iid}/issues`}`, {
            shape: EPIC_ISSUE_SHAPE,
          }),
        );
        return issues ? { key: iid, id: Number(iid), fields: { iid: Number(iid) }, raw: issues } : undefined;
      }),
    );
    return found.filter((l): l is Live => l !== undefined);
  },
};
