/**
 * Lost-create recovery for every creatable kind: the platform carries out the create and the response is lost
 * (`drop-after-commit:1` on that kind's POST). Apply re-reads, finds the object, reports it recovered, and the
 * platform holds exactly one, counted independently.
 */
import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

function sshKey(comment: string): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]).toString("base64")} ${comment}`;
}

const KEY = sshKey("lost@create");
const fixture = {
  groups: [{ path: "lc" }],
  projects: [
    { path: "lc/app", default_branch: "main", members: [{ user: "root", access_level: "maintainer" }] },
  ],
  pipeline_schedules: [{ project: "lc/app", description: "seeded", cron: "0 1 * * *" }],
  issues: [5, 6, 7].map((iid) => ({ project: "lc/app", iid, title: `Issue ${iid}` })),
  epics: [
    { group: "lc", iid: 1, title: "Epic", author: "root" },
    { group: "lc", iid: 2, title: "Ordered", author: "root", issues: ["lc/app#6"] },
  ],
  scim: [{ group: "lc", token: "lc-scim-token", identities: [] }],
};
const P = "/api/v4/projects/lc%2Fapp";

interface Case {
  kind: string;
  prefix: string;
  manifest: string;
  count: (bench: Bench) => Promise<number>;
}

const count = async <T>(bench: Bench, path: string, match: (x: T) => boolean) =>
  (await bench.get<T[]>(path)).filter(match).length;

const CASES: Case[] = [
  {
    kind: "project",
    // Every POST below /api/v4/projects: only the project's own create here. Not `lc/new`: the platform reserves
    // that path and refuses the create, which the lost answer hides, so apply re-reads and sends it again for each
    // of its 8 attempts, with backoff between (about 26 s on average), and then fails saying nothing was created.
    prefix: "/api/v4/projects",
    manifest: "projects:\n  lc/lost:\n    description: Lost and found\n",
    count: (b) =>
      count<{ path_with_namespace: string }>(
        b,
        "/groups/lc/projects",
        (p) => p.path_with_namespace === "lc/lost",
      ),
  },
  {
    kind: "group",
    prefix: "/api/v4/groups",
    manifest: "groups:\n  lc/sub: {}\n",
    count: (b) => count<{ full_path: string }>(b, "/groups/lc/subgroups", (g) => g.full_path === "lc/sub"),
  },
  {
    kind: "system hook",
    prefix: "/api/v4/hooks",
    manifest: 'instance:\n  system_hooks: [{ url: "https://hooks.lc.example/in" }]\n',
    count: (b) => count<{ url: string }>(b, "/hooks", (h) => h.url === "https://hooks.lc.example/in"),
  },
  {
    kind: "broadcast message",
    prefix: "/api/v4/broadcast_messages",
    manifest: "instance:\n  broadcast_messages: [{ message: Lost and found }]\n",
    count: (b) => count<{ message: string }>(b, "/broadcast_messages", (m) => m.message === "Lost and found"),
  },
  {
    kind: "pipeline schedule",
    prefix: `${P}/pipeline_schedules`,
    manifest:
      'projects:\n  lc/app:\n    pipeline_schedules: [{ description: fresh, ref: main, cron: "0 2 * * *" }]\n',
    count: (b) =>
      count<{ description: string }>(
        b,
        "/projects/lc%2Fapp/pipeline_schedules",
        (s) => s.description === "fresh",
      ),
  },
  {
    kind: "schedule variable",
    prefix: `${P}/pipeline_schedules/`,
    manifest:
      'projects:\n  lc/app:\n    pipeline_schedules:\n      - description: seeded\n        ref: main\n        cron: "0 1 * * *"\n        variables: [{ key: LOST, value: found }]\n',
    count: async (b) => {
      const [s] = (
        await b.get<{ id: number; description: string }[]>("/projects/lc%2Fapp/pipeline_schedules")
      ).filter((x) => x.description === "seeded");
      const detail = await b.get<{ variables: { key: string }[] }>(
        `/projects/lc%2Fapp/pipeline_schedules/${s!.id}`,
      );
      return detail.variables.filter((v) => v.key === "LOST").length;
    },
  },
  {
    kind: "project badge",
    prefix: `${P}/badges`,
    manifest:
      'projects:\n  lc/app:\n    badges: [{ name: lost, link_url: "https://x.example", image_url: "https://x.example/i.svg" }]\n',
    count: (b) =>
      count<{ name: string; kind: string }>(
        b,
        "/projects/lc%2Fapp/badges",
        (x) => x.name === "lost" && x.kind === "project",
      ),
  },
  {
    kind: "group badge",
    prefix: "/api/v4/groups/", // the only write to a group here (groups are addressed by id)
    manifest:
      'groups:\n  lc:\n    badges: [{ name: lost, link_url: "https://x.example", image_url: "https://x.example/i.svg" }]\n',
    count: (b) => count<{ name: string }>(b, "/groups/lc/badges", (x) => x.name === "lost"),
  },
  {
    kind: "project milestone",
    prefix: `${P}/milestones`,
    manifest: "projects:\n  lc/app:\n    milestones: [{ title: lost }]\n",
    count: (b) => count<{ title: string }>(b, "/projects/lc%2Fapp/milestones", (m) => m.title === "lost"),
  },
  {
    kind: "group milestone",
    prefix: "/api/v4/groups/",
    manifest: "groups:\n  lc:\n    milestones: [{ title: lost }]\n",
    count: (b) => count<{ title: string }>(b, "/groups/lc/milestones", (m) => m.title === "lost"),
  },
  {
    kind: "protected environment",
    prefix: `${P}/protected_environments`,
    manifest:
      "projects:\n  lc/app:\n    protected_environments: [{ name: production, deploy_access_levels: [{ access_level: 40 }] }]\n",
    count: (b) =>
      count<{ name: string }>(b, "/projects/lc%2Fapp/protected_environments", (e) => e.name === "production"),
  },
  {
    kind: "deploy key",
    prefix: `${P}/deploy_keys`,
    manifest: `projects:\n  lc/app:\n    deploy_keys: [{ title: lost, key: "${KEY}" }]\n`,
    count: (b) =>
      count<{ key: string }>(b, "/projects/lc%2Fapp/deploy_keys", (k) => k.key.includes(KEY.split(" ")[1]!)),
  },
  {
    kind: "trigger",
    prefix: `${P}/triggers`,
    manifest: "projects:\n  lc/app:\n    triggers: [{ description: lost }]\n",
    count: (b) =>
      count<{ description: string }>(b, "/projects/lc%2Fapp/triggers", (t) => t.description === "lost"),
  },
  {
    kind: "wiki page",
    prefix: `${P}/wikis`,
    manifest: "projects:\n  lc/app:\n    wiki_pages: [{ title: Lost, content: found }]\n",
    count: (b) => count<{ slug: string }>(b, "/projects/lc%2Fapp/wikis", (w) => w.slug === "Lost"),
  },
  {
    kind: "project CI/CD variable",
    prefix: `${P}/variables`,
    manifest:
      "projects:\n  lc/app:\n    variables: [{ key: LOST, value: found, environment_scope: production }]\n",
    count: (b) => count<{ key: string }>(b, "/projects/lc%2Fapp/variables", (v) => v.key === "LOST"),
  },
  {
    kind: "group CI/CD variable",
    prefix: "/api/v4/groups/",
    manifest: "groups:\n  lc:\n    variables: [{ key: LOST, value: found }]\n",
    count: (b) => count<{ key: string }>(b, "/groups/lc/variables", (v) => v.key === "LOST"),
  },
  {
    kind: "instance CI/CD variable",
    prefix: "/api/v4/admin/ci/variables",
    manifest: "instance:\n  variables: [{ key: LOST, value: found }]\n",
    count: (b) => count<{ key: string }>(b, "/admin/ci/variables", (v) => v.key === "LOST"),
  },
  {
    kind: "epic issue link",
    prefix: "/api/v4/groups/",
    manifest: "groups:\n  lc:\n    epics: [{ iid: 1, issues: [{ project: lc/app, iid: 5 }] }]\n",
    count: (b) => count<{ iid: number }>(b, "/groups/lc/epics/1/issues", (i) => i.iid === 5),
  },
];

describe("a create whose response is lost is found on re-reading, for every kind", () => {
  let bench: Bench | undefined;
  afterEach(async () => {
    await bench?.stop();
    bench = undefined;
  });

  it.each(CASES)("$kind", async ({ prefix, manifest, count: counted }) => {
    bench = await Bench.start({ fixture, faults: `drop-after-commit:1@POST${prefix}`, seed: 3 });
    const file = bench.manifest(`version: 1\n${manifest}`);
    const apply = await bench.cli(["apply", "--yes", file], { FORGEFORM_SCIM_TOKEN: "lc-scim-token" });
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("done (its response was lost; found on re-reading)");
    expect(await counted(bench)).toBe(1);
  });

  it("scim user", async () => {
    bench = await Bench.start({ fixture, faults: "drop-after-commit:1@POST/api/scim/v2/groups", seed: 3 });
    const file = bench.manifest(`version: 1
