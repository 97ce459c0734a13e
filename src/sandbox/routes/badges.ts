import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authenticateNonGet,
  canReadProject,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  findProject,
  requireAuth,
} from "../auth.js";
import { forbidden, HttpError, recordNotFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import type { GroupRec, ProjectRec, Store } from "../store.js";
import { fakeCommitSha } from "./pipeline-schedules.js";

/**
 * Project and group badges (contract "Badges"; platform-behavior §3.4). One set of handlers serves
 * `/projects/:id/badges` and `/groups/:id/badges`.
 *
 * - GETs work without a token for public projects and groups (`authenticate_non_get!`); writes need Maintainer on
 *   a project (`admin_project`) or Owner on a group (`admin_group`): 401 for a guest, 403 otherwise.
 * - `GET /projects/:id/badges` lists the project's badges and those of every ancestor group (`kind: "group"`),
 *   ordered by `created_at` (then id), with an optional case-sensitive exact `name` filter. A group lists only its
 *   own badges.
 * - A group badge's id is found through a project below it (GET, PUT), but DELETE through the project is 403
 *   `{"error":"To delete a Group badge please use the Group endpoint"}` (11.8-12.x, and the documented intent).
 * - A missing badge is `{"message":"404 Not found"}` (`badges.find`).
 * - `link_url` and `image_url` must be http(s) URLs: 400 `{"message":{"link_url":["..."]}}`.
 * - Placeholders `%{project_path}`, `%{project_id}`, `%{default_branch}`, `%{commit_sha}` are resolved in
 *   `rendered_link_url`/`rendered_image_url` with the project the badge is shown for; for a group's own list the
 *   group's newest project the caller can see is used (the platform's `GroupProjectsFinder...first`), and with no
 *   project the URLs are returned unchanged. `%{commit_sha}` is a stable fake SHA of the default branch (the sandbox
 *   has no repositories); without a default branch it and `%{default_branch}` render empty.
 * - `GET .../badges/render?link_url=&image_url=` needs a signed-in administrator of the source and answers
 *   `{link_url, image_url, rendered_link_url, rendered_image_url}`. A source the caller cannot see is 404
 *   (`Project Not Found` / `Group Not Found`) for a guest too, as the contract's error table has it for every GET on
 *   a private project or group by a non-member; only then is a guest 401 and a non-admin 403. The platform's own
 *   code (13.x `lib/api/badges.rb`) calls `authenticate!` first and would answer that guest 401: here the sandbox
 *   follows the contract, not the platform.
 *
 * - Group badges go into the group export archive and come back with an import (routes/group-import-export.ts).
 *
 * Fixture key `badges` (a list): `{ project: acme/api, link_url: ..., image_url: ..., name: coverage }` or
 * `{ group: acme, link_url: ..., image_url: ... }`.
 */

export interface BadgeRec {
  id: number;
  source_type: "project" | "group";
  source_id: number;
  name: string | null;
  link_url: string;
  image_url: string;
  created_at: string;
  updated_at: string;
}

interface BadgesArea {
  badges: BadgeRec[];
}

type Source = { type: "project"; project: ProjectRec } | { type: "group"; group: GroupRec };

const URL_VARIABLE = /%\{(project_path|project_id|default_branch|commit_sha)\}/g;

/** The model's URL validation (`url: { protocols: %w(http https) }`); an empty list when valid. */
export function badgeUrlErrors(url: string): string[] {
  if (url.trim() === "") return ["must be a valid URL"];
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return ["must be a valid URL"];
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return ["is blocked: Only allowed schemes are http, https"];
  }
  if (!parsed.hostname) return ["must be a valid URL"];
  return [];
}

function urlErrors(fields: { link_url: string; image_url: string }): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const link = badgeUrlErrors(fields.link_url);
  if (link.length > 0) errors["link_url"] = link;
  const image = badgeUrlErrors(fields.image_url);
  if (image.length > 0) errors["image_url"] = image;
  return errors;
}

/** Resolves the placeholders of `url` for `project` (unchanged without a project). */
export function renderBadgeUrl(store: Store, url: string, project: ProjectRec | undefined): string {
  if (!project) return url;
  return url.replace(URL_VARIABLE, (_m, name: string) => {
    switch (name) {
      case "project_path":
        return store.projectFullPath(project);
      case "project_id":
        return String(project.id);
      case "default_branch":
        return project.default_branch ?? "";
      default:
        return project.default_branch === null ? "" : fakeCommitSha(project.id, project.default_branch);
    }
  });
}

