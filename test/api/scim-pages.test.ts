/**
 * The SCIM list's pages (`list(path, { scim: true })`): startIndex and count (RFC 7644), where it ends by
 * totalResults (exact multiples of the page, zero, a server that sends fewer than asked), without a total, and the
 * limits it keeps (totalResults at the limit and one past it, the page count).
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { json, startServer, type TestServer } from "./server.js";

/** The servers and clients a test started, closed after it (clients first). */
const started: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const one of started.splice(0).reverse()) await one.close();
});

interface Scim {
  /** Users the group has. */
  users: number;
  /** The most the server sends in one page, whatever count asks. */
  cap?: number;
  /** What totalResults says: the real count by default; `omit` leaves it out. */
  total?: unknown;
}

/** A SCIM server of `users` users, as the platform pages them; the client with the options given. */
async function setup(scim: Scim, options: { maxPages?: number } = {}) {
  const users = Array.from({ length: scim.users }, (_, i) => ({ id: `uid-${i + 1}` }));
  const server = await startServer((req, res) => {
    const start = Math.max(1, Number(req.query.get("startIndex") ?? "1"));
    const count = Math.min(Number(req.query.get("count") ?? "20"), scim.cap ?? Number.POSITIVE_INFINITY);
    const body: Record<string, unknown> = {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      itemsPerPage: count,
      startIndex: start,
      Resources: users.slice(start - 1, start - 1 + count),
    };
    if (scim.total !== "omit") body["totalResults"] = scim.total ?? users.length;
    json(res, 200, body);
  });
  const client = new ApiClient({
    url: server.url,
    token: "tok-secret-1234",
    scimToken: "scim-tok-5678",
    ...options,
  });
  started.push(server, client);
  return { server, client };
}

const starts = (s: TestServer) => s.seen.map((r) => r.query.get("startIndex"));
const ids = (n: number) => Array.from({ length: n }, (_, i) => `uid-${i + 1}`);

describe("a SCIM list ends where totalResults says", () => {
  it.each([
    { users: 0, reads: ["1"] },
    { users: 1, reads: ["1"] },
    { users: 99, reads: ["1"] },
    { users: 100, reads: ["1"] },
    { users: 101, reads: ["1", "101"] },
    { users: 200, reads: ["1", "101"] },
    { users: 201, reads: ["1", "101", "201"] },
  ])("$users users: startIndex $reads, count 100, and no read past the last", async ({ users, reads }) => {
    const { server, client } = await setup({ users });
    const all = await client.list<{ id: string }>("/groups/acme/Users", { scim: true });
    expect(all.map((u) => u.id)).toEqual(ids(users));
    expect(starts(server)).toEqual(reads);
    expect(server.seen.every((r) => r.query.get("count") === "100")).toBe(true);
  });

  it("goes on by what each page held when the server sends fewer than asked", async () => {
    const { server, client } = await setup({ users: 120, cap: 50 });
    const all = await client.list<{ id: string }>("/groups/acme/Users", { scim: true });
    expect(all.map((u) => u.id)).toEqual(ids(120));
    expect(starts(server)).toEqual(["1", "51", "101"]);
  });

  it("stops at an empty page even when totalResults says there is more", async () => {
    const { server, client } = await setup({ users: 150, total: 400 });
    const all = await client.list<{ id: string }>("/groups/acme/Users", { scim: true });
    expect(all).toHaveLength(150);
    // The second page held 50: the next starts at 151, and is empty.
    expect(starts(server)).toEqual(["1", "101", "151"]);
  });

  it("takes a totalResults of 0 as a total: one page, whatever it holds", async () => {
    const { server, client } = await setup({ users: 250, total: 0 });
    expect(await client.list("/groups/acme/Users", { scim: true })).toHaveLength(100);
    expect(starts(server)).toEqual(["1"]);
  });

  it("starts at the startIndex asked for", async () => {
    const { server, client } = await setup({ users: 130 });
    const all = await client.list<{ id: string }>("/groups/acme/Users", {
      scim: true,
      query: { startIndex: 21 },
    });
    expect(all.map((u) => u.id)).toEqual(ids(130).slice(20));
    expect(starts(server)).toEqual(["21", "121"]);
  });
});

describe("a SCIM list without a usable totalResults", () => {
  it.each([
    ["left out", "omit"],
    ["a string", "250"],
    ["a fraction", 2.5],
    ["negative", -1],
  ])("(%s) is read to its first page shorter than asked, not cut at the first page", async (_, total) => {
    const { server, client } = await setup({ users: 250, total });
    const all = await client.list<{ id: string }>("/groups/acme/Users", { scim: true });
    expect(all.map((u) => u.id)).toEqual(ids(250));
    expect(starts(server)).toEqual(["1", "101", "201"]);
  });

  it("an exact multiple of the page ends at the empty page after it", async () => {
    const { server, client } = await setup({ users: 200, total: "omit" });
    const all = await client.list<{ id: string }>("/groups/acme/Users", { scim: true });
    expect(all).toHaveLength(200);
    expect(starts(server)).toEqual(["1", "101", "201"]);
  });
});

describe("a SCIM list's limits", () => {
  it("reads a totalResults of exactly the limit, and refuses one more after the first page", async () => {
    // The limit is maxPages pages of 100.
    const at = await setup({ users: 300 }, { maxPages: 3 });
    expect(await at.client.list("/groups/acme/Users", { scim: true })).toHaveLength(300);

    const past = await setup({ users: 301 }, { maxPages: 3 });
    const error = await past.client.list("/groups/acme/Users", { scim: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(
      "the server says there are 301 results (totalResults), more than the 300 forgeform reads from one list",
    );
    expect((error as Error).message).toContain("GET /groups/acme/Users (SCIM)");
    expect(starts(past.server)).toEqual(["1"]);
  });

  it("reads exactly maxPages pages, and stops with an error before one more", async () => {
    // 50 a page: 150 users take the 3 pages allowed; 151 would take a fourth.
    const at = await setup({ users: 150, cap: 50 }, { maxPages: 3 });
    expect(await at.client.list("/groups/acme/Users", { scim: true })).toHaveLength(150);
    expect(starts(at.server)).toEqual(["1", "51", "101"]);

    const past = await setup({ users: 151, cap: 50 }, { maxPages: 3 });
    const error = await past.client.list("/groups/acme/Users", { scim: true }).catch((e: unknown) => e);
    expect((error as Error).message).toContain(
      "the list goes on past 3 pages, the most forgeform reads from one list: stopped there",
    );
    expect(starts(past.server)).toEqual(["1", "51", "101"]);
  });

  it("a server that never ends a list without totals is stopped by the page count", async () => {
    // Every page full, whatever startIndex: without a total, only the page limit ends it.
    const server = await startServer((req, res) =>
      json(res, 200, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        Resources: Array.from({ length: 100 }, (_, i) => ({ id: `${req.query.get("startIndex")}-${i}` })),
      }),
    );
    const client = new ApiClient({ url: server.url, token: "t-1234", scimToken: "s-5678", maxPages: 4 });
    started.push(server, client);
    const error = await client.list("/groups/acme/Users", { scim: true }).catch((e: unknown) => e);
    expect((error as Error).message).toContain("the list goes on past 4 pages");
    expect(server.seen).toHaveLength(4);
  });
});
