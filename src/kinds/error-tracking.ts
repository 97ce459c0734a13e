/**
 * Error-tracking settings of a project (maintainers only): a singleton whose one managed field is `active`,
 * switched with PATCH. The settings must have been configured on the platform first; forgeform does not create them.
 */
import { body, orNotFound, ownerPath, pick, uncheckedFields } from "./common.js";
import { type ApiObject, lazySchema, unchecked } from "./declare.js";
import type { Kind, Live, ReadOptions } from "./kind.js";

const KEY = "error_tracking";
const schema = lazySchema("projects", KEY);
/** The platform always says whether the settings are active. */
const shape = () => schema().shape({ active: "boolean" });

const toLive = (s: ApiObject, options?: ReadOptions): Live => ({
  key: KEY,
  id: KEY,
  fields: { ...pick(s, schema().read), ...uncheckedFields(s, options?.unchecked) },
});

export const errorTrackingKind: Kind = {
  collection: KEY,
  segment: KEY,
  parents: ["projects"],
  singleton: true,
  updateMode: "update",
  identity: () => KEY,

  async read(ctx, parent, _wanted, options) {
    // 404 when error tracking has never been configured for the project: there is nothing to switch.
    const settings = await orNotFound(
      ctx.api.get<ApiObject>(`${ownerPath(parent)}/error_tracking/settings`, { shape: shape() }),
    );
    return settings ? [toLive(settings, options)] : [];
  },

  async checkCreate(_ctx, parent) {
    return [
      {
        message: `error tracking is not configured for ${parent.key}: configure it in the project's error-tracking settings first; forgeform only switches configured settings on and off`,
      },
    ];
  },

  async update(ctx, parent, _live, desired, changed) {
    const updated = await ctx.api.patch<ApiObject>(`${ownerPath(parent)}/error_tracking/settings`, {
      body: body(desired, changed),
      shape: shape(),
    });
    return toLive(updated, unchecked(desired));
  },
};
