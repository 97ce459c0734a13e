import type { Ctx, SandboxApp } from "../app.js";
import { requireAdmin, requireAuth } from "../auth.js";
import { userBasic } from "../entities.js";
import { forbidden, notFound, recordNotFound } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { checkUnmodifiedSince, json, noContent, raw } from "../respond.js";
import { type Store, type UserRec, VISIBILITIES, type Visibility } from "../store.js";

/**
 * Personal snippets (contract "Snippets", "Snippet" and its visibility table; platform [13.x] `lib/api/snippets.rb`,
 * `SnippetsFinder`, `PersonalSnippetPolicy`).
 *
 * - Visibility: `private` only the author (and administrators, who read everything), `internal` any signed-in
 *   user who is not external, `public` everyone including guests. An invisible snippet is 404
 *   `{"message":"404 Snippet Not Found"}`.
 * - `GET /snippets` (401 for a guest): the caller's own snippets; `GET /snippets/public` (401 for a guest): every
 *   public snippet. Both newest first (`created_at` desc, then id desc), paginated.
 * - `GET /snippets/:id`, `GET /snippets/:id/raw` (`text/plain`, `Content-Disposition: attachment`): any snippet
 *   the caller may see, also for guests when public.
 * - `POST /snippets` (401 for a guest): `title`, `file_name`, `content` required (`title`/`content` not blank);
 *   `description`; `visibility` private|internal|public, default `internal`. 201 with the snippet. External users
 *   may not create snippets (403, `create_personal_snippet` is prevented for them). The request's
 *   User-Agent and client address are kept as the user agent detail.
 * - `PUT /snippets/:id` (at least one of title, file_name, content, visibility, description) and
 *   `DELETE /snippets/:id` (204; `If-Unmodified-Since` gives 412) work on the caller's own snippets only: any other
 *   id, visible or not, is 404 `Snippet Not Found` (the platform looks them up among the caller's snippets).
 * - `GET /snippets/:id/user_agent_detail`: administrators only (401/403); `{user_agent, ip_address,
 *   spam_check_submitted}`; a missing snippet is `404 Not found`; a fixture snippet has no detail (404
 *   `UserAgentDetail Not Found`).
 *
 * Fixture key `snippets`: a list of `{ author: <username>, title, file_name, content, description?,
 * visibility?: private|internal|public (default internal), created_at? }`.
 */

export interface SnippetRec {
  id: number;
  title: string;
  file_name: string;
  description: string | null;
  content: string;
  visibility: Visibility;
  author_id: number;
  created_at: string;
  updated_at: string;
  /** The user agent detail recorded at creation; `null` for fixture snippets (the platform's 404). */
  user_agent: string | null;
  ip_address: string | null;
}

interface SnippetsArea {
  rows: SnippetRec[];
}

function area(store: Store): SnippetsArea {
  return store.area<SnippetsArea>("snippets", () => ({ rows: [] }));
}

/** `read_personal_snippet`. */
export function canReadSnippet(user: UserRec | null, s: SnippetRec): boolean {
  if (s.visibility === "public") return true;
  if (!user) return false;
  if (user.admin || user.id === s.author_id) return true;
  return s.visibility === "internal" && !user.external;
}

function snippetJson(ctx: Ctx, s: SnippetRec): Record<string, unknown> {
  const author = ctx.store.user(s.author_id);
  return {
    id: s.id,
    title: s.title,
    file_name: s.file_name,
    description: s.description,
    visibility: s.visibility,
    author: author ? userBasic(ctx, author) : null,
    expires_at: null,
    updated_at: s.updated_at,
    created_at: s.created_at,
    project_id: null,
    web_url: `${ctx.baseUrl}/snippets/${s.id}`,
    raw_url: `${ctx.baseUrl}/snippets/${s.id}/raw`,
  };
}

function newestFirst(a: SnippetRec, b: SnippetRec): number {
  return b.created_at.localeCompare(a.created_at) || b.id - a.id;
}

function snippetId(ctx: Ctx): number {
  return ctx.declare({ id: { type: "integer", required: true } }).id;
}

function visibleSnippet(ctx: Ctx): SnippetRec {
  const id = snippetId(ctx);
  const s = area(ctx.store).rows.find((x) => x.id === id);
  if (!s || !canReadSnippet(ctx.user, s)) throw notFound("Snippet");
  return s;
}

/** `snippets_for_current_user.find_by(id:)`: the caller's own snippet or 404. */
function ownSnippet(ctx: Ctx, user: UserRec): SnippetRec {
  const id = snippetId(ctx);
  const s = area(ctx.store).rows.find((x) => x.id === id && x.author_id === user.id);
  if (!s) throw notFound("Snippet");
  return s;
}

