/**
 * CI/CD variables of the instance, groups and projects, over HTTP against the sandbox: the manifest of the issue
 * (one key in two environment scopes, a file variable, masked values from `${env:}`) applies, plans empty and
 * reads back through the API as declared; a change made out of band is drift (exit 2); no secret value (from
 * `${env:}`, or of a masked variable, live or declared) appears in any output. Then each kind's lifecycle, the
 * masking of live masked values, and the platform's rules where they differ between owners and editions.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  apply,
  expectChanges,
  expectNoChanges,
  FIXTURE,
  type JsonPlan,
  lifecycle,
  planJson,
} from "./cycle.js";
import { Bench } from "./helpers.js";

/** Values of the manifest's references: each must be nowhere in any output. */
const ENV = {
  DEPLOY_TOKEN: "dT0ken-Secret-1",
  SIGNING_KEY: "s1gning+Key/2=",
  INSTANCE_TOKEN: "Inst-Masked-Value3",
};
/** A masked value set on the platform out of band, and a masked variable the manifest never mentions. */
const OUT_OF_BAND = "0utOfBand-Masked-4";
const UNMANAGED_MASKED = "Legacy-Masked-Value5";

const fixture = {
  ...FIXTURE,
  ci_variables: [
    { project: "acme/platform/api", key: "LEGACY_PASSWORD", value: UNMANAGED_MASKED, masked: true },
  ],
};

const CA = "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n";

/** The issue's manifest: instance, group and project variables. */
const MANIFEST = (policy: "warn" | "delete" = "warn") => `version: 1
instance:
  variables:
    - { key: REGISTRY_HOST, value: registry.acme.example }
    - { key: INSTANCE_TOKEN, value: "\${env:INSTANCE_TOKEN}", masked: true, protected: true }
  unmanaged: { groups: ignore }
groups:
  acme:
    variables:
      - { key: DEPLOY_ENV, value: shared }
      - { key: DEPLOY_ENV, value: production-eu, environment_scope: production }
      - key: CA_BUNDLE
        variable_type: file
        value: |
${CA.trimEnd()
  .split("\n")
  .map((l) => `          ${l}`)
  .join("\n")}
projects:
  acme/platform/api:
    variables:
      - { key: LOG_LEVEL, value: debug }
      - { key: LOG_LEVEL, value: warn, environment_scope: production }
      - { key: DEPLOY_TOKEN, value: "\${env:DEPLOY_TOKEN}", masked: true, environment_scope: production }
      - { key: SIGNING_KEY, value: "\${env:SIGNING_KEY}", masked: true, variable_type: file }
    unmanaged: { variables: ${policy} }
`;

type Variable = Record<string, unknown>;

const byKeyAndScope = (vs: Variable[]) =>
  [...vs].sort((a, b) =>
    `${String(a["key"])}#${String(a["environment_scope"])}` <
    `${String(b["key"])}#${String(b["environment_scope"])}`
      ? -1
      : 1,
  );

const API = "/projects/acme%2Fplatform%2Fapi/variables";

