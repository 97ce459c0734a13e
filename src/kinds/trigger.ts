/**
 * Pipeline triggers of a project, identified by description. The token is created by the platform: it is never
 * read into the plan, compared or printed. When forgeform creates a trigger and the manifest names a `token_file`,
 * the token is written there (mode 0600) and nowhere else (token-file.ts: where it may be written); without it the
 * token is not recorded, and the plan says how to get it (the platform shows it to the trigger's owner). A file
 * may be written over when it holds this trigger's current token as the platform shows it to the token's user:
 * `--replace` rotates the token in place.
 */
import { createBody } from "./common.js";
import { type ApiObject, restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, Parent } from "./kind.js";
import {
  createWithTokenFile,
  type TokenWords,
  tokenDigest,
  tokenFileClaim,
  tokenFileOf,
  tokenFileProblems,
  tokenFileRefusal,
} from "./token-file.js";

const WORDS: TokenWords = {
  token: "trigger token",
  over: " or over that same trigger's current token (the platform shows it in full to the trigger's owner)",
  other: "holds something other than this trigger's current token",
};

/**
 * Per run (per context): the digest of each trigger's token as the platform last showed it, by project and
 * description. Only the digest is kept, and only to recognise a token file that holds that token.
 */
const shownTokens = new WeakMap<KindContext, Map<string, string>>();
const tokenKey = (parent: Parent, description: string) => `${parent.ref}\u0000${description}`;

function remember(ctx: KindContext, parent: Parent, triggers: ApiObject[]): void {
  const map = shownTokens.get(ctx) ?? new Map<string, string>();
  shownTokens.set(ctx, map);
  for (const t of triggers) {
    if (typeof t["token"] === "string")
      map.set(tokenKey(parent, String(t["description"])), tokenDigest(t["token"]));
  }
}

const known = (ctx: KindContext, parent: Parent, description: string) =>
  shownTokens.get(ctx)?.get(tokenKey(parent, description));

/** What the plan says of a new token: where it is written, or where its owner finds it. */
function whereTheTokenGoes(parent: Parent, desired: Fields): string {
  const file = tokenFileOf(desired);
  if (file !== undefined) return `the new token is written to ${file} (mode 0600) and shown nowhere else`;
  return `the new token is not recorded (no token_file): the trigger's owner sees it in ${parent.key} under Settings > CI/CD > Pipeline triggers`;
}

export const triggerKind = restCollection(
  {
    collection: "triggers",
    segment: "trigger",
    parents: ["projects"],
    path: "triggers",
    // The token is read only to recognise a token file that holds it (see `remember`); it stays out of every Live
    // object, whose fields are the schema's: the description.
    shape: { token: "string?" },
  },
  (rest) => ({
    async read(ctx, parent, _wanted, options) {
      const triggers = await rest.list(ctx, parent);
      remember(ctx, parent, triggers);
      return triggers.map((t) => rest.toLive(parent, t, options));
    },

    check(ctx, parent, desired, live) {
      // An existing trigger may be replaced (--replace): its token_file must be free or hold its current token.
      const file = tokenFileOf(desired);
      if (file === undefined || !live) return [];
      return tokenFileProblems(tokenFileRefusal(file, known(ctx, parent, live.key), WORDS));
    },

    createReason: async (_ctx, parent, desired) => whereTheTokenGoes(parent, desired),
    replaceNote: async (_ctx, parent, desired) => whereTheTokenGoes(parent, desired),

    localFile: tokenFileClaim,

    async checkCreate(_ctx, _parent, _key, desired) {
      const file = tokenFileOf(desired);
      return file === undefined ? [] : tokenFileProblems(tokenFileRefusal(file, undefined, WORDS));
    },

    async create(ctx, parent, desired, key) {
      // In a replace, the old trigger is gone by now: its token is the one read when planning.
      const created = await createWithTokenFile(
        tokenFileOf(desired),
        () => tokenFileRefusal(tokenFileOf(desired)!, known(ctx, parent, key), WORDS),
        `trigger ${JSON.stringify(key)}`,
        "the trigger's owner can read the token in the project's CI/CD settings",
        () => rest.post(ctx, parent, { ...createBody(desired, rest.schema().sent), description: key }),
        // Over the file only where it holds this trigger's current token (a replacement).
        known(ctx, parent, key) === undefined,
      );
      return rest.toLive(parent, created, unchecked(desired));
    },
  }),
);
