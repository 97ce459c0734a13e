/**
 * Lists of who may act on a protected object: a protected environment's deployers, a protected branch's push, merge
 * and unprotect allowances. Each entry is exactly one of a role (`access_level`, by name or number), a user (a
 * username) or a group (a full path); the API names users and groups by id and roles by number. Such lists compare
 * as sets: each entry is kept as its one key, sorted.
 */
import { apiPath } from "../api/index.js";
import { accessLevelName, accessLevelNumber } from "../manifest/normalize.js";
import { isSecret, shownText, textOf } from "../manifest/secret.js";
import { orNotFound } from "./common.js";
import { addressOf, FieldError, type KindContext } from "./kind.js";
import { unknownGroup, unknownUser } from "./users.js";

export interface AccessEntry {
  access_level?: number | string | null;
  user_id?: number | null;
  group_id?: number | null;
  user?: string;
  group?: string;
}

const text = (e: AccessEntry) => JSON.stringify(e);

/**
 * Each entry as exactly one of its keys (the API sets the others to null), sorted so lists compare in any order. A
 * group still named by its path is one this plan creates (see resolveEntries).
 */
export function canonicalEntries(entries: readonly AccessEntry[]): AccessEntry[] {
  const out = entries.map((e): AccessEntry => {
    if (e.user_id != null) return { user_id: e.user_id };
    if (e.group_id != null) return { group_id: e.group_id };
    if (e.group !== undefined) return { group: e.group };
    return { access_level: accessLevelNumber(e.access_level) ?? e.access_level ?? undefined };
  });
  return out.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

/** Names of the user and group ids the manifests name (`user_id:5` -> `alice`), kept for showing plans. */
function namesOf(ctx: KindContext): Map<string, string> {
  let names = ctx.memo.get("access:names") as Map<string, string> | undefined;
  if (!names) {
    names = new Map();
    ctx.memo.set("access:names", names);
  }
  return names;
}

/**
 * How a user or group a manifest names is shown: as the platform spells it (`olga` for `OLGA`, whichever spelling
 * the manifests use, so a plan shows it alike whatever else it plans), masked when the name comes from a secret.
 */
function shownName(written: unknown, onPlatform: string): string {
  return isSecret(written) ? shownText(written) : onPlatform;
}

/**
 * Entries with users and groups by id, in the order written (canonicalEntries makes roles numbers and sorts them).
 * A user or group the platform does not know is an error at `field[i].user` (or `.group`) with the closest name it
 * knows, but for a group the manifests declare (`declared`, by lower-cased full path): the plan creates it, so the
 * entry keeps its path, resolved when the object is made (resolvePending) after the group's create (dependsOn). A
 * name may come from a secret: it is looked up by its value and shown masked.
 */
export async function resolveEntries(
  ctx: KindContext,
  field: string,
  entries: readonly AccessEntry[],
  declared?: ReadonlyMap<string, unknown>,
): Promise<AccessEntry[]> {
  return Promise.all(
    entries.map(async (e, i): Promise<AccessEntry> => {
      if (e.user !== undefined) {
        const name = textOf(e.user) ?? "";
        const user = await ctx.resolve.user(name);
        if (user === undefined)
          throw new FieldError(`${field}[${i}].user`, await unknownUser(ctx, name, shownText(e.user)));
        namesOf(ctx).set(`user_id:${user.id}`, shownName(e.user, user.username));
        return { user_id: user.id };
      }
      if (e.group !== undefined) {
        const path = textOf(e.group) ?? "";
        const group = await ctx.resolve.group(path);
        if (group === undefined && declared?.has(path.toLowerCase())) return { group: path };
        if (group === undefined)
          throw new FieldError(`${field}[${i}].group`, await unknownGroup(ctx, path, shownText(e.group)));
        namesOf(ctx).set(`group_id:${group.id}`, shownName(e.group, group.fullPath));
        return { group_id: group.id };
      }
      return e;
    }),
  );
}

/**
 * Entries as the API takes them when the object is made: a group the plan created (kept by its path in the plan,
 * see resolveEntries) by its id now.
 */
export async function resolvePending(
  ctx: KindContext,
  entries: readonly AccessEntry[],
): Promise<AccessEntry[]> {
  return Promise.all(
    entries.map(async (e): Promise<AccessEntry> => {
      if (e.group === undefined) return e;
      const id = await ctx.resolve.groupId(e.group);
      if (id === undefined)
        throw new Error(`the group ${e.group} does not exist: it was to be created first`);
      return { group_id: id };
    }),
  );
}

/** A user's or group's name by id: as the manifests named it, else looked up once (undefined when it is gone). */
async function nameOf(
  ctx: KindContext,
  kind: "user_id" | "group_id",
  id: number,
): Promise<string | undefined> {
  const names = namesOf(ctx);
  const key = `${kind}:${id}`;
  if (!names.has(key)) {
    const found =
      kind === "user_id"
        ? (
            await orNotFound(
              ctx.api.get<{ username: string }>(apiPath`/users/${id}`, { shape: { username: "string" } }),
            )
          )?.username
        : (
            await orNotFound(
              ctx.api.get<{ full_path: string }>(apiPath`/groups/${id}`, {
                query: { with_projects: false },
                shape: { full_path: "string" },
              }),
            )
          )?.full_path;
    if (found) names.set(key, found);
  }
  return names.get(key);
}

/**
 * Entries in the manifest's terms, as plans show them and export writes them: users by username, groups by full
 * path, roles by name. An id that names nothing any more stays an id.
 */
export function namedEntries(ctx: KindContext, entries: readonly AccessEntry[]): Promise<AccessEntry[]> {
  return Promise.all(
    entries.map(async (e): Promise<AccessEntry> => {
      if (e.user_id != null) {
        const name = await nameOf(ctx, "user_id", e.user_id);
        return name ? { user: name } : { user_id: e.user_id };
      }
      if (e.group_id != null) {
        const name = await nameOf(ctx, "group_id", e.group_id);
        return name ? { group: name } : { group_id: e.group_id };
      }
      if (e.group !== undefined) return { group: e.group };
      return { access_level: accessLevelName(e.access_level) as string | number };
    }),
  );
}

/**
 * The addresses of the objects a list names that live in the same project (its members and shares): a protection
 * waits for them, as the platform refuses a user without access to the project or a group it is not shared with.
 */
export function entriesDependOn(project: string, entries: readonly AccessEntry[] | undefined): string[] {
  return (entries ?? []).flatMap((e) =>
    e.user !== undefined
      ? [`${project}.member[${JSON.stringify(shownText(e.user))}]`]
      : e.group !== undefined
        ? [`${project}.share[${JSON.stringify(shownText(e.group))}]`]
        : [],
  );
}

/** The creates of the groups that prepared entries still name by path (see resolveEntries): made first. */
export function pendingDependOn(entries: readonly AccessEntry[] | undefined): string[] {
  return (entries ?? []).flatMap((e) =>
    e.group !== undefined ? [addressOf("", { segment: "group" }, e.group)] : [],
  );
}
