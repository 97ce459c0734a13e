/**
 * Direct members of groups and projects, identified by username (in any case). One list read per group or project
 * (`GET .../members`, its direct members): members inherited from groups above, or given access by a share, are not
 * in it, so they are never unmanaged here; their access is said, and read (`.../members/all`), only where a
 * declared member would add a direct membership to it. Access levels are written by name or number and sent as
 * numbers. The plan refuses, and says why, what the platform refuses or what would lock the token out: removing or
 * demoting the token's own user, removing or demoting a group's last owner (a `delete` prune policy leaves them
 * alone and says why), a level below a membership inherited from a group above, Minimal Access where the platform
 * has none, an expiry in the past. A blocked user is named as such in every change it is in.
 */
import { ApiError, apiPath, type Shape } from "../api/index.js";
import { accessLevelName, accessLevelNumber, accessLevelWords } from "../manifest/normalize.js";
import { revealSecrets, shownText, textOf } from "../manifest/secret.js";
import { body, createBody, orNotFound } from "./common.js";
import { type ApiObject, restCollection, unchecked } from "./declare.js";
import {
  type CollectionScope,
  FieldError,
  type Fields,
  type KindContext,
  type KindProblem,
  type Live,
  type Parent,
} from "./kind.js";
import { currentUsername, unknownUser } from "./users.js";

const MINIMAL_ACCESS = 5;
const OWNER = 50;

interface ApiMember extends ApiObject {
  id: number;
  username: string;
  access_level: number;
  expires_at?: string | null;
  state?: string;
}

const MEMBER_SHAPE: Shape = { id: "integer", username: "string", access_level: "integer", state: "string?" };

const blocked = (username: string) =>
  `${username} is blocked: the membership gives no access while the user stays blocked`;

const isGroup = (parent: Parent) => parent.collection === "groups";

/** Whether a live membership ends when the manifest says (never, when it says nothing). */
const sameExpiry = (live: Live, desired: Fields) =>
  (live.fields["expires_at"] ?? null) === (textOf(desired["expires_at"]) ?? null);

/** The direct members read for `parent` in this run, by lower-cased username. */
function directOf(ctx: KindContext, parent: Parent): Map<string, ApiMember> {
  return (
    (ctx.memo.get(`members:direct:${parent.address}`) as Map<string, ApiMember> | undefined) ?? new Map()
  );
}

/**
 * The users with access to `parent` through the groups above it, its direct members among them, by lower-cased
 * username, at the level the group above gives them (its `members/all`: its own members, and the highest level of
 * the groups above it): read once, only when a check needs them. A top-level group has nothing above it; the group
 * above may be one this plan creates, or a user's namespace (a personal project): then nothing is inherited.
 */
function aboveOf(ctx: KindContext, parent: Parent): Promise<Map<string, ApiMember>> {
  const key = `members:above:${parent.address}`;
  let p = ctx.memo.get(key) as Promise<Map<string, ApiMember>> | undefined;
  if (!p) {
    const slash = parent.key.lastIndexOf("/");
    const above =
      slash < 0
        ? Promise.resolve(undefined)
        : orNotFound(
            ctx.api.list<ApiMember>(apiPath`/groups/${parent.key.slice(0, slash)}/members/all`, {
              shape: MEMBER_SHAPE,
            }),
          );
    p = above.then((all) => new Map((all ?? []).map((m) => [m.username.toLowerCase(), m])));
    ctx.memo.set(key, p);
  }
  return p;
}

/** {@link aboveOf} without the direct members of `parent`: those whose access here is inherited only. */
async function inheritedOf(ctx: KindContext, parent: Parent): Promise<Map<string, ApiMember>> {
  const direct = directOf(ctx, parent);
  return new Map([...(await aboveOf(ctx, parent))].filter(([name]) => !direct.has(name)));
}

const levelOf = (fields: Fields | undefined): number | undefined =>
  accessLevelNumber(revealSecrets(fields?.["access_level"]));

/** Where the access of a member who is not a direct member comes from, in words. */
const inheritedFrom = (parent: Parent) =>
  isGroup(parent) ? "inherited from a group above" : "inherited from the project's group";

/**
 * The group's active owners once the plan is applied, `leaving` left out: declared owners, undeclared ones that no
 * `delete` policy removes (and the token's own user, which none does), and, for a subgroup, the owners of the
 * groups above it (the platform counts them: its last owner is the last of the whole hierarchy). An owner above
 * stays one whatever the plan does to a direct membership here, `leaving` too.
 */
