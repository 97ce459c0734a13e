import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "ann", email: "ann@example.com", token: "ann-token" },
    { username: "outsider", token: "out-token" },
  ],
  groups: [{ path: "acme", visibility: "private", members: { ann: "developer" } }],
  projects: [{ path: "acme/api", visibility: "private" }],
};

const CORE_EVENTS = [
  "new_note",
  "new_issue",
  "reopen_issue",
  "close_issue",
  "reassign_issue",
  "issue_due",
  "new_merge_request",
  "push_to_merge_request",
  "reopen_merge_request",
  "close_merge_request",
  "reassign_merge_request",
  "merge_merge_request",
  "failed_pipeline",
  "fixed_pipeline",
  "success_pipeline",
];

describe("notification settings (§3.12)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture });
  });
  afterAll(() => c.sb.stop());
  const ann = (method: string, path: string, json?: unknown) =>
    c.call(method, path, { token: "ann-token", json });

  it("every endpoint requires authentication (401)", async () => {
    for (const [method, path] of [
      ["GET", "/notification_settings"],
      ["PUT", "/notification_settings"],
      ["GET", "/groups/acme/notification_settings"],
      ["PUT", "/groups/acme/notification_settings"],
      ["GET", "/projects/acme%2Fapi/notification_settings"],
      ["PUT", "/projects/acme%2Fapi/notification_settings"],
    ] as const) {
      const r = await c.call(method, path, { token: null });
      expect([method, path, r.status, r.body]).toEqual([method, path, 401, { message: "401 Unauthorized" }]);
    }
  });

  it("global: participating and the primary e-mail by default; PUT level and notification_email", async () => {
    const r = await ann("GET", "/notification_settings");
    expect([r.status, r.body]).toEqual([
      200,
      { level: "participating", notification_email: "ann@example.com" },
    ]);
    const u = await c.call("PUT", "/notification_settings", { token: "ann-token", form: "level=watch" });
    expect(u.body).toEqual({ level: "watch", notification_email: "ann@example.com" });
    const bad = await ann("PUT", "/notification_settings", { notification_email: "other@example.com" });
    expect([bad.status, bad.body]).toEqual([
      400,
      { message: { notification_email: ["is not an email you own"] } },
    ]);
    const own = await ann("PUT", "/notification_settings", { notification_email: "ANN@example.com" });
    expect(own.status).toBe(200);
  });

  it("an invalid level is 400 'foo' is not a valid level", async () => {
    for (const path of [
      "/notification_settings",
      "/groups/acme/notification_settings",
      "/projects/acme%2Fapi/notification_settings",
    ]) {
      const r = await ann("PUT", path, { level: "foo" });
      expect([path, r.status, r.body]).toEqual([path, 400, { message: "'foo' is not a valid level" }]);
    }
  });

  it("group and project settings are created on first read with level global, by id or path", async () => {
    const g = await ann("GET", "/groups/acme/notification_settings");
    expect([g.status, g.body]).toEqual([200, { level: "global" }]);
    const pid = ((await c.admin("GET", "/projects/acme%2Fapi")).body as { id: number }).id;
    const p = await ann("GET", `/projects/${pid}/notification_settings`);
    expect(p.body).toEqual({ level: "global" });
  });

  it("custom shows events: unset read null, failed/fixed_pipeline read true; PUT sets switches (string booleans)", async () => {
    const r = await c.call("PUT", "/projects/acme%2Fapi/notification_settings", {
      token: "ann-token",
      form: "level=custom&new_note=true&close_issue=0&success_pipeline=yes",
    });
    expect(r.status).toBe(200);
    const events = (r.body as { level: string; events: Record<string, boolean | null> }).events;
    expect((r.body as { level: string }).level).toBe("custom");
    expect(Object.keys(events)).toEqual(CORE_EVENTS);
    expect(events).toMatchObject({
      new_note: true,
      close_issue: false,
      success_pipeline: true,
      new_issue: null,
      failed_pipeline: true,
      fixed_pipeline: true,
    });
    const off = await ann("PUT", "/projects/acme%2Fapi/notification_settings", { failed_pipeline: false });
    expect((off.body as { events: Record<string, boolean> }).events.failed_pipeline).toBe(false);
    const back = await ann("PUT", "/projects/acme%2Fapi/notification_settings", { level: "mention" });
    expect(back.body).toEqual({ level: "mention" });
    const bad = await ann("PUT", "/projects/acme%2Fapi/notification_settings", { new_note: "maybe" });
    expect([bad.status, bad.body]).toEqual([400, { error: "new_note is invalid" }]);
  });

  it("new_epic is a group event on the licensed edition only", async () => {
    const g = await ann("PUT", "/groups/acme/notification_settings", { level: "custom", new_epic: true });
    expect((g.body as { events: Record<string, boolean> }).events.new_epic).toBe(true);
    const core = await sandbox({ edition: "core", fixture });
    try {
      const r = await core.call("PUT", "/groups/acme/notification_settings", {
        token: "ann-token",
        json: { level: "custom", new_epic: true },
      });
      expect(Object.keys((r.body as { events: Record<string, boolean> }).events)).toEqual(CORE_EVENTS);
    } finally {
      await core.sb.stop();
    }
  });

  it("settings are per user; an invisible group or project is 404", async () => {
    const admin = await c.admin("GET", "/groups/acme/notification_settings");
    expect(admin.body).toEqual({ level: "global" });
    const g = await c.call("GET", "/groups/acme/notification_settings", { token: "out-token" });
    expect([g.status, g.body]).toEqual([404, { message: "404 Group Not Found" }]);
    const p = await c.call("PUT", "/projects/acme%2Fapi/notification_settings", {
      token: "out-token",
      json: { level: "watch" },
    });
    expect([p.status, p.body]).toEqual([404, { message: "404 Project Not Found" }]);
  });
});
