/**
 * The rows of the contract's Pipeline schedules, Pipeline triggers and Jobs endpoint tables
 * (`shared/spec/rest-interface.md`, beside the repository), one case per row with valid and invalid requests,
 * asserted over HTTP against in-process sandboxes of both editions where the contract marks something licensed.
 * The areas' own files (pipeline-schedules.test.ts, triggers.test.ts, jobs.test.ts) go deeper;
 * contract-endpoints.test.ts checks that every row has its case.
 */
import { inflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2023-06-15T12:00:00.000Z";

const fixture = {
  users: [
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { maint: "maintainer", dev: "developer", rep: "reporter" },
    },
  ],
  projects: [{ path: "acme/api", visibility: "private", default_branch: "main" }],
  pipeline_schedules: [
    {
      project: "acme/api",
      description: "nightly",
      cron: "0 2 * * *",
      owner: "dev",
      variables: { ENV: "prod" },
    },
    { project: "acme/api", description: "weekly", cron: "0 3 * * 1", active: false, owner: "maint" },
  ],
  pipeline_triggers: [{ project: "acme/api", description: "deploy", owner: "maint" }],
  jobs: [
    {
      project: "acme/api",
      pipelines: [
        {
          ref: "main",
          jobs: [
            { name: "build", stage: "build", artifacts: { "out/app.txt": "built\n" } },
            { name: "test", status: "failed", allow_failure: true },
          ],
        },
        {
          ref: "main",
          jobs: [
            { name: "build", stage: "build", artifacts: { "out/app.txt": "built again\n" } },
            { name: "deploy", status: "running", token: "deploy-job-token" },
          ],
        },
      ],
    },
  ],
};

/** The entries of a zip archive (local headers; stored or deflated). */
function unzip(buf: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (buf.readUInt32LE(at) === 0x04034b50) {
    const method = buf.readUInt16LE(at + 8);
    const size = buf.readUInt32LE(at + 18);
    const nameLength = buf.readUInt16LE(at + 26);
    const extra = buf.readUInt16LE(at + 28);
    const name = buf.subarray(at + 30, at + 30 + nameLength).toString();
    const start = at + 30 + nameLength + extra;
    const data = buf.subarray(start, start + size);
    out[name] = (method === 8 ? inflateRawSync(data) : data).toString();
    at = start + size;
  }
  return out;
}

