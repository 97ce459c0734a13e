/** Hostile-server probes: every list ends, whatever the server's pagination headers say. */
import { describe, expect, it } from "vitest";
import { ResponseError } from "../../src/api/index.js";
import { type Handler, json } from "../api/server.js";
import {
  endlessCursor,
  endlessNextPage,
  endlessPages,
  hugeTotalPages,
  manifest,
  probes,
  prose,
  scimEndless,
  TRIGGER_MANIFEST,
} from "./hostile-server.js";

const TRIGGERS = "GET /projects/acme/api/triggers";
const trigger = (n: number) => ({ id: n, description: `t${n}`, token: "abcd" });

const { start, connect } = probes();

describe("pagination that never ends", () => {
  it("stops at an empty page although X-Next-Page always points further", async () => {
    // Two pages of triggers, then empty pages that go on pointing at the next one.
    const p = await start({ [TRIGGERS]: endlessNextPage(2, trigger) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain("Plan: 1 to create");
    expect(p.seenOn(TRIGGERS)).toBe(3);
    const api = connect(p);
    expect(await api.list("/projects/acme%2Fapi/triggers")).toEqual([trigger(1), trigger(2)]);
    expect(p.seenOn(TRIGGERS)).toBe(6);
  });

  it('stops at an empty page although Link rel="next" always has a new cursor', async () => {
    const p = await start({ [TRIGGERS]: endlessCursor(2, trigger) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code, result.err).toBe(0);
    expect(p.seenOn(TRIGGERS)).toBe(3);
    expect(await connect(p).list("/projects/acme%2Fapi/triggers")).toEqual([trigger(1), trigger(2)]);
    expect(p.seenOn(TRIGGERS)).toBe(6);
  });

  it("gives up past the page limit with an error naming the request", async () => {
    const p = await start({ [TRIGGERS]: endlessPages(trigger) });
    const api = connect(p, { maxPages: 25 });
    const error = await api.list("/projects/acme%2Fapi/triggers").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect((error as Error).message).toMatch(
      /^GET \/projects\/acme%2Fapi\/triggers -> 200 OK: the list goes on past 25 pages, the most forgeform reads from one list \(2,500 objects at 100 per page\)/,
    );
    expect(p.seenOn(TRIGGERS)).toBe(25);
  });

  it("refuses an X-Total-Pages of 100,000,000 after one request, without queueing the pages", async () => {
    const p = await start({ [TRIGGERS]: hugeTotalPages(100_000_000, 3, trigger) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out + result.err)).toContain(
      "GET /projects/acme%2Fapi/triggers -> 200 OK: the server says the list has 100,000,000 pages (X-Total-Pages), more than the 10,000 forgeform reads from one list",
    );
    expect(p.seenOn(TRIGGERS)).toBe(1);
  });

  it("reads an announced page count a window at a time and stops at the first empty page", async () => {
    // The header promises 5,000 pages (within the limit), but only pages 1-3 hold anything.
    const p = await start({ [TRIGGERS]: hugeTotalPages(5_000, 3, trigger) });
    const api = connect(p, { concurrency: 4 });
    const all = await api.list<{ id: number }>("/projects/acme%2Fapi/triggers");
    expect(all.map((t) => t.id)).toEqual([1, 2, 3]);
    // Page 1, then one window of at most 4 pages in flight: pages 2-4 and maybe the 4 requested alongside 4.
    expect(p.seenOn(TRIGGERS)).toBeLessThanOrEqual(1 + 3 + 4);
    expect(p.server.maxInFlight()).toBeLessThanOrEqual(4);
  });

  it("refuses a SCIM totalResults of 10^12 instead of paging through it", async () => {
    const p = await start({ "GET /groups/acme/Users": scimEndless(1e12) });
    const api = connect(p);
    const error = await api.list("/groups/acme/Users", { scim: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect((error as Error).message).toBe(
      "GET /groups/acme/Users (SCIM) -> 200 OK: the server says there are 1,000,000,000,000 results (totalResults), more than the 1,000,000 forgeform reads from one list: not reading it",
    );
    expect(p.seenOn("GET /groups/acme/Users")).toBe(1);
  });

  it("gives up on a SCIM list that dribbles one user per page past the page limit", async () => {
    const p = await start({ "GET /groups/acme/Users": scimEndless(2_000) });
    const api = connect(p, { maxPages: 30 });
    await expect(api.list("/groups/acme/Users", { scim: true })).rejects.toThrow(
      /^GET \/groups\/acme\/Users \(SCIM\) -> 200 OK: the list goes on past 30 pages/,
    );
    expect(p.seenOn("GET /groups/acme/Users")).toBe(30);
  });
});

describe("memory over one list is bounded", () => {
  const MILESTONES = "GET /projects/acme/api/milestones";
  const MILESTONE_MANIFEST = "version: 1\nprojects:\n  acme/api:\n    milestones:\n      - title: m1\n";
  const milestone = (n: number, padding = "") => ({
    id: n,
    title: `m${n}`,
    state: "active",
    description: padding,
  });
  /** Pages of `size` milestones (each with a `padding` description), every page pointing at the next. */
  const milestonePages =
    (size: number, padding = "", extra: Record<string, string> = {}): Handler =>
    (req, res) => {
      const page = Number(req.query.get("page") ?? "1");
      json(
        res,
        200,
        Array.from({ length: size }, (_, i) => milestone(page * size + i, padding)),
        {
          "x-page": String(page),
          "x-next-page": String(page + 1),
          ...extra,
        },
      );
    };

  it("refuses a page that holds more items than per_page asked for, after that one page", async () => {
    // What the audit saw: pages of 100,000 milestones, each pointing at the next.
    const p = await start({
      [MILESTONES]: milestonePages(1000),
    });
    const result = await p.cli(["plan", manifest(MILESTONE_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out + result.err)).toContain(
      "GET /projects/acme%2Fapi/milestones -> 200 OK: page 1 holds 1,000 items, more than the 100 asked for (per_page): a broken answer, not read further",
    );
    expect(p.seenOn(MILESTONES)).toBe(1);
  });

  it("stops a list whose answers pass the list size limit, naming it, after a few pages", async () => {
    // Full pages of 100 milestones of about 3 KiB each: some 300 KiB a page, without end.
    const padding = "x".repeat(3000);
    const p = await start({
      [MILESTONES]: milestonePages(100, padding),
    });
    const result = await p.cli(["plan", "--max-list-mb", "2", manifest(MILESTONE_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out + result.err)).toMatch(
      /GET \/projects\/acme%2Fapi\/milestones -> 200 OK: the list's answers passed 2 MiB with page [78], the most forgeform keeps of one list: stopped there\. If a list on the platform really is that large, raise the limit with --max-list-mb/,
    );
    expect(p.seenOn(MILESTONES)).toBeLessThanOrEqual(8);
  });

  it("bounds a list read concurrently (X-Total-Pages) and a SCIM list the same way", async () => {
    const padding = "y".repeat(3000);
    const p = await start({
      [MILESTONES]: milestonePages(100, padding, { "x-total-pages": "5000" }),
      "GET /groups/acme/Users": (req, res) => {
        const start = Number(req.query.get("startIndex") ?? "1");
        json(res, 200, {
          totalResults: 100_000,
          Resources: Array.from({ length: 100 }, (_, i) => ({ id: `u${start + i}`, userName: padding })),
        });
      },
    });
    const api = connect(p, { maxListBytes: 1024 * 1024, concurrency: 4 });
    await expect(api.list("/projects/acme%2Fapi/milestones")).rejects.toThrow(
      /the list's answers passed 1 MiB with page \d+, the most forgeform keeps of one list/,
    );
    expect(p.seenOn(MILESTONES)).toBeLessThanOrEqual(4 + 4);
    await expect(api.list("/groups/acme/Users", { scim: true })).rejects.toThrow(
      /^GET \/groups\/acme\/Users \(SCIM\) -> 200 OK: the list's answers passed 1 MiB with startIndex \d+/,
    );
    expect(p.seenOn("GET /groups/acme/Users")).toBeLessThanOrEqual(4);
  });

  it("still reads an endpoint that does not paginate, whatever its length", async () => {
    const p = await start({
      [MILESTONES]: (_req, res) =>
        json(
          res,
          200,
          Array.from({ length: 250 }, (_, i) => milestone(i)),
        ),
    });
    expect(await connect(p).list("/projects/acme%2Fapi/milestones")).toHaveLength(250);
  });
});
