import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Client, sandbox } from "./helpers.js";

interface Message {
  id: number;
  message: string;
  starts_at: string;
  ends_at: string;
  color: string;
  font: string;
  active: boolean;
  target_path: string | null;
  broadcast_type: string;
  dismissable: boolean;
}

describe("broadcast messages (§3.7)", () => {
  let c: Client;
  let now = "2021-03-04T05:06:07.089Z";
  beforeAll(async () => {
    c = await sandbox({ clock: () => new Date(now) });
  });
  afterAll(() => c.sb.stop());

  it("POST with only a message: 201 with the defaults (now, now + 1 hour, colours, banner)", async () => {
    const r = await c.admin("POST", "/broadcast_messages", { message: "Deploy in progress" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      message: "Deploy in progress",
      starts_at: "2021-03-04T05:06:07.089Z",
      ends_at: "2021-03-04T06:06:07.089Z",
      color: "#E75E40",
      font: "#FFFFFF",
      active: true,
      target_path: null,
      broadcast_type: "banner",
      dismissable: false,
    });
  });

  it("POST with every field, form-encoded (strings coerced)", async () => {
    const r = await c.call("POST", "/broadcast_messages", {
      form: "message=Maintenance&starts_at=2021-03-05T00%3A00%3A00Z&ends_at=2021-03-06T00%3A00%3A00Z&color=%23cecece&font=%23000&target_path=*%2Fwelcome&broadcast_type=notification&dismissable=true",
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      message: "Maintenance",
      starts_at: "2021-03-05T00:00:00.000Z",
      ends_at: "2021-03-06T00:00:00.000Z",
      color: "#cecece",
      font: "#000",
      active: false,
      target_path: "*/welcome",
      broadcast_type: "notification",
      dismissable: true,
    });
  });

  it("POST validation: message required, hex colours, broadcast_type values, datetimes and booleans", async () => {
    expect((await c.admin("POST", "/broadcast_messages", {})).body).toEqual({ error: "message is missing" });
    const color = await c.admin("POST", "/broadcast_messages", { message: "m", color: "red", font: "#12" });
    expect([color.status, color.body]).toEqual([
      400,
      { message: { color: ["must be a valid color code"], font: ["must be a valid color code"] } },
    ]);
    const type = await c.admin("POST", "/broadcast_messages", { message: "m", broadcast_type: "popup" });
    expect([type.status, type.body]).toEqual([400, { error: "broadcast_type does not have a valid value" }]);
    const date = await c.admin("POST", "/broadcast_messages", { message: "m", starts_at: "soon" });
    expect([date.status, date.body]).toEqual([400, { error: "starts_at is invalid" }]);
    const bool = await c.admin("POST", "/broadcast_messages", { message: "m", dismissable: "perhaps" });
    expect([bool.status, bool.body]).toEqual([400, { error: "dismissable is invalid" }]);
    const blank = await c.admin("POST", "/broadcast_messages", { message: " " });
    expect([blank.status, blank.body]).toEqual([400, { message: { message: ["can't be blank"] } }]);
  });

  it("GET needs no authentication; writes are 401 for a guest and 403 for a user", async () => {
    const m = (await c.admin("POST", "/broadcast_messages", { message: "public" })).body as Message;
    expect((await c.call("GET", "/broadcast_messages", { token: null })).status).toBe(200);
    const one = await c.call("GET", `/broadcast_messages/${m.id}`, { token: null });
    expect([one.status, (one.body as Message).message]).toEqual([200, "public"]);
    expect((await c.call("GET", "/broadcast_messages", { token: "bogus" })).status).toBe(401);
    for (const [method, path, json] of [
      ["POST", "/broadcast_messages", { message: "x" }],
      ["PUT", `/broadcast_messages/${m.id}`, { message: "x" }],
      ["DELETE", `/broadcast_messages/${m.id}`, undefined],
    ] as const) {
      const guest = await c.call(method, path, { token: null, json });
      expect([method, guest.status, guest.body]).toEqual([method, 401, { message: "401 Unauthorized" }]);
      const user = await c.call(method, path, { token: "user-token", json });
      expect([method, user.status, user.body]).toEqual([method, 403, { message: "403 Forbidden" }]);
    }
    expect(((await c.admin("GET", `/broadcast_messages/${m.id}`)).body as Message).message).toBe("public");
  });

  it("PUT changes only what is given and validates; active follows the store's clock", async () => {
    const m = (await c.admin("POST", "/broadcast_messages", { message: "window" })).body as Message;
    const r = await c.admin("PUT", `/broadcast_messages/${m.id}`, { color: "#abcdef", dismissable: "1" });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ...m, color: "#abcdef", dismissable: true });
    const bad = await c.admin("PUT", `/broadcast_messages/${m.id}`, { font: "white" });
    expect([bad.status, bad.body]).toEqual([400, { message: { font: ["must be a valid color code"] } }]);
    expect(((await c.admin("GET", `/broadcast_messages/${m.id}`)).body as Message).font).toBe("#FFFFFF");

    const saved = now;
    now = "2021-03-04T06:30:00.000Z"; // past ends_at (06:06:07)
    expect(
      ((await c.call("GET", `/broadcast_messages/${m.id}`, { token: null })).body as Message).active,
    ).toBe(false);
    now = "2021-03-04T05:00:00.000Z"; // before starts_at
    expect(
      ((await c.call("GET", `/broadcast_messages/${m.id}`, { token: null })).body as Message).active,
    ).toBe(false);
    now = saved;
    const extended = await c.admin("PUT", `/broadcast_messages/${m.id}`, { ends_at: "2021-03-05T00:00:00Z" });
    expect((extended.body as Message).ends_at).toBe("2021-03-05T00:00:00.000Z");
    now = "2021-03-04T06:30:00.000Z";
    expect(
      ((await c.call("GET", `/broadcast_messages/${m.id}`, { token: null })).body as Message).active,
    ).toBe(true);
    now = saved;
  });

  it("DELETE: 204 with no body; then every endpoint is 404 Not found (lowercase)", async () => {
    const m = (await c.admin("POST", "/broadcast_messages", { message: "bye" })).body as Message;
    const del = await c.admin("DELETE", `/broadcast_messages/${m.id}`);
    expect([del.status, del.text]).toEqual([204, ""]);
    for (const method of ["GET", "PUT", "DELETE"]) {
      const r = await c.call(method, `/broadcast_messages/${m.id}`, {
        json: method === "PUT" ? { message: "x" } : undefined,
      });
      expect([method, r.status, r.body]).toEqual([method, 404, { message: "404 Not found" }]);
    }
    const bad = await c.call("GET", "/broadcast_messages/abc", { token: null });
    expect([bad.status, bad.body]).toEqual([400, { error: "id is invalid" }]);
  });
});

describe("broadcast message list", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox();
  });
  afterAll(() => c.sb.stop());

  it("is ordered by id descending and paginated", async () => {
    for (let i = 1; i <= 5; i++) await c.admin("POST", "/broadcast_messages", { message: `m${i}` });
    const p1 = await c.call("GET", "/broadcast_messages?per_page=2", { token: null });
    expect((p1.body as Message[]).map((m) => m.message)).toEqual(["m5", "m4"]);
    expect(p1.headers.get("x-total")).toBe("5");
    expect(p1.headers.get("x-next-page")).toBe("2");
    expect(p1.headers.get("link")).toContain('rel="next"');
    const p3 = await c.call("GET", "/broadcast_messages?per_page=2&page=3", { token: null });
    expect((p3.body as Message[]).map((m) => m.message)).toEqual(["m1"]);
  });
});
