/**
 * Projects, identified by full path: their settings (the writable fields of the project API, declared in
 * project.schema.json), and the owners of the collections forgeform manages in them. A project declared by full path
 * that does not exist is created in its group's namespace; one marked `state: absent` is deleted after its export
 * archive is saved; a pattern entry never does either.
 *
 * Reads cost as little as the manifests allow: a project whose own fields the manifests do not set is addressed by
 * its path without a read of its own (the API takes a URL-encoded full path wherever it takes an id), and whether it
 * exists shows on the first read of one of its collections. Projects whose settings are declared come from a
 * pattern's listing when one holds them, from one listing of their group's projects when several are declared
 * under one top-level group (for up to 20 of them, only when its first page holds the whole listing), and from one
 * GET each otherwise.
 *
 * Where the platform deviates from one PUT of the changed fields: `archived` is applied through the archive and
 * unarchive calls (an archived project is read-only: it is unarchived before anything in it changes and archived
 * after); `topics` and `public_jobs` are sent under the names the 13.12 interface takes (`tag_list`,
 * `public_builds`); a duration of `build_timeout` is sent in seconds; settings the platform takes on update only
 * follow a create in a PUT of their own.
 */
import { ApiError, apiPath, type Shape } from "../api/index.js";
import { didYouMean } from "../manifest/diagnostics.js";
import { sentValue } from "../manifest/normalize.js";
import { shownText, textOf } from "../manifest/secret.js";
import { body, orNotFound, pick, UNCHECKED, uncheckedFields } from "./common.js";
import { lazySchema, unchecked } from "./declare.js";
import { listSubgroups, parentPath, readGroup, VISIBILITY_LEVEL, visibilityOrder } from "./group.js";
import type { Fields, Kind, KindContext, KindProblem, Live, ReadOptions } from "./kind.js";

/** The project schema: its fields are what is read, compared and sent (`visibility`, `merge_method`, ...). */
const schema = lazySchema("instance", "projects");

/**
 * Above this many projects to read under one top-level group, one listing of the projects below their closest
 * common group is cheaper than one GET each (100 to a page), however long it is; up to this many, the listing is
 * taken only when one page holds it.
 */
const BULK_THRESHOLD = 20;

/** The names the 13.12 interface takes for fields the manifest names as the platform shows them. */
const SENT_AS: Readonly<Record<string, string>> = { topics: "tag_list", public_jobs: "public_builds" };

/** Fields only the Owner may change: the platform refuses them (`name`, `visibility`, `archived`) or ignores them. */
const OWNER_ONLY = ["name", "visibility", "archived", "emails_disabled"];

/** A project as the API gives it (the fields this kind relies on; the schema's fields besides). */
export interface ApiProject extends Record<string, unknown> {
  id: number;
  path_with_namespace: string;
}

let projectShape: Shape | undefined;
/** What reads of a project rely on: its id and path, and every field compared with the manifests. */
export function PROJECT_SHAPE(): Shape {
  projectShape ??= schema().shape({
    id: "integer",
    path_with_namespace: "string",
    // 13.12 shows the topics as `tag_list`; later versions show both.
    tag_list: "array?",
    build_timeout: "integer?",
  });
  return projectShape;
}

const lower = (path: string) => path.toLowerCase();

/** The projects read in this run, by lower-cased full path (null: not found), shared by selection and reads. */
function known(ctx: KindContext): Map<string, ApiProject | null> {
  let map = ctx.memo.get("projects:known") as Map<string, ApiProject | null> | undefined;
  if (!map) {
    map = new Map();
    ctx.memo.set("projects:known", map);
  }
  return map;
}

/**
 * Keeps projects a listing read in full (a pattern's), so that reading their settings costs nothing more: only what
 * reads of them use (a listing of the whole instance holds every project), and the `unchecked` settings named.
 */
export function rememberProjects(
  ctx: KindContext,
  projects: readonly ApiProject[],
  unchecked: readonly string[] = [],
): void {
  const map = known(ctx);
  const kept = ["id", "path_with_namespace", "tag_list", ...schema().read, ...unchecked];
  for (const p of projects) map.set(lower(p.path_with_namespace), pick(p, kept) as ApiProject);
}

