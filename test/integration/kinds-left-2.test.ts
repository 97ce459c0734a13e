// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write manifest reference syntax literally
/**
 * What a user relies on in `src/kinds` that only a count of the requests, the body of one, an unusual answer or an
 * unusual moment shows (the second round's last mutation survivors, docs/kinds-survivors.md): the reads a plan
 * makes once (the token's user, a group a listing gave, the members inherited from a group above), the write-only
 * settings sent with an update, a taken group path explained without a needless search, a project missing from its
 * group's listing with `unchecked:` settings, a new project whose group's listing is refused, a token file someone
 * makes between the plan and the create (or that cannot be written), a link to follow unlinked during the apply,
 * malformed answers to a schedule's take_ownership and to the read after a lost create, and a protected branch
 * whose role the platform lists after its allowances; and a subgroup's direct owner who also owns the group above,
 * removed there by the delete policy, still counted as an owner (a plan error before).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { answerEdited, answerJson, startProxy, startRecorder } from "./proxy.js";

/** A plan's changes and errors, from `plan --format json`. */
type JsonPlan = PlanV1;

const oneLine = (text: string) => text.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

/** A bench whose sandbox records `METHOD /path` (no query) of every request it receives. */
async function recording(fixture: Record<string, unknown>) {
  const requests: string[] = [];
  const bench = await Bench.start({
    fixture,
    onRequest: (method, path) => void requests.push(`${method} ${path}`),
  });
  return {
    bench,
    /** The requests from now on: `take()` returns those made since the last call. */
    take: () => requests.splice(0),
  };
}

async function planJson(bench: Bench, file: string, env: Record<string, string> = {}) {
  const r = await bench.cli(["plan", "--format", "json", file], env);
  return { code: r.code, plan: JSON.parse(r.out) as JsonPlan };
}

describe("the token's user, read once for the Owner-only changes of a plan, and not at all without one", () => {
  let bench: Bench;
  let take: () => string[];
  beforeAll(async () => {
    ({ bench, take } = await recording({
      groups: [{ path: "acme" }],
      projects: [{ path: "acme/app" }, { path: "acme/web" }, { path: "acme/api" }],
    }));
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("renames of two projects read the token's user once (an administrator: no project's role is read)", async () => {
    const file = bench.manifest(
      "version: 1\nprojects:\n  acme/app: { name: App One }\n  acme/web: { name: Web One }\n  acme/api: { description: api }\n",
    );
    take();
    const { code, plan } = await planJson(bench, file);
    expect(code).toBe(0);
    expect(plan.errors).toEqual([]);
    expect(plan.changes.map((c) => [c.address, c.fields.map((f) => f.field)]).sort()).toEqual([
      ['project["acme/api"]', ["description"]],
      ['project["acme/app"]', ["name"]],
      ['project["acme/web"]', ["name"]],
    ]);
    const requests = take();
    expect(requests.filter((r) => r === "GET /api/v4/user")).toEqual(["GET /api/v4/user"]);
    // The three projects come from their group's listing: none is read on its own.
    expect(requests.filter((r) => r.startsWith("GET /api/v4/projects/"))).toEqual([]);
  });

  it("changes no Owner needs read neither the token's user nor a project's role", async () => {
    const file = bench.manifest(
      "version: 1\nprojects:\n  acme/app: { description: one }\n  acme/web: { description: two }\n",
    );
    take();
    const { code, plan } = await planJson(bench, file);
    expect(code).toBe(0);
    expect(plan.changes).toHaveLength(2);
    const requests = take();
    expect(requests.filter((r) => r === "GET /api/v4/user")).toEqual([]);
    expect(requests.filter((r) => r.startsWith("GET /api/v4/projects/"))).toEqual([]);
  });
});

describe("a project missing from its group's listing, declared with unchecked settings", () => {
  it("is planned as a create beside the project the listing gave", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] },
    });
    try {
      const file = bench.manifest(
        "version: 1\nprojects:\n  acme/app:\n    unchecked: { approvals_before_merge: 2 }\n  acme/ghost:\n    unchecked: { approvals_before_merge: 2 }\n",
      );
      const { code, plan } = await planJson(bench, file);
      expect(code).toBe(0);
      expect(plan.errors).toEqual([]);
      expect(plan.changes.map((c) => [c.action, c.address])).toEqual([
        ["update", 'project["acme/app"]'],
        ["create", 'project["acme/ghost"]'],
      ]);
    } finally {
      await bench.stop();
    }
  });
});

