/**
 * A full plan of a large estate is made in chunks of top-level trees (src/cli/chunks.ts). Forced to chunks of one
 * tree each (FORGEFORM_CHUNK_UNITS=1), it must be the plan one walk of everything makes, to the byte (but for when
 * it was made and its request statistics, whose total must be the same too), with the same diagnostics; and
 * manifests found invalid in a later chunk are reported as a whole load reports them, and nothing is written.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chunkingOf } from "../../src/cli/chunks.js";
import { type PlanOutcome, planFromManifests } from "../../src/cli/workflow.js";
import type { Shard } from "../../src/engine/shard.js";
import { ADMIN_TOKEN, Bench, withEnv } from "./helpers.js";

/** A salt for the secrets fingerprint, so that two plans' fingerprints compare. */
const SALT = Buffer.alloc(16, 7).toString("base64");

const instanceFile = (policy: string) => `version: 1
templates:
  base:
    description: from the template
    visibility: private
  unused:
    description: no entry extends it
instance:
  unmanaged:
    groups: ${policy}
  application_settings:
    signup_enabled: false
    allow_local_requests_from_hooks_and_services: false
    # A group another chunk declares: its id is known from the groups' read, as in one walk.
    performance_bar_allowed_group_path: omega
`;

/** Several top-level trees over several files: templates across files, shares across trees, creates and deletes. */
const FILES: Record<string, string> = {
  "10-alpha.yaml": `version: 1
groups:
  alpha:
    extends: [base]
    shared_with_groups:
      - { group: newg, group_access: developer }
  alpha/deep:
    description: a declared subgroup
projects:
  alpha/api:
    extends: [base]
    description: changed
    shared_with_groups:
      - { group: beta, group_access: reporter }
`,
  "20-beta.yaml": `version: 1
groups:
  beta/sub:
    description: sub of beta, declared before beta
  beta:
    extends: [base]
  beta/fresh:
    description: created by the plan
  beta/sub/in-sync:
    description: as declared
projects:
  beta/sub/web:
    description: web
    unchecked: { zz_new_setting: 1 }
  beta/fresh/svc:
    description: created in a group the plan creates
`,
  "30-newg.yaml": `version: 1
groups:
  newg:
    description: created by the plan, shared with by alpha
  vis:
    visibility: internal
  gamma:
    state: absent
projects:
  ext/tool:
    description: a project in a group the manifests do not declare
  ext/tol:
    description: one letter from ext/tool
  nowhere/proj:
    description: its group does not exist
  vis/app:
    description: raised with its group, which the same plan raises first
    visibility: internal
`,
  "40-more.yaml": `version: 1
groups:
  omega:
    extends: [base]
  omega/one/two:
    description: below a group that does not exist and is not declared
  omega/tools:
    description: a new group named as one inside another tree of the manifests (a likely move)
projects:
  omega/app:
    extends: [base]
    # Settings newer than the schema, in another order than beta/sub/web's, one the platform shows (empty_repo):
    # each project is read for its own, and one's digest holds only those its entry sets.
    unchecked: { aa_new_setting: 1, empty_repo: false, zz_new_setting: 1 }
`,
};

const fixture = {
  groups: [
    { path: "alpha", visibility: "private" },
    { path: "alpha/deep", visibility: "private" },
    { path: "alpha/old", visibility: "private" },
    { path: "alpha/deep/older", visibility: "private" },
    { path: "alpha/tools", visibility: "private" },
    { path: "beta", visibility: "private" },
    { path: "beta/sub", visibility: "private" },
    { path: "beta/zz", visibility: "private" },
    { path: "beta/aa", visibility: "private" },
    { path: "gamma", visibility: "private" },
    { path: "gamma/inner", visibility: "private" },
    { path: "gamma/inner/innermost", visibility: "private" },
    { path: "ext", visibility: "private" },
    { path: "omega", visibility: "private" },
    { path: "vis", visibility: "private" },
    { path: "beta/sub/in-sync", visibility: "private", description: "as declared" },
  ],
  projects: [
    { path: "alpha/api" },
    { path: "beta/sub/web" },
    { path: "gamma/p" },
    { path: "gamma/inner/q" },
    { path: "ext/tool" },
    { path: "omega/app" },
    { path: "vis/app" },
  ],
};

