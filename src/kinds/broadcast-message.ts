/**
 * Broadcast messages, identified by their message text: a plain collection. Times compare as instants (any ISO 8601
 * form) and colours case-insensitively, as the schema's `x-normalize` declares.
 */
import { restCollection } from "./declare.js";

export const broadcastMessageKind = restCollection({
  collection: "broadcast_messages",
  segment: "broadcast_message",
  parents: ["instance"],
  path: "/broadcast_messages",
});
