/**
 * Deploy tokens of projects and groups, identified by name. The platform has no update call (13.12), so a change is
 * a replacement: the token is deleted and a new one made, with a new token value. The token is in the create
 * answer only: written to `token_file` when the manifest names one (token-file.ts; only to a path where nothing
 * exists, since the platform never shows the token again and so an earlier one cannot be recognised), never
 * shown anywhere.
 *
 * 13.12 lists revoked and expired tokens with the others and says neither (`revoked` and `expired` came with 14.9):
 * a token is taken as expired when its `expires_at` is before today (UTC), as the platform judges it, and as
 * revoked only when a newer platform says so. Either is a plan warning on the declared token, and is said of an
 * unmanaged one. Where several live tokens have the declared name, the newest one that still works is the one
 * compared; the plan warns of the others.
 */
import { createBody } from "./common.js";
import { type ApiObject, restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, KindProblem, Live, Parent } from "./kind.js";
import {
  createWithTokenFile,
  type TokenWords,
  tokenFileClaim,
  tokenFileOf,
  tokenFileProblems,
  tokenFileRefusal,
} from "./token-file.js";

const WORDS: TokenWords = {
  token: "deploy token",
  over: " (the platform shows a deploy token once, when it is made, so an earlier token in a file cannot be told from anything else)",
  other: "already exists",
};

/** What a newer platform says of a token, and what its expiry date says. */
interface TokenState {
  revoked: boolean;
  expired: boolean;
}

/** Midnight UTC of today: the platform's `expires_at < Date.today`. */
function startOfToday(now = Date.now()): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
}

/** Whether an expiry instant (as written or as the platform gives it) is before today. */
function isPast(expiresAt: unknown): boolean {
  if (typeof expiresAt !== "string" || expiresAt.trim() === "") return false;
  const day = /^\d{4}-\d{2}-\d{2}$/.test(expiresAt.trim()) ? `${expiresAt.trim()}T00:00:00Z` : expiresAt;
  const ms = Date.parse(day);
  return !Number.isNaN(ms) && ms < startOfToday();
}

function stateOf(item: ApiObject): TokenState {
  return {
    revoked: item["revoked"] === true,
    expired: typeof item["expired"] === "boolean" ? item["expired"] : isPast(item["expires_at"]),
  };
}

/** How a token that no longer works is spoken of, or undefined. */
function unusable(live: Live): string | undefined {
  const state = live.raw as TokenState | undefined;
  if (state?.revoked) return "revoked on the platform";
  if (state?.expired) {
    const at = live.fields["expires_at"];
    return typeof at === "string" ? `expired (expires_at ${at.slice(0, 10)})` : "expired";
  }
  return undefined;
}

/**
 * Per run (per context): how many live tokens have each name, by owner, where there are several (one is compared,
 * the plan warns of the rest).
 */
const duplicates = new WeakMap<KindContext, Map<string, number>>();
const nameKey = (parent: Parent, name: string) => `${parent.collection}\u0000${parent.ref}\u0000${name}`;

/** Warnings on a declared token: one that no longer works, one made already expired, namesakes. */
function warnings(ctx: KindContext, parent: Parent, desired: Fields, live: Live | undefined): KindProblem[] {
  const out: KindProblem[] = [];
  const warn = (message: string, field?: string) =>
    out.push({ message, severity: "warning", ...(field ? { field } : {}) });
  const why = live && unusable(live);
  if (why) {
    warn(
      `this deploy token is ${why}: it no longer works. A later expires_at replaces it with a new token, and so does \`forgeform apply --replace '${parent.address}.deploy_token[${JSON.stringify(live!.key)}]'\``,
    );
  }
  const wanted = desired["expires_at"];
  const same = live && Date.parse(String(live.fields["expires_at"])) === Date.parse(String(wanted));
  if (isPast(wanted) && !same && !why) {
    warn("expires_at is before today: a token made now is expired at once", "expires_at");
  }
  const namesakes = live && duplicates.get(ctx)?.get(nameKey(parent, live.key));
  if (namesakes) {
    warn(
      `${namesakes} live deploy tokens are named ${JSON.stringify(live!.key)}: forgeform manages the newest that works (id ${live!.id}) and leaves the others alone; delete them on the platform or rename them`,
    );
  }
  return out;
}