describe("more than 20 groups declared: read in one listing, each kept for what asks for it later", () => {
  it("a project's visibility checked against its group asks the platform for no group on its own", async () => {
    const names = Array.from({ length: 21 }, (_, i) => `g${String(i + 1).padStart(2, "0")}`);
    const { bench, take } = await recording({
      groups: names.map((path) => ({ path, visibility: "internal" })),
      projects: [{ path: "g01/app", visibility: "private" }],
    });
    try {
      const groups = names.map((n) => `  ${n}: { description: team ${n} }\n`).join("");
      // One level above its group's: refused at plan time, which reads the group's visibility.
      const file = bench.manifest(
        `version: 1\ngroups:\n${groups}projects:\n  g01/app: { visibility: public }\n`,
      );
      take();
      const { code, plan } = await planJson(bench, file);
      expect(code).toBe(1);
      expect(plan.errors.map((e) => [e.address, e.message])).toEqual([
        [
          'project["g01/app"].visibility',
          "visibility public is not allowed: its group g01 is internal, and the platform refuses a project more visible than its group. Use internal or less, or raise the group's visibility in the manifests",
        ],
      ]);
      const requests = take();
      expect(requests.filter((r) => r === "GET /api/v4/groups")).toEqual(["GET /api/v4/groups"]);
      expect(requests.filter((r) => /^GET \/api\/v4\/groups\/[^/]+$/.test(r))).toEqual([]);
    } finally {
      await bench.stop();
    }
  });
});

