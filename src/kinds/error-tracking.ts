/**
 * Error-tracking settings of a project (maintainers only): a singleton whose one managed field is `active`,
 * switched with PATCH. The settings must have been configured on the platform first; forgeform does not create them.
 */
import { orNotFound, ownerPath } from "./common.js";
import type { Kind, Live } from "./kind.js";

const KEY = "error_tracking";

interface ApiSettings extends Record<string, unknown> {
  active: boolean;
}

const SHAPE = { active: "boolean" } as const;

const toLive = (s: ApiSettings): Live => ({ key: KEY, id: KEY, fields: { active: s.active } });

export const errorTrackingKind: Kind = {
  collection: KEY,
  segment: KEY,
  parents: ["projects"],
  singleton: true,
  updateMode: "update",
  identity: () => KEY,

  async read(ctx, parent) {
    // 404 when error tracking has never been configured for the project: there is nothing to switch.
    const settings = await orNotFound(
      ctx.api.get<ApiSettings>(`${ownerPath(parent)}/error_tracking/settings`, {
        shape: SHAPE,
      }),
    );
    return settings ? [toLive(settings)] : [];
  },

  async checkCreate(_ctx, parent) {
    return [
      {
        message: `error tracking is not configured for ${parent.key}: configure it in the project's error-tracking settings first; forgeform only switches configured settings on and off`,
      },
    ];
  },

  async update(ctx, parent, _live, desired) {
    const updated = await ctx.api.patch<ApiSettings>(`${ownerPath(parent)}/error_tracking/settings`, {
      body: { active: desired["active"] },
      shape: SHAPE,
    });
    return toLive(updated);
  },
};
