/**
 * Group and project labels, identified by name (the platform compares names case-sensitively), a plain collection
 * otherwise; the schema says that a colour compares as the colour it is (`red` is stored as `#FF0000`).
 *
 * A project's list also holds the labels of its groups (`is_project_label: false`): those are read-only here and
 * managed in the group's manifest, never reported as unmanaged in the project. A group's list is read without its
 * ancestors' labels, which the platform would add by default with nothing to tell them apart.
 *
 * The platform refuses a new label whose name a group above already has, but not a group label whose name a label
 * below has: a label a plan creates goes before the labels of the same name it creates in the groups above
 * (`before`), so that a name declared in a group and in a project (or subgroup) below it is made in both. One that
 * a group above has already is a plan error: a project sees it in its own list (read-only), a subgroup is asked for
 * its ancestors' labels once it would create one, and for a group or project the plan creates, the nearest group
 * above that exists is (`checkCreate`).
 */
import { apiPath } from "../api/index.js";
import { orNotFound } from "./common.js";
import type { ApiObject } from "./declare.js";
import { restCollection } from "./declare.js";
import { groupAddress, parentPath } from "./group.js";
import type { KindContext } from "./kind.js";

const INHERITED = "a group label the project shows; manage it in its group's manifest";

/** The label names `read` gives, read once per run under `memoKey`. */
function seenLabels(ctx: KindContext, memoKey: string, read: () => Promise<string[]>): Promise<Set<string>> {
  let seen = ctx.memo.get(memoKey) as Promise<Set<string>> | undefined;
  if (!seen) {
    seen = read().then((names) => new Set(names));
    ctx.memo.set(memoKey, seen);
  }
  return seen;
}

const names = (labels: ApiObject[]) => labels.map((l) => String(l["name"]));

/**
 * The labels a group or project this plan creates below `group` will see: those of the nearest group from `group`
 * up that exists (its own and its ancestors'), read by path (a group this plan creates too is not found; a user's
 * namespace is none).
 */
function aboveNew(ctx: KindContext, group: string): Promise<Set<string>> {
  return seenLabels(ctx, `labels:below-new:${group}`, async () => {
    const labels = await orNotFound(
      ctx.api.list<ApiObject>(apiPath`/groups/${group}/labels`, {
        shape: { name: "string" },
        query: { include_ancestor_groups: true },
      }),
    );
    if (labels !== undefined) return names(labels);
    const up = parentPath(group);
    return up === undefined ? [] : [...(await aboveNew(ctx, up))];
  });
}

export const labelKind = restCollection(
  {
    collection: "labels",
    segment: "label",
    parents: ["groups", "projects"],
    path: "labels",
    // `priority` is a project's (null when unset); `is_project_label` tells a project's own labels from its groups'.
    shape: { priority: "integer?", is_project_label: "boolean?" },
    live(parent, label, live) {
      return parent.collection === "projects" && label["is_project_label"] === false
        ? { ...live, readOnly: INHERITED }
        : live;
    },
  },
  (rest) => ({
    before(parent, key, _desired, live) {
      if (live) return [];
      // The groups above the project or group (a project's own group first).
      const above: string[] = [];
      for (let group = parentPath(parent.key); group; group = parentPath(group))
        above.push(`${groupAddress(group)}.label[${JSON.stringify(key)}]`);
      return above;
    },

    async checkCreate(ctx, parent, key) {
      const up = parentPath(parent.key);
      if (up === undefined) return [];
      // What the parent sees: an existing subgroup its own labels and its ancestors' (a project's list holds its
      // groups' labels, read-only); a parent this plan creates, those of the nearest group above that exists.
      let seen: Promise<Set<string>> | undefined;
      if (parent.ref !== undefined) {
        if (parent.collection !== "groups") return [];
        seen = seenLabels(ctx, `labels:with-ancestors:${parent.ref}`, async () =>
          names(
            await ctx.api.list<ApiObject>(rest.path(parent), {
              shape: rest.shape(),
              query: { include_ancestor_groups: true },
            }),
          ),
        );
      } else {
        seen = aboveNew(ctx, up);
      }
      if (!(await seen).has(key)) return [];
      return [
        {
          field: "name",
          message: `a group above ${parent.key} has a label "${key}" already, and the platform refuses a second one of that name below it: manage it in that group's manifest, or name this one otherwise`,
        },
      ];
    },

    async read(ctx, parent, _wanted, options) {
      const labels = await ctx.api.list<ApiObject>(rest.path(parent), {
        shape: rest.shape(),
        ...(parent.collection === "groups" ? { query: { include_ancestor_groups: false } } : {}),
      });
      // A project label made before a group label of the same name: the project's own is the one managed here.
      const own = new Set(labels.filter((l) => l["is_project_label"] === true).map((l) => l["name"]));
      return labels
        .filter((l) => l["is_project_label"] !== false || !own.has(l["name"]))
        .map((l) => rest.toLive(parent, l, options));
    },
  }),
);
