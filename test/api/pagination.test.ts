import { afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { pageInfo, parseLinkHeader } from "../../src/api/pagination.js";
import { json, paginated, startServer, type TestServer } from "./server.js";

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1 }));

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

async function setup(handler: Parameters<typeof startServer>[0], concurrency = 8) {
  server = await startServer(handler);
  client = new ApiClient({
    url: server.url,
    token: "tok-secret-1234",
    scimToken: "scim-tok-5678",
    concurrency,
  });
  return { server, client };
}

describe("list()", () => {
  it("reads every page with per_page=100 when totals are present", async () => {
    const { server, client } = await setup(paginated(items(250)));
    const all = await client.list<{ id: number }>("/projects/1/pipeline_schedules");
    expect(all.map((x) => x.id)).toEqual(items(250).map((x) => x.id));
    const pages = server.seen.map((r) => r.query.get("page")).sort();
    expect(pages).toEqual(["1", "2", "3"]);
    expect(server.seen.every((r) => r.query.get("per_page") === "100")).toBe(true);
    expect(server.seen.every((r) => r.path === "/api/v4/projects/1/pipeline_schedules")).toBe(true);
  });

  it("follows X-Next-Page one page at a time when X-Total and X-Total-Pages are missing", async () => {
    const { server, client } = await setup(paginated(items(230), { withTotals: false }));
    const all = await client.list<{ id: number }>("/groups");
    expect(all).toHaveLength(230);
    expect(server.seen.map((r) => r.query.get("page"))).toEqual(["1", "2", "3"]);
    expect(server.maxInFlight()).toBe(1);
  });

  it("follows Link rel=next when there is no X-Next-Page, keeping the request's own host and path", async () => {
    const data = items(150);
    const { server, client } = await setup((req, res) => {
      const after = Number(req.query.get("id_after") ?? "0");
      const slice = data.filter((x) => x.id > after).slice(0, 100);
      const last = slice[slice.length - 1];
      const headers: Record<string, string> = {};
      if (slice.length === 100 && last) {
        headers["link"] =
          `<https://other-host.example/api/v4/projects?id_after=${last.id}&per_page=100&skip[]=a&skip[]=b>; rel="next"`;
      }
      json(res, 200, slice, headers);
    });
    const all = await client.list<{ id: number }>("/projects");
    expect(all).toHaveLength(150);
    expect(server.seen).toHaveLength(2);
    expect(server.seen[1]?.path).toBe("/api/v4/projects");
    expect(server.seen[1]?.query.get("id_after")).toBe("100");
    expect(server.seen[1]?.query.getAll("skip[]")).toEqual(["a", "b"]);
  });

  it("fetches the remaining pages concurrently once X-Total-Pages is known", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let waiting = 0;
    const { server, client } = await setup(
      paginated(items(450), {
        hold: async () => {
          waiting += 1;
          // Hold pages 2..5 until all four are in flight at once (or release them after a while anyway).
          if (waiting === 4) release();
          await Promise.race([gate, new Promise((resolve) => setTimeout(resolve, 2000))]);
        },
      }),
    );
    const all = await client.list<{ id: number }>("/groups/acme%2Fplatform/badges");
    expect(all.map((x) => x.id)).toEqual(items(450).map((x) => x.id));
    expect(server.maxInFlight()).toBe(4);
  });

  it("keeps concurrent page fetches within the concurrency limit", async () => {
    const { server, client } = await setup(
      paginated(items(1000), { hold: () => new Promise((resolve) => setTimeout(resolve, 20)) }),
      3,
    );
    const all = await client.list("/hooks");
    expect(all).toHaveLength(1000);
    expect(server.seen).toHaveLength(10);
    expect(server.maxInFlight()).toBeLessThanOrEqual(3);
    expect(server.maxInFlight()).toBeGreaterThan(1);
  });

  it("treats a page past the end as an empty list, not an error", async () => {
    // The list shrank between page 1 and page 3: page 3 is now past the end.
    let total = 300;
    const { client } = await setup(async (req, res) => {
      const page = Number(req.query.get("page"));
      const handler = paginated(items(total));
      if (page === 1) total = 150;
      await handler(req, res, undefined as never);
    });
    const all = await client.list<{ id: number }>("/broadcast_messages");
    expect(all.map((x) => x.id)).toEqual([...items(100), ...items(150).slice(100)].map((x) => x.id));
  });

  it("returns the array of an endpoint that does not paginate as it is", async () => {
    const { server, client } = await setup((_req, res) => json(res, 200, items(130)));
    const all = await client.list("/projects/1/wikis");
    expect(all).toHaveLength(130);
    expect(server.seen).toHaveLength(1);
  });

  it("reads the following pages sequentially when the list grows past X-Total-Pages", async () => {
    let total = 200;
    const { client } = await setup(async (req, res) => {
      const page = Number(req.query.get("page"));
      if (page === 2) total = 260;
      await paginated(items(total))(req, res, undefined as never);
    });
    const all = await client.list("/projects/1/badges");
    expect(all).toHaveLength(260);
  });

  it("passes query parameters (arrays as k[]=v) to every page", async () => {
    const { server, client } = await setup(paginated(items(120)));
    await client.list("/groups", { query: { skip_groups: [1, 2], all_available: true } });
    for (const req of server.seen) {
      expect(req.query.getAll("skip_groups[]")).toEqual(["1", "2"]);
      expect(req.query.get("all_available")).toBe("true");
    }
  });

  it("says when an endpoint does not return a list", async () => {
    const { client } = await setup((_req, res) => json(res, 200, { id: 1 }));
    await expect(client.list("/application/settings")).rejects.toThrow(
      "GET /application/settings -> 200 OK: an object came back where a list was expected",
    );
  });

  it("counts pages in the metrics", async () => {
    const { client } = await setup(paginated(items(250)));
    await client.list("/projects/1/triggers");
    expect(client.metrics.snapshot().pages).toBe(3);
  });
});

