/**
 * Web hooks of groups [licensed] and projects, identified by URL: a plain collection, but for its update, which must
 * name the URL again (the platform requires `url` on PUT). A secret in the URL (`?key=${env:KEY}`) is matched by its
 * value and shown masked, as every identity is. The token is write-only (the schema says so): sent when the hook
 * is created, never read back, never compared; `--replace 'project["p"].hook["URL"]'` rotates it.
 */
import { body } from "./common.js";
import { restCollection, unchecked } from "./declare.js";

export const hookKind = restCollection(
  {
    collection: "hooks",
    segment: "hook",
    parents: ["groups", "projects"],
    path: "hooks",
  },
  (rest) => ({
    async update(ctx, parent, live, desired, changed) {
      const updated = await rest.put(ctx, parent, live.id!, body(desired, ["url", ...changed]));
      return rest.toLive(parent, updated, unchecked(desired));
    },
  }),
);