/** `count` more top-level groups, each with an undeclared subgroup: more than 20 groups are read in one listing. */
function manyGroups(count: number): {
  file: string;
  groups: { path: string; visibility: string; description?: string }[];
} {
  const lines = ["version: 1", "groups:"];
  const groups: { path: string; visibility: string; description?: string }[] = [];
  for (let i = 0; i < count; i++) {
    const name = `g${String(i).padStart(2, "0")}`;
    lines.push(`  ${name}:`, `    description: group ${i}`);
    // Half of them as declared: in sync.
    const description = i % 2 === 0 ? `group ${i}` : "";
    groups.push(
      { path: name, visibility: "private", description },
      { path: `${name}/undeclared`, visibility: "private" },
    );
  }
  return { file: `${lines.join("\n")}\n`, groups };
}

function writeEstate(
  dir: string,
  policy: string,
  extra: Record<string, string> = {},
  instanceAt = "00-instance.yaml",
): string {
  const root = join(dir, `estate-${policy}-${Object.keys(extra).length}-${instanceAt}`);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, instanceAt), instanceFile(policy));
  for (const [name, text] of Object.entries({ ...FILES, ...extra })) writeFileSync(join(root, name), text);
  return root;
}

async function plan(
  bench: Bench,
  root: string,
  units: string,
  replace: string[] = [],
  shard?: Shard,
): Promise<PlanOutcome> {
  return withEnv({ FORGEFORM_CHUNK_UNITS: units }, async () => {
    const request = {
      paths: [root],
      connection: { url: bench.sandbox.url, token: ADMIN_TOKEN },
      backupDir: join(root, "backups"),
      fingerprintSalt: SALT,
      ...(replace.length > 0 ? { replace } : {}),
      ...(shard ? { shard } : {}),
    };
    // Planned in chunks of one top-level tree each, or in one walk.
    const chunks = chunkingOf(request, [root], [])?.layout.chunks.length ?? 0;
    if (units === "1") expect(chunks).toBeGreaterThanOrEqual(shard ? 2 : 8);
    else expect(chunks).toBe(0);
    const outcome = await planFromManifests(request);
    // Every chunk walked (not the one walk chunks fall back to when they find what a whole load does not).
    if (outcome.result) expect(outcome.chunks).toBe(chunks > 0 ? chunks : undefined);
    await outcome.api?.close();
    return outcome;
  });
}

/** What must be the same of two plans: all of it but when it was made and its request statistics. */
function comparable(outcome: PlanOutcome): string {
  const result = outcome.result!;
  const { createdAt: _, requests: __, ...plan } = result.plan;
  return JSON.stringify({ plan, inSync: result.inSync, diagnostics: outcome.diagnostics }, null, 1);
}

