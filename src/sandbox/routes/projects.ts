import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authenticateNonGet,
  authorizeProject,
  canReadProject,
  effectiveGroupLevel,
  findProject,
  groupAccessLevel,
  projectAccessLevel,
  requireAuth,
} from "../auth.js";
import { projectJson, projectSimple } from "../entities.js";
import { HttpError, notFound, validation } from "../errors.js";
import { buildProject, insertProject, validateProject } from "../model.js";
import type { ParamSpec } from "../params.js";
import { toQuery } from "../request.js";
import { accepted, created, json, type Reply } from "../respond.js";
import type { GroupRec, ProjectRec, UserRec } from "../store.js";
import { VISIBILITIES } from "../store.js";

/** Projects: create, read, list, update, delete (sharing with groups is in shares.ts). */

const FEATURE_SPEC = {
  description: { type: "string" },
  visibility: { type: "string", values: VISIBILITIES },
  default_branch: { type: "string" },
  issues_enabled: { type: "boolean" },
  merge_requests_enabled: { type: "boolean" },
  wiki_enabled: { type: "boolean" },
  jobs_enabled: { type: "boolean" },
  snippets_enabled: { type: "boolean" },
  container_registry_enabled: { type: "boolean" },
  shared_runners_enabled: { type: "boolean" },
  public_jobs: { type: "boolean" },
  public_builds: { type: "boolean" },
  request_access_enabled: { type: "boolean" },
  tag_list: { type: "string[]", split: true },
  topics: { type: "string[]", split: true },
  initialize_with_readme: { type: "boolean" },
} as const satisfies Record<string, ParamSpec>;

const collator = new Intl.Collator("en");

function withAccess(ctx: Ctx, p: ProjectRec): Record<string, unknown> {
  const out = projectJson(ctx, ctx.store, p);
  const user = ctx.user;
  const direct = user ? ctx.store.member("project", p.id, user.id) : undefined;
  const ns = ctx.store.group(p.namespace_id);
  const groupLevel = user && ns ? groupAccessLevel(ctx.store, user, ns) : 0;
  out["permissions"] = {
    project_access: direct ? { access_level: direct.access_level, notification_level: 3 } : null,
    group_access: groupLevel > 0 ? { access_level: groupLevel, notification_level: 3 } : null,
  };
  return out;
}

/** Applies create/update parameters to a record (aliases: public_builds → public_jobs, topics → tag_list). */
function applyFeatures(p: ProjectRec, input: Record<string, unknown>): void {
  const { public_builds, topics, tag_list, initialize_with_readme, ...rest } = input;
  for (const [k, v] of Object.entries(rest))
    if (v !== undefined) (p as unknown as Record<string, unknown>)[k] = v;
  if (public_builds !== undefined) p.public_jobs = public_builds as boolean;
  if (tag_list !== undefined) p.tag_list = tag_list as string[];
  if (topics !== undefined) p.tag_list = topics as string[];
  if (initialize_with_readme === true && p.default_branch === null) p.default_branch = "master";
}

function canCreateIn(ctx: Ctx, user: UserRec, g: GroupRec): boolean {
  if (user.admin) return true;
  const level = effectiveGroupLevel(ctx.store, user, g);
  if (g.project_creation_level === "noone") return level >= ACCESS.owner;
  if (g.project_creation_level === "maintainer") return level >= ACCESS.maintainer;
  return level >= ACCESS.developer;
}

/**
 * Keyset pagination of GET /projects (§1.2, 13.x): only with `order_by=id`; `id_after`/`id_before` select the
 * page, the next page is announced by `Link` (and the deprecated `Links`) with `rel="next"`, absent at the end.
 */
function keysetPage(
  ctx: Ctx,
  sorted: ProjectRec[],
  orderBy: string,
  sort: string,
  view: (p: ProjectRec) => unknown,
): Reply {
  if (orderBy !== "id") throw methodNotAllowedKeyset();
  const q = ctx.declare({
    id_after: { type: "integer" },
    id_before: { type: "integer" },
    per_page: { type: "integer" },
  });
  const perPage = q.per_page === undefined || q.per_page <= 0 ? 20 : Math.min(q.per_page, 100);
  let rows = sorted;
  if (q.id_after !== undefined) rows = rows.filter((x) => x.id > (q.id_after as number));
  if (q.id_before !== undefined) rows = rows.filter((x) => x.id < (q.id_before as number));
  const page = rows.slice(0, perPage);
  const headers: Record<string, string> = {};
  const last = page[page.length - 1];
  if (last && rows.length > perPage) {
    const params: Record<string, unknown> = { ...ctx.req.query, per_page: String(perPage) };
    delete params["id_after"];
    delete params["id_before"];
    params[sort === "asc" ? "id_after" : "id_before"] = String(last.id);
    const link = `<${ctx.baseUrl}${ctx.req.path}?${toQuery(params)}>; rel="next"`;
    headers["Link"] = link;
    headers["Links"] = link;
  }
  return json(page.map(view), 200, headers);
}

function methodNotAllowedKeyset(): HttpError {
  return new HttpError(405, { error: "Keyset pagination is not yet available for this type of request" });
}

