/**
 * Wiki pages of a project, identified by slug (the manifest's `slug`, or the title with spaces and `<`, `>`, `+`
 * turned into `-`, as the platform derives it; the loader fills it in). Content comes inline or from
 * `content_file` (the loader reads the file). Format and content are updated in place; the title names the page
 * (the platform reads back only its last segment, with `-` as a space), so a new title is a new page. Attachments are
 * uploaded (multipart) when forgeform creates the page, each file once; uploads cannot be listed, so they are
 * never compared and nothing about them is recorded.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { apiPath } from "../api/index.js";
import { deriveSecret, shownText, textOf } from "../manifest/secret.js";
import { ownerPath } from "./common.js";
import type { Fields, Kind, KindContext, Live, Parent } from "./kind.js";

interface ApiPage {
  slug: string;
  title: string;
  format: string;
  content?: string;
}

const SHAPE = { slug: "string", title: "string", format: "string", content: "string?" } as const;

const toLive = (p: ApiPage): Live => ({
  key: p.slug,
  id: p.slug,
  fields: { slug: p.slug, title: p.title, format: p.format, content: p.content ?? "" },
});

/** The slug the platform derives from a title: whitespace and `<`, `>`, `+` become `-`. */
const slugOf = (title: string) => title.trim().replace(/[\s<>+]/g, "-");

/** The title as the platform reads it back from the slug: the last path segment, with `-` shown as a space. */
const readBack = (title: string) => (slugOf(title).split("/").pop() ?? title).replace(/-/g, " ");

/** The titles as written in the manifest, by prepared fields object, for create. */
const titles = new WeakMap<Fields, unknown>();

const pagePath = (parent: Parent, slug: string) => `${ownerPath(parent)}${apiPath`/wikis/${slug}`}`;

async function upload(ctx: KindContext, parent: Parent, file: string): Promise<void> {
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch (error) {
    const code = (error as { code?: string }).code ?? "unreadable";
    throw new Error(`attachment ${file} cannot be read (${code}): check the path in attachments`);
  }
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(data)]), basename(file));
  await ctx.api.post(`${ownerPath(parent)}/wikis/attachments`, { multipart: form });
}

export const wikiPageKind: Kind = {
  collection: "wiki_pages",
  segment: "wiki_page",
  parents: ["projects"],
  updateMode: "update",

  async read(ctx, parent) {
    const pages = await ctx.api.list<ApiPage>(`${ownerPath(parent)}/wikis`, {
      query: { with_content: true },
      shape: SHAPE,
    });
    return pages.map(toLive);
  },

  async prepare(_ctx, _parent, fields) {
    // A title (and so the slug) may hold a secret: compared by its value, shown masked.
    const { slug, title } = fields;
    const titleText = textOf(title);
    if (titleText === undefined) return fields;
    const slugText = textOf(slug);
    if (slugText !== undefined && slugOf(titleText) !== slugText) {
      const derived = shownText(deriveSecret(title, slugOf));
      throw new Error(
        `slug "${shownText(slug)}" is not the one the platform derives from the title "${shownText(title)}" ("${derived}"): the platform names a page after its title, so leave slug out or make the title match (a new title is a new page)`,
      );
    }
    // Compared as the platform reads it back; created with the title as written.
    const out: Fields = { ...fields, title: deriveSecret(title, readBack) };
    titles.set(out, title);
    return out;
  },

  async export(_ctx, _parent, live) {
    // The platform reads back only the last segment of the title: put the page's directory back in front.
    const slug = String(live.fields["slug"]);
    const dir = slug.includes("/") ? slug.slice(0, slug.lastIndexOf("/") + 1) : "";
    const title = `${dir}${String(live.fields["title"])}`;
    // The slug the title gives is the platform's default (and the only one prepare accepts): left out.
    const { slug: _derived, ...rest } = live.fields;
    return slugOf(title) === slug ? { ...rest, title } : { ...live.fields, title };
  },

  async create(ctx, parent, desired) {
    const created = await ctx.api.post<ApiPage>(`${ownerPath(parent)}/wikis`, {
      body: {
        title: titles.get(desired) ?? desired["title"],
        content: desired["content"] ?? "",
        format: desired["format"],
      },
      shape: SHAPE,
    });
    for (const file of (desired["attachments"] as string[] | undefined) ?? [])
      await upload(ctx, parent, file);
    return toLive({
      ...created,
      content: created.content ?? (desired["content"] as string | undefined) ?? "",
    });
  },

  async update(ctx, parent, live, desired, changed) {
    const payload: Fields = {};
    // The title names the page (its slug): it is never sent, since a new title would move the page.
    for (const name of changed) if (name === "content" || name === "format") payload[name] = desired[name];
    if (Object.keys(payload).length === 0) return live;
    const updated = await ctx.api.put<ApiPage>(pagePath(parent, String(live.id)), {
      body: payload,
      shape: SHAPE,
    });
    return toLive(updated);
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(pagePath(parent, String(live.id)));
  },
};
