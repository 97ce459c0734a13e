/**
 * Project and group web hooks over HTTP: the lifecycle field by field, the write-only token (sent on create, never
 * compared or shown, rotated with --replace), a secret in the URL matched by its value and masked, and group hooks
 * only on the licensed edition.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, expectNoChanges, FIXTURE, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";

/** The bench, its CLI run with `env`. */
const withEnv = (bench: Bench, env: Record<string, string>): Bench =>
  Object.assign(Object.create(bench) as Bench, { cli: (args: string[]) => bench.cli(args, env) });

interface Hook {
  push_events: boolean;
  job_events: boolean;
  push_events_branch_filter: string;
  enable_ssl_verification: boolean;
}

const URL_P = "https://hooks.example.com/ci";
const sha = (t: string) => createHash("sha256").update(t).digest("hex");

function manifest(owner: "groups" | "projects", path: string, h: Hook | undefined, policy?: string): string {
  const body = h
    ? `      - url: ${URL_P}\n        token: "\${env:HT}"\n${Object.entries(h)
        .map(([k, v]) => `        ${k}: ${JSON.stringify(v)}\n`)
        .join("")}`
    : "";
  return `version: 1
instance:
  unmanaged:
    groups: ignore
${owner}:
  ${path}:
    hooks:${h ? "" : " []"}
${body}${policy ? `    unmanaged:\n      hooks: ${policy}\n` : ""}`;
}

