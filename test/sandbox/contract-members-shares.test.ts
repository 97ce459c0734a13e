/**
 * Members and shares as the platform (13.12) has them where the contract only says "409 when a member exists; 400
 * for all validation errors": routes/members.ts and routes/shares.ts. Table tests over HTTP: each validation, each
 * permission with the role just below the requirement and at it, each error body, and the boundaries (the day of
 * the sandbox's clock for expiry dates, the last owner). The clock is fixed at 2021-06-15.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Call, type Client, sandbox } from "./helpers.js";

type Json = Record<string, unknown>;

const TODAY = "2021-06-15";
const clock = () => new Date(`${TODAY}T12:00:00.000Z`);

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "owner2", token: "owner2-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "rep", token: "rep-token" },
    { username: "gst", token: "gst-token" },
    { username: "outsider", token: "outsider-token" },
    { username: "newbie", name: "New Person" },
    { username: "nemo", name: "Nemo" },
    { username: "ops-lead", token: "ops-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { owner: "owner", maint: "maintainer", dev: "developer", rep: "reporter", gst: "guest" },
    },
    { path: "acme/team", visibility: "private" },
    { path: "solo", visibility: "private", members: { owner: "owner" } },
    { path: "pair", visibility: "private", members: { owner: "owner", owner2: "owner" } },
    { path: "ops", visibility: "private", members: { "ops-lead": "maintainer" } },
    { path: "hidden", visibility: "private", members: { owner2: "owner" } },
    { path: "open", visibility: "public", members: { owner: "owner" } },
    { path: "locked", visibility: "private", members: { owner: "owner" }, share_with_group_lock: true },
    { path: "locked/inner", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/team/web", visibility: "private" },
    { path: "dev/personal", visibility: "private", members: [{ user: "dev", access_level: "maintainer" }] },
    { path: "locked/app", visibility: "private" },
    { path: "locked/inner/app", visibility: "private" },
    { path: "open/site", visibility: "public" },
  ],
};

describe("members (routes/members.ts, platform 13.12)", () => {
  let c: Client;
  let core: Client;
  const uid: Record<string, number> = {};
  const as = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });
  const pair = (r: Call) => [r.status, r.body];

  beforeAll(async () => {
    c = await sandbox({ fixture, clock });
    core = await sandbox({ fixture, clock, edition: "core" });
    for (const u of fixture.users) {
      const r = await c.admin("GET", `/users?username=${u.username}`);
      uid[u.username] = (r.body as { id: number }[])[0]!.id;
    }
  });
  afterAll(async () => {
    await c.sb.stop();
    await core.sb.stop();
  });

  describe("POST /:source/:id/members: parameters, permissions, validations", () => {
    const add = (who: string | null, path: string, body: Json) => as(who, "POST", path, body);
    resetEachCase();

    const newbie =
      (extra: Json = {}) =>
      () => ({ user_id: uid["newbie"], ...extra });
    it.each([
      ["no token", null, newbie({ access_level: 30 }), 401, { message: "401 Unauthorized" }],
      ["no access_level", "owner-token", newbie(), 400, { error: "access_level is missing" }],
      ["no user_id", "owner-token", () => ({ access_level: 30 }), 400, { error: "user_id is missing" }],
      [
        "a bad date",
        "owner-token",
        newbie({ access_level: 30, expires_at: "2021-02-30" }),
        400,
        { error: "expires_at is invalid" },
      ],
      [
        "Maintainer (below Owner)",
        "maint-token",
        newbie({ access_level: 10 }),
        403,
        { message: "403 Forbidden" },
      ],
      ["Developer", "dev-token", newbie({ access_level: 10 }), 403, { message: "403 Forbidden" }],
      [
        "an outsider",
        "outsider-token",
        newbie({ access_level: 10 }),
        404,
        { message: "404 Group Not Found" },
      ],
      [
        "level 0 (no access)",
        "owner-token",
        newbie({ access_level: 0 }),
        400,
        { message: { access_level: ["is not included in the list"] } },
      ],
      [
        "level 60 (admin)",
        "owner-token",
        newbie({ access_level: 60 }),
        400,
        { message: { access_level: ["is not included in the list"] } },
      ],
      [
        "level 15",
        "owner-token",
        newbie({ access_level: 15 }),
        400,
        { message: { access_level: ["is not included in the list"] } },
      ],
      [
        "an expiry yesterday",
        "owner-token",
        newbie({ access_level: 30, expires_at: "2021-06-14" }),
        400,
        { message: { expires_at: ["cannot be a date in the past"] } },
      ],
      [
        "an unknown user",
        "owner-token",
        () => ({ user_id: 999999, access_level: 30 }),
        404,
        { message: "404 User Not Found" },
      ],
      [
        "a user name instead of an id",
        "owner-token",
        () => ({ user_id: "newbie", access_level: 30 }),
        404,
        { message: "404 User Not Found" },
      ],
      [
        "an existing member",
        "owner-token",
        () => ({ user_id: uid["dev"], access_level: 30 }),
        409,
        { message: "Member already exists" },
      ],
    ])("group: %s", async (_name, token, body, status, answer) => {
      expect(pair(await add(token, "/groups/acme/members", body()))).toEqual([status, answer]);
      expect((await c.admin("GET", `/groups/acme/members/${uid["newbie"]}`)).status).toBe(404);
    });

    it("group: an Owner adds any level up to Owner; today's date and a datetime keep their day", async () => {
      const r = await add("owner-token", "/groups/acme/members", {
        user_id: uid["newbie"],
        access_level: 50,
        expires_at: TODAY,
      });
      expect(r.status).toBe(201);
      expect(r.body).toMatchObject({
        id: uid["newbie"],
        username: "newbie",
        state: "active",
        access_level: 50,
        expires_at: TODAY,
      });
      const other = await add("owner-token", "/groups/pair/members", {
        user_id: uid["nemo"],
        access_level: 10,
        expires_at: "2030-01-02T23:30:00Z",
      });
      expect([other.status, (other.body as Json)["expires_at"]]).toEqual([201, "2030-01-02"]);
    });

    it("group: Minimal Access (5) on a top-level group of the licensed edition only", async () => {
      const top = await c.admin("POST", "/groups/pair/members", { user_id: uid["newbie"], access_level: 5 });
      expect([top.status, (top.body as Json)["access_level"]]).toEqual([201, 5]);
      const sub = await c.admin("POST", "/groups/acme%2Fteam/members", {
        user_id: uid["newbie"],
        access_level: 5,
      });
      expect(pair(sub)).toEqual([
        400,
        { message: { access_level: ["is not included in the list", "supported on top level groups only"] } },
      ]);
      const onCore = await core.admin("POST", "/groups/pair/members", {
        user_id: uid["newbie"],
        access_level: 5,
      });
      expect(pair(onCore)).toEqual([
        400,
        { message: { access_level: ["is not included in the list", "not supported by license"] } },
      ]);
    });

    it("an access level below the user's membership of a group above is refused, equal is accepted", async () => {
      const low = await c.admin("POST", "/groups/acme%2Fteam/members", {
        user_id: uid["dev"],
        access_level: 20,
      });
      expect(pair(low)).toEqual([
        400,
        {
          message: {
            access_level: [
              "should be greater than or equal to Developer inherited membership from group acme",
            ],
          },
        },
      ]);
      const onProject = await c.admin("POST", "/projects/acme%2Fapi/members", {
        user_id: uid["maint"],
        access_level: 30,
        expires_at: "2020-01-01",
      });
      expect(pair(onProject)).toEqual([
        400,
        {
          message: {
            expires_at: ["cannot be a date in the past"],
            access_level: [
              "should be greater than or equal to Maintainer inherited membership from group acme",
            ],
          },
        },
      ]);
      expect(
        (await c.admin("POST", "/groups/acme%2Fteam/members", { user_id: uid["dev"], access_level: 30 }))
          .status,
      ).toBe(201);
    });

    it.each([
      ["Developer (below Maintainer)", "dev-token", 30, 403, { message: "403 Forbidden" }],
      [
        "Maintainer, level 50 (no Owner on projects)",
        "maint-token",
        50,
        400,
        { message: { access_level: ["is not included in the list"] } },
      ],
      [
        "Maintainer, level 5",
        "maint-token",
        5,
        400,
        { message: { access_level: ["is not included in the list"] } },
      ],
      [
        "Maintainer, level 40",
        "maint-token",
        40,
        201,
        expect.objectContaining({ username: "newbie", access_level: 40 }),
      ],
    ])("project: %s", async (_name, token, level, status, answer) => {
      const r = await add(token, "/projects/acme%2Fapi/members", {
        user_id: uid["newbie"],
        access_level: level,
      });
      expect(pair(r)).toEqual([status, answer]);
    });

    it("several ids separated by commas: 201 with a status; unknown ids skipped; errors name the user", async () => {
      const ok = await c.admin("POST", "/projects/acme%2Fteam%2Fweb/members", {
        user_id: `${uid["newbie"]},${uid["nemo"]},999999`,
        access_level: 20,
      });
      expect(pair(ok)).toEqual([201, { status: "success" }]);
      const listed = (await c.admin("GET", "/projects/acme%2Fteam%2Fweb/members")).body as Json[];
      expect(listed.map((m) => [m["username"], m["access_level"]])).toEqual([
        ["newbie", 20],
        ["nemo", 20],
      ]);
      const bad = await c.admin("POST", "/projects/acme%2Fteam%2Fweb/members", {
        user_id: `${uid["newbie"]},${uid["nemo"]}`,
        access_level: 50,
        expires_at: "2021-01-01",
      });
      expect(pair(bad)).toEqual([
        201,
        {
          message:
            "newbie: Expires at cannot be a date in the past and Access level is not included in the list and nemo: Expires at cannot be a date in the past and Access level is not included in the list",
          status: "error",
        },
      ]);
    });

    /** Removes what the cases above added, so each case starts from the fixture's members. */
    function resetEachCase() {
      beforeEach(async () => {
        for (const path of [
          "/groups/acme",
          "/groups/acme%2Fteam",
          "/groups/pair",
          "/projects/acme%2Fapi",
          "/projects/acme%2Fteam%2Fweb",
        ]) {
          for (const name of ["newbie", "nemo"]) {
            await c.admin("DELETE", `${path}/members/${uid[name]}?skip_subresources=true`);
          }
        }
        await c.admin("DELETE", `/groups/acme%2Fteam/members/${uid["dev"]}`);
      });
    }
  });

  describe("PUT and DELETE: who may change whom", () => {
    it.each([
      [
        "Maintainer (below Owner) on a group",
        "maint-token",
        "/groups/acme",
        "rep",
        403,
        { message: "403 Forbidden" },
      ],
      [
        "Owner on a group",
        "owner-token",
        "/groups/acme",
        "rep",
        200,
        expect.objectContaining({ access_level: 30 }),
      ],
      [
        "Developer (below Maintainer) on a project",
        "dev-token",
        "/projects/acme%2Fapi",
        "newbie",
        403,
        { message: "403 Forbidden" },
      ],
      [
        "Maintainer on a project",
        "maint-token",
        "/projects/acme%2Fapi",
        "newbie",
        200,
        expect.objectContaining({ access_level: 30 }),
      ],
      [
        "a member that is not there",
        "owner-token",
        "/groups/acme",
        "outsider",
        404,
        { message: "404 Not found" },
      ],
    ])("PUT %s", async (_name, token, source, who, status, answer) => {
      await c.admin("POST", "/projects/acme%2Fapi/members", { user_id: uid["newbie"], access_level: 20 });
      const r = await as(token, "PUT", `${source}/members/${uid[who]}`, { access_level: 30 });
      expect(pair(r)).toEqual([status, answer]);
      await c.admin("PUT", `/groups/acme/members/${uid["rep"]}`, { access_level: 20 });
      await c.admin("DELETE", `/projects/acme%2Fapi/members/${uid["newbie"]}`);
    });

    it("a change validates like an addition, keeps expires_at when absent and clears it with null", async () => {
      const missing = await c.admin("PUT", `/groups/acme/members/${uid["rep"]}`, {});
      expect(pair(missing)).toEqual([400, { error: "access_level is missing" }]);
      const bad = await c.admin("PUT", `/groups/acme/members/${uid["rep"]}`, { access_level: 60 });
      expect(pair(bad)).toEqual([400, { message: { access_level: ["is not included in the list"] } }]);
      const dated = await c.admin("PUT", `/groups/acme/members/${uid["rep"]}`, {
        access_level: 20,
        expires_at: "2031-01-01",
      });
      expect((dated.body as Json)["expires_at"]).toBe("2031-01-01");
      const kept = await c.admin("PUT", `/groups/acme/members/${uid["rep"]}`, { access_level: 20 });
      expect((kept.body as Json)["expires_at"]).toBe("2031-01-01");
      const cleared = await c.admin("PUT", `/groups/acme/members/${uid["rep"]}`, {
        access_level: 20,
        expires_at: null,
      });
      expect((cleared.body as Json)["expires_at"]).toBeNull();
    });

    it("the last owner of a group can be neither demoted nor removed, not even by an administrator", async () => {
      const demote = await c.admin("PUT", `/groups/solo/members/${uid["owner"]}`, { access_level: 40 });
      expect(pair(demote)).toEqual([403, { message: "403 Forbidden" }]);
      const leave = await as("owner-token", "DELETE", `/groups/solo/members/${uid["owner"]}`);
      expect(pair(leave)).toEqual([403, { message: "403 Forbidden" }]);
      const remove = await c.admin("DELETE", `/groups/solo/members/${uid["owner"]}`);
      expect(remove.status).toBe(403);
      // With a second owner either may go.
      expect(
        (await c.admin("PUT", `/groups/pair/members/${uid["owner2"]}`, { access_level: 40 })).status,
      ).toBe(200);
      expect(
        (await c.admin("PUT", `/groups/pair/members/${uid["owner"]}`, { access_level: 40 })).status,
      ).toBe(403);
      expect(
        (await c.admin("PUT", `/groups/pair/members/${uid["owner2"]}`, { access_level: 50 })).status,
      ).toBe(200);
    });

    it("a blocked owner does not count as an owner; with no active owner the only blocked one is protected", async () => {
      const g = (await c.admin("POST", "/groups", { name: "Blk", path: "blk" })).body as { id: number };
      await c.admin("POST", `/groups/${g.id}/members`, { user_id: uid["owner2"], access_level: 50 });
      const root = ((await c.admin("GET", "/user")).body as { id: number }).id;
      await c.admin("DELETE", `/groups/${g.id}/members/${root}`); // the creator
      await c.admin("POST", `/users/${uid["owner2"]}/block`);
      try {
        const listed = (await c.admin("GET", `/groups/${g.id}/members`)).body as Json[];
        expect(listed.map((m) => [m["username"], m["state"]])).toEqual([["owner2", "blocked"]]);
        expect((await c.admin("DELETE", `/groups/${g.id}/members/${uid["owner2"]}`)).status).toBe(403);
        await c.admin("POST", `/groups/${g.id}/members`, { user_id: uid["owner"], access_level: 50 });
        // owner is now the only active owner: protected; the blocked one may go.
        expect(
          (await c.admin("PUT", `/groups/${g.id}/members/${uid["owner"]}`, { access_level: 40 })).status,
        ).toBe(403);
        expect((await c.admin("DELETE", `/groups/${g.id}/members/${uid["owner2"]}`)).status).toBe(204);
      } finally {
        await c.admin("POST", `/users/${uid["owner2"]}/unblock`);
      }
    });

    it("the owner of a personal project can be neither changed nor removed", async () => {
      const me = (await c.admin("GET", `/projects/dev%2Fpersonal/members/${uid["dev"]}`)).body as Json;
      expect(me).toMatchObject({ username: "dev", access_level: 40 });
      expect(
        (await c.admin("PUT", `/projects/dev%2Fpersonal/members/${uid["dev"]}`, { access_level: 30 })).status,
      ).toBe(403);
      expect((await c.admin("DELETE", `/projects/dev%2Fpersonal/members/${uid["dev"]}`)).status).toBe(403);
    });

    it.each([
      ["oneself (Guest)", "gst-token", "gst", 204],
      ["someone else as a Developer", "dev-token", "rep", 403],
      ["someone else as a Maintainer of a group", "maint-token", "rep", 403],
      ["someone else as the Owner", "owner-token", "rep", 204],
    ])("DELETE %s", async (_name, token, who, status) => {
      const r = await as(token, "DELETE", `/groups/acme/members/${uid[who]}`);
      expect(r.status).toBe(status);
      if (status === 204) {
        expect(r.text).toBe("");
        await c.admin("POST", "/groups/acme/members", {
          user_id: uid[who],
          access_level: who === "gst" ? 10 : 20,
        });
      }
    });

    it("removing a group member removes the user's memberships below, unless skip_subresources=true", async () => {
      const setUp = async () => {
        await c.admin("POST", "/groups/acme/members", { user_id: uid["newbie"], access_level: 20 });
        await c.admin("POST", "/groups/acme%2Fteam/members", { user_id: uid["newbie"], access_level: 30 });
        await c.admin("POST", "/projects/acme%2Fteam%2Fweb/members", {
          user_id: uid["newbie"],
          access_level: 40,
        });
      };
      const where = async () => [
        (await c.admin("GET", `/groups/acme%2Fteam/members/${uid["newbie"]}`)).status,
        (await c.admin("GET", `/projects/acme%2Fteam%2Fweb/members/${uid["newbie"]}`)).status,
      ];
      await setUp();
      expect(
        (await c.admin("DELETE", `/groups/acme/members/${uid["newbie"]}?skip_subresources=true`)).status,
      ).toBe(204);
      expect(await where()).toEqual([200, 200]);
      await c.admin("POST", "/groups/acme/members", { user_id: uid["newbie"], access_level: 20 });
      expect((await c.admin("DELETE", `/groups/acme/members/${uid["newbie"]}`)).status).toBe(204);
      expect(await where()).toEqual([404, 404]);
    });
  });

  describe("GET: lists, lookups, inherited and invited members", () => {
    it.each([
      ["a guest on a private group", null, "/groups/acme/members", 404, { message: "404 Group Not Found" }],
      ["a guest on a public group", null, "/groups/open/members", 401, { message: "401 Unauthorized" }],
      [
        "an outsider on a private project",
        "outsider-token",
        "/projects/acme%2Fapi/members/all",
        404,
        { message: "404 Project Not Found" },
      ],
      ["a Guest member", "gst-token", "/groups/acme/members", 200, expect.any(Array)],
      ["a missing member", "gst-token", "/groups/acme/members/999999", 404, { message: "404 Not found" }],
      [
        "a missing member, all",
        "gst-token",
        "/groups/acme/members/all/999999",
        404,
        { message: "404 Not found" },
      ],
    ])("%s", async (_name, token, path, status, answer) => {
      expect(pair(await as(token, "GET", path))).toEqual([status, answer]);
    });

    it("query matches part of a name or username from 3 characters, exactly below; user_ids filters", async () => {
      const names = async (q: string) =>
        ((await c.admin("GET", `/groups/acme/members?${q}`)).body as Json[]).map((m) => m["username"]);
      expect(await names("query=own")).toEqual(["owner"]);
      expect(await names("query=ow")).toEqual([]);
      expect(await names("query=de")).toEqual([]);
      expect(await names("query=dev")).toEqual(["dev"]);
      expect(await names("query=%40maint")).toEqual(["maint"]);
      expect(await names(`user_ids=${uid["rep"]},${uid["gst"]}`)).toEqual(["rep", "gst"]);
    });

    it("members/all: the nearest membership wins for groups; a project adds the members of its shared groups, capped", async () => {
      await c.admin("POST", "/groups/acme%2Fteam/members", { user_id: uid["rep"], access_level: 40 });
      const ops = ((await c.admin("GET", "/groups/ops")).body as Json)["id"];
      await c.admin("POST", "/projects/acme%2Fapi/share", { group_id: ops, group_access: 30 });
      try {
        const team = (await c.admin("GET", "/groups/acme%2Fteam/members/all")).body as Json[];
        expect(team.map((m) => [m["username"], m["access_level"]])).toEqual([
          ["owner", 50],
          ["maint", 40],
          ["dev", 30],
          ["rep", 40],
          ["gst", 10],
        ]);
        const api = (await as("ops-token", "GET", "/projects/acme%2Fapi/members/all")).body as Json[];
        expect(api.map((m) => [m["username"], m["access_level"]])).toContainEqual(["ops-lead", 30]);
        const one = await as("ops-token", "GET", `/projects/acme%2Fapi/members/all/${uid["ops-lead"]}`);
        expect(pair(one)).toEqual([200, expect.objectContaining({ username: "ops-lead", access_level: 30 })]);
        // The direct list has no inherited or invited member.
        expect((await c.admin("GET", "/projects/acme%2Fapi/members")).body).toEqual([]);
      } finally {
        await c.admin("DELETE", `/groups/acme%2Fteam/members/${uid["rep"]}`);
        await c.admin("DELETE", `/projects/acme%2Fapi/share/${ops}`);
      }
    });

    it("the username lookup (/users?username=) finds a user whatever the case, blocked ones too (state blocked)", async () => {
      await c.admin("POST", `/users/${uid["nemo"]}/block`);
      try {
        const r = await as("dev-token", "GET", "/users?username=NEMO");
        expect(r.body).toEqual([
          expect.objectContaining({ id: uid["nemo"], username: "nemo", state: "blocked" }),
        ]);
      } finally {
        await c.admin("POST", `/users/${uid["nemo"]}/unblock`);
      }
    });
  });
});

