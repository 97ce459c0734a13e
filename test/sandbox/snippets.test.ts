import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2022-06-07T08:09:10.111Z";

const fixture = {
  users: [
    { username: "alice", token: "alice-token" },
    { username: "bob", token: "bob-token" },
    { username: "ext", token: "ext-token", external: true },
  ],
  snippets: [
    { author: "alice", title: "private one", file_name: "p.txt", content: "secret", visibility: "private" },
    {
      author: "alice",
      title: "internal one",
      file_name: "i.txt",
      content: "inside",
      created_at: "2022-01-01T00:00:00Z",
    },
    { author: "alice", title: "public one", file_name: "pub.sh", content: "echo hi\n", visibility: "public" },
  ],
};

interface Snip {
  id: number;
  title: string;
  visibility: string;
}

describe("snippets", () => {
  let c: Client;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
    const mine = (await c.call("GET", "/snippets", { token: "alice-token" })).body as Snip[];
    for (const s of mine) ids[s.visibility] = s.id;
  });
  afterAll(() => c.sb.stop());

  it("lists the caller's own snippets newest first with the entity fields; 401 for a guest", async () => {
    const r = await c.call("GET", "/snippets", { token: "alice-token" });
    expect(r.status).toBe(200);
    const list = r.body as Snip[];
    expect(list.map((s) => s.title)).toEqual(["public one", "private one", "internal one"]);
    expect(list[0]).toEqual({
      id: ids["public"],
      title: "public one",
      file_name: "pub.sh",
      description: null,
      visibility: "public",
      author: expect.objectContaining({ username: "alice", state: "active" }),
      expires_at: null,
      updated_at: NOW,
      created_at: NOW,
      project_id: null,
      web_url: `${c.sb.url}/snippets/${ids["public"]}`,
      raw_url: `${c.sb.url}/snippets/${ids["public"]}/raw`,
    });
    expect(r.headers.get("x-total")).toBe("3");
    expect(((await c.call("GET", "/snippets", { token: "bob-token" })).body as Snip[]).length).toBe(0);
    expect((await c.call("GET", "/snippets", { token: null })).status).toBe(401);
  });

  it("visibility: private only the author, internal signed-in non-external users, public everyone", async () => {
    const get = (id: number | undefined, token: string | null) => c.call("GET", `/snippets/${id}`, { token });
    expect((await get(ids["private"], "alice-token")).status).toBe(200);
    const hidden = await get(ids["private"], "bob-token");
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ message: "404 Snippet Not Found" });
    expect((await get(ids["private"], null)).status).toBe(404);
    expect((await get(ids["internal"], "bob-token")).status).toBe(200);
    expect((await get(ids["internal"], "ext-token")).status).toBe(404);
    expect((await get(ids["internal"], null)).status).toBe(404);
    expect((await get(ids["public"], null)).status).toBe(200);
    expect((await get(ids["public"], "ext-token")).status).toBe(200);
  });

  it("raw is the content as text/plain, for guests too when public", async () => {
    const r = await c.call("GET", `/snippets/${ids["public"]}/raw`, { token: null });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(r.text).toBe("echo hi\n");
    expect((await c.call("GET", `/snippets/${ids["private"]}/raw`, { token: "bob-token" })).status).toBe(404);
  });

  it("public lists every public snippet (signed-in callers)", async () => {
    const r = await c.call("GET", "/snippets/public", { token: "bob-token" });
    expect(r.status).toBe(200);
    expect((r.body as Snip[]).map((s) => s.title)).toEqual(["public one"]);
    expect((await c.call("GET", "/snippets/public", { token: null })).status).toBe(401);
  });

  it("create: title, file_name, content required; visibility defaults to internal; form-encoded works", async () => {
    const missing = await c.call("POST", "/snippets", {
      token: "bob-token",
      json: { title: "x", content: "y" },
    });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "file_name is missing" });
    const blank = await c.call("POST", "/snippets", {
      token: "bob-token",
      json: { title: "x", file_name: "a", content: "" },
    });
    expect(blank.status).toBe(400);
    expect(blank.body).toEqual({ error: "content is empty" });
    const bad = await c.call("POST", "/snippets", {
      token: "bob-token",
      json: { title: "x", file_name: "a", content: "b", visibility: "secret" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "visibility does not have a valid value" });
    const r = await c.call("POST", "/snippets", {
      token: "bob-token",
      form: "title=Bob%27s&file_name=b.md&content=%23+hi&description=d",
      headers: { "User-Agent": "snippet-test/1.0" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      title: "Bob's",
      file_name: "b.md",
      description: "d",
      visibility: "internal",
      author: { username: "bob" },
      created_at: NOW,
    });
    const id = (r.body as Snip).id;
    expect((await c.call("GET", `/snippets/${id}/raw`, { token: "alice-token" })).text).toBe("# hi");
    const detail = await c.admin("GET", `/snippets/${id}/user_agent_detail`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      user_agent: "snippet-test/1.0",
      ip_address: expect.any(String),
      spam_check_submitted: false,
    });
    expect((await c.call("POST", "/snippets", { token: null, json: { title: "x" } })).status).toBe(401);
    const external = await c.call("POST", "/snippets", {
      token: "ext-token",
      json: { title: "x", file_name: "a", content: "b" },
    });
    expect([external.status, external.body]).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("user_agent_detail is administrator only; unknown snippets and fixture snippets are 404", async () => {
    expect(
      (await c.call("GET", `/snippets/${ids["public"]}/user_agent_detail`, { token: "alice-token" })).status,
    ).toBe(403);
    expect(
      (await c.call("GET", `/snippets/${ids["public"]}/user_agent_detail`, { token: null })).status,
    ).toBe(401);
    const none = await c.admin("GET", `/snippets/${ids["public"]}/user_agent_detail`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: "404 UserAgentDetail Not Found" });
    const missing = await c.admin("GET", "/snippets/999999/user_agent_detail");
    expect(missing.body).toEqual({ message: "404 Not found" });
  });

  it("update changes the caller's own snippet; someone else's is 404; at least one field is required", async () => {
    const r = await c.call("PUT", `/snippets/${ids["internal"]}`, {
      token: "alice-token",
      form: "title=renamed&visibility=private&content=new",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ title: "renamed", visibility: "private", updated_at: NOW });
    expect((await c.call("GET", `/snippets/${ids["internal"]}/raw`, { token: "alice-token" })).text).toBe(
      "new",
    );
    expect((await c.call("GET", `/snippets/${ids["internal"]}`, { token: "bob-token" })).status).toBe(404);
    const foreign = await c.call("PUT", `/snippets/${ids["public"]}`, {
      token: "bob-token",
      json: { title: "x" },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: "404 Snippet Not Found" });
    const empty = await c.call("PUT", `/snippets/${ids["public"]}`, { token: "alice-token", json: {} });
    expect(empty.status).toBe(400);
    expect((empty.body as { error: string }).error).toMatch(
      /are missing, at least one parameter must be provided/,
    );
  });

  it("delete: 204 for the author; 404 when not found or not the caller's", async () => {
    expect((await c.call("DELETE", `/snippets/${ids["public"]}`, { token: "bob-token" })).status).toBe(404);
    const r = await c.call("DELETE", `/snippets/${ids["public"]}`, { token: "alice-token" });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    const again = await c.call("DELETE", `/snippets/${ids["public"]}`, { token: "alice-token" });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: "404 Snippet Not Found" });
    expect((await c.call("GET", `/snippets/${ids["public"]}`, { token: null })).status).toBe(404);
  });

  it("paginates the caller's snippets", async () => {
    for (let i = 0; i < 3; i++) {
      await c.call("POST", "/snippets", {
        token: "bob-token",
        json: { title: `n${i}`, file_name: "f", content: "c" },
      });
    }
    const r = await c.call("GET", "/snippets?per_page=2&page=2", { token: "bob-token" });
    expect(r.headers.get("x-total")).toBe("4");
    expect(r.headers.get("x-page")).toBe("2");
    expect((r.body as Snip[]).length).toBe(2);
  });
});
