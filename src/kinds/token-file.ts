/**
 * Tokens the platform makes and shows once (a pipeline trigger's, a deploy token's), written to the file a manifest
 * names (`token_file`) and nowhere else: never into the plan, the output or a log.
 *
 * forgeform writes a token only where it knows it is not destroying anything: to a path where nothing exists yet,
 * or over a regular file that holds exactly this object's current token as the platform shows it (a trigger's
 * token, which the platform shows its owner: the token forgeform wrote when it created the trigger, now rotated by
 * `--replace`). Anything else at that path (another token, a symbolic link, a stale token of an object deleted
 * elsewhere) is refused: a plan error, checked again just before the object is created. The path's directory is the
 * real one, inside the manifest root (see resolveManifestPath); if it has become a symbolic link since, nothing is
 * written. The file is written mode 0600, its missing folders 0700 (files/write.ts).
 */
import { createHash } from "node:crypto";
import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { dirname } from "node:path";
import { existingAncestor, writeFileSafely } from "../files/write.js";
import type { ApiObject } from "./declare.js";
import type { KindProblem } from "./kind.js";

/** The largest token file read back for comparison: a token is at most a few dozen characters. */
const MAX_TOKEN_FILE_BYTES = 1024;

/** The SHA-256 of a token: all that is kept of one the platform showed, to recognise a file that holds it. */
export const tokenDigest = (text: string): string => createHash("sha256").update(text).digest("hex");

/** How a kind's tokens are spoken of in refusals. */
export interface TokenWords {
  /** `trigger token`, `deploy token`. */
  token: string;
  /** Which existing file may be written over: `or over that same trigger's current token (...)`, or "". */
  over: string;
  /** Why a file at the path is not that token: `holds something other than this trigger's current token`. */
  other: string;
}

/**
 * Why forgeform may not write a token to `target`, or undefined when it may: nothing is there, or a regular file
 * holding the object's current token (`known`, the digest of the token the platform showed; undefined when it
 * shows none).
 */
export function tokenFileRefusal(
  target: string,
  known: string | undefined,
  words: TokenWords,
): string | undefined {
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
        : stat.size > MAX_TOKEN_FILE_BYTES || tokenDigest(readFileSync(target, "utf8").trim()) !== known
          ? words.other
          : undefined;
  if (why === undefined) return undefined;
  return `token_file ${target} ${why}: forgeform writes a ${words.token} only to a new file${words.over}, never over anything else; remove the file or name another one`;
}

/** A refusal as the plan's problem at the `token_file` field. */
export function tokenFileProblems(message: string | undefined): KindProblem[] {
  return message === undefined ? [] : [{ field: "token_file", message }];
}

/**
 * Creates an object whose answer holds a new token (`post`), and writes that token to `target` when one is named.
 * The refusal rules are checked again just before the token exists (`refused`); a token that cannot be written
 * after the object was made is an error that says so (`lost`: how to get a token now), never a token shown.
 */
export async function createWithTokenFile(
  target: string | undefined,
  refused: () => string | undefined,
  what: string,
  lost: string,
  post: () => Promise<ApiObject>,
  /** Nothing may be at the target when the token is written (no current token of the object's may be there). */
  exclusive = true,
): Promise<ApiObject> {
  const refusal = target === undefined ? undefined : refused();
  if (refusal) throw new Error(`not creating ${what}: ${refusal}`);
  const created = await post();
  if (target !== undefined && typeof created["token"] === "string") {
    try {
      writeFileSafely(target, `${created["token"]}\n`, { mode: 0o600, directoryMode: 0o700, exclusive });
    } catch (error) {
      throw new Error(
        `${what} was created, but its token could not be written: ${(error as Error).message}; ${lost}`,
      );
    }
  }
  return created;
}

/** The `token_file` of an object a plan creates, as Kind.localFile says it. */
export function tokenFileClaim(
  desired: Record<string, unknown>,
): { field: string; path: string } | undefined {
  const path = tokenFileOf(desired);
  return path === undefined ? undefined : { field: "token_file", path };
}

/** The `token_file` a manifest entry names, if any (already resolved inside the manifest root). */
export function tokenFileOf(desired: Record<string, unknown>): string | undefined {
  const file = desired["token_file"];
  return typeof file === "string" ? file : undefined;
}