describe("contract endpoint tables: Pipeline schedules, Pipeline triggers, Jobs", () => {
  let c: Client;
  let core: Client;
  const schedules = "/projects/acme%2Fapi/pipeline_schedules";
  let nightly: number;
  let weekly: number;
  let triggerId: number;
  const jobs: Record<string, number> = {};
  const pipelines: number[] = [];

  const download = async (sb: Client, path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sb.sb.url}/api/v4${path}`, { headers });
    const buf = Buffer.from(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get("content-type"), buf };
  };

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
    core = await sandbox({ clock: () => new Date(NOW), fixture, edition: "core" });
    const list = (await c.admin("GET", schedules)).body as { id: number; description: string }[];
    nightly = list.find((s) => s.description === "nightly")!.id;
    weekly = list.find((s) => s.description === "weekly")!.id;
    triggerId = ((await c.admin("GET", "/projects/acme%2Fapi/triggers")).body as { id: number }[])[0]!.id;
    const all = (await c.admin("GET", "/projects/acme%2Fapi/jobs")).body as {
      id: number;
      name: string;
      pipeline: { id: number };
    }[];
    for (const j of [...all].reverse()) {
      jobs[j.name] = j.id; // the later pipeline's build wins
      if (!pipelines.includes(j.pipeline.id)) pipelines.push(j.pipeline.id);
    }
    jobs["first-build"] = all.filter((j) => j.name === "build").at(-1)!.id;
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("Pipeline schedules", () => {
    it("GET /projects/:id/pipeline_schedules | scope opt (active, inactive) | array of schedule", async () => {
      const r = await c.call("GET", `${schedules}?scope=active`, { token: "dev-token" });
      expect(r.status).toBe(200);
      expect(r.body).toEqual([
        expect.objectContaining({
          id: nightly,
          description: "nightly",
          ref: "main",
          cron: "0 2 * * *",
          cron_timezone: "UTC",
          next_run_at: "2023-06-16T02:00:00.000Z",
          active: true,
          owner: expect.objectContaining({ username: "dev" }),
        }),
      ]);
      expect((r.body as object[])[0]).not.toHaveProperty("last_pipeline");
      const inactive = (await c.call("GET", `${schedules}?scope=inactive`, { token: "dev-token" })).body;
      expect((inactive as { id: number }[]).map((s) => s.id)).toEqual([weekly]);
      expect((await c.call("GET", `${schedules}?scope=paused`, { token: "dev-token" })).body).toEqual({
        error: "scope does not have a valid value",
      });
      expect((await c.call("GET", schedules, { token: "rep-token" })).status).toBe(403);
      expect((await c.call("GET", schedules, { token: null })).status).toBe(401);
    });

    it("GET /projects/:id/pipeline_schedules/:pipeline_schedule_id | pipeline_schedule_id integer req | schedule with last_pipeline and variables", async () => {
      const r = await c.call("GET", `${schedules}/${nightly}`, { token: "dev-token" });
      expect(r.body).toMatchObject({
        id: nightly,
        last_pipeline: null,
        variables: [{ key: "ENV", variable_type: "env_var", value: "prod" }],
      });
      const missing = await c.call("GET", `${schedules}/999999`, { token: "dev-token" });
      expect([missing.status, missing.body]).toEqual([404, { message: "404 Pipeline Schedule Not Found" }]);
      expect((await c.call("GET", `${schedules}/x`, { token: "dev-token" })).body).toEqual({
        error: "pipeline_schedule_id is invalid",
      });
    });

    it("POST /projects/:id/pipeline_schedules | description, ref, cron req; cron_timezone (default UTC), active (default true) | schedule", async () => {
      const r = await c.call("POST", schedules, {
        token: "dev-token",
        json: {
          description: "hourly",
          ref: "main",
          cron: "0 * * * *",
          cron_timezone: "Pacific Time (US & Canada)",
        },
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        description: "hourly",
        cron_timezone: "Pacific Time (US & Canada)",
        active: true,
        next_run_at: "2023-06-15T13:00:00.000Z",
        owner: { username: "dev" },
      });
      const missing = await c.call("POST", schedules, {
        token: "dev-token",
        json: { description: "x", ref: "main" },
      });
      expect([missing.status, missing.body]).toEqual([400, { error: "cron is missing" }]);
      const cron = await c.call("POST", schedules, {
        token: "dev-token",
        form: "description=x&ref=main&cron=every+day",
      });
      expect([cron.status, cron.body]).toEqual([400, { message: { cron: [" is invalid syntax"] } }]);
      expect(
        (
          await c.call("POST", schedules, {
            token: "rep-token",
            json: { description: "x", ref: "main", cron: "0 1 * * *" },
          })
        ).status,
      ).toBe(403);
    });

    it("PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id | description, ref, cron, cron_timezone, active opt | schedule; rescheduled", async () => {
      const r = await c.call("PUT", `${schedules}/${nightly}`, {
        token: "dev-token",
        json: { cron: "30 13 * * *", description: "daily" },
      });
      expect(r.body).toMatchObject({
        description: "daily",
        cron: "30 13 * * *",
        next_run_at: "2023-06-15T13:30:00.000Z",
      });
      const bad = await c.call("PUT", `${schedules}/${nightly}`, {
        token: "dev-token",
        json: { cron_timezone: "Mars/Olympus" },
      });
      expect(bad.status).toBe(400);
      expect((bad.body as { message: Record<string, unknown> }).message).toHaveProperty("cron_timezone");
      // dev does not own "weekly" and is no Maintainer
      expect(
        (await c.call("PUT", `${schedules}/${weekly}`, { token: "dev-token", json: { active: true } }))
          .status,
      ).toBe(403);
      expect(
        (await c.call("PUT", `${schedules}/${nightly}`, { token: "dev-token", json: { ref: "" } })).body,
      ).toEqual({
        error: "ref is empty",
      });
    });

    it("POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership | | schedule with caller as owner", async () => {
      const r = await c.call("POST", `${schedules}/${nightly}/take_ownership`, { token: "maint-token" });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ id: nightly, owner: { username: "maint" } });
      expect(
        (await c.call("POST", `${schedules}/${weekly}/take_ownership`, { token: "dev-token" })).status,
      ).toBe(403);
      expect(
        (await c.call("POST", `${schedules}/999999/take_ownership`, { token: "maint-token" })).status,
      ).toBe(404);
    });

    it("DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id | | the deleted schedule", async () => {
      const id = (
        (
          await c.call("POST", schedules, {
            token: "dev-token",
            json: { description: "gone", ref: "main", cron: "0 5 * * *" },
          })
        ).body as { id: number }
      ).id;
      // a Reporter may not read schedules (404); a Developer who does not own one may not delete it (403)
      expect((await c.call("DELETE", `${schedules}/${id}`, { token: "rep-token" })).status).toBe(404);
      expect((await c.call("DELETE", `${schedules}/${weekly}`, { token: "dev-token" })).status).toBe(403);
      const r = await c.call("DELETE", `${schedules}/${id}`, { token: "dev-token" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id, description: "gone", variables: [], last_pipeline: null });
      expect((await c.call("DELETE", `${schedules}/${id}`, { token: "dev-token" })).body).toEqual({
        message: "404 Pipeline Schedule Not Found",
      });
    });

    it("POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/play | | object {message} (shape of a 201 message)", async () => {
      const r = await c.call("POST", `${schedules}/${weekly}/play`, { token: "dev-token" });
      expect([r.status, r.body]).toEqual([201, { message: "201 Created" }]);
      expect(
        ((await c.admin("GET", `${schedules}/${weekly}`)).body as { last_pipeline: object }).last_pipeline,
      ).toMatchObject({ ref: "main", status: "pending" });
      expect((await c.call("POST", `${schedules}/${weekly}/play`, { token: "rep-token" })).body).toEqual({
        message: "404 Pipeline Schedule Not Found",
      });
      expect((await c.call("POST", `${schedules}/${weekly}/play`, { token: null })).status).toBe(401);
    });

    it("POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables | key, value req; variable_type opt | variable", async () => {
      const r = await c.call("POST", `${schedules}/${weekly}/variables`, {
        token: "maint-token",
        json: { key: "CONFIG", value: "a: 1", variable_type: "file" },
      });
      expect([r.status, r.body]).toEqual([201, { key: "CONFIG", variable_type: "file", value: "a: 1" }]);
      const dflt = await c.call("POST", `${schedules}/${weekly}/variables`, {
        token: "maint-token",
        form: "key=TARGET&value=eu",
      });
      expect(dflt.body).toEqual({ key: "TARGET", variable_type: "env_var", value: "eu" });
      expect(
        (
          await c.call("POST", `${schedules}/${weekly}/variables`, {
            token: "maint-token",
            json: { key: "X" },
          })
        ).body,
      ).toEqual({ error: "value is missing" });
      expect(
        (
          await c.call("POST", `${schedules}/${weekly}/variables`, {
            token: "maint-token",
            json: { key: "Y", value: "1", variable_type: "secret" },
          })
        ).body,
      ).toEqual({ error: "variable_type does not have a valid value" });
      const taken = await c.call("POST", `${schedules}/${weekly}/variables`, {
        token: "maint-token",
        json: { key: "CONFIG", value: "b" },
      });
      expect([taken.status, taken.body]).toEqual([400, { message: { key: ["has already been taken"] } }]);
    });

    it("PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key | value req; variable_type opt | variable", async () => {
      const r = await c.call("PUT", `${schedules}/${weekly}/variables/TARGET`, {
        token: "maint-token",
        json: { value: "us", variable_type: "file" },
      });
      expect([r.status, r.body]).toEqual([200, { key: "TARGET", variable_type: "file", value: "us" }]);
      expect(
        (await c.call("PUT", `${schedules}/${weekly}/variables/TARGET`, { token: "maint-token", json: {} }))
          .body,
      ).toEqual({ error: "value is missing" });
      const missing = await c.call("PUT", `${schedules}/${weekly}/variables/NOPE`, {
        token: "maint-token",
        json: { value: "x" },
      });
      expect([missing.status, missing.body]).toEqual([
        404,
        { message: "404 Pipeline Schedule Variable Not Found" },
      ]);
    });

    it("DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key | | the deleted variable", async () => {
      const r = await c.call("DELETE", `${schedules}/${weekly}/variables/TARGET`, { token: "maint-token" });
      expect([r.status, r.body]).toEqual([202, { key: "TARGET", variable_type: "file", value: "us" }]);
      const again = await c.call("DELETE", `${schedules}/${weekly}/variables/TARGET`, {
        token: "maint-token",
      });
      expect([again.status, again.body]).toEqual([
        404,
        { message: "404 Pipeline Schedule Variable Not Found" },
      ]);
      expect(
        (await c.call("DELETE", `${schedules}/${weekly}/variables/CONFIG`, { token: "dev-token" })).status,
      ).toBe(403);
    });
  });

  describe("Pipeline triggers", () => {
    const triggers = "/projects/acme%2Fapi/triggers";

    it("GET /projects/:id/triggers | | array of trigger", async () => {
      const r = await c.call("GET", triggers, { token: "maint-token" });
      expect(r.body).toEqual([
        {
          id: triggerId,
          token: expect.stringMatching(/^[0-9a-f]{30}$/),
          description: "deploy",
          created_at: NOW,
          updated_at: NOW,
          last_used: null,
          owner: expect.objectContaining({ username: "maint" }),
        },
      ]);
      expect((await c.call("GET", triggers, { token: "dev-token" })).status).toBe(403);
      expect((await c.call("GET", triggers, { token: null })).status).toBe(401);
    });

    it("GET /projects/:id/triggers/:trigger_id | trigger_id integer req | trigger", async () => {
      const r = await c.call("GET", `${triggers}/${triggerId}`, { token: "maint-token" });
      expect(r.body).toMatchObject({ id: triggerId, description: "deploy" });
      // another Maintainer sees the first 4 characters only
      const admin = (await c.admin("GET", `${triggers}/${triggerId}`)).body as { token: string };
      expect(admin.token).toBe((r.body as { token: string }).token.slice(0, 4));
      expect((await c.call("GET", `${triggers}/999999`, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await c.call("GET", `${triggers}/abc`, { token: "maint-token" })).body).toEqual({
        error: "trigger_id is invalid",
      });
    });

    it("POST /projects/:id/triggers | description string req | trigger", async () => {
      const r = await c.call("POST", triggers, { token: "maint-token", json: { description: "release" } });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ description: "release", last_used: null, owner: { username: "maint" } });
      expect((await c.call("POST", triggers, { token: "maint-token", json: {} })).body).toEqual({
        error: "description is missing",
      });
      expect(
        (await c.call("POST", triggers, { token: "dev-token", json: { description: "x" } })).status,
      ).toBe(403);
    });

    it("PUT /projects/:id/triggers/:trigger_id | description string opt | trigger", async () => {
      const r = await c.call("PUT", `${triggers}/${triggerId}`, {
        token: "maint-token",
        form: "description=deploy+v2",
      });
      expect([r.status, (r.body as { description: string }).description]).toEqual([200, "deploy v2"]);
      // not the owner
      expect((await c.admin("PUT", `${triggers}/${triggerId}`, { description: "x" })).status).toBe(403);
      expect((await c.call("PUT", `${triggers}/999999`, { token: "maint-token", json: {} })).status).toBe(
        404,
      );
    });

    it("DELETE /projects/:id/triggers/:trigger_id | | deletes trigger", async () => {
      const id = (
        (await c.call("POST", triggers, { token: "maint-token", json: { description: "tmp" } })).body as {
          id: number;
        }
      ).id;
      expect((await c.call("DELETE", `${triggers}/${id}`, { token: "dev-token" })).status).toBe(403);
      const r = await c.call("DELETE", `${triggers}/${id}`, { token: "maint-token" });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.call("DELETE", `${triggers}/${id}`, { token: "maint-token" })).body).toEqual({
        message: "404 Not found",
      });
    });
  });

  describe("Jobs", () => {
    const base = "/projects/acme%2Fapi";

    it("GET /projects/:id/jobs | scope string or array opt (job statuses) | jobs, descending by ID", async () => {
      const r = await c.call("GET", `${base}/jobs`, { token: "rep-token" });
      const ids = (r.body as { id: number }[]).map((j) => j.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(ids.length).toBe(4);
      const scoped = await c.call("GET", `${base}/jobs?scope[]=failed&scope[]=running`, {
        token: "rep-token",
      });
      expect((scoped.body as { name: string }[]).map((j) => j.name)).toEqual(["deploy", "test"]);
      const one = await c.call("GET", `${base}/jobs?scope=success`, { token: "rep-token" });
      expect((one.body as { name: string }[]).map((j) => j.name)).toEqual(["build", "build"]);
      const bad = await c.call("GET", `${base}/jobs?scope=done`, { token: "rep-token" });
      expect([bad.status, bad.body]).toEqual([400, { message: "Scope contains invalid value(s)" }]);
      expect((await c.call("GET", `${base}/jobs`, { token: "outsider-token" })).status).toBe(404);
    });

    it("GET /projects/:id/pipelines/:pipeline_id/jobs | pipeline_id integer req; scope opt | jobs", async () => {
      const r = await c.call("GET", `${base}/pipelines/${pipelines[0]}/jobs`, { token: "rep-token" });
      expect(
        (r.body as { name: string; pipeline: { id: number } }[]).map((j) => [j.name, j.pipeline.id]),
      ).toEqual([
        ["build", pipelines[0]],
        ["test", pipelines[0]],
      ]);
      const scoped = await c.call("GET", `${base}/pipelines/${pipelines[0]}/jobs?scope=failed`, {
        token: "rep-token",
      });
      expect((scoped.body as { name: string }[]).map((j) => j.name)).toEqual(["test"]);
      expect((await c.call("GET", `${base}/pipelines/999999/jobs`, { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await c.call("GET", `${base}/pipelines/x/jobs`, { token: "rep-token" })).body).toEqual({
        error: "pipeline_id is invalid",
      });
    });

    it("GET /projects/:id/jobs/:job_id | job_id integer req | job", async () => {
      const r = await c.call("GET", `${base}/jobs/${jobs["build"]}`, { token: "rep-token" });
      expect(Object.keys(r.body as object)).toEqual(
        expect.arrayContaining([
          "commit",
          "coverage",
          "allow_failure",
          "created_at",
          "started_at",
          "finished_at",
          "duration",
          "artifacts_file",
          "artifacts",
          "artifacts_expire_at",
          "id",
          "name",
          "pipeline",
          "ref",
          "runner",
          "stage",
          "status",
          "tag",
          "web_url",
          "user",
        ]),
      );
      expect(r.body).toMatchObject({
        name: "build",
        stage: "build",
        status: "success",
        ref: "main",
        tag: false,
        artifacts_file: { filename: "artifacts.zip", size: expect.any(Number) },
        artifacts: [expect.objectContaining({ file_type: "archive", filename: "artifacts.zip" })],
        pipeline: { id: pipelines[1], ref: "main", status: expect.any(String), sha: expect.any(String) },
        commit: expect.objectContaining({
          id: expect.any(String),
          short_id: expect.any(String),
          title: expect.any(String),
        }),
      });
      expect((await c.call("GET", `${base}/jobs/999999`, { token: "rep-token" })).body).toEqual({
        message: "404 Not found",
      });
      expect((await c.call("GET", `${base}/jobs/${jobs["build"]}`, { token: null })).status).toBe(401);
    });

    it("GET /projects/:id/jobs/:job_id/artifacts | job_token opt [licensed] | zipped archive: 200, or 404 when no job or no artifacts", async () => {
      const r = await download(c, `${base}/jobs/${jobs["build"]}/artifacts`, {
        "PRIVATE-TOKEN": "rep-token",
      });
      expect([r.status, r.type]).toEqual([200, "application/zip"]);
      expect(unzip(r.buf)).toEqual({ "out/app.txt": "built again\n" });
      const withJobToken = await download(
        c,
        `${base}/jobs/${jobs["build"]}/artifacts?job_token=deploy-job-token`,
      );
      expect(withJobToken.status).toBe(200);
      const header = await download(c, `${base}/jobs/${jobs["build"]}/artifacts`, {
        "JOB-TOKEN": "deploy-job-token",
      });
      expect(header.status).toBe(200);
      expect(
        (await download(core, `${base}/jobs/${jobs["build"]}/artifacts?job_token=deploy-job-token`)).status,
      ).toBe(401);
      expect(
        (await download(c, `${base}/jobs/${jobs["test"]}/artifacts`, { "PRIVATE-TOKEN": "rep-token" }))
          .status,
      ).toBe(404);
      expect(
        (await download(c, `${base}/jobs/999999/artifacts`, { "PRIVATE-TOKEN": "rep-token" })).status,
      ).toBe(404);
    });

    it("GET /projects/:id/jobs/artifacts/:ref_name/download | ref_name, job req; job_token opt | archive from the latest successful pipeline: 200, or 404", async () => {
      // the later pipeline of main is still running: the archive is the first one's
      const r = await download(c, `${base}/jobs/artifacts/main/download?job=build`, {
        "PRIVATE-TOKEN": "rep-token",
      });
      expect(r.status).toBe(200);
      expect(unzip(r.buf)).toEqual({ "out/app.txt": "built\n" });
      expect(
        (await download(c, `${base}/jobs/artifacts/main/download?job=build&job_token=deploy-job-token`))
          .status,
      ).toBe(200);
      expect(
        (await c.call("GET", `${base}/jobs/artifacts/main/download`, { token: "rep-token" })).body,
      ).toEqual({
        error: "job is missing",
      });
      expect(
        (await c.call("GET", `${base}/jobs/artifacts/release/download?job=build`, { token: "rep-token" }))
          .status,
      ).toBe(404);
    });

    it("GET /projects/:id/jobs/:job_id/artifacts/*artifact_path | artifact_path req | single file: 200; 400 invalid path; 404", async () => {
      const r = await download(c, `${base}/jobs/${jobs["first-build"]}/artifacts/out/app.txt`, {
        "PRIVATE-TOKEN": "rep-token",
      });
      expect([r.status, r.buf.toString()]).toEqual([200, "built\n"]);
      expect(r.type).toMatch(/^text\/plain/);
      const bad = await c.call("GET", `${base}/jobs/${jobs["build"]}/artifacts/out//app.txt`, {
        token: "rep-token",
      });
      expect([bad.status, bad.body]).toEqual([400, { message: "400 (Bad request)" }]);
      expect(
        (await c.call("GET", `${base}/jobs/${jobs["build"]}/artifacts/out/none.txt`, { token: "rep-token" }))
          .status,
      ).toBe(404);
      expect(
        (await c.call("GET", `${base}/jobs/${jobs["test"]}/artifacts/out/app.txt`, { token: "rep-token" }))
          .status,
      ).toBe(404);
    });
  });
});