describe("a plan made in chunks", () => {
  let bench: Bench | undefined;
  afterEach(async () => {
    await bench?.stop();
    bench = undefined;
  });

  // The instance's settings declared first (in the first chunk) or last (in the last chunk): one walk plans them
  // between the groups and the projects either way.
  const cases = [
    ...["warn", "delete"].flatMap((policy) =>
      [0, 22].map((many) => ({ policy, many, instanceAt: "00-instance.yaml" })),
    ),
    { policy: "warn", many: 0, instanceAt: "99-instance.yaml" },
  ];
  for (const { policy, many, instanceAt } of cases) {
    it(`is the plan one walk makes (unmanaged groups: ${policy}, ${many > 0 ? "groups listed" : "groups read one by one"}, ${instanceAt})`, async () => {
      const extra = many > 0 ? manyGroups(many) : undefined;
      bench = await Bench.start({
        fixture: { ...fixture, groups: [...fixture.groups, ...(extra?.groups ?? [])] },
      });
      const root = writeEstate(bench.dir, policy, extra ? { "50-many.yaml": extra.file } : {}, instanceAt);
      // --replace of the instance's settings: met by the last chunk alone when the instance is declared last.
      const replace = instanceAt === "99-instance.yaml" ? ["instance.application_settings"] : [];
      const whole = await plan(bench, root, "0", replace);
      const chunked = await plan(bench, root, "1", replace);
      expect(whole.result, JSON.stringify(whole.diagnostics)).toBeDefined();
      expect(chunked.result).toBeDefined();
      expect(comparable(chunked)).toBe(comparable(whole));
      expect(chunked.result!.plan.requests.total).toBe(whole.result!.plan.requests.total);
      expect(chunked.result!.plan.requests.byEndpoint).toEqual(whole.result!.plan.requests.byEndpoint);
      expect(chunked.result!.steps.map((s) => s.deps)).toEqual(whole.result!.steps.map((s) => s.deps));

      // What the estate holds, so that the comparison means something.
      const p = whole.result!.plan;
      const actions = new Map(p.changes.map((c) => [c.address, c.action]));
      expect(actions.get('group["newg"]')).toBe("create");
      expect(actions.get('group["beta/fresh"]')).toBe("create");
      expect(actions.get('project["alpha/api"]')).toBe("update");
      expect(actions.get('group["gamma"]')).toBe("delete");
      expect(actions.get('group["gamma/inner/innermost"]')).toBe("delete");
      expect(actions.get('group["alpha/old"]')).toBe("unmanaged");
      expect(actions.get('group["alpha/deep/older"]')).toBe("unmanaged");
      // A project raised with its group: allowed, for the group's planned visibility, not its live one.
      expect(actions.get('group["vis"]')).toBe("update");
      expect(actions.get('project["vis/app"]')).toBe("update");
      // The instance's settings come after every group's step and before every project's.
      const at = (address: string) => p.changes.findIndex((c) => c.address === address);
      const settings = at("instance.application_settings");
      expect(settings).toBeGreaterThan(at('group["vis"]'));
      expect(settings).toBeLessThan(at('project["alpha/api"]'));
      if (many > 0) expect(actions.get('group["g21/undeclared"]')).toBe("unmanaged");
      // The share of alpha with newg, which another chunk creates, waits for its create.
      const share = p.changes.find((c) => c.address === 'group["alpha"].share["newg"]');
      expect(share?.action).toBe("create");
      expect(whole.result!.steps.find((s) => s.change.address === share?.address)?.deps).toContain(
        'group["newg"]',
      );
      expect(p.errors.map((e) => e.address)).toEqual(
        expect.arrayContaining(['project["nowhere/proj"]', 'group["omega/one/two"]', 'group["omega/tools"]']),
      );
      expect(p.warnings.map((w) => w.address)).toContain('project["ext/tol"]');
      expect(whole.diagnostics.map((d) => d.message)).toContain(
        'template "unused" is not used by any extends',
      );
      expect(whole.result!.inSync).toContain('group["beta/sub/in-sync"]');
      if (many > 0) expect(whole.result!.inSync).toContain('group["g20"]');
    });
  }

  it("of a shard (--shard K/3) is the plan one walk of the shard makes, and the shards' plans make the whole", async () => {
    const extra = manyGroups(22);
    bench = await Bench.start({ fixture: { ...fixture, groups: [...fixture.groups, ...extra.groups] } });
    const root = writeEstate(bench.dir, "delete", { "50-many.yaml": extra.file });
    const whole = await plan(bench, root, "0");
    const covered: string[] = [];
    for (let index = 1; index <= 3; index++) {
      const shard = { index, count: 3 };
      const one = await plan(bench, root, "0", [], shard);
      const chunked = await plan(bench, root, "1", [], shard);
      expect(one.result, JSON.stringify(one.diagnostics)).toBeDefined();
      expect(comparable(chunked)).toBe(comparable(one));
      expect(chunked.result!.plan.requests.byEndpoint).toEqual(one.result!.plan.requests.byEndpoint);
      expect(chunked.result!.steps.map((s) => s.deps)).toEqual(one.result!.steps.map((s) => s.deps));
      // The plan names the shard's share, and holds only its trees' changes.
      const units = chunked.result!.plan.shard!.units;
      expect(units.length).toBeGreaterThan(1);
      for (const change of chunked.result!.plan.changes) {
        const path = /^(?:group|project)\["([^"/]+)/.exec(change.address)?.[1];
        expect(units).toContain(path ?? "instance");
      }
      covered.push(...chunked.result!.plan.changes.map((c) => c.address));
      // alpha's share with newg, which another shard creates: that group does not exist for alpha's shard.
      if (units.includes("alpha") && !units.includes("newg"))
        expect(chunked.result!.plan.errors.map((e) => e.address)).toContain(
          'group["alpha"].share["newg"].group',
        );
    }
    // Every change of the whole plan is in exactly one shard's (but that share).
    const share = 'group["alpha"].share["newg"]';
    expect(covered.sort()).toEqual(
      whole
        .result!.plan.changes.map((c) => c.address)
        .filter((a) => a !== share || covered.includes(a))
        .sort(),
    );
  });

  it("of a shard reports what one walk of the shard reports: the invalid tree in its share only, and writes nothing", async () => {
    const writes: string[] = [];
    bench = await Bench.start({
      fixture,
      onRequest: (method, path) => {
        if (method !== "GET") writes.push(`${method} ${path}`);
      },
    });
    const root = writeEstate(bench.dir, "warn", {
      "90-invalid.yaml": "version: 1\ngroups:\n  zulu:\n    visibility: everyone\n",
    });
    const failed: boolean[] = [];
    for (let index = 1; index <= 2; index++) {
      const shard = { index, count: 2 };
      const one = await plan(bench, root, "0", [], shard);
      const chunked = await plan(bench, root, "1", [], shard);
      expect(chunked.diagnostics).toEqual(one.diagnostics);
      expect(chunked.result === undefined).toBe(one.result === undefined);
      const invalid = chunked.diagnostics.filter((d) => d.severity === "error");
      // The shard that owns zulu reports it; the other one does not parse zulu's entry, and plans.
      if (chunked.result) expect(invalid).toEqual([]);
      else expect(invalid.map((d) => `${basename(d.file)}:${d.line}`)).toContain("90-invalid.yaml:4");
      failed.push(chunked.result === undefined);
    }
    expect(failed.filter(Boolean)).toHaveLength(1);
    expect(writes).toEqual([]);
  });

  it("is not made with --debug: a secret a later chunk declares is masked in the debug lines of every read", async () => {
    bench = await Bench.start({ fixture });
    // omega's tree is planned after alpha's; the secret's value is also alpha's path, in alpha's requests.
    const root = writeEstate(bench.dir, "warn", {
      "40-more.yaml": FILES["40-more.yaml"]!.replace(
        "    extends: [base]\n",
        `    extends: [base]\n    variables:\n      - { key: DEPLOY, value: "\${env:FF_CHUNK_SECRET}", masked: false }\n`,
      ),
    });
    const run = await bench.cli(["plan", "--debug", root], {
      FORGEFORM_CHUNK_UNITS: "1",
      FF_CHUNK_SECRET: "alpha",
    });
    // The plan is shown (with the estate's plan errors: exit 1).
    expect(run.out, run.err).toContain('group["newg"] will be created');
    // The reads of alpha's tree were made (masked), and its path never shows.
    expect(run.err).toMatch(/GET \/api\/v4\/groups\/\[REDACTED\]\?/);
    expect(run.err).not.toMatch(/alpha/i);
    expect(run.out).not.toMatch(/alpha/i);
  });

  const invalidFiles: Record<string, [string, string]> = {
    "a later chunk": [
      "90-invalid.yaml",
      "version: 1\ngroups:\n  zulu:\n    visibility: everyone\n    no_such_key: 1\n",
    ],
    "a file no chunk reads": ["95-templates.yaml", "version: 1\ntemplates:\n  broken:\n    no_such_key: 1\n"],
  };
  for (const [where, [name, text]] of Object.entries(invalidFiles)) {
    it(`reports manifests invalid in ${where} as a whole load does, and writes nothing`, async () => {
      const writes: string[] = [];
      bench = await Bench.start({
        fixture,
        onRequest: (method, path) => {
          if (method !== "GET") writes.push(`${method} ${path}`);
        },
      });
      const root = writeEstate(bench.dir, "warn", { [name]: text });
      const whole = await plan(bench, root, "0");
      const chunked = await plan(bench, root, "1");
      expect(whole.result).toBeUndefined();
      expect(chunked.result).toBeUndefined();
      expect(chunked.diagnostics).toEqual(whole.diagnostics);
      expect(chunked.files).toEqual(whole.files);
      expect(whole.diagnostics.some((d) => d.severity === "error" && d.file.endsWith(name))).toBe(true);

      const apply = await bench.cli(["apply", "--yes", root], { FORGEFORM_CHUNK_UNITS: "1" });
      expect(apply.code).toBe(1);
      expect(apply.err).toContain(`${name}:4:`);
      expect(writes).toEqual([]);
    });
  }
});
