/**
 * Every row of the contract's Limits, States and transitions, and Errors tables
 * (`shared/spec/rest-interface.md`, the contract document beside the repository), one case per row, asserted over HTTP against an in-process sandbox.
 * The areas' own test files go deeper; this file shows that each row is covered, in one place.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";
import { ED25519 } from "./ssh-keys.js";

const NOW = "2023-06-15T12:00:00.000Z";

const BIG = Array.from({ length: 101 }, (_, i) => ({
  path: `big/p${i + 1}`,
  visibility: "private",
  shared_with: { target: "developer" },
}));

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "asker", token: "asker-token" },
    { username: "outsider", token: "outsider-token" },
    { username: "alice", email: "alice@acme.example" },
    { username: "bob", email: "bob@acme.example" },
    { username: "ann" },
    { username: "ben" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "internal",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
    { path: "secret", visibility: "private", members: { owner: "owner" } },
    { path: "big", visibility: "private" },
    { path: "target", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "internal", default_branch: "main" },
    { path: "acme/web", visibility: "internal" },
    { path: "secret/app", visibility: "private" },
    ...BIG,
  ],
  milestones: [{ project: "acme/api", title: "v1" }],
  pipeline_schedules: [{ project: "acme/api", description: "nightly", cron: "0 2 * * *", owner: "dev" }],
  error_tracking: [
    {
      project: "acme/api",
      active: true,
      project_name: "api",
      tracker_external_url: "https://sentry.example/acme/api",
      api_url: "https://sentry.example/api/0/projects/acme/api",
    },
  ],
  scim: [
    {
      group: "secret",
      token: "scim-secret",
      identities: [
        { user: "alice", extern_uid: "alice-uid" },
        { user: "bob", extern_uid: "bob-uid" },
      ],
    },
  ],
  events: [
    { author: "dev", action: "pushed", project: "acme/api", created_at: "2021-06-16T12:00:00Z" },
    { author: "dev", action: "closed", project: "acme/api", created_at: "2021-06-14T12:00:00Z" },
  ],
  jobs: [
    {
      project: "acme/api",
      pipelines: [
        {
          ref: "main",
          jobs: [
            { name: "build", artifacts: { "out/app.txt": "built\n" } },
            { name: "lint", status: "success" },
          ],
        },
      ],
    },
  ],
  snippets: [{ author: "dev", title: "mine", file_name: "a.txt", content: "a" }],
};

/** A GET whose path is sent as given (fetch resolves `%2E%2E` dot segments itself). */
function rawGet(base: string, path: string, token: string): Promise<{ status: number; text: string }> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, headers: { "PRIVATE-TOKEN": token } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (d: Buffer) => chunks.push(d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

describe("contract tables", () => {
  let c: Client;
  let core: Client;
  const uid: Record<string, number> = {};
  let scheduleId: number;
  let milestoneId: number;
  let buildJob: number;
  let lintJob: number;

  const scim = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${c.sb.url}/api/scim/v2${path}`, {
      method,
      headers: { Authorization: "Bearer scim-secret", "Content-Type": "application/scim+json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : undefined };
  };

  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(NOW), fixture });
    core = await sandbox({ clock: () => new Date(NOW), fixture: { ...fixture, scim: [] }, edition: "core" });
    for (const name of ["owner", "dev", "asker", "alice", "bob", "outsider"]) {
      uid[name] = ((await c.admin("GET", `/users?username=${name}`)).body as { id: number }[])[0]!.id;
    }
    scheduleId = (
      (await c.admin("GET", "/projects/acme%2Fapi/pipeline_schedules")).body as { id: number }[]
    )[0]!.id;
    milestoneId = ((await c.admin("GET", "/projects/acme%2Fapi/milestones")).body as { id: number }[])[0]!.id;
    const jobs = (await c.admin("GET", "/projects/acme%2Fapi/jobs")).body as { id: number; name: string }[];
    buildJob = jobs.find((j) => j.name === "build")!.id;
    lintJob = jobs.find((j) => j.name === "lint")!.id;
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("Limits", () => {
    it("Default page size: 20 on paginated list endpoints", async () => {
      const r = await c.admin("GET", "/groups/big/projects");
      expect(r.status).toBe(200);
      expect((r.body as unknown[]).length).toBe(20);
      expect(r.headers.get("x-per-page")).toBe("20");
      expect(r.headers.get("x-total")).toBe("101");
    });

    it("Projects in group details: at most 100 projects and 100 shared projects (GET /groups/:id)", async () => {
      const big = (await c.admin("GET", "/groups/big")).body as { projects: unknown[] };
      expect(big.projects.length).toBe(100);
      const target = (await c.admin("GET", "/groups/target")).body as { shared_projects: unknown[] };
      expect(target.shared_projects.length).toBe(100);
    });

    it("Pipeline variable key length: at most 255 characters; characters A-Z a-z 0-9 _ (schedule variables)", async () => {
      const vars = `/projects/acme%2Fapi/pipeline_schedules/${scheduleId}/variables`;
      expect((await c.admin("POST", vars, { key: `A_z9${"K".repeat(251)}`, value: "v" })).status).toBe(201);
      const long = await c.admin("POST", vars, { key: "K".repeat(256), value: "v" });
      expect([long.status, long.body]).toEqual([
        400,
        { message: { key: ["is too long (maximum is 255 characters)"] } },
      ]);
      const chars = await c.admin("POST", vars, { key: "MY-KEY", value: "v" });
      expect([chars.status, chars.body]).toEqual([
        400,
        { message: { key: ["can contain only letters, digits and '_'."] } },
      ]);
    });

    it("Event retention: 2 years (activity events)", async () => {
      const r = await c.admin("GET", "/projects/acme%2Fapi/events");
      const list = r.body as { action_name: string; created_at: string }[];
      expect(list.map((e) => e.created_at)).toEqual(["2021-06-16T12:00:00.000Z"]);
      expect((await c.admin("GET", "/users/dev/events?action=closed")).body).toEqual([]);
    });

    it("SCIM startIndex: values below 1 are read as 1 (SCIM user list)", async () => {
      for (const start of ["0", "-3"]) {
        const r = await scim("GET", `/groups/secret/Users?startIndex=${start}&count=1`);
        expect(r.status).toBe(200);
        expect(r.body).toMatchObject({ startIndex: 1, itemsPerPage: 1, Resources: [{ id: "alice-uid" }] });
      }
    });

    it("default_projects_limit: 100000 (per user)", async () => {
      const s = (await c.admin("GET", "/application/settings")).body as { default_projects_limit: number };
      expect(s.default_projects_limit).toBe(100000);
    });

    it("archive age: at least 1 day (archive_builds_in_human_readable)", async () => {
      const short = await c.admin("PUT", "/application/settings", {
        archive_builds_in_human_readable: "23 hours",
      });
      expect([short.status, short.body]).toEqual([
        400,
        { message: { archive_builds_in_seconds: ["must be at least 1 day"] } },
      ]);
      const day = await c.admin("PUT", "/application/settings", {
        archive_builds_in_human_readable: "1 day",
      });
      expect(day.status).toBe(200);
      expect(
        (day.body as { archive_builds_in_human_readable: string }).archive_builds_in_human_readable,
      ).toBe("1 day");
    });
  });

  describe("States and transitions", () => {
    const milestone = () => `/projects/acme%2Fapi/milestones/${milestoneId}`;
    const schedule = () => `/projects/acme%2Fapi/pipeline_schedules/${scheduleId}`;

    it("Milestone: active, PUT with state_event=close (milestone exists) -> closed", async () => {
      expect(((await c.admin("GET", milestone())).body as { state: string }).state).toBe("active");
      const r = await c.call("PUT", milestone(), { token: "dev-token", form: "state_event=close" });
      expect([r.status, (r.body as { state: string }).state]).toEqual([200, "closed"]);
      expect(
        (await c.admin("PUT", "/projects/acme%2Fapi/milestones/999999", { state_event: "close" })).status,
      ).toBe(404);
    });

    it("Milestone: closed, PUT with state_event=activate (milestone exists) -> active", async () => {
      const r = await c.call("PUT", milestone(), { token: "dev-token", json: { state_event: "activate" } });
      expect([r.status, (r.body as { state: string }).state]).toEqual([200, "active"]);
      expect(((await c.admin("GET", milestone())).body as { state: string }).state).toBe("active");
    });

    it("Pipeline schedule: active, PUT with active=false -> inactive (active=false)", async () => {
      const r = await c.call("PUT", schedule(), { token: "dev-token", form: "active=false" });
      expect([r.status, (r.body as { active: boolean }).active]).toEqual([200, false]);
    });

    it("Pipeline schedule: inactive, PUT with active=true -> active; rescheduled after any edit", async () => {
      const r = await c.call("PUT", schedule(), { token: "dev-token", json: { active: true } });
      expect(r.body).toMatchObject({ active: true, next_run_at: "2023-06-16T02:00:00.000Z" });
      const edited = await c.call("PUT", schedule(), { token: "dev-token", json: { cron: "30 13 * * *" } });
      expect(edited.body).toMatchObject({ active: true, next_run_at: "2023-06-15T13:30:00.000Z" });
    });

    it("Pipeline schedule: any, take_ownership -> unchanged; owner becomes the caller", async () => {
      const before = (await c.admin("GET", schedule())).body as {
        owner: { username: string };
        active: boolean;
      };
      expect(before.owner.username).toBe("dev");
      const r = await c.call("POST", `${schedule()}/take_ownership`, { token: "maint-token" });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({ owner: { username: "maint" }, active: before.active });
    });

    it("Pipeline schedule: any, play -> unchanged; a pipeline runs at once; next scheduled run is unaffected", async () => {
      const before = (await c.admin("GET", schedule())).body as { next_run_at: string; active: boolean };
      const r = await c.call("POST", `${schedule()}/play`, { token: "maint-token" });
      expect([r.status, r.body]).toEqual([201, { message: "201 Created" }]);
      const after = (await c.admin("GET", schedule())).body as {
        next_run_at: string;
        active: boolean;
        last_pipeline: { status: string } | null;
      };
      expect(after.last_pipeline).toMatchObject({ status: "pending" });
      expect([after.next_run_at, after.active]).toEqual([before.next_run_at, before.active]);
    });

    it("Error tracking: any, PATCH with active (configured settings exist) -> active true or false", async () => {
      const path = "/projects/acme%2Fapi/error_tracking/settings";
      const off = await c.call("PATCH", path, { token: "maint-token", form: "active=false" });
      expect([off.status, (off.body as { active: boolean }).active]).toEqual([200, false]);
      const on = await c.call("PATCH", path, { token: "maint-token", json: { active: true } });
      expect((on.body as { active: boolean }).active).toBe(true);
      const none = await c.admin("PATCH", "/projects/acme%2Fweb/error_tracking/settings", { active: true });
      expect(none.status).toBe(404);
    });

    it("SCIM user identity: present, PATCH active=false -> identity removed", async () => {
      const r = await scim("PATCH", "/groups/secret/Users/bob-uid", {
        Operations: [{ op: "Replace", path: "active", value: false }],
      });
      expect([r.status, r.text]).toEqual([204, ""]);
      const bob = (await c.admin("GET", `/users/${uid["bob"]}`)).body as { identities: unknown[] };
      expect(bob.identities).toEqual([]);
      expect(((await scim("GET", "/groups/secret/Users/bob-uid")).body as { active: boolean }).active).toBe(
        false,
      );
    });

    it("SCIM user identity: present, DELETE user -> removed; SSO identity and group membership removed", async () => {
      expect((await c.admin("GET", `/groups/secret/members/${uid["alice"]}`)).status).toBe(200);
      const r = await scim("DELETE", "/groups/secret/Users/alice-uid");
      expect([r.status, r.text]).toEqual([204, ""]);
      expect((await c.admin("GET", `/groups/secret/members/${uid["alice"]}`)).status).toBe(404);
      const alice = (await c.admin("GET", `/users/${uid["alice"]}`)).body as { identities: unknown[] };
      expect(alice.identities).toEqual([]);
      expect((await scim("GET", "/groups/secret/Users/alice-uid")).status).toBe(404);
    });

    it("Access request: pending, approve (caller may manage members) -> member with access_level (default 30)", async () => {
      expect((await c.call("POST", "/groups/acme/access_requests", { token: "asker-token" })).status).toBe(
        201,
      );
      const url = `/groups/acme/access_requests/${uid["asker"]}/approve`;
      expect((await c.call("PUT", url, { token: "dev-token" })).status).toBe(403);
      const r = await c.call("PUT", url, { token: "owner-token" });
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ id: uid["asker"], access_level: 30 });
      expect((await c.admin("GET", `/groups/acme/members/${uid["asker"]}`)).body).toMatchObject({
        access_level: 30,
      });
      expect((await c.call("GET", "/groups/acme/access_requests", { token: "owner-token" })).body).toEqual(
        [],
      );
    });

    it("Access request: pending, deny (DELETE) -> request removed", async () => {
      expect(
        (await c.call("POST", "/projects/acme%2Fapi/access_requests", { token: "outsider-token" })).status,
      ).toBe(201);
      const r = await c.call("DELETE", `/projects/acme%2Fapi/access_requests/${uid["outsider"]}`, {
        token: "maint-token",
      });
      expect([r.status, r.text]).toEqual([204, ""]);
      expect(
        (await c.call("GET", "/projects/acme%2Fapi/access_requests", { token: "maint-token" })).body,
      ).toEqual([]);
      expect((await c.admin("GET", `/projects/acme%2Fapi/members/${uid["outsider"]}`)).status).toBe(404);
    });
  });

  describe("Errors", () => {
    it("400: invalid artifact path; validation errors creating or updating a member", async () => {
      const bad = await rawGet(
        c.sb.url,
        `/api/v4/projects/acme%2Fapi/jobs/${buildJob}/artifacts/out/%2E%2E/app.txt`,
        "admin-token",
      );
      expect([bad.status, JSON.parse(bad.text)]).toEqual([400, { message: "400 (Bad request)" }]);
      const create = await c.admin("POST", "/groups/acme/members", {
        user_id: uid["outsider"],
        access_level: 60,
      });
      expect([create.status, create.body]).toEqual([
        400,
        { message: { access_level: ["is not included in the list"] } },
      ]);
      expect((await c.admin("GET", `/groups/acme/members/${uid["outsider"]}`)).status).toBe(404);
      const update = await c.admin("PUT", `/groups/acme/members/${uid["dev"]}`, { access_level: 60 });
      expect([update.status, update.body]).toEqual([
        400,
        { message: { access_level: ["is not included in the list"] } },
      ]);
    });

    it("401: unauthenticated (guest) caller on a non-GET broadcast message endpoint", async () => {
      const r = await c.call("POST", "/broadcast_messages", { token: null, json: { message: "hi" } });
      expect([r.status, r.body]).toEqual([401, { message: "401 Unauthorized" }]);
      expect((await c.call("GET", "/broadcast_messages", { token: null })).status).toBe(200);
    });

    it("403: regular user on a non-GET broadcast message endpoint; epics feature not available", async () => {
      const r = await c.call("POST", "/broadcast_messages", { token: "dev-token", json: { message: "hi" } });
      expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
      const epics = await core.call("GET", "/groups/acme/epics/1/issues", { token: "owner-token" });
      expect([epics.status, epics.body]).toEqual([403, { message: "403 Forbidden" }]);
    });

    it("404: private project or group for a non-member; artifacts with no job or none; export with no archive; snippet delete", async () => {
      const group = await c.call("GET", "/groups/secret", { token: "dev-token" });
      expect([group.status, group.body]).toEqual([404, { message: "404 Group Not Found" }]);
      const project = await c.call("GET", "/projects/secret%2Fapp", { token: "dev-token" });
      expect([project.status, project.body]).toEqual([404, { message: "404 Project Not Found" }]);
      expect((await c.admin("GET", "/projects/acme%2Fapi/jobs/999999/artifacts")).status).toBe(404);
      expect((await c.admin("GET", `/projects/acme%2Fapi/jobs/${lintJob}/artifacts`)).status).toBe(404);
      const byRef = await c.admin("GET", "/projects/acme%2Fapi/jobs/artifacts/main/download?job=lint");
      expect([byRef.status, byRef.body]).toEqual([404, { message: "404 Not Found" }]);
      expect(
        (await c.admin("GET", "/projects/acme%2Fapi/jobs/artifacts/main/download?job=deploy")).status,
      ).toBe(404);
      expect((await c.admin("GET", "/groups/big/export/download")).status).toBe(404);
      const snippet = await c.call("DELETE", "/snippets/999999", { token: "dev-token" });
      expect([snippet.status, snippet.body]).toEqual([404, { message: "404 Snippet Not Found" }]);
    });

    it("409: adding a member that already exists", async () => {
      const r = await c.admin("POST", "/groups/acme/members", { user_id: uid["dev"], access_level: 30 });
      expect([r.status, r.body]).toEqual([409, { message: "Member already exists" }]);
    });

    it("invalid-parameter error: assignee_username array with more than one value on the lower edition", async () => {
      const r = await core.admin(
        "GET",
        "/groups/acme/issues_statistics?assignee_username[]=ann&assignee_username[]=ben",
      );
      expect([r.status, r.body]).toEqual([
        400,
        { error: "assignee_username allows one value, but found 2: ann, ben" },
      ]);
      expect((await core.admin("GET", "/groups/acme/issues_statistics?assignee_username[]=ann")).status).toBe(
        200,
      );
      expect(
        (
          await c.admin(
            "GET",
            "/groups/acme/issues_statistics?assignee_username[]=ann&assignee_username[]=ben",
          )
        ).status,
      ).toBe(200);
    });

    it("Success statuses: 201 SCIM create and deploy key enable; 202 export and async removals; 204 SCIM patch/delete, wiki and snippet delete", async () => {
      const created = await scim("POST", "/groups/secret/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
        externalId: "dave-uid",
        userName: "dave",
        emails: [{ type: "work", value: "dave@acme.example", primary: true }],
        name: { formatted: "Dave Example" },
        active: true,
      });
      expect(created.status).toBe(201);
      // a Maintainer may enable a key of another project they maintain (administrator rights do not count)
      const key = await c.call("POST", "/projects/acme%2Fapi/deploy_keys", {
        token: "maint-token",
        json: { title: "ci", key: ED25519 },
      });
      expect(key.status).toBe(201);
      const enable = await c.call(
        "POST",
        `/projects/acme%2Fweb/deploy_keys/${(key.body as { id: number }).id}/enable`,
        {
          token: "maint-token",
        },
      );
      expect(enable.status).toBe(201);
      const exp = await c.admin("POST", "/groups/acme/export");
      expect([exp.status, exp.body]).toEqual([202, { message: "202 Accepted" }]);
      const removed = await c.admin("DELETE", "/projects/big%2Fp1");
      expect(removed.status).toBe(202);
      expect(removed.body).toEqual(expect.any(Object));
      const patch = await scim("PATCH", "/groups/secret/Users/dave-uid", {
        Operations: [{ op: "Replace", path: "name.formatted", value: "Dave" }],
      });
      expect(patch.status).toBe(204);
      expect((await scim("DELETE", "/groups/secret/Users/dave-uid")).status).toBe(204);
      expect(
        (await c.admin("POST", "/projects/acme%2Fapi/wikis", { title: "Temp", content: "x" })).status,
      ).toBe(201);
      const wiki = await c.admin("DELETE", "/projects/acme%2Fapi/wikis/Temp");
      expect([wiki.status, wiki.text]).toEqual([204, ""]);
      const snippetId = (
        (await c.call("GET", "/snippets", { token: "dev-token" })).body as { id: number }[]
      )[0]!.id;
      const snippet = await c.call("DELETE", `/snippets/${snippetId}`, { token: "dev-token" });
      expect([snippet.status, snippet.text]).toEqual([204, ""]);
    });
  });
});
