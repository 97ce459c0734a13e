/**
 * Groups and subgroups, identified by full path. Created parents first; never deleted unless marked
 * `state: absent`, and then the plan names every subgroup and project the platform deletes with the group, and apply
 * first saves the group's export archive. The v4 interface cannot move a group to another parent, so a likely move
 * is a plan error. The platform refuses a visibility that is higher than the parent's or lower than a child's: a
 * group lowering its visibility waits for its subgroups and projects to lower theirs, and the plan names the
 * projects and subgroups that would block it (those the manifests do not lower with it).
 */
import { ApiError, apiPath, type Shape } from "../api/index.js";
import { shownText, textOf } from "../manifest/secret.js";
import { body, createBody, orNotFound, pick, uncheckedFields } from "./common.js";
import { lazySchema, unchecked } from "./declare.js";
import type { CascadedObject, Fields, Kind, KindContext, KindProblem, Live, ReadOptions } from "./kind.js";

/** The group schema: its fields are what is read, compared and sent (`name`, `description`, `visibility`, ...). */
const schema = lazySchema("instance", "groups");

/** Above this many declared groups, one paginated list of all groups is cheaper than one GET per group. */
const BULK_THRESHOLD = 20;

/** What reads of a group rely on: its identity, its paths, and every field compared with the manifests. */
let groupShape: Shape | undefined;
const GROUP_SHAPE = (): Shape => {
  groupShape ??= schema().shape({
    id: "integer",
    full_path: "string",
    path: "string",
    name: "string",
    visibility: "string",
  });
  return groupShape;
};

/** What reads of a group's projects rely on (the simple listing has no visibility). */
const PROJECT_SHAPE: Shape = {
  id: "integer",
  path_with_namespace: "string",
  visibility: "string?",
  archived: "boolean?",
};

interface ApiGroup extends Record<string, unknown> {
  id: number;
  full_path: string;
}

/**
 * The direct subgroups of the group at `path` (undefined when it does not exist), read once per run: the engine's
 * report of undeclared subgroups and a `groups: acme/*` pattern share the listing.
 */
export function listSubgroups(ctx: KindContext, path: string): Promise<ApiGroup[] | undefined> {
  const key = `groups:subgroups:${path.toLowerCase()}`;
  let p = ctx.memo.get(key) as Promise<ApiGroup[] | undefined> | undefined;
  if (!p) {
    p = orNotFound(
      ctx.api.list<ApiGroup>(apiPath`/groups/${path}/subgroups`, {
        query: { all_available: true },
        shape: GROUP_SHAPE(),
      }),
    );
    ctx.memo.set(key, p);
  }
  return p;
}

/**
 * The group at `path` as one read of it answers (not its projects), read once per run and shared by every kind that
 * needs it (a project's group's visibility); undefined when it does not exist or is not visible.
 */
export function readGroup(ctx: KindContext, path: string): Promise<ApiGroup | undefined> {
  const key = `groups:one:${path.toLowerCase()}`;
  let p = ctx.memo.get(key) as Promise<ApiGroup | undefined> | undefined;
  if (!p) {
    p = orNotFound(
      ctx.api.get<ApiGroup>(apiPath`/groups/${path}`, {
        query: { with_projects: false },
        shape: GROUP_SHAPE(),
      }),
    );
    ctx.memo.set(key, p);
  }
  return p;
}

/** Every group the token's user can see. */
function listGroups(ctx: KindContext): Promise<ApiGroup[]> {
  return ctx.api.list<ApiGroup>("/groups", { query: { all_available: true }, shape: GROUP_SHAPE() });
}

/** {@link listGroups}, read once for every chunk of a plan made in chunks (ReadOptions.among). */
function listAllGroups(ctx: KindContext): Promise<ApiGroup[]> {
  let p = ctx.memo.get("groups:all") as Promise<ApiGroup[]> | undefined;
  if (!p) {
    p = listGroups(ctx);
    ctx.memo.set("groups:all", p);
  }
  return p;
}

