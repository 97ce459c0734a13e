/**
 * More of what a user relies on in `src/kinds` that only an unusual answer, estate or moment shows (the last
 * mutation survivors left in docs/kinds-survivors.md): a project read without `permissions` (or with something
 * else there) when a plan asks for the token's role, a group answer without its id, name or visibility, a subgroup
 * whose parent is nowhere, a member's owner declared but outside a `--changed-since` plan, the allowances of a
 * protected branch (an unknown user's place, a level written `null`), `build_git_strategy` through a pattern on a
 * platform whose listings show it, a new project next to the made-up path of a refused listing, and the order of a
 * group's and its subgroup's changes (lowered together in any order of the manifests; a subgroup whose visibility
 * stays waits for its group).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench, USER_TOKEN } from "./helpers.js";
import { answerEdited, answerJson, startProxy, startRecorder } from "./proxy.js";

/** A plan's changes, errors and requests, from `plan --format json`. */
type JsonPlan = PlanV1;

async function planJson(bench: Bench, args: string[], env: Record<string, string> = {}) {
  const r = await bench.cli(["plan", "--format", "json", ...args], env);
  expect(r.err).toBe("");
  return { code: r.code, plan: JSON.parse(r.out) as JsonPlan };
}

/** The changes that act (unmanaged objects left out), as address and action. */
const acting = (plan: JsonPlan) =>
  plan.changes.filter((c) => c.action !== "unmanaged").map((c) => [c.address, c.action]);

const errorsOf = (plan: JsonPlan) => plan.errors.map((e) => [e.address, e.message]);

describe("the token's role on a project, read from an answer without permissions or with something else there", () => {
  const fixture = {
    users: [],
    groups: [{ path: "acme", members: { "sandbox-user": "maintainer" } }],
    projects: [{ path: "acme/app" }],
  };
  /** A plan of a rename (Owner-only) with the user's token, the project's own reads by id edited by `edit`. */
  async function renamed(edit: (body: Record<string, unknown>) => void) {
    const bench = await Bench.start({ fixture });
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && /^\/api\/v4\/projects\/\d+(\?|$)/.test(req.url ?? "")
        ? answerEdited(bench.sandbox.url, req, res, (body) => edit(body as Record<string, unknown>))
        : false,
    );
    try {
      const file = bench.manifest("version: 1\nprojects:\n  acme/app: { name: Renamed }\n");
      return await bench.cli(["plan", "--format", "json", file], {
        FORGEFORM_URL: proxy.url,
        FORGEFORM_TOKEN: USER_TOKEN,
      });
    } finally {
      await proxy.close();
      await bench.stop();
    }
  }

  it("as the platform gives it: a Maintainer", async () => {
    const run = await renamed(() => {});
    expect(run.code).toBe(1);
    expect(errorsOf(JSON.parse(run.out) as JsonPlan)).toEqual([
      [
        'project["acme/app"].name',
        "changing name needs the Owner role on the project, and the token's user is a Maintainer (the platform refuses it): use an Owner's or an administrator's token, or leave name out",
      ],
    ]);
  });

  it("without permissions: no role is known, and the change is refused as for a stranger", async () => {
    const run = await renamed((body) => {
      delete body["permissions"];
    });
    expect(run.code, run.err).toBe(1);
    expect(errorsOf(JSON.parse(run.out) as JsonPlan)).toEqual([
      [
        'project["acme/app"].name',
        "changing name needs the Owner role on the project, and the token's user is not a member (the platform refuses it): use an Owner's or an administrator's token, or leave name out",
      ],
    ]);
  });

  it("with permissions that are not an object: the plan fails naming the request and the field", async () => {
    const run = await renamed((body) => {
      body["permissions"] = "owner";
    });
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toBe(
      'forgeform: GET /projects/1 -> 200 OK: the field "permissions" is a string ("owner"), not an object\n',
    );
  });
});

