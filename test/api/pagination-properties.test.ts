/**
 * The arithmetic of `list()` as properties, against a server that paginates like the platform: every item once and
 * in order, exactly one request per page, whatever the length of the list, the page size, the totals headers and
 * the concurrency; a list ends at its first empty page whatever the headers point at; the page limit and per_page
 * are limits, their value allowed and one more refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient, ResponseError } from "../../src/api/index.js";
import { pageInfo } from "../../src/api/pagination.js";
import { fc } from "../property.js";
import { type Handler, json, pageHeaders, startServer, type TestServer } from "./server.js";

let handler: Handler = (_req, res) => json(res, 500, {});
let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res, raw) => handler(req, res, raw));
});
afterAll(async () => {
  await server.close();
});

const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ id: from + i }));
const pageOf = (req: { query: URLSearchParams }) => Number(req.query.get("page") ?? "1") || 1;

/** Runs `read` with a fresh client to the server (serving `serve`) and counts the requests it made. */
async function against<T>(
  serve: Handler,
  options: { concurrency?: number; maxPages?: number },
  read: (client: ApiClient) => Promise<T>,
): Promise<{ result: T | Error; requests: number }> {
  handler = serve;
  const before = server.seen.length;
  const client = new ApiClient({ url: server.url, token: "t", maxAttempts: 1, ...options });
  try {
    const result = await read(client).catch((e: unknown) => e as Error);
    return { result, requests: server.seen.length - before };
  } finally {
    await client.close();
  }
}

describe("list(): every item once, one request per page", () => {
  it("for any length (around exact multiples of the page size), page size, totals or not, and concurrency", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 5 }),
        fc.constantFrom(-1, 0, 1),
        fc.boolean(),
        fc.integer({ min: 1, max: 4 }),
        async (perPage, pages, off, withTotals, concurrency) => {
          const total = Math.max(0, pages * perPage + off);
          const items = ids(total);
          const { result, requests } = await against(
            (req, res) => {
              const page = pageOf(req);
              const size = Number(req.query.get("per_page"));
              const base = `http://gitlab.example.com${req.path}`;
              json(
                res,
                200,
                items.slice((page - 1) * size, page * size),
                pageHeaders({ page, perPage: size, total, withTotals, base }),
              );
            },
            { concurrency },
            (c) => c.list<{ id: number }>("/groups/1/members", { query: { per_page: perPage } }),
          );
          expect(result).toEqual(items);
          expect(requests).toBe(Math.max(1, Math.ceil(total / perPage)));
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe("list(): a list ends at its first empty page", () => {
  /** `full` pages of one item, then empty pages that still point at the next one, in the ways a server can. */
  const endless =
    (full: number, headers: "next-page" | "link" | "total-pages", revived?: number): Handler =>
    (req, res) => {
      const page = headers === "link" ? Number(req.query.get("cursor") ?? "1") : pageOf(req);
      const sent: Record<string, string> =
        headers === "link"
          ? {
              link: `<http://elsewhere.invalid/api/v4${req.path}?cursor=${page + 1}&per_page=100>; rel="next"`,
            }
          : { "x-page": String(page), "x-next-page": String(page + 1) };
      // Announced: more pages than hold anything, within the page limit.
      if (headers === "total-pages") Object.assign(sent, { "x-total-pages": "30", "x-total": "3000" });
      json(res, 200, page <= full || page === revived ? ids(1, page) : [], sent);
    };

  it("reads the full pages and exactly one empty page, one request at a time", async () => {
    // Every case: 0 to 6 full pages, each way of pointing on.
    for (const headers of ["next-page", "link", "total-pages"] as const) {
      for (let full = 0; full <= 6; full++) {
        const { result, requests } = await against(
          endless(full, headers),
          { concurrency: 1, maxPages: 40 },
          (c) => c.list<{ id: number }>("/projects/1/triggers"),
        );
        expect(result, `${full} full pages, ${headers}`).toEqual(ids(full));
        expect(requests, `${full} full pages, ${headers}`).toBe(full + 1);
      }
    }
  });

  it("with pages read concurrently, stops at the empty page, ignoring any page read alongside it", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .integer({ min: 2, max: 4 })
          .chain((concurrency) =>
            fc.tuple(fc.constant(concurrency), fc.integer({ min: 1, max: concurrency - 1 })),
          ),
        async ([concurrency, full]) => {
          // Page full + 2 holds an item again; it is asked for in the same window as the empty page full + 1.
          const { result, requests } = await against(
            endless(full, "total-pages", full + 2),
            { concurrency, maxPages: 40 },
            (c) => c.list<{ id: number }>("/projects/1/triggers"),
          );
          expect(result).toEqual(ids(full));
          // The empty page, and at most the pages asked for alongside it: each worker stops at its first empty
          // page, and one may read the page after the revived one before the empty page's answer is in.
          expect(requests).toBeGreaterThanOrEqual(full + 1);
          expect(requests).toBeLessThanOrEqual(full + concurrency + 1);
        },
      ),
      { numRuns: 20 },
    );
  });

  it("stops at a page that points back at a page already read", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5 }), fc.nat(), async (full, back) => {
        const { result, requests } = await against(
          (req, res) => {
            const page = pageOf(req);
            const next = page < full ? page + 1 : 1 + (back % full);
            json(res, 200, ids(1, page), { "x-page": String(page), "x-next-page": String(next) });
          },
          { maxPages: 40 },
          (c) => c.list<{ id: number }>("/projects/1/triggers"),
        );
        expect(result).toEqual(ids(full));
        expect(requests).toBe(full);
      }),
      { numRuns: 30 },
    );
  });
});