describe("the issue's manifest: instance, group and project variables", () => {
  let bench: Bench;
  let file: string;
  const outputs: [string, string][] = [];
  const run = async (name: string, args: string[], env: Record<string, string> = ENV) => {
    const r = await bench.cli(args, env);
    outputs.push([name, r.out + r.err]);
    return r;
  };

  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
    file = bench.manifest(MANIFEST());
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("applies, then plans no changes", async () => {
    const plan = await run("first plan", ["plan", file]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain('+ group["acme"].variable["DEPLOY_ENV#production"] will be created');
    expect(plan.out).toContain('+ instance.variable["INSTANCE_TOKEN"] will be created');
    // A masked value from ${env:} shows masked; a plain one as written; the live masked variable is unmanaged.
    expect(plan.out).toMatch(
      /variable\["DEPLOY_TOKEN#production"\] will be created\n(.*\n)*? +\+ value: \(sensitive\)/,
    );
    expect(plan.out).toContain('+ value: "warn"');
    expect(plan.out).toContain('! project["acme/platform/api"].variable["LEGACY_PASSWORD#*"] unmanaged');
    const applied = await run("apply --debug", ["apply", "--yes", "--debug", file]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out).toContain("Apply complete: 9 done, 0 failed, 0 skipped.");
    const again = await run("plan after apply", ["plan", "--detailed-exitcode", file]);
    expect(again.code, again.out + again.err).toBe(0);
    expect(again.out).toContain("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("left every variable as declared, read through the API directly", async () => {
    const fields = ["key", "value", "variable_type", "protected", "masked", "environment_scope"];
    const pick = (v: Variable) => Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, v[f]]));
    const base = { variable_type: "env_var", protected: false, masked: false };
    expect((await bench.get<Variable[]>("/admin/ci/variables?per_page=100")).map(pick)).toEqual([
      { ...base, key: "REGISTRY_HOST", value: "registry.acme.example" },
      { ...base, key: "INSTANCE_TOKEN", value: ENV.INSTANCE_TOKEN, masked: true, protected: true },
    ]);
    expect(byKeyAndScope((await bench.get<Variable[]>("/groups/acme/variables")).map(pick))).toEqual([
      { ...base, key: "CA_BUNDLE", value: CA, variable_type: "file", environment_scope: "*" },
      { ...base, key: "DEPLOY_ENV", value: "shared", environment_scope: "*" },
      { ...base, key: "DEPLOY_ENV", value: "production-eu", environment_scope: "production" },
    ]);
    expect(byKeyAndScope((await bench.get<Variable[]>(API)).map(pick))).toEqual([
      {
        ...base,
        key: "DEPLOY_TOKEN",
        value: ENV.DEPLOY_TOKEN,
        masked: true,
        environment_scope: "production",
      },
      { ...base, key: "LEGACY_PASSWORD", value: UNMANAGED_MASKED, masked: true, environment_scope: "*" },
      { ...base, key: "LOG_LEVEL", value: "debug", environment_scope: "*" },
      { ...base, key: "LOG_LEVEL", value: "warn", environment_scope: "production" },
      {
        ...base,
        key: "SIGNING_KEY",
        value: ENV.SIGNING_KEY,
        masked: true,
        variable_type: "file",
        environment_scope: "*",
      },
    ]);
  });

  it("shows a change made out of band as drift (exit 2) in every format, masked values masked", async () => {
    await bench.send("PUT", `${API}/LOG_LEVEL`, {
      value: "error",
      filter: { environment_scope: "production" },
    });
    await bench.send("PUT", `${API}/DEPLOY_TOKEN`, { value: OUT_OF_BAND });
    await bench.send("PUT", "/groups/acme/variables/CA_BUNDLE", { value: "not a certificate" });
    const text = await run("drift", ["drift", file]);
    expect(text.code, text.out + text.err).toBe(2);
    expect(text.out).toContain('~ project["acme/platform/api"].variable["LOG_LEVEL#production"]');
    // The platform's value is never shown (it may be a secret set by hand); the manifest's, written in clear, is.
    expect(text.out).toContain('value: (sensitive) -> "warn"');
    expect(text.out).toContain("value: (sensitive) -> (sensitive)");
    expect(text.out).toContain("Drift: 3 drifted, 0 missing, 1 unmanaged, 0 would be deleted.");
    const json = await run("drift json", ["drift", "--format", "json", file]);
    expect(json.code).toBe(2);
    const report = JSON.parse(json.out) as {
      drift: boolean;
      items: {
        address: string;
        status: string;
        fields: { field: string; live?: unknown; declared?: unknown }[];
      }[];
    };
    expect(report.drift).toBe(true);
    const drifted = report.items.filter((i) => i.status === "drifted");
    expect(drifted.map((i) => i.address).sort()).toEqual([
      'group["acme"].variable["CA_BUNDLE#*"]',
      'project["acme/platform/api"].variable["DEPLOY_TOKEN#production"]',
      'project["acme/platform/api"].variable["LOG_LEVEL#production"]',
    ]);
    expect(drifted.find((i) => i.address.includes("LOG_LEVEL"))!.fields).toEqual([
      expect.objectContaining({ field: "value", live: "(sensitive)", declared: "warn" }),
    ]);
    const token = drifted.find((i) => i.address.includes("DEPLOY_TOKEN"))!;
    expect(token.fields).toEqual([
      expect.objectContaining({ field: "value", live: "(sensitive)", declared: "(sensitive)" }),
    ]);
    for (const format of ["markdown", "junit"]) {
      const r = await run(`drift ${format}`, ["drift", "--format", format, file]);
      expect(r.code).toBe(2);
    }
    // Under prune policy delete, the masked variable nobody declares would be deleted: its value stays masked.
    const prune = bench.manifest(MANIFEST("delete"), "prune.yaml");
    const plan = await run("plan json prune", ["plan", "--format", "json", prune]);
    const del = (JSON.parse(plan.out) as JsonPlan).changes.find((c) => c.action === "delete")!;
    expect(del.address).toBe('project["acme/platform/api"].variable["LEGACY_PASSWORD#*"]');
    expect(del.fields).toContainEqual({ field: "value", before: "(sensitive)" });
    await run("plan markdown prune", ["plan", "--format", "markdown", prune]);
    const saved = join(bench.dir, "saved.json");
    await run("plan --out prune", ["plan", "--out", saved, prune]);
    outputs.push(["saved plan", readFileSync(saved, "utf8")]);
    // Applying puts every declared value back, and the next drift run is clean.
    const applied = await run("apply prune --debug", ["apply", "--yes", "--debug", prune]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const clean = await run("drift after", ["drift", prune]);
    expect(clean.code, clean.out).toBe(0);
    const live = await bench.get<Variable[]>(API);
    expect(live.find((v) => v["key"] === "DEPLOY_TOKEN")?.["value"]).toBe(ENV.DEPLOY_TOKEN);
    expect(live.some((v) => v["key"] === "LEGACY_PASSWORD")).toBe(false);
  });

  it("shows no secret value in any output", () => {
    // Values set on the platform by hand, unmasked, are never shown either: they may be secrets.
    const secrets = [...Object.values(ENV), OUT_OF_BAND, UNMANAGED_MASKED, "not a certificate"];
    expect(outputs.length).toBeGreaterThan(10);
    const hits = outputs.flatMap(([where, text]) =>
      secrets.filter((s) => text.includes(s)).map((s) => `${s} in ${where}`),
    );
    expect(hits).toEqual([]);
  });
});

