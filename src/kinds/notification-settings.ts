/**
 * Notification settings of the token's user: the global settings (parent instance: level, notification_email and
 * event switches) and the settings per group and per project (level and, with level `custom`, each event switch).
 * Singletons: read with one GET, changed with one PUT of the changed fields. The platform shows the event switches
 * only while the level is `custom`, so switches declared with another level are a plan error.
 */

import { objectOf, type Shape } from "../api/index.js";
import { shownText, textOf } from "../manifest/secret.js";
import { ownerPath } from "./common.js";
import type { Fields, Kind, KindProblem, Live, Parent } from "./kind.js";
import { fieldSpecs } from "./schemas.js";

const KEY = "notification_settings";

/** The event switches: every field the schema declares besides the level (one declaration per field). */
const EVENTS: ReadonlySet<string> = new Set(
  [...fieldSpecs("projects", KEY).keys()].filter((name) => name !== "level" && name !== "notification_email"),
);

/** The level, the address, and each event switch the schema declares (on or off). */
const SHAPE: Shape = {
  level: "string",
  notification_email: "string?",
  events: objectOf(Object.fromEntries([...EVENTS].map((name) => [name, "boolean?"])), true),
};

interface ApiSettings {
  level: string;
  notification_email?: string | null;
  events?: Record<string, boolean>;
}

/** The API's shape in manifest terms: events flattened next to the level. */
function toLive(s: ApiSettings): Live {
  const fields: Fields = { level: s.level };
  if (s.notification_email !== undefined) fields["notification_email"] = s.notification_email;
  for (const [name, on] of Object.entries(s.events ?? {})) if (EVENTS.has(name)) fields[name] = on;
  return { key: KEY, id: KEY, fields };
}

function path(parent: Parent): string {
  return parent.collection === "instance"
    ? "/notification_settings"
    : `${ownerPath(parent)}/notification_settings`;
}

function check(desired: Fields, live: Live | undefined): KindProblem[] {
  const wanted = desired["level"];
  const level = textOf(wanted) ?? (live?.fields["level"] as string | undefined);
  const switches = Object.keys(desired).filter((name) => EVENTS.has(name));
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

    async read(ctx, parent) {
      return [
        toLive(
          await ctx.api.get<ApiSettings>(path(parent), {
            shape: SHAPE,
          }),
        ),
      ];
    },

    check: (_ctx, _parent, desired, live) => check(desired, live),

    async update(ctx, parent, _live, desired, changed) {
      const payload: Record<string, unknown> = {};
      for (const name of changed) payload[name] = desired[name];
      // Switching to custom: send the declared switches along, so the events land with the level.
      if (changed.includes("level"))
        for (const name of Object.keys(desired)) if (EVENTS.has(name)) payload[name] = desired[name];
      return toLive(await ctx.api.put<ApiSettings>(path(parent), { body: payload, shape: SHAPE }));
    },
  };
}

/** The token user's global notification settings. */
export const instanceNotificationSettingsKind: Kind = kindFor(["instance"]);
/** The token user's notification settings for a group or project. */
export const notificationSettingsKind: Kind = kindFor(["groups", "projects"]);
