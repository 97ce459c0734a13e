import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

let now = "2021-03-04T05:06:07.089Z";

const fixture = {
  users: [
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "gowner", token: "gowner-token" },
  ],
  groups: [
    { path: "acme", visibility: "public", members: { gowner: "owner", maint: "maintainer" } },
    { path: "acme/team", visibility: "public" },
    { path: "hidden", visibility: "private" },
  ],
  projects: [
    { path: "acme/team/web", visibility: "public", default_branch: "main", members: { dev: "developer" } },
    { path: "acme/empty", visibility: "public" },
    { path: "hidden/app" },
  ],
  badges: [
    {
      group: "acme",
      name: "seeded",
      link_url: "https://ci.example/%{project_path}",
      image_url: "https://ci.example/b.svg",
    },
  ],
};

type Badge = {
  id: number;
  name: string | null;
  kind: string;
  link_url: string;
  rendered_link_url: string;
  rendered_image_url: string;
};

describe("badges (§3.4)", () => {
  let c: Client;
  let projectId = 0;
  const pb = "/projects/acme%2Fteam%2Fweb/badges";
  const call = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(now), fixture });
    projectId = ((await call("admin-token", "GET", "/projects/acme%2Fteam%2Fweb")).body as { id: number }).id;
  });
  afterAll(() => c.sb.stop());

  it("POST a project badge: 201 with the Badge entity and resolved placeholders", async () => {
    const r = await call("maint-token", "POST", pb, {
      link_url: "https://ci.example/%{project_path}/-/commits/%{default_branch}?p=%{project_id}",
      image_url: "https://ci.example/%{project_path}/badges/%{commit_sha}/pipeline.svg",
      name: "pipeline",
    });
    expect(r.status).toBe(201);
    const body = r.body as Badge & Record<string, string>;
    expect(body).toEqual({
      name: "pipeline",
      link_url: "https://ci.example/%{project_path}/-/commits/%{default_branch}?p=%{project_id}",
      image_url: "https://ci.example/%{project_path}/badges/%{commit_sha}/pipeline.svg",
      rendered_link_url: `https://ci.example/acme/team/web/-/commits/main?p=${projectId}`,
      rendered_image_url: expect.stringMatching(
        /^https:\/\/ci\.example\/acme\/team\/web\/badges\/[0-9a-f]{40}\/pipeline\.svg$/,
      ),
      id: expect.any(Number),
      kind: "project",
    });
    // The fake commit SHA is stable per project.
    const again = (await call("maint-token", "GET", `${pb}/${body.id}`)).body as Badge;
    expect(again.rendered_image_url).toBe(body["rendered_image_url"]);
  });

  it("name is optional (null); form-encoded bodies work", async () => {
    const r = await c.call("POST", pb, {
      token: "maint-token",
      form: "link_url=http%3A%2F%2Fexample.com&image_url=http%3A%2F%2Fexample.com%2Fi.png",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ name: null, link_url: "http://example.com", kind: "project" });
  });

  it("validation: http(s) URLs only, both required", async () => {
    const bad = await call("maint-token", "POST", pb, {
      link_url: "ftp://x.example/a",
      image_url: "not a url",
    });
    expect([bad.status, bad.body]).toEqual([
      400,
      {
        message: {
          link_url: ["is blocked: Only allowed schemes are http, https"],
          image_url: ["must be a valid URL"],
        },
      },
    ]);
    const missing = await call("maint-token", "POST", pb, { link_url: "https://x.example" });
    expect([missing.status, missing.body]).toEqual([400, { error: "image_url is missing" }]);
  });

  it("project list includes ancestor groups' badges (kind group), ordered by created_at; name filter", async () => {
    now = "2021-03-04T06:00:00.000Z";
    const later = (
      await call("gowner-token", "POST", "/groups/acme%2Fteam/badges", {
        link_url: "https://team.example",
        image_url: "https://team.example/i.svg",
        name: "team",
      })
    ).body as Badge;
    now = "2021-03-04T04:00:00.000Z"; // created after, but dated earlier: listed first
    const earlier = (
      await call("maint-token", "POST", pb, {
        link_url: "https://early.example",
        image_url: "https://early.example/i.svg",
        name: "early",
      })
    ).body as Badge;
    now = "2021-03-04T05:06:07.089Z";
    const list = await call(null, "GET", `${pb}?per_page=100`);
    expect(list.status).toBe(200);
    const rows = list.body as Badge[];
    expect(rows[0]!.id).toBe(earlier.id);
    expect(rows[rows.length - 1]!.id).toBe(later.id);
    const seeded = rows.find((b) => b.name === "seeded");
    expect(seeded).toMatchObject({ kind: "group", rendered_link_url: "https://ci.example/acme/team/web" });
    expect(rows.find((b) => b.id === later.id)?.kind).toBe("group");
    const named = (await call(null, "GET", `${pb}?name=team`)).body as Badge[];
    expect(named.map((b) => b.id)).toEqual([later.id]);
    expect(((await call(null, "GET", `${pb}?name=Team`)).body as Badge[]).length).toBe(0);
    const paged = await call(null, "GET", `${pb}?per_page=2&page=2`);
    expect(paged.headers.get("x-page")).toBe("2");
    expect(paged.headers.get("x-per-page")).toBe("2");
    expect((paged.body as Badge[]).length).toBe(2);
  });

  it("a group lists only its own badges, rendered with its newest project (or unchanged without one)", async () => {
    const acme = (await call(null, "GET", "/groups/acme/badges")).body as Badge[];
    expect(acme.map((b) => b.name)).toEqual(["seeded"]);
    // acme's only direct project is acme/empty (no default branch).
    expect(acme[0]!.rendered_link_url).toBe("https://ci.example/acme/empty");
    const team = (
      await call("gowner-token", "POST", "/groups/acme%2Fteam/badges", {
        link_url: "https://x.example/%{project_id}",
        image_url: "https://x.example/%{default_branch}/%{commit_sha}",
      })
    ).body as Badge;
    expect(team.rendered_link_url).toBe(`https://x.example/${projectId}`);
    expect(team.rendered_image_url).toMatch(/^https:\/\/x\.example\/main\/[0-9a-f]{40}$/);
    const g = (await call("admin-token", "POST", "/groups", { name: "Solo", path: "solo" })).body as {
      id: number;
    };
    const solo = (
      await call("admin-token", "POST", `/groups/${g.id}/badges`, {
        link_url: "https://x.example/%{project_path}",
        image_url: "https://x.example/i.svg",
      })
    ).body as Badge;
    expect(solo.rendered_link_url).toBe("https://x.example/%{project_path}");
  });

  it("GET one; group badge ids are found through the project; missing is 404 Not found", async () => {
    const acme = (await call(null, "GET", "/groups/acme/badges")).body as Badge[];
    const viaProject = await call(null, "GET", `${pb}/${acme[0]!.id}`);
    expect(viaProject.body).toMatchObject({ kind: "group", name: "seeded" });
    const missing = await call(null, "GET", `${pb}/999999`);
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
    const bad = await call(null, "GET", `${pb}/x`);
    expect([bad.status, bad.body]).toEqual([400, { error: "badge_id is invalid" }]);
    // A project badge is not found through the group.
    const own = ((await call(null, "GET", pb)).body as Badge[]).find((b) => b.kind === "project")!;
    expect((await call(null, "GET", `/groups/acme/badges/${own.id}`)).status).toBe(404);
  });

  it("PUT updates link_url, image_url and name; validation applies", async () => {
    const b = (
      await call("maint-token", "POST", pb, {
        link_url: "https://a.example",
        image_url: "https://a.example/i.svg",
      })
    ).body as Badge;
    const r = await call("maint-token", "PUT", `${pb}/${b.id}`, {
      link_url: "https://b.example/%{project_id}",
      name: "renamed",
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      name: "renamed",
      link_url: "https://b.example/%{project_id}",
      rendered_link_url: `https://b.example/${projectId}`,
      image_url: "https://a.example/i.svg",
    });
    const bad = await call("maint-token", "PUT", `${pb}/${b.id}`, { image_url: "javascript:alert(1)" });
    expect([bad.status, bad.body]).toEqual([
      400,
      { message: { image_url: ["is blocked: Only allowed schemes are http, https"] } },
    ]);
  });

  it("DELETE: 204 for project badges; a group badge through the project is 403 {error}", async () => {
    const b = (
      await call("maint-token", "POST", pb, {
        link_url: "https://d.example",
        image_url: "https://d.example/i.svg",
      })
    ).body as Badge;
    const r = await call("maint-token", "DELETE", `${pb}/${b.id}`);
    expect([r.status, r.text]).toEqual([204, ""]);
    expect((await call("maint-token", "GET", `${pb}/${b.id}`)).status).toBe(404);
    const groupBadge = ((await call(null, "GET", "/groups/acme/badges")).body as Badge[])[0]!;
    const denied = await call("admin-token", "DELETE", `${pb}/${groupBadge.id}`);
    expect([denied.status, denied.body]).toEqual([
      403,
      { error: "To delete a Group badge please use the Group endpoint" },
    ]);
    const g = await call("gowner-token", "POST", "/groups/acme/badges", {
      link_url: "https://g.example",
      image_url: "https://g.example/i.svg",
    });
    expect((await call("gowner-token", "DELETE", `/groups/acme/badges/${(g.body as Badge).id}`)).status).toBe(
      204,
    );
  });

  it("render: placeholders resolved for the source; admins of the source only (404 hidden, then 401/403)", async () => {
    const q = `link_url=${encodeURIComponent("https://r.example/%{project_path}")}&image_url=${encodeURIComponent("https://r.example/%{default_branch}.svg")}`;
    const r = await call("maint-token", "GET", `${pb}/render?${q}`);
    expect([r.status, r.body]).toEqual([
      200,
      {
        link_url: "https://r.example/%{project_path}",
        image_url: "https://r.example/%{default_branch}.svg",
        rendered_link_url: "https://r.example/acme/team/web",
        rendered_image_url: "https://r.example/main.svg",
      },
    ]);
    // A visible source: a guest is 401, a non-admin 403.
    expect((await call(null, "GET", `${pb}/render?${q}`)).status).toBe(401);
    // An invisible one is 404 for a guest and a non-member alike, as every other GET on it.
    for (const token of [null, "dev-token"]) {
      const hidden = await call(token, "GET", `/projects/hidden%2Fapp/badges/render?${q}`);
      expect([hidden.status, hidden.body]).toEqual([404, { message: "404 Project Not Found" }]);
      const group = await call(token, "GET", `/groups/hidden/badges/render?${q}`);
      expect([group.status, group.body]).toEqual([404, { message: "404 Group Not Found" }]);
    }
    expect((await call("dev-token", "GET", `${pb}/render?${q}`)).status).toBe(403);
    const bad = await call("maint-token", "GET", `${pb}/render?link_url=x&image_url=https://ok.example`);
    expect([bad.status, bad.body]).toEqual([400, { message: { link_url: ["must be a valid URL"] } }]);
    const missing = await call("maint-token", "GET", `${pb}/render`);
    expect(missing.body).toEqual({ error: "link_url is missing, image_url is missing" });
    expect((await call("gowner-token", "GET", `/groups/acme/badges/render?${q}`)).status).toBe(200);
    expect((await call("maint-token", "GET", `/groups/acme/badges/render?${q}`)).status).toBe(403);
  });

  it("auth: anonymous GET of public sources, 401 for anonymous writes, 403 below Maintainer/Owner, 404 hidden", async () => {
    const json = { link_url: "https://z.example", image_url: "https://z.example/i.svg" };
    expect((await call(null, "POST", pb, json)).status).toBe(401);
    expect((await call(null, "PUT", `${pb}/1`, json)).status).toBe(401);
    expect((await call(null, "DELETE", `${pb}/1`)).status).toBe(401);
    const dev = await call("dev-token", "POST", pb, json);
    expect([dev.status, dev.body]).toEqual([403, { message: "403 Forbidden" }]);
    // Group writes need Owner: a Maintainer of the group gets 403.
    expect((await call("maint-token", "POST", "/groups/acme/badges", json)).status).toBe(403);
    expect((await call("gowner-token", "POST", "/groups/acme/badges", json)).status).toBe(201);
    const hidden = await call(null, "GET", "/projects/hidden%2Fapp/badges");
    expect([hidden.status, hidden.body]).toEqual([404, { message: "404 Project Not Found" }]);
    const hiddenGroup = await call("dev-token", "GET", "/groups/hidden/badges");
    expect([hiddenGroup.status, hiddenGroup.body]).toEqual([404, { message: "404 Group Not Found" }]);
    expect((await call("admin-token", "GET", "/projects/hidden%2Fapp/badges")).status).toBe(200);
  });
});
