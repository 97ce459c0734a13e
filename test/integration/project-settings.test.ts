/**
 * Project settings over HTTP, end to end: thirty-odd settings given to every project of a group through a pattern,
 * an exact-path entry overriding some of them, a project the manifest creates (which gets the pattern's settings in
 * the same apply) and one it deletes after saving its export archive. One apply, then a plan with no changes; every
 * project read back through the API as declared; a setting changed out of band is drift (exit 2) in every format;
 * the export of the result plans back to nothing. Reads: the pattern's listing carries the settings, so no project
 * costs a request of its own.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { ADMIN_TOKEN, Bench } from "./helpers.js";
import { startRecorder } from "./proxy.js";

const fixture = {
  groups: [
    { path: "acme", visibility: "internal" },
    { path: "acme/platform", visibility: "internal" },
    { path: "acme/legacy", visibility: "private" },
  ],
  projects: [
    { path: "acme/platform/api", default_branch: "main" },
    { path: "acme/platform/web", default_branch: "main" },
    { path: "acme/platform/worker", default_branch: "main" },
    { path: "acme/legacy/monolith", description: "the old one" },
  ],
  badges: [
    {
      project: "acme/legacy/monolith",
      name: "old",
      link_url: "https://old.example",
      image_url: "https://old.example/b.svg",
    },
  ],
};

/** Every project below acme gets these (values away from the platform's defaults, valid together). */
const POLICY: Record<string, unknown> = {
  merge_method: "ff",
  squash_option: "always",
  only_allow_merge_if_pipeline_succeeds: true,
  allow_merge_on_skipped_pipeline: true,
  only_allow_merge_if_all_discussions_are_resolved: true,
  resolve_outdated_diff_discussions: true,
  remove_source_branch_after_merge: false,
  printing_merge_request_link_enabled: false,
  suggestion_commit_message: "Apply suggestion",
  autoclose_referenced_issues: false,
  issues_access_level: "private",
  repository_access_level: "private",
  merge_requests_access_level: "private",
  forking_access_level: "disabled",
  wiki_access_level: "disabled",
  builds_access_level: "private",
  snippets_access_level: "disabled",
  pages_access_level: "disabled",
  operations_access_level: "disabled",
  analytics_access_level: "private",
  request_access_enabled: false,
  lfs_enabled: false,
  container_registry_enabled: false,
  packages_enabled: false,
  topics: ["acme", "service"],
  ci_config_path: "ci/pipeline.yml",
  build_timeout: "90 minutes",
  auto_cancel_pending_pipelines: "disabled",
  build_coverage_regex: "Total: (\\d+)%",
  ci_default_git_depth: 10,
  keep_latest_artifact: false,
  shared_runners_enabled: false,
  public_jobs: false,
  restrict_user_defined_variables: true,
  ci_forward_deployment_enabled: false,
  auto_devops_enabled: false,
  auto_devops_deploy_strategy: "manual",
};

/**
 * What the exact entry of acme/platform/api says over the pattern, and a setting lists do not show
 * (build_git_strategy: the project is read on its own for it).
 */
const API_OVERRIDE = {
  merge_method: "rebase_merge",
  build_timeout: "2h",
  visibility: "internal",
  build_git_strategy: "clone",
};

const yamlMap = (fields: Record<string, unknown>, indent: string) =>
  Object.entries(fields)
    .map(([k, v]) => `${indent}${k}: ${JSON.stringify(v)}`)
    .join("\n");

const MANIFEST = `version: 1
projects:
  acme/**:
    except: [acme/legacy/**]
${yamlMap(POLICY, "    ")}
  acme/platform/api:
${yamlMap(API_OVERRIDE, "    ")}
  acme/platform/billing:
    description: The billing service
    badges:
      - { name: docs, link_url: "https://docs.example/billing", image_url: "https://docs.example/b.svg" }
  acme/legacy/monolith:
    state: absent
`;

/** The settings as the API shows them: the duration in seconds, the rest as written. */
function asShown(fields: Record<string, unknown>): Record<string, unknown> {
  const seconds: Record<string, number> = { "90 minutes": 5400, "2h": 7200 };
  return Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, k === "build_timeout" ? seconds[String(v)] : v]),
  );
}

type JsonPlan = PlanV1;