groups:
  lc:
    scim_users:
      - externalId: lost-1
        userName: lost
        name: { formatted: Lost Found, givenName: Lost, familyName: Found }
        emails: [{ type: work, value: lost@lc.example, primary: true }]
`);
    const apply = await bench.cli(["apply", "--yes", file], { FORGEFORM_SCIM_TOKEN: "lc-scim-token" });
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("done (its response was lost; found on re-reading)");
    const res = await fetch(
      `${bench.sandbox.url}/api/scim/v2/groups/lc/Users?filter=externalId%20eq%20%22lost-1%22`,
      {
        headers: { Authorization: "Bearer lc-scim-token" },
      },
    );
    expect(((await res.json()) as { totalResults: number }).totalResults).toBe(1);
  });
});

describe("a create found on re-reading is finished as the create would have finished it", () => {
  let bench: Bench | undefined;
  afterEach(async () => {
    await bench?.stop();
    bench = undefined;
  });

  // A project's create is a POST, then a PUT of the settings the platform takes on update only, then its archive
  // (another POST below /api/v4/projects, whose answer is lost too); a milestone's declared closed is a POST, then a
  // PUT that closes it; a group's is a POST, then a PUT of its settings taken on update only; a SCIM user's declared
  // inactive is a POST, then a PATCH of `active`; an epic's issue link is a POST (which puts the link first), then a
  // PUT that moves it to its place.
  it.each<{
    kind: string;
    faults: string;
    manifest: string;
    live: () => Promise<unknown>;
    expected: unknown;
    env?: Record<string, string>;
  }>([
    {
      kind: "project",
      faults: "drop-after-commit:1@POST/api/v4/projects",
      manifest:
        "projects:\n  lc/lost:\n    description: Lost and found\n    restrict_user_defined_variables: true\n    ci_forward_deployment_enabled: false\n    archived: true\n",
      live: () => bench!.get<Record<string, unknown>>("/projects/lc%2Flost"),
      expected: {
        description: "Lost and found",
        restrict_user_defined_variables: true,
        ci_forward_deployment_enabled: false,
        archived: true,
      },
    },
    {
      kind: "milestone",
      faults: `drop-after-commit:1@POST${P}/milestones`,
      manifest: "projects:\n  lc/app:\n    milestones: [{ title: lost, state: closed }]\n",
      live: async () =>
        (await bench!.get<{ title: string }[]>("/projects/lc%2Fapp/milestones")).find(
          (m) => m.title === "lost",
        ),
      expected: { state: "closed" },
    },
    {
      kind: "group",
      faults: "drop-after-commit:1@POST/api/v4/groups",
      manifest: "groups:\n  lc/sub:\n    description: Lost and found\n    file_template_project_id: 1\n",
      live: () => bench!.get<Record<string, unknown>>("/groups/lc%2Fsub"),
      expected: { description: "Lost and found", file_template_project_id: 1 },
    },
    {
      kind: "scim user",
      faults: "drop-after-commit:1@POST/api/scim/v2/groups",
      manifest:
        "groups:\n  lc:\n    scim_users:\n      - externalId: gone-1\n        userName: gone\n        name: { formatted: Gone Away }\n        emails: [{ type: work, value: gone@lc.example }]\n        active: false\n",
      live: async () => {
        const res = await fetch(
          `${bench!.sandbox.url}/api/scim/v2/groups/lc/Users?filter=externalId%20eq%20%22gone-1%22`,
          { headers: { Authorization: "Bearer lc-scim-token" } },
        );
        return ((await res.json()) as { Resources: unknown[] }).Resources;
      },
      expected: [{ id: "gone-1", active: false }], // the platform answers the externalId as `id`
      env: { FORGEFORM_SCIM_TOKEN: "lc-scim-token" },
    },
    {
      kind: "epic issue link",
      faults: "drop-after-commit:1@POST/api/v4/groups/",
      manifest:
        "groups:\n  lc:\n    epics:\n      - iid: 2\n        issues: [{ project: lc/app, iid: 6 }, { project: lc/app, iid: 7 }]\n",
      live: async () => (await bench!.get<{ iid: number }[]>("/groups/lc/epics/2/issues")).map((i) => i.iid),
      expected: [6, 7],
    },
  ])("$kind", async ({ faults, manifest, live, expected, env }) => {
    bench = await Bench.start({ fixture, faults, seed: 3 });
    const file = bench.manifest(`version: 1\n${manifest}`);
    const apply = await bench.cli(["apply", "--yes", file], env);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("done (its response was lost; found on re-reading)");
    expect(await live()).toMatchObject(expected as object);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file], env);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });
});

describe("a wiki page's attachments, when an answer is lost", () => {
  let bench: Bench;
  afterEach(async () => {
    await bench.stop();
  });

  // Each upload is stored under a new random directory (uploads/<32 hex>/<name>, on the platform as in the
  // sandbox) and uploads cannot be listed: one sent twice is a second copy, and one whose answer is lost cannot be
  // checked. So each is sent once, whatever is lost.
  const start = async (faults: string) => {
    bench = await Bench.start({ fixture, faults, seed: 3 });
    writeFileSync(join(bench.dir, "a.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1]));
    writeFileSync(join(bench.dir, "b.txt"), "notes\n");
    return bench.manifest(
      'version: 1\nprojects:\n  lc/app:\n    wiki_pages: [{ title: Lost, content: "![a](uploads/a.png)", attachments: [a.png, b.txt] }]\n',
    );
  };
  const uploads = () =>
    (
      bench.sandbox.store.data.areas["wikis"] as
        | { attachments: { file_name: string; data: string }[] }
        | undefined
    )?.attachments.map((u) => [u.file_name, Buffer.from(u.data, "base64").toString("hex")]) ?? [];
  const BOTH = [
    ["a.png", "89504e4701"],
    ["b.txt", Buffer.from("notes\n").toString("hex")],
  ];

  it("are uploaded once each to a page found on re-reading, and the next plan is empty", async () => {
    // Only the page's own POST (not the uploads below its path) loses its answer.
    const file = await start(`drop-after-commit:1@POST${P}/wikis$`);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("done (its response was lost; found on re-reading)");
    expect(uploads()).toEqual(BOTH);
    expect(await bench.get(`/projects/lc%2Fapp/wikis/Lost`)).toMatchObject({
      content: "![a](uploads/a.png)",
    });
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("are never sent twice when their answers are lost: each lost one is named, and the next still uploaded", async () => {
    const file = await start(`drop-after-commit:1@POST${P}/wikis/attachments`);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(1);
    expect(uploads()).toEqual(BOTH);
    const said = (apply.out + apply.err).replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");
    for (const name of ["a.png", "b.txt"])
      expect(said).toContain(
        `attachment ${join(bench.dir, name)}: whether its upload was stored is unknown (POST /projects/lc%2Fapp/wikis/attachments -> connection closed by the server (UND_ERR_SOCKET)); it was not sent again, since each upload is stored anew and uploads cannot be listed: look in the wiki's repository (uploads/) and upload it by hand if it is missing`,
      );
    expect(await bench.get(`/projects/lc%2Fapp/wikis/Lost`)).toMatchObject({
      content: "![a](uploads/a.png)",
    });
  });

  it("are uploaded once each when the page's answer and theirs are lost", async () => {
    const file = await start(`drop-after-commit:1@POST${P}/wikis`);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(1);
    expect(uploads()).toEqual(BOTH);
    expect(apply.out + apply.err).toContain("it was not sent again, since each upload is stored anew");
  });
});

