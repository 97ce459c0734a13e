/**
 * Groups and subgroups, identified by full path. Created parents first; never deleted unless marked
 * `state: absent`. The v4 interface cannot move a group to another parent, so a move is a plan error.
 */
import { apiPath } from "../api/index.js";
import { body, orNotFound, pick } from "./common.js";
import type { Fields, Kind, KindContext, Live } from "./kind.js";

const FIELDS = [
  "name",
  "description",
  "visibility",
  "request_access_enabled",
  "lfs_enabled",
  "share_with_group_lock",
  "require_two_factor_authentication",
  "two_factor_grace_period",
  "project_creation_level",
  "subgroup_creation_level",
  "auto_devops_enabled",
  "emails_disabled",
  "mentions_disabled",
  "default_branch_protection",
] as const;

/** Above this many declared groups, one paginated list of all groups is cheaper than one GET per group. */
const BULK_THRESHOLD = 20;

const GROUP_SHAPE = { id: "integer", full_path: "string" } as const;

interface ApiGroup extends Record<string, unknown> {
  id: number;
  full_path: string;
}

function toLive(ctx: KindContext, g: ApiGroup): Live {
  ctx.resolve.rememberGroup(g.full_path, g.id);
  return { key: g.full_path, id: g.id, fields: pick(g, FIELDS), raw: g };
}

function parentPath(fullPath: string): string | undefined {
  const i = fullPath.lastIndexOf("/");
  return i < 0 ? undefined : fullPath.slice(0, i);
}

export const groupKind: Kind = {
  collection: "groups",
  segment: "group",
  parents: ["instance"],
  updateMode: "update",
  explicitDeleteOnly: true,

  async read(ctx, _parent, wanted, options) {
    // Full paths match case-insensitively, as on the platform; report them in the manifest's spelling.
    const spelling = new Map(wanted.map((w) => [w.toLowerCase(), w]));
    // Undeclared groups worth reporting: the direct subgroups of declared groups (never other top-level groups).
    const isUndeclaredChild = (g: ApiGroup) =>
      options?.undeclared === true &&
      !spelling.has(g.full_path.toLowerCase()) &&
      spelling.has((parentPath(g.full_path) ?? "").toLowerCase());
    let found: (ApiGroup | undefined)[];
    if (wanted.length > BULK_THRESHOLD) {
      const all = await ctx.api.list<ApiGroup>("/groups", {
        query: { all_available: true },
        shape: GROUP_SHAPE,
      });
      found = all.filter((g) => spelling.has(g.full_path.toLowerCase()) || isUndeclaredChild(g));
    } else {
      const [declared, children] = await Promise.all([
        Promise.all(
          wanted.map((path) =>
            orNotFound(
              ctx.api.get<ApiGroup>(apiPath`/groups/${path}`, {
                query: { with_projects: false },
                shape: GROUP_SHAPE,
              }),
            ),
          ),
        ),
        options?.undeclared
          ? Promise.all(
              wanted.map((path) =>
                orNotFound(
                  ctx.api.list<ApiGroup>(apiPath`/groups/${path}/subgroups`, {
                    query: { all_available: true },
                    shape: GROUP_SHAPE,
                  }),
                ),
              ),
            )
          : Promise.resolve([]),
      ]);
      found = [...declared, ...children.flatMap((list) => (list ?? []).filter(isUndeclaredChild))];
    }
    return found
      .filter((g): g is ApiGroup => g !== undefined)
      .map((g) => ({ ...toLive(ctx, g), key: spelling.get(g.full_path.toLowerCase()) ?? g.full_path }));
  },

  dependsOn(_parent, key) {
    const up = parentPath(key);
    return up ? [`group[${JSON.stringify(up)}]`] : [];
  },

  async checkCreate(ctx, _parent, fullPath, _desired, declared) {
    // The v4 interface cannot change a group's parent, and deleting and re-creating a group loses its projects:
    // a group that appears at a new path while one with the same path segment exists elsewhere, undeclared,
    // is most likely a move, which must be done in the platform itself.
    const segment = fullPath.split("/").pop() ?? fullPath;
    const declaredLower = new Set([...declared].map((d) => d.toLowerCase()));
    const candidates = await ctx.api.list<ApiGroup>("/groups", {
      query: { search: segment, all_available: true },
    });
    const moved = candidates.find(
      (g) =>
        String(g["path"]).toLowerCase() === segment.toLowerCase() &&
        g.full_path.toLowerCase() !== fullPath.toLowerCase() &&
        !declaredLower.has(g.full_path.toLowerCase()),
    );
    if (!moved) return [];
    return [
      {
        message:
          `group ${fullPath} would be created, but ${moved.full_path} exists and is no longer in the manifests: ` +
          "if this is a move, the API cannot change a group's parent and re-creating it would lose its projects " +
          `and members. Move ${moved.full_path} to ${fullPath} in the platform, then plan again; ` +
          `or keep ${moved.full_path} in the manifests if both groups should exist`,
      },
    ];
  },

  async create(ctx, _parent, desired: Fields, fullPath) {
    const path = fullPath.split("/").pop() ?? fullPath;
    const up = parentPath(fullPath);
    let parentId: number | undefined;
    if (up) {
      parentId = await ctx.resolve.groupId(up);
      if (parentId === undefined) {
        throw new Error(
          `its parent group ${up} does not exist: declare it in the manifests or create it first`,
        );
      }
    }
    const created = await ctx.api.post<ApiGroup>("/groups", {
      body: {
        ...body(desired, FIELDS),
        name: desired["name"] ?? path,
        path,
        ...(parentId ? { parent_id: parentId } : {}),
      },
    });
    return toLive(ctx, created);
  },

  async update(ctx, _parent, live, desired, changed) {
    const updated = await ctx.api.put<ApiGroup>(apiPath`/groups/${live.id!}`, {
      body: body(desired, changed),
    });
    return toLive(ctx, updated);
  },

  async remove(ctx, _parent, live) {
    await ctx.api.delete(apiPath`/groups/${live.id!}`);
  },
};