describe("project settings through a pattern, an override, a new project and a deleted one", () => {
  let bench: Bench;
  let manifest: string;
  let backups: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    manifest = bench.manifest(MANIFEST, "projects.yaml");
    backups = join(bench.dir, "backups");
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("plans the updates, the create with the pattern's settings, and the delete with its backup", async () => {
    const plan = await bench.cli(["plan", "--format", "json", "--backup-dir", backups, manifest]);
    expect(plan.code, plan.err).toBe(0);
    const json = JSON.parse(plan.out) as JsonPlan;
    expect(json.errors).toEqual([]);
    const actions = Object.fromEntries(
      json.changes.filter((c) => !c.address.includes(".")).map((c) => [c.address, c.action]),
    );
    expect(actions).toEqual({
      'project["acme/platform/api"]': "update",
      'project["acme/platform/web"]': "update",
      'project["acme/platform/worker"]': "update",
      'project["acme/platform/billing"]': "create",
      'project["acme/legacy/monolith"]': "delete",
    });
    const gone = json.changes.find((c) => c.address === 'project["acme/legacy/monolith"]')!;
    expect(gone.backup).toBe(join(backups, "project-acme%2Flegacy%2Fmonolith.tar.gz"));
    expect(gone.reason).toContain('marked "state: absent"');
    expect(gone.reason).toContain(
      "the platform deletes its repository, wiki, issues, merge requests, pipelines",
    );
    expect(gone.reason).toContain("it holds the project's settings, repository");
    expect(json.summary["delete"]).toBe(1);
    // Every project's settings come with the pattern's listing: none is read on its own but the one marked
    // absent (the pattern leaves it out) and the one declaring build_git_strategy, which lists do not show. The
    // new project's group is listed once more, to warn of a close path.
    expect(json.requests.by_endpoint["GET /groups/:id/projects"]).toBe(2);
    expect(json.requests.by_endpoint["GET /projects/:id"]).toBe(2);

    const text = await bench.cli(["plan", "--backup-dir", backups, manifest]);
    expect(text.out).toContain('~ build_timeout: 3600 -> "90 minutes"');
    expect(text.out).toContain('+ project["acme/platform/billing"] will be created');
  });

  it("refuses more deletes than --max-deletes allows, applying nothing", async () => {
    const refused = await bench.cli(["apply", "--yes", "--max-deletes", "0", manifest]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("deletes or replaces 1 object, more than --max-deletes 0");
    expect(await bench.get("/projects/acme%2Flegacy%2Fmonolith")).toMatchObject({
      description: "the old one",
    });
    expect(await bench.get("/projects/acme%2Fplatform%2Fweb")).toMatchObject({ merge_method: "merge" });
  });

  it("applies in one run, then plans no changes", async () => {
    const apply = await bench.cli(["apply", "--yes", "--backup-dir", backups, manifest]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const again = await bench.cli(["plan", "--detailed-exitcode", "--format", "json", manifest]);
    expect(again.code, again.out + again.err).toBe(0);
    const json = JSON.parse(again.out) as JsonPlan;
    expect(json.changes).toEqual([]);
    // The no-change plan: one listing for every project's settings; the absent project looked up once, and the
    // one declaring build_git_strategy read on its own.
    expect(json.requests.by_endpoint["GET /groups/:id/projects"]).toBe(1);
    expect(json.requests.by_endpoint["GET /projects/:id"]).toBe(2);
  });

  it("leaves every project as declared, read through the API", async () => {
    for (const path of ["acme/platform/web", "acme/platform/worker"])
      expect(await bench.get(`/projects/${encodeURIComponent(path)}`), path).toMatchObject(asShown(POLICY));
    expect(await bench.get("/projects/acme%2Fplatform%2Fapi")).toMatchObject(
      asShown({ ...POLICY, ...API_OVERRIDE }),
    );
    // The new project, in its group, with the pattern's settings and its own, and its badge.
    expect(await bench.get("/projects/acme%2Fplatform%2Fbilling")).toMatchObject({
      ...asShown(POLICY),
      name: "billing",
      description: "The billing service",
      namespace: { full_path: "acme/platform" },
    });
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fbilling/badges")).toHaveLength(1);
  });

  it("deleted the project only after saving its export archive, which holds it", async () => {
    await expect(bench.get("/projects/acme%2Flegacy%2Fmonolith")).rejects.toThrow(/404/);
    expect(readdirSync(backups)).toEqual(["project-acme%2Flegacy%2Fmonolith.tar.gz"]);
    const tar = gunzipSync(
      (await import("node:fs")).readFileSync(join(backups, "project-acme%2Flegacy%2Fmonolith.tar.gz")),
    ).toString("latin1");
    expect(tar).toContain("VERSION");
    expect(tar).toContain("project.json");
    expect(tar).toContain("the old one");
  });

  it("shows a setting changed out of band as drift, exit 2, in every format", async () => {
    const res = await fetch(`${bench.sandbox.url}/api/v4/projects/acme%2Fplatform%2Fweb`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ merge_method: "merge", build_timeout: 3600 }),
    });
    expect(res.status).toBe(200);
    const text = await bench.cli(["drift", manifest]);
    expect(text.code).toBe(2);
    expect(text.out).toContain('project["acme/platform/web"]');
    expect(text.out).toContain('merge_method: "merge" -> "ff"');
    expect(text.out).toContain('build_timeout: 3600 -> "90 minutes"');
    const json = await bench.cli(["drift", "--format", "json", manifest]);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.out)).toMatchObject({ drift: true });
    expect(json.out).toContain("merge_method");
    const markdown = await bench.cli(["drift", "--format", "markdown", manifest]);
    expect(markdown.code).toBe(2);
    expect(markdown.out).toContain("acme/platform/web");
    const junit = await bench.cli(["drift", "--format", "junit", manifest]);
    expect(junit.code).toBe(2);
    expect(junit.out).toMatch(/<testcase [^>]*project\[&quot;acme\/platform\/web&quot;\][^>]*>\s*<failure/);
    // The other projects are in sync: not failed.
    expect(junit.out).not.toMatch(/<testcase [^>]*acme\/platform\/worker&quot;\][^>]*>\s*<failure/);
    // Applied back, no drift.
    expect((await bench.cli(["apply", "--yes", manifest])).code).toBe(0);
    expect((await bench.cli(["drift", manifest])).code).toBe(0);
  });

  it("exports settings where they differ from the defaults, and the export plans back to nothing", async () => {
    const out = join(bench.dir, "exported");
    const run = await bench.cli(["export", "--group", "acme", "--out", out]);
    expect(run.code, run.err).toBe(0);
    const text = (await import("node:fs")).readFileSync(join(out, "acme.yaml"), "utf8");
    expect(text).toContain("merge_method: rebase_merge");
    expect(text).toContain("build_timeout: 5400");
    // At their defaults: not written.
    expect(text).not.toContain("squash_option: default_off");
    expect(text).not.toContain("name: billing");
    const plan = await bench.cli(["plan", "--detailed-exitcode", out]);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });

  it("explains where each setting of a project comes from", async () => {
    const run = await bench.cli(["explain", "acme/platform/api", manifest]);
    expect(run.code, run.err).toBe(0);
    expect(run.out).toMatch(/merge_method: "?rebase_merge"?.*projects\.yaml:\d+/);
    expect(run.out).toMatch(/squash_option: "?always"?.*acme\/\*\*/);
  });
});

