/**
 * More cases of `src/kinds` that only an unusual estate or answer reaches (the sample's last mutation survivors,
 * docs/kinds-survivors.md): a subgroup's direct owners who also own the group above, a member added by someone else
 * between the plan and its create, more than 20 projects read from a listing that must include subgroups, a group
 * lowered below a project that is only shared with it, an undeclared epic link between declared ones, a wiki page
 * whose slug is not its title's, a SCIM answer without `active` or e-mails, and what a plan reads (and does not) for
 * a new group's move check on a large instance and for a project made private.
 */
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { answerEdited, startProxy } from "./proxy.js";

/** A plan's changes, errors and requests, from `plan --format json`. */
type JsonPlan = PlanV1;

const planJson = async (bench: Bench, file: string, env: Record<string, string> = {}) => {
  const r = await bench.cli(["plan", "--format", "json", file], env);
  expect(r.err).toBe("");
  return JSON.parse(r.out) as JsonPlan;
};

/** The changes that act (unmanaged objects left out), as address and action. */
const acting = (plan: JsonPlan) =>
  plan.changes.filter((c) => c.action !== "unmanaged").map((c) => [c.address, c.action]);

describe("a subgroup's direct owners who own the group above too", () => {
  const fixture = {
    users: [
      { username: "alice", name: "Alice", email: "alice@example.com" },
      { username: "bob", name: "Bob", email: "bob@example.com" },
    ],
    groups: [
      { path: "acme", members: { alice: "owner" } },
      { path: "acme/sub", members: { alice: "owner", bob: "owner" } },
    ],
  };
  const members = (bench: Bench, group: string) =>
    bench.get<{ username: string; access_level: number }[]>(`/groups/${encodeURIComponent(group)}/members`);

  it("are removed: the owner of the group above stays the subgroup's owner, as the platform counts it", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme/sub:
    members:
      - { user: alice, state: absent }
      - { user: bob, state: absent }
`);
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expect(acting(plan).sort()).toEqual([
        ['group["acme/sub"].member["alice"]', "delete"],
        ['group["acme/sub"].member["bob"]', "delete"],
      ]);
      const apply = await bench.cli(["apply", "--yes", file]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      expect(await members(bench, "acme/sub")).toEqual([]);
      expect(await members(bench, "acme")).toMatchObject([{ username: "alice", access_level: 50 }]);
    } finally {
      await bench.stop();
    }
  });

  it("is not demoted below the level the group above gives it: a plan error, and the owner is not called the last", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme/sub:
    members:
      - { user: alice, access_level: maintainer }
`);
      const r = await bench.cli(["plan", "--format", "json", file]);
      expect(r.code, r.err).toBe(1);
      expect((JSON.parse(r.out) as JsonPlan).errors).toMatchObject([
        {
          address: 'group["acme/sub"].member["alice"].access_level',
          message:
            "alice is owner (50) inherited from a group above, and the platform refuses a direct membership below that: declare owner or higher, or remove the membership here (state: absent)",
        },
      ]);
      // The platform refuses it too.
      const [acmeSub, alice] = [
        bench.sandbox.store.groupByFullPath("acme/sub")!,
        bench.sandbox.store.userByUsername("alice")!,
      ];
      await expect(
        bench.send("PUT", `/groups/${acmeSub.id}/members/${alice.id}`, { access_level: 40 }),
      ).rejects.toThrow(/400/);
    } finally {
      await bench.stop();
    }
  });
});

describe("a member someone else adds between the plan and its create", () => {
  it("is found there and given the declared level", async () => {
    let added = false;
    const bench: Bench = await Bench.start({
      fixture: {
        users: [{ username: "alice", name: "Alice", email: "alice@example.com" }],
        groups: [{ path: "acme" }],
      },
      // Someone adds alice as a Reporter just as the create arrives: the platform answers 409.
      onRequest: (method, path) => {
        if (added || method !== "POST" || !/^\/api\/v4\/groups\/[^/]+\/members$/.test(path)) return;
        added = true;
        const { store } = bench.sandbox;
        store.setMember("group", store.groupByFullPath("acme")!.id, store.userByUsername("alice")!.id, 20);
      },
    });
    try {
      const file = bench.manifest(
        "version: 1\ngroups:\n  acme:\n    members:\n      - { user: alice, access_level: maintainer }\n",
      );
      const apply = await bench.cli(["apply", "--yes", file]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      expect(added).toBe(true);
      expect(await bench.get("/groups/acme/members")).toMatchObject([
        { username: "alice", access_level: 40 },
      ]);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await bench.stop();
    }
  });
});

describe("more than 20 projects of one group, some in its subgroups", () => {
  it("are read from the group's listing with its subgroups: all found, nothing to create", async () => {
    const paths = [
      ...Array.from({ length: 18 }, (_, i) => `acme/app${i}`),
      ...Array.from({ length: 3 }, (_, i) => `acme/team/svc${i}`),
    ];
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }, { path: "acme/team" }],
        projects: paths.map((path) => ({ path, description: "kept" })),
      },
    });
    try {
      const file = bench.manifest(
        `version: 1\nprojects:\n${paths.map((p) => `  ${p}: { description: kept }\n`).join("")}`,
      );
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expect(acting(plan)).toEqual([]);
      expect(plan.requests.by_endpoint["GET /groups/:id/projects"]).toBe(1);
      expect(plan.requests.by_endpoint["GET /projects/:id"]).toBeUndefined();
    } finally {
      await bench.stop();
    }
  });
});