function basicJson(
  store: Store,
  b: Pick<BadgeRec, "link_url" | "image_url">,
  project: ProjectRec | undefined,
) {
  return {
    link_url: b.link_url,
    image_url: b.image_url,
    rendered_link_url: renderBadgeUrl(store, b.link_url, project),
    rendered_image_url: renderBadgeUrl(store, b.image_url, project),
  };
}

function badgeJson(store: Store, b: BadgeRec, project: ProjectRec | undefined): Record<string, unknown> {
  return { name: b.name, ...basicJson(store, b, project), id: b.id, kind: b.source_type };
}

function byCreation(a: BadgeRec, b: BadgeRec): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id;
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<BadgesArea>("badges", () => ({ badges: [] }));

  const sourceOf = (ctx: Ctx, type: "project" | "group"): Source =>
    type === "project"
      ? { type, project: findProject(ctx, ctx.path["id"]!) }
      : { type, group: findGroup(ctx, ctx.path["id"]!) };

  /** `authorize_admin_source!`: Maintainer of the project or Owner of the group (admins pass). */
  const requireAdminOf = (ctx: Ctx, source: Source): void => {
    const user = requireAuth(ctx);
    const ok =
      source.type === "project"
        ? effectiveProjectLevel(ctx.store, user, source.project) >= ACCESS.maintainer
        : effectiveGroupLevel(ctx.store, user, source.group) >= ACCESS.owner;
    if (!ok) throw forbidden();
  };

  /** The project placeholders are rendered with. */
  const renderProject = (ctx: Ctx, source: Source): ProjectRec | undefined => {
    if (source.type === "project") return source.project;
    return ctx.store
      .projectsIn(source.group.id)
      .filter((p) => canReadProject(ctx.store, ctx.user, p))
      .sort((a, b) => b.id - a.id)[0];
  };

  /** `source.badges`: a project's own badges plus its ancestor groups'; a group's own badges. */
  const badgesOf = (ctx: Ctx, source: Source): BadgeRec[] => {
    const all = area().badges;
    if (source.type === "group") {
      return all.filter((b) => b.source_type === "group" && b.source_id === source.group.id).sort(byCreation);
    }
    const ns = ctx.store.group(source.project.namespace_id);
    const groupIds = new Set(ns ? ctx.store.ancestorsAndSelf(ns).map((g) => g.id) : []);
    return all
      .filter(
        (b) =>
          (b.source_type === "project" && b.source_id === source.project.id) ||
          (b.source_type === "group" && groupIds.has(b.source_id)),
      )
      .sort(byCreation);
  };

  const findBadge = (ctx: Ctx, source: Source): BadgeRec => {
    const id = ctx.declare({ badge_id: { type: "integer", required: true } }).badge_id;
    const badge = badgesOf(ctx, source).find((b) => b.id === id);
    if (!badge) throw recordNotFound();
    return badge;
  };

  app.onGroupExport<Pick<BadgeRec, "name" | "link_url" | "image_url">>("badges", {
    rows: (_store, g) =>
      area()
        .badges.filter((b) => b.source_type === "group" && b.source_id === g.id)
        .sort(byCreation)
        .map((b) => ({
          id: b.id,
          link_url: b.link_url,
          image_url: b.image_url,
          project_id: null,
          group_id: g.id,
          created_at: b.created_at,
          updated_at: b.updated_at,
          name: b.name,
          type: "GroupBadge",
        })),
    read: (row) => {
      const name = row["name"] ?? null;
      if (name !== null && typeof name !== "string") throw new Error("name must be a string or null");
      for (const key of ["link_url", "image_url"]) {
        if (typeof row[key] !== "string") throw new Error(`${key} must be a string`);
      }
      return { name, link_url: row["link_url"] as string, image_url: row["image_url"] as string };
    },
    restore: (store, g, rows) => {
      for (const row of rows) {
        if (Object.keys(urlErrors(row)).length > 0) continue;
        const now = store.nowIso();
        area().badges.push({
          id: store.nextId("badges"),
          source_type: "group",
          source_id: g.id,
          ...row,
          created_at: now,
          updated_at: now,
        });
      }
    },
  });

  for (const type of ["project", "group"] as const) {
    const base = `/${type}s/:id/badges`;

    app.get(base, (ctx) => {
      const source = sourceOf(ctx, type);
      const q = ctx.declare({ name: { type: "string" } });
      const project = renderProject(ctx, source);
      const rows = badgesOf(ctx, source).filter((b) => q.name === undefined || b.name === q.name);
      return ctx.paginate(rows, (b) => badgeJson(ctx.store, b, project));
    });

    app.get(`${base}/render`, (ctx) => {
      const source = sourceOf(ctx, type);
      requireAdminOf(ctx, source);
      const p = ctx.declare({
        link_url: { type: "string", required: true },
        image_url: { type: "string", required: true },
      });
      const errors = urlErrors(p);
      if (Object.keys(errors).length > 0) throw validation(errors);
      return basicJson(ctx.store, p, renderProject(ctx, source));
    });

    app.get(`${base}/:badge_id`, (ctx) => {
      const source = sourceOf(ctx, type);
      return badgeJson(ctx.store, findBadge(ctx, source), renderProject(ctx, source));
    });

    app.post(base, (ctx) => {
      authenticateNonGet(ctx);
      const source = sourceOf(ctx, type);
      requireAdminOf(ctx, source);
      const p = ctx.declare({
        link_url: { type: "string", required: true },
        image_url: { type: "string", required: true },
        name: { type: "string" },
      });
      const errors = urlErrors(p);
      if (Object.keys(errors).length > 0) throw validation(errors);
      const now = ctx.store.nowIso();
      const badge: BadgeRec = {
        id: ctx.store.nextId("badges"),
        source_type: type,
        source_id: source.type === "project" ? source.project.id : source.group.id,
        name: p.name ?? null,
        link_url: p.link_url.trim(),
        image_url: p.image_url.trim(),
        created_at: now,
        updated_at: now,
      };
      area().badges.push(badge);
      return created(badgeJson(ctx.store, badge, renderProject(ctx, source)));
    });

    app.put(`${base}/:badge_id`, (ctx) => {
      authenticateNonGet(ctx);
      const source = sourceOf(ctx, type);
      requireAdminOf(ctx, source);
      const badge = findBadge(ctx, source);
      const p = ctx.declare({
        link_url: { type: "string" },
        image_url: { type: "string" },
        name: { type: "string" },
      });
      const next = { link_url: p.link_url ?? badge.link_url, image_url: p.image_url ?? badge.image_url };
      const errors = urlErrors(next);
      if (Object.keys(errors).length > 0) throw validation(errors);
      badge.link_url = next.link_url.trim();
      badge.image_url = next.image_url.trim();
      if (p.name !== undefined) badge.name = p.name;
      badge.updated_at = ctx.store.nowIso();
      return badgeJson(ctx.store, badge, renderProject(ctx, source));
    });

    app.delete(`${base}/:badge_id`, (ctx) => {
      authenticateNonGet(ctx);
      const source = sourceOf(ctx, type);
      requireAdminOf(ctx, source);
      const badge = findBadge(ctx, source);
      if (type === "project" && badge.source_type === "group") {
        throw new HttpError(403, { error: "To delete a Group badge please use the Group endpoint" });
      }
      checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), badge.updated_at);
      const a = area();
      a.badges = a.badges.filter((b) => b.id !== badge.id);
      return noContent();
    });
  }

  app.onFixture("badges", (value, { store, source }) => {
    const fail = (where: string, msg: string) =>
      new FixtureError(`sandbox: fixture ${source}: badges${where} ${msg}`);
    if (!Array.isArray(value)) throw fail("", "must be a list");
    const table = store.area<BadgesArea>("badges", () => ({ badges: [] }));
    value.forEach((raw, i) => {
      const where = `[${i}]`;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw fail(where, "must be a mapping");
      const e = raw as Record<string, unknown>;
      let owner: { type: "project" | "group"; id: number };
      if (typeof e["project"] === "string") {
        const p = store.projectByFullPath(e["project"]);
        if (!p) throw fail(`${where}.project`, `names "${e["project"]}", which is not in projects`);
        owner = { type: "project", id: p.id };
      } else if (typeof e["group"] === "string") {
        const g = store.groupByFullPath(e["group"]);
        if (!g) throw fail(`${where}.group`, `names "${e["group"]}", which is not in groups`);
        owner = { type: "group", id: g.id };
      } else {
        throw fail(where, "needs project (a project full path) or group (a group full path)");
      }
      const link = typeof e["link_url"] === "string" ? e["link_url"] : "";
      const image = typeof e["image_url"] === "string" ? e["image_url"] : "";
      const errors = urlErrors({ link_url: link, image_url: image });
      for (const [k, msgs] of Object.entries(errors)) throw fail(`${where}.${k}`, msgs.join(", "));
      const now = store.nowIso();
      table.badges.push({
        id: store.nextId("badges"),
        source_type: owner.type,
        source_id: owner.id,
        name: typeof e["name"] === "string" ? e["name"] : null,
        link_url: link,
        image_url: image,
        created_at: now,
        updated_at: now,
      });
    });
  });
}
