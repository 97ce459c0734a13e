/**
 * System hooks (administrator only), identified by URL: a plain collection without an update call, so a change
 * is a replacement. The secret token is write-only (the schema says so): sent on create, never read back, never
 * compared; rotate it with `--replace 'instance.system_hook["URL"]'`. `GET /hooks/:id` fires the hook, so it is
 * never used to read one.
 */
import { restCollection } from "./declare.js";

export const systemHookKind = restCollection({
  collection: "system_hooks",
  segment: "system_hook",
  parents: ["instance"],
  path: "/hooks",
  noUpdate: "system hooks have no update call in the API: deleted and created again",
});