const VISIBILITY_VALUES = VISIBILITIES as unknown as string[];

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("snippets must be a list");
  value.forEach((rawRow, i) => {
    const where = `snippets[${i}]`;
    if (typeof rawRow !== "object" || rawRow === null || Array.isArray(rawRow)) {
      throw fail(`${where} must be a mapping`);
    }
    const o = rawRow as Record<string, unknown>;
    const author = typeof o["author"] === "string" ? store.userByUsername(o["author"]) : undefined;
    if (!author) throw fail(`${where}.author must name a user of users (got "${String(o["author"])}")`);
    for (const k of ["title", "file_name", "content"]) {
      if (typeof o[k] !== "string") throw fail(`${where}.${k} is required (a string)`);
    }
    const visibility = o["visibility"] ?? "internal";
    if (!VISIBILITY_VALUES.includes(String(visibility))) {
      throw fail(`${where}.visibility must be private, internal or public (got "${String(visibility)}")`);
    }
    const at = o["created_at"];
    const when =
      at === undefined ? store.nowIso() : new Date(at instanceof Date ? at : String(at)).toISOString();
    area(store).rows.push({
      id: store.nextId("snippets"),
      title: o["title"] as string,
      file_name: o["file_name"] as string,
      description: typeof o["description"] === "string" ? o["description"] : null,
      content: o["content"] as string,
      visibility: visibility as Visibility,
      author_id: author.id,
      created_at: when,
      updated_at: when,
      user_agent: null,
      ip_address: null,
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("snippets", (value, { store, source }) => seed(value, store, source));

  app.get("/snippets", (ctx) => {
    const user = requireAuth(ctx);
    const rows = area(ctx.store)
      .rows.filter((s) => s.author_id === user.id)
      .sort(newestFirst);
    return ctx.paginate(rows, (s) => snippetJson(ctx, s));
  });

  app.get("/snippets/public", (ctx) => {
    requireAuth(ctx);
    const rows = area(ctx.store)
      .rows.filter((s) => s.visibility === "public")
      .sort(newestFirst);
    return ctx.paginate(rows, (s) => snippetJson(ctx, s));
  });

  app.get("/snippets/:id", (ctx) => snippetJson(ctx, visibleSnippet(ctx)));

  app.get("/snippets/:id/raw", (ctx) => {
    const s = visibleSnippet(ctx);
    return raw(s.content, "text/plain; charset=utf-8", { "Content-Disposition": "attachment" });
  });

  app.post("/snippets", (ctx) => {
    const user = requireAuth(ctx);
    const p = ctx.declare({
      title: { type: "string", required: true, allowBlank: false },
      file_name: { type: "string", required: true },
      content: { type: "string", required: true, allowBlank: false },
      description: { type: "string" },
      visibility: { type: "string", values: VISIBILITY_VALUES, default: "internal" },
    });
    if (user.external) throw forbidden();
    const now = ctx.store.nowIso();
    const s: SnippetRec = {
      id: ctx.store.nextId("snippets"),
      title: p.title,
      file_name: p.file_name,
      description: p.description ?? null,
      content: p.content,
      visibility: p.visibility as Visibility,
      author_id: user.id,
      created_at: now,
      updated_at: now,
      user_agent: ctx.req.header("user-agent") ?? "",
      ip_address: ctx.req.header("x-forwarded-for")?.split(",")[0]?.trim() || "127.0.0.1",
    };
    area(ctx.store).rows.push(s);
    return json(snippetJson(ctx, s), 201);
  });

  app.put("/snippets/:id", (ctx) => {
    const user = requireAuth(ctx);
    const p = ctx.declare(
      {
        id: { type: "integer", required: true },
        title: { type: "string", allowBlank: false },
        file_name: { type: "string" },
        description: { type: "string" },
        content: { type: "string", allowBlank: false },
        visibility: { type: "string", values: VISIBILITY_VALUES },
      },
      { atLeastOneOf: ["title", "file_name", "content", "visibility", "description"] },
    );
    const s = ownSnippet(ctx, user);
    const before = JSON.stringify(s);
    if (p.title !== undefined) s.title = p.title;
    if (p.file_name !== undefined) s.file_name = p.file_name;
    if (ctx.has("description")) s.description = p.description ?? null;
    if (p.content !== undefined) s.content = p.content;
    if (p.visibility !== undefined) s.visibility = p.visibility as Visibility;
    if (JSON.stringify(s) !== before) s.updated_at = ctx.store.nowIso();
    return snippetJson(ctx, s);
  });

  app.delete("/snippets/:id", (ctx) => {
    const user = requireAuth(ctx);
    const s = ownSnippet(ctx, user);
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), s.updated_at);
    const a = area(ctx.store);
    a.rows = a.rows.filter((x) => x.id !== s.id);
    return noContent();
  });

  app.get("/snippets/:id/user_agent_detail", (ctx) => {
    requireAdmin(ctx);
    const id = snippetId(ctx);
    const s = area(ctx.store).rows.find((x) => x.id === id);
    if (!s) throw recordNotFound();
    if (s.user_agent === null) throw notFound("UserAgentDetail");
    return { user_agent: s.user_agent, ip_address: s.ip_address, spam_check_submitted: false };
  });
}