describe("hooks", () => {
  let bench: Bench;
  const ENV = { HT: "hook-token-value-0001", HK: "hook-key-value-0002" };
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** The sandbox's own record of the hooks (it keeps a token's SHA-256 only). */
  const stored = () =>
    (
      bench.sandbox.store.data.areas["web_hooks"] as {
        hooks: { id: number; url: string; token_sha256: string | null }[];
      }
    ).hooks;

  const base: Hook = {
    push_events: false,
    job_events: true,
    push_events_branch_filter: "release/*",
    enable_ssl_verification: true,
  };

  const cycle = async (owner: "groups" | "projects", path: string, api: string, address: string) => {
    await lifecycle({
      bench: withEnv(bench, ENV),
      address,
      render: (v, policy) => manifest(owner, path, v, policy),
      base,
      edits: [
        { values: { ...base, push_events: true }, fields: ["push_events"] },
        { values: { ...base, push_events: true, job_events: false }, fields: ["job_events"] },
        {
          values: { ...base, push_events: true, job_events: false, push_events_branch_filter: "main" },
          fields: ["push_events_branch_filter"],
        },
        {
          values: {
            push_events: true,
            job_events: false,
            push_events_branch_filter: "main",
            enable_ssl_verification: false,
          },
          fields: ["enable_ssl_verification"],
        },
      ],
      without: (policy) => manifest(owner, path, undefined, policy),
      read: async () => (await bench.get<Record<string, unknown>[]>(api)).filter((h) => h["url"] === URL_P),
      expected: (v) => ({ ...v }),
    });
  };

  it("project hooks go through the whole lifecycle, field by field, updated in place", async () => {
    await cycle(
      "projects",
      "acme/platform/api",
      "/projects/acme%2Fplatform%2Fapi/hooks",
      `project["acme/platform/api"].hook["${URL_P}"]`,
    );
  });

  it("group hooks go through the whole lifecycle", async () => {
    await cycle("groups", "acme", "/groups/acme/hooks", `group["acme"].hook["${URL_P}"]`);
  });

  it("sends the token on create only, never compares or shows it, and rotates it with --replace", async () => {
    const good = bench.manifest(`version: 1
projects:
  acme/platform/api:
    hooks:
      - url: "https://chat.example.com/hook?key=\${env:HK}"
        token: "\${env:HT}"
        note_events: true
`);
    const address = 'project["acme/platform/api"].hook["https://chat.example.com/hook?key=(sensitive)"]';
    const created = await bench.cli(["apply", "--yes", good], ENV);
    expect(created.code, created.out + created.err).toBe(0);
    expect(created.out).toContain(`+ ${address}`);
    const live = () => stored().find((h) => h.url === `https://chat.example.com/hook?key=${ENV.HK}`)!;
    const first = live();
    expect(first.token_sha256).toBe(sha(ENV.HT));

    // Another token in the manifest is no drift: the platform never shows the token.
    const other = { ...ENV, HT: "hook-token-value-0003" };
    const plan = await bench.cli(["plan", "--detailed-exitcode", good], other);
    expect(plan.code, plan.out).toBe(0);

    // --replace sends it: the hook is made again with the new token.
    const rotated = await bench.cli(["apply", "--yes", "--replace", address, good], other);
    expect(rotated.code, rotated.out + rotated.err).toBe(0);
    expect(rotated.out).toContain(`-/+ ${address}`);
    expect(rotated.out).toContain("+ token: (sensitive)");
    expect(live().id).not.toBe(first.id);
    expect(live().token_sha256).toBe(sha(other.HT));
    for (const text of [created.out, created.err, plan.out, rotated.out, rotated.err]) {
      for (const secret of [ENV.HT, ENV.HK, other.HT]) expect(text).not.toContain(secret);
    }
    await expectNoChanges(withEnv(bench, other), good);
  });

  it("matches a hook whose URL holds a secret by its value: another key is another hook", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    hooks:
      - url: "https://chat.example.com/hook?key=\${env:HK}"
        note_events: true
    unmanaged: { hooks: delete }
`);
    const rekeyed = { ...ENV, HK: "hook-key-value-0004" };
    const plan = await planJson(withEnv(bench, rekeyed), file);
    // The new key's hook is created; the old key's hook is deleted, its key masked too (it has the declared shape).
    expectChanges(plan, [
      {
        address: 'project["acme/platform/api"].hook["https://chat.example.com/hook?key=(sensitive)"]',
        action: "create",
      },
      {
        address: expect.stringMatching(
          /^project\["acme\/platform\/api"\]\.hook\["https:\/\/chat\.example\.com\/hook\?key=\(sensitive\) \(id \d+\)"\]$/,
        ) as unknown as string,
        action: "delete",
      },
    ]);
    expect(JSON.stringify(plan)).not.toContain(ENV.HK);
    expect(JSON.stringify(plan)).not.toContain(rekeyed.HK);
  });

  it("says a group hook needs the licensed edition, and a project hook has no subgroup events", async () => {
    const core = await Bench.start({ fixture: FIXTURE, edition: "core" });
    try {
      const file = core.manifest(`version: 1
groups:
  acme:
    hooks:
      - url: ${URL_P}
`);
      const r = await core.cli(["plan", file]);
      expect(r.code, r.out + r.err).toBe(1);
      expect(r.out.replace(/\s+/g, " ")).toContain("hooks exist only on the licensed edition");
      const sub = core.manifest(
        `version: 1\nprojects:\n  acme/platform/api:\n    hooks:\n      - { url: ${URL_P}, subgroup_events: true }\n`,
        "sub.yaml",
      );
      const v = await core.cli(["validate", sub]);
      expect(v.code).toBe(1);
      expect(v.out + v.err).toContain(
        'sub.yaml:5:46: projects["acme/platform/api"].hooks[0].subgroup_events: subgroup_events exists only for the hooks of groups: a project has no subgroups',
      );
    } finally {
      await core.stop();
    }
  });

  it("applies a hook of a group the plan creates, after the group", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme/fresh:
    hooks:
      - { url: "${URL_P}/fresh", subgroup_events: true }
`);
    await apply(bench, file);
    const hooks = await bench.get<{ url: string; subgroup_events: boolean }[]>("/groups/acme%2Ffresh/hooks");
    expect(hooks).toEqual([expect.objectContaining({ url: `${URL_P}/fresh`, subgroup_events: true })]);
    await expectNoChanges(bench, file);
  });
});