describe("list(): limits at their value and one past it", () => {
  it("reads a list of exactly maxPages pages, and refuses one page more, with or without X-Total-Pages", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (pages, maxPages, withTotals) => {
          const items = ids(pages * 2);
          const { result, requests } = await against(
            (req, res) => {
              const page = pageOf(req);
              const base = `http://gitlab.example.com${req.path}`;
              json(
                res,
                200,
                items.slice((page - 1) * 2, page * 2),
                pageHeaders({ page, perPage: 2, total: items.length, withTotals, base }),
              );
            },
            { maxPages, concurrency: 1 },
            (c) => c.list<{ id: number }>("/groups/1/members", { query: { per_page: 2 } }),
          );
          if (pages <= maxPages) {
            expect(result).toEqual(items);
            expect(requests).toBe(pages);
          } else {
            expect(result).toBeInstanceOf(ResponseError);
            expect((result as Error).message).toMatch(
              withTotals
                ? `the server says the list has ${pages} pages (X-Total-Pages), more than the ${maxPages} forgeform reads`
                : `the list goes on past ${maxPages} pages`,
            );
            // Announced: refused after the first page; followed: after the last page allowed.
            expect(requests).toBe(withTotals ? 1 : maxPages);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("takes a page of exactly per_page items, and refuses one item more", async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), fc.boolean(), async (perPage, over) => {
        const count = perPage + (over ? 1 : 0);
        const { result } = await against(
          (_req, res) => json(res, 200, ids(count), { "x-page": "1", "x-next-page": "" }),
          {},
          (c) => c.list<{ id: number }>("/groups/1/members", { query: { per_page: perPage } }),
        );
        if (over) {
          expect((result as Error).message).toContain(
            `page 1 holds ${count} items, more than the ${perPage} asked for (per_page)`,
          );
        } else {
          expect(result).toEqual(ids(count));
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("pageInfo: page numbers", () => {
  it("takes a next page only as a positive whole number, surrounding spaces allowed", () => {
    fc.assert(
      fc.property(fc.integer({ min: -5, max: 1_000_000 }), fc.constantFrom("", " ", "\t"), (n, pad) => {
        const info = pageInfo({ "x-next-page": `${pad}${n}${pad}`, "x-total-pages": `${pad}${n}${pad}` });
        expect(info.next).toEqual(n > 0 ? { page: n } : undefined);
        expect(info.totalPages).toBe(n > 0 ? n : undefined);
        expect(info.paginated).toBe(true);
      }),
    );
    for (const bad of ["1.5", "1e3", "0x10", "+2", "", "two"]) {
      expect(pageInfo({ "x-next-page": bad }).next).toBeUndefined();
    }
  });
});