describe("reading project settings", () => {
  let bench: Bench;
  const many = Array.from({ length: 25 }, (_, i) => `fleet/team/p${i + 1}`);
  // A group of exactly one page of projects (100) and one of one more (101).
  const hundred = Array.from({ length: 100 }, (_, i) => `hundred/p${i + 1}`);
  const over = Array.from({ length: 101 }, (_, i) => `over/p${i + 1}`);
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: {
        groups: [
          { path: "fleet" },
          { path: "fleet/team" },
          { path: "solo" },
          { path: "hundred" },
          { path: "over" },
          ...Array.from({ length: 25 }, (_, i) => ({ path: `many${i + 1}` })),
        ],
        projects: [
          ...many.map((path) => ({ path })),
          { path: "solo/one" },
          { path: "solo/two" },
          ...hundred.map((path) => ({ path })),
          ...over.map((path) => ({ path })),
        ],
      },
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("lists a group's projects once when many declare settings, and reads a few one by one", async () => {
    const m = bench.manifest(`version: 1
projects:
${many.map((p) => `  ${p}: { description: managed }\n`).join("")}  solo/one: { description: managed }
  solo/two:
    badges: []
`);
    expect((await bench.cli(["apply", "--yes", m])).code).toBe(0);
    const plan = await bench.cli(["plan", "--detailed-exitcode", "--format", "json", m]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    const { requests } = JSON.parse(plan.out) as JsonPlan;
    // fleet's 25: one listing below fleet/team; solo/one: one GET; solo/two declares no setting: no read of its own.
    expect(requests.by_endpoint["GET /groups/:id/projects"]).toBe(1);
    expect(requests.by_endpoint["GET /projects/:id"]).toBe(1);
    expect(requests.by_endpoint["GET /projects/:id/badges"]).toBe(1);
  });

  it("reads a few projects from one page of their group's listing when it holds the whole group, else one by one", async () => {
    const plan = async (paths: string[]) => {
      const m = bench.manifest(
        `version: 1\nprojects:\n${paths.map((p) => `  ${p}: { description: managed }\n`).join("")}`,
      );
      const out = await bench.cli(["plan", "--format", "json", m]);
      expect(out.code, out.out + out.err).toBe(0);
      const { requests, changes } = JSON.parse(out.out) as JsonPlan;
      return {
        listings: requests.by_endpoint["GET /groups/:id/projects"] ?? 0,
        reads: requests.by_endpoint["GET /projects/:id"] ?? 0,
        updates: changes.filter((c) => c.action === "update").map((c) => c.address),
      };
    };
    // Two under a group of 2 projects, or of exactly 100: one page, no project read.
    expect(await plan(["solo/one", "solo/two"])).toMatchObject({ listings: 1, reads: 0 });
    const at = await plan(["hundred/p1", "hundred/p100"]);
    expect(at).toMatchObject({ listings: 1, reads: 0 });
    expect(at.updates).toHaveLength(2);
    // Under a group of 101, the first page does not hold the listing: each is read on its own.
    const past = await plan(["over/p1", "over/p101"]);
    expect(past).toMatchObject({ listings: 1, reads: 2 });
    expect(past.updates).toHaveLength(2);
    // One project alone is read on its own.
    expect(await plan(["solo/one"])).toMatchObject({ listings: 0, reads: 1 });
    // Up to 20 under a group: its first page, then (101 projects) each on its own; from 21 on, the whole listing
    // (two pages of 100).
    expect(await plan(over.slice(0, 20))).toMatchObject({ listings: 1, reads: 20 });
    expect(await plan(over.slice(0, 21))).toMatchObject({ listings: 2, reads: 0 });
  });

  it("reads up to 20 declared groups one by one, and lists every group from 21 on", async () => {
    const groups = (n: number) =>
      `version: 1\ngroups:\n${[
        "fleet",
        "fleet/team",
        "solo",
        "hundred",
        "over",
        ...Array.from({ length: 25 }, (_, i) => `many${i + 1}`),
      ]
        .slice(0, n)
        .map((g) => `  ${g}: { description: managed }\n`)
        .join("")}`;
    const plan = async (n: number) => {
      const out = await bench.cli(["plan", "--format", "json", bench.manifest(groups(n))]);
      expect(out.code, out.out + out.err).toBe(0);
      const { requests } = JSON.parse(out.out) as JsonPlan;
      return {
        listings: requests.by_endpoint["GET /groups"] ?? 0,
        reads: requests.by_endpoint["GET /groups/:id"] ?? 0,
      };
    };
    expect(await plan(20)).toMatchObject({ listings: 0, reads: 20 });
    expect(await plan(21)).toMatchObject({ listings: 1, reads: 0 });
  });

  it("takes a job timeout as a duration or seconds, within the platform's bounds", async () => {
    const m = bench.manifest(`version: 1
projects:
  solo/one: { build_timeout: 100 }
  solo/two: { build_timeout: "5 minutes" }
  fleet/team/p1: { build_timeout: "1 fortnight" }
`);
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain("build_timeout: 100 is out of range: must be from 600 to 2629745");
    expect(run.out + run.err).toContain(
      'build_timeout: "5 minutes" is 300 seconds: a job timeout is from 10 minutes to under a month',
    );
    expect(run.out + run.err).toContain('build_timeout: "1 fortnight" is not a duration');
    const ok = bench.manifest("version: 1\nprojects:\n  solo/one: { build_timeout: 1h 30m }\n", "ok.yaml");
    expect((await bench.cli(["apply", "--yes", ok])).code).toBe(0);
    expect(await bench.get("/projects/solo%2Fone")).toMatchObject({ build_timeout: 5400 });
    const same = bench.manifest("version: 1\nprojects:\n  solo/one: { build_timeout: 5400 }\n", "same.yaml");
    expect((await bench.cli(["plan", "--detailed-exitcode", same])).code).toBe(0);
  });
});

describe("--target, --shard and --changed-since over project settings", () => {
  let bench: Bench;
  let file: string;
  const gitIn = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
      cwd: dirname(file),
      encoding: "utf8",
    });
  const text = (web: string, policy: string) => `version: 1
projects:
  north/**:
    squash_option: ${policy}
  north/web: { merge_method: ${web} }
  south/app: { merge_method: ff }
`;
  const plan = async (args: string[]) => {
    const run = await bench.cli(["plan", "--format", "json", ...args, file]);
    expect(run.code, run.err).toBe(0);
    return (JSON.parse(run.out) as JsonPlan).changes.map((c) => c.address).sort();
  };
  beforeAll(async () => {
    bench = await Bench.start({
      fixture: {
        groups: [{ path: "north" }, { path: "south" }],
        projects: [{ path: "north/web" }, { path: "north/api" }, { path: "south/app" }],
      },
    });
    const repo = mkdtempSync(join(tmpdir(), "forgeform-repo-"));
    file = join(repo, "projects.yaml");
    writeFileSync(file, text("ff", "always"));
    gitIn("init", "-q");
    gitIn("add", "-A");
    gitIn("commit", "-q", "-m", "base");
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("plans only the targeted project, with its pattern's settings", async () => {
    expect(await plan(["--target", "north/web"])).toEqual(['project["north/web"]']);
    expect(await plan(["--target", "south"])).toEqual(['project["south/app"]']);
  });

  it("splits the projects between shards by their top-level group", async () => {
    const first = await plan(["--shard", "1/2"]);
    const second = await plan(["--shard", "2/2"]);
    expect([...first, ...second].sort()).toEqual([
      'project["north/api"]',
      'project["north/web"]',
      'project["south/app"]',
    ]);
    expect(first.length > 0 && second.length > 0).toBe(true);
  });

  it("plans only what changed since a revision", async () => {
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    writeFileSync(file, text("rebase_merge", "always"));
    expect(await plan(["--changed-since", "HEAD"])).toEqual(['project["north/web"]']);
    writeFileSync(file, text("ff", "never"));
    // The pattern changed: every project it matches, and nothing else.
    expect(await plan(["--changed-since", "HEAD"])).toEqual(['project["north/api"]', 'project["north/web"]']);
    expect(existsSync(file)).toBe(true);
  });
});

describe("project features against the repository's access level the platform has", () => {
  it("refuses merge requests or CI/CD more open than the repository, and a ci_config_path it could not read back", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/api" }] },
    });
    try {
      // The repository's level is the platform's: the manifest does not declare it.
      const levels = (level: string) => ({
        repository_access_level: level,
        merge_requests_access_level: level,
        builds_access_level: level,
      });
      await bench.send("PUT", "/projects/acme%2Fapi", levels("private"));
      const open = bench.manifest(`version: 1
projects:
  acme/api:
    merge_requests_access_level: enabled
    builds_access_level: private
`);
      const plan = await bench.cli(["plan", "--format", "json", open]);
      expect(plan.code).toBe(1);
      const errors = (JSON.parse(plan.out) as { errors: { address: string; message: string }[] }).errors;
      expect(errors).toEqual([
        {
          address: 'project["acme/api"].merge_requests_access_level',
          message:
            "merge_requests_access_level enabled is more open than repository_access_level private: the platform refuses it. Open the repository as far, or this less",
          source: expect.anything(),
        },
      ]);
      await bench.send("PUT", "/projects/acme%2Fapi", levels("disabled"));
      const path = bench.manifest(`version: 1
projects:
  acme/api:
    ci_config_path: ci/main.yml
`);
      const plan2 = await bench.cli(["plan", "--format", "json", path]);
      expect(plan2.code).toBe(1);
      expect(
        (JSON.parse(plan2.out) as { errors: { address: string; message: string }[] }).errors.map((e) => [
          e.address,
          e.message,
        ]),
      ).toEqual([
        [
          'project["acme/api"].ci_config_path',
          "the platform shows ci_config_path only to those who can read the repository, and repository_access_level is disabled: it could never be compared. Leave ci_config_path out, or enable the repository",
        ],
      ]);
      // Without ci_config_path, a disabled repository is no problem.
      const other = bench.manifest("version: 1\nprojects:\n  acme/api:\n    description: no code here\n");
      expect(JSON.parse((await bench.cli(["plan", "--format", "json", other])).out).errors).toEqual([]);
    } finally {
      await bench.stop();
    }
  });
});

describe("project settings under the names the 13.12 interface takes", () => {
  it("sends topics as tag_list and public_jobs as public_builds", async () => {
    const bench = await Bench.start({
      fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/api" }] },
    });
    const recorder = await startRecorder(bench.sandbox.url);
    try {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    topics: [backend, go]
    public_jobs: false
`);
      const applied = await bench.cli(["apply", "--yes", file], { FORGEFORM_URL: recorder.url });
      expect(applied.code, applied.out + applied.err).toBe(0);
      expect(recorder.requests.filter((r) => r.method !== "GET")).toEqual([
        {
          method: "PUT",
          path: expect.stringMatching(/^\/api\/v4\/projects\/\d+$/),
          body: { tag_list: ["backend", "go"], public_builds: false },
        },
      ]);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    } finally {
      await recorder.close();
      await bench.stop();
    }
  });
});
