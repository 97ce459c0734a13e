import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { paginate } from "../../src/sandbox/respond.js";
import { type Client, sandbox } from "./helpers.js";

const groups = Array.from({ length: 45 }, (_, i) => ({
  path: `g${String(i + 1).padStart(2, "0")}`,
  visibility: "public",
}));

describe("offset pagination (§1.1)", () => {
  let c: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture: { groups }, baseUrlHost: undefined });
  });
  afterAll(() => c.sb.stop());

  const host = () => new URL(c.sb.url).host;

  it("defaults to page 1 of 20 with every header, and Link built from the Host header", async () => {
    const r = await c.admin("GET", "/groups?order_by=path");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect((r.body as unknown[]).length).toBe(20);
    expect(r.headers.get("x-page")).toBe("1");
    expect(r.headers.get("x-per-page")).toBe("20");
    expect(r.headers.get("x-total")).toBe("45");
    expect(r.headers.get("x-total-pages")).toBe("3");
    expect(r.headers.get("x-next-page")).toBe("2");
    expect(r.headers.get("x-prev-page")).toBe("");
    // Declared parameters appear with their defaults, as Grape leaves them in params.
    const q = (page: number) =>
      `order_by=path&owned=false&page=${page}&per_page=20&sort=asc&statistics=false&with_custom_attributes=false`;
    expect(r.headers.get("link")).toBe(
      `<http://${host()}/api/v4/groups?${q(2)}>; rel="next", ` +
        `<http://${host()}/api/v4/groups?${q(1)}>; rel="first", ` +
        `<http://${host()}/api/v4/groups?${q(3)}>; rel="last"`,
    );
  });

  it("a middle page links prev, next, first, last in that order with sorted query params", async () => {
    const r = await c.admin("GET", "/groups?sort=asc&per_page=10&page=2&order_by=path");
    expect((r.body as { path: string }[]).map((g) => g.path)[0]).toBe("g11");
    expect(r.headers.get("x-prev-page")).toBe("1");
    expect(r.headers.get("x-next-page")).toBe("3");
    const rels = [...(r.headers.get("link") ?? "").matchAll(/rel="(\w+)"/g)].map((m) => m[1]);
    expect(rels).toEqual(["prev", "next", "first", "last"]);
    expect(r.headers.get("link")).toContain(
      "?order_by=path&owned=false&page=1&per_page=10&sort=asc&statistics=false",
    );
  });

  it("clamps per_page above 100 to 100 without an error", async () => {
    const r = await c.admin("GET", "/groups?per_page=500");
    expect(r.status).toBe(200);
    expect(r.headers.get("x-per-page")).toBe("100");
    expect((r.body as unknown[]).length).toBe(45);
  });

  it("treats page <= 0 as page 1", async () => {
    for (const page of ["0", "-3"]) {
      const r = await c.admin("GET", `/groups?page=${page}`);
      expect(r.headers.get("x-page")).toBe("1");
      expect((r.body as unknown[]).length).toBe(20);
    }
  });

  it("negative per_page falls back to the default 20", async () => {
    const r = await c.admin("GET", "/groups?per_page=-5");
    expect(r.headers.get("x-per-page")).toBe("20");
  });

  it("rejects non-integer per_page and page with Grape's 400", async () => {
    const a = await c.admin("GET", "/groups?per_page=abc");
    expect(a.status).toBe(400);
    expect(a.body).toEqual({ error: "per_page is invalid" });
    const b = await c.admin("GET", "/groups?page=x");
    expect(b.body).toEqual({ error: "page is invalid" });
  });

  it("a page past the end is [] with both next and prev empty and only first and last links", async () => {
    const r = await c.admin("GET", "/groups?page=9");
    expect(r.body).toEqual([]);
    expect(r.headers.get("x-page")).toBe("9");
    expect(r.headers.get("x-next-page")).toBe("");
    expect(r.headers.get("x-prev-page")).toBe("");
    expect(r.headers.get("x-total")).toBe("45");
    expect(r.headers.get("x-total-pages")).toBe("3");
    const rels = [...(r.headers.get("link") ?? "").matchAll(/rel="(\w+)"/g)].map((m) => m[1]);
    expect(rels).toEqual(["first", "last"]);
  });

  it("an empty list still says X-Total-Pages: 1 and links last to page 1", async () => {
    const r = await c.admin("GET", "/groups?search=nothing-matches-this");
    expect(r.body).toEqual([]);
    expect(r.headers.get("x-total")).toBe("0");
    expect(r.headers.get("x-total-pages")).toBe("1");
    expect(r.headers.get("link")).toContain(
      'page=1&per_page=20&search=nothing-matches-this&sort=asc&statistics=false&with_custom_attributes=false>; rel="last"',
    );
  });

  it("the last page has no next", async () => {
    const r = await c.admin("GET", "/groups?page=3");
    expect((r.body as unknown[]).length).toBe(5);
    expect(r.headers.get("x-next-page")).toBe("");
    expect(r.headers.get("x-prev-page")).toBe("2");
  });

  it("Link carries route parameters and array parameters in Rails to_query form", async () => {
    const first = (await c.admin("GET", "/groups?order_by=id&per_page=1")).body as { id: number }[];
    const r = await c.admin("GET", `/groups?skip_groups[]=${first[0]!.id}&per_page=2`);
    expect(r.headers.get("link")).toContain(`&page=2&per_page=2&skip_groups%5B%5D=${first[0]!.id}&sort=asc`);
  });

  it("reproduces the recorded Link headers of /users?username= and /groups/:id/members", async () => {
    const d = await sandbox({
      baseUrlHost: "gitlab.example.com",
      fixture: { users: [{ username: "some_member" }], groups: [{ path: "test" }] },
    });
    try {
      const users = await d.admin("GET", "/users?username=some_member");
      const u =
        "http://gitlab.example.com/api/v4/users?active=false&blocked=false&external=false&order_by=id&page=1&per_page=20&sort=desc&username=some_member&with_custom_attributes=false";
      expect(users.headers.get("link")).toBe(`<${u}>; rel="first", <${u}>; rel="last"`);
      const id = (d.sb.store.groupByFullPath("test") as { id: number }).id;
      const members = await d.admin("GET", `/groups/${id}/members`);
      const m = `http://gitlab.example.com/api/v4/groups/${id}/members?id=${id}&page=1&per_page=20`;
      expect(members.headers.get("link")).toBe(`<${m}>; rel="first", <${m}>; rel="last"`);
      expect(members.headers.get("x-next-page")).toBe("");
      expect(members.headers.get("x-total")).toBe("0");
    } finally {
      await d.sb.stop();
    }
  });

  it("uses the configured host instead of the Host header when given", async () => {
    const d = await sandbox({ baseUrlHost: "gitlab.example.com", fixture: { groups: [{ path: "a" }] } });
    try {
      const r = await d.admin("GET", "/groups");
      expect(r.headers.get("link")).toContain("<http://gitlab.example.com/api/v4/groups?");
    } finally {
      await d.sb.stop();
    }
  });
});

