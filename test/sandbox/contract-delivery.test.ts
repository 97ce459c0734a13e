/**
 * The rows of the contract's Deployments, Templates and Dependencies endpoint tables
 * (`shared/spec/rest-interface.md`, beside the repository), one case per row with valid and invalid requests,
 * asserted over HTTP against in-process sandboxes of both editions. The areas' own files (deployments.test.ts,
 * templates.test.ts, dependencies.test.ts) go deeper.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const SHA = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b";

const fixture = {
  users: [
    { username: "dev", name: "Dee Developer", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [{ path: "acme", visibility: "private", members: { dev: "developer", rep: "reporter" } }],
  projects: [{ path: "acme/api", visibility: "private" }],
  protected_environments: [
    { project: "acme/api", name: "production", deploy_access_levels: [{ access_level: 40 }] },
  ],
  deployments: [
    {
      project: "acme/api",
      environment: "staging",
      sha: SHA,
      created_at: "2023-01-01T00:00:00Z",
      merge_requests: [{ title: "Feature", author: "dev" }],
    },
  ],
  dependencies: [
    {
      project: "acme/api",
      dependencies: [
        {
          name: "left-pad",
          version: "1.3.0",
          package_manager: "npm",
          dependency_file_path: "package-lock.json",
        },
        { name: "rake", version: "13.0.1", package_manager: "bundler", dependency_file_path: "Gemfile.lock" },
      ],
    },
  ],
};

describe("contract endpoint tables: Deployments, Templates, Dependencies", () => {
  let c: Client;
  let core: Client;
  const base = "/projects/acme%2Fapi/deployments";
  const create = { environment: "review", sha: SHA, ref: "main", tag: false, status: "running" };
  let staging: number;

  beforeAll(async () => {
    c = await sandbox({ fixture });
    core = await sandbox({ fixture, edition: "core" });
    staging = ((await c.admin("GET", base)).body as { id: number }[])[0]!.id;
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("Deployments", () => {
    it("GET /projects/:id/deployments | order_by, sort, updated_after, updated_before, environment, status | array of deployment (with deployable)", async () => {
      const r = await c.call("GET", `${base}?order_by=iid&sort=desc&environment=staging&status=success`, {
        token: "rep-token",
      });
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        expect.objectContaining({
          iid: 1,
          sha: SHA,
          status: "success",
          deployable: null,
          environment: expect.objectContaining({ name: "staging" }),
        }),
      ]);
      const window = await c.call(
        "GET",
        `${base}?updated_after=2022-12-31T00:00:00Z&updated_before=2023-01-02T00:00:00Z`,
        {
          token: "rep-token",
        },
      );
      expect((window.body as unknown[]).length).toBe(1);
      for (const query of ["order_by=title", "sort=random", "status=done", "updated_before=later"]) {
        expect((await c.call("GET", `${base}?${query}`, { token: "rep-token" })).status).toBe(400);
      }
      expect((await c.call("GET", base, { token: null })).status).toBe(401);
      expect((await c.call("GET", base, { token: "outsider-token" })).status).toBe(404);
    });

    it("GET /projects/:id/deployments/:deployment_id | deployment_id integer req | deployment", async () => {
      const r = await c.call("GET", `${base}/${staging}`, { token: "rep-token" });
      expect(Object.keys(r.body as object)).toEqual(
        expect.arrayContaining([
          "id",
          "iid",
          "ref",
          "sha",
          "created_at",
          "updated_at",
          "status",
          "user",
          "environment",
          "deployable",
        ]),
      );
      expect((r.body as { environment: object }).environment).toEqual(
        expect.objectContaining({ id: expect.any(Number), name: "staging", external_url: null }),
      );
      expect((await c.call("GET", `${base}/x`, { token: "rep-token" })).body).toEqual({
        error: "deployment_id is invalid",
      });
      expect((await c.call("GET", `${base}/424242`, { token: "rep-token" })).status).toBe(404);
    });

    it("POST /projects/:id/deployments | environment, sha, ref, tag, status req | deployment (deployable null)", async () => {
      const r = await c.call("POST", base, { token: "dev-token", json: create });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        status: "running",
        deployable: null,
        environment: { name: "review" },
        user: { username: "dev" },
      });
      for (const missing of ["environment", "sha", "ref", "tag", "status"]) {
        const body = { ...create } as Record<string, unknown>;
        delete body[missing];
        const bad = await c.call("POST", base, { token: "dev-token", json: body });
        expect([bad.status, bad.body]).toEqual([400, { error: `${missing} is missing` }]);
      }
      expect((await c.call("POST", base, { token: "rep-token", json: create })).status).toBe(403);
    });

    it("PUT /projects/:id/deployments/:deployment_id | status string req | deployment", async () => {
      const id = ((await c.call("POST", base, { token: "dev-token", json: create })).body as { id: number })
        .id;
      const r = await c.call("PUT", `${base}/${id}`, { token: "dev-token", json: { status: "success" } });
      expect([r.status, (r.body as { status: string }).status]).toEqual([200, "success"]);
      expect((await c.call("PUT", `${base}/${id}`, { token: "dev-token", json: {} })).body).toEqual({
        error: "status is missing",
      });
      expect(
        (await c.call("PUT", `${base}/${id}`, { token: "rep-token", json: { status: "failed" } })).status,
      ).toBe(403);
    });

    it("GET /projects/:id/deployments/:deployment_id/merge_requests | the merge request listing's parameters | merge requests", async () => {
      const r = await c.call(
        "GET",
        `${base}/${staging}/merge_requests?state=merged&order_by=updated_at&sort=asc`,
        {
          token: "rep-token",
        },
      );
      expect(r.body).toEqual([
        expect.objectContaining({
          iid: 1,
          title: "Feature",
          state: "merged",
          author: expect.objectContaining({ username: "dev" }),
        }),
      ]);
      expect(
        (await c.call("GET", `${base}/${staging}/merge_requests?state=open`, { token: "rep-token" })).status,
      ).toBe(400);
    });

    it("States: deployment status values created, running, success, failed, canceled (transitions as the platform's)", async () => {
      const id = ((await c.call("POST", base, { token: "dev-token", json: create })).body as { id: number })
        .id;
      const put = (status: string) =>
        c.call("PUT", `${base}/${id}`, { token: "dev-token", json: { status } });
      expect((await put("running")).status).toBe(400);
      expect(((await put("canceled")).body as { status: string }).status).toBe("canceled");
      expect(((await put("failed")).body as { status: string }).status).toBe("failed");
      expect(((await put("success")).body as { status: string }).status).toBe("success");
    });

    it("Protected environments [licensed] gate who may deploy; on core they do not exist", async () => {
      const body = { ...create, environment: "production", status: "success" };
      expect((await c.call("POST", base, { token: "dev-token", json: body })).status).toBe(403);
      expect((await c.admin("POST", base, body)).status).toBe(201);
      expect((await core.call("POST", base, { token: "dev-token", json: body })).status).toBe(201);
    });
  });

  describe("Templates", () => {
    it("GET /projects/:id/templates/:type | type string req | array of {key, name}", async () => {
      for (const type of ["dockerfiles", "licenses", "gitignores", "gitlab_ci_ymls"]) {
        const r = await c.call("GET", `/projects/acme%2Fapi/templates/${type}`, { token: "rep-token" });
        expect(r.status, type).toBe(200);
        for (const entry of r.body as object[]) expect(Object.keys(entry)).toEqual(["key", "name"]);
      }
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/templates/nope", { token: "rep-token" })).status,
      ).toBe(400);
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/templates/licenses", { token: "outsider-token" })).status,
      ).toBe(404);
    });

    it("GET /projects/:id/templates/:type/:key | key req; project, fullname opt (licenses) | template", async () => {
      const lic = await c.call(
        "GET",
        "/projects/acme%2Fapi/templates/licenses/ncsa?project=API&fullname=Acme",
        {
          token: "rep-token",
        },
      );
      expect(lic.body).toMatchObject({ key: "ncsa", popular: false, conditions: ["include-copyright"] });
      expect((lic.body as { content: string }).content).toContain("Developed by: API\n              Acme");
      const docker = await core.call("GET", "/projects/acme%2Fapi/templates/dockerfiles/Binary", {
        token: "rep-token",
      });
      expect(Object.keys(docker.body as object)).toEqual(["name", "content"]);
      const missing = await c.call("GET", "/projects/acme%2Fapi/templates/licenses/wtfpl", {
        token: "rep-token",
      });
      expect([missing.status, missing.body]).toEqual([404, { message: "404 Template Not Found" }]);
    });
  });

  describe("Dependencies [licensed, unstable]", () => {
    it("GET /projects/:id/dependencies | package_manager string array opt (comma-joined allowed) | array of dependency", async () => {
      const r = await c.call("GET", "/projects/acme%2Fapi/dependencies?package_manager=npm,bundler", {
        token: "dev-token",
      });
      expect(r.body).toEqual([
        {
          name: "left-pad",
          version: "1.3.0",
          package_manager: "npm",
          dependency_file_path: "package-lock.json",
          vulnerabilities: [],
        },
        {
          name: "rake",
          version: "13.0.1",
          package_manager: "bundler",
          dependency_file_path: "Gemfile.lock",
          vulnerabilities: [],
        },
      ]);
      const rep = await c.call("GET", "/projects/acme%2Fapi/dependencies?package_manager[]=npm", {
        token: "rep-token",
      });
      expect(rep.body).toEqual([
        {
          name: "left-pad",
          version: "1.3.0",
          package_manager: "npm",
          dependency_file_path: "package-lock.json",
        },
      ]);
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/dependencies?package_manager=go", { token: "dev-token" }))
          .status,
      ).toBe(400);
      expect((await c.call("GET", "/projects/acme%2Fapi/dependencies", { token: null })).status).toBe(401);
      const onCore = await core.call("GET", "/projects/acme%2Fapi/dependencies", { token: "dev-token" });
      expect([onCore.status, onCore.body]).toEqual([404, { error: "404 Not Found" }]);
    });
  });
});