describe("a hook whose URL holds a token no manifest names any more", () => {
  // Made by an earlier commit from ${env:}; the manifests of today no longer mention the hook, so nothing says the
  // token in its URL is a secret but the URL's own shape.
  const TOKEN = "earlier-commit-hook-token-77";
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
    const first = bench.manifest(`version: 1
projects:
  acme/platform/api:
    hooks:
      - { url: "https://chat.example.com/notify?token=\${env:TOKEN}&channel=ci", push_events: true }
`);
    const applied = await bench.cli(["apply", "--yes", first], { TOKEN });
    expect(applied.code, applied.out + applied.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("is shown with the token masked, left unmanaged or deleted, in every format", async () => {
    const cases = [
      "    hooks: []\n",
      "    hooks: []\n    unmanaged: { hooks: delete }\n",
      "    unmanaged: { hooks: delete }\n",
    ];
    for (const [i, body] of cases.entries()) {
      const file = bench.manifest(`version: 1\nprojects:\n  acme/platform/api:\n${body}`, `case${i}.yaml`);
      for (const args of [
        ["plan", file],
        ["plan", "--format", "json", file],
        ["plan", "--format", "markdown", file],
        ["drift", "--format", "junit", file],
        ["plan", "--debug", file],
      ]) {
        const run = await bench.cli(args);
        expect(run.code, run.out + run.err).not.toBe(1);
        expect(run.out + run.err, `${args.join(" ")}:\n${body}`).not.toContain(TOKEN);
        expect(run.out + run.err).toContain("https://chat.example.com/notify?token=(sensitive)");
      }
    }
    const deleted = await planJson(
      bench,
      bench.manifest(`version: 1\nprojects:\n  acme/platform/api:\n${cases[1]}`, "d.yaml"),
    );
    expect(deleted.changes.map((c) => [c.action, c.address])).toEqual([
      [
        "delete",
        'project["acme/platform/api"].hook["https://chat.example.com/notify?token=(sensitive)&channel=ci (id 1)"]',
      ],
    ]);
    const applied = await bench.cli([
      "apply",
      "--yes",
      bench.manifest(`version: 1\nprojects:\n  acme/platform/api:\n${cases[1]}`, "a.yaml"),
    ]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out + applied.err).not.toContain(TOKEN);
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fapi/hooks")).toEqual([]);
  });

  it("made by hand with its secret in the path or under a neutral name: masked where it looks random", async () => {
    const SLACK = "vKtqA7yPw3kT0JH2XeLqYz9B";
    const NEUTRAL = "9f86d081884c7d659a2feaa0c55ad015";
    for (const url of [
      `https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${SLACK}`,
      `https://chat.example.com/in?c=${NEUTRAL}&channel=ci`,
    ])
      await bench.send("POST", "/projects/acme%2Fplatform%2Fapi/hooks", { url, push_events: true });
    const file = (body: string) =>
      bench.manifest(`version: 1\nprojects:\n  acme/platform/api:\n${body}`, "by-hand.yaml");
    for (const body of ["    hooks: []\n", "    hooks: []\n    unmanaged: { hooks: delete }\n"])
      for (const args of [
        ["plan", file(body)],
        ["plan", "--format", "json", file(body)],
        ["drift", "--format", "junit", file(body)],
        ["plan", "--debug", file(body)],
      ]) {
        const run = await bench.cli(args);
        expect(run.code, run.out + run.err).not.toBe(1);
        for (const secret of [SLACK, NEUTRAL])
          expect(run.out + run.err, args.join(" ")).not.toContain(secret);
        expect(run.out + run.err).toContain(
          "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/(sensitive)",
        );
        expect(run.out + run.err).toContain("https://chat.example.com/in?c=(sensitive)&");
      }
    // Declared, the same URL is the manifest's (in git already): shown as written, and matched.
    const declared = file(
      `    hooks:\n      - { url: "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${SLACK}", push_events: false }\n`,
    );
    const plan = await planJson(bench, declared);
    expect(plan.changes.filter((c) => c.action !== "unmanaged").map((c) => [c.action, c.address])).toEqual([
      [
        "update",
        `project["acme/platform/api"].hook["https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${SLACK}"]`,
      ],
    ]);
    const applied = await bench.cli([
      "apply",
      "--yes",
      file("    hooks: []\n    unmanaged: { hooks: delete }\n"),
    ]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    for (const secret of [SLACK, NEUTRAL]) expect(applied.out + applied.err).not.toContain(secret);
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fapi/hooks")).toEqual([]);
  });
});