interface Values {
  value: string;
  variable_type: "env_var" | "file";
  protected: boolean;
}

const BASE: Values = { value: "one", variable_type: "env_var", protected: false };
const EDITS = [
  { values: { ...BASE, value: "two" }, fields: ["value"] },
  { values: { ...BASE, value: "two", variable_type: "file" as const }, fields: ["variable_type"] },
  { values: { value: "two", variable_type: "file" as const, protected: true }, fields: ["protected"] },
];
const fieldsOf = (v: Values) =>
  `value: ${JSON.stringify(v.value)}, variable_type: ${v.variable_type}, protected: ${v.protected}`;

/** A manifest with one variable of an owner (`instance`, `groups:\n  acme`...), or none, under `policy`. */
function ownerManifest(owner: string, entry: string | undefined, policy = "warn"): string {
  const body = (indent: string, also = "") =>
    `${indent}variables:${entry ? `\n${indent}  - ${entry}` : " []"}\n${indent}unmanaged: { ${also}variables: ${policy} }\n`;
  if (owner === "instance") return `version: 1\ninstance:\n${body("  ", "groups: ignore, ")}`;
  return `version: 1\ninstance:\n  unmanaged: { groups: ignore }\n${owner}:\n${body("    ")}`;
}

describe("lifecycle of each owner's variables", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });
  const expected = (v: Values) => ({
    value: v.value,
    variable_type: v.variable_type,
    protected: v.protected,
  });

  it("a project variable in a scope: created, each field changed, left alone, pruned", async () => {
    const owner = "projects:\n  acme/platform/api";
    const entry = (v: Values) => `{ key: CYCLE, environment_scope: "review/*", ${fieldsOf(v)} }`;
    await lifecycle({
      bench,
      address: 'project["acme/platform/api"].variable["CYCLE#review/*"]',
      render: (v, policy) => ownerManifest(owner, entry(v), policy),
      base: BASE,
      edits: EDITS,
      without: (policy) => ownerManifest(owner, undefined, policy),
      read: async () => (await bench.get<Variable[]>(API)).filter((v) => v["key"] === "CYCLE"),
      expected: (v) => ({ ...expected(v), environment_scope: "review/*" }),
    });
  });

  it("a group variable", async () => {
    const owner = "groups:\n  acme";
    await lifecycle({
      bench,
      address: 'group["acme"].variable["CYCLE#*"]',
      render: (v, policy) => ownerManifest(owner, `{ key: CYCLE, ${fieldsOf(v)} }`, policy),
      base: BASE,
      edits: EDITS,
      without: (policy) => ownerManifest(owner, undefined, policy),
      read: async () =>
        (await bench.get<Variable[]>("/groups/acme/variables")).filter((v) => v["key"] === "CYCLE"),
      expected: (v) => ({ ...expected(v), environment_scope: "*" }),
    });
  });

  it("an instance variable", async () => {
    await lifecycle({
      bench,
      address: 'instance.variable["CYCLE"]',
      render: (v, policy) => ownerManifest("instance", `{ key: CYCLE, ${fieldsOf(v)} }`, policy),
      base: BASE,
      edits: EDITS,
      without: (policy) => ownerManifest("instance", undefined, policy),
      read: async () =>
        (await bench.get<Variable[]>("/admin/ci/variables")).filter((v) => v["key"] === "CYCLE"),
      expected,
    });
  });

  it("one key in two scopes of a project: each changed and deleted on its own (filter[environment_scope])", async () => {
    const owner = "projects:\n  acme/platform/api";
    const two = (star: string, prod: string | undefined) =>
      ownerManifest(
        owner,
        `{ key: TWO, value: ${star} }${prod === undefined ? "" : `\n      - { key: TWO, value: ${prod}, environment_scope: production }`}`,
        "delete",
      );
    const scopes = async () =>
      byKeyAndScope((await bench.get<Variable[]>(API)).filter((v) => v["key"] === "TWO")).map(
        (v) => `${String(v["environment_scope"])}=${String(v["value"])}`,
      );
    await apply(bench, bench.manifest(two("a", "b")));
    expect(await scopes()).toEqual(["*=a", "production=b"]);
    const changed = bench.manifest(two("a", "c"));
    expectChanges(await planJson(bench, changed), [
      {
        address: 'project["acme/platform/api"].variable["TWO#production"]',
        action: "update",
        fields: ["value"],
      },
    ]);
    await apply(bench, changed);
    expect(await scopes()).toEqual(["*=a", "production=c"]);
    const dropped = bench.manifest(two("a", undefined));
    expectChanges(await planJson(bench, dropped), [
      { address: 'project["acme/platform/api"].variable["TWO#production"]', action: "delete" },
    ]);
    await apply(bench, dropped);
    expect(await scopes()).toEqual(["*=a"]);
    await expectNoChanges(bench, dropped);
  });
});

