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
 * its ancestors' labels once it would create one (`checkCreate`).
 */
import type { ApiObject } from "./declare.js";
import { restCollection } from "./declare.js";
import { groupAddress, parentPath } from "./group.js";

const INHERITED = "a group label the project shows; manage it in its group's manifest";

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
      if (parent.collection !== "groups" || parent.ref === undefined || up === undefined) return [];
      // The labels the subgroup sees: its own and its ancestors'; read once per subgroup, whatever it creates.
      const memoKey = `labels:with-ancestors:${parent.ref}`;
      let seen = ctx.memo.get(memoKey) as Promise<Set<string>> | undefined;
      if (!seen) {
        seen = ctx.api
          .list<ApiObject>(rest.path(parent), {
            shape: rest.shape(),
            query: { include_ancestor_groups: true },
          })
          .then((labels) => new Set(labels.map((l) => String(l["name"]))));
        ctx.memo.set(memoKey, seen);
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