describe("a group made less visible than a project that is only shared with it", () => {
  it("is planned and applied: only the group's own projects hold its visibility up", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [
          { path: "acme", visibility: "public" },
          { path: "other", visibility: "public" },
        ],
        projects: [
          { path: "acme/app", visibility: "private" },
          { path: "other/lib", visibility: "public", shared_with: { acme: "developer" } },
        ],
      },
    });
    try {
      const file = bench.manifest("version: 1\ngroups:\n  acme: { visibility: private }\n");
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expect(acting(plan)).toEqual([['group["acme"]', "update"]]);
      const apply = await bench.cli(["apply", "--yes", file]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      expect(await bench.get("/groups/acme")).toMatchObject({ visibility: "private" });
      expect(await bench.get("/projects/other%2Flib")).toMatchObject({ visibility: "public" });
    } finally {
      await bench.stop();
    }
  });
});

describe("an undeclared epic link between declared ones, under the warn policy", () => {
  it("is left where it is, and the declared links after it plan no move", async () => {
    const bench = await Bench.start({
      edition: "licensed",
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        issues: [1, 2, 3].map((iid) => ({ project: "acme/api", iid, title: `issue ${iid}` })),
        epics: [
          { group: "acme", iid: 1, title: "Launch", issues: ["acme/api#1", "acme/api#2", "acme/api#3"] },
        ],
      },
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: acme/api, iid: 1 }
          - { project: acme/api, iid: 3 }
`);
      const plan = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expect(
        plan.changes
          .filter((c) => c.address.startsWith('group["acme"].epic'))
          .map((c) => [c.address, c.action]),
      ).toEqual([['group["acme"].epic["1"].issue["acme/api#2"]', "unmanaged"]]);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await bench.stop();
    }
  });
});

describe("a wiki page whose slug is not the one its title gives (made outside forgeform)", () => {
  it("is exported with its slug, beside its title and content", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        wikis: [{ project: "acme/api", title: "Release notes", content: "v1 is out" }],
      },
    });
    try {
      // Pushed to the wiki's repository as "Release notes.md": the slug keeps its space, which no title gives.
      const pages = (bench.sandbox.store.data.areas["wikis"] as { pages: { slug: string }[] }).pages;
      pages[0]!.slug = "Release notes";
      expect(await bench.get("/projects/acme%2Fapi/wikis")).toMatchObject([
        { slug: "Release notes", title: "Release notes" },
      ]);
      const out = mkdtempSync(join(tmpdir(), "forgeform-wiki-slug-"));
      const r = await bench.cli(["export", "--project", "acme/api", "--out", out]);
      expect(r.code, r.err).toBe(0);
      const [exported] = readdirSync(out).filter((n) => n.endsWith(".yaml"));
      const doc = parse(readFileSync(join(out, exported!), "utf8")) as {
        projects: Record<string, { wiki_pages?: unknown[] }>;
      };
      expect(doc.projects["acme/api"]?.wiki_pages).toEqual([
        { slug: "Release notes", title: "Release notes", content: "v1 is out" },
      ]);
    } finally {
      await bench.stop();
    }
  });
});

describe("SCIM users from an answer without active or e-mails", () => {
  const SCIM_TOKEN = "scim-token-for-acme";
  it("read as active, with no e-mail: only the declared e-mail is planned", async () => {
    const bench = await Bench.start({
      fixture: {
        users: [{ username: "olduser", name: "Old User", email: "old@acme.example" }],
        groups: [{ path: "acme" }],
        scim: [
          { group: "acme", token: SCIM_TOKEN, identities: [{ user: "olduser", extern_uid: "idp-old" }] },
        ],
      },
    });
    const dropped = (body: unknown) => {
      const resources = (body as { Resources?: Record<string, unknown>[] }).Resources ?? [];
      for (const u of resources) {
        delete u["active"];
        delete u["emails"];
      }
    };
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && (req.url ?? "").startsWith("/api/scim/")
        ? answerEdited(bench.sandbox.url, req, res, dropped)
        : false,
    );
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    scim_users:
      - externalId: idp-old
        userName: olduser
        name: { formatted: Old User }
        emails: [{ type: work, value: old@acme.example }]
        active: true
`);
      const plan = await planJson(bench, file, {
        FORGEFORM_URL: proxy.url,
        FORGEFORM_SCIM_TOKEN: SCIM_TOKEN,
      });
      expect(plan.errors).toEqual([]);
      const changes = plan.changes.filter((c) => c.action !== "unmanaged");
      expect(changes.map((c) => [c.address, c.action, c.fields])).toEqual([
        [
          'group["acme"].scim_user["idp-old"]',
          "update",
          [{ field: "emails", before: [], after: [{ type: "work", value: "old@acme.example" }] }],
        ],
      ]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("what a plan reads", () => {
  it("for a new group's move check: one search by its name, however many groups the instance has", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }, ...Array.from({ length: 150 }, (_, i) => ({ path: `team${i}` }))],
      },
    });
    try {
      const plan = await planJson(
        bench,
        bench.manifest("version: 1\ngroups:\n  acme: {}\n  acme/fresh: {}\n"),
      );
      expect(plan.errors).toEqual([]);
      expect(acting(plan)).toEqual([['group["acme/fresh"]', "create"]]);
      expect(plan.requests.by_endpoint["GET /groups"]).toBe(1);
    } finally {
      await bench.stop();
    }
  });

  it("for a project made private: nothing of its group (a private project fits in any group)", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme", visibility: "internal" }],
        projects: [{ path: "acme/app", visibility: "internal" }],
      },
    });
    try {
      const plan = await planJson(
        bench,
        bench.manifest("version: 1\nprojects:\n  acme/app: { visibility: private }\n"),
      );
      expect(plan.errors).toEqual([]);
      expect(acting(plan)).toEqual([['project["acme/app"]', "update"]]);
      expect(Object.keys(plan.requests.by_endpoint).filter((e) => e.startsWith("GET /groups"))).toEqual([]);
    } finally {
      await bench.stop();
    }
  });
});
