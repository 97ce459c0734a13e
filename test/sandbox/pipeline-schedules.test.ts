import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const NOW = "2021-03-04T05:06:07.089Z";

const fixture = {
  users: [
    { username: "dev", token: "dev-token" },
    { username: "maint", token: "maint-token" },
    { username: "rep", token: "rep-token" },
    { username: "stranger", token: "stranger-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "public",
      members: { dev: "developer", maint: "maintainer", rep: "reporter" },
    },
  ],
  projects: [
    { path: "acme/api", default_branch: "main" },
    { path: "acme/site", visibility: "public", default_branch: "main" },
  ],
  pipeline_schedules: [
    {
      project: "acme/site",
      description: "seeded",
      cron: "30 1 * * *",
      owner: "maint",
      variables: { SEEDED: "yes" },
    },
  ],
};

type Schedule = {
  id: number;
  owner: { username: string } | null;
  next_run_at: string;
  last_pipeline: unknown;
  variables: unknown[];
  active: boolean;
};

describe("pipeline schedules (§3.2)", () => {
  let c: Client;
  const base = "/projects/acme%2Fapi/pipeline_schedules";
  const as = (token: string | null) => ({
    get: (p: string) => c.call("GET", p, { token }),
    post: (p: string, json?: unknown) => c.call("POST", p, { token, json: json ?? {} }),
    put: (p: string, json: unknown) => c.call("PUT", p, { token, json }),
    del: (p: string) => c.call("DELETE", p, { token }),
  });
  const create = async (body: Record<string, unknown>, token = "dev-token") => {
    const r = await as(token).post(base, { description: "d", ref: "main", cron: "0 1 * * *", ...body });
    expect(r.status, r.text).toBe(201);
    return r.body as Schedule;
  };

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
  });
  afterAll(() => c.sb.stop());

  it("POST creates a schedule: 201 with the detail entity, defaults UTC and active, owner is the caller", async () => {
    const r = await as("dev-token").post(base, { description: "nightly", ref: "main", cron: "0 1 * * 5" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      description: "nightly",
      ref: "main",
      cron: "0 1 * * 5",
      cron_timezone: "UTC",
      // 2021-03-04 is a Thursday; the next Friday 01:00 UTC
      next_run_at: "2021-03-05T01:00:00.000Z",
      active: true,
      created_at: NOW,
      updated_at: NOW,
      owner: expect.objectContaining({ username: "dev", state: "active" }),
      last_pipeline: null,
      variables: [],
    });
  });

  it("accepts friendly Rails and IANA time zones; next_run_at is computed in the schedule's zone", async () => {
    const pacific = await create({ cron: "0 13 * * *", cron_timezone: "Pacific Time (US & Canada)" });
    expect(pacific).toMatchObject({ cron_timezone: "Pacific Time (US & Canada)" });
    expect(pacific.next_run_at).toBe("2021-03-04T21:00:00.000Z"); // 13:00 PST = 21:00 UTC
    const berlin = await create({ cron: "0 9 * * *", cron_timezone: "Europe/Berlin" });
    expect(berlin.next_run_at).toBe("2021-03-04T08:00:00.000Z"); // 09:00 CET = 08:00 UTC
    const tokyo = await create({ cron: "0 9 * * *", cron_timezone: "Tokyo" });
    expect(tokyo.next_run_at).toBe("2021-03-05T00:00:00.000Z");
  });

  it("form-encoded bodies with string booleans work (Ruby and Perl clients)", async () => {
    const r = await c.call("POST", base, {
      token: "dev-token",
      form: "description=form&ref=main&cron=*%2F5+*+*+*+*&cron_timezone=London&active=false",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ description: "form", cron: "*/5 * * * *", active: false });
    const off = await c.call("PUT", `${base}/${(r.body as Schedule).id}`, {
      token: "dev-token",
      form: "active=1",
    });
    expect(off.body).toMatchObject({ active: true });
  });

  it("validation: required params (Grape 400 error), empty ref, bad cron or zone (model 400, leading space)", async () => {
    const missing = await as("dev-token").post(base, {});
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: "description is missing, ref is missing, cron is missing" },
    ]);
    const empty = await as("dev-token").post(base, { description: "x", ref: "", cron: "* * * * *" });
    expect([empty.status, empty.body]).toEqual([400, { error: "ref is empty" }]);
    // go-gitlab sends unset required fields as null: Grape lets nil through and the model refuses it.
    const nulled = await as("dev-token").post(base, { description: null, ref: "main", cron: "* * * * *" });
    expect([nulled.status, nulled.body]).toEqual([400, { message: { description: ["can't be blank"] } }]);
    const badCron = await as("dev-token").post(base, { description: "x", ref: "main", cron: "61 * * * *" });
    expect([badCron.status, badCron.body]).toEqual([400, { message: { cron: [" is invalid syntax"] } }]);
    const words = await as("dev-token").post(base, { description: "x", ref: "main", cron: "every day" });
    expect(words.body).toEqual({ message: { cron: [" is invalid syntax"] } });
    const badZone = await as("dev-token").post(base, {
      description: "x",
      ref: "main",
      cron: "* * * * *",
      cron_timezone: "Mars/Olympus",
    });
    expect([badZone.status, badZone.body]).toEqual([
      400,
      { message: { cron: [" is invalid syntax"], cron_timezone: [" is invalid syntax"] } },
    ]);
    const s = await create({});
    const badPut = await as("dev-token").put(`${base}/${s.id}`, { cron: "not cron" });
    expect([badPut.status, badPut.body]).toEqual([400, { message: { cron: [" is invalid syntax"] } }]);
  });

  it("list: entity without last_pipeline/variables, scope filter, pagination headers", async () => {
    await create({ description: "inactive one", active: false });
    const all = await as("dev-token").get(`${base}?per_page=2`);
    expect(all.status).toBe(200);
    expect(all.headers.get("x-per-page")).toBe("2");
    expect(Number(all.headers.get("x-total"))).toBeGreaterThan(2);
    expect(all.headers.get("x-next-page")).toBe("2");
    const first = (all.body as Record<string, unknown>[])[0]!;
    expect(Object.keys(first).sort()).toEqual(
      [
        "id",
        "description",
        "ref",
        "cron",
        "cron_timezone",
        "next_run_at",
        "active",
        "created_at",
        "updated_at",
        "owner",
      ].sort(),
    );
    const inactive = (await as("dev-token").get(`${base}?scope=inactive&per_page=100`)).body as Schedule[];
    expect(inactive.length).toBeGreaterThan(0);
    expect(inactive.every((s) => s.active === false)).toBe(true);
    const active = (await as("dev-token").get(`${base}?scope=active&per_page=100`)).body as Schedule[];
    expect(active.every((s) => s.active === true)).toBe(true);
    const bad = await as("dev-token").get(`${base}?scope=paused`);
    expect([bad.status, bad.body]).toEqual([400, { error: "scope does not have a valid value" }]);
  });

  it("update: all optional, deactivate and reactivate, rescheduled after an edit", async () => {
    const s = await create({ cron: "0 1 * * *" });
    const off = await as("dev-token").put(`${base}/${s.id}`, { active: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({
      active: false,
      cron: "0 1 * * *",
      next_run_at: "2021-03-05T01:00:00.000Z",
    });
    const edited = await as("dev-token").put(`${base}/${s.id}`, { cron: "0 6 * * *", active: "true" });
    expect(edited.body).toMatchObject({
      active: true,
      cron: "0 6 * * *",
      next_run_at: "2021-03-04T06:00:00.000Z",
    });
    const zone = await as("dev-token").put(`${base}/${s.id}`, {
      cron_timezone: "Eastern Time (US & Canada)",
    });
    expect(zone.body).toMatchObject({ next_run_at: "2021-03-04T11:00:00.000Z" });
  });

  it("take_ownership: 201, the caller becomes the owner; needs Maintainer unless already the owner", async () => {
    const s = await create({});
    const denied = await as("rep-token").post(`${base}/${s.id}/take_ownership`);
    expect(denied.status).toBe(404); // reporters cannot read schedules
    const own = await as("dev-token").post(`${base}/${s.id}/take_ownership`);
    expect(own.status).toBe(201);
    const r = await as("maint-token").post(`${base}/${s.id}/take_ownership`);
    expect(r.status).toBe(201);
    expect((r.body as Schedule).owner?.username).toBe("maint");
    // The developer is no longer the owner: cannot update or take the schedule back.
    expect((await as("dev-token").put(`${base}/${s.id}`, { description: "mine" })).status).toBe(403);
    const back = await as("dev-token").post(`${base}/${s.id}/take_ownership`);
    expect([back.status, back.body]).toEqual([403, { message: "403 Forbidden" }]);
    expect((await as("maint-token").put(`${base}/${s.id}`, { description: "ok" })).status).toBe(200);
  });

  it("play: 201 {message}, a pipeline runs: last_pipeline set, next_run_at unaffected", async () => {
    const s = await create({ ref: "main" });
    const r = await as("dev-token").post(`${base}/${s.id}/play`);
    expect([r.status, r.body]).toEqual([201, { message: "201 Created" }]);
    const after = (await as("dev-token").get(`${base}/${s.id}`)).body as Schedule;
    expect(after.last_pipeline).toEqual({
      id: expect.any(Number),
      sha: expect.stringMatching(/^[0-9a-f]{40}$/),
      ref: "main",
      status: "pending",
      web_url: expect.stringMatching(/\/acme\/api\/-\/pipelines\/\d+$/),
    });
    expect(after.next_run_at).toBe(s.next_run_at);
  });

  it("variables: create (201, env_var default, file), update, delete (202 with the variable)", async () => {
    const s = await create({});
    const vars = `${base}/${s.id}/variables`;
    const a = await as("dev-token").post(vars, { key: "DEPLOY_ENV", value: "prod" });
    expect([a.status, a.body]).toEqual([201, { variable_type: "env_var", key: "DEPLOY_ENV", value: "prod" }]);
    const f = await as("dev-token").post(vars, { key: "CONF", value: "x=1", variable_type: "file" });
    expect(f.body).toEqual({ variable_type: "file", key: "CONF", value: "x=1" });
    const detail = (await as("dev-token").get(`${base}/${s.id}`)).body as Schedule;
    expect(detail.variables).toEqual([
      { variable_type: "env_var", key: "DEPLOY_ENV", value: "prod" },
      { variable_type: "file", key: "CONF", value: "x=1" },
    ]);
    const u = await as("dev-token").put(`${vars}/DEPLOY_ENV`, { value: "staging" });
    expect([u.status, u.body]).toEqual([
      200,
      { variable_type: "env_var", key: "DEPLOY_ENV", value: "staging" },
    ]);
    const noValue = await as("dev-token").put(`${vars}/DEPLOY_ENV`, { variable_type: "file" });
    expect([noValue.status, noValue.body]).toEqual([400, { error: "value is missing" }]);
    const typed = await as("dev-token").put(`${vars}/DEPLOY_ENV`, {
      value: "staging",
      variable_type: "file",
    });
    expect(typed.body).toEqual({ variable_type: "file", key: "DEPLOY_ENV", value: "staging" });
    await as("dev-token").put(`${vars}/DEPLOY_ENV`, { value: "staging", variable_type: "env_var" });
    const missing = await as("dev-token").put(`${vars}/NOPE`, { value: "x" });
    expect([missing.status, missing.body]).toEqual([
      404,
      { message: "404 Pipeline Schedule Variable Not Found" },
    ]);
    const d = await as("dev-token").del(`${vars}/CONF`);
    expect([d.status, d.body]).toEqual([202, { variable_type: "file", key: "CONF", value: "x=1" }]);
    expect((await as("dev-token").del(`${vars}/CONF`)).status).toBe(404);
  });

  it("variable key rules: letters, digits and '_', at most 255, unique per schedule; value required", async () => {
    const s = await create({});
    const vars = `${base}/${s.id}/variables`;
    const bad = await as("dev-token").post(vars, { key: "MY-KEY", value: "v" });
    expect([bad.status, bad.body]).toEqual([
      400,
      { message: { key: ["can contain only letters, digits and '_'."] } },
    ]);
    const long = await as("dev-token").post(vars, { key: "K".repeat(256), value: "v" });
    expect(long.body).toEqual({ message: { key: ["is too long (maximum is 255 characters)"] } });
    expect((await as("dev-token").post(vars, { key: "K".repeat(255), value: "v" })).status).toBe(201);
    expect((await as("dev-token").post(vars, { key: "DUP", value: "v" })).status).toBe(201);
    const dup = await as("dev-token").post(vars, { key: "DUP", value: "w" });
    expect([dup.status, dup.body]).toEqual([400, { message: { key: ["has already been taken"] } }]);
    const noValue = await as("dev-token").post(vars, { key: "X" });
    expect([noValue.status, noValue.body]).toEqual([400, { error: "value is missing" }]);
    const badType = await as("dev-token").post(vars, { key: "T", value: "v", variable_type: "secret" });
    expect(badType.body).toEqual({ error: "variable_type does not have a valid value" });
  });

  it("delete: the deleted schedule (contract), then 404; If-Unmodified-Since gives 412", async () => {
    const s = await create({ description: "doomed" });
    const stale = await c.call("DELETE", `${base}/${s.id}`, {
      token: "dev-token",
      headers: { "If-Unmodified-Since": "Thu, 04 Mar 2021 05:00:00 GMT" },
    });
    expect([stale.status, stale.body]).toEqual([412, { message: "412 Precondition Failed" }]);
    const r = await as("dev-token").del(`${base}/${s.id}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: s.id, description: "doomed", variables: [] });
    const gone = await as("dev-token").get(`${base}/${s.id}`);
    expect([gone.status, gone.body]).toEqual([404, { message: "404 Pipeline Schedule Not Found" }]);
  });

  it("auth: 401 for guests (even on a public project), 404/403 by role, unknown ids", async () => {
    const s = await create({});
    for (const [m, p] of [
      ["GET", base],
      ["GET", `${base}/${s.id}`],
      ["POST", base],
      ["PUT", `${base}/${s.id}`],
      ["DELETE", `${base}/${s.id}`],
      ["POST", `${base}/${s.id}/play`],
      ["GET", "/projects/acme%2Fsite/pipeline_schedules"],
    ] as const) {
      const r = await c.call(m, p, { token: null, json: m === "GET" ? undefined : {} });
      expect([m, p, r.status, r.body]).toEqual([m, p, 401, { message: "401 Unauthorized" }]);
    }
    const stranger = await as("stranger-token").get(base);
    expect([stranger.status, stranger.body]).toEqual([404, { message: "404 Project Not Found" }]);
    // A public project is visible, but its schedules are not: 403 on the list, 404 on a schedule.
    const site = await as("stranger-token").get("/projects/acme%2Fsite/pipeline_schedules");
    expect(site.status).toBe(403);
    expect((await as("rep-token").get(base)).status).toBe(403);
    const repOne = await as("rep-token").get(`${base}/${s.id}`);
    expect([repOne.status, repOne.body]).toEqual([404, { message: "404 Pipeline Schedule Not Found" }]);
    expect(
      (await as("rep-token").post(base, { description: "x", ref: "main", cron: "* * * * *" })).status,
    ).toBe(403);
    // Developers who do not own the schedule cannot change it; maintainers and admins can.
    const other = await create({}, "maint-token");
    expect((await as("dev-token").put(`${base}/${other.id}`, { description: "x" })).status).toBe(403);
    expect((await as("dev-token").del(`${base}/${other.id}`)).status).toBe(403);
    expect(
      (await as("dev-token").post(`${base}/${other.id}/variables`, { key: "A", value: "b" })).status,
    ).toBe(403);
    expect((await as("dev-token").post(`${base}/${other.id}/play`)).status).toBe(201);
    expect((await as("admin-token").put(`${base}/${other.id}`, { description: "admin" })).status).toBe(200);
    const none = await as("dev-token").get(`${base}/999999`);
    expect([none.status, none.body]).toEqual([404, { message: "404 Pipeline Schedule Not Found" }]);
    const notInt = await as("dev-token").get(`${base}/abc`);
    expect([notInt.status, notInt.body]).toEqual([400, { error: "pipeline_schedule_id is invalid" }]);
  });

  it("fixture: pipeline_schedules are seeded with owner and variables", async () => {
    const list = (await as("maint-token").get("/projects/acme%2Fsite/pipeline_schedules")).body as Schedule[];
    expect(list).toHaveLength(1);
    const seeded = (await as("maint-token").get(`/projects/acme%2Fsite/pipeline_schedules/${list[0]!.id}`))
      .body as Schedule;
    expect(seeded).toMatchObject({
      description: "seeded",
      ref: "main",
      cron_timezone: "UTC",
      active: true,
      next_run_at: "2021-03-05T01:30:00.000Z",
      owner: { username: "maint" },
      variables: [{ variable_type: "env_var", key: "SEEDED", value: "yes" }],
    });
  });
});