describe("shares (routes/shares.ts, platform 13.12)", () => {
  let c: Client;
  const gid: Record<string, number> = {};
  const pair = (r: Call) => [r.status, r.body];
  const as = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });

  beforeAll(async () => {
    c = await sandbox({ fixture, clock });
    for (const g of fixture.groups) {
      gid[g.path] = (
        (await c.admin("GET", `/groups/${encodeURIComponent(g.path)}`)).body as { id: number }
      ).id;
    }
  });
  afterAll(async () => {
    await c.sb.stop();
  });

  describe("POST /groups/:id/share", () => {
    it.each([
      [
        "no token",
        null,
        () => ({ group_id: gid["ops"], group_access: 30 }),
        401,
        { message: "401 Unauthorized" },
      ],
      ["no group_id", "owner-token", () => ({ group_access: 30 }), 400, { error: "group_id is missing" }],
      [
        "group_access 60",
        "owner-token",
        () => ({ group_id: gid["ops"], group_access: 60 }),
        400,
        { error: "group_access does not have a valid value" },
      ],
      [
        "group_access 5",
        "owner-token",
        () => ({ group_id: gid["ops"], group_access: 5 }),
        400,
        { error: "group_access does not have a valid value" },
      ],
      [
        "a group the caller cannot see",
        "owner-token",
        () => ({ group_id: gid["hidden"], group_access: 30 }),
        404,
        { message: "404 Group Not Found" },
      ],
      [
        "a Maintainer (below Owner)",
        "maint-token",
        () => ({ group_id: gid["open"], group_access: 30 }),
        404,
        { message: "Not Found" },
      ],
    ])("%s", async (_name, token, body, status, answer) => {
      expect(pair(await as(token, "POST", "/groups/acme/share", body()))).toEqual([status, answer]);
      expect(((await c.admin("GET", "/groups/acme")).body as Json)["shared_with_groups"]).toEqual([]);
    });

    it("an Owner shares (201, the group's details); again is 409; Owner (50) is a valid level", async () => {
      const r = await c.admin("POST", "/groups/acme/share", {
        group_id: gid["ops"],
        group_access: 50,
        expires_at: "2031-05-01",
      });
      expect(r.status).toBe(201);
      expect((r.body as Json)["shared_with_groups"]).toEqual([
        {
          group_id: gid["ops"],
          group_name: "ops",
          group_full_path: "ops",
          group_access_level: 50,
          expires_at: "2031-05-01",
        },
      ]);
      const again = await c.admin("POST", "/groups/acme/share", { group_id: gid["ops"], group_access: 30 });
      expect(pair(again)).toEqual([
        409,
        { message: "Shared group The group has already been shared with this group" },
      ]);
      expect((await c.admin("DELETE", `/groups/acme/share/${gid["ops"]}`)).status).toBe(204);
    });

    it("members of the invited group get the lower of their level and the share's, below the shared group too", async () => {
      expect((await as("ops-token", "GET", "/projects/acme%2Fteam%2Fweb")).status).toBe(404);
      await c.admin("POST", "/groups/acme/share", { group_id: gid["ops"], group_access: 20 });
      try {
        expect((await as("ops-token", "GET", "/projects/acme%2Fteam%2Fweb")).status).toBe(200);
        // Reporter through the share (ops-lead is Maintainer of ops): a Reporter may not add members to a project.
        const add = await as("ops-token", "POST", "/projects/acme%2Fteam%2Fweb/members", {
          user_id: 1,
          access_level: 10,
        });
        expect(add.status).toBe(403);
      } finally {
        await c.admin("DELETE", `/groups/acme/share/${gid["ops"]}`);
      }
      expect((await as("ops-token", "GET", "/projects/acme%2Fteam%2Fweb")).status).toBe(404);
    });

    it("the group's details list only the shared groups the caller may see", async () => {
      await as("owner2-token", "POST", "/groups/pair/share", { group_id: gid["hidden"], group_access: 30 });
      try {
        const mine = (await as("owner2-token", "GET", "/groups/pair")).body as Json;
        expect((mine["shared_with_groups"] as Json[]).map((s) => s["group_full_path"])).toEqual(["hidden"]);
        const theirs = (await as("owner-token", "GET", "/groups/pair")).body as Json;
        expect(theirs["shared_with_groups"]).toEqual([]);
      } finally {
        await c.admin("DELETE", `/groups/pair/share/${gid["hidden"]}`);
      }
    });

    it("DELETE: 404 Group Link Not Found when absent, 403 below Owner, 204", async () => {
      expect(pair(await c.admin("DELETE", `/groups/acme/share/${gid["ops"]}`))).toEqual([
        404,
        { message: "404 Group Link Not Found" },
      ]);
      await c.admin("POST", "/groups/acme/share", { group_id: gid["ops"], group_access: 30 });
      expect(pair(await as("maint-token", "DELETE", `/groups/acme/share/${gid["ops"]}`))).toEqual([
        403,
        { message: "403 Forbidden" },
      ]);
      expect(pair(await as(null, "DELETE", `/groups/acme/share/${gid["ops"]}`))).toEqual([
        401,
        { message: "401 Unauthorized" },
      ]);
      expect((await as("owner-token", "DELETE", `/groups/acme/share/${gid["ops"]}`)).status).toBe(204);
    });
  });

  describe("POST /projects/:id/share", () => {
    it.each([
      [
        "no token",
        null,
        "acme%2Fapi",
        () => ({ group_id: gid["ops"], group_access: 30 }),
        401,
        { message: "401 Unauthorized" },
      ],
      [
        "no group_access",
        "maint-token",
        "acme%2Fapi",
        () => ({ group_id: gid["ops"] }),
        400,
        { error: "group_access is missing" },
      ],
      [
        "group_access 50 (no Owner on projects)",
        "maint-token",
        "acme%2Fapi",
        () => ({ group_id: gid["ops"], group_access: 50 }),
        400,
        { error: "group_access does not have a valid value" },
      ],
      [
        "a bad date",
        "maint-token",
        "acme%2Fapi",
        () => ({ group_id: gid["ops"], group_access: 30, expires_at: "soon" }),
        400,
        { error: "expires_at is invalid" },
      ],
      [
        "a Developer (below Maintainer)",
        "dev-token",
        "acme%2Fapi",
        () => ({ group_id: gid["acme"], group_access: 30 }),
        403,
        { message: "403 Forbidden" },
      ],
      [
        "a group the Maintainer is not in",
        "maint-token",
        "acme%2Fapi",
        () => ({ group_id: gid["ops"], group_access: 30 }),
        404,
        { message: "Not Found" },
      ],
      [
        "a group that does not exist",
        "maint-token",
        "acme%2Fapi",
        () => ({ group_id: 999999, group_access: 30 }),
        404,
        { message: "Not Found" },
      ],
      [
        "the project's own group",
        "maint-token",
        "acme%2Fapi",
        () => ({ group_id: gid["acme"], group_access: 30 }),
        409,
        { message: "Project cannot be shared with the group it is in or one of its ancestors." },
      ],
      [
        "a group above the project's",
        "owner-token",
        "acme%2Fteam%2Fweb",
        () => ({ group_id: gid["acme"], group_access: 30 }),
        409,
        { message: "Project cannot be shared with the group it is in or one of its ancestors." },
      ],
      [
        "a namespace with share_with_group_lock",
        "owner-token",
        "locked%2Fapp",
        () => ({ group_id: gid["open"], group_access: 30 }),
        400,
        { message: "The project sharing with group is disabled" },
      ],
      [
        "a group above with share_with_group_lock",
        "owner-token",
        "locked%2Finner%2Fapp",
        () => ({ group_id: gid["open"], group_access: 30 }),
        400,
        { message: "The project sharing with group is disabled" },
      ],
    ])("%s", async (_name, token, project, body, status, answer) => {
      expect(pair(await as(token, "POST", `/projects/${project}/share`, body()))).toEqual([status, answer]);
      expect(((await c.admin("GET", `/projects/${project}`)).body as Json)["shared_with_groups"]).toEqual([]);
    });

    it("a Maintainer or above who belongs to the group shares (201, the link); again is 409; DELETE 204 then 404", async () => {
      const r = await as("owner-token", "POST", "/projects/acme%2Fapi/share", {
        group_id: gid["open"],
        group_access: 40,
        expires_at: "2031-01-31",
      });
      expect(pair(r)).toEqual([
        201,
        {
          id: expect.any(Number),
          project_id: expect.any(Number),
          group_id: gid["open"],
          group_access: 40,
          expires_at: "2031-01-31",
        },
      ]);
      expect(((await c.admin("GET", "/projects/acme%2Fapi")).body as Json)["shared_with_groups"]).toEqual([
        {
          group_id: gid["open"],
          group_name: "open",
          group_full_path: "open",
          group_access_level: 40,
          expires_at: "2031-01-31",
        },
      ]);
      const again = await as("owner-token", "POST", "/projects/acme%2Fapi/share", {
        group_id: gid["open"],
        group_access: 30,
      });
      expect(pair(again)).toEqual([409, { message: "Group already shared with this group" }]);
      expect(pair(await as("dev-token", "DELETE", `/projects/acme%2Fapi/share/${gid["open"]}`))).toEqual([
        403,
        { message: "403 Forbidden" },
      ]);
      expect((await as("maint-token", "DELETE", `/projects/acme%2Fapi/share/${gid["open"]}`)).status).toBe(
        204,
      );
      expect(pair(await as("maint-token", "DELETE", `/projects/acme%2Fapi/share/${gid["open"]}`))).toEqual([
        404,
        { message: "404 Group Link Not Found" },
      ]);
    });

    it("an administrator may share with any group", async () => {
      expect(
        (await c.admin("POST", "/projects/acme%2Fapi/share", { group_id: gid["hidden"], group_access: 10 }))
          .status,
      ).toBe(201);
      expect((await c.admin("DELETE", `/projects/acme%2Fapi/share/${gid["hidden"]}`)).status).toBe(204);
    });
  });
});