/** Keeps groups read in a listing for {@link readGroup}. */
function rememberGroups(ctx: KindContext, groups: ApiGroup[]): void {
  for (const g of groups) ctx.memo.set(`groups:one:${g.full_path.toLowerCase()}`, Promise.resolve(g));
}

function toLive(ctx: KindContext, g: ApiGroup, options?: ReadOptions): Live {
  ctx.resolve.rememberGroup(g.full_path, g.id);
  return {
    key: g.full_path,
    id: g.id,
    fields: { ...pick(g, schema().read), ...uncheckedFields(g, options?.unchecked) },
  };
}

/** The path of the group that holds `fullPath` (a group's parent, a project's group); undefined at the top. */
export function parentPath(fullPath: string): string | undefined {
  const i = fullPath.lastIndexOf("/");
  return i < 0 ? undefined : fullPath.slice(0, i);
}

export const VISIBILITY_LEVEL: Record<string, number> = { private: 0, internal: 10, public: 20 };

/** The visibility a group or project lowers to, when the manifest lowers it. */
function lowering(desired: Fields, live: Live | undefined): string | undefined {
  // A visibility from `${env:}` orders by its value (and is shown masked).
  const wanted = textOf(desired["visibility"]);
  const now = live?.fields["visibility"];
  if (typeof wanted !== "string" || typeof now !== "string") return undefined;
  return (VISIBILITY_LEVEL[wanted] ?? 0) < (VISIBILITY_LEVEL[now] ?? 0) ? wanted : undefined;
}

export const groupAddress = (path: string) => `group[${JSON.stringify(path)}]`;

/**
 * The order of a group's or project's change against the group above it (a group's parent, a project's group):
 * raising (or creating) waits for the group above, whose visibility bounds it; lowering goes first, the group above
 * waiting for it (the platform refuses a group less visible than what it holds).
 */
export const visibilityOrder: Pick<Kind, "dependsOn" | "before"> = {
  dependsOn(_parent, key, desired, live) {
    const up = parentPath(key);
    return up && !lowering(desired, live) ? [groupAddress(up)] : [];
  },
  before(_parent, key, desired, live) {
    const up = parentPath(key);
    return up && lowering(desired, live) ? [groupAddress(up)] : [];
  },
};

/** A declared group with its parents: is `path` inside one of the trees the manifests declare? */
function insideDeclaredTree(path: string, declared: ReadonlySet<string>): string | undefined {
  for (let up = parentPath(path); up; up = parentPath(up)) if (declared.has(up.toLowerCase())) return up;
  return undefined;
}

interface ApiProject {
  id: number;
  path_with_namespace: string;
  visibility?: string;
  archived?: boolean;
}

/** Waits for the export archive the platform prepares after `POST /groups/:id/export`. */
async function downloadExport(ctx: KindContext, id: string | number): Promise<Uint8Array> {
  const rounds = 15;
  for (let round = 1; ; round++) {
    try {
      return await ctx.api.get<Uint8Array>(apiPath`/groups/${id}/export/download`, { binary: true });
    } catch (error) {
      // 404 while the archive is being prepared.
      if (!(error instanceof ApiError && error.status === 404) || round >= rounds) throw error;
      await ctx.api.pause(round);
    }
  }
}

/**
 * What a group's create does after its POST: the settings the platform takes on update only (sent again as they
 * are to a create found on re-reading). The group as the platform answered, when they were sent.
 */
async function finishGroup(
  ctx: KindContext,
  id: string | number,
  desired: Fields,
): Promise<ApiGroup | undefined> {
  const later = schema().updateOnly.filter((name) => desired[name] !== undefined);
  if (later.length === 0) return undefined;
  return ctx.api.put<ApiGroup>(apiPath`/groups/${id}`, { body: body(desired, later), shape: GROUP_SHAPE() });
}

/**
 * Why the platform says a new group's path is taken, in words: the group exists now (made since the plan), the
 * path is a user's namespace, or the group exists and the token's user cannot see it.
 */