/** The project at `path`, read once per run (undefined when it does not exist or is not visible). */
export async function readProject(ctx: KindContext, path: string): Promise<ApiProject | undefined> {
  const map = known(ctx);
  const had = map.get(lower(path));
  if (had !== undefined) return had ?? undefined;
  const found = await orNotFound(
    ctx.api.get<ApiProject>(apiPath`/projects/${path}`, { shape: PROJECT_SHAPE() }),
  );
  map.set(lower(path), found ?? null);
  return found;
}

/** The longest group path that holds every one of `paths` (their closest common group). */
function commonGroup(paths: string[]): string {
  const split = paths.map((p) => p.split("/").slice(0, -1));
  const first = split[0] ?? [];
  let n = first.length;
  for (const parts of split.slice(1)) {
    let i = 0;
    while (i < n && i < parts.length && lower(parts[i]!) === lower(first[i]!)) i++;
    n = i;
  }
  return first.slice(0, n).join("/");
}

/**
 * Reads the projects at `paths` (see the top): what this run already read, then one listing of the projects below
 * the closest common group of each top-level group's many, then one GET each.
 */
async function readProjects(
  ctx: KindContext,
  paths: string[],
  fresh: boolean,
  detailOf: ReadonlySet<string>,
  unchecked: readonly string[],
  /** The projects whose entries set them (undefined: all of them). */
  uncheckedOf: ReadonlySet<string> | undefined,
): Promise<void> {
  const map = known(ctx);
  // A project a listing gave without a setting its entry needs (one lists do not show, or one under unchecked:,
  // which a listing's copy does not keep): read on its own.
  const incomplete = (path: string) => {
    const p = map.get(lower(path));
    if (p == null) return false;
    const needs = uncheckedOf === undefined || uncheckedOf.has(lower(path));
    if (needs && unchecked.some((name) => !(name in p))) return true;
    return (
      detailOf.has(lower(path)) && schema().read.some((f) => schema().specs.get(f)?.detailOnly && !(f in p))
    );
  };
  const missing = fresh ? paths : paths.filter((p) => !map.has(lower(p)) || incomplete(p));
  const one = (path: string) =>
    orNotFound(ctx.api.get<ApiProject>(apiPath`/projects/${path}`, { shape: PROJECT_SHAPE() })).then((p) => {
      map.set(lower(path), p ?? null);
    });
  // Those whose settings lists show, by top-level group; the others one by one.
  const byTop = new Map<string, string[]>();
  const single: string[] = [];
  for (const p of missing) {
    if (fresh || detailOf.has(lower(p))) {
      single.push(p);
      continue;
    }
    const top = lower(p.split("/")[0]!);
    const list = byTop.get(top);
    if (list) list.push(p);
    else byTop.set(top, [p]);
  }
  await Promise.all([
    ...single.map(one),
    ...[...byTop.values()].map(async (under) => {
      const group = commonGroup(under);
      const listing = apiPath`/groups/${group}/projects`;
      const query = { include_subgroups: true, with_shared: false };
      let listed: ApiProject[] | undefined;
      if (under.length === 1) {
        await one(under[0]!);
        return;
      }
      if (under.length <= BULK_THRESHOLD) {
        // A few: the first page of their group's listing holds them all when the group has at most 100 projects
        // (one request instead of one each); when the group has more, each is read on its own (one request more).
        const page = await orNotFound(
          ctx.api.firstPage<ApiProject>(listing, { query, shape: PROJECT_SHAPE() }),
        );
        if (page !== undefined && !page.complete) {
          await Promise.all(under.map(one));
          return;
        }
        listed = page?.items;
      } else {
        listed = await orNotFound(ctx.api.list<ApiProject>(listing, { query, shape: PROJECT_SHAPE() }));
      }
      const wanted = new Set(under.map(lower));
      rememberProjects(
        ctx,
        (listed ?? []).filter((p) => wanted.has(lower(p.path_with_namespace))),
        unchecked,
      );
      // The listing holds every project below the group the token's user can see, archived ones too.
      for (const p of under) if (!map.has(lower(p))) map.set(lower(p), null);
      // A setting under unchecked: that the listing does not show is read with its project on its own.
      await Promise.all(under.filter(incomplete).map(one));
    }),
  ]);
}