describe("a masked variable's value is never shown, live or declared", () => {
  let bench: Bench;
  const LIVE = "Live-Masked-Value6";
  const WRITTEN = "Written-Plainly-7";
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: {
        ...FIXTURE,
        ci_variables: [{ project: "acme/platform/api", key: "HIDDEN", value: LIVE, masked: true }],
      },
    });
  });
  afterAll(async () => {
    await bench.stop();
  });
  const manifest = (fields: string) =>
    bench.manifest(
      `version: 1\nprojects:\n  acme/platform/api:\n    variables:\n      - { key: HIDDEN, ${fields} }\n`,
    );

  it("leaving masked out of the manifest keeps a live masked variable's values secret, the new one too", async () => {
    const file = manifest(`value: ${WRITTEN}`);
    const plan = await planJson(bench, file);
    expectChanges(plan, [
      { address: 'project["acme/platform/api"].variable["HIDDEN#*"]', action: "update", fields: ["value"] },
    ]);
    expect(plan.changes[0]!.fields[0]).toMatchObject({ before: "(sensitive)", after: "(sensitive)" });
    const text = await bench.cli(["plan", file]);
    expect(text.out).toContain("~ value: (sensitive) -> (sensitive)");
    const out = await apply(bench, file);
    for (const shown of [JSON.stringify(plan), text.out + text.err, out]) {
      expect(shown).not.toContain(LIVE);
      expect(shown).not.toContain(WRITTEN);
    }
    expect((await bench.get<Variable[]>(API))[0]).toMatchObject({ value: WRITTEN, masked: true });
    await expectNoChanges(bench, file);
  });

  it("keeps a live masked variable's new value secret in its own environment scope", async () => {
    // The live variable is known by key and scope: one masked in `production` makes the declared value of that
    // variable, in that scope, a secret too.
    const own = await Bench.start({
      fixture: {
        ...FIXTURE,
        ci_variables: [
          {
            project: "acme/platform/api",
            key: "SCOPED",
            value: LIVE,
            masked: true,
            environment_scope: "production",
          },
        ],
      },
    });
    try {
      const file = own.manifest(
        "version: 1\nprojects:\n  acme/platform/api:\n    variables:\n" +
          `      - { key: SCOPED, environment_scope: production, value: ${WRITTEN} }\n`,
      );
      const plan = await planJson(own, file);
      expectChanges(plan, [
        {
          address: 'project["acme/platform/api"].variable["SCOPED#production"]',
          action: "update",
          fields: ["value"],
        },
      ]);
      expect(plan.changes[0]!.fields[0]).toMatchObject({ before: "(sensitive)", after: "(sensitive)" });
      const text = await own.cli(["plan", file]);
      const out = await apply(own, file);
      for (const shown of [JSON.stringify(plan), text.out + text.err, out]) {
        expect(shown).not.toContain(LIVE);
        expect(shown).not.toContain(WRITTEN);
      }
      expect(await own.get<Variable[]>(API)).toMatchObject([
        { key: "SCOPED", value: WRITTEN, masked: true, environment_scope: "production" },
      ]);
    } finally {
      await own.stop();
    }
  });

  it("unmasking shows the new value as written, never the old one", async () => {
    const file = manifest("value: now-public, masked: false");
    const plan = await planJson(bench, file);
    expectChanges(plan, [
      {
        address: 'project["acme/platform/api"].variable["HIDDEN#*"]',
        action: "update",
        fields: ["masked", "value"],
      },
    ]);
    expect(plan.changes[0]!.fields.find((f) => f.field === "value")).toMatchObject({
      before: "(sensitive)",
      after: "now-public",
    });
    expect(JSON.stringify(plan)).not.toContain(WRITTEN);
    await apply(bench, file);
    expect((await bench.get<Variable[]>(API))[0]).toMatchObject({ value: "now-public", masked: false });
    await expectNoChanges(bench, file);
  });

  it("masking a value from a file shows it masked on both sides", async () => {
    writeFileSync(join(bench.dir, "hidden.txt"), "From-A-File-Value8\n");
    const file = manifest(`value: "\${file:hidden.txt}", masked: true`);
    const plan = await planJson(bench, file);
    expect(plan.changes[0]!.fields.find((f) => f.field === "value")).toMatchObject({
      before: "(sensitive)",
      after: "(sensitive)",
    });
    await apply(bench, file);
    expect((await bench.get<Variable[]>(API))[0]).toMatchObject({
      value: "From-A-File-Value8",
      masked: true,
    });
    await expectNoChanges(bench, file);
  });
});

