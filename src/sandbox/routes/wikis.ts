import { randomBytes } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, requireAdmin, requireAuth } from "../auth.js";
import { forbidden, notFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { json, noContent, raw } from "../respond.js";
import type { ProjectRec, Store } from "../store.js";

/**
 * Project wiki pages and attachments (contract "Wikis"; platform-behavior §3.11, the 13.x interface).
 *
 * - `GET /projects/:id/wikis` lists every page (**not paginated**: no pagination headers, as on the platform, although
 *   the contract's conventions say arrays are paginated: go-gitlab's `ListWikis` cannot ask for a second page, so
 *   pagination would hide pages from it), ordered by slug;
 *   `with_content=true` adds `content`. `GET …/wikis/:slug` (a page in a directory is `dir%2Fpage`),
 *   POST (201; `title` and `content` required; `format` markdown (default) | rdoc | asciidoc | org), PUT
 *   (`at_least_one_of content, title, format`; a new title moves the page to the new slug), DELETE (204, no body).
 * - Slug: the title with whitespace and `<`, `>`, `+` turned into `-`; `/` makes directories. The title reads back
 *   as the last path segment with `-` shown as a space (the 11.8 `unhyphenize`), so "dir/My Page" is slug
 *   `dir/My-Page`, title "My Page".
 * - Read: anyone who can see the project while its wiki is enabled (otherwise 403); create and update need
 *   Developer, delete Maintainer (403; 401 for a guest). Missing page: 404 `{"message":"404 Wiki Page Not Found"}`.
 * - Validation: blank title or content is 400 `{"message":{"title":["can't be blank"]}}`; a second page with the
 *   same slug is 400 `{"message":{"base":["Duplicate page: A page with that title already exists"]}}`.
 * - `POST …/wikis/attachments` (multipart `file`, optional `branch`, default `master`, the wiki repository's
 *   default branch) answers 201 with `file_name`, `file_path` (`uploads/<32 hex>/<name>`), `branch` and
 *   `link {url, markdown}` (`![name](path)` for images and videos). The bytes are kept in the state; administrators
 *   can fetch them back from `GET /-/sandbox/projects/:id/wiki_attachments/<file_path>` (sandbox-only).
 *
 * Fixture key `wikis`: a list of `{ project: <full path>, title, content, format? }`.
 */

export const WIKI_FORMATS = ["markdown", "rdoc", "asciidoc", "org"] as const;
type Format = (typeof WIKI_FORMATS)[number];

export interface WikiPageRec {
  project_id: number;
  slug: string;
  format: Format;
  content: string;
  created_at: string;
  updated_at: string;
}

export interface WikiAttachmentRec {
  project_id: number;
  file_name: string;
  file_path: string;
  branch: string;
  content_type: string;
  /** The file's bytes, base64. */
  data: string;
  created_at: string;
}

interface WikisArea {
  pages: WikiPageRec[];
  attachments: WikiAttachmentRec[];
}

const DEFAULT_BRANCH = "master";
const MEDIA = /\.(png|jpe?g|gif|bmp|tiff?|ico|webp|svg|mp4|m4v|mov|webm|ogv)$/i;

export function wikisArea(store: Store): WikisArea {
  return store.area<WikisArea>("wikis", () => ({ pages: [], attachments: [] }));
}

/** Gollum's `cname` per path segment: whitespace and `<`, `>`, `+` become `-`. */
export function slugOf(title: string): string {
  return title
    .split("/")
    .map((s) => s.trim().replace(/[\s<>+]/g, "-"))
    .filter((s) => s !== "")
    .join("/");
}

/** The title the platform shows: the last segment of the slug with `-` as a space. */
function titleOf(slug: string): string {
  return (slug.split("/").pop() ?? slug).replace(/-/g, " ");
}

function pageJson(p: WikiPageRec, withContent: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { format: p.format, slug: p.slug, title: titleOf(p.slug) };
  if (withContent) out["content"] = p.content;
  return out;
}

function readableWiki(ctx: Ctx): ProjectRec {
  const project = findProject(ctx, ctx.path["id"]!);
  if (!project.wiki_enabled && !ctx.isAdmin) throw forbidden();
  return project;
}

function writableWiki(ctx: Ctx, level: number): ProjectRec {
  const project = findProject(ctx, ctx.path["id"]!);
  const user = requireAuth(ctx);
  if (effectiveProjectLevel(ctx.store, user, project) < level || (!project.wiki_enabled && !user.admin)) {
    throw forbidden();
  }
  return project;
}

function findPage(ctx: Ctx, project: ProjectRec): WikiPageRec {
  const slug = ctx.path["slug"]!;
  const page = wikisArea(ctx.store).pages.find((p) => p.project_id === project.id && p.slug === slug);
  if (!page) throw notFound("Wiki Page");
  return page;
}

function checkPage(
  store: Store,
  title: string,
  content: string,
  slug: string,
  projectId: number,
  except?: WikiPageRec,
): void {
  const errors: Record<string, string[]> = {};
  if (title.trim() === "" || slug === "") errors["title"] = ["can't be blank"];
  if (content.trim() === "") errors["content"] = ["can't be blank"];
  if (Object.keys(errors).length > 0) throw validation(errors);
  const lower = slug.toLowerCase();
  if (
    wikisArea(store).pages.some(
      (p) => p.project_id === projectId && p.slug.toLowerCase() === lower && p !== except,
    )
  ) {
    throw validation({ base: ["Duplicate page: A page with that title already exists"] });
  }
}

function seedWikis(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("wikis must be a list");
  value.forEach((raw, i) => {
    const where = `wikis[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw fail(`${where} must be a mapping`);
    const o = raw as Record<string, unknown>;
    const project = typeof o["project"] === "string" ? store.projectByFullPath(o["project"]) : undefined;
    if (!project) throw fail(`${where}.project "${String(o["project"])}" is not in projects`);
    if (typeof o["title"] !== "string") throw fail(`${where}.title is required (a string)`);
    if (typeof o["content"] !== "string") throw fail(`${where}.content is required (a string)`);
    const format = (o["format"] ?? "markdown") as Format;
    if (!WIKI_FORMATS.includes(format))
      throw fail(`${where}.format must be one of ${WIKI_FORMATS.join(", ")}`);
    const slug = slugOf(o["title"]);
    try {
      checkPage(store, o["title"], o["content"], slug, project.id);
    } catch (error) {
      throw fail(`${where} (${o["title"]}): ${JSON.stringify((error as { body?: unknown }).body)}`);
    }
    const now = store.nowIso();
    wikisArea(store).pages.push({
      project_id: project.id,
      slug,
      format,
      content: o["content"],
      created_at: now,
      updated_at: now,
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("wikis", (value, { store, source }) => seedWikis(value, store, source));

  app.get("/projects/:id/wikis", (ctx) => {
    const project = readableWiki(ctx);
    const p = ctx.declare({ with_content: { type: "boolean", default: false } });
    const pages = wikisArea(ctx.store)
      .pages.filter((x) => x.project_id === project.id)
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    return pages.map((x) => pageJson(x, p.with_content));
  });

  app.get("/projects/:id/wikis/:slug", (ctx) => {
    const project = readableWiki(ctx);
    return pageJson(findPage(ctx, project), true);
  });

  app.post("/projects/:id/wikis", (ctx) => {
    const project = writableWiki(ctx, ACCESS.developer);
    const p = ctx.declare({
      title: { type: "string", required: true },
      content: { type: "string", required: true },
      format: { type: "string", values: WIKI_FORMATS, default: "markdown" },
    });
    const slug = slugOf(p.title);
    checkPage(ctx.store, p.title, p.content, slug, project.id);
    const now = ctx.store.nowIso();
    const page: WikiPageRec = {
      project_id: project.id,
      slug,
      format: p.format as Format,
      content: p.content,
      created_at: now,
      updated_at: now,
    };
    wikisArea(ctx.store).pages.push(page);
    return json(pageJson(page, true), 201);
  });

  app.put("/projects/:id/wikis/:slug", (ctx) => {
    const project = writableWiki(ctx, ACCESS.developer);
    const p = ctx.declare(
      {
        title: { type: "string" },
        content: { type: "string" },
        format: { type: "string", values: WIKI_FORMATS },
      },
      { atLeastOneOf: ["content", "title", "format"] },
    );
    const page = findPage(ctx, project);
    const slug = p.title !== undefined ? slugOf(p.title) : page.slug;
    const content = p.content ?? page.content;
    checkPage(ctx.store, p.title ?? titleOf(page.slug), content, slug, project.id, page);
    page.slug = slug;
    page.content = content;
    if (p.format !== undefined) page.format = p.format as Format;
    page.updated_at = ctx.store.nowIso();
    return pageJson(page, true);
  });

  app.delete("/projects/:id/wikis/:slug", (ctx) => {
    const project = writableWiki(ctx, ACCESS.maintainer);
    const page = findPage(ctx, project);
    const area = wikisArea(ctx.store);
    area.pages = area.pages.filter((x) => x !== page);
    return noContent();
  });

  app.post("/projects/:id/wikis/attachments", (ctx) => {
    const project = writableWiki(ctx, ACCESS.developer);
    const p = ctx.declare({ file: { type: "file", required: true }, branch: { type: "string" } });
    const fileName = (p.file.filename.split(/[\\/]/).pop() ?? "").replace(/[^\w.\-+@ ]/g, "_") || "file";
    const filePath = `uploads/${randomBytes(16).toString("hex")}/${fileName}`;
    const branch = p.branch !== undefined && p.branch !== "" ? p.branch : DEFAULT_BRANCH;
    wikisArea(ctx.store).attachments.push({
      project_id: project.id,
      file_name: fileName,
      file_path: filePath,
      branch,
      content_type: p.file.type,
      data: p.file.data.toString("base64"),
      created_at: ctx.store.nowIso(),
    });
    return json(
      {
        file_name: fileName,
        file_path: filePath,
        branch,
        link: { url: filePath, markdown: `${MEDIA.test(fileName) ? "!" : ""}[${fileName}](${filePath})` },
      },
      201,
    );
  });

  // Sandbox-only: the bytes of an uploaded wiki attachment (administrators).
  app.get(
    "/-/sandbox/projects/:id/wiki_attachments/*file_path",
    (ctx) => {
      requireAdmin(ctx);
      const id = Number(ctx.path["id"]);
      const a = wikisArea(ctx.store).attachments.find(
        (x) => x.project_id === id && x.file_path === ctx.path["file_path"],
      );
      if (!a) throw notFound("Wiki Attachment");
      return raw(Buffer.from(a.data, "base64"), a.content_type || "application/octet-stream");
    },
    { mount: "root" },
  );
}