/** A project in manifest terms: the schema's fields, the topics under their name, and the `unchecked:` ones asked for. */
function toLive(p: ApiProject, options?: ReadOptions): Live {
  const fields = pick(p, schema().read);
  if (fields["topics"] === undefined && p["tag_list"] !== undefined) fields["topics"] = p["tag_list"];
  return {
    key: p.path_with_namespace,
    id: p.id,
    fields: { ...fields, ...uncheckedFields(p, options?.unchecked) },
  };
}

/** The body of a request that sets `names`: secrets revealed, durations in seconds, names as 13.12 takes them. */
function apiBody(desired: Fields, names: Iterable<string>): Record<string, unknown> {
  const out = body(desired, names);
  for (const name of Object.keys(out)) {
    const spec = schema().specs.get(name);
    if (spec?.normalize) out[name] = sentValue(spec.normalize, out[name]);
    const as = SENT_AS[name];
    if (as) {
      out[as] = out[name];
      delete out[name];
    }
  }
  return out;
}

const ROLES: Record<number, string> = {
  0: "no role",
  5: "Minimal Access",
  10: "Guest",
  20: "Reporter",
  30: "Developer",
  40: "Maintainer",
};

/**
 * The role of the token's user on the project when it is less than Owner (undefined for an Owner or an
 * administrator): two reads, made only when a plan changes what only an Owner may.
 */
async function lessThanOwner(ctx: KindContext, id: string | number): Promise<string | undefined> {
  let me = ctx.memo.get("user:self") as Promise<{ is_admin?: boolean | null }> | undefined;
  if (!me) {
    me = ctx.api.get<{ is_admin?: boolean | null }>("/user", { shape: { is_admin: "boolean?" } });
    ctx.memo.set("user:self", me);
  }
  if ((await me).is_admin === true) return undefined;
  type Access = { access_level: number } | null;
  const p = await ctx.api.get<{ permissions?: { project_access?: Access; group_access?: Access } | null }>(
    apiPath`/projects/${id}`,
    { shape: { permissions: "object?" } },
  );
  const level = Math.max(
    p.permissions?.project_access?.access_level ?? 0,
    p.permissions?.group_access?.access_level ?? 0,
  );
  return level >= 50 ? undefined : (ROLES[level] ?? `access level ${level}`);
}

/** The visibility the project's group has once the plan is applied (declared, else as it is). */
async function groupVisibility(
  ctx: KindContext,
  group: string,
  planned: ReadonlyMap<string, Fields> | undefined,
): Promise<string | undefined> {
  const declared = textOf(planned?.get(lower(group))?.["visibility"]);
  if (declared !== undefined) return declared;
  return (await readGroup(ctx, group))?.["visibility"] as string | undefined;
}

/** The platform refuses a project more visible than its group. */
async function visibilityProblem(
  ctx: KindContext,
  key: string,
  desired: Fields,
  planned: ReadonlyMap<string, Fields> | undefined,
): Promise<KindProblem[]> {
  const wanted = textOf(desired["visibility"]);
  const group = parentPath(key);
  if (wanted === undefined || group === undefined || (VISIBILITY_LEVEL[wanted] ?? 0) === 0) return [];
  const theirs = await groupVisibility(ctx, group, planned);
  if (theirs === undefined || (VISIBILITY_LEVEL[wanted] ?? 0) <= (VISIBILITY_LEVEL[theirs] ?? 0)) return [];
  return [
    {
      field: "visibility",
      message: `visibility ${shownText(desired["visibility"])} is not allowed: its group ${group} is ${theirs}, and the platform refuses a project more visible than its group. Use ${theirs} or less, or raise the group's visibility in the manifests`,
    },
  ];
}

/**
 * What a project's create does after its POST: the settings the platform takes on update only, then the archive,
 * after everything else. Nothing when the project is `archived` already: a create found on re-reading whose
 * archive was done, the settings before it. The project as the last request answered, when one was sent.
 */