describe("pagination counts over the threshold", () => {
  const req = { baseUrl: "http://h", path: "/api/v4/x", linkParams: {}, page: undefined, perPage: "2" };
  const items = [1, 2, 3, 4, 5];

  it("omits X-Total, X-Total-Pages and rel=last but keeps next", () => {
    const r = paginate(items, req, { countLimit: 4 });
    expect(r.headers["X-Total"]).toBeUndefined();
    expect(r.headers["X-Total-Pages"]).toBeUndefined();
    expect(r.headers["X-Next-Page"]).toBe("2");
    expect(r.headers["Link"]).not.toContain('rel="last"');
    expect(r.body).toEqual([1, 2]);
  });

  it("keeps counts at exactly the threshold", () => {
    const r = paginate(items, req, { countLimit: 5 });
    expect(r.headers["X-Total"]).toBe("5");
  });

  it("the sandbox server applies a configured threshold", async () => {
    const d = await sandbox({ countLimit: 3, fixture: { groups: groups.slice(0, 5) } });
    try {
      const r = await d.admin("GET", "/groups?per_page=2");
      expect(r.headers.get("x-total")).toBeNull();
      expect(r.headers.get("x-total-pages")).toBeNull();
      expect(r.headers.get("x-next-page")).toBe("2");
    } finally {
      await d.sb.stop();
    }
  });
});

describe("keyset pagination of GET /projects (§1.2)", () => {
  it("follows Link rel=next with id_after until the header is absent; other orders are 405", async () => {
    const projects = Array.from({ length: 5 }, (_, i) => ({ path: `k/p${i}`, visibility: "public" }));
    const c = await sandbox({ fixture: { groups: [{ path: "k", visibility: "public" }], projects } });
    try {
      const seen: string[] = [];
      let url: string | undefined =
        `${c.sb.url}/api/v4/projects?pagination=keyset&order_by=id&sort=asc&per_page=2`;
      let pages = 0;
      while (url) {
        const res: Response = await fetch(url, { headers: { "PRIVATE-TOKEN": "admin-token" } });
        const body = (await res.json()) as { path: string }[];
        seen.push(...body.map((p) => p.path));
        expect(res.headers.get("x-total")).toBeNull();
        const link = res.headers.get("link");
        if (link) expect(res.headers.get("links")).toBe(link);
        url = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
        pages++;
      }
      expect(seen).toEqual(["p0", "p1", "p2", "p3", "p4"]);
      expect(pages).toBe(3);
      const bad = await c.admin("GET", "/projects?pagination=keyset&order_by=name");
      expect(bad.status).toBe(405);
      expect(bad.body).toEqual({ error: "Keyset pagination is not yet available for this type of request" });
    } finally {
      await c.sb.stop();
    }
  });
});

