/**
 * Deploy tokens of projects and groups (routes/deploy-tokens.ts), against the platform's 13.12 interface: one case
 * per endpoint, per permission (the role just below the requirement and at it), per validation and its error body.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { tokenDigest } from "../../src/sandbox/store.js";
import { type Client, sandbox } from "./helpers.js";

const fixture = {
  users: [
    { username: "owner", token: "owner-token" },
    { username: "maint", token: "maint-token" },
    { username: "dev", token: "dev-token" },
    { username: "outsider", token: "outsider-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
    { path: "open", visibility: "public" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "open/site", visibility: "public" },
  ],
  deploy_tokens: [
    {
      project: "acme/api",
      name: "expired",
      scopes: ["read_repository"],
      expires_at: "2020-01-01",
      token: "expired-token-0123456789",
    },
    { project: "acme/api", name: "revoked", scopes: ["read_registry"], revoked: true, username: "ci-bot" },
    { group: "acme", name: "group-seeded", scopes: ["read_package_registry", "read_repository"] },
  ],
};

type Token = {
  id: number;
  name: string;
  username: string;
  expires_at: string | null;
  scopes: string[];
  token?: string;
};

describe("deploy tokens (13.12 lib/api/deploy_tokens.rb)", () => {
  let c: Client;
  const projectBase = "/projects/acme%2Fapi/deploy_tokens";
  const groupBase = "/groups/acme/deploy_tokens";
  const rows = () =>
    (
      c.sb.store.data.areas["deploy_tokens"] as {
        tokens: (Token & { token_sha256: string; revoked: boolean })[];
      }
    ).tokens;

  beforeAll(async () => {
    c = await sandbox({ fixture });
  });
  afterAll(() => c.sb.stop());

  it("POST: 201 with the token, shown this once; username defaults to gitlab+deploy-token-{id}", async () => {
    const r = await c.call("POST", projectBase, {
      token: "maint-token",
      json: { name: "ci", scopes: ["read_repository", "read_registry"] },
    });
    expect(r.status, r.text).toBe(201);
    const t = r.body as Token;
    expect(t).toEqual({
      id: t.id,
      name: "ci",
      username: `gitlab+deploy-token-${t.id}`,
      expires_at: null,
      scopes: ["read_repository", "read_registry"],
      token: t.token,
    });
    expect(t.token).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(rows().find((x) => x.id === t.id)!.token_sha256).toBe(tokenDigest(t.token!));
    expect(JSON.stringify(c.sb.store.data)).not.toContain(t.token!);
    const listed = await c.call("GET", projectBase, { token: "maint-token" });
    expect(listed.text).not.toContain(t.token!);
    expect((listed.body as Token[]).find((x) => x.id === t.id)).toEqual({ ...t, token: undefined });
  });

  it("POST with every field; scopes as a comma-separated string (python-gitlab's form), listed in the model's order", async () => {
    const r = await c.call("POST", projectBase, {
      token: "maint-token",
      form: "name=all&username=deployer.1%2Bx&expires_at=2031-02-03&scopes=write_package_registry,read_repository,write_registry,read_package_registry,read_registry",
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({
      name: "all",
      username: "deployer.1+x",
      expires_at: "2031-02-03T00:00:00.000Z",
      scopes: [
        "read_repository",
        "read_registry",
        "write_registry",
        "read_package_registry",
        "write_package_registry",
      ],
    });
  });

  it("13.12 lists expired and revoked tokens like the others and shows neither state (both came in 14.9)", async () => {
    const r = await c.call("GET", projectBase, { token: "maint-token" });
    const list = r.body as Token[];
    expect(list.slice(0, 2)).toEqual([
      {
        id: list[0]!.id,
        name: "expired",
        username: `gitlab+deploy-token-${list[0]!.id}`,
        expires_at: "2020-01-01T00:00:00.000Z",
        scopes: ["read_repository"],
      },
      { id: list[1]!.id, name: "revoked", username: "ci-bot", expires_at: null, scopes: ["read_registry"] },
    ]);
    expect(rows().find((t) => t.name === "revoked")!.revoked).toBe(true);
    expect(rows().find((t) => t.name === "expired")!.token_sha256).toBe(
      tokenDigest("expired-token-0123456789"),
    );
  });

  it.each([
    ["no name", { scopes: ["read_repository"] }, 400, { error: "name is missing" }],
    ["no scopes", { name: "x" }, 400, { error: "scopes is missing" }],
    [
      "an unknown scope",
      { name: "x", scopes: ["read_repository", "api"] },
      400,
      { error: "scopes does not have a valid value" },
    ],
    ["an empty scope list", { name: "x", scopes: [] }, 400, { message: "Scopes can't be blank" }],
    [
      "a date that is none",
      { name: "x", scopes: ["read_registry"], expires_at: "someday" },
      400,
      { error: "expires_at is invalid" },
    ],
    [
      "a username with a space",
      { name: "x", scopes: ["read_registry"], username: "deploy bot" },
      400,
      { message: "Username can contain only letters, digits, '_', '-', '+', and '.'" },
    ],
    [
      "a username of 256 characters and no scopes: one sentence",
      { name: "x", scopes: [], username: "u".repeat(256) },
      400,
      { message: "Username is too long (maximum is 255 characters) and Scopes can't be blank" },
    ],
  ])("validation: %s", async (_name, json, status, body) => {
    const before = rows().length;
    const r = await c.call("POST", projectBase, { token: "maint-token", json });
    expect([r.status, r.body]).toEqual([status, body]);
    expect(rows().length).toBe(before);
  });

  it("a username of 255 characters and a past expiry are accepted", async () => {
    const r = await c.call("POST", projectBase, {
      token: "maint-token",
      json: {
        name: "edge",
        scopes: ["read_registry"],
        username: "u".repeat(255),
        expires_at: "2001-01-01T10:00:00Z",
      },
    });
    expect(r.status, r.text).toBe(201);
    expect(r.body).toMatchObject({ expires_at: "2001-01-01T10:00:00.000Z" });
  });

  it("DELETE removes the token (204); again, or another owner's token, is 404 Not found", async () => {
    const t = (
      await c.call("POST", projectBase, {
        token: "maint-token",
        json: { name: "gone", scopes: ["read_registry"] },
      })
    ).body as Token;
    const r = await c.call("DELETE", `${projectBase}/${t.id}`, { token: "maint-token" });
    expect([r.status, r.text]).toEqual([204, ""]);
    const again = await c.call("DELETE", `${projectBase}/${t.id}`, { token: "maint-token" });
    expect([again.status, again.body]).toEqual([404, { message: "404 Not found" }]);
    const groupToken = rows().find((x) => x.name === "group-seeded")!;
    const other = await c.call("DELETE", `${projectBase}/${groupToken.id}`, { token: "maint-token" });
    expect([other.status, other.body]).toEqual([404, { message: "404 Not found" }]);
    const bad = await c.call("DELETE", `${projectBase}/abc`, { token: "maint-token" });
    expect([bad.status, bad.body]).toEqual([400, { error: "token_id is invalid" }]);
  });

  it("no GET of one token in 13.12 (405)", async () => {
    const r = await c.call("GET", `${projectBase}/1`, { token: "maint-token" });
    expect([r.status, r.body]).toEqual([405, { error: "405 Not Allowed" }]);
  });

  describe("group deploy tokens", () => {
    it("POST, GET and DELETE by a Maintainer of the group", async () => {
      const r = await c.call("POST", groupBase, {
        token: "maint-token",
        json: { name: "g", scopes: "read_repository,write_registry", expires_at: "2030-06-01T12:30:00Z" },
      });
      expect(r.status, r.text).toBe(201);
      const t = r.body as Token;
      expect(t).toMatchObject({
        scopes: ["read_repository", "write_registry"],
        expires_at: "2030-06-01T12:30:00.000Z",
      });
      const list = await c.call("GET", groupBase, { token: "maint-token" });
      expect((list.body as Token[]).map((x) => x.name)).toEqual(["group-seeded", "g"]);
      expect((await c.call("DELETE", `${groupBase}/${t.id}`, { token: "maint-token" })).status).toBe(204);
    });
  });

  describe("permissions", () => {
    it.each([
      ["project: without a token (private)", projectBase, null, 404, { message: "404 Project Not Found" }],
      ["project: a non-member", projectBase, "outsider-token", 404, { message: "404 Project Not Found" }],
      ["project: a Developer (just below)", projectBase, "dev-token", 403, { message: "403 Forbidden" }],
      ["group: without a token", groupBase, null, 401, { message: "401 Unauthorized" }],
      ["group: a non-member", groupBase, "outsider-token", 404, { message: "404 Group Not Found" }],
      ["group: a Developer (just below)", groupBase, "dev-token", 403, { message: "403 Forbidden" }],
    ])("%s is refused listing, creating and deleting", async (_name, base, token, status, body) => {
      for (const [method, path, json] of [
        ["GET", base, undefined],
        ["POST", base, { name: "p", scopes: ["read_registry"] }],
        ["DELETE", `${base}/999999`, undefined],
      ] as const) {
        const r = await c.call(method, path, { token, json });
        expect([r.status, r.body], `${method} ${path}`).toEqual([status, body]);
      }
    });

    it("a public project's tokens are not public: without a token 403", async () => {
      const r = await c.call("GET", "/projects/open%2Fsite/deploy_tokens", { token: null });
      expect([r.status, r.body]).toEqual([403, { message: "403 Forbidden" }]);
    });

    it.each([
      ["a Maintainer", "maint-token"],
      ["the group's Owner", "owner-token"],
    ])("%s (the requirement) lists, creates and deletes on both", async (_name, token) => {
      for (const base of [projectBase, groupBase]) {
        expect((await c.call("GET", base, { token })).status).toBe(200);
        const t = (await c.call("POST", base, { token, json: { name: "perm", scopes: ["read_registry"] } }))
          .body as Token;
        expect((await c.call("DELETE", `${base}/${t.id}`, { token })).status).toBe(204);
      }
    });

    it("GET /deploy_tokens: every token of the instance for an administrator; 401 and 403 otherwise", async () => {
      const r = await c.call("GET", "/deploy_tokens?per_page=100", { token: "admin-token" });
      expect(r.status).toBe(200);
      const names = (r.body as Token[]).map((t) => t.name);
      expect(names.slice(0, 3)).toEqual(["expired", "revoked", "group-seeded"]);
      expect(r.text).not.toContain('"token"');
      expect((await c.call("GET", "/deploy_tokens", { token: "maint-token" })).body).toEqual({
        message: "403 Forbidden",
      });
      expect((await c.call("GET", "/deploy_tokens", { token: null })).status).toBe(401);
    });
  });

  it("fixture errors name the entry and the field", async () => {
    const bad = (entry: Record<string, unknown>) =>
      startSandbox({ fixture: { ...fixture, deploy_tokens: [entry] } });
    await expect(bad({ project: "acme/api", name: "x", scopes: ["api"] })).rejects.toThrow(
      /deploy_tokens\[0\]\.scopes must be a list of read_repository, read_registry/,
    );
    await expect(bad({ project: "acme/api", name: "x", scopes: [] })).rejects.toThrow(
      /deploy_tokens\[0\] Scopes can't be blank/,
    );
    await expect(
      bad({ group: "acme", name: "x", scopes: ["read_registry"], token: "short" }),
    ).rejects.toThrow(/deploy_tokens\[0\]\.token must have 20 characters or more/);
    await expect(
      bad({ project: "acme/api", name: "x", scopes: ["read_registry"], expires_at: "soon" }),
    ).rejects.toThrow(/deploy_tokens\[0\]\.expires_at must be a date or a datetime/);
  });
});