async function ownersAfter(
  ctx: KindContext,
  parent: Parent,
  scope: CollectionScope,
  leaving: string,
): Promise<string[]> {
  const owners = new Set<string>();
  const declared = new Set([...scope.declared].map((k) => k.toLowerCase()));
  const absent = new Set([...scope.absent].map((k) => k.toLowerCase()));
  const planned = new Map([...scope.planned].map(([k, f]) => [k.toLowerCase(), f]));
  const me = (await currentUsername(ctx)).toLowerCase();
  const active = async (name: string) => (await ctx.resolve.user(name))?.state !== "blocked";
  for (const [name, fields] of planned)
    if (levelOf(fields) === OWNER && (await active(textOf(fields["user"]) ?? name))) owners.add(name);
  for (const [name, m] of directOf(ctx, parent)) {
    if (m.access_level !== OWNER || m.state === "blocked" || planned.has(name) || absent.has(name)) continue;
    // Declared but not planned in this run (--target, --changed-since): it stays as it is.
    if (declared.has(name) || scope.policy !== "delete" || name === me) owners.add(name);
  }
  owners.delete(leaving.toLowerCase());
  // An owner of a group above stays an owner of this one, also when its direct membership here goes or is lowered
  // (the platform counts every membership of the hierarchy).
  if (parent.key.includes("/"))
    for (const [name, m] of await aboveOf(ctx, parent))
      if (m.access_level === OWNER && m.state !== "blocked") owners.add(name);
  return [...owners];
}

/** Why the group's last owner cannot go, when `username` is it. */
async function lastOwner(
  ctx: KindContext,
  parent: Parent,
  scope: CollectionScope,
  username: string,
  what: string,
): Promise<string | undefined> {
  if ((await ownersAfter(ctx, parent, scope, username)).length > 0) return undefined;
  return `${username} is the last owner of ${parent.key} once the plan is applied, and the platform refuses to ${what} a group's last owner: declare another owner (access_level: owner) first`;
}

/**
 * Why a blocked owner cannot go, when `username` is the group's last: blocked owners count for nothing while an
 * active owner is left (in the group or above it), but with none the platform keeps the group's only blocked owner.
 * Another blocked owner that the plan removes too does not count (the platform would refuse the second removal).
 */
async function lastBlockedOwner(
  ctx: KindContext,
  parent: Parent,
  scope: CollectionScope,
  username: string,
): Promise<string | undefined> {
  if ((await ownersAfter(ctx, parent, scope, username)).length > 0) return undefined;
  const leaving = username.toLowerCase();
  const declared = new Set([...scope.declared].map((k) => k.toLowerCase()));
  const absent = new Set([...scope.absent].map((k) => k.toLowerCase()));
  for (const [name, m] of directOf(ctx, parent)) {
    if (name === leaving || m.access_level !== OWNER || m.state !== "blocked" || absent.has(name)) continue;
    if (declared.has(name) || scope.policy !== "delete") return undefined;
  }
  return `${username} is the last owner of ${parent.key} once the plan is applied (blocked, with no active owner in it or above it), and the platform refuses to remove a group's last owner: declare another owner (access_level: owner) first`;
}

/**
 * Why `level` cannot be given to `username` (`shown` as a plan may show it), when it is below the level the user has
 * in a group above: the platform refuses a direct membership below that. `otherwise` is the other way out.
 */
async function belowInherited(
  ctx: KindContext,
  parent: Parent,
  username: string,
  shown: string,
  level: number | undefined,
  otherwise: string,
): Promise<string | undefined> {
  // A direct member here too (one being lowered) has the level of the groups above all the same.
  const inherited = (await aboveOf(ctx, parent)).get(username.toLowerCase());
  if (!inherited || level === undefined || level >= inherited.access_level) return undefined;
  return `${shown} is ${accessLevelWords(inherited.access_level)} ${inheritedFrom(parent)}, and the platform refuses a direct membership below that: declare ${accessLevelName(inherited.access_level)} or higher, or ${otherwise}`;
}

/** Whether `username` is the token's own user (usernames match in any case). */
const isTokenUser = async (ctx: KindContext, username: string) =>
  username.toLowerCase() === (await currentUsername(ctx)).toLowerCase();