describe("offset pagination at the boundaries: totals 0, 1, per_page - 1, per_page, per_page + 1, 2 * per_page", () => {
  const PER_PAGE = 5;
  const sets: Record<string, number> = { none: 0, solo: 1, four: 4, five: 5, six: 6, ten: 10 };
  const fixture = {
    groups: Object.entries(sets).flatMap(([name, n]) =>
      Array.from({ length: n }, (_, i) => ({ path: `${name}-${i + 1}`, visibility: "public" })),
    ),
  };
  let c: Client;
  let counted: Client;
  beforeAll(async () => {
    c = await sandbox({ fixture });
    // Counts are left out above 5 rows: totals per_page and per_page + 1 sit on either side of the threshold.
    counted = await sandbox({ fixture, countLimit: PER_PAGE });
  });
  afterAll(async () => {
    await c.sb.stop();
    await counted.sb.stop();
  });

  /** Walks every page and the one past the end, checking each header against what the total implies. */
  async function walk(client: Client, name: string, total: number) {
    const pages = Math.max(1, Math.ceil(total / PER_PAGE));
    const counts = total <= PER_PAGE || client === c;
    const seen: string[] = [];
    for (let page = 1; page <= pages + 1; page++) {
      const r = await client.admin(
        "GET",
        `/groups?search=${name}-&order_by=path&per_page=${PER_PAGE}&page=${page}`,
      );
      const where = `${name} (${total}) page ${page}`;
      expect(r.status, where).toBe(200);
      const body = r.body as { path: string }[];
      seen.push(...body.map((g) => g.path));
      expect(body.length, where).toBe(Math.max(0, Math.min(PER_PAGE, total - (page - 1) * PER_PAGE)));
      // Past the last page (or, without counts, on an empty page after the first) neither neighbour is named.
      const outOfRange = counts ? page > pages : body.length === 0 && page > 1;
      const next = !outOfRange && total > page * PER_PAGE ? String(page + 1) : "";
      const prev = !outOfRange && page > 1 ? String(page - 1) : "";
      expect(r.headers.get("x-page"), where).toBe(String(page));
      expect(r.headers.get("x-next-page"), where).toBe(next);
      expect(r.headers.get("x-prev-page"), where).toBe(prev);
      expect(r.headers.get("x-total"), where).toBe(counts ? String(total) : null);
      expect(r.headers.get("x-total-pages"), where).toBe(counts ? String(pages) : null);
      const link = r.headers.get("link") ?? "";
      const rel = (name: string) => new RegExp(`[?&]page=(\\d+)&[^>]*>; rel="${name}"`).exec(link)?.[1];
      expect(rel("next"), where).toBe(next === "" ? undefined : next);
      expect(rel("prev"), where).toBe(prev === "" ? undefined : prev);
      expect(rel("first"), where).toBe("1");
      expect(rel("last"), where).toBe(counts ? String(pages) : undefined);
    }
    expect(seen, name).toEqual(Array.from({ length: total }, (_, i) => `${name}-${i + 1}`).sort());
  }

  for (const [name, total] of Object.entries(sets)) {
    it(`a total of ${total}: no next page announced past the last, with counts`, () => walk(c, name, total));
    it(`a total of ${total}: the same without counts once the total passes the threshold`, () =>
      walk(counted, name, total));
  }

  it("a page number the sandbox cannot count to exactly is 400 page is invalid, not an absurd X-Page", async () => {
    for (const page of ["100000000000000000000000", "9007199254740992"]) {
      const r = await c.admin("GET", `/groups?page=${page}`);
      expect([r.status, r.body], page).toEqual([400, { error: "page is invalid" }]);
    }
    const largest = await c.admin("GET", "/groups?page=9007199254740991");
    expect([largest.status, largest.body, largest.headers.get("x-page")]).toEqual([
      200,
      [],
      "9007199254740991",
    ]);
    // Page 0 and below are page 1, however far below.
    const low = await c.admin("GET", "/groups?page=-100000000000000000000000");
    expect(low.headers.get("x-page")).toBe("1");
  });
});
