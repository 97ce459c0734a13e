/**
 * Broadcast messages, identified by their message text. Times are compared as instants (any ISO 8601 form);
 * colours case-insensitively.
 */
import { apiPath } from "../api/index.js";
import { body, pick } from "./common.js";
import type { Fields, Kind, Live } from "./kind.js";

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

function normalize(fields: Fields): Fields {
  const out = { ...fields };
  for (const f of ["color", "font"])
    if (typeof out[f] === "string") out[f] = (out[f] as string).toLowerCase();
  for (const f of ["starts_at", "ends_at"])
    if (out[f] instanceof Date) out[f] = (out[f] as Date).toISOString();
  return out;
}

const toLive = (m: ApiMessage): Live => ({ key: m.message, id: m.id, fields: normalize(pick(m, FIELDS)) });

export const broadcastMessageKind: Kind = {
  collection: "broadcast_messages",
  segment: "broadcast_message",
  parents: ["instance"],
  updateMode: "update",

  async read(ctx) {
    return (
      await ctx.api.list<ApiMessage>("/broadcast_messages", { shape: { id: "integer", message: "string" } })
    ).map(toLive);
  },

  prepare: async (_ctx, _parent, fields) => normalize(fields),

  async create(ctx, _parent, desired, key) {
    return toLive(
      await ctx.api.post<ApiMessage>("/broadcast_messages", {
        body: { ...body(desired, FIELDS), message: key },
      }),
    );
  },

  async update(ctx, _parent, live, desired, changed) {
    return toLive(
      await ctx.api.put<ApiMessage>(apiPath`/broadcast_messages/${live.id!}`, {
        body: body(desired, changed),
      }),
    );
  },

  async remove(ctx, _parent, live) {
    await ctx.api.delete(apiPath`/broadcast_messages/${live.id!}`);
  },
};
