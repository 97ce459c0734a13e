/**
 * Wiki pages of a project, identified by slug (the manifest's `slug`, or the title with spaces and `<`, `>`, `+`
 * turned into `-`, as the platform derives it; the loader fills it in). Content comes inline or from
 * `content_file` (the loader reads the file). Format and content are updated in place; the title names the page
 * (the platform reads back only its last segment, with `-` as a space), so a new title is a new page. Attachments are
 * uploaded (multipart) when forgeform creates the page (or finds it on re-reading after the create's answer was
 * lost), each file once; uploads cannot be listed, so they are never compared and nothing about them is recorded.
 */
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import { OutcomeUnknownError } from "../api/index.js";
import { deriveSecret, shownText, textOf } from "../manifest/secret.js";
import { body, createBody, ownerPath, UNCHECKED } from "./common.js";
import { restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, Parent } from "./kind.js";

/** The slug the platform derives from a title: whitespace and `<`, `>`, `+` become `-`. */
const slugOf = (title: string) => title.trim().replace(/[\s<>+]/g, "-");

/** The title as the platform reads it back from the slug: the last path segment, with `-` shown as a space. */
const readBack = (title: string) => (slugOf(title).split("/").pop() ?? title).replace(/-/g, " ");

/** The titles as written in the manifest, by prepared fields object, for create. */
const titles = new WeakMap<Fields, unknown>();

/**
 * Uploads the page's attachments, each once. The platform stores each upload under a new random directory
 * (`uploads/<32 hex>/<name>`, a commit of its own in the wiki's repository; the sandbox does the same), and uploads
 * cannot be listed: one sent again is a second copy, and one whose answer is lost cannot be checked. So an upload
 * whose answer is lost is not left to apply's re-read (which sees only the page) nor sent again: the others go on,
 * then the change fails naming it.
 */
async function uploadAll(ctx: KindContext, parent: Parent, desired: Fields): Promise<void> {
  const unknown: string[] = [];
  for (const file of (desired["attachments"] as string[] | undefined) ?? []) {
    try {
      await upload(ctx, parent, file);
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      unknown.push(
        `attachment ${file}: whether its upload was stored is unknown (${error.cause.message}); it was not sent ` +
          "again, since each upload is stored anew and uploads cannot be listed: look in the wiki's repository " +
          "(uploads/) and upload it by hand if it is missing",
      );
    }
  }
  if (unknown.length > 0) throw new Error(unknown.join("; "));
}

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

export const wikiPageKind = restCollection(
  {
    collection: "wiki_pages",
    segment: "wiki_page",
    parents: ["projects"],
    path: "wikis",
    id: { field: "slug", type: "string" },
    query: { with_content: true },
    // The format is always there; the content only with `with_content`.
    shape: { format: "string", content: "string?" },
    live: (_parent, p, live) => ({
      ...live,
      fields: { slug: p["slug"], title: p["title"], format: p["format"], content: p["content"] ?? "" },
    }),
  },
  (rest) => ({
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
      const { slug: _derived, ...others } = live.fields;
      return slugOf(title) === slug ? { ...others, title } : { ...live.fields, title };
    },

    async create(ctx, parent, desired) {
      const created = await rest.post(ctx, parent, {
        ...createBody(desired, []),
        title: titles.get(desired) ?? desired["title"],
        content: desired["content"] ?? "",
        format: desired["format"],
      });
      await uploadAll(ctx, parent, desired);
      return rest.toLive(
        parent,
        { ...created, content: created["content"] ?? (desired["content"] as string | undefined) ?? "" },
        unchecked(desired),
      );
    },

    // A page found on re-reading gets its attachments: apply finishes a create only when the page's own POST lost
    // its answer (uploadAll keeps the uploads' lost answers to itself), so none of them was sent yet, and this
    // finish never throws what would have apply call it again.
    async finishCreate(ctx, parent, found, desired) {
      await uploadAll(ctx, parent, desired);
      return found;
    },

    async update(ctx, parent, live, desired, changed) {
      // The title names the page (its slug): it is never sent, since a new title would move the page.
      const payload = body(
        desired,
        changed.filter((name) => name === "content" || name === "format" || name.startsWith(UNCHECKED)),
      );
      if (Object.keys(payload).length === 0) return live;
      // The platform takes an update only with content, title or format: unchecked settings alone carry the format.
      if (!("content" in payload) && !("format" in payload)) payload["format"] = live.fields["format"];
      return rest.toLive(parent, await rest.put(ctx, parent, String(live.id), payload), unchecked(desired));
    },
  }),
);