export function register(app: SandboxApp): void {
  app.get("/projects", (ctx) => {
    const p = ctx.declare({
      archived: { type: "boolean" },
      visibility: { type: "string", values: VISIBILITIES },
      order_by: {
        type: "string",
        values: ["id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity"],
        default: "created_at",
      },
      sort: { type: "string", values: ["asc", "desc"], default: "desc" },
      search: { type: "string" },
      simple: { type: "boolean", default: false },
      owned: { type: "boolean", default: false },
      membership: { type: "boolean", default: false },
      starred: { type: "boolean", default: false },
      min_access_level: { type: "integer", values: [10, 20, 30, 40, 50] },
      with_issues_enabled: { type: "boolean", default: false },
      with_merge_requests_enabled: { type: "boolean", default: false },
      statistics: { type: "boolean", default: false },
      with_custom_attributes: { type: "boolean", default: false },
    });
    const { store, user } = ctx;
    let list = store.data.projects.filter((x) => canReadProject(store, user, x));
    if (p.archived !== undefined) list = list.filter((x) => x.archived === p.archived);
    if (p.visibility) list = list.filter((x) => x.visibility === p.visibility);
    if (p.search) {
      const t = p.search.toLowerCase();
      list = list.filter((x) => x.name.toLowerCase().includes(t) || x.path.toLowerCase().includes(t));
    }
    if (p.owned) list = user ? list.filter((x) => x.namespace_id === user.namespace_id) : [];
    if (p.membership) list = user ? list.filter((x) => projectAccessLevel(store, user, x) > 0) : [];
    if (p.starred) list = [];
    if (p.min_access_level !== undefined) {
      const min = p.min_access_level;
      list = user ? list.filter((x) => projectAccessLevel(store, user, x) >= min) : [];
    }
    if (p.with_issues_enabled) list = list.filter((x) => x.issues_enabled);
    if (p.with_merge_requests_enabled) list = list.filter((x) => x.merge_requests_enabled);
    const dir = p.sort === "asc" ? 1 : -1;
    const key = (x: ProjectRec): string | number =>
      p.order_by === "name"
        ? x.name
        : p.order_by === "path"
          ? x.path
          : p.order_by === "created_at"
            ? x.created_at
            : p.order_by === "updated_at" || p.order_by === "last_activity_at"
              ? x.last_activity_at
              : x.id;
    list.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const c =
        typeof ka === "number" && typeof kb === "number" ? ka - kb : collator.compare(String(ka), String(kb));
      return c * dir || (a.id - b.id) * dir;
    });
    const view = (x: ProjectRec) => (p.simple ? projectSimple(ctx, store, x) : projectJson(ctx, store, x));
    if (ctx.params["pagination"] === "keyset") return keysetPage(ctx, list, p.order_by, p.sort, view);
    return ctx.paginate(list, view);
  });

  app.get("/projects/:id", (ctx) => {
    const p = findProject(ctx, ctx.path["id"]!);
    ctx.declare({
      statistics: { type: "boolean" },
      license: { type: "boolean" },
      with_custom_attributes: { type: "boolean" },
    });
    return withAccess(ctx, p);
  });

  app.post("/projects", (ctx) => {
    authenticateNonGet(ctx);
    const user = requireAuth(ctx);
    const p = ctx.declare(
      {
        name: { type: "string" },
        path: { type: "string" },
        namespace_id: { type: "integer" },
        ...FEATURE_SPEC,
      },
      { atLeastOneOf: ["name", "path"] },
    );
    const { name, path, namespace_id, ...features } = p;
    let namespaceId = user.namespace_id;
    if (namespace_id !== undefined && namespace_id !== user.namespace_id) {
      const g = ctx.store.group(namespace_id);
      if (!g) {
        if (ctx.store.userByNamespace(namespace_id) && user.admin) namespaceId = namespace_id;
        else throw notFound("Namespace");
      } else {
        if (!canCreateIn(ctx, user, g)) {
          throw validation({ namespace: ["is not valid"] });
        }
        namespaceId = g.id;
      }
    }
    const finalName = name ?? path ?? "";
    const finalPath = path ?? finalName.toLowerCase().replace(/[^a-z0-9_.-]+/g, "-");
    const rec = buildProject(ctx.store, {
      name: finalName,
      path: finalPath,
      namespace_id: namespaceId,
      creator_id: user.id,
    });
    applyFeatures(rec, features);
    const errors = validateProject(ctx.store, rec);
    if (Object.keys(errors).length > 0) throw validation(errors);
    insertProject(ctx.store, rec);
    if (!ctx.store.group(namespaceId)) ctx.store.setMember("project", rec.id, user.id, ACCESS.maintainer);
    return created(withAccess(ctx, rec));
  });

  app.put("/projects/:id", (ctx) => {
    authenticateNonGet(ctx);
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    const input = ctx.declare({
      name: { type: "string" },
      path: { type: "string" },
      archived: { type: "boolean" },
      ...FEATURE_SPEC,
    });
    if (input.visibility !== undefined && input.visibility !== p.visibility)
      authorizeProject(ctx, p, ACCESS.owner);
    const next: ProjectRec = structuredClone(p);
    applyFeatures(next, input);
    const errors = validateProject(ctx.store, next);
    if (Object.keys(errors).length > 0) throw validation(errors);
    Object.assign(p, next, { last_activity_at: ctx.store.nowIso() });
    return withAccess(ctx, p);
  });

  app.delete("/projects/:id", (ctx) => {
    authenticateNonGet(ctx);
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.owner);
    ctx.store.removeProject(p.id);
    return accepted();
  });

  app.post("/projects/:id/archive", (ctx) => {
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    p.archived = true;
    return created(withAccess(ctx, p));
  });

  app.post("/projects/:id/unarchive", (ctx) => {
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    p.archived = false;
    return created(withAccess(ctx, p));
  });
}