describe("parseLinkHeader", () => {
  it("maps each rel to its URL", () => {
    const links = parseLinkHeader(
      '<https://h/api/v4/groups?page=2&per_page=20>; rel="next", <https://h/api/v4/groups?page=1&per_page=20>; rel="first"',
    );
    expect(links.get("next")).toBe("https://h/api/v4/groups?page=2&per_page=20");
    expect(links.get("first")).toBe("https://h/api/v4/groups?page=1&per_page=20");
    expect(links.get("last")).toBeUndefined();
  });

  it("reads the spellings RFC 8288 allows: no spaces, spaces around =, unquoted, other parameters first", () => {
    expect(parseLinkHeader("<https://h/a?page=2>;rel=next").get("next")).toBe("https://h/a?page=2");
    expect(parseLinkHeader('<https://h/b?page=2>; rel = "next"').get("next")).toBe("https://h/b?page=2");
    expect(parseLinkHeader('<https://h/c?page=2>; title="more"; rel="next"').get("next")).toBe(
      "https://h/c?page=2",
    );
    // Several rels in one link; rels are case-insensitive.
    const both = parseLinkHeader('<https://h/d?page=9>; rel="last NEXT"');
    expect([both.get("last"), both.get("next")]).toEqual(["https://h/d?page=9", "https://h/d?page=9"]);
  });

  it("keeps the first link of a rel, and ignores links without one", () => {
    const links = parseLinkHeader(
      '<https://h/x>; title="no rel", <https://h/1>; rel=next, <https://h/2>; rel=next',
    );
    expect([...links]).toEqual([["next", "https://h/1"]]);
    expect(parseLinkHeader(undefined).size).toBe(0);
  });
});

describe("pageInfo", () => {
  it("knows a list is paginated by any of the platform's pagination headers", () => {
    for (const name of ["x-next-page", "x-page", "x-per-page", "x-total", "x-total-pages", "link"]) {
      expect(pageInfo({ [name]: "" }).paginated, name).toBe(true);
    }
    expect(pageInfo({ "content-type": "application/json" })).toStrictEqual({
      paginated: false,
      next: undefined,
      totalPages: undefined,
    });
  });

  it("takes page numbers only as positive whole numbers", () => {
    expect(pageInfo({ "x-next-page": " 3 ", "x-total-pages": "7" })).toStrictEqual({
      paginated: true,
      next: { page: 3 },
      totalPages: 7,
    });
    // An empty X-Next-Page is the last page; zero, signs, hex and exponents are not page numbers.
    for (const bad of ["", "0", "-1", "0x10", "1e3", "2.5", "two"]) {
      const info = pageInfo({ "x-next-page": bad, "x-total-pages": bad });
      expect([info.next, info.totalPages], bad).toEqual([undefined, undefined]);
    }
  });

  it("takes the query of a Link rel=next, and nothing from a link that is not a URL", () => {
    expect(
      pageInfo({ link: '<https://other.example/api/v4/groups?page=2&per_page=100>; rel="next"' }),
    ).toStrictEqual({ paginated: true, next: { search: "page=2&per_page=100" }, totalPages: undefined });
    expect(pageInfo({ link: '<https://h/api/v4/groups>; rel="next"' }).next).toBeUndefined();
    expect(pageInfo({ link: '<http://[::1>; rel="next"' })).toStrictEqual({
      paginated: true,
      next: undefined,
      totalPages: undefined,
    });
  });
});

describe("list() over SCIM", () => {
  it("reads a ListResponse page by page with startIndex and count, returning the Resources", async () => {
    const users = Array.from({ length: 230 }, (_, i) => ({ id: `uid-${i}` }));
    const { server, client } = await setup((req, res) => {
      const start = Number(req.query.get("startIndex"));
      const count = Number(req.query.get("count"));
      json(res, 200, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
        totalResults: users.length,
        itemsPerPage: count,
        startIndex: start,
        Resources: users.slice(start - 1, start - 1 + count),
      });
    });
    const all = await client.list<{ id: string }>("/groups/acme/Users", { scim: true });
    expect(all.map((u) => u.id)).toEqual(users.map((u) => u.id));
    expect(server.seen.map((r) => r.query.get("startIndex"))).toEqual(["1", "101", "201"]);
    expect(server.seen.every((r) => r.path === "/api/scim/v2/groups/acme/Users")).toBe(true);
  });
});
