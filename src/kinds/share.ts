/**
 * Shares: a group or a project shared with a group, identified by the group's full path (in any case). They are read
 * from the owner's own view (`GET /groups/:id`, `GET /projects/:id`: its `shared_with_groups`), made with
 * `POST .../share` and removed with `DELETE .../share/:group_id`; the platform (13.12) has no call that changes one,
 * so a change removes it and shares again. The plan says what the platform would refuse: a project whose group
 * locks sharing (`share_with_group_lock`), a project shared with its own group or one above it, a group shared
 * with itself; and what a share gives: at most its level, to each member of the group.
 */
import { listOf, objectOf, type Shape } from "../api/index.js";
import { accessLevelName, accessLevelNumber } from "../manifest/normalize.js";
import { revealSecrets, shownText, textOf } from "../manifest/secret.js";
import { createBody, ownerPath } from "./common.js";
import { type ApiObject, restCollection } from "./declare.js";
import { parentPath, readGroup } from "./group.js";
import {
  addressOf,
  FieldError,
  type Fields,
  type KindContext,
  type KindProblem,
  type Live,
  type Parent,
} from "./kind.js";
import { unknownGroup } from "./users.js";

/** The owner's view, read once per run: its shares, and for a project its namespace. */
interface Owner {
  shared_with_groups: ApiObject[];
  namespace?: { id: number; kind: string; full_path: string };
}

function ownerOf(ctx: KindContext, parent: Parent, shape: Shape): Promise<Owner> {
  const key = `shares:owner:${parent.address}`;
  let p = ctx.memo.get(key) as Promise<Owner> | undefined;
  if (!p) {
    // A group's shares are in its detail view only, which 13.12 gives with its projects (`with_projects`).
    p = ctx.api.get<Owner>(ownerPath(parent), {
      shape: {
        shared_with_groups: listOf(shape),
        ...(parent.collection === "projects"
          ? { namespace: objectOf({ id: "integer", kind: "string" }, true) }
          : {}),
      },
    });
    ctx.memo.set(key, p);
  }
  return p;
}

/**
 * The platform refuses to share a project whose group, or a group above it, locks sharing (the lock is copied down
 * to every subgroup): read only when a project share is to be made, through the group read every kind shares
 * (readGroup: once per run, none where a listing of the group's kind held it). A project this plan creates is not
 * there to read: its group is the one its path names (none yet when the plan creates that too).
 */
async function lockProblems(ctx: KindContext, parent: Parent, shape: Shape): Promise<KindProblem[]> {
  // A project that exists may be a user's (no group, no lock): its namespace says.
  if (parent.ref !== undefined && (await ownerOf(ctx, parent, shape)).namespace?.kind !== "group") return [];
  const path = parentPath(parent.key);
  if (path === undefined) return [];
  const group = await readGroup(ctx, path);
  if (group?.share_with_group_lock !== true) return [];
  return [
    {
      message: `group ${group.full_path} has share_with_group_lock set, so the platform refuses to share its projects with other groups: unset it on ${group.full_path} (and the groups above it) first, or give access through members`,
    },
  ];
}

const levelOf = (fields: Fields) => accessLevelNumber(revealSecrets(fields["group_access"]));

/** `a/b/c` is `a` or `a/b`, or `a/b/c` itself. */
const atOrAbove = (group: string, path: string) =>
  path.toLowerCase() === group.toLowerCase() || path.toLowerCase().startsWith(`${group.toLowerCase()}/`);

export const shareKind = restCollection(
  {
    collection: "shared_with_groups",
    segment: "share",
    parents: ["groups", "projects"],
    path: "share",
    id: { field: "group_id", type: "integer" },
    noUpdate:
      "the platform has no call that changes a share: it is removed and made again, and the group's members lose the access it gives between the two calls",
    apiNames: { group: "group_full_path", group_access: "group_access_level" },
    shape: { group_access: "integer", expires_at: "string?" },
  },
  (rest) => ({
    anyCase: true,

    async read(ctx, parent, wanted, options) {
      const owner = await ownerOf(ctx, parent, rest.shape());
      // Full paths match in any case, as on the platform: each in the manifest's spelling.
      const spelling = new Map(wanted.map((w) => [w.toLowerCase(), w]));
      return owner.shared_with_groups.map((s) => {
        const live = rest.toLive(parent, s, options);
        return { ...live, key: spelling.get(live.key.toLowerCase()) ?? live.key };
      });
    },

    // The group shared with, when the plan creates it; else the dependency is dropped.
    dependsOnCreate: (_parent, key, desired) => [
      addressOf("", { segment: "group" }, textOf(desired["group"]) ?? key),
    ],

    async prepare(ctx, _parent, fields, scope) {
      const path = textOf(fields["group"]) ?? "";
      // A group the manifests declare is there once the plan is applied: one it creates is shared with after its
      // create (dependsOnCreate).
      const declared = scope?.top?.("groups").has(path.toLowerCase()) ?? false;
      if (!declared && (await ctx.resolve.groupId(path)) === undefined)
        throw new FieldError("group", await unknownGroup(ctx, path, shownText(fields["group"])));
      // A share without an expiry never ends: a date set on the platform is drift.
      return { ...fields, expires_at: fields["expires_at"] ?? null };
    },

    async checkCreate(ctx, parent, _key, desired) {
      const shared = textOf(desired["group"]) ?? "";
      if (parent.collection === "groups")
        return shared.toLowerCase() === parent.key.toLowerCase()
          ? [{ field: "group", message: "a group cannot be shared with itself" }]
          : [];
      if (atOrAbove(shared, parent.key))
        return [
          {
            field: "group",
            message: `${parent.key} is in ${shownText(desired["group"])}, and the platform does not share a project with its own group or one above it (their members have access already)`,
          },
        ];
      return lockProblems(ctx, parent, rest.shape());
    },

    // The share is removed and made again: the lock would leave it removed.
    checkReplace: async (ctx, parent) =>
      parent.collection === "projects" ? lockProblems(ctx, parent, rest.shape()) : [],

    async createReason(_ctx, parent, desired) {
      const what = parent.collection === "groups" ? "this group, its subgroups and projects" : "the project";
      return `each member of ${shownText(desired["group"])} gets the lower of their own level there and ${accessLevelName(levelOf(desired))} on ${what}`;
    },

    async create(ctx, parent, desired, key) {
      const groupId = await ctx.resolve.groupId(textOf(desired["group"]) ?? key);
      if (groupId === undefined) throw new Error(await unknownGroup(ctx, key, shownText(desired["group"])));
      await ctx.api.post(rest.path(parent), {
        body: {
          ...createBody(desired, ["expires_at"]),
          group_id: groupId,
          group_access: levelOf(desired),
        },
      });
      return {
        key,
        id: groupId,
        fields: {
          group: key,
          group_access: levelOf(desired),
          expires_at: textOf(desired["expires_at"]) ?? null,
        },
      } satisfies Live;
    },
  }),
);
