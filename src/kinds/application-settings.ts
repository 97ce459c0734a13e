/**
 * Instance application settings (administrator only): a singleton. Only the declared keys are compared. When a
 * changed setting requires partners (`spam_service_enabled` needs `spam_service_api_key`), they are sent along.
 * Write-only secrets are never read back and never compared; they are sent with every settings update and
 * whenever the settings are replaced (`--replace instance.application_settings`), which is how to rotate them.
 * A deprecated name is compared and sent under its replacement.
 */

import { apiPath } from "../api/index.js";
import { isSecret, Secret, shownText, textOf } from "../manifest/secret.js";
import { body, uncheckedFields } from "./common.js";
import { unchecked } from "./declare.js";
import type { FieldSpec } from "./fields.js";
import {
  FieldError,
  type Fields,
  type Kind,
  type KindContext,
  type KindProblem,
  type Live,
  type ReadOptions,
} from "./kind.js";
import { fieldSpecs } from "./schemas.js";

const KEY = "application_settings";

let specs: Map<string, FieldSpec> | undefined;
const settingSpecs = () => {
  specs ??= fieldSpecs("instance", KEY);
  return specs;
};

/** A list the platform answers for a setting the manifest writes as comma-separated text (searchengine_url) is read as that text. */
function listsAsText(raw: Record<string, unknown>): Record<string, unknown> {
  const out = { ...raw };
  for (const [name, value] of Object.entries(out)) {
    const spec = settingSpecs().get(name);
    if (Array.isArray(value) && spec && !spec.set) out[name] = value.join(",");
  }
  return out;
}

/**
 * The performance bar's group: the platform answers with its id (`performance_bar_allowed_group_id`) and takes its
 * path (`performance_bar_allowed_group_path`). The manifest names the path; plans compare ids and show paths.
 */
const BAR = "performance_bar_allowed_group_path";

function toLive(raw: Record<string, unknown>, options?: ReadOptions): Live {
  const fields = { ...listsAsText(raw), ...uncheckedFields(raw, options?.unchecked) };
  fields[BAR] = raw["performance_bar_allowed_group_id"] ?? null;
  return { key: KEY, id: KEY, fields, raw };
}

/** A group's full path from its id, for display and for the update the platform takes by path. */
async function groupPath(ctx: KindContext, id: unknown): Promise<string> {
  if (typeof id !== "number") return "";
  return (
    await ctx.api.get<{ full_path: string }>(apiPath`/groups/${id}`, {
      query: { with_projects: false },
      shape: { full_path: "string" },
    })
  ).full_path;
}

/** Renames deprecated settings to their replacement, unless the replacement is also declared. */
function renameDeprecated(fields: Fields): Fields {
  const out: Fields = {};
  for (const [name, value] of Object.entries(fields)) {
    const replacement = settingSpecs().get(name)?.deprecatedBy;
    if (replacement && !(replacement in fields)) out[replacement] = value;
    else if (!replacement) out[name] = value;
  }
  return out;
}

export const applicationSettingsKind: Kind = {
  collection: KEY,
  segment: KEY,
  parents: ["instance"],
  singleton: true,
  updateMode: "update",
  identity: () => KEY,

  async read(ctx, _parent, _wanted, options) {
    return [
      toLive(await ctx.api.get<Record<string, unknown>>("/application/settings", { shape: {} }), options),
    ];
  },

  async prepare(ctx, _parent, fields) {
    const out = renameDeprecated(fields);
    // A group path may come from a secret: looked up by its value, shown masked.
    const bar = textOf(out[BAR]);
    if (bar !== undefined) {
      const id = bar.trim() === "" ? null : await ctx.resolve.groupId(bar);
      if (id === undefined)
        throw new FieldError(
          BAR,
          `group ${JSON.stringify(shownText(out[BAR]))} does not exist (or is not visible to this token's user)`,
        );
      out[BAR] = id;
    }
    // The platform takes list settings as comma-separated strings too, and always answers with a list. A list
    // from a secret becomes a list of secrets, each compared by its value.
    for (const [name, value] of Object.entries(out)) {
      const text = textOf(value);
      if (text !== undefined && settingSpecs().get(name)?.set) {
        out[name] = text
          .split(",")
          .map((v) => v.trim())
          .filter((v) => v !== "")
          .map((v) => (isSecret(value) ? new Secret(v, value.origin) : v));
      }
    }
    return out;
  },

  check(_ctx, _parent, desired) {
    const problems: KindProblem[] = [];
    for (const [name, value] of Object.entries(desired)) {
      if (value !== true) continue;
      for (const partner of settingSpecs().get(name)?.requires ?? []) {
        if (!(partner in desired)) {
          problems.push({
            field: name,
            message: `${name}: true requires ${partner}, which the manifest does not set: declare it alongside`,
          });
        }
      }
    }
    return problems;
  },

  async export(ctx, _parent, live) {
    const fields: Fields = { ...live.fields };
    if (fields[BAR] === null) delete fields[BAR];
    else fields[BAR] = await groupPath(ctx, fields[BAR]);
    return fields;
  },

  async display(ctx, field, value) {
    return field === BAR ? await groupPath(ctx, value) : value;
  },

  async update(ctx, _parent, _live, desired, changed) {
    const send = new Set(changed);
    for (const name of changed)
      for (const partner of settingSpecs().get(name)?.requires ?? []) send.add(partner);
    for (const [name, spec] of settingSpecs()) if (spec.writeOnly && name in desired) send.add(name);
    const payload = body(desired, send);
    if (BAR in payload) payload[BAR] = await groupPath(ctx, payload[BAR]);
    const updated = await ctx.api.put<Record<string, unknown>>("/application/settings", {
      body: payload,
      shape: {},
    });
    return toLive(updated, unchecked(desired));
  },
};