/** Why the token's own user cannot be removed or demoted, when `username` is it. */
async function ownUser(ctx: KindContext, username: string, what: string): Promise<string | undefined> {
  if (!(await isTokenUser(ctx, username))) return undefined;
  return `${username} is the token's own user: forgeform never ${what} it (the token could lose the access this plan and the next need); change it on the platform by hand, or plan with another user's token`;
}

export const memberKind = restCollection(
  {
    collection: "members",
    segment: "member",
    parents: ["groups", "projects"],
    path: "members",
    // The member's user id is the id in paths; its username, the identity.
    apiNames: { user: "username" },
    shape: { access_level: "integer", expires_at: "string?", state: "string?" },
    live: (_parent, m, live) =>
      m["state"] === "blocked" ? { ...live, note: blocked(String(m["username"])) } : live,
  },
  (rest) => ({
    anyCase: true,

    async read(ctx, parent, wanted, options) {
      const list = (await rest.list(ctx, parent)) as ApiMember[];
      ctx.memo.set(
        `members:direct:${parent.address}`,
        new Map(list.map((m) => [m.username.toLowerCase(), m])),
      );
      // Usernames match in any case, as on the platform: each in the manifest's spelling.
      const spelling = new Map(wanted.map((w) => [w.toLowerCase(), w]));
      return list.map((m) => ({
        ...rest.toLive(parent, m, options),
        key: spelling.get(m.username.toLowerCase()) ?? m.username,
      }));
    },

    async prepare(ctx, _parent, fields) {
      const name = textOf(fields["user"]) ?? "";
      if (!(await ctx.resolve.user(name)))
        throw new FieldError("user", await unknownUser(ctx, name, shownText(fields["user"])));
      // A membership without an expiry never ends: a date set on the platform is drift.
      return { ...fields, expires_at: fields["expires_at"] ?? null };
    },

    check(ctx, parent, desired, live) {
      const problems: KindProblem[] = [];
      const level = levelOf(desired);
      if (
        level === MINIMAL_ACCESS &&
        isGroup(parent) &&
        (ctx.edition === "core" || parent.key.includes("/"))
      ) {
        problems.push({
          field: "access_level",
          message: `minimal_access (5) exists only for top-level groups of the licensed edition, and ${parent.key} is ${
            ctx.edition === "core" ? "on the core edition" : "a subgroup"
          }: choose guest or higher`,
        });
      }
      const expires = textOf(desired["expires_at"]);
      if (
        typeof expires === "string" &&
        expires !== live?.fields["expires_at"] &&
        expires < new Date().toISOString().slice(0, 10)
      ) {
        problems.push({
          field: "expires_at",
          message: `${expires} is in the past: the platform refuses a membership that has already ended (remove the member with state: absent instead)`,
        });
      }
      return problems;
    },

    async createReason(ctx, parent, desired, key) {
      const user = await ctx.resolve.user(textOf(desired["user"]) ?? key);
      const notes = user?.state === "blocked" ? [blocked(user.username)] : [];
      const inherited = (await inheritedOf(ctx, parent)).get(key.toLowerCase());
      if (inherited)
        notes.push(
          `${shownText(desired["user"])} already has ${accessLevelName(inherited.access_level)} access ${inheritedFrom(parent)}: this adds a direct membership`,
        );
      return notes.length > 0 ? notes.join("; ") : undefined;
    },

    async checkCreate(ctx, parent, key, desired, scope) {
      const level = levelOf(desired);
      // The platform makes a group's creator, the token's user, its owner: declared lower in a group this plan
      // creates, the member's create would demote it, which forgeform never does to the token's user.
      if (isGroup(parent) && parent.ref === undefined && level !== undefined && level < OWNER) {
        const name = textOf(desired["user"]) ?? key;
        if (await isTokenUser(ctx, name)) {
          return [
            {
              field: "access_level",
              message: `${name} is the token's own user, which the platform makes the owner of ${parent.key} when this plan creates it, and forgeform never demotes the token's user (it could lose the access this plan and the next need): declare access_level: owner, or leave ${name} out of ${parent.key}'s members`,
            },
          ];
        }
      }
      // Declared with an expiry, the creator's membership is changed right after the group's create: the platform
      // refuses that when it is the group's last owner (403 at apply, the group made and the member not as declared).
      if (isGroup(parent) && parent.ref === undefined && desired["expires_at"] != null) {
        const name = textOf(desired["user"]) ?? key;
        const why = (await isTokenUser(ctx, name))
          ? await lastOwner(ctx, parent, scope, name, "change")
          : undefined;
        if (why)
          return [
            {
              field: "expires_at",
              message: `${name} is the token's own user, which the platform makes the owner of ${parent.key} when this plan creates it, with no expiry; ${why}, or leave expires_at out`,
            },
          ];
      }
      const shown = shownText(desired["user"]);
      const below = await belowInherited(ctx, parent, key, shown, level, "leave the user out here");
      return below ? [{ field: "access_level", message: below }] : [];
    },

    async checkUpdate(ctx, parent, live, desired, changed, scope) {
      const before = live.fields["access_level"] as number;
      const after = levelOf(desired);
      if (!changed.includes("access_level") || after === undefined || after >= before) return [];
      const name = String(live.fields["user"]);
      const reason =
        (await ownUser(ctx, name, "demotes")) ??
        (await belowInherited(
          ctx,
          parent,
          name,
          name,
          after,
          "remove the membership here (state: absent)",
        )) ??
        (isGroup(parent) && before === OWNER
          ? await lastOwner(ctx, parent, scope, name, "demote")
          : undefined);
      return reason ? [{ field: "access_level", message: reason }] : [];
    },

    async checkDelete(ctx, parent, live, _desired, scope) {
      const name = String(live.fields["user"]);
      const reason =
        (await ownUser(ctx, name, "removes")) ??
        (isGroup(parent) && live.fields["access_level"] === OWNER
          ? directOf(ctx, parent).get(name.toLowerCase())?.state === "blocked"
            ? await lastBlockedOwner(ctx, parent, scope, name)
            : await lastOwner(ctx, parent, scope, name, "remove")
          : undefined);
      return reason ? [{ message: reason, keep: true }] : [];
    },

    async notHere(ctx, parent, key) {
      const inherited = (await inheritedOf(ctx, parent)).get(key.toLowerCase());
      return inherited
        ? `${key} is not a direct member of ${parent.key}: its ${accessLevelName(inherited.access_level)} access is inherited from ${isGroup(parent) ? "a group above" : "the project's group"}, which state: absent here does not remove; remove the membership there`
        : undefined;
    },

    async create(ctx, parent, desired, key) {
      const user = await ctx.resolve.user(textOf(desired["user"]) ?? key);
      if (!user) throw new Error(await unknownUser(ctx, key, shownText(desired["user"])));
      const payload = {
        ...createBody(desired, ["expires_at"]),
        user_id: user.id,
        access_level: levelOf(desired),
      };
      try {
        return { ...rest.toLive(parent, await rest.post(ctx, parent, payload), unchecked(desired)), key };
      } catch (error) {
        // The platform makes a group's creator its owner: declared in a group this plan creates, that member is
        // there already. It is given what the manifest says, if it has not got it.
        if (!(error instanceof ApiError && error.status === 409)) throw error;
        const there = rest.toLive(
          parent,
          await ctx.api.get<ApiMember>(rest.itemPath(parent, user.id), { shape: rest.shape() }),
          unchecked(desired),
        );
        if (there.fields["access_level"] === payload.access_level && sameExpiry(there, desired))
          return { ...there, key };
        const { user_id: _, ...changes } = payload;
        return {
          ...rest.toLive(parent, await rest.put(ctx, parent, user.id, changes), unchecked(desired)),
          key,
        };
      }
    },

    async remove(ctx, parent, live) {
      // The platform removes a group member's direct memberships of the subgroups and projects below too, which
      // the plan does not show (and may declare): only this one goes.
      await ctx.api.delete(
        rest.itemPath(parent, live.id!),
        isGroup(parent) ? { query: { skip_subresources: true } } : undefined,
      );
    },

    async update(ctx, parent, live, desired, changed) {
      // The platform needs the level with every change.
      const updated = await rest.put(ctx, parent, live.id!, {
        ...body(
          desired,
          changed.filter((f) => f !== "access_level" && f !== "user"),
        ),
        access_level: levelOf(desired) ?? live.fields["access_level"],
      });
      return { ...rest.toLive(parent, updated, unchecked(desired)), key: live.key } satisfies Live;
    },
  }),
);
