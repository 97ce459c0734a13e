/**
 * System hooks (administrator only), identified by URL. The interface has no update call, so a change is a
 * replacement. The secret token is write-only: sent on create, never read back, never compared; rotate it with
 * `--replace 'instance.system_hook["URL"]'`. `GET /hooks/:id` fires the hook, so it is never used to read one.
 */
import { apiPath, type Shape } from "../api/index.js";
import { body, pick } from "./common.js";
import type { Kind, Live } from "./kind.js";

const FIELDS = [
  "url",
  "push_events",
  "tag_push_events",
  "merge_requests_events",
  "repository_update_events",
  "enable_ssl_verification",
] as const;

interface ApiHook extends Record<string, unknown> {
  id: number;
  url: string;
}

const SHAPE: Shape = {
  id: "integer",
  url: "string",
  push_events: "boolean?",
  tag_push_events: "boolean?",
  merge_requests_events: "boolean?",
  repository_update_events: "boolean?",
  enable_ssl_verification: "boolean?",
};

const toLive = (h: ApiHook): Live => ({ key: h.url, id: h.id, fields: pick(h, FIELDS) });

export const systemHookKind: Kind = {
  collection: "system_hooks",
  segment: "system_hook",
  parents: ["instance"],
  updateMode: "replace",
  replaceReason: "system hooks have no update call in the API: deleted and created again",

  async read(ctx) {
    return (await ctx.api.list<ApiHook>("/hooks", { shape: SHAPE })).map(toLive);
  },

  async create(ctx, _parent, desired, key) {
    const created = await ctx.api.post<ApiHook>("/hooks", {
      body: { ...body(desired), url: key },
      shape: SHAPE,
    });
    return toLive(created);
  },

  async remove(ctx, _parent, live) {
    await ctx.api.delete(apiPath`/hooks/${live.id!}`);
  },
};
