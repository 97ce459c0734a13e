/**
 * Deploy tokens over HTTP: every change a replacement with its reason (the platform has no update), the token
 * written once to token_file (0600, only to a new file) and shown nowhere, tokens that no longer work (expired, or
 * revoked where a newer platform says so) reported as such, and namesakes warned of.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { apply, expectNoChanges, FIXTURE, type JsonPlan, lifecycle, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";
import { startProxy } from "./proxy.js";

interface Token {
  scopes: string[];
  expires_at?: string;
  username?: string;
}

const API = "/projects/acme%2Fplatform%2Fapi/deploy_tokens";
const ADDRESS = 'project["acme/platform/api"].deploy_token["registry pull"]';
const FILED = 'project["acme/platform/api"].deploy_token["registry files"]';
const sha = (t: string) => createHash("sha256").update(t).digest("hex");
/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

function manifest(t: Token | undefined, policy?: string, extra = "", name = "registry pull"): string {
  const body = t
    ? `      - name: ${name}\n        scopes: ${JSON.stringify(t.scopes)}\n${
        t.expires_at ? `        expires_at: "${t.expires_at}"\n` : ""
      }${t.username ? `        username: ${t.username}\n` : ""}${extra}`
    : "";
  return `version: 1
projects:
  acme/platform/api:
    deploy_tokens:${t ? "" : " []"}
${body}${policy ? `    unmanaged:\n      deploy_tokens: ${policy}\n` : ""}`;
}

describe("deploy tokens", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: {
        ...FIXTURE,
        projects: [...FIXTURE.projects, { path: "acme/platform/web" }],
        deploy_tokens: [
          { group: "acme", name: "old mirror", scopes: ["read_repository"], expires_at: "2020-01-01" },
          { group: "acme", name: "twice", scopes: ["read_repository"] },
          { group: "acme", name: "twice", scopes: ["read_registry"] },
        ],
      },
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** A 14.9+ platform in front of the sandbox: acme's list of tokens says of each what `state` says of it. */
  const newerPlatform = (state: (token: Record<string, unknown>) => { revoked: boolean; expired: boolean }) =>
    startProxy(bench.sandbox.url, (req, res) => {
      if (req.method !== "GET" || !/^\/api\/v4\/groups\/[^/]+\/deploy_tokens(\?|$)/.test(req.url ?? ""))
        return false;
      void bench.get<Record<string, unknown>[]>("/groups/acme/deploy_tokens").then((tokens) => {
        const newer = tokens.map((t) => ({ ...t, ...state(t) }));
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(newer));
      });
      return true;
    });

  /** The sandbox's own record of the tokens (it keeps a token's SHA-256 only). */
  const stored = () =>
    (
      bench.sandbox.store.data.areas["deploy_tokens"] as {
        tokens: { id: number; name: string; token_sha256: string }[];
      }
    ).tokens;

  it("replaces a token for every change, with the reason, and reads each one back", async () => {
    const base: Token = { scopes: ["read_repository"] };
    await lifecycle({
      bench,
      address: ADDRESS,
      render: (v, policy) => manifest(v, policy),
      base,
      edits: [
        { values: { scopes: ["read_registry", "read_repository"] }, fields: ["scopes"], action: "replace" },
        {
          values: { scopes: ["read_registry", "read_repository"], expires_at: "2031-06-30" },
          fields: ["expires_at"],
          action: "replace",
        },
        {
          values: {
            scopes: ["read_registry", "read_repository"],
            expires_at: "2031-06-30",
            username: "ci-puller",
          },
          fields: ["username"],
          action: "replace",
        },
      ],
      without: (policy) => manifest(undefined, policy),
      read: async () =>
        (await bench.get<Record<string, unknown>[]>(API)).filter((t) => t["name"] === "registry pull"),
      expected: (v) => ({
        // The platform lists scopes in its own order; the manifest's order does not matter.
        scopes: ["read_repository", "read_registry"].filter((s) => v.scopes.includes(s)),
        expires_at: v.expires_at ? `${v.expires_at}T00:00:00.000Z` : null,
        ...(v.username ? { username: v.username } : {}),
      }),
    });
    // The reason is the platform's: no update call.
    await apply(bench, bench.manifest(manifest({ scopes: ["read_registry"] })));
    const plan = await planJson(bench, bench.manifest(manifest({ scopes: ["write_registry"] })));
    expect(plan.changes.find((c) => c.address === ADDRESS)?.reason).toBe(
      "deploy tokens have no update call in the API: deleted and created again, with a new token; the new token is not recorded (no token_file): the platform shows a deploy token once, when it is made, and forgeform shows it nowhere",
    );
  });

  it("writes the new token to token_file only (mode 0600), never over an existing file, and says how to rotate", async () => {
    const tokenFile = join(bench.dir, "secrets", "registry.token");
    const file = bench.manifest(
      manifest(
        { scopes: ["read_registry"] },
        "ignore",
        "        token_file: secrets/registry.token\n",
        "registry files",
      ),
      "tokens.yaml",
    );
    const plan = await bench.cli(["plan", file]);
    expect(prose(plan.out)).toContain(
      `the new token is written to ${tokenFile} (mode 0600) and shown nowhere else`,
    );
    const created = await bench.cli(["apply", "--yes", file]);
    expect(created.code, created.out + created.err).toBe(0);
    const token = readFileSync(tokenFile, "utf8").trim();
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    const first = stored().find((t) => t.name === "registry files")!;
    expect(first.token_sha256).toBe(sha(token));
    expect(created.out + created.err).not.toContain(token);
    await expectNoChanges(bench, file);

    // A change replaces the token, and the file holds the one being replaced: refused, nothing done.
    const changed = bench.manifest(
      manifest(
        { scopes: ["read_registry", "read_repository"] },
        "ignore",
        "        token_file: secrets/registry.token\n",
        "registry files",
      ),
      "tokens.yaml",
    );
    const refused = await bench.cli(["apply", "--yes", changed]);
    expect(refused.code).toBe(1);
    expect(prose(refused.out + refused.err)).toContain(
      `${FILED}.token_file: token_file ${tokenFile} already exists: forgeform writes a deploy token only to a new file (the platform shows a deploy token once, when it is made, so an earlier token in a file cannot be told from anything else), never over anything else; remove the file or name another one (this replacement makes a new token; the one in the file stops working when the old deploy token is deleted)`,
    );
    expect(stored().find((t) => t.name === "registry files")?.id).toBe(first.id);
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(token);
    // --replace (a rotation) is refused the same way.
    const rotate = await bench.cli(["plan", "--replace", FILED, file]);
    expect(rotate.code).toBe(1);
    expect(prose(rotate.out + rotate.err)).toContain(`token_file ${tokenFile} already exists`);

    // With the old file removed, the replacement writes the new token there.
    rmSync(tokenFile);
    const replaced = await bench.cli(["apply", "--yes", changed]);
    expect(replaced.code, replaced.out + replaced.err).toBe(0);
    const renewed = readFileSync(tokenFile, "utf8").trim();
    expect(renewed).not.toBe(token);
    const second = stored().find((t) => t.name === "registry files")!;
    expect(second.id).not.toBe(first.id);
    expect(second.token_sha256).toBe(sha(renewed));
    expect(stored().some((t) => t.token_sha256 === sha(token))).toBe(false);
    expect(replaced.out + replaced.err).not.toContain(renewed);

    // Over a file that is not a token either: refused before anything is created.
    const other = join(bench.dir, "notes.txt");
    writeFileSync(other, "keep me\n");
    const taken = bench.manifest(
      `version: 1\nprojects:\n  acme/platform/api:\n    deploy_tokens:\n      - { name: other, scopes: [read_repository], token_file: notes.txt }\n`,
      "taken.yaml",
    );
    const planned = await bench.cli(["plan", taken]);
    expect(planned.code).toBe(1);
    expect(prose(planned.out)).toContain(
      `project["acme/platform/api"].deploy_token["other"].token_file: token_file ${other} already exists: forgeform writes a deploy token only to a new file`,
    );
    expect((await bench.cli(["apply", "--yes", taken])).code).toBe(1);
    expect(readFileSync(other, "utf8")).toBe("keep me\n");
    expect(stored().some((t) => t.name === "other")).toBe(false);
  });

  it("one token_file for several new tokens (a template's, a pattern's, a trigger's too): a plan error at each, nothing made", async () => {
    const tokenFile = join(bench.dir, "secrets", "shared.token");
    const cases = [
      // A template two entries extend: each project gets the token, and the same file.
      `version: 1
templates:
  std:
    deploy_tokens: [{ name: shared, scopes: [read_registry], token_file: secrets/shared.token }]
projects:
  acme/platform/api: { extends: [std] }
  acme/platform/web: { extends: [std] }
`,
      // A pattern over both projects.
      `version: 1
projects:
  "acme/platform/*":
    deploy_tokens: [{ name: shared, scopes: [read_registry], token_file: secrets/shared.token }]
`,
      // A trigger's file named by a deploy token too.
      `version: 1
projects:
  acme/platform/api:
    deploy_tokens: [{ name: shared, scopes: [read_registry], token_file: secrets/shared.token }]
    triggers: [{ description: shared, token_file: secrets/shared.token }]
`,
    ];
    const addresses = [
      [
        'project["acme/platform/api"].deploy_token["shared"]',
        'project["acme/platform/web"].deploy_token["shared"]',
      ],
      [
        'project["acme/platform/api"].deploy_token["shared"]',
        'project["acme/platform/web"].deploy_token["shared"]',
      ],
      [
        'project["acme/platform/api"].deploy_token["shared"]',
        'project["acme/platform/api"].trigger["shared"]',
      ],
    ];
    for (const [i, text] of cases.entries()) {
      const file = bench.manifest(text, `shared${i}.yaml`);
      const run = await bench.cli(["plan", "--format", "json", file]);
      expect(run.code, run.err).toBe(1);
      const plan = JSON.parse(run.out) as JsonPlan;
      expect(plan.errors.map((e) => e.address).sort(), text).toEqual(
        addresses[i]!.map((a) => `${a}.token_file`),
      );
      for (const [j, error] of plan.errors.entries())
        expect(error.message).toBe(
          `${tokenFile} is the token_file of ${addresses[i]![1 - j]} too: what one object writes there would take the place of what another did (a token shown once, lost); name a file of its own for each (a template or a pattern gives every object it reaches the same one)`,
        );
      const refused = await bench.cli(["apply", "--yes", file]);
      expect(refused.code).toBe(1);
      expect(existsSync(tokenFile)).toBe(false);
      expect(stored().some((t) => t.name === "shared")).toBe(false);
    }
  });

  it("without token_file records the token nowhere and says so", async () => {
    const file = bench.manifest(
      "version: 1\nprojects:\n  acme/platform/api:\n    deploy_tokens:\n      - { name: plain, scopes: [read_repository] }\n",
      "plain.yaml",
    );
    const plan = await bench.cli(["plan", file]);
    expect(prose(plan.out)).toContain(
      "the new token is not recorded (no token_file): the platform shows a deploy token once, when it is made, and forgeform shows it nowhere",
    );
    await apply(bench, file);
    expect(existsSync(join(bench.dir, "registry.token"))).toBe(false);
  });

  it("reports an expired token as such, declared or not, and warns of a token made already expired", async () => {
    const declared = bench.manifest(`version: 1
groups:
  acme:
    deploy_tokens:
      - { name: old mirror, scopes: [read_repository], expires_at: 2020-01-01 }
      - { name: new, scopes: [read_repository], expires_at: 2021-03-04 }
      - { name: twice, scopes: [read_registry] }
`);
    const run = await bench.cli(["plan", "--format", "json", declared]);
    const plan = JSON.parse(run.out) as {
      warnings: { address: string; message: string }[];
      changes: { address: string; action: string }[];
    };
    expect(plan.warnings).toEqual(
      expect.arrayContaining([
        {
          address: 'group["acme"].deploy_token["old mirror"]',
          message: expect.stringContaining(
            "this deploy token is expired (expires_at 2020-01-01): it no longer works. A later expires_at replaces it with a new token",
          ) as string,
          source: expect.anything() as unknown,
        },
        {
          address: 'group["acme"].deploy_token["new"].expires_at',
          message: "expires_at is before today: a token made now is expired at once",
          source: expect.objectContaining({ line: 6 }) as unknown,
        },
        {
          address: 'group["acme"].deploy_token["twice"]',
          message: expect.stringContaining(
            '2 live deploy tokens are named "twice": forgeform manages the newest that works',
          ) as string,
          source: expect.anything() as unknown,
        },
      ]),
    );
    // Only the token to be made is said to be born expired: not the live one that expired already (its own warning
    // says so), nor one without an expiry.
    expect(
      plan.warnings.filter((w) => w.message.startsWith("expires_at is before today")).map((w) => w.address),
    ).toEqual(['group["acme"].deploy_token["new"].expires_at']);
    // Only the name two live tokens share is said to have namesakes: not the group's other tokens.
    expect(
      plan.warnings.filter((w) => w.message.includes("live deploy tokens are named")).map((w) => w.address),
    ).toEqual(['group["acme"].deploy_token["twice"]']);
    // The newest of the namesakes (read_registry) is the one compared: nothing to change there.
    const tokens = plan.changes.filter((c) => c.address.includes("deploy_token"));
    expect(tokens.map((c) => `${c.action} ${c.address}`)).toEqual([
      'create group["acme"].deploy_token["new"]',
    ]);
    // The drift report says it too, without failing for it.
    const drift = await bench.cli(["drift", "--format", "json", declared]);
    expect(drift.code).toBe(2);
    expect(drift.out).toContain("this deploy token is expired (expires_at 2020-01-01)");

    // Undeclared: its unmanaged entry says it.
    const undeclared = bench.manifest(
      "version: 1\ngroups:\n  acme:\n    deploy_tokens: []\n",
      "undeclared.yaml",
    );
    const text = await bench.cli(["plan", undeclared]);
    expect(prose(text.out)).toContain(
      '! group["acme"].deploy_token["old mirror"] unmanaged (not in the manifests, left alone) not in the manifests (prune policy warn: left alone; set unmanaged.deploy_tokens to delete or ignore); this token is expired (expires_at 2020-01-01)',
    );
  });

  it("reads revoked and expired where a newer platform gives them", async () => {
    const proxy = await newerPlatform((t) => ({
      revoked: t["name"] === "twice" && (t["scopes"] as string[]).includes("read_registry"),
      expired: false,
    }));
    try {
      const file = bench.manifest(
        "version: 1\ngroups:\n  acme:\n    deploy_tokens:\n      - { name: twice, scopes: [read_registry] }\n      - { name: old mirror, scopes: [read_repository], expires_at: 2020-01-01 }\n",
        "newer.yaml",
      );
      const run = await bench.cli(["plan", "--format", "json", file], { FORGEFORM_URL: proxy.url });
      const plan = JSON.parse(run.out) as {
        warnings: { address: string; message: string }[];
        changes: { address: string; action: string; fields: { field: string }[] }[];
      };
      // The revoked namesake is not the one managed: the working one (read_repository) is, and differs.
      const tokens = plan.changes.filter((c) => c.address.includes("deploy_token"));
      expect(tokens.map((c) => [c.address, c.action, c.fields.map((f) => f.field)])).toEqual([
        ['group["acme"].deploy_token["twice"]', "replace", ["scopes"]],
      ]);
      // The platform says the old one is not expired (its word wins over the date).
      expect(plan.warnings.map((w) => w.message).join("\n")).not.toContain("expired");
      // Only the revoked one: the one managed works.
      const revokedOnly = bench.manifest(
        "version: 1\ngroups:\n  acme:\n    deploy_tokens:\n      - { name: twice, scopes: [read_registry] }\n",
        "revoked.yaml",
      );
      const stored = (
        bench.sandbox.store.data.areas["deploy_tokens"] as { tokens: { name: string; scopes: string[] }[] }
      ).tokens;
      const keep = stored.filter((t) => !(t.name === "twice" && t.scopes.includes("read_repository")));
      (bench.sandbox.store.data.areas["deploy_tokens"] as { tokens: unknown[] }).tokens = keep;
      const again = JSON.parse(
        (await bench.cli(["plan", "--format", "json", revokedOnly], { FORGEFORM_URL: proxy.url })).out,
      ) as { warnings: { message: string }[] };
      expect(again.warnings.map((w) => w.message)).toEqual([
        expect.stringContaining("this deploy token is revoked on the platform: it no longer works"),
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("takes a token that expires today as working, and one that expired yesterday as expired", async () => {
    // The platform's `expires_at < Date.today`, in UTC: the clock is set to the middle of a day.
    vi.useFakeTimers({ toFake: ["Date"], now: Date.parse("2026-06-15T12:00:00Z") });
    try {
      const file = bench.manifest(`version: 1
groups:
  acme:
    deploy_tokens:
      - { name: today, scopes: [read_repository], expires_at: 2026-06-15 }
      - { name: yesterday, scopes: [read_repository], expires_at: "2026-06-14T23:59:59Z" }
    unmanaged: { deploy_tokens: ignore }
`);
      const plan = (await planJson(bench, file)) as JsonPlan & {
        warnings: { address: string; message: string }[];
      };
      expect(plan.warnings.map((w) => [w.address, w.message])).toEqual([
        [
          'group["acme"].deploy_token["yesterday"].expires_at',
          "expires_at is before today: a token made now is expired at once",
        ],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("says of a working token changed to a past expiry that the new one is expired at once", async () => {
    const dated = (expires?: string, extra = "") =>
      bench.manifest(
        manifest(
          { scopes: ["read_repository"], ...(expires ? { expires_at: expires } : {}) },
          "ignore",
          extra,
          "dated",
        ),
        "dated.yaml",
      );
    await apply(bench, dated());
    const plan = (await planJson(bench, dated("2020-06-30"))) as JsonPlan & {
      warnings: { address: string; message: string }[];
    };
    expect(plan.changes.find((c) => c.address.endsWith('deploy_token["dated"]'))?.action).toBe("replace");
    expect(plan.warnings.map((w) => [w.address, w.message])).toEqual([
      [
        'project["acme/platform/api"].deploy_token["dated"].expires_at',
        "expires_at is before today: a token made now is expired at once",
      ],
    ]);
    await apply(bench, dated(undefined, "        state: absent\n"));
  });

  it("reports a token the platform says is expired", async () => {
    // The platform judges the expiry itself, and says so.
    const proxy = await newerPlatform((t) => ({ revoked: false, expired: t["name"] === "old mirror" }));
    try {
      const file = bench.manifest(
        "version: 1\ngroups:\n  acme:\n    deploy_tokens:\n      - { name: old mirror, scopes: [read_repository], expires_at: 2020-01-01 }\n",
        "expired.yaml",
      );
      const run = await bench.cli(["plan", "--format", "json", file], { FORGEFORM_URL: proxy.url });
      const plan = JSON.parse(run.out) as { warnings: { address: string; message: string }[] };
      expect(plan.warnings.map((w) => [w.address, w.message.split(":")[0]])).toEqual([
        ['group["acme"].deploy_token["old mirror"]', "this deploy token is expired (expires_at 2020-01-01)"],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("refuses a scope the platform does not know, and a username it would refuse, at validate", async () => {
    const file = bench.manifest(
      "version: 1\nprojects:\n  acme/platform/api:\n    deploy_tokens:\n      - { name: x, scopes: [read_api], username: 'a b' }\n      - { name: y, scopes: [], expires_at: 2027-02-30 }\n",
      "bad.yaml",
    );
    const r = await bench.cli(["validate", file]);
    expect(r.code).toBe(1);
    const text = prose(r.out + r.err);
    expect(text).toContain('deploy_tokens[0].scopes[0]: "read_api" is not one of: read_repository');
    expect(text).toContain(
      `deploy_tokens[0].username: "a b" may contain only letters, digits, '_', '-', '+' and '.'`,
    );
    expect(text).toContain("deploy_tokens[1].scopes: must have at least 1 entry");
    expect(text).toContain('deploy_tokens[1].expires_at: "2027-02-30" is not a date or a date and time');
  });
});