/** What the plan says of a new token: where it is written, or that it is not recorded. */
function whereTheTokenGoes(desired: Fields): string {
  const file = tokenFileOf(desired);
  if (file !== undefined) return `the new token is written to ${file} (mode 0600) and shown nowhere else`;
  return "the new token is not recorded (no token_file): the platform shows a deploy token once, when it is made, and forgeform shows it nowhere";
}

export const deployTokenKind = restCollection(
  {
    collection: "deploy_tokens",
    segment: "deploy_token",
    parents: ["projects", "groups"],
    path: "deploy_tokens",
    noUpdate: "deploy tokens have no update call in the API: deleted and created again, with a new token",
    // 14.9 and later say whether a token is revoked or expired; 13.12 says neither.
    shape: { revoked: "boolean?", expired: "boolean?" },
    live(_parent, item, live) {
      const state = stateOf(item);
      const withState: Live = { ...live, raw: state };
      const why = unusable(withState);
      return why ? { ...withState, note: `this token is ${why}` } : withState;
    },
  },
  (rest) => ({
    async read(ctx, parent, _wanted, options) {
      const items = await rest.list(ctx, parent);
      // The last of a name is the one matched: the newest that works.
      const works = (item: ApiObject) => {
        const s = stateOf(item);
        return !s.revoked && !s.expired;
      };
      const ordered = [...items].sort(
        (a, b) => Number(works(a)) - Number(works(b)) || Number(a["id"]) - Number(b["id"]),
      );
      const counts = new Map<string, number>();
      for (const item of items) counts.set(String(item["name"]), (counts.get(String(item["name"])) ?? 0) + 1);
      const map = duplicates.get(ctx) ?? new Map<string, number>();
      duplicates.set(ctx, map);
      for (const [name, n] of counts) if (n > 1) map.set(nameKey(parent, name), n);
      return ordered.map((item) => rest.toLive(parent, item, options));
    },

    check(ctx, parent, desired, live) {
      return warnings(ctx, parent, desired, live);
    },

    localFile: tokenFileClaim,

    async checkCreate(_ctx, _parent, _key, desired) {
      const file = tokenFileOf(desired);
      return file === undefined ? [] : tokenFileProblems(tokenFileRefusal(file, undefined, WORDS));
    },

    async checkReplace(_ctx, _parent, _live, desired) {
      const file = tokenFileOf(desired);
      const refusal = file === undefined ? undefined : tokenFileRefusal(file, undefined, WORDS);
      return tokenFileProblems(
        refusal &&
          `${refusal} (this replacement makes a new token; the one in the file stops working when the old deploy token is deleted)`,
      );
    },

    createReason: async (_ctx, _parent, desired) => whereTheTokenGoes(desired),
    replaceNote: async (_ctx, _parent, desired) => whereTheTokenGoes(desired),

    async create(ctx, parent, desired, key) {
      const file = tokenFileOf(desired);
      const created = await createWithTokenFile(
        file,
        () => tokenFileRefusal(file!, undefined, WORDS),
        `deploy token ${JSON.stringify(key)}`,
        "the platform never shows a deploy token again: replace it (--replace) to make a new one",
        () => rest.post(ctx, parent, { ...createBody(desired, rest.schema().sent), name: key }),
      );
      return rest.toLive(parent, created, unchecked(desired));
    },

    async export(_ctx, _parent, live) {
      const fields = { ...live.fields };
      // The platform's own name for a token made without one.
      if (fields["username"] === `gitlab+deploy-token-${live.id}`) delete fields["username"];
      // An expiry at midnight UTC reads as the day it is.
      const at = fields["expires_at"];
      if (typeof at === "string" && /^\d{4}-\d{2}-\d{2}T00:00:00(\.0+)?(Z|\+00:?00)$/.test(at))
        fields["expires_at"] = at.slice(0, 10);
      return fields;
    },
  }),
);