describe("a group's answer without its id, name or visibility", () => {
  /** A plan of acme's description with each read of acme edited by `edit`: its exit code and what it printed. */
  async function planned(edit: (body: Record<string, unknown>) => void) {
    const bench = await Bench.start({ fixture: { groups: [{ path: "acme" }] } });
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && /^\/api\/v4\/groups\/acme(\?|$)/.test(req.url ?? "")
        ? answerEdited(bench.sandbox.url, req, res, (body) => edit(body as Record<string, unknown>))
        : false,
    );
    try {
      const file = bench.manifest("version: 1\ngroups:\n  acme: { description: Acme }\n");
      return await bench.cli(["plan", "--format", "json", file], { FORGEFORM_URL: proxy.url });
    } finally {
      await proxy.close();
      await bench.stop();
    }
  }

  it("as the platform gives it: the description is planned", async () => {
    const run = await planned(() => {});
    expect(run.code, run.err).toBe(0);
    expect(acting(JSON.parse(run.out) as JsonPlan)).toEqual([['group["acme"]', "update"]]);
  });

  for (const [field, expected] of [
    ["id", "an integer"],
    ["name", "a string"],
    ["visibility", "a string"],
  ] as const) {
    it(`without ${field}: a plan error naming the request and the field, and no change`, async () => {
      const run = await planned((body) => {
        delete body[field];
      });
      expect(run.code).toBe(1);
      const plan = JSON.parse(run.out) as JsonPlan;
      expect(errorsOf(plan)).toEqual([
        [
          "groups",
          `could not read groups: GET /groups/acme -> 200 OK: the field "${field}" is missing (${expected} was expected)`,
        ],
      ]);
      expect(plan.changes).toEqual([]);
    });
  }
});

describe("a subgroup whose parent group is neither on the platform nor in the manifests", () => {
  it("is a plan error that says so, and nothing is applied", async () => {
    const bench = await Bench.start({ fixture: { groups: [{ path: "acme" }] } });
    try {
      const file = bench.manifest("version: 1\ngroups:\n  nowhere/team: { description: Team }\n");
      const { code, plan } = await planJson(bench, [file]);
      expect(code).toBe(1);
      expect(errorsOf(plan)).toEqual([
        [
          'group["nowhere/team"]',
          "its parent group nowhere does not exist (or is not visible to this token's user): declare it in the manifests or create it first",
        ],
      ]);
      expect((await bench.cli(["apply", "--yes", file])).code).toBe(1);
      await expect(bench.get("/groups/nowhere%2Fteam")).rejects.toThrow(/404/);
    } finally {
      await bench.stop();
    }
  });
});

/** Runs git in `repo` (committing as a test user). */
const gitIn = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd: repo,
    encoding: "utf8",
  });