describe("a create whose outcome stays unknown and that re-reading never finds", () => {
  let bench: Bench | undefined;
  afterEach(async () => {
    await bench?.stop();
  });

  it("is sent once per attempt, each after a re-read, then fails saying so, and nothing is created", async () => {
    // Every POST of a badge is answered 503 without Retry-After: its outcome is unknown, and it is not carried out.
    bench = await Bench.start({ fixture, faults: `503:1@POST${P}/badges` });
    const manifest = bench.manifest(`version: 1
projects:
  lc/app:
    badges:
      - { name: docs, link_url: "https://d.example/x", image_url: "https://d.example/b.svg" }
`);
    const run = await bench.cli(["apply", "--yes", "--max-attempts", "3", "--debug", manifest]);
    expect(run.code).toBe(1);
    const requests = run.err
      .split("\n")
      .filter((l) => l.includes("/badges") && / -> \d{3} /.test(l))
      .map((l) => l.replace(/\?.*? ->/, " ->").replace(/ \(\d+ ms\)$/, ""));
    expect(requests).toEqual([
      `GET ${P}/badges -> 200`,
      ...Array.from({ length: 3 }, () => [`POST ${P}/badges -> 503`, `GET ${P}/badges -> 200`]).flat(),
    ]);
    expect(run.out.replace(/\s+/g, " ")).toContain(
      '+ project["lc/app"].badge["docs"]: failed: POST /projects/lc%2Fapp/badges: the outcome was unknown 3 times (last: POST /projects/lc%2Fapp/badges -> 503 Service Unavailable: 503 Service Unavailable), and re-reading found nothing after each, so it was not created; apply again once the platform answers normally',
    );
    expect(await bench.get<unknown[]>(`/projects/lc%2Fapp/badges`)).toEqual([]);
  });
});