describe("a value the manifests no longer name as a secret is never shown", () => {
  // Applied from ${env:} by an earlier commit, unmasked: the platform holds the secret in clear, and nothing in
  // the manifests of today says it is one.
  const TOKEN = "ghp-earlier-commit-secret";
  const manifest = (body: string) => `version: 1\nprojects:\n  acme/platform/api:\n${body}`;
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
    const first = bench.manifest(
      manifest(`    variables:\n      - { key: TOKEN, value: "\${env:TOKEN}" }\n`),
    );
    const applied = await bench.cli(["apply", "--yes", first], { TOKEN });
    expect(applied.code, applied.out + applied.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("deleted, left unmanaged, replaced by a value written in clear, or drifted: (sensitive) in every format", async () => {
    const cases = [
      manifest("    unmanaged: { variables: delete }\n"),
      manifest("    unmanaged: { variables: warn }\n"),
      manifest("    variables:\n      - { key: TOKEN, value: now-in-clear }\n"),
      manifest(
        "    variables:\n      - { key: TOKEN, value: now-in-clear }\n    unmanaged: { variables: delete }\n",
      ),
    ];
    for (const [i, text] of cases.entries()) {
      const file = bench.manifest(text, `case${i}.yaml`);
      for (const args of [
        ["plan", file],
        ["plan", "--format", "json", file],
        ["plan", "--format", "markdown", file],
        ["drift", "--format", "json", file],
        ["drift", "--format", "junit", file],
        ["plan", "--debug", file],
      ]) {
        const run = await bench.cli(args);
        expect(run.code, run.out + run.err).not.toBe(1);
        expect(run.out + run.err, `${args.join(" ")} of\n${text}`).not.toContain(TOKEN);
      }
    }
    const deleted = await planJson(bench, bench.manifest(cases[0]!, "delete.yaml"));
    expect(deleted.changes).toEqual([
      expect.objectContaining({
        action: "delete",
        address: 'project["acme/platform/api"].variable["TOKEN#*"]',
        fields: expect.arrayContaining([{ field: "value", before: "(sensitive)" }]),
      }),
    ]);
    const clear = await planJson(bench, bench.manifest(cases[2]!, "clear.yaml"));
    expect(clear.changes[0]!.fields).toEqual([
      expect.objectContaining({ field: "value", before: "(sensitive)", after: "now-in-clear" }),
    ]);
  });
});

describe("validate checks the platform's rules on resolved values, without showing them", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("a masked value from the environment that the platform would refuse is an error at its place", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    variables:
      - { key: SHORT, value: "\${env:SHORT}", masked: true }
      - { key: SPACED, value: "\${env:SPACED}", masked: true }
      - { key: TWO_LINES, value: "\${env:TWO_LINES}", masked: true }
      - { key: FINE, value: "\${env:FINE}", masked: true }
      - { key: UNMASKED, value: "\${env:SPACED}" }
`);
    const env = {
      SHORT: "s3cr3t",
      SPACED: "has spaces inside",
      TWO_LINES: "Line-One-Value\nLine-Two-Value",
      FINE: "Fine-Value_9+/=@:.~",
    };
    const r = await bench.cli(["validate", file], env);
    expect(r.code).toBe(1);
    const lines = (r.out + r.err)
      .split("\n")
      .filter((l) => l.includes(": error: ") || l.includes("variables["));
    expect(lines.join("\n")).toContain(
      `${file}:5:30: projects["acme/platform/api"].variables[0].value: the value from env:SHORT must be at least 8 characters (the value is not shown)`,
    );
    expect(lines.join("\n")).toContain(
      `${file}:6:31: projects["acme/platform/api"].variables[1].value: the value from env:SPACED must be one line of A-Z, a-z, 0-9 and _ + = / @ : . ~ - only`,
    );
    expect(lines.join("\n")).toContain(
      `${file}:7:34: projects["acme/platform/api"].variables[2].value: the value from env:TWO_LINES must be one line`,
    );
    expect(lines.join("\n")).not.toContain("variables[3]");
    expect(lines.join("\n")).not.toContain("variables[4]");
    for (const value of Object.values(env)) expect(r.out + r.err).not.toContain(value.split("\n")[0]);
    // The same values pass where the variable is not masked, and once they fit.
    const ok = await bench.cli(["validate", file], {
      ...env,
      SHORT: "long-enough",
      SPACED: "no-spaces",
      TWO_LINES: "One-Line-Now",
    });
    expect(ok.code, ok.out + ok.err).toBe(0);
  });
});

describe("editions: group variables have scopes on the licensed edition only", () => {
  it("core: a group variable in a scope is a plan error at its place; without one, or in every scope (*), it applies and converges", async () => {
    const bench = await Bench.start({ fixture: FIXTURE, edition: "core" });
    try {
      const scoped = bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  acme:
    variables:
      - { key: REGION, value: eu }
      - { key: REGION, value: eu-central, environment_scope: production }
projects:
  acme/platform/api:
    variables:
      - { key: REGION, value: eu-west, environment_scope: production }
`);
      const r = await bench.cli(["plan", scoped]);
      expect(r.code).toBe(1);
      expect((r.out + r.err).replace(/\s+/g, " ")).toContain(
        `${scoped}:8:62: group["acme"].variable["REGION#production"].environment_scope: a group variable's environment_scope exists only on the licensed edition`,
      );
      const plain = bench.manifest(
        readFileSync(scoped, "utf8").replace(
          "      - { key: REGION, value: eu-central, environment_scope: production }\n",
          "",
        ),
      );
      await apply(bench, plain);
      await expectNoChanges(bench, plain);
      // Every environment written out is what the core edition has: no error, nothing to change.
      const everywhere = bench.manifest(
        readFileSync(plain, "utf8").replace(
          "{ key: REGION, value: eu }",
          '{ key: REGION, value: eu, environment_scope: "*" }',
        ),
      );
      await expectNoChanges(bench, everywhere);
      // The core edition shows no scope on group variables, and keeps the project's.
      expect(await bench.get<Variable[]>("/groups/acme/variables")).toEqual([
        { key: "REGION", value: "eu", variable_type: "env_var", protected: false, masked: false },
      ]);
      expect((await bench.get<Variable[]>(API))[0]).toMatchObject({ environment_scope: "production" });
    } finally {
      await bench.stop();
    }
  });

  it("licensed: a group key in two scopes, of which the API reaches the first only", async () => {
    const bench = await Bench.start({ fixture: FIXTURE, edition: "licensed" });
    try {
      const manifest = (star: string, prod: string, prodState = "") =>
        bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  acme:
    variables:
      - { key: REGION, value: ${star} }
      - { key: REGION, value: ${prod}, environment_scope: production${prodState} }
`);
      await apply(bench, manifest("eu", "eu-central"));
      await expectNoChanges(bench, manifest("eu", "eu-central"));
      // The first (created first, listed first) changes as usual.
      const first = manifest("eu-west", "eu-central");
      expectChanges(await planJson(bench, first), [
        { address: 'group["acme"].variable["REGION#*"]', action: "update", fields: ["value"] },
      ]);
      await apply(bench, first);
      // The second cannot be reached: a plan error that says why and what to do, for a change and a delete.
      for (const [make, what] of [
        [() => manifest("eu-west", "eu-north"), "change"],
        [() => manifest("eu-west", "eu-central", ", state: absent"), "delete"],
      ] as const) {
        const r = await bench.cli(["plan", make()]);
        expect(r.code, r.out).toBe(1);
        expect(r.out.replace(/\s+/g, " ")).toContain(
          `cannot ${what} REGION of scope "production": the platform's group variables API (13.12) finds a variable by its key alone, and reaches REGION of scope "*" first. ${what === "delete" ? "Delete" : "Change"} it in acme's CI/CD settings, or remove REGION of scope "*" first`,
        );
      }
      const live = byKeyAndScope(await bench.get<Variable[]>("/groups/acme/variables"));
      expect(live.map((v) => `${String(v["environment_scope"])}=${String(v["value"])}`)).toEqual([
        "*=eu-west",
        "production=eu-central",
      ]);
    } finally {
      await bench.stop();
    }
  });
});

describe("the instance's limit of 25 variables", () => {
  /** A sandbox whose instance holds `count` variables, and a manifest keeping them and adding `added`. */
  async function instanceWith(count: number, added: string[]) {
    const held = Array.from({ length: count }, (_, i) => `HELD_${String(i).padStart(2, "0")}`);
    const bench = await Bench.start({
      fixture: { ...FIXTURE, ci_variables: held.map((key) => ({ instance: true, key, value: "v" })) },
    });
    const file = bench.manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
  variables:
${[...held, ...added].map((key) => `    - { key: ${key}, value: v }`).join("\n")}
`);
    const warnings = async () =>
      ((await planJson(bench, file)) as JsonPlan & { warnings: { address: string; message: string }[] })
        .warnings;
    return { bench, held, file, warnings };
  }

  it("warns at plan time of exactly the creates past the limit, counting what the instance holds; the platform refuses those", async () => {
    // 22 variables there; the manifest keeps them and adds 5: the 23rd to 25th fit, the 26th and 27th do not.
    const { bench, held, file, warnings } = await instanceWith(22, [
      "NEW_A",
      "NEW_B",
      "NEW_C",
      "NEW_D",
      "NEW_E",
    ]);
    try {
      const warned = await warnings();
      expect(warned.map((w) => w.address)).toEqual([
        'instance.variable["NEW_D"]',
        'instance.variable["NEW_E"]',
      ]);
      expect(warned[0]!.message).toContain(
        "the instance holds 22 variables and this plan creates 5: this one would be variable 26, and the platform refuses more than 25",
      );
      expect(warned[1]!.message).toContain("this one would be variable 27");
      // As the plan said: the apply creates three and the platform refuses the other two.
      const r = await bench.cli(["apply", "--yes", file]);
      expect(r.code).toBe(1);
      expect(r.out).toContain("3 done, 2 failed");
      expect(
        (await bench.get<Variable[]>("/admin/ci/variables?per_page=100")).map((v) => v.key).sort(),
      ).toEqual([...held, "NEW_A", "NEW_B", "NEW_C"].sort());
    } finally {
      await bench.stop();
    }
  });

  it("at exactly 25 after the plan, warns of nothing and applies", async () => {
    const { bench, file, warnings } = await instanceWith(23, ["NEW_A", "NEW_B"]);
    try {
      expect(await warnings()).toEqual([]);
      await apply(bench, file);
      await expectNoChanges(bench, file);
    } finally {
      await bench.stop();
    }
  });
});
