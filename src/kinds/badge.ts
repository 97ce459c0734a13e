/**
 * Project and group badges, identified by name: a plain collection. A project's badge list also holds the badges
 * of its ancestor groups (`kind: group`): those are read-only here and are managed in the group's manifest. A badge
 * made before badges had names has none: it is known by its two URLs.
 */
import { restCollection } from "./declare.js";

export const badgeKind = restCollection({
  collection: "badges",
  segment: "badge",
  parents: ["groups", "projects"],
  path: "badges",
  shape: { name: "string?", kind: "string?" },
  live(parent, badge, live) {
    const inherited = parent.collection === "projects" && badge["kind"] === "group";
    return {
      ...live,
      key: (badge["name"] as string | null | undefined) ?? `${badge["link_url"]} ${badge["image_url"]}`,
      ...(inherited
        ? { readOnly: "a group badge inherited by the project; manage it in its group's manifest" }
        : {}),
    };
  },
});
