// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read manifest reference syntax that export writes
/**
 * An export a person keeps in git (issue 27): plain values inline and only secrets as references, nothing the
 * platform would set anyway (a group's name equal to its path, empty entries, archived projects unless asked for),
 * and `--factor`, which writes what a group's projects and subgroups share once as a `group/**` pattern entry.
 * Each export is planned against the same platform: no changes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Bench } from "./helpers.js";

const RELEASE_TOKEN = "glpat-release-token-0123456789";
const DB_PASSWORD = "db-password-never-in-git";

const fixture = {
  groups: [
    { path: "acme", description: "The ACME company" },
    { path: "acme/team", name: "Team Alpha" },
    { path: "acme/plain" },
    { path: "acme/plain/deep" },
  ],
  projects: [
    { path: "acme/a" },
    { path: "acme/b" },
    { path: "acme/team/c" },
    { path: "acme/team/d" },
    { path: "acme/quiet" },
    { path: "acme/plain/old", archived: true },
  ],
  badges: ["acme/a", "acme/b", "acme/team/c", "acme/team/d", "acme/quiet"].map((project) => ({
    project,
    name: "pipeline",
    link_url: "https://ci.example/%{project_path}",
    image_url: "https://ci.example/%{project_path}/badge.svg",
  })),
  pipeline_schedules: [
    {
      project: "acme/a",
      description: "nightly",
      ref: "main",
      cron: "0 2 * * *",
      variables: [
        { key: "BUILD_TYPE", value: "nightly" },
        { key: "RELEASE_TOKEN", value: RELEASE_TOKEN },
        { key: "NOTE", value: `token ${RELEASE_TOKEN}` },
      ],
    },
  ],
};

type Doc = {
  groups?: Record<string, Record<string, unknown>>;
  projects?: Record<string, Record<string, unknown>>;
};

describe("export: a manifest a person keeps", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    // Settings someone made by hand: most projects fast-forward, one rebases, one keeps the default.
    for (const p of ["acme%2Fa", "acme%2Fb", "acme%2Fteam%2Fc"])
      await bench.send("PUT", `/projects/${p}`, {
        merge_method: "ff",
        only_allow_merge_if_pipeline_succeeds: true,
      });
    await bench.send("PUT", "/projects/acme%2Fteam%2Fd", { merge_method: "rebase_merge" });
    // Two of the three subgroups refuse access requests.
    for (const g of ["acme%2Fplain", "acme%2Fplain%2Fdeep"])
      await bench.send("PUT", `/groups/${g}`, { request_access_enabled: false });
    await bench.send("POST", "/projects/acme%2Fa/variables", { key: "LOG_LEVEL", value: "info" });
    await bench.send("POST", "/projects/acme%2Fa/variables", { key: "DB_PASSWORD", value: DB_PASSWORD });
  });
  afterAll(() => (process.env["KEEP"] ? console.log(bench.dir) : bench?.stop()));

  /** Exports acme with `flags` into a folder of its own; the file's text, parsed document and the env names. */
  async function exportAcme(name: string, flags: string[] = []) {
    const out = join(bench.dir, name);
    const run = await bench.cli(["export", "--group", "acme", "--out", out, ...flags]);
    expect(run.code, run.err).toBe(0);
    const text = readFileSync(join(out, "acme.yaml"), "utf8");
    const env = new Map(
      [...run.err.matchAll(/^ {2}([A-Z0-9_]+) {2}\((.+)\)$/gm)].map((m) => [m[2]!, m[1]!] as const),
    );
    return { file: join(out, "acme.yaml"), text, doc: parse(text) as Doc, env, run };
  }

  /** Plans an export with its references set to the live values: no changes, exit code 0. */
  async function plansNothing(file: string, env: Map<string, string>) {
    const values: Record<string, string> = {};
    for (const [field, name] of env) {
      if (field.includes('variable["RELEASE_TOKEN"]')) values[name] = RELEASE_TOKEN;
      else if (field.includes('variable["NOTE"]')) values[name] = `token ${RELEASE_TOKEN}`;
      else if (field.includes('variable["DB_PASSWORD#*"]')) values[name] = DB_PASSWORD;
      else throw new Error(`an unexpected reference: ${name} for ${field}`);
    }
    const plan = await bench.cli(["plan", "--detailed-exitcode", file], values);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain("No changes");
    // Nothing the export left out is reported as unmanaged: a group or project left out is not managed.
    expect(plan.out + plan.err).not.toMatch(/unmanaged|not in the manifests/i);
    return plan;
  }

  it("writes plain values as they are, and only secrets as references", async () => {
    const { text, env, run } = await exportAcme("plain");
    // A schedule variable not named like a secret is written inline; one named like one, and a value in a known
    // credential format whatever its name, become references; so does an unmasked CI/CD variable named like one.
    expect(text).toMatch(/key: BUILD_TYPE\n\s+value: nightly\n/);
    expect(text).toMatch(/key: LOG_LEVEL\n\s+value: info\n/);
    expect([...env.keys()].sort()).toEqual([
      'project["acme/a"].pipeline_schedule["nightly"].variable["NOTE"].value',
      'project["acme/a"].pipeline_schedule["nightly"].variable["RELEASE_TOKEN"].value',
      'project["acme/a"].variable["DB_PASSWORD#*"].value',
    ]);
    for (const secret of [RELEASE_TOKEN, DB_PASSWORD]) {
      expect(text).not.toContain(secret);
      expect(run.out + run.err).not.toContain(secret);
    }
    // Short names, listed at the top of the file.
    expect(env.get('project["acme/a"].pipeline_schedule["nightly"].variable["RELEASE_TOKEN"].value')).toBe(
      "A_NIGHTLY_RELEASE_TOKEN",
    );
    expect(text.slice(0, text.indexOf("version: 1"))).toContain("A_NIGHTLY_RELEASE_TOKEN");
  });

  it("leaves out what the platform has anyway: a name equal to the path, empty entries, archived projects", async () => {
    const { doc, file, env } = await exportAcme("defaults");
    // A subgroup named after its path says nothing more; it is still declared (an empty entry), as the plan
    // would report an undeclared subgroup of a declared group as unmanaged.
    expect(doc.groups).toEqual({
      acme: { description: "The ACME company" },
      "acme/plain": { request_access_enabled: false },
      "acme/plain/deep": { request_access_enabled: false },
      "acme/team": { name: "Team Alpha" },
    });
    expect(doc.groups?.["acme"]).toEqual({ description: "The ACME company" });
    // acme/quiet has only the badge; the archived acme/plain/old is not written at all.
    expect(Object.keys(doc.projects ?? {}).sort()).toEqual([
      "acme/a",
      "acme/b",
      "acme/quiet",
      "acme/team/c",
      "acme/team/d",
    ]);
    expect(JSON.stringify(doc.projects)).not.toContain("acme/plain");
    await plansNothing(file, env);
  });

  it("--include-archived writes archived projects too, saying they are archived", async () => {
    const { doc, file, env } = await exportAcme("archived", ["--include-archived"]);
    expect(doc.projects?.["acme/plain/old"]).toEqual({ archived: true, default_branch: "main" });
    await plansNothing(file, env);
  });

  it("--factor writes what the projects share once, each project keeping what differs, and plans no changes", async () => {
    const { doc, file, env, text } = await exportAcme("factor", ["--factor"]);
    const projects = doc.projects ?? {};
    // Four of five fast-forward and require pipelines; every one has the badge: one pattern entry says so.
    expect(projects["acme/**"]).toEqual({
      default_branch: "main",
      merge_method: "ff",
      only_allow_merge_if_pipeline_succeeds: true,
      badges: [
        {
          name: "pipeline",
          link_url: "https://ci.example/%{project_path}",
          image_url: "https://ci.example/%{project_path}/badge.svg",
        },
      ],
    });
    // The others say what they have instead: a value of their own, or the platform's default.
    expect(projects["acme/team/d"]).toEqual({
      merge_method: "rebase_merge",
      only_allow_merge_if_pipeline_succeeds: false,
    });
    expect(projects["acme/quiet"]).toEqual({
      merge_method: "merge",
      only_allow_merge_if_pipeline_succeeds: false,
    });
    // Two of three subgroups refuse access requests: a groups pattern says so, the third says its own, and the two
    // have nothing left (the pattern declares them, so they are not reported as unmanaged).
    expect(doc.groups).toEqual({
      acme: { description: "The ACME company" },
      "acme/**": { request_access_enabled: false },
      "acme/team": { name: "Team Alpha", request_access_enabled: true },
    });
    // acme/a keeps its schedule and variables; acme/b and acme/team/c had nothing else and are not written.
    expect(Object.keys(projects)).toEqual(["acme/**", "acme/a", "acme/quiet", "acme/team/d"]);
    expect(Object.keys(projects["acme/a"] ?? {}).sort()).toEqual(["pipeline_schedules", "variables"]);
    // The pattern comes before the entries, and the file is one a person reads (no anchors or repeated blocks).
    expect(text.indexOf("acme/**:")).toBeLessThan(text.indexOf("acme/a:"));
    expect(text).not.toMatch(/[&*]a\d/);
    await plansNothing(file, env);
  });

  it("--factor with --include-archived makes the pattern take archived projects too", async () => {
    const { doc, file, env } = await exportAcme("factor-archived", ["--factor", "--include-archived"]);
    // Six projects now: three fast-forward, which is not most of them, so merge_method stays with each project;
    // the default branch they all have goes into the pattern, which takes archived projects too.
    expect(doc.projects?.["acme/**"]).toEqual({ include_archived: true, default_branch: "main" });
    expect(doc.projects?.["acme/b"]).toEqual({
      merge_method: "ff",
      only_allow_merge_if_pipeline_succeeds: true,
      badges: [expect.objectContaining({ name: "pipeline" })],
    });
    expect(doc.projects?.["acme/plain/old"]).toEqual({ archived: true });
    await plansNothing(file, env);
  });
});