async function finishProject(
  ctx: KindContext,
  id: string | number,
  archived: boolean,
  desired: Fields,
): Promise<ApiProject | undefined> {
  if (archived) return undefined;
  let project: ApiProject | undefined;
  const later = schema().updateOnly.filter((name) => desired[name] !== undefined);
  if (later.length > 0) {
    project = await ctx.api.put<ApiProject>(apiPath`/projects/${id}`, {
      body: apiBody(desired, later),
      shape: PROJECT_SHAPE(),
    });
  }
  if (desired["archived"] === true) {
    project = await ctx.api.post<ApiProject>(apiPath`/projects/${id}/archive`, { shape: PROJECT_SHAPE() });
  }
  return project;
}

/** Waits for the export the platform prepares after `POST /projects/:id/export`, then downloads it. */
async function downloadExport(ctx: KindContext, id: string | number): Promise<Uint8Array> {
  const rounds = 15;
  let status = "none";
  let checks = 0;
  for (let round = 1; round <= rounds; round++) {
    const state = await ctx.api.get<{ export_status: string }>(apiPath`/projects/${id}/export`, {
      shape: { export_status: "string" },
    });
    checks = round;
    status = state.export_status;
    if (status === "finished") {
      return ctx.api.get<Uint8Array>(apiPath`/projects/${id}/export/download`, { binary: true });
    }
    if (status === "failed") break;
    // No wait after the last check: the error follows at once.
    if (round < rounds) await ctx.api.pause(round);
  }
  throw new Error(
    `the platform's export of the project ${status === "failed" ? "failed" : "is not ready"} (export_status ${JSON.stringify(status)} after ${checks} check${checks === 1 ? "" : "s"})`,
  );
}

/**
 * Problems with creating the project at `key` that the platform tells: its group must exist or be created by this
 * plan; a close path among the group's projects is a warning (a typo, or a new project next to a similar one).
 */
async function creationProblems(
  ctx: KindContext,
  key: string,
  plannedGroups: ReadonlyMap<string, Fields> | undefined,
): Promise<KindProblem[]> {
  const group = parentPath(key);
  if (group === undefined) return [];
  if (plannedGroups?.has(lower(group))) return [];
  if ((await ctx.resolve.groupId(group)) === undefined) {
    const above = parentPath(group);
    const siblings = above === undefined ? [] : ((await listSubgroups(ctx, above).catch(() => [])) ?? []);
    const near = didYouMean(
      group,
      siblings.map((g) => g.full_path),
    );
    return [
      {
        message: `project ${JSON.stringify(key)} does not exist, and it cannot be created: its group ${JSON.stringify(group)} does not exist or is not visible to this token's user${group.includes("/") ? "" : " (projects are created in groups, not in a user's namespace)"}${near ? `; did you mean group ${JSON.stringify(near)}?` : "."} Check the path, or declare the group in the manifests (within the plan's --target, when one is given; under --changed-since, a declared group is created only when its entry changed: apply without --changed-since first)`,
      },
    ];
  }
  // The group's own projects, listed once for every project the plan creates in it.
  const memo = `projects:in:${lower(group)}`;
  let listing = ctx.memo.get(memo) as Promise<string[]> | undefined;
  if (!listing) {
    listing = ctx.api
      .list<{ path_with_namespace: string }>(apiPath`/groups/${group}/projects`, {
        query: { simple: true, with_shared: false },
        shape: { path_with_namespace: "string" },
      })
      .then(
        (ps) => ps.map((p) => p.path_with_namespace),
        // No hint then: the create is planned all the same.
        () => [],
      );
    ctx.memo.set(memo, listing);
  }
  const paths = (await listing).filter((p) => lower(p) !== lower(key));
  // A slip of the keyboard in the project's own name: one edit in a short name, one in four in a longer one.
  const name = key.slice(group.length + 1);
  const close = didYouMean(
    name,
    paths.map((p) => p.slice(p.lastIndexOf("/") + 1)),
    Math.max(1, Math.floor(name.length / 4)),
  );
  const near = close === undefined ? undefined : `${group}/${close}`;
  return near
    ? [
        {
          severity: "warning",
          message: `project ${JSON.stringify(key)} does not exist and will be created, next to ${JSON.stringify(near)}: if the manifest means that project, correct the path`,
        },
      ]
    : [];
}

