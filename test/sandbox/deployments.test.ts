import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const T0 = Date.parse("2023-06-01T10:00:00.000Z");

const fixture = {
  users: [
    { username: "maint", name: "Mia Maintainer", token: "maint-token" },
    { username: "dev", name: "Dee Developer", token: "dev-token" },
    { username: "deployer", name: "Dan Deployer", token: "deployer-token" },
    { username: "opsdev", name: "Olga Ops", token: "opsdev-token" },
    { username: "rep", name: "Rae Reporter", token: "rep-token" },
    { username: "gst", name: "Gus Guest", token: "gst-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: {
        maint: "maintainer",
        dev: "developer",
        deployer: "developer",
        rep: "reporter",
        gst: "guest",
      },
    },
    { path: "ops", members: { opsdev: "developer" } },
    { path: "pub", visibility: "public" },
  ],
  projects: [
    { path: "acme/api", visibility: "private", shared_with: { ops: "developer" } },
    { path: "acme/web", visibility: "private" },
    { path: "pub/site", visibility: "public" },
  ],
  milestones: [{ project: "acme/api", title: "v1" }],
  jobs: [
    {
      project: "acme/api",
      pipelines: [
        {
          ref: "main",
          sha: SHA,
          user: "dev",
          created_at: "2023-05-01T09:00:00Z",
          jobs: [
            {
              name: "deploy",
              stage: "deploy",
              started_at: "2023-05-01T09:01:00Z",
              finished_at: "2023-05-01T09:03:00Z",
            },
          ],
        },
      ],
    },
  ],
  protected_environments: [
    {
      project: "acme/api",
      name: "production",
      deploy_access_levels: [{ access_level: 40 }, { user: "deployer" }, { group: "ops" }],
    },
  ],
  deployments: [
    { project: "pub/site", environment: "pages", merge_requests: [{ title: "Landing page" }] },
    {
      project: "acme/api",
      environment: "production",
      external_url: "https://api.acme.example",
      job: "deploy",
      created_at: "2023-05-01T09:03:00Z",
      merge_requests: [
        {
          iid: 1,
          title: "Add login",
          source_branch: "login",
          author: "dev",
          labels: ["feature", "auth"],
          milestone: "v1",
          created_at: "2023-04-20T10:00:00Z",
          merged_at: "2023-04-25T10:00:00Z",
        },
        {
          iid: 2,
          title: "Draft: tidy docs",
          state: "opened",
          author: "maint",
          assignees: ["dev"],
          created_at: "2023-04-22T10:00:00Z",
        },
        {
          iid: 3,
          title: "Fix crash",
          description: "null pointer in login",
          author: "maint",
          labels: ["bug"],
          created_at: "2023-04-21T10:00:00Z",
        },
      ],
    },
    {
      project: "acme/api",
      environment: "review/feature-x",
      ref: "feature-x",
      status: "created",
      user: "dev",
      created_at: "2023-05-02T10:00:00Z",
      merge_requests: [{ iid: 1 }],
    },
    {
      project: "acme/api",
      environment: "staging",
      ref: "v1.0.0",
      tag: true,
      status: "failed",
      user: "maint",
      created_at: "2023-05-03T10:00:00Z",
      updated_at: "2023-05-03T11:00:00Z",
    },
  ],
};

type Deployment = {
  id: number;
  iid: number;
  ref: string;
  status: string;
  updated_at: string;
  environment: { name: string; slug: string };
  deployable: Record<string, unknown> | null;
};