describe("the members inherited from the group above, read once for each group above", () => {
  it("are read once per parent's group above, each parent's own", async () => {
    const { bench, take } = await recording({
      users: ["alice", "bob", "carol"].map((u) => ({
        username: u,
        name: `${u} Example`,
        email: `${u}@example.com`,
      })),
      groups: [
        { path: "acme", members: { alice: "maintainer" } },
        { path: "acme/team" },
        { path: "beta" },
        { path: "beta/team" },
      ],
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme/team:
    members:
      - { user: alice, access_level: maintainer }
      - { user: bob, access_level: developer }
      - { user: carol, access_level: developer }
  beta/team:
    members:
      - { user: alice, access_level: guest }
`);
      take();
      const { code, plan } = await planJson(bench, file);
      expect(code).toBe(0);
      expect(plan.errors).toEqual([]);
      // alice is a Maintainer of acme/team through acme, and nothing of beta/team.
      expect(plan.changes.map((c) => [c.action, c.address, c.reason])).toEqual([
        [
          "create",
          'group["acme/team"].member["alice"]',
          "alice already has maintainer access inherited from a group above: this adds a direct membership",
        ],
        ["create", 'group["acme/team"].member["bob"]', undefined],
        ["create", 'group["acme/team"].member["carol"]', undefined],
        ["create", 'group["beta/team"].member["alice"]', undefined],
      ]);
      expect(take().filter((r) => r.endsWith("/members/all"))).toEqual([
        "GET /api/v4/groups/acme/members/all",
        "GET /api/v4/groups/beta/members/all",
      ]);
    } finally {
      await bench.stop();
    }
  });
});

describe("application settings: write-only ones", () => {
  const ENV = { CK: "ck-secret-value-0002" };
  const manifest = (text: string) => `version: 1
instance:
  application_settings:
    cloudk8s_secret_access_key: "\${env:CK}"
    home_page_url: https://home.example/
    after_sign_up_text: ${text}
`;

  it("are sent with an update of another setting, the settings that did not change are not", async () => {
    const bench = await Bench.start({ fixture: { groups: [{ path: "acme" }] } });
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const first = await bench.cli(["apply", "--yes", bench.manifest(manifest("hello"))], ENV);
      expect(first.code, first.out + first.err).toBe(0);
      recorder.requests.length = 0;
      const r = await bench.cli(["apply", "--yes", bench.manifest(manifest("bye"))], {
        ...ENV,
        FORGEFORM_URL: recorder.url,
      });
      expect(r.code, r.out + r.err).toBe(0);
      expect(r.out + r.err).not.toContain(ENV.CK);
      expect(recorder.requests.filter((q) => q.method !== "GET")).toEqual([
        {
          method: "PUT",
          path: "/api/v4/application/settings",
          body: { after_sign_up_text: "bye", cloudk8s_secret_access_key: ENV.CK },
        },
      ]);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });
});

describe("a group's create refused because its path is taken, explained", () => {
  let bench: Bench;
  let take: () => string[];
  let proxy: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    // More users than the first page of the platform's user list holds (20, the newest first).
    ({ bench, take } = await recording({
      users: Array.from({ length: 21 }, (_, i) => ({
        username: `user${i + 1}`,
        name: `User ${i + 1}`,
        email: `user${i + 1}@example.com`,
      })),
      groups: [{ path: "acme" }],
    }));
    // The path is taken by what the token's user cannot see (or made since the plan): the platform refuses the create.
    proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "POST" && /^\/api\/v4\/groups(\?|$)/.test(req.url ?? "")
        ? answerJson(res, 400, { message: 'Failed to save group {:path=>["has already been taken"]}' })
        : false,
    );
  });
  afterAll(async () => {
    await proxy.close();
    await bench.stop();
  });

  const applyGroup = async (path: string) => {
    const file = bench.manifest(`version: 1\ngroups:\n  ${path}: { description: mine }\n`);
    take();
    const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
    expect(r.code).toBe(1);
    return { said: oneLine(r.out + r.err), requests: take() };
  };

  it("by a user's namespace: found among all the users, not only the first page of them", async () => {
    const { said } = await applyGroup("Sandbox-User");
    expect(said).toContain(
      "Sandbox-User is the namespace of the user sandbox-user: a top-level group cannot have a user's path (in any case). Choose another path (the platform said: ",
    );
  });

  it("a subgroup's path is not looked for among the users (a username has no slash)", async () => {
    const { said, requests } = await applyGroup("acme/hidden");
    expect(said).toContain(
      "a group at acme/hidden already exists, but this token's user cannot see it (it was not found when planning)",
    );
    expect(requests.filter((r) => r.startsWith("GET /api/v4/users"))).toEqual([]);
  });
});

describe("a token file someone makes between the plan and the create, within one apply", () => {
  const kinds = [
    {
      what: 'trigger "deploy"',
      entry: (file: string) =>
        `    triggers:\n      - description: deploy\n        token_file: ${JSON.stringify(file)}\n`,
      list: "triggers",
      refusal:
        "forgeform writes a trigger token only to a new file or over that same trigger's current token (the platform shows it in full to the trigger's owner), never over anything else; remove the file or name another one",
      lost: "the trigger's owner can read the token in the project's CI/CD settings",
    },
    {
      what: 'deploy token "pull"',
      entry: (file: string) =>
        `    deploy_tokens:\n      - name: pull\n        scopes: [read_repository]\n        token_file: ${JSON.stringify(file)}\n`,
      list: "deploy_tokens",
      refusal:
        "forgeform writes a deploy token only to a new file (the platform shows a deploy token once, when it is made, so an earlier token in a file cannot be told from anything else), never over anything else; remove the file or name another one",
      lost: "the platform never shows a deploy token again: replace it (--replace) to make a new one",
    },
  ];

  it.each(kinds)(
    "$what: is not written over, and nothing is created",
    async ({ what, entry, list, refusal }) => {
      let tokenFile = "";
      const bench: Bench = await Bench.start({
        fixture: { groups: [{ path: "acme" }] },
        // The project is created first, then what it holds: someone makes the file in between.
        onRequest: (method, path) => {
          if (method === "POST" && path === "/api/v4/projects") writeFileSync(tokenFile, "someone else's\n");
        },
      });
      try {
        tokenFile = join(bench.dir, "new.token");
        const file = bench.manifest(`version: 1\nprojects:\n  acme/fresh:\n${entry(tokenFile)}`);
        const r = await bench.cli(["apply", "--yes", file]);
        expect(r.code).toBe(1);
        expect(oneLine(r.out + r.err)).toContain(
          `not creating ${what}: token_file ${tokenFile} already exists: ${refusal}`,
        );
        expect(readFileSync(tokenFile, "utf8")).toBe("someone else's\n");
        expect(await bench.get(`/projects/acme%2Ffresh/${list}`)).toEqual([]);
      } finally {
        await bench.stop();
      }
    },
  );

  it.each(kinds)(
    "$what: a token that cannot be written says where to find it, or what to do",
    async ({ what, entry, list, lost }) => {
      const bench = await Bench.start({
        fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] },
      });
      try {
        // A file where the token file's folder should be.
        const notADir = join(bench.dir, "secrets");
        writeFileSync(notADir, "a file\n");
        const file = bench.manifest(`version: 1\nprojects:\n  acme/app:\n${entry(join(notADir, "t.token"))}`);
        const r = await bench.cli(["apply", "--yes", file]);
        expect(r.code).toBe(1);
        expect(oneLine(r.out + r.err)).toContain(
          `${what} was created, but its token could not be written: cannot write ${notADir} (ENOTDIR): a part of its path is a symbolic link or a file, not a directory; ${lost}`,
        );
        expect(await bench.get<unknown[]>(`/projects/acme%2Fapp/${list}`)).toHaveLength(1);
      } finally {
        await bench.stop();
      }
    },
  );
});

describe("a link to follow that someone unlinks during the apply", () => {
  it("fails the move saying which link is no longer there", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        issues: [1, 2].map((iid) => ({ project: "acme/api", iid, title: `issue ${iid}` })),
        epics: [{ group: "acme", iid: 1, title: "Launch", issues: ["acme/api#1"] }],
      },
    });
    // Just as issue 2 is linked (to be placed after issue 1), someone unlinks issue 1.
    let unlinked = false;
    const proxy = await startProxy(bench.sandbox.url, async (req) => {
      if (unlinked || req.method !== "POST" || !/\/epics\/1\/issues\/\d+$/.test(req.url ?? "")) return false;
      unlinked = true;
      const links = await bench.get<{ iid: number; epic_issue_id: number }[]>("/groups/acme/epics/1/issues");
      const first = links.find((l) => l.iid === 1)!;
      await bench.send("DELETE", `/groups/acme/epics/1/issues/${first.epic_issue_id}`);
      return false;
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: acme/api, iid: 1 }
          - { project: acme/api, iid: 2 }
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code).toBe(1);
      expect(oneLine(r.out + r.err)).toContain(
        "cannot place acme/api#2 after acme/api#1: acme/api#1 is not linked to the epic",
      );
      expect(unlinked).toBe(true);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("a malformed answer to a schedule's take_ownership", () => {
  it("fails the apply naming the request and what is wrong with the answer", async () => {
    const bench = await Bench.start({
      fixture: {
        users: [{ username: "alice", name: "Alice Example", email: "alice@example.com" }],
        groups: [{ path: "acme", members: { alice: "maintainer" } }],
        projects: [{ path: "acme/api", default_branch: "main" }],
        pipeline_schedules: [
          { project: "acme/api", description: "Nightly", cron: "0 4 * * *", ref: "main", owner: "alice" },
        ],
      },
    });
    // A proxy (or a platform) that answers the ownership's change with something that is not a schedule.
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "POST" && /\/take_ownership$/.test(req.url ?? "")
        ? answerJson(res, 200, { message: "202 Accepted" })
        : false,
    );
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 4 * * *"
        take_ownership: true
`);
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code).toBe(1);
      expect(oneLine(r.out + r.err)).toContain(
        'POST /projects/acme%2Fapi/pipeline_schedules/1/take_ownership -> 200 OK: the field "id" is missing (an integer was expected)',
      );
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("a protected branch whose role the platform lists after its allowances [licensed]", () => {
  it("is read as declared: the role is the entry that is neither a user nor a group, wherever it comes", async () => {
    const bench = await Bench.start({
      edition: "licensed",
      fixture: {
        users: [{ username: "alice", name: "Alice Example", email: "alice@example.com" }],
        groups: [{ path: "acme", members: { alice: "maintainer" } }, { path: "partners" }],
        projects: [{ path: "acme/api", default_branch: "main", shared_with: { partners: "developer" } }],
      },
    });
    // Made outside forgeform, say: the allowances first, the role last.
    const roleLast = (body: unknown) => {
      for (const b of Array.isArray(body) ? body : [body]) {
        const levels = (b as { push_access_levels?: { user_id?: unknown; group_id?: unknown }[] })
          .push_access_levels;
        if (!levels) continue;
        levels.sort(
          (x, y) =>
            Number(x.user_id == null && x.group_id == null) - Number(y.user_id == null && y.group_id == null),
        );
      }
    };
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && (req.url ?? "").includes("/protected_branches")
        ? answerEdited(bench.sandbox.url, req, res, roleLast)
        : false,
    );
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    protected_branches:
      - name: main
        push_access_level: developer
        allowed_to_push: [{ group: partners }, { user: alice }]
`);
      const applied = await bench.cli(["apply", "--yes", file]);
      expect(applied.code, applied.out + applied.err).toBe(0);
      const listed = await bench.get<{ push_access_levels: { user_id: unknown; group_id: unknown }[] }[]>(
        "/projects/acme%2Fapi/protected_branches",
      );
      expect(listed[0]!.push_access_levels).toHaveLength(3);
      const again = await bench.cli(["plan", "--detailed-exitcode", file], { FORGEFORM_URL: proxy.url });
      expect(again.code, again.out + again.err).toBe(0);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("a schedule variable's lost create, re-read from a malformed answer", () => {
  it("fails naming the read and what is wrong with its answer, and sends the create once", async () => {
    const posts: string[] = [];
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "lc" }],
        projects: [{ path: "lc/app", default_branch: "main" }],
        pipeline_schedules: [{ project: "lc/app", description: "seeded", cron: "0 1 * * *" }],
      },
      // The platform makes the variable, and its answer is lost.
      faults: "drop-after-commit:1@POST/api/v4/projects/lc%2Fapp/pipeline_schedules/",
      onRequest: (method, path) => {
        if (method === "POST") posts.push(path);
      },
    });
    // After the lost create, the schedule's detail is read again: it answers with a variable that is not one.
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && posts.length > 0 && /\/pipeline_schedules\/\d+(\?|$)/.test(req.url ?? "")
        ? answerEdited(bench.sandbox.url, req, res, (body) => {
            (body as { variables: unknown[] }).variables = [{ key: 5, value: ["found"] }];
          })
        : false,
    );
    try {
      const file = bench.manifest(
        'version: 1\nprojects:\n  lc/app:\n    pipeline_schedules:\n      - description: seeded\n        ref: main\n        cron: "0 1 * * *"\n        variables: [{ key: LOST, value: found }]\n',
      );
      const r = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: proxy.url });
      expect(r.code).toBe(1);
      expect(oneLine(r.out + r.err)).toContain(
        'failed: GET /projects/lc%2Fapp/pipeline_schedules/1 -> 200 OK: the field "variables[0].key" is an integer (5), not a string',
      );
      expect(posts).toEqual([expect.stringMatching(/\/pipeline_schedules\/\d+\/variables$/)]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("a new project whose group's listing of projects is refused", () => {
  it("is planned as a create all the same, with no hint of a neighbour", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] },
    });
    // The listing that looks for a close path among the group's projects (`simple=true`) is refused.
    const proxy = await startProxy(bench.sandbox.url, (req, res) =>
      req.method === "GET" && /\/groups\/acme\/projects\?.*simple=true/.test(req.url ?? "")
        ? answerJson(res, 403, { message: "403 Forbidden" })
        : false,
    );
    try {
      const file = bench.manifest("version: 1\nprojects:\n  acme/apq: { description: new }\n");
      // Listed, the group's projects give a hint: acme/app is one letter away.
      const listed = await planJson(bench, file);
      expect(listed.plan.warnings.map((w) => w.message)).toEqual([
        'project "acme/apq" does not exist and will be created, next to "acme/app": if the manifest means that project, correct the path',
      ]);
      const { code, plan } = await planJson(bench, file, { FORGEFORM_URL: proxy.url });
      expect(code).toBe(0);
      expect(plan.errors).toEqual([]);
      expect(plan.warnings).toEqual([]);
      expect(plan.changes.map((c) => [c.action, c.address])).toEqual([["create", 'project["acme/apq"]']]);
    } finally {
      await proxy.close();
      await bench.stop();
    }
  });
});

describe("a subgroup's owner who is also an owner of the group above, removed here by the delete policy", () => {
  it("still counts as an owner: another owner may be demoted (the plan refused it before)", async () => {
    const bench = await Bench.start({
      fixture: {
        users: ["xena", "yuri"].map((u) => ({
          username: u,
          name: `${u} Example`,
          email: `${u}@example.com`,
        })),
        groups: [
          { path: "acme", members: { yuri: "owner" } },
          { path: "acme/team", members: { xena: "owner", yuri: "owner" } },
        ],
      },
    });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme/team:
    members:
      - { user: xena, access_level: developer }
    unmanaged: { members: delete }
`);
      const { code, plan } = await planJson(bench, file);
      expect(plan.errors).toEqual([]);
      expect(code).toBe(0);
      expect(plan.changes.map((c) => [c.action, c.address])).toEqual([
        ["update", 'group["acme/team"].member["xena"]'],
        ["delete", 'group["acme/team"].member["yuri"]'],
      ]);
      // The platform takes both: yuri still owns acme/team through acme.
      const r = await bench.cli(["apply", "--yes", file]);
      expect(r.code, r.out + r.err).toBe(0);
      const levels = async (group: string) =>
        (await bench.get<{ username: string; access_level: number }[]>(`/groups/${group}/members`)).map(
          (m) => [m.username, m.access_level],
        );
      expect(await levels("acme%2Fteam")).toEqual([["xena", 30]]);
      expect(await levels("acme")).toEqual([["yuri", 50]]);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await bench.stop();
    }
  });
});
