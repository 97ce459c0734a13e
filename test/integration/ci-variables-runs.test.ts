/**
 * CI/CD variables through the ways a run is narrowed or turned around: export writes them back as a manifest
 * that plans to zero changes (plain values inline, masked ones as `${env:}` references listed at the top), and
 * `--target`, `--changed-since` and `--shard` plan or report just their part of them.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const ENV = { API_TOKEN: "Api-Token-Value1", BETA_KEY: "Beta-Key-Value2", RUNNER: "Runner-Token-Value3" };

const fixture = {
  groups: [{ path: "acme" }, { path: "beta" }],
  projects: [
    { path: "acme/api", default_branch: "main" },
    { path: "beta/tool", default_branch: "main" },
  ],
};

const MANIFEST = (apiLevel = "debug") => `version: 1
instance:
  variables:
    - { key: MIRROR, value: "https://mirror.example" }
    - { key: RUNNER_TOKEN, value: "\${env:RUNNER}", masked: true }
groups:
  acme:
    variables:
      - { key: REGION, value: eu }
      - { key: REGION, value: eu-central, environment_scope: production }
  beta:
    variables:
      - { key: TEAM, value: beta }
projects:
  acme/api:
    variables:
      - { key: LOG_LEVEL, value: ${apiLevel} }
      - { key: API_TOKEN, value: "\${env:API_TOKEN}", masked: true, protected: true, environment_scope: production }
      - { key: CONFIG, value: "a: 1\\nb: 2\\n", variable_type: file }
  beta/tool:
    variables:
      - { key: BETA_KEY, value: "\${env:BETA_KEY}", masked: true }
`;

type JsonPlan = PlanV1;
interface DriftJson {
  items: { address: string; status: string }[];
}

const gitIn = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd: repo,
    encoding: "utf8",
  });

describe("CI/CD variables in export, --target, --changed-since and --shard", () => {
  let bench: Bench;
  let file: string;
  const addresses = (items: { address: string }[]) => items.map((i) => i.address).sort();

  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
    const repo = mkdtempSync(join(tmpdir(), "forgeform-repo-"));
    file = join(repo, "variables.yaml");
    writeFileSync(file, MANIFEST());
    gitIn(repo, "init", "-q");
    gitIn(repo, "add", "-A");
    gitIn(repo, "commit", "-q", "-m", "base");
    const applied = await bench.cli(["apply", "--yes", file], ENV);
    expect(applied.code, applied.out + applied.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("export writes them back: plain values inline, masked ones as listed references; it plans to zero changes", async () => {
    const out = join(bench.dir, "export");
    const run = await bench.cli(["export", "--instance", "--group", "acme", "--group", "beta", "--out", out]);
    expect(run.code, run.err).toBe(0);
    const text = Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), "utf8")]));
    for (const value of Object.values(ENV))
      for (const [name, t] of Object.entries(text)) expect(t, name).not.toContain(value);
    // Each masked value is a reference whose name the file lists at its top, with the variable it stands for.
    const references = Object.values(text).flatMap((t) => [
      ...t.matchAll(/^# {3}([A-Z0-9_]+) {2}\((.+)\.value\)$/gm),
    ]);
    expect(references.map((m) => m[2]).sort()).toEqual([
      'instance.variable["RUNNER_TOKEN"]',
      'project["acme/api"].variable["API_TOKEN#production"]',
      'project["beta/tool"].variable["BETA_KEY#*"]',
    ]);
    const acme = parse(text["acme.yaml"]!) as {
      groups: Record<string, { variables: Record<string, unknown>[] }>;
      projects: Record<string, { variables: Record<string, unknown>[] }>;
    };
    // Plain values inline; defaults (scope *, env_var, unprotected, unmasked) left out.
    expect(acme.groups["acme"]!.variables).toEqual([
      { key: "REGION", value: "eu" },
      { key: "REGION", value: "eu-central", environment_scope: "production" },
    ]);
    const api = acme.projects["acme/api"]!.variables;
    expect(api).toContainEqual({ key: "LOG_LEVEL", value: "debug" });
    expect(api).toContainEqual({ key: "CONFIG", value: "a: 1\nb: 2\n", variable_type: "file" });
    const token = api.find((v) => v["key"] === "API_TOKEN")!;
    expect(token).toMatchObject({ protected: true, masked: true, environment_scope: "production" });
    expect(token["value"]).toMatch(/^\$\{env:[A-Z0-9_]+\}$/);
    // With the referenced variables set to the values they stand for, the export plans no change at all.
    const byAddress: Record<string, string> = {
      'instance.variable["RUNNER_TOKEN"]': ENV.RUNNER,
      'project["acme/api"].variable["API_TOKEN#production"]': ENV.API_TOKEN,
      'project["beta/tool"].variable["BETA_KEY#*"]': ENV.BETA_KEY,
    };
    const env = Object.fromEntries(references.map((m) => [m[1]!, byAddress[m[2]!]!]));
    const plan = await bench.cli(
      ["plan", "--detailed-exitcode", ...Object.keys(text).map((f) => join(out, f))],
      env,
    );
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("--target reports only the variables of its subtree, or of the instance", async () => {
    await bench.send("PUT", "/groups/acme/variables/REGION", { value: "us" });
    await bench.send("PUT", "/projects/beta%2Ftool/variables/BETA_KEY", { value: "Changed-By-Hand-4" });
    await bench.send("PUT", "/admin/ci/variables/MIRROR", { value: "https://other.example" });
    try {
      const drift = async (args: string[]) => {
        const r = await bench.cli(["drift", "--format", "json", ...args, file], ENV);
        expect(r.code, r.err).toBe(2);
        return addresses((JSON.parse(r.out) as DriftJson).items);
      };
      expect(await drift([])).toEqual([
        'group["acme"].variable["REGION#*"]',
        'instance.variable["MIRROR"]',
        'project["beta/tool"].variable["BETA_KEY#*"]',
      ]);
      expect(await drift(["--target", "acme"])).toEqual(['group["acme"].variable["REGION#*"]']);
      expect(await drift(["--target", "beta/tool"])).toEqual(['project["beta/tool"].variable["BETA_KEY#*"]']);
      expect(await drift(["--target", "instance"])).toEqual(['instance.variable["MIRROR"]']);

      // --shard: each top-level unit in one shard; the shards together report what one run reports.
      const shards: string[][] = [];
      for (const k of [1, 2]) shards.push(await drift(["--shard", `${k}/2`]));
      expect(shards.every((s) => s.length > 0)).toBe(true);
      expect(shards.flat().sort()).toEqual(await drift([]));
    } finally {
      const back = await bench.cli(["apply", "--yes", file], ENV);
      expect(back.code, back.out + back.err).toBe(0);
    }
  });

  it("--changed-since plans only the variables whose entries changed", async () => {
    // Out of band: a change no entry made, which a plan of the changed entries does not read.
    await bench.send("PUT", "/groups/beta/variables/TEAM", { value: "gamma" });
    writeFileSync(file, MANIFEST("info"));
    const r = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", file], ENV);
    expect(r.code, r.err).toBe(0);
    const plan = JSON.parse(r.out) as JsonPlan;
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update project["acme/api"].variable["LOG_LEVEL#*"]',
    ]);
    const whole = JSON.parse((await bench.cli(["plan", "--format", "json", file], ENV)).out) as JsonPlan;
    expect(addresses(whole.changes)).toEqual([
      'group["beta"].variable["TEAM#*"]',
      'project["acme/api"].variable["LOG_LEVEL#*"]',
    ]);
    gitIn(dirname(file), "commit", "-q", "-am", "info");
  });
});