describe("deployments and environments", () => {
  let c: Client;
  let core: Client;
  let now = T0;
  const base = "/projects/acme%2Fapi/deployments";
  const as = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    c = await sandbox({ fixture, clock: () => new Date(now) });
    core = await sandbox({ fixture, edition: "core", clock: () => new Date(now) });
    const list = (await c.admin("GET", base)).body as Deployment[];
    ids["production"] = list[0]!.id;
    ids["review"] = list[1]!.id;
    ids["staging"] = list[2]!.id;
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  it("lists the fixture's deployments by id; a CI deployment carries its job with the pipeline's times and URL", async () => {
    const r = await as("rep-token", "GET", base);
    expect(r.status).toBe(200);
    expect(r.headers.get("x-total")).toBe("3");
    const list = r.body as Deployment[];
    expect(list.map((d) => [d.iid, d.ref, d.status, d.environment.name])).toEqual([
      [1, "main", "success", "production"],
      [2, "feature-x", "created", "review/feature-x"],
      [3, "v1.0.0", "failed", "staging"],
    ]);
    const [prod] = list;
    expect(Object.keys(prod!)).toEqual([
      "id",
      "iid",
      "ref",
      "sha",
      "created_at",
      "updated_at",
      "user",
      "environment",
      "deployable",
      "status",
    ]);
    expect(prod).toMatchObject({
      sha: SHA,
      created_at: "2023-05-01T09:03:00.000Z",
      user: { username: "dev", name: "Dee Developer", state: "active" },
      environment: { name: "production", slug: "production", external_url: "https://api.acme.example" },
      deployable: {
        name: "deploy",
        stage: "deploy",
        status: "success",
        ref: "main",
        tag: false,
        duration: 120,
        commit: { id: SHA },
        pipeline: {
          sha: SHA,
          ref: "main",
          status: "success",
          created_at: "2023-05-01T09:00:00.000Z",
          updated_at: "2023-05-01T09:00:00.000Z",
        },
      },
    });
    const pipeline = (prod!.deployable as { pipeline: { id: number; web_url: string } }).pipeline;
    expect(pipeline.web_url).toBe(`${c.sb.url}/acme/api/-/pipelines/${pipeline.id}`);
    expect(list[1]!.environment.slug).toMatch(/^review-feature-x-[a-z0-9]{6}$/);
    expect(list[1]!.deployable).toBeNull();
  });

  it("GET one; a missing one is 404 Not found; a non-integer id is 400", async () => {
    const one = await as("rep-token", "GET", `${base}/${ids["staging"]}`);
    expect(one.body).toMatchObject({ iid: 3, ref: "v1.0.0", status: "failed", user: { username: "maint" } });
    const missing = await as("rep-token", "GET", `${base}/999999`);
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
    const other = await c.admin("GET", `/projects/acme%2Fweb/deployments/${ids["staging"]}`);
    expect(other.status).toBe(404);
    const bad = await as("rep-token", "GET", `${base}/abc`);
    expect([bad.status, bad.body]).toEqual([400, { error: "deployment_id is invalid" }]);
  });

  it("authentication and roles: 401 guest, 404 invisible, 403 below Reporter to read", async () => {
    const guest = await as(null, "GET", base);
    expect([guest.status, guest.body]).toEqual([401, { message: "401 Unauthorized" }]);
    const outsider = await as("outsider-token", "GET", base);
    expect([outsider.status, outsider.body]).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await as("gst-token", "GET", base)).status).toBe(403);
    expect((await as("gst-token", "GET", `${base}/${ids["staging"]}`)).status).toBe(403);
    expect((await as("rep-token", "GET", `${base}/${ids["staging"]}/merge_requests`)).status).toBe(200);
    expect((await as("gst-token", "GET", `${base}/${ids["staging"]}/merge_requests`)).status).toBe(403);
  });

  it("public projects: any signed-in user reads deployments, environments and merge requests; writing needs Developer", async () => {
    const site = "/projects/pub%2Fsite";
    const list = await as("outsider-token", "GET", `${site}/deployments`);
    expect(list.status).toBe(200);
    const [d] = list.body as Deployment[];
    expect(d).toMatchObject({ iid: 1, ref: "main", status: "success", environment: { name: "pages" } });
    expect((await as("outsider-token", "GET", `${site}/environments`)).status).toBe(200);
    const mrs = await as("outsider-token", "GET", `${site}/deployments/${d!.id}/merge_requests`);
    expect((mrs.body as { title: string }[]).map((m) => m.title)).toEqual(["Landing page"]);
    expect((await as(null, "GET", `${site}/deployments`)).status).toBe(401);
    const write = await as("outsider-token", "POST", `${site}/deployments`, {
      environment: "pages",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "success",
    });
    expect(write.status).toBe(403);
    expect(
      (await as("outsider-token", "PUT", `${site}/deployments/${d!.id}`, { status: "failed" })).status,
    ).toBe(403);
  });

  it("POST creates (201, deployable null, the caller as user); the first deployment creates the environment", async () => {
    now = T0 + 60_000;
    const before = (await as("dev-token", "GET", "/projects/acme%2Fapi/environments?name=qa")).body;
    expect(before).toEqual([]);
    const r = await as("dev-token", "POST", base, {
      environment: "qa",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "running",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      iid: 4,
      ref: "main",
      sha: SHA,
      status: "running",
      deployable: null,
      user: { username: "dev" },
      environment: { name: "qa", slug: "qa", external_url: null },
      created_at: "2023-06-01T10:01:00.000Z",
    });
    ids["qa"] = (r.body as Deployment).id;
    const envs = (await as("dev-token", "GET", "/projects/acme%2Fapi/environments?name=qa")).body as {
      id: number;
      name: string;
    }[];
    expect(envs.map((e) => e.name)).toEqual(["qa"]);
    // a second deployment to the same environment reuses it
    const again = await c.call("POST", base, {
      token: "dev-token",
      form: `environment=qa&sha=${SHA.slice(0, 8)}&ref=main&tag=false&status=success`,
    });
    expect(again.status, again.text).toBe(201);
    expect((again.body as { environment: { id: number } }).environment.id).toBe(envs[0]!.id);
    expect((await c.admin("GET", `${base}/${(again.body as Deployment).id}`)).status).toBe(200);
  });

  it("POST parameters: all five required, status among running/success/failed/canceled, tag a boolean", async () => {
    const none = await as("dev-token", "POST", base, {});
    expect([none.status, none.body]).toEqual([
      400,
      { error: "environment is missing, sha is missing, ref is missing, tag is missing, status is missing" },
    ]);
    const created = await as("dev-token", "POST", base, {
      environment: "qa",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "created",
    });
    expect([created.status, created.body]).toEqual([400, { error: "status does not have a valid value" }]);
    const tag = await as("dev-token", "POST", base, {
      environment: "qa",
      sha: SHA,
      ref: "main",
      tag: "maybe",
      status: "success",
    });
    expect([tag.status, tag.body]).toEqual([400, { error: "tag is invalid" }]);
  });

  it("POST model errors: unknown commit or ref, blank values, an invalid environment name (not created)", async () => {
    const bad = await as("dev-token", "POST", base, {
      environment: "qa",
      sha: "not-a-sha",
      ref: "bad..ref",
      tag: false,
      status: "success",
    });
    expect([bad.status, bad.body]).toEqual([
      400,
      { message: { sha: ["The commit does not exist"], ref: ["The branch or tag does not exist"] } },
    ]);
    const blank = await as("dev-token", "POST", base, {
      environment: "qa",
      sha: "",
      ref: "",
      tag: true,
      status: "success",
    });
    expect(blank.body).toEqual({
      message: {
        sha: ["can't be blank", "The commit does not exist"],
        ref: ["can't be blank", "The branch or tag does not exist"],
      },
    });
    const env = await as("dev-token", "POST", base, {
      environment: "/prod",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "success",
    });
    expect([env.status, env.body]).toEqual([
      400,
      {
        message: {
          name: [
            "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'",
          ],
        },
      },
    ]);
    const long = await as("dev-token", "POST", base, {
      environment: "e".repeat(300),
      sha: SHA,
      ref: "main",
      tag: false,
      status: "success",
    });
    expect(long.body).toEqual({ message: { name: ["is too long (maximum is 255 characters)"] } });
    const envs = (await c.admin("GET", "/projects/acme%2Fapi/environments?per_page=100")).body as {
      name: string;
    }[];
    expect(envs.map((e) => e.name)).not.toContain("/prod");
  });

  it("POST needs Developer; CI/CD switched off forbids deployments to everyone", async () => {
    const rep = await as("rep-token", "POST", base, {
      environment: "qa",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "success",
    });
    expect([rep.status, rep.body]).toEqual([403, { message: "403 Forbidden" }]);
    const guest = await as(null, "POST", base, {
      environment: "qa",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "success",
    });
    expect(guest.status).toBe(401);
    expect((await c.admin("PUT", "/projects/acme%2Fweb", { jobs_enabled: false })).status).toBe(200);
    const off = await c.admin("POST", "/projects/acme%2Fweb/deployments", {
      environment: "qa",
      sha: SHA,
      ref: "main",
      tag: false,
      status: "success",
    });
    expect([off.status, off.body]).toEqual([403, { message: "403 Forbidden" }]);
    expect((await c.admin("GET", "/projects/acme%2Fweb/deployments")).status).toBe(403);
  });

  it("PUT follows the state machine: running only from created, the others from any other status", async () => {
    now = T0 + 120_000;
    const review = `${base}/${ids["review"]}`;
    const run = await as("dev-token", "PUT", review, { status: "running" });
    expect([run.status, (run.body as Deployment).status]).toEqual([200, "running"]);
    expect((run.body as Deployment).updated_at).toBe("2023-06-01T10:02:00.000Z");
    const rerun = await as("dev-token", "PUT", review, { status: "running" });
    expect([rerun.status, rerun.body]).toEqual([
      400,
      { message: { status: ['cannot transition via "run"'] } },
    ]);
    expect((await as("dev-token", "PUT", review, { status: "success" })).status).toBe(200);
    const twice = await as("dev-token", "PUT", review, { status: "success" });
    expect(twice.body).toEqual({ message: { status: ['cannot transition via "succeed"'] } });
    const failed = await c.call("PUT", review, { token: "dev-token", form: "status=failed" });
    expect((failed.body as Deployment).status).toBe("failed");
    expect((await as("dev-token", "PUT", review, { status: "failed" })).body).toEqual({
      message: { status: ['cannot transition via "drop"'] },
    });
    expect((await as("dev-token", "PUT", review, { status: "canceled" })).status).toBe(200);
    expect((await as("dev-token", "PUT", review, { status: "canceled" })).body).toEqual({
      message: { status: ['cannot transition via "cancel"'] },
    });
    expect((await as("dev-token", "PUT", review, { status: "running" })).status).toBe(400);
  });

  it("PUT errors: parameters, missing deployment, roles, deployments made by CI jobs", async () => {
    const review = `${base}/${ids["review"]}`;
    expect((await as("dev-token", "PUT", review, {})).body).toEqual({ error: "status is missing" });
    expect((await as("dev-token", "PUT", review, { status: "created" })).body).toEqual({
      error: "status does not have a valid value",
    });
    const missing = await as("dev-token", "PUT", `${base}/999999`, { status: "success" });
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
    expect((await as("rep-token", "PUT", review, { status: "success" })).status).toBe(403);
    expect((await as(null, "PUT", review, { status: "success" })).status).toBe(401);
    const ci = await c.admin("PUT", `${base}/${ids["production"]}`, { status: "failed" });
    expect([ci.status, ci.body]).toEqual([
      403,
      { message: "403 Forbidden - Deployments created using GitLab CI can not be updated using the API" },
    ]);
  });

  it("list filters: order_by, sort, updated_after/before (inclusive), environment, status", async () => {
    const get = async (query: string) => {
      const r = await as("rep-token", "GET", `${base}?${query}`);
      expect(r.status, r.text).toBe(200);
      return (r.body as Deployment[]).map((d) => d.iid);
    };
    expect(await get("sort=desc")).toEqual([5, 4, 3, 2, 1]);
    expect(await get("order_by=iid&sort=desc&per_page=2")).toEqual([5, 4]);
    expect(await get("order_by=created_at&sort=asc")).toEqual([1, 2, 3, 4, 5]);
    expect(await get("order_by=ref")).toEqual([2, 1, 4, 5, 3]);
    // 2 and 4/5 share no updated_at; 4 and 5 were created at the same instant: id descending breaks the tie
    expect(await get("order_by=updated_at")).toEqual([1, 3, 5, 4, 2]);
    expect(await get("updated_after=2023-05-03T11:00:00Z")).toEqual([2, 3, 4, 5]);
    expect(await get("updated_before=2023-05-03T11:00:00Z")).toEqual([1, 3]);
    expect(await get("environment=production")).toEqual([1]);
    expect(await get("environment=nope")).toEqual([]);
    expect(await get("status=canceled")).toEqual([2]);
    expect(await get("status=skipped")).toEqual([]);
    for (const [query, error] of [
      ["status=done", "status does not have a valid value"],
      ["order_by=name", "order_by does not have a valid value"],
      ["sort=up", "sort does not have a valid value"],
      ["updated_after=yesterday", "updated_after is invalid"],
    ]) {
      const r = await as("rep-token", "GET", `${base}?${query}`);
      expect([r.status, r.body]).toEqual([400, { error }]);
    }
  });

  it("protected environments gate who may deploy (licensed): role, user, group; the environment exists either way", async () => {
    const body = { environment: "production", sha: SHA, ref: "main", tag: false, status: "success" };
    const dev = await as("dev-token", "POST", base, body);
    expect([dev.status, dev.body]).toEqual([403, { message: "403 Forbidden" }]);
    expect((await as("maint-token", "POST", base, body)).status).toBe(201);
    expect((await as("deployer-token", "POST", base, body)).status).toBe(201);
    expect((await as("opsdev-token", "POST", base, body)).status).toBe(201);
    expect((await c.admin("POST", base, body)).status).toBe(201);
    // a protected name without an environment yet: created by the refused deployment
    expect(
      (
        await c.admin("POST", "/projects/acme%2Fapi/protected_environments", {
          name: "dr",
          deploy_access_levels: [{ access_level: 60 }],
        })
      ).status,
    ).toBe(201);
    const dr = await as("maint-token", "POST", base, { ...body, environment: "dr" });
    expect(dr.status).toBe(403);
    expect((await as("maint-token", "GET", "/projects/acme%2Fapi/environments?name=dr")).body).toMatchObject([
      { name: "dr" },
    ]);
    // updates are gated the same way
    const staging = (
      await as("maint-token", "POST", base, { ...body, environment: "dr-staging", status: "running" })
    ).body as Deployment;
    await c.admin("POST", "/projects/acme%2Fapi/protected_environments", {
      name: "dr-staging",
      deploy_access_levels: [{ access_level: 40 }],
    });
    expect((await as("dev-token", "PUT", `${base}/${staging.id}`, { status: "success" })).status).toBe(403);
    expect((await as("maint-token", "PUT", `${base}/${staging.id}`, { status: "success" })).status).toBe(200);
  });

  it("on the core edition protected environments do not exist, so they gate nothing", async () => {
    const r = await core.call("POST", base, {
      token: "dev-token",
      json: { environment: "production", sha: SHA, ref: "main", tag: false, status: "success" },
    });
    expect(r.status).toBe(201);
    expect(
      (await core.call("GET", "/projects/acme%2Fapi/protected_environments", { token: "maint-token" }))
        .status,
    ).toBe(404);
  });

  it("environments: list (name, search, not both), get with the last successful deployment", async () => {
    const list = await as("rep-token", "GET", "/projects/acme%2Fapi/environments");
    const envs = list.body as { id: number; name: string; state: string; project: { id: number } }[];
    expect(envs.slice(0, 3).map((e) => e.name)).toEqual(["production", "review/feature-x", "staging"]);
    expect(envs[0]).toMatchObject({ state: "available", project: { path_with_namespace: "acme/api" } });
    expect(Object.keys(envs[0]!)).toEqual(["id", "name", "slug", "external_url", "project", "state"]);
    const search = (await as("rep-token", "GET", "/projects/acme%2Fapi/environments?search=REV")).body as {
      name: string;
    }[];
    expect(search.map((e) => e.name)).toEqual(["review/feature-x"]);
    const both = await as("rep-token", "GET", "/projects/acme%2Fapi/environments?name=a&search=b");
    expect([both.status, both.body]).toEqual([400, { error: "name, search cannot be used together" }]);
    const one = await as("rep-token", "GET", `/projects/acme%2Fapi/environments/${envs[2]!.id}`);
    expect(one.body).toMatchObject({ name: "staging", last_deployment: null });
    const prod = await as("rep-token", "GET", `/projects/acme%2Fapi/environments/${envs[0]!.id}`);
    const last = (prod.body as { last_deployment: Record<string, unknown> }).last_deployment;
    expect(last).toMatchObject({ status: "success", user: { username: "root" } });
    expect(last).not.toHaveProperty("environment");
    expect((await as("rep-token", "GET", "/projects/acme%2Fapi/environments/999999")).body).toEqual({
      message: "404 Not found",
    });
    expect((await as("gst-token", "GET", "/projects/acme%2Fapi/environments")).status).toBe(403);
  });

  it("merge requests of a deployment come from that project's deployment only: another project's is 404", async () => {
    const site = (await as("rep-token", "GET", "/projects/pub%2Fsite/deployments")).body as Deployment[];
    const elsewhere = site[0]!.id;
    // Through its own project its merge request is listed (the caller may read both projects)...
    const own = await as("rep-token", "GET", `/projects/pub%2Fsite/deployments/${elsewhere}/merge_requests`);
    expect((own.body as { title: string }[]).map((m) => m.title)).toEqual(["Landing page"]);
    // ...but through acme/api, where the caller is a Reporter, it is not a deployment of that project.
    const through = await as("rep-token", "GET", `${base}/${elsewhere}/merge_requests`);
    expect([through.status, through.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("merge requests of a deployment: the listing's filters and entity", async () => {
    const mrs = `${base}/${ids["production"]}/merge_requests`;
    const get = async (query = "") => {
      const r = await as("rep-token", "GET", `${mrs}${query}`);
      expect(r.status, r.text).toBe(200);
      return (r.body as { iid: number }[]).map((m) => m.iid);
    };
    expect(await get()).toEqual([2, 3, 1]);
    expect(await get("?sort=asc")).toEqual([1, 3, 2]);
    expect(await get("?order_by=updated_at")).toEqual([1, 2, 3]);
    expect(await get("?state=merged")).toEqual([3, 1]);
    expect(await get("?state=opened")).toEqual([2]);
    expect(await get("?labels=auth,feature")).toEqual([1]);
    expect(await get("?labels=None")).toEqual([2]);
    expect(await get("?not[labels]=bug")).toEqual([2, 1]);
    expect(await get("?milestone=v1")).toEqual([1]);
    expect(await get("?milestone=None")).toEqual([2, 3]);
    expect(await get("?author_username=maint")).toEqual([2, 3]);
    expect(await get("?not[author_username]=maint")).toEqual([1]);
    expect(await get("?assignee_id=Any")).toEqual([2]);
    expect(await get("?wip=yes")).toEqual([2]);
    expect(await get("?search=LOGIN")).toEqual([3, 1]);
    expect(await get("?search=login&in=title")).toEqual([1]);
    expect(await get("?created_after=2023-04-21T10:00:00Z")).toEqual([2, 3]);
    expect(await get("?environment=production")).toEqual([2, 3, 1]);
    expect(await get("?environment=staging")).toEqual([]);
    expect(await get("?deployed_after=2023-05-01T09:00:00Z")).toEqual([2, 3, 1]);
    expect(await get("?deployed_before=2023-05-01T09:00:00Z")).toEqual([]);
    const scoped = await as("dev-token", "GET", `${mrs}?scope=created-by-me`);
    expect((scoped.body as { iid: number }[]).map((m) => m.iid)).toEqual([1]);
    const simple = (await as("rep-token", "GET", `${mrs}?view=simple&state=opened`)).body as object[];
    expect(Object.keys(simple[0]!)).toEqual([
      "id",
      "iid",
      "project_id",
      "title",
      "description",
      "state",
      "created_at",
      "updated_at",
      "web_url",
    ]);
    const [login] = (await as("rep-token", "GET", `${mrs}?labels=feature`)).body as Record<string, unknown>[];
    expect(login).toMatchObject({
      iid: 1,
      title: "Add login",
      state: "merged",
      source_branch: "login",
      target_branch: "main",
      merged_at: "2023-04-25T10:00:00.000Z",
      merged_by: { username: "dev" },
      author: { username: "dev" },
      labels: ["auth", "feature"],
      milestone: { title: "v1" },
      work_in_progress: false,
      reference: "!1",
      references: { full: "acme/api!1" },
      web_url: `${c.sb.url}/acme/api/-/merge_requests/1`,
      approvals_before_merge: null,
    });
    // the same merge request, shipped again to the review app
    expect(
      await (async () => {
        const r = await as("rep-token", "GET", `${base}/${ids["review"]}/merge_requests`);
        return (r.body as { iid: number }[]).map((m) => m.iid);
      })(),
    ).toEqual([1]);
    // the deployment is looked up in the project, as the other deployment routes do
    const unknown = await as("rep-token", "GET", `${base}/999999/merge_requests`);
    expect([unknown.status, unknown.body]).toEqual([404, { message: "404 Not found" }]);
    for (const [query, error] of [
      ["state=done", "state does not have a valid value"],
      ["author_id=1&author_username=dev", "author_id, author_username are mutually exclusive"],
      ["assignee_id=someone", "assignee_id should be an integer, none or any"],
      ["not[author_id]=x", "not[author_id] is invalid"],
    ]) {
      const r = await as("rep-token", "GET", `${mrs}?${query}`);
      expect([r.status, r.body]).toEqual([400, { error }]);
    }
    const coreMr = await core.call("GET", `${base}/${ids["production"]}/merge_requests?labels=feature`, {
      token: "rep-token",
    });
    expect(coreMr.body as object[]).toHaveLength(1);
    expect((coreMr.body as object[])[0]).not.toHaveProperty("approvals_before_merge");
  });
});