describe("an owner declared in the manifests whose entry a --changed-since plan leaves out", () => {
  it("still counts as an owner: the other owner may go, whatever the case the owner is written in", async () => {
    const bench = await Bench.start({
      fixture: {
        users: ["alice", "dave"].map((u) => ({ username: u, name: u, email: `${u}@example.com` })),
        groups: [{ path: "duo", members: { alice: "owner", dave: "owner" } }],
      },
    });
    try {
      const repo = mkdtempSync(join(tmpdir(), "forgeform-repo-"));
      const file = join(repo, "duo.yaml");
      const members = (alice: string) =>
        `version: 1\ngroups:\n  duo:\n    members:\n      - { user: Dave, access_level: owner }\n      - ${alice}\n    unmanaged: { members: delete }\n`;
      writeFileSync(file, members("{ user: alice, access_level: owner }"));
      gitIn(repo, "init", "-q");
      gitIn(repo, "add", "-A");
      gitIn(repo, "commit", "-q", "-m", "base");
      // Only alice's entry changes: dave's is declared, and not planned.
      writeFileSync(file, members("{ user: alice, state: absent }"));
      const { code, plan } = await planJson(bench, ["--changed-since", "HEAD", file]);
      expect(plan.errors).toEqual([]);
      expect(code).toBe(0);
      expect(acting(plan)).toEqual([['group["duo"].member["alice"]', "delete"]]);
      const apply = await bench.cli(["apply", "--yes", "--changed-since", "HEAD", file]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      expect(
        (await bench.get<{ username: string; access_level: number }[]>("/groups/duo/members")).map((m) => [
          m.username,
          m.access_level,
        ]),
      ).toEqual([["dave", 50]]);
    } finally {
      await bench.stop();
    }
  });
});

describe("a protected branch's allowances", () => {
  const fixture = {
    users: [{ username: "alice", name: "Alice", email: "alice@example.com" }],
    groups: [{ path: "acme", members: { alice: "developer" } }],
    projects: [{ path: "acme/app", default_branch: "main" }],
  };

  it("an unknown user among them is a plan error at its place in the list", async () => {
    const bench = await Bench.start({ fixture, edition: "licensed" });
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/app:
    protected_branches:
      - { name: main, allowed_to_push: [{ user: alice }, { user: nobody }] }
`);
      const { code, plan } = await planJson(bench, [file]);
      expect(code).toBe(1);
      expect(plan.errors.map((e) => e.address)).toEqual([
        'project["acme/app"].protected_branch["main"].allowed_to_push[1].user',
      ]);
      expect(plan.errors[0]).not.toHaveProperty("field");
      expect(plan.errors[0]!.message).toMatch(/^user "nobody" does not exist/);
    } finally {
      await bench.stop();
    }
  });
});

describe("build_git_strategy given through a pattern", () => {
  const fixture = {
    groups: [{ path: "acme" }],
    projects: [{ path: "acme/app" }, { path: "acme/web" }],
  };
  const MANIFEST = "version: 1\nprojects:\n  acme/**:\n    build_git_strategy: clone\n";

  /** The plan's changes of build_git_strategy, and how many projects it read on their own. */
  async function planned(url?: string) {
    const requests: string[] = [];
    const bench = await Bench.start({
      fixture,
      onRequest: (method, path) => void requests.push(`${method} ${path}`),
    });
    // A platform whose listings show build_git_strategy (13.12 shows it only in a project's own read).
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      url !== undefined && req.method === "GET" && /^\/api\/v4\/groups\/acme\/projects\?/.test(req.url ?? "")
        ? answerEdited(bench.sandbox.url, req, res, (body) => {
            for (const p of body as Record<string, unknown>[]) p["build_git_strategy"] = "fetch";
          })
        : false,
    );
    try {
      // acme/web's repository disabled: the platform shows its ci_config_path to no one, in lists or not.
      await bench.send("PUT", "/projects/acme%2Fweb", {
        repository_access_level: "disabled",
        merge_requests_access_level: "disabled",
        builds_access_level: "disabled",
      });
      const { code, plan } = await planJson(bench, [bench.manifest(MANIFEST)], { FORGEFORM_URL: proxy.url });
      expect(code).toBe(0);
      return {
        changes: plan.changes
          .map((c) => [c.address, c.action, c.fields])
          .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        own: requests.filter((r) => /^GET \/api\/v4\/projects\/[^/]+$/.test(r)).length,
      };
    } finally {
      await proxy.close();
      await bench.stop();
    }
  }

  const changes = ["acme/app", "acme/web"].map((p) => [
    `project["${p}"]`,
    "update",
    [{ field: "build_git_strategy", before: "fetch", after: "clone" }],
  ]);

  it("is read project by project where the pattern's listing does not show it, as on 13.12", async () => {
    expect(await planned()).toEqual({ changes, own: 2 });
  });

  it("is taken from the listing where it shows it: no project read on its own, not even for what no read shows", async () => {
    expect(await planned("listed")).toEqual({ changes, own: 0 });
  });
});

describe("a new project whose group's listing of projects is refused", () => {
  it("gets no hint of a neighbour, whatever its name", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] },
    });
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && /\/groups\/acme\/projects\?.*simple=true/.test(req.url ?? "")
        ? answerJson(res, 403, { message: "403 Forbidden" })
        : false,
    );
    try {
      // Two edits from "Stryker was here", the text a mutation tool puts in place of a refused listing's none.
      const file = bench.manifest("version: 1\nprojects:\n  acme/stryker-was-here: { description: new }\n");
      const { code, plan } = await planJson(bench, [file], { FORGEFORM_URL: proxy.url });
      expect(code).toBe(0);
      expect(plan.warnings).toEqual([]);
      expect(acting(plan)).toEqual([['project["acme/stryker-was-here"]', "create"]]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("the order of a group's and its subgroup's changes", () => {
  /** Applies `text` and returns the group updates in the order the platform received them. */
  async function applied(fixture: Record<string, unknown>, text: string) {
    const puts: string[] = [];
    const bench = await Bench.start({
      fixture,
      onRequest: (method, path) => {
        if (method === "PUT" && path.startsWith("/api/v4/groups/")) puts.push(path);
      },
    });
    try {
      const file = bench.manifest(text);
      const apply = await bench.cli(["apply", "--yes", file]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      const ids = new Map<string, string>();
      for (const g of await bench.get<{ id: number; full_path: string }[]>("/groups?all_available=true"))
        ids.set(`/api/v4/groups/${g.id}`, g.full_path);
      const again = await planJson(bench, ["--detailed-exitcode", file]);
      expect(again.code).toBe(0);
      return puts.map((p) => ids.get(p) ?? p);
    } finally {
      await bench.stop();
    }
  }

  it("lowered together, declared subgroup first: the subgroup first, then its group", async () => {
    const order = await applied(
      {
        groups: [
          { path: "acme", visibility: "public" },
          { path: "acme/sub", visibility: "public" },
        ],
      },
      "version: 1\ngroups:\n  acme/sub: { visibility: private }\n  acme: { visibility: private }\n",
    );
    expect(order).toEqual(["acme/sub", "acme"]);
  });

  it("a subgroup whose declared visibility stays as it is waits for its group", async () => {
    const order = await applied(
      {
        groups: [
          { path: "acme", visibility: "internal" },
          { path: "acme/sub", visibility: "internal" },
        ],
      },
      "version: 1\ngroups:\n  acme/sub: { visibility: internal, description: Sub }\n  acme: { description: Acme }\n",
    );
    expect(order).toEqual(["acme", "acme/sub"]);
  });
});

describe("a share of a project the plan creates (the plan failed before)", () => {
  const fixture = {
    groups: [{ path: "acme" }, { path: "partners" }, { path: "locked", share_with_group_lock: true }],
  };
  const share = "    shared_with_groups:\n      - { group: partners, group_access: developer }\n";

  it("is planned with the project, whether the project declares fields of its own or not, and made", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const cases: [string, string][] = [
        ["acme/bare", ""],
        ["acme/described", "    description: Described\n"],
      ];
      for (const [path, own] of cases) {
        const file = bench.manifest(`version: 1\nprojects:\n  ${path}:\n${own}${share}`);
        const { code, plan } = await planJson(bench, [file]);
        expect(plan.errors).toEqual([]);
        expect(code).toBe(0);
        expect(acting(plan)).toEqual([
          [`project["${path}"]`, "create"],
          [`project["${path}"].share["partners"]`, "create"],
        ]);
        const apply = await bench.cli(["apply", "--yes", file]);
        expect(apply.code, apply.out + apply.err).toBe(0);
        const made = await bench.get<{
          shared_with_groups: { group_full_path: string; group_access_level: number }[];
        }>(`/projects/${encodeURIComponent(path)}`);
        expect(made.shared_with_groups).toMatchObject([
          { group_full_path: "partners", group_access_level: 30 },
        ]);
        expect((await planJson(bench, ["--detailed-exitcode", file])).code).toBe(0);
      }
    } finally {
      await bench.stop();
    }
  });

  it("in a group the plan creates too: planned and made", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const file = bench.manifest(`version: 1\ngroups:\n  newteam: {}\nprojects:\n  newteam/app:\n${share}`);
      const { code, plan } = await planJson(bench, [file]);
      expect(plan.errors).toEqual([]);
      expect(code).toBe(0);
      const apply = await bench.cli(["apply", "--yes", file]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      expect(
        (await bench.get<{ shared_with_groups: unknown[] }>("/projects/newteam%2Fapp")).shared_with_groups,
      ).toHaveLength(1);
    } finally {
      await bench.stop();
    }
  });

  it("reads its group's lock once for all the shares of the group's projects", async () => {
    const bench = await Bench.start({ fixture: { groups: [...fixture.groups, { path: "others" }] } });
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const shares =
        "    shared_with_groups:\n      - { group: partners, group_access: developer }\n      - { group: others, group_access: reporter }\n";
      const file = bench.manifest(`version: 1\nprojects:\n  acme/one:\n${shares}  acme/two:\n${shares}`);
      const { code, plan } = await planJson(bench, [file], { FORGEFORM_URL: recorder.url });
      expect(plan.errors).toEqual([]);
      expect(code).toBe(0);
      expect(acting(plan).filter(([, action]) => action === "create")).toHaveLength(6);
      // Four shares ask for acme's lock: one read answers them all (the other read of acme is its id, for the
      // projects' creates).
      const acmeReads = recorder.requests.filter(
        (r) => r.method === "GET" && r.path === "/api/v4/groups/acme",
      );
      expect(acmeReads).toHaveLength(2);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });

  it("reads no lock of its own where the group is declared: the group's read answers it", async () => {
    const bench = await Bench.start({ fixture: { groups: [...fixture.groups, { path: "others" }] } });
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const shares =
        "    shared_with_groups:\n      - { group: partners, group_access: developer }\n      - { group: others, group_access: reporter }\n";
      const file = bench.manifest(`version: 1\ngroups:\n  acme: {}\nprojects:\n  acme/one:\n${shares}`);
      const { code, plan } = await planJson(bench, [file], { FORGEFORM_URL: recorder.url });
      expect(plan.errors).toEqual([]);
      expect(code).toBe(0);
      expect(acting(plan).filter(([, action]) => action === "create")).toHaveLength(3);
      // The group's own read answers its settings, its id for the creates and the shares' lock.
      const acmeReads = recorder.requests.filter(
        (r) => r.method === "GET" && r.path === "/api/v4/groups/acme",
      );
      expect(acmeReads).toHaveLength(1);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });

  it("in a group that locks sharing: a plan error that says so, as for a project that exists", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const file = bench.manifest(`version: 1\nprojects:\n  locked/app:\n${share}`);
      const { code, plan } = await planJson(bench, [file]);
      expect(code).toBe(1);
      expect(errorsOf(plan)).toEqual([
        [
          'project["locked/app"].share["partners"]',
          "group locked has share_with_group_lock set, so the platform refuses to share its projects with other groups: unset it on locked (and the groups above it) first, or give access through members",
        ],
      ]);
    } finally {
      await bench.stop();
    }
  });
});

describe("groups deleted by someone else during the apply", () => {
  it("fail the subgroup's create and the share that name them with the platform's 404, each named", async () => {
    let deleted = false;
    const bench: Bench = await Bench.start({
      fixture: {
        groups: [{ path: "aaa" }, { path: "acme" }, { path: "partners" }, { path: "other" }],
        projects: [{ path: "other/app" }],
      },
      // At the apply's first change (aaa's, one request at a time): after the plan looked acme and partners up.
      onRequest: (method, path) => {
        if (deleted || method !== "PUT" || !path.startsWith("/api/v4/groups/")) return;
        deleted = true;
        const { store } = bench.sandbox;
        for (const p of ["acme", "partners"]) store.removeGroup(store.groupByFullPath(p)!.id);
      },
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  aaa: { description: changed }
  acme/sub: {}
projects:
  other/app:
    shared_with_groups:
      - { group: partners, group_access: developer }
`);
      const apply = await bench.cli(["apply", "--yes", "--concurrency", "1", file]);
      expect(apply.code).toBe(1);
      expect(deleted).toBe(true);
      const outcomes = apply.out.split("\n").filter((l) => /^[~+] /.test(l));
      expect(outcomes).toEqual([
        '~ group["aaa"]: done',
        '+ group["acme/sub"]: failed: POST /groups -> 404 Not Found: not found, or not visible to this token\'s user (platform said: 404 Group Not Found)',
        '+ project["other/app"].share["partners"]: failed: POST /projects/other%2Fapp/share -> 404 Not Found: not found, or not visible to this token\'s user (platform said: Not Found)',
      ]);
    } finally {
      await bench.stop();
    }
  });
});
