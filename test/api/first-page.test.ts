/**
 * `firstPage`: one page of a list and whether it is the whole list, by every header a server may send: X-Next-Page
 * (empty on the last page), X-Total-Pages alone, a Link rel="next" alone, and none at all (a list without
 * pagination is complete as it is). The page is checked as `list` checks one.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { startServer, type TestServer } from "./server.js";

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function firstPage(headers: Record<string, string>, body: unknown = [{ id: 1 }]) {
  server = await startServer((_req, res) => {
    res.setHeader("Content-Type", "application/json");
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.end(JSON.stringify(body));
  });
  client = new ApiClient({ url: server.url, token: "t", maxAttempts: 1 });
  return client.firstPage<{ id: number }>("/groups/g/projects", {
    query: { include_subgroups: true },
    shape: { id: "integer" },
  });
}

describe("the first page of a list", () => {
  it("asks for page 1 of 100 with the caller's query", async () => {
    await firstPage({ "X-Next-Page": "", "X-Total-Pages": "1" });
    expect(server!.seen).toHaveLength(1);
    expect(Object.fromEntries(server!.seen[0]!.query)).toEqual({
      include_subgroups: "true",
      per_page: "100",
      page: "1",
    });
  });

  it.each([
    ["the last page (empty X-Next-Page, one page in all)", { "X-Next-Page": "", "X-Total-Pages": "1" }, true],
    ["no pagination header at all", {}, true],
    ["a next page", { "X-Next-Page": "2", "X-Total-Pages": "2" }, false],
    ["only X-Total-Pages of 2", { "X-Total-Pages": "2" }, false],
    [
      "only a Link to the next page",
      { Link: '<http://x/api/v4/groups/g/projects?page=2>; rel="next"' },
      false,
    ],
    ["a Link with no next page", { Link: '<http://x/api/v4/groups/g/projects?page=1>; rel="first"' }, true],
  ])("with %s: complete is %s", async (_what, headers, complete) => {
    expect(await firstPage(headers)).toEqual({ items: [{ id: 1 }], complete });
  });

  it("refuses a page of more items than asked for, an answer that is not a list, and items of another shape", async () => {
    const items = Array.from({ length: 101 }, (_, i) => ({ id: i + 1 }));
    await expect(firstPage({ "X-Next-Page": "" }, items)).rejects.toThrow(
      /page 1 holds 101 items, more than the 100 asked for/,
    );
    await server?.close();
    await client?.close();
    const hundred = Array.from({ length: 100 }, (_, i) => ({ id: i + 1 }));
    expect((await firstPage({ "X-Next-Page": "" }, hundred)).items).toHaveLength(100);
    await server?.close();
    await client?.close();
    await expect(firstPage({}, { id: 1 })).rejects.toThrow(/an object came back where a list was expected/);
    await server?.close();
    await client?.close();
    await expect(firstPage({}, [{ id: "one" }])).rejects.toThrow(/page 1, /);
  });
});
