/**
 * Broadcast messages, identified by their message text. Times compare as instants (any ISO 8601 form) and colours
 * case-insensitively, as the schema's `x-normalize` declares.
 */
import { apiPath, type Shape } from "../api/index.js";
import { body, pick } from "./common.js";
import type { Kind, Live } from "./kind.js";

const FIELDS = [
  "message",
  "starts_at",
  "ends_at",
  "color",
  "font",
  "target_path",
  "broadcast_type",
  "dismissable",
] as const;

interface ApiMessage extends Record<string, unknown> {
  id: number;
  message: string;
}

const SHAPE: Shape = {
  id: "integer",
  message: "string",
  starts_at: "string?",
  ends_at: "string?",
  color: "string?",
  font: "string?",
  target_path: "string?",
  broadcast_type: "string?",
  dismissable: "boolean?",
};

const toLive = (m: ApiMessage): Live => ({ key: m.message, id: m.id, fields: pick(m, FIELDS) });

export const broadcastMessageKind: Kind = {
  collection: "broadcast_messages",
  segment: "broadcast_message",
  parents: ["instance"],
  updateMode: "update",

  async read(ctx) {
    return (await ctx.api.list<ApiMessage>("/broadcast_messages", { shape: SHAPE })).map(toLive);
  },

  async create(ctx, _parent, desired, key) {
    return toLive(
      await ctx.api.post<ApiMessage>("/broadcast_messages", {
        body: { ...body(desired, FIELDS), message: key },
        shape: SHAPE,
      }),
    );
  },

  async update(ctx, _parent, live, desired, changed) {
    return toLive(
      await ctx.api.put<ApiMessage>(apiPath`/broadcast_messages/${live.id!}`, {
        body: body(desired, changed),
        shape: SHAPE,
      }),
    );
  },

  async remove(ctx, _parent, live) {
    await ctx.api.delete(apiPath`/broadcast_messages/${live.id!}`);
  },
};
