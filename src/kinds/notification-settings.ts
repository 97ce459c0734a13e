/**
 * Notification settings of the token's user: the global settings (parent instance: level, notification_email and
 * event switches) and the settings per group and per project (level and, with level `custom`, each event switch).
 * Singletons: read with one GET, changed with one PUT of the changed fields. The platform shows the event switches
 * only while the level is `custom`, so switches declared with another level are a plan error.
 */

import { objectOf, type Shape } from "../api/index.js";
import { shownText, textOf } from "../manifest/secret.js";
import { body, ownerPath, uncheckedFields } from "./common.js";
import { type ApiObject, lazySchema, unchecked } from "./declare.js";
import type { Fields, Kind, KindProblem, Live, Parent, ReadOptions } from "./kind.js";

const KEY = "notification_settings";
const groupOrProject = lazySchema("projects", KEY);
const global = lazySchema("instance", KEY);

/** The event switches: every field the schema declares besides the level (one declaration per field). */
let events: ReadonlySet<string> | undefined;
const EVENTS = (): ReadonlySet<string> => {
  events ??= new Set(groupOrProject().read.filter((name) => name !== "level"));
  return events;
};

/**
 * The platform's answer: the level (always there), the address (global settings only), and each event switch the
 * schema declares, nested under `events`.
 */
let shape: Shape | undefined;
const SHAPE = (): Shape => {
  const switches = groupOrProject().shape();
  shape ??= {
    level: "string",
    notification_email: global().shape()["notification_email"]!,
    events: objectOf(Object.fromEntries([...EVENTS()].map((name) => [name, switches[name]!])), true),
  };
  return shape;
};

/** The API's shape in manifest terms: events flattened next to the level. */
function toLive(s: ApiObject, options?: ReadOptions): Live {
  const fields: Fields = { level: s["level"] };
  if (s["notification_email"] !== undefined) fields["notification_email"] = s["notification_email"];
  for (const [name, on] of Object.entries((s["events"] as Record<string, boolean> | undefined) ?? {}))
    if (EVENTS().has(name)) fields[name] = on;
  return { key: KEY, id: KEY, fields: { ...fields, ...uncheckedFields(s, options?.unchecked) } };
}

function path(parent: Parent): string {
  return parent.collection === "instance"
    ? "/notification_settings"
    : `${ownerPath(parent)}/notification_settings`;
}

function check(desired: Fields, live: Live | undefined): KindProblem[] {
  const wanted = desired["level"];
  const level = textOf(wanted) ?? (live?.fields["level"] as string | undefined);
  const switches = Object.keys(desired).filter((name) => EVENTS().has(name));
  if (level === "custom" || switches.length === 0) return [];
  return [
    {
      field: switches[0],
      message: `${switches.join(", ")}: event switches apply only with level "custom" (the level is "${wanted === undefined ? (level ?? "unset") : shownText(wanted)}"): set level: custom or remove them`,
    },
  ];
}

function kindFor(parents: readonly string[]): Kind {
  return {
    collection: KEY,
    segment: KEY,
    parents,
    singleton: true,
    updateMode: "update",
    identity: () => KEY,

    async read(ctx, parent, _wanted, options) {
      return [toLive(await ctx.api.get<ApiObject>(path(parent), { shape: SHAPE() }), options)];
    },

    check: (_ctx, _parent, desired, live) => check(desired, live),

    async update(ctx, parent, _live, desired, changed) {
      const payload = body(desired, changed);
      // Switching to custom: send the declared switches along, so the events land with the level.
      if (changed.includes("level"))
        for (const name of Object.keys(desired)) if (EVENTS().has(name)) payload[name] = desired[name];
      return toLive(
        await ctx.api.put<ApiObject>(path(parent), { body: payload, shape: SHAPE() }),
        unchecked(desired),
      );
    },
  };
}

/** The token user's global notification settings. */
export const instanceNotificationSettingsKind: Kind = kindFor(["instance"]);
/** The token user's notification settings for a group or project. */
export const notificationSettingsKind: Kind = kindFor(["groups", "projects"]);
