/**
 * The run's context as units, against a scripted server: the edition read from the version, and the name resolver
 * kinds use for deployers and groups (one request per name, case-insensitive, "unknown" only for a 404).
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/api/index.js";
import { createContext } from "../../src/engine/context.js";
import { json, startServer, type TestServer } from "../api/server.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const USERS = [
  { id: 11, username: "Alice" },
  { id: 12, username: "alice-bot" },
  { id: 13, username: "carol", state: "blocked" },
];

/** A platform of this version with the users above and groups acme (7) and acme/platform (9). */
async function context(version: string) {
  server = await startServer((req, res) => {
    if (req.path === "/api/v4/version") return json(res, 200, { version, revision: "abc" });
    if (req.path === "/api/v4/users") {
      // The platform's username filter is case-insensitive and exact; a loose one may return more.
      if (req.query.get("username") === "nameless") return json(res, 200, [{ id: 5 }]);
      return json(res, 200, USERS);
    }
    const group = { acme: 7, "acme/platform": 9 }[
      decodeURIComponent(req.path.replace("/api/v4/groups/", ""))
    ];
    if (req.path === "/api/v4/groups/secret") return json(res, 403, { message: "403 Forbidden" });
    if (req.path === "/api/v4/groups/idless") return json(res, 200, { full_path: "idless" });
    if (group !== undefined) return json(res, 200, { id: group, full_path: "x" });
    return json(res, 404, { message: "404 Group Not Found" });
  });
  const api = new ApiClient({ url: server.url, token: "tok", maxAttempts: 1 });
  return { ctx: await createContext(api), seen: server.seen };
}

describe("createContext", () => {
  it("reads the edition from the version: licensed for -ee, core otherwise", async () => {
    expect((await context("17.5.1-ee")).ctx.edition).toBe("licensed");
    await server?.close();
    expect((await context("17.5.1-EE")).ctx.edition).toBe("licensed");
    await server?.close();
    expect((await context("17.5.1")).ctx.edition).toBe("core");
    await server?.close();
    expect((await context("17.5.1-eek")).ctx.edition).toBe("core");
    // A version that is not text is a malformed answer, not a core edition.
    await expect(context(17 as unknown as string)).rejects.toThrow(
      'the field "version" is an integer (17), not a string',
    );
  });

  it("finds a user by name whatever its case, asking once per name", async () => {
    const { ctx, seen } = await context("17.5.1");
    expect(await ctx.resolve.userId("alice")).toBe(11);
    expect(await ctx.resolve.userId("alice")).toBe(11);
    expect(await ctx.resolve.userId("alice-bot")).toBe(12);
    expect(await ctx.resolve.userId("nobody")).toBeUndefined();
    const lookups = seen.filter((r) => r.path === "/api/v4/users");
    expect(lookups.map((r) => r.query.get("username"))).toEqual(["alice", "alice-bot", "nobody"]);
  });

  it("finds a group by path whatever its case, once, and only a 404 means it does not exist", async () => {
    const { ctx, seen } = await context("17.5.1");
    expect(await ctx.resolve.groupId("acme/platform")).toBe(9);
    expect(await ctx.resolve.groupId("ACME/Platform")).toBe(9);
    expect(await ctx.resolve.groupId("gone")).toBeUndefined();
    const reads = seen.filter((r) => r.path.startsWith("/api/v4/groups/"));
    expect(reads.map((r) => `${decodeURIComponent(r.path)}?${r.query}`)).toEqual([
      "/api/v4/groups/acme/platform?with_projects=false",
      "/api/v4/groups/gone?with_projects=false",
    ]);
    await expect(ctx.resolve.groupId("secret")).rejects.toSatisfy(
      (e: unknown) => e instanceof ApiError && e.status === 403,
    );
  });

  it("gives a user's state as the platform says it, and active when the platform says none", async () => {
    const { ctx } = await context("17.5.1");
    expect(await ctx.resolve.user("carol")).toEqual({ id: 13, username: "carol", state: "blocked" });
    expect(await ctx.resolve.user("ALICE")).toEqual({ id: 11, username: "Alice", state: "active" });
  });

  it("refuses a user or group answer without the field it needs, naming it", async () => {
    const { ctx } = await context("17.5.1");
    await expect(ctx.resolve.user("nameless")).rejects.toThrow(/username/);
    await expect(ctx.resolve.groupId("idless")).rejects.toThrow(/\bid\b/);
  });

  it("remembers a group the run created, without asking", async () => {
    const { ctx, seen } = await context("17.5.1");
    ctx.resolve.rememberGroup("acme/New", 42);
    expect(await ctx.resolve.groupId("acme/new")).toBe(42);
    expect(seen.filter((r) => r.path.startsWith("/api/v4/groups/"))).toEqual([]);
  });
});
