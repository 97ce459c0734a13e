import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "dev", token: "dev-token" },
    { username: "guesty", token: "guest-token" },
    { username: "maint", token: "maint-token" },
    { username: "outsider", token: "out-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { dev: "developer", guesty: "guest", maint: "maintainer" },
    },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "dev/public-wiki", visibility: "public" },
  ],
  wikis: [
    { project: "acme/api", title: "Home", content: "Welcome" },
    { project: "dev/public-wiki", title: "Read me", content: "hello", format: "asciidoc" },
  ],
};

describe("wiki pages and attachments (§3.11)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture });
  });
  afterAll(() => c.sb.stop());

  it("lists pages without pagination headers; with_content adds content", async () => {
    const r = await c.admin("GET", "/projects/acme%2Fapi/wikis");
    expect(r.status).toBe(200);
    expect(r.body).toEqual([{ format: "markdown", slug: "Home", title: "Home" }]);
    expect(r.headers.get("x-total")).toBeNull();
    expect(r.headers.get("link")).toBeNull();
    const full = await c.admin("GET", "/projects/acme%2Fapi/wikis?with_content=1");
    expect(full.body).toEqual([{ format: "markdown", slug: "Home", title: "Home", content: "Welcome" }]);
  });

  it("creates a page (201) with the slug from the title; directories; form-encoded", async () => {
    const r = await c.call("POST", "/projects/acme%2Fapi/wikis", {
      token: "dev-token",
      form: "title=On+call+%3Cruns%3E&content=Page+one&format=rdoc",
    });
    expect([r.status, r.body]).toEqual([
      201,
      { format: "rdoc", slug: "On-call--runs-", title: "On call  runs ", content: "Page one" },
    ]);
    const dir = await c.admin("POST", "/projects/acme%2Fapi/wikis", {
      title: "guides/Getting Started",
      content: "x",
    });
    expect(dir.body).toMatchObject({
      slug: "guides/Getting-Started",
      title: "Getting Started",
      format: "markdown",
    });
    const get = await c.admin("GET", "/projects/acme%2Fapi/wikis/guides%2FGetting-Started");
    expect([get.status, get.body]).toEqual([
      200,
      { format: "markdown", slug: "guides/Getting-Started", title: "Getting Started", content: "x" },
    ]);
    const unencoded = await c.admin("GET", "/projects/acme%2Fapi/wikis/guides/Getting-Started");
    expect(unencoded.status).toBe(404);
  });

  it("create errors: missing title/content, invalid format, blank content, duplicate", async () => {
    const missing = await c.admin("POST", "/projects/acme%2Fapi/wikis", {});
    expect([missing.status, missing.body]).toEqual([400, { error: "title is missing, content is missing" }]);
    const fmt = await c.admin("POST", "/projects/acme%2Fapi/wikis", {
      title: "F",
      content: "c",
      format: "html",
    });
    expect([fmt.status, fmt.body]).toEqual([400, { error: "format does not have a valid value" }]);
    const blank = await c.admin("POST", "/projects/acme%2Fapi/wikis", { title: "B", content: " " });
    expect([blank.status, blank.body]).toEqual([400, { message: { content: ["can't be blank"] } }]);
    const dup = await c.admin("POST", "/projects/acme%2Fapi/wikis", { title: "Home", content: "again" });
    expect([dup.status, dup.body]).toEqual([
      400,
      { message: { base: ["Duplicate page: A page with that title already exists"] } },
    ]);
  });

  it("updates content, format and title (moving the slug); at_least_one_of", async () => {
    await c.admin("POST", "/projects/acme%2Fapi/wikis", { title: "Draft", content: "v1" });
    const none = await c.admin("PUT", "/projects/acme%2Fapi/wikis/Draft", {});
    expect([none.status, none.body]).toEqual([
      400,
      { error: "content, title, format are missing, at least one parameter must be provided" },
    ]);
    const u = await c.call("PUT", "/projects/acme%2Fapi/wikis/Draft", {
      token: "dev-token",
      form: "content=v2&format=org",
    });
    expect(u.body).toEqual({ format: "org", slug: "Draft", title: "Draft", content: "v2" });
    const moved = await c.admin("PUT", "/projects/acme%2Fapi/wikis/Draft", { title: "Final Page" });
    expect(moved.body).toEqual({ format: "org", slug: "Final-Page", title: "Final Page", content: "v2" });
    expect((await c.admin("GET", "/projects/acme%2Fapi/wikis/Draft")).status).toBe(404);
    const missing = await c.admin("PUT", "/projects/acme%2Fapi/wikis/Nope", { content: "x" });
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Wiki Page Not Found" }]);
  });

  it("deletes with 204 and no body; missing page 404", async () => {
    await c.admin("POST", "/projects/acme%2Fapi/wikis", { title: "Temp", content: "t" });
    const dev = await c.call("DELETE", "/projects/acme%2Fapi/wikis/Temp", { token: "dev-token" });
    expect([dev.status, dev.body]).toEqual([403, { message: "403 Forbidden" }]);
    const d = await c.call("DELETE", "/projects/acme%2Fapi/wikis/Temp", { token: "maint-token" });
    expect([d.status, d.text]).toEqual([204, ""]);
    const again = await c.admin("DELETE", "/projects/acme%2Fapi/wikis/Temp");
    expect([again.status, again.body]).toEqual([404, { message: "404 Wiki Page Not Found" }]);
  });

  it("access: guest members read, write needs Developer; outsiders 404; public wiki readable without a token", async () => {
    const read = await c.call("GET", "/projects/acme%2Fapi/wikis/Home", { token: "guest-token" });
    expect(read.status).toBe(200);
    const write = await c.call("POST", "/projects/acme%2Fapi/wikis", {
      token: "guest-token",
      json: { title: "G", content: "g" },
    });
    expect([write.status, write.body]).toEqual([403, { message: "403 Forbidden" }]);
    const out = await c.call("GET", "/projects/acme%2Fapi/wikis", { token: "out-token" });
    expect([out.status, out.body]).toEqual([404, { message: "404 Project Not Found" }]);
    const pub = await c.call("GET", "/projects/dev%2Fpublic-wiki/wikis", { token: null });
    expect(pub.body).toEqual([{ format: "asciidoc", slug: "Read-me", title: "Read me" }]);
    const anon = await c.call("POST", "/projects/dev%2Fpublic-wiki/wikis", {
      token: null,
      json: { title: "x", content: "y" },
    });
    expect([anon.status, anon.body]).toEqual([401, { message: "401 Unauthorized" }]);
  });

  it("a disabled wiki is 403", async () => {
    const p = (await c.admin("GET", "/projects/dev%2Fpublic-wiki")).body as { id: number };
    c.sb.store.project(p.id)!.wiki_enabled = false;
    try {
      const r = await c.call("GET", "/projects/dev%2Fpublic-wiki/wikis", { token: "out-token" });
      expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
    } finally {
      c.sb.store.project(p.id)!.wiki_enabled = true;
    }
  });

  it("uploads an attachment (multipart): 201 with file_path under uploads/<hex>/, branch, link; bytes fetchable", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255]);
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(bytes)], { type: "image/png" }), "diagram.png");
    const res = await fetch(`${c.sb.url}/api/v4/projects/acme%2Fapi/wikis/attachments`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": "dev-token" },
      body: form,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { file_path: string; link: { url: string; markdown: string } };
    expect(body).toEqual({
      file_name: "diagram.png",
      file_path: expect.stringMatching(/^uploads\/[0-9a-f]{32}\/diagram\.png$/),
      branch: "master",
      link: { url: body.file_path, markdown: `![diagram.png](${body.file_path})` },
    });
    const pid = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
    const back = await fetch(`${c.sb.url}/-/sandbox/projects/${pid}/wiki_attachments/${body.file_path}`, {
      headers: { "PRIVATE-TOKEN": "admin-token" },
    });
    expect(back.status).toBe(200);
    expect(Buffer.from(await back.arrayBuffer())).toEqual(bytes);
    const notAdmin = await fetch(`${c.sb.url}/-/sandbox/projects/${pid}/wiki_attachments/${body.file_path}`, {
      headers: { "PRIVATE-TOKEN": "dev-token" },
    });
    expect(notAdmin.status).toBe(403);

    const doc = new FormData();
    doc.append("file", new Blob(["text"]), "notes.txt");
    doc.append("branch", "wiki-branch");
    const r2 = await fetch(`${c.sb.url}/api/v4/projects/acme%2Fapi/wikis/attachments`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": "dev-token" },
      body: doc,
    });
    const b2 = (await r2.json()) as { branch: string; link: { markdown: string }; file_path: string };
    expect(b2.branch).toBe("wiki-branch");
    expect(b2.link.markdown).toBe(`[notes.txt](${b2.file_path})`);
    const noFile = await c.admin("POST", "/projects/acme%2Fapi/wikis/attachments", { branch: "x" });
    expect([noFile.status, noFile.body]).toEqual([400, { error: "file is missing" }]);
    const guest = await c.call("POST", "/projects/acme%2Fapi/wikis/attachments", {
      token: "guest-token",
      json: {},
    });
    expect(guest.status).toBe(403);
  });
});
