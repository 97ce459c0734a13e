/**
 * Pipeline triggers of a project, identified by description. The token is created by the platform: it is never
 * read into the plan, compared or printed. When forgeform creates a trigger and the manifest names a `token_file`,
 * the token is written there (mode 0600) and nowhere else; without it the token is not recorded, and the plan says
 * how to get it (the platform shows it to the trigger's owner).
 *
 * forgeform writes a token only where it knows it is not destroying anything: to a path where nothing exists yet,
 * or over a regular file that holds exactly this trigger's current token as the platform shows it to the token's
 * user (the token forgeform wrote when it created the trigger, now rotated by `--replace`). Anything else at that
 * path (another token, a symbolic link, a stale token of a trigger deleted elsewhere) is a plan error, checked
 * again just before the trigger is created. The path's directory is the real one, inside the manifest root (see
 * resolveManifestPath); if it has become a symbolic link since, nothing is written.
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { apiPath } from "../api/index.js";
import { existingAncestor, writeFileSafely } from "../files/write.js";
import { ownerPath } from "./common.js";
import type { Kind, KindContext, KindProblem, Live, Parent } from "./kind.js";

interface ApiTrigger {
  id: number;
  description: string;
  token?: string;
}

const SHAPE = { id: "integer", description: "string", token: "string?" } as const;

/** The largest token file read back for comparison: a token is at most a few dozen characters. */
const MAX_TOKEN_FILE_BYTES = 1024;

const digest = (text: string) => createHash("sha256").update(text).digest("hex");

/**
 * Per run (per context): the digest of each trigger's token as the platform last showed it, by project and
 * description. Only the digest is kept, and only to recognise a token file that holds that token.
 */
const shownTokens = new WeakMap<KindContext, Map<string, string>>();
const tokenKey = (parent: Parent, description: string) => `${parent.ref}\u0000${description}`;

function remember(ctx: KindContext, parent: Parent, triggers: ApiTrigger[]): void {
  const map = shownTokens.get(ctx) ?? new Map<string, string>();
  shownTokens.set(ctx, map);
  for (const t of triggers) {
    if (typeof t.token === "string") map.set(tokenKey(parent, t.description), digest(t.token));
  }
}

/**
 * Why forgeform may not write a token to `target`, or undefined when it may: nothing is there, or a regular file
 * holding this trigger's current token (`known`, the digest of the token the platform showed).
 */
function refusal(target: string, known: string | undefined): string | undefined {
  // A folder that does not exist yet (a git-ignored secrets/ on a fresh clone) is created, 0700, when the token is
  // written: what exists of the path must be real.
  const existing = existingAncestor(dirname(target));
  const realDir = (() => {
    try {
      return realpathSync(existing);
    } catch {
      return undefined;
    }
  })();
  if (realDir !== existing) {
    return `token_file ${target}: its directory is now a symbolic link (to ${realDir}); forgeform does not write through links`;
  }
  if (existing !== dirname(target)) return undefined;
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(target);
  } catch {
    return undefined;
  }
  const why = stat.isSymbolicLink()
    ? "is a symbolic link"
    : !stat.isFile()
      ? "is not a regular file"
      : known === undefined
        ? "already exists"
        : stat.size > MAX_TOKEN_FILE_BYTES || digest(readFileSync(target, "utf8").trim()) !== known
          ? "holds something other than this trigger's current token"
          : undefined;
  if (why === undefined) return undefined;
  return `token_file ${target} ${why}: forgeform writes a trigger token only to a new file or over that same trigger's current token (the platform shows it in full to the trigger's owner), never over anything else; remove the file or name another one`;
}

/** Writes the token readable by its owner only (see files/write.ts). */
function writeToken(target: string, token: string): void {
  writeFileSafely(target, `${token}\n`, { mode: 0o600, directoryMode: 0o700 });
}

/** Only the description: the token stays out of every Live object. */
const toLive = (t: ApiTrigger): Live => ({
  key: t.description,
  id: t.id,
  fields: { description: t.description },
});

const problems = (message: string | undefined): KindProblem[] =>
  message === undefined ? [] : [{ field: "token_file", message }];

export const triggerKind: Kind = {
  collection: "triggers",
  segment: "trigger",
  parents: ["projects"],
  updateMode: "update",

  async read(ctx, parent) {
    const triggers = await ctx.api.list<ApiTrigger>(`${ownerPath(parent)}/triggers`, {
      shape: SHAPE,
    });
    remember(ctx, parent, triggers);
    return triggers.map(toLive);
  },

  check(ctx, parent, desired, live) {
    // An existing trigger may be replaced (--replace): its token_file must be free or hold its current token.
    const file = desired["token_file"];
    if (typeof file !== "string" || !live) return [];
    return problems(refusal(file, shownTokens.get(ctx)?.get(tokenKey(parent, live.key))));
  },

  async createReason(_ctx, parent, desired) {
    const file = desired["token_file"];
    if (typeof file === "string")
      return `the new token is written to ${file} (mode 0600) and shown nowhere else`;
    return `the new token is not recorded (no token_file): the trigger's owner sees it in ${parent.key} under Settings > CI/CD > Pipeline triggers`;
  },

  async checkCreate(_ctx, _parent, _key, desired) {
    const file = desired["token_file"];
    return typeof file === "string" ? problems(refusal(file, undefined)) : [];
  },

  async create(ctx, parent, desired, key) {
    const file = desired["token_file"];
    const target = typeof file === "string" ? file : undefined;
    // Checked again just before the token exists. In a replace, the old trigger is gone by now: its token is the
    // one read when planning.
    const refused = target && refusal(target, shownTokens.get(ctx)?.get(tokenKey(parent, key)));
    if (refused) throw new Error(`not creating trigger ${JSON.stringify(key)}: ${refused}`);
    const created = await ctx.api.post<ApiTrigger>(`${ownerPath(parent)}/triggers`, {
      body: { description: key },
      shape: SHAPE,
    });
    if (target && created.token) {
      try {
        writeToken(target, created.token);
      } catch (error) {
        throw new Error(
          `trigger ${JSON.stringify(key)} was created, but its token could not be written: ${(error as Error).message}; the trigger's owner can read the token in the project's CI/CD settings`,
        );
      }
    }
    return toLive(created);
  },

  async update(ctx, parent, live, desired) {
    const updated = await ctx.api.put<ApiTrigger>(`${ownerPath(parent)}${apiPath`/triggers/${live.id!}`}`, {
      body: { description: desired["description"] },
      shape: SHAPE,
    });
    return toLive(updated);
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/triggers/${live.id!}`}`);
  },
};
