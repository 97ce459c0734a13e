import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "maint", name: "Mia Maintainer", token: "maint-token" },
    { username: "dev", name: "Dee Developer", token: "dev-token" },
    { username: "outsider", name: "Otto Outsider", token: "outsider-token" },
  ],
  groups: [
    { path: "acme", name: "Acme", visibility: "public", members: { maint: "maintainer", dev: "developer" } },
    { path: "ops", name: "Ops Team", visibility: "public" },
    { path: "qa", name: "QA", visibility: "public" },
    { path: "hidden", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "public", shared_with: { ops: "developer" } },
    { path: "hidden/app" },
  ],
  protected_environments: [
    { project: "acme/api", name: "staging", deploy_access_levels: [{ access_level: 30 }] },
  ],
};

type Env = { name: string; deploy_access_levels: Record<string, unknown>[] };

describe("protected environments [licensed] (§3.5)", () => {
  let c: Client;
  const base = "/projects/acme%2Fapi/protected_environments";
  const call = (token: string | null, method: string, path: string, json?: unknown) =>
    c.call(method, path, { token, json });
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    c = await sandbox({ fixture });
    for (const u of ["maint", "dev", "outsider"]) {
      ids[u] = ((await call("admin-token", "GET", `/users?username=${u}`)).body as { id: number }[])[0]!.id;
    }
    for (const g of ["acme", "ops", "qa"]) {
      ids[g] = ((await call("admin-token", "GET", `/groups/${g}`)).body as { id: number }).id;
    }
  });
  afterAll(() => c.sb.stop());

  it("POST protects an environment: 201 with levels by role, user and group, described", async () => {
    const r = await call("maint-token", "POST", base, {
      name: "production",
      deploy_access_levels: [
        { access_level: 40 },
        { access_level: 60 },
        { user_id: ids["dev"] },
        { group_id: ids["ops"] },
        { group_id: ids["acme"] },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      name: "production",
      deploy_access_levels: [
        { access_level: 40, access_level_description: "Maintainers", user_id: null, group_id: null },
        { access_level: 60, access_level_description: "Admins", user_id: null, group_id: null },
        {
          access_level: null,
          access_level_description: "Dee Developer",
          user_id: ids["dev"],
          group_id: null,
        },
        { access_level: null, access_level_description: "Ops Team", user_id: null, group_id: ids["ops"] },
        { access_level: null, access_level_description: "Acme", user_id: null, group_id: ids["acme"] },
      ],
    });
  });

  it("form-encoded arrays of hashes (Rack style) and names with '/' (URL-encoded)", async () => {
    const r = await c.call("POST", base, {
      token: "maint-token",
      form: "name=review%2Fapp&deploy_access_levels[][access_level]=30&deploy_access_levels[][access_level]=40",
    });
    expect(r.status, r.text).toBe(201);
    expect((r.body as Env).deploy_access_levels.map((l) => l.access_level_description)).toEqual([
      "Developers + Maintainers",
      "Maintainers",
    ]);
    const one = await call("maint-token", "GET", `${base}/review%2Fapp`);
    expect([one.status, (one.body as Env).name]).toEqual([200, "review/app"]);
  });

  it("list is sorted by name and paginated; GET one; missing is 404 Not found", async () => {
    const list = await call("maint-token", "GET", `${base}?per_page=2`);
    expect(list.status).toBe(200);
    expect((list.body as Env[]).map((e) => e.name)).toEqual(["production", "review/app"]);
    expect(list.headers.get("x-total")).toBe("3");
    expect(list.headers.get("x-next-page")).toBe("2");
    const page2 = (await call("maint-token", "GET", `${base}?per_page=2&page=2`)).body as Env[];
    expect(page2).toEqual([
      {
        name: "staging",
        deploy_access_levels: [
          {
            access_level: 30,
            access_level_description: "Developers + Maintainers",
            user_id: null,
            group_id: null,
          },
        ],
      },
    ]);
    const missing = await call("maint-token", "GET", `${base}/nope`);
    expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("duplicate name is 409 with the platform's message", async () => {
    const r = await call("maint-token", "POST", base, {
      name: "production",
      deploy_access_levels: [{ access_level: 40 }],
    });
    expect([r.status, r.body]).toEqual([
      409,
      { message: "Protected environment 'production' already exists" },
    ]);
  });

  it("parameter errors are 400 {error}; model errors 422 with an array of full messages", async () => {
    const missing = await call("maint-token", "POST", base, {});
    expect([missing.status, missing.body]).toEqual([
      400,
      { error: "name is missing, deploy_access_levels is missing" },
    ]);
    const badLevel = await call("maint-token", "POST", base, {
      name: "x",
      deploy_access_levels: [{ access_level: 50 }],
    });
    expect([badLevel.status, badLevel.body]).toEqual([
      400,
      { error: "deploy_access_levels[0][access_level] does not have a valid value" },
    ]);
    const notArray = await call("maint-token", "POST", base, { name: "x", deploy_access_levels: "40" });
    expect([notArray.status, notArray.body]).toEqual([400, { error: "deploy_access_levels is invalid" }]);
    const empty = await call("maint-token", "POST", base, { name: "x", deploy_access_levels: [] });
    expect([empty.status, empty.body]).toEqual([
      422,
      { message: ["Deploy access levels is too short (minimum is 1 character)"] },
    ]);
    const outsider = await call("maint-token", "POST", base, {
      name: "x",
      deploy_access_levels: [{ user_id: ids["outsider"] }, { group_id: ids["qa"] }, {}],
    });
    expect([outsider.status, outsider.body]).toEqual([
      422,
      {
        message: [
          "Deploy access levels user is not a member of the project",
          "Deploy access levels group does not have access to the project",
          "Deploy access levels access level can't be blank",
        ],
      },
    ]);
    expect((await call("maint-token", "GET", `${base}/x`)).status).toBe(404);
  });

  it("DELETE unprotects: 204, then 404; there is no PUT", async () => {
    const r = await call("maint-token", "DELETE", `${base}/review%2Fapp`);
    expect([r.status, r.text]).toEqual([204, ""]);
    expect((await call("maint-token", "GET", `${base}/review%2Fapp`)).status).toBe(404);
    expect((await call("maint-token", "DELETE", `${base}/review%2Fapp`)).body).toEqual({
      message: "404 Not found",
    });
    const put = await call("maint-token", "PUT", `${base}/production`, { deploy_access_levels: [] });
    expect(put.status).toBe(405);
  });

  it("auth: Maintainer for everything (GETs too): 403 below it, also anonymously; 404 for hidden projects", async () => {
    for (const [m, p] of [
      ["GET", base],
      ["GET", `${base}/production`],
      ["POST", base],
      ["DELETE", `${base}/production`],
    ] as const) {
      const json = m === "POST" ? { name: "y", deploy_access_levels: [{ access_level: 40 }] } : undefined;
      const dev = await call("dev-token", m, p, json);
      expect([m, p, dev.status, dev.body]).toEqual([m, p, 403, { message: "403 Forbidden" }]);
      const anon = await call(null, m, p, json);
      expect([m, p, anon.status]).toEqual([m, p, 403]);
    }
    const hidden = await call("maint-token", "GET", "/projects/hidden%2Fapp/protected_environments");
    expect([hidden.status, hidden.body]).toEqual([404, { message: "404 Project Not Found" }]);
    expect((await call("admin-token", "GET", "/projects/hidden%2Fapp/protected_environments")).status).toBe(
      200,
    );
  });
});

describe("protected environments on the core edition", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ edition: "core", fixture: { projects: [{ path: "root/p" }] } });
  });
  afterAll(() => c.sb.stop());

  it("the routes are absent: the catch-all 404 {error}", async () => {
    for (const [m, p] of [
      ["GET", "/projects/root%2Fp/protected_environments"],
      ["GET", "/projects/root%2Fp/protected_environments/production"],
      ["POST", "/projects/root%2Fp/protected_environments"],
      ["DELETE", "/projects/root%2Fp/protected_environments/production"],
    ] as const) {
      const r = await c.call(m, p, {
        json: m === "POST" ? { name: "production", deploy_access_levels: [{ access_level: 40 }] } : undefined,
      });
      expect([m, p, r.status, r.body]).toEqual([m, p, 404, { error: "404 Not Found" }]);
    }
  });
});