export const projectKind: Kind = {
  collection: "projects",
  segment: "project",
  parents: ["instance"],
  updateMode: "update",
  explicitDeleteOnly: true,
  shownOnDelete: ["name", "description", "visibility", "archived"],
  deletes:
    "its repository, wiki, issues, merge requests, pipelines and their jobs, pipeline schedules, CI/CD variables, triggers, environments, releases, packages, container images and everything else in it",

  async read(ctx, _parent, wanted, options) {
    const addressOnly = new Set((options?.addressOnly ?? []).map(lower));
    const read = wanted.filter((w) => !addressOnly.has(lower(w)));
    await readProjects(
      ctx,
      read,
      options?.fresh === true,
      new Set((options?.detailOf ?? []).map(lower)),
      options?.unchecked ?? [],
      options?.uncheckedOf && new Set(options.uncheckedOf.map(lower)),
    );
    const map = known(ctx);
    const out: Live[] = [];
    for (const path of wanted) {
      if (addressOnly.has(lower(path))) {
        out.push({ key: path, id: path, fields: {}, unverified: true });
        continue;
      }
      const p = map.get(lower(path));
      // Reported in the manifest's spelling: paths are one path in any case, as on the platform.
      if (p) out.push({ ...toLive(p, options), key: path });
    }
    return out;
  },

  check(_ctx, _parent, desired, live) {
    // ProjectFeature: merge requests and CI/CD no more open than the repository.
    const rank: Record<string, number> = { disabled: 0, private: 10, enabled: 20, public: 30 };
    const level = (field: string) => textOf(desired[field]) ?? (live?.fields[field] as string | undefined);
    const repository = level("repository_access_level");
    if (repository === undefined) return [];
    const problems: KindProblem[] = ["merge_requests_access_level", "builds_access_level"]
      .filter((field) => desired[field] !== undefined || desired["repository_access_level"] !== undefined)
      .filter((field) => (rank[level(field) ?? ""] ?? 0) > (rank[repository] ?? 0))
      .map((field) => ({
        field,
        message: `${field} ${level(field)} is more open than repository_access_level ${repository}: the platform refuses it. Open the repository as far, or this less`,
      }));
    if (repository === "disabled" && desired["ci_config_path"] !== undefined) {
      problems.push({
        field: "ci_config_path",
        message:
          "the platform shows ci_config_path only to those who can read the repository, and repository_access_level is disabled: it could never be compared. Leave ci_config_path out, or enable the repository",
      });
    }
    return problems;
  },

  async checkCreate(ctx, _parent, key, desired, scope) {
    return [
      ...(await creationProblems(ctx, key, scope.top?.("groups"))),
      ...(await visibilityProblem(ctx, key, desired, scope.top?.("groups"))),
    ];
  },

  async checkUpdate(ctx, _parent, live, desired, changed, scope) {
    const problems: KindProblem[] = [];
    if (changed.includes("visibility"))
      problems.push(...(await visibilityProblem(ctx, live.key, desired, scope.top?.("groups"))));
    const owner = changed.filter((f) => OWNER_ONLY.includes(f));
    if (owner.length > 0) {
      const role = await lessThanOwner(ctx, live.id!);
      if (role !== undefined) {
        for (const field of owner) {
          problems.push({
            field,
            message: `changing ${field} needs the Owner role on the project, and the token's user is ${role === "no role" ? "not a member" : `a ${role}`} (the platform ${field === "emails_disabled" ? "ignores it" : "refuses it"}): use an Owner's or an administrator's token, or leave ${field} out`,
          });
        }
      }
    }
    return problems;
  },

  async checkDelete(ctx, _parent, live) {
    const role = await lessThanOwner(ctx, live.id!);
    return role === undefined
      ? []
      : [
          {
            message: `deleting a project needs the Owner role on it, and the token's user is ${role === "no role" ? "not a member" : `a ${role}`}: use an Owner's or an administrator's token`,
          },
        ];
  },

  // Created in its group, or made more visible, after the group; lowered before it.
  ...visibilityOrder,

  childOrder(desired, live) {
    const wanted = desired["archived"];
    const now = live?.fields["archived"] === true;
    if (now && wanted === false) return { order: "first" };
    if (!now && wanted === true) return { order: "last" };
    // Archived and staying so, whether the manifest leaves `archived` out or declares it `true`.
    if (now)
      return {
        frozen:
          "it is archived, and the platform keeps an archived project read-only: set archived: false to unarchive it first",
      };
    return undefined;
  },

  async create(ctx, _parent, desired, key) {
    const group = parentPath(key);
    const path = key.slice(key.lastIndexOf("/") + 1);
    const namespaceId = group === undefined ? undefined : await ctx.resolve.groupId(group);
    if (namespaceId === undefined) {
      throw new Error(
        `its group ${group ?? key} does not exist: declare it in the manifests or create it first`,
      );
    }
    const sent = schema().sent.filter((name) => name !== "archived");
    let project: ApiProject;
    try {
      project = await ctx.api.post<ApiProject>("/projects", {
        body: {
          ...apiBody(desired, [...sent, ...Object.keys(desired).filter((n) => n.startsWith(UNCHECKED))]),
          name: textOf(desired["name"]) ?? path,
          path,
          namespace_id: namespaceId,
        },
        shape: PROJECT_SHAPE(),
      });
    } catch (error) {
      if (
        error instanceof ApiError &&
        error.status === 400 &&
        /has already been taken/.test(error.platformMessage)
      ) {
        const now = await orNotFound(
          ctx.api.get<ApiProject>(apiPath`/projects/${key}`, { shape: PROJECT_SHAPE() }),
        );
        throw new Error(
          now
            ? `project ${now.path_with_namespace} exists now: it was made since the plan was (the platform compares paths in any case). Plan again (the platform said: ${error.platformMessage})`
            : `a project at ${key} already exists, but this token's user cannot see it (it was not found when planning), or its name is taken in the group: ask an administrator to give the token's user access to it, or choose another path or name (the platform said: ${error.platformMessage})`,
        );
      }
      throw error;
    }
    return toLive((await finishProject(ctx, project.id, false, desired)) ?? project, unchecked(desired));
  },

  async finishCreate(ctx, _parent, found, desired) {
    const project = await finishProject(ctx, found.id!, found.fields["archived"] === true, desired);
    return project ? toLive(project, unchecked(desired)) : found;
  },

  async update(ctx, _parent, live, desired, changed) {
    const id = live.id!;
    const settings = changed.filter((name) => name !== "archived");
    const archive = changed.includes("archived") ? desired["archived"] === true : undefined;
    let project: ApiProject | undefined;
    // Unarchived first: an archived project is read-only.
    if (archive === false)
      project = await ctx.api.post<ApiProject>(apiPath`/projects/${id}/unarchive`, {
        shape: PROJECT_SHAPE(),
      });
    if (settings.length > 0) {
      project = await ctx.api.put<ApiProject>(apiPath`/projects/${id}`, {
        body: apiBody(desired, settings),
        shape: PROJECT_SHAPE(),
      });
    }
    if (archive === true)
      project = await ctx.api.post<ApiProject>(apiPath`/projects/${id}/archive`, { shape: PROJECT_SHAPE() });
    return project ? toLive(project, unchecked(desired)) : undefined;
  },

  async remove(ctx, _parent, live) {
    await ctx.api.delete(apiPath`/projects/${live.id!}`);
  },

  async export(_ctx, _parent, live) {
    // A name that is the path's last segment is what a create gives when none is set: left out, as a default.
    const { name, ...rest } = live.fields;
    return name === live.key.slice(live.key.lastIndexOf("/") + 1) ? rest : live.fields;
  },

  backup: {
    async download(ctx, _parent, live) {
      await ctx.api.post(apiPath`/projects/${live.id!}/export`);
      return downloadExport(ctx, live.id!);
    },
    // The platform's project export: its version and the project tree (legacy JSON, or ndjson).
    entries: ["VERSION", ["project.json", "tree/project.json"]],
    holds:
      "the project's settings, repository, wiki, issues, merge requests, milestones, labels, badges, pipeline schedules and members; not its CI/CD variables, job logs and artifacts, container images, packages, webhooks, deploy keys or triggers",
  },
};