async function takenPath(ctx: KindContext, fullPath: string, said: string): Promise<string> {
  const now = await orNotFound(
    ctx.api.get<ApiGroup>(apiPath`/groups/${fullPath}`, {
      query: { with_projects: false },
      shape: GROUP_SHAPE(),
    }),
  );
  if (now) {
    return `group ${now.full_path} exists now: it was made since the plan was (the platform compares paths in any case). Plan again (the platform said: ${said})`;
  }
  if (!fullPath.includes("/")) {
    const users = await ctx.api.get<{ username: string }[]>("/users", { query: { username: fullPath } });
    const user = users.find((u) => u.username.toLowerCase() === fullPath.toLowerCase());
    if (user) {
      return `${fullPath} is the namespace of the user ${user.username}: a top-level group cannot have a user's path (in any case). Choose another path (the platform said: ${said})`;
    }
  }
  return (
    `a group at ${fullPath} already exists, but this token's user cannot see it (it was not found when planning): ` +
    "it may be private to others, or pending deletion. Ask an administrator to give the token's user access to " +
    `${fullPath} (or use an administrator token), or choose another path (the platform said: ${said})`
  );
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
    // Undeclared groups worth reporting: the direct subgroups of declared groups (never other top-level groups;
    // not below groups that only a pattern matched, see ReadOptions.reportBelow).
    const below = new Set((options?.reportBelow ?? wanted).map((w) => w.toLowerCase()));
    const isUndeclaredChild = (g: ApiGroup) =>
      options?.undeclared === true &&
      !spelling.has(g.full_path.toLowerCase()) &&
      below.has((parentPath(g.full_path) ?? "").toLowerCase());
    let found: (ApiGroup | undefined)[];
    /** Where each undeclared group comes in a read of every group the plan wants (ReadOptions.among). */
    const order = new Map<ApiGroup, number>();
    const among = options?.among;
    if ((among ?? wanted).length > BULK_THRESHOLD) {
      const all = await (among ? listAllGroups(ctx) : listGroups(ctx));
      // Of a part, every wanted group is kept for the parts after it, as one read of all of them would.
      const kept = new Set([...(among ?? wanted)].map((w) => w.toLowerCase()));
      const declared = all.filter((g) => kept.has(g.full_path.toLowerCase()));
      rememberGroups(ctx, declared);
      if (among) for (const g of declared) ctx.resolve.rememberGroup(g.full_path, g.id);
      found = all.filter((g) => spelling.has(g.full_path.toLowerCase()) || isUndeclaredChild(g));
      if (among) for (const [i, g] of all.entries()) order.set(g, i);
    } else {
      // Of a part, every wanted group is read (once in the run), as one read of all of them would.
      if (among && !options?.fresh) {
        for (const g of await Promise.all(among.map((path) => readGroup(ctx, path))))
          if (g) ctx.resolve.rememberGroup(g.full_path, g.id);
      }
      const [declared, children] = await Promise.all([
        Promise.all(
          wanted.map((path) =>
            options?.fresh
              ? orNotFound(
                  ctx.api.get<ApiGroup>(apiPath`/groups/${path}`, {
                    query: { with_projects: false },
                    shape: GROUP_SHAPE(),
                  }),
                )
              : readGroup(ctx, path),
          ),
        ),
        options?.undeclared
          ? Promise.all(wanted.filter((w) => below.has(w.toLowerCase())).map((w) => listSubgroups(ctx, w)))
          : Promise.resolve([]),
      ]);
      found = [...declared, ...children.flatMap((list) => (list ?? []).filter(isUndeclaredChild))];
      if (among) {
        // One by one, the subgroups come by their parent's place among all the wanted groups, then as listed.
        const place = new Map(among.map((w, i) => [w.toLowerCase(), i]));
        for (const list of children) {
          const parent = (g: ApiGroup) => place.get((parentPath(g.full_path) ?? "").toLowerCase()) ?? 0;
          for (const [i, g] of (list ?? []).entries()) order.set(g, parent(g) * 1_000_000 + i);
        }
      }
    }
    return found
      .filter((g): g is ApiGroup => g !== undefined)
      .map((g) => ({
        ...toLive(ctx, g, options),
        key: spelling.get(g.full_path.toLowerCase()) ?? g.full_path,
        ...(order.has(g) ? { order: order.get(g)! } : {}),
      }));
  },

  ...visibilityOrder,

  async checkCreate(ctx, _parent, fullPath, _desired, scope) {
    const problems: KindProblem[] = [];
    const declaredLower = new Set([...scope.declared].map((d) => d.toLowerCase()));
    const up = parentPath(fullPath);
    if (up && ![...scope.planned.keys()].some((k) => k.toLowerCase() === up.toLowerCase())) {
      // The parent is not created by this plan (not declared, outside --target, or untouched by --changed-since):
      // it must exist already.
      if ((await ctx.resolve.groupId(up)) === undefined) {
        problems.push({
          message: declaredLower.has(up.toLowerCase())
            ? `its parent group ${up} does not exist and is outside the plan's --target (or, under --changed-since, its entry did not change), so it is not created: add --target ${up} (or apply without --changed-since first)`
            : `its parent group ${up} does not exist (or is not visible to this token's user): declare it in the manifests or create it first`,
        });
      }
    }
    // The v4 interface cannot change a group's parent, and deleting and re-creating a group loses its projects:
    // a new group whose last path segment matches a group that the manifests' trees hold but no longer declare
    // is most likely a move, which must be done in the platform itself.
    const segment = fullPath.split("/").pop() ?? fullPath;
    const candidates = await ctx.api.list<ApiGroup>("/groups", {
      query: { search: segment, all_available: true },
      shape: GROUP_SHAPE(),
    });
    for (const g of candidates) {
      if (
        String(g["path"]).toLowerCase() !== segment.toLowerCase() ||
        g.full_path.toLowerCase() === fullPath.toLowerCase() ||
        declaredLower.has(g.full_path.toLowerCase())
      )
        continue;
      const tree = insideDeclaredTree(g.full_path, declaredLower);
      if (!tree) continue;
      problems.push({
        message:
          `group ${fullPath} would be created, and ${g.full_path} (inside ${tree}, which the manifests manage) is no ` +
          `longer declared: this looks like a move, and the API cannot change a group's parent (re-creating it would ` +
          `lose its projects and members). To move it: move ${g.full_path} to ${fullPath} in the platform, then plan ` +
          `again. If both groups should exist: declare ${g.full_path} in the manifests too (or mark it ` +
          `"state: absent" to delete it)`,
      });
      break;
    }
    return problems;
  },

  async checkUpdate(ctx, _parent, live, desired, changed, scope) {
    const lower = changed.includes("visibility") ? lowering(desired, live) : undefined;
    if (!lower) return [];
    // The platform refuses a visibility lower than any direct project's or subgroup's. Subgroups and projects this
    // plan lowers too are fine (they go first).
    const level = VISIBILITY_LEVEL[lower] ?? 0;
    const [subgroups, projects] = await Promise.all([
      ctx.api.list<ApiGroup>(apiPath`/groups/${live.id!}/subgroups`, {
        query: { all_available: true },
        shape: GROUP_SHAPE(),
      }),
      ctx.api.list<ApiProject>(apiPath`/groups/${live.id!}/projects`, {
        query: { with_shared: false, simple: true },
        shape: PROJECT_SHAPE,
      }),
    ]);
    const plannedVisibility = new Map(
      [...scope.planned].map(([k, f]) => [k.toLowerCase(), f["visibility"]] as const),
    );
    const plannedProjects = scope.top?.("projects");
    const blockers: string[] = [];
    for (const g of subgroups) {
      const planned = plannedVisibility.get(g.full_path.toLowerCase());
      const after = textOf(planned) ?? String(g["visibility"]);
      if ((VISIBILITY_LEVEL[after] ?? 0) > level) blockers.push(`subgroup ${g.full_path} (${after})`);
    }
    for (const p of projects) {
      // The simple listing has no visibility; read it where it is missing.
      const planned = textOf(plannedProjects?.get(p.path_with_namespace.toLowerCase())?.["visibility"]);
      const visibility =
        planned ??
        p.visibility ??
        (await ctx.api.get<ApiProject>(apiPath`/projects/${p.id}`, { shape: PROJECT_SHAPE })).visibility ??
        "private";
      if ((VISIBILITY_LEVEL[visibility] ?? 0) > level)
        blockers.push(`project ${p.path_with_namespace} (${visibility})`);
    }
    if (blockers.length === 0) return [];
    return [
      {
        field: "visibility",
        message:
          `visibility cannot become ${shownText(desired["visibility"])}: the platform refuses it while the group holds more visible ` +
          `${blockers.length === 1 ? "content" : "contents"}: ${blockers.join(", ")}. Lower their visibility first ` +
          "(declare them with the lower visibility to have them lowered first), " +
          `or keep ${String(live.fields["visibility"])}`,
      },
    ];
  },

  async cascade(ctx, _parent, live) {
    const [groups, projects] = await Promise.all([
      ctx.api.list<ApiGroup>(apiPath`/groups/${live.id!}/descendant_groups`, {
        query: { all_available: true },
        shape: GROUP_SHAPE(),
      }),
      ctx.api.list<ApiProject>(apiPath`/groups/${live.id!}/projects`, {
        query: { include_subgroups: true, with_shared: false },
        shape: PROJECT_SHAPE,
      }),
    ]);
    const out: CascadedObject[] = [];
    for (const g of [...groups].sort((a, b) => a.full_path.localeCompare(b.full_path))) {
      out.push({
        collection: "groups",
        segment: "group",
        key: g.full_path,
        id: g.id,
        fields: pick(g, ["visibility"]),
      });
    }
    for (const p of [...projects].sort((a, b) =>
      a.path_with_namespace.localeCompare(b.path_with_namespace),
    )) {
      out.push({
        collection: "projects",
        segment: "project",
        key: p.path_with_namespace,
        id: p.id,
        fields: pick(p as unknown as Record<string, unknown>, ["visibility", "archived"]),
      });
    }
    return out;
  },

  backup: {
    async download(ctx, _parent, live) {
      await ctx.api.post(apiPath`/groups/${live.id!}/export`);
      return downloadExport(ctx, live.id!);
    },
    // The platform's group export (ndjson since 13.0; group.json before): its version and the group tree.
    entries: ["VERSION", ["tree/groups/_all.ndjson", "group.json"]],
    holds:
      "the group's and its subgroups' settings, milestones, labels, boards, badges, epics and members; not its projects, their repositories or anything else in them",
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
    let created: ApiGroup;
    try {
      created = await ctx.api.post<ApiGroup>("/groups", {
        body: {
          ...createBody(desired, schema().sent),
          name: desired["name"] ?? path,
          path,
          ...(parentId ? { parent_id: parentId } : {}),
        },
        shape: GROUP_SHAPE(),
      });
    } catch (error) {
      if (
        error instanceof ApiError &&
        error.status === 400 &&
        /has already been taken/.test(error.platformMessage)
      ) {
        throw new Error(await takenPath(ctx, fullPath, error.platformMessage));
      }
      throw error;
    }
    return toLive(ctx, (await finishGroup(ctx, created.id, desired)) ?? created, unchecked(desired));
  },

  async finishCreate(ctx, _parent, found, desired) {
    const group = await finishGroup(ctx, found.id!, desired);
    return group ? toLive(ctx, group, unchecked(desired)) : found;
  },

  async update(ctx, _parent, live, desired, changed) {
    const updated = await ctx.api.put<ApiGroup>(apiPath`/groups/${live.id!}`, {
      body: body(desired, changed),
      shape: GROUP_SHAPE(),
    });
    return toLive(ctx, updated, unchecked(desired));
  },

  async remove(ctx, _parent, live) {
    await ctx.api.delete(apiPath`/groups/${live.id!}`);
  },
};
