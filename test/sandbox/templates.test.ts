import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", token: "alice-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [{ path: "acme", visibility: "public", members: { alice: "guest" } }],
  projects: [
    { path: "acme/site", visibility: "public" },
    { path: "acme/vault", visibility: "private" },
  ],
};

type Entry = { key: string; name: string };
type License = Entry & { content: string; popular: boolean };

describe("templates", () => {
  let c: Client;
  let core: Client;
  const anon = (path: string) => c.call("GET", path, { token: null });

  beforeAll(async () => {
    c = await sandbox({ fixture, clock: () => new Date("2023-06-15T12:00:00.000Z") });
    core = await sandbox({ fixture, edition: "core" });
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("instance level (/templates, what real clients call)", () => {
    it("GET /templates/licenses: the full License entity, by key; popular=true|false; paginated", async () => {
      const r = await anon("/templates/licenses");
      expect(r.status).toBe(200);
      const list = r.body as License[];
      expect(list.map((l) => l.key)).toEqual([
        "apache-2.0",
        "bsd-2-clause",
        "bsd-3-clause",
        "isc",
        "mit",
        "ncsa",
        "unlicense",
      ]);
      expect(Object.keys(list[4]!)).toEqual([
        "key",
        "name",
        "nickname",
        "html_url",
        "source_url",
        "popular",
        "description",
        "conditions",
        "permissions",
        "limitations",
        "content",
      ]);
      expect(list[4]).toMatchObject({
        name: "MIT License",
        nickname: null,
        popular: true,
        html_url: "http://choosealicense.com/licenses/mit/",
        source_url: "https://opensource.org/licenses/MIT",
        conditions: ["include-copyright"],
        permissions: ["commercial-use", "modifications", "distribution", "private-use"],
        limitations: ["liability", "warranty"],
      });
      expect(list[4]!.content).toContain("Copyright (c) [year] [fullname]");
      const popular = (await anon("/templates/licenses?popular=true")).body as License[];
      expect(popular.map((l) => l.key)).toEqual(["apache-2.0", "mit"]);
      const others = (await anon("/templates/licenses?popular=false")).body as License[];
      expect(others.map((l) => l.key)).toEqual(["bsd-2-clause", "bsd-3-clause", "isc", "ncsa", "unlicense"]);
      const bad = await anon("/templates/licenses?popular=maybe");
      expect([bad.status, bad.body]).toEqual([400, { error: "popular is invalid" }]);
      const page = await anon("/templates/licenses?per_page=2&page=2");
      expect((page.body as License[]).map((l) => l.key)).toEqual(["bsd-3-clause", "isc"]);
      expect(page.headers.get("x-total")).toBe("7");
    });

    it("GET /templates/licenses/:key expands the year, project and full name (the caller's name by default)", async () => {
      const guest = (await anon("/templates/licenses/mit")).body as License;
      expect(guest.content).toContain("Copyright (c) 2023 [fullname]\n");
      const alice = await c.call("GET", "/templates/licenses/mit", { token: "alice-token" });
      expect((alice.body as License).content).toContain("Copyright (c) 2023 Alice Example\n");
      const given = (await anon("/templates/licenses/mit?fullname=Acme%20Corp%20%24%26&project=ignored"))
        .body as License;
      expect(given.content).toContain("Copyright (c) 2023 Acme Corp $&\n");
      const ncsa = (await anon("/templates/licenses/ncsa?project=Rocket&fullname=Acme")).body as License;
      expect(ncsa.content).toContain("Developed by: Rocket\n              Acme\n");
      expect(ncsa.content).toContain("Neither the names of Acme, nor");
      const apache = (await anon("/templates/licenses/apache-2.0?fullname=Acme")).body as License;
      expect(apache.content).toContain("Copyright 2023 Acme");
      expect(apache.content).toMatch(/^ {33}Apache License\n/);
    });

    it("missing license is 404 License Not Found; a key outside [\\w.-] never reaches the route", async () => {
      const r = await anon("/templates/licenses/gpl-9.0");
      expect([r.status, r.body]).toEqual([404, { message: "404 License Not Found" }]);
      const odd = await anon("/templates/licenses/c%2B%2B");
      expect([odd.status, odd.body]).toEqual([404, { error: "404 Not Found" }]);
      const badToken = await c.call("GET", "/templates/licenses/mit", { token: "nope" });
      expect(badToken.status).toBe(401);
    });

    it("dockerfiles, gitignores and CI templates: {key, name} lists in the platform's order, {name, content}", async () => {
      const names = async (type: string) =>
        ((await anon(`/templates/${type}`)).body as Entry[]).map((e) => [e.key, e.name]);
      expect(await names("dockerfiles")).toEqual(
        ["Binary", "Golang", "Node", "Python", "Ruby"].map((n) => [n, n]),
      );
      expect((await names("gitignores")).map(([k]) => k)).toEqual([
        "Go",
        "Java",
        "Node",
        "Python",
        "Ruby",
        "Rust",
        "JetBrains",
        "VisualStudioCode",
        "macOS",
      ]);
      const ci = await names("gitlab_ci_ymls");
      expect(ci.map(([k]) => k)).toEqual(["Bash", "Docker", "Go", "Nodejs", "Python", "Ruby", "HTML"]);
      expect(await names("platform_ci_ymls")).toEqual(ci);
      const ruby = await anon("/templates/gitignores/Ruby");
      expect(Object.keys(ruby.body as object)).toEqual(["name", "content"]);
      expect(ruby.body).toMatchObject({ name: "Ruby", content: expect.stringContaining("/.bundle/") });
      const node = (await anon("/templates/dockerfiles/Node")).body as { content: string };
      expect(node.content).toContain("FROM node:");
      const pages = (await anon("/templates/gitlab_ci_ymls/HTML")).body as { content: string };
      expect(pages.content).toContain("pages:");
      for (const [path, message] of [
        ["/templates/dockerfiles/Cobol", "404 dockerfile Not Found"],
        ["/templates/gitignores/ruby", "404 gitignore Not Found"],
        ["/templates/gitlab_ci_ymls/Nope", "404 gitlab_ci_yml Not Found"],
        ["/templates/platform_ci_ymls/Nope", "404 platform_ci_yml Not Found"],
      ]) {
        const r = await anon(path!);
        expect([r.status, r.body]).toEqual([404, { message }]);
      }
      const paged = await anon("/templates/gitignores?per_page=4&page=3");
      expect((paged.body as Entry[]).map((e) => e.key)).toEqual(["macOS"]);
      expect(paged.headers.get("x-total-pages")).toBe("3");
    });
  });

  describe("project level (contract)", () => {
    const site = "/projects/acme%2Fsite/templates";

    it("GET /projects/:id/templates/:type: {key, name} for each type; another type is 400", async () => {
      const list = async (type: string) => {
        const r = await anon(`${site}/${type}`);
        expect(r.status, r.text).toBe(200);
        return r.body as Entry[];
      };
      expect((await list("licenses")).map((e) => e.key)).toContain("mit");
      expect((await list("licenses")).find((e) => e.key === "mit")).toEqual({
        key: "mit",
        name: "MIT License",
      });
      expect((await list("dockerfiles"))[0]).toEqual({ key: "Binary", name: "Binary" });
      expect((await list("gitignores")).at(-1)).toEqual({ key: "macOS", name: "macOS" });
      expect((await list("gitlab_ci_ymls")).length).toBe(7);
      expect(await list("platform_ci_ymls")).toEqual(await list("gitlab_ci_ymls"));
      const bad = await anon(`${site}/readmes`);
      expect([bad.status, bad.body]).toEqual([400, { error: "type does not have a valid value" }]);
      const page = await anon(`${site}/licenses?per_page=3`);
      expect(page.headers.get("x-next-page")).toBe("2");
    });

    it("GET /projects/:id/templates/:type/:key: a template, a license with project and fullname expanded", async () => {
      const mit = await c.call("GET", `${site}/licenses/mit`, { token: "alice-token" });
      expect(mit.status).toBe(200);
      expect((mit.body as License).content).toContain("Copyright (c) 2023 Alice Example");
      expect(mit.body).toMatchObject({ key: "mit", popular: true, name: "MIT License" });
      const ncsa = (await anon(`${site}/licenses/ncsa?project=Site&fullname=Acme%20Inc`)).body as License;
      expect(ncsa.content).toContain("Developed by: Site\n              Acme Inc\n");
      const bsd = (await anon(`${site}/licenses/bsd-3-clause`)).body as License;
      expect(bsd.content).toContain("Copyright (c) 2023, [fullname]");
      const docker = await anon(`${site}/dockerfiles/Python`);
      expect(docker.body).toEqual({ name: "Python", content: expect.stringContaining("FROM python:") });
      const ci = await anon(`${site}/platform_ci_ymls/Go`);
      expect((ci.body as { name: string }).name).toBe("Go");
      for (const path of [
        `${site}/licenses/gpl-9.0`,
        `${site}/gitignores/Cobol`,
        `${site}/dockerfiles/c%2B%2B`,
      ]) {
        const r = await anon(path);
        expect([r.status, r.body]).toEqual([404, { message: "404 Template Not Found" }]);
      }
      const badType = await anon(`${site}/readmes/x`);
      expect(badType.status).toBe(400);
      const badId = await anon(`${site}/licenses/mit?source_template_project_id=abc`);
      expect([badId.status, badId.body]).toEqual([400, { error: "source_template_project_id is invalid" }]);
    });

    it("needs read access to the project: private 404 for outsiders, visible to members; unknown token 401", async () => {
      const vault = "/projects/acme%2Fvault/templates/licenses";
      expect((await c.call("GET", vault, { token: null })).body).toEqual({
        message: "404 Project Not Found",
      });
      expect((await c.call("GET", vault, { token: "outsider-token" })).status).toBe(404);
      expect((await c.call("GET", vault, { token: "alice-token" })).status).toBe(200);
      expect((await c.call("GET", `${vault}/mit`, { token: "nope" })).status).toBe(401);
    });

    it("both editions serve the same templates", async () => {
      const licensed = await anon(`${site}/gitignores`);
      const onCore = await core.call("GET", `${site}/gitignores`, { token: null });
      expect(onCore.body).toEqual(licensed.body);
      expect((await core.call("GET", "/templates/licenses/mit", { token: null })).status).toBe(200);
    });
  });
});
