/**
 * Users and groups named in manifests: the token's own user, and what a plan says of a name the platform does not
 * know (the closest names it does know, found with a search or a listing made only then).
 */
import { listOf } from "../api/index.js";
import { didYouMean } from "../manifest/diagnostics.js";
import { listSubgroups } from "./group.js";
import type { KindContext } from "./kind.js";

/** The token's user's username, asked once per run. */
export function currentUsername(ctx: KindContext): Promise<string> {
  let p = ctx.memo.get("user:current") as Promise<string> | undefined;
  if (!p) {
    p = ctx.api.get<{ username: string }>("/user", { shape: { username: "string" } }).then((u) => u.username);
    ctx.memo.set("user:current", p);
  }
  return p;
}

/** Text for a search: the platform matches a part of 3 characters or more. */
const fragments = (name: string): string[] =>
  name.length <= 3 ? [name] : [...new Set([name.slice(0, 3), name.slice(-3)])];

/**
 * The closest of the names a search of `path` finds (`field` of each answer), searching for the name's first and
 * last characters: a misspelling keeps one end or the other. Only read when a name is not found.
 */
async function nearest(
  ctx: KindContext,
  name: string,
  path: string,
  field: string,
  query: Record<string, boolean> = {},
): Promise<string | undefined> {
  const found = await Promise.all(
    fragments(name).map((search) =>
      ctx.api
        .get<Record<string, string>[]>(path, {
          query: { ...query, search, per_page: 100 },
          shape: listOf({ [field]: "string" }),
        })
        .catch(() => []),
    ),
  );
  return didYouMean(
    name,
    found.flat().map((x) => x[field]!),
  );
}

/**
 * What a plan says of a username the platform does not know (`shown` as the plan may show it), with the closest
 * username it does know. Only a name written in clear gets a suggestion: a secret's is never searched for.
 */
export async function unknownUser(ctx: KindContext, username: string, shown: string): Promise<string> {
  const near = username === shown ? await nearest(ctx, username, "/users", "username") : undefined;
  return `user ${JSON.stringify(shown)} does not exist (or is not visible to this token's user)${
    near ? `: did you mean "${near}"?` : ": check the username"
  }`;
}

/** The closest group path the platform knows: among the parent's subgroups, or the top-level groups found. */
async function nearGroup(ctx: KindContext, fullPath: string): Promise<string | undefined> {
  const slash = fullPath.lastIndexOf("/");
  if (slash > 0) {
    const siblings = await listSubgroups(ctx, fullPath.slice(0, slash)).catch(() => undefined);
    return didYouMean(
      fullPath,
      (siblings ?? []).map((g) => g.full_path),
    );
  }
  return nearest(ctx, fullPath, "/groups", "full_path", { top_level_only: true, all_available: true });
}

/** What a plan says of a group path the platform does not know, with the closest path it does know. */
export async function unknownGroup(ctx: KindContext, fullPath: string, shown: string): Promise<string> {
  const near = fullPath === shown ? await nearGroup(ctx, fullPath) : undefined;
  return `group ${JSON.stringify(shown)} does not exist (or is not visible to this token's user)${
    near ? `: did you mean "${near}"?` : ": check the full path"
  }`;
}
