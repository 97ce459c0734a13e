import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "dev", token: "dev-token" },
    { username: "maint", token: "maint-token" },
    { username: "outsider", token: "out-token" },
  ],
  groups: [{ path: "acme", visibility: "private", members: { dev: "developer", maint: "maintainer" } }],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "acme/bare", visibility: "private" },
    { path: "maint/pub", visibility: "public" },
  ],
  error_tracking: [
    {
      project: "acme/api",
      active: true,
      project_name: "api-sentry",
      tracker_external_url: "https://sentry.example.com/acme/api",
      api_url: "https://sentry.example.com/api/0/projects/acme/api",
    },
    {
      project: "maint/pub",
      active: false,
      project_name: "pub",
      tracker_external_url: "https://sentry.example.com/acme/pub",
      api_url: "https://sentry.example.com/api/0/projects/acme/pub",
    },
  ],
};

describe("error-tracking settings", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture });
  });
  afterAll(() => c.sb.stop());
  const path = "/projects/acme%2Fapi/error_tracking/settings";

  it("GET returns the seeded settings to a maintainer", async () => {
    const r = await c.call("GET", path, { token: "maint-token" });
    expect([r.status, r.body]).toEqual([
      200,
      {
        active: true,
        project_name: "api-sentry",
        tracker_external_url: "https://sentry.example.com/acme/api",
        api_url: "https://sentry.example.com/api/0/projects/acme/api",
      },
    ]);
  });

  it("PATCH switches active (JSON and form strings); active is required and boolean", async () => {
    const off = await c.call("PATCH", path, { token: "maint-token", json: { active: false } });
    expect([off.status, (off.body as { active: boolean }).active]).toEqual([200, false]);
    expect(((await c.admin("GET", path)).body as { active: boolean }).active).toBe(false);
    const on = await c.call("PATCH", path, { token: "maint-token", form: "active=true" });
    expect((on.body as { active: boolean }).active).toBe(true);
    const missing = await c.call("PATCH", path, { token: "maint-token", json: {} });
    expect([missing.status, missing.body]).toEqual([400, { error: "active is missing" }]);
    const bad = await c.call("PATCH", path, { token: "maint-token", json: { active: "perhaps" } });
    expect([bad.status, bad.body]).toEqual([400, { error: "active is invalid" }]);
  });

  it("developers get 403, non-members of a private project 404, guests 403 on a public project", async () => {
    for (const method of ["GET", "PATCH"]) {
      const json = method === "PATCH" ? { active: true } : undefined;
      const dev = await c.call(method, path, { token: "dev-token", json });
      expect([method, dev.status, dev.body]).toEqual([method, 403, { message: "403 Forbidden" }]);
      const out = await c.call(method, path, { token: "out-token", json });
      expect([method, out.status, out.body]).toEqual([method, 404, { message: "404 Project Not Found" }]);
    }
    const guest = await c.call("GET", "/projects/maint%2Fpub/error_tracking/settings", { token: null });
    expect([guest.status, guest.body]).toEqual([403, { message: "403 Forbidden" }]);
    const owner = await c.call("GET", "/projects/maint%2Fpub/error_tracking/settings", {
      token: "maint-token",
    });
    expect((owner.body as { active: boolean }).active).toBe(false);
  });

  it("a project without settings is 404 Error Tracking Setting Not Found (GET and PATCH)", async () => {
    const g = await c.admin("GET", "/projects/acme%2Fbare/error_tracking/settings");
    expect([g.status, g.body]).toEqual([404, { message: "404 Error Tracking Setting Not Found" }]);
    const p = await c.call("PATCH", "/projects/acme%2Fbare/error_tracking/settings", {
      json: { active: true },
    });
    expect([p.status, p.body]).toEqual([404, { message: "404 Error Tracking Setting Not Found" }]);
  });

  it("a bad fixture names the entry", async () => {
    await expect(
      sandbox({ fixture: { ...fixture, error_tracking: [{ project: "acme/api", project_name: "x" }] } }),
    ).rejects.toThrow(/error_tracking\[0\]\.tracker_external_url is required/);
  });
});
