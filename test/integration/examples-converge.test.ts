/**
 * The examples are the first thing a user applies: every file of examples/ applies to the demo fixture, and the
 * next plan shows nothing. Checked by forgeform's own plan and by independent reads of the sandbox.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExamples, EXAMPLES, EXAMPLES_ENV } from "./examples.js";
import { Bench } from "./helpers.js";

const env = EXAMPLES_ENV;

describe("examples/ on the demo fixture", () => {
  let bench: Bench;
  let backups: string;
  let manifests: string[];
  beforeAll(async () => {
    bench = await Bench.start({ fixture: join(EXAMPLES, "sandbox-fixture.yaml"), edition: "licensed" });
    backups = join(bench.dir, "backups");
    manifests = copyExamples(bench.dir);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("applies in one run, then plans no changes", async () => {
    expect(manifests.length).toBeGreaterThanOrEqual(4);
    const apply = await bench.cli(["apply", "--yes", "--backup-dir", backups, ...manifests], env);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("0 failed, 0 skipped");
    const plan = await bench.cli(["plan", "--detailed-exitcode", ...manifests], env);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("left the platform as declared, read independently", async () => {
    const platform = await bench.get<{ visibility: string; description: string }>("/groups/acme%2Fplatform");
    expect(platform).toMatchObject({ visibility: "internal", description: "Shared services" });
    const settings = await bench.get<Record<string, unknown>>("/application/settings");
    // Written "90 days", kept by the platform in its own words.
    expect(settings["archive_builds_in_human_readable"]).toBe("3 months");
    const keys = await bench.get<{ title: string; key: string }[]>(
      "/projects/acme%2Fplatform%2Fapi/deploy_keys",
    );
    expect(keys.map((k) => k.title).sort()).toEqual(["mirror", "release bot"]);
    // Members and protected branches by name (examples/access.yaml), and the acme/** policy's main.
    const members = await bench.get<{ username: string; access_level: number }[]>("/groups/tools/members");
    expect(members.map((m) => [m.username, m.access_level])).toEqual([
      ["alice", 50],
      ["bob", 40],
      ["release-bot", 20],
    ]);
    const branches = await bench.get<{ name: string; push_access_levels: { access_level: number }[] }[]>(
      "/projects/tools%2Fcli/protected_branches",
    );
    expect(branches.map((b) => [b.name, b.push_access_levels.map((l) => l.access_level)])).toEqual([
      ["main", [40]],
      ["release/*", [0, null]],
    ]);
    for (const project of ["acme%2Fplatform%2Fapi", "acme%2Fplatform%2Fweb"])
      expect(
        (await bench.get<{ name: string }[]>(`/projects/${project}/protected_branches`)).map((b) => b.name),
      ).toEqual(["main"]);
    await expect(bench.get("/groups/acme%2Flegacy")).rejects.toThrow(/404/);
    await expect(bench.get("/projects/acme%2Flegacy%2Fmonolith")).rejects.toThrow(/404/);
    // Labels, hooks and a deploy token (its token written beside the manifests, nowhere else).
    const labels = await bench.get<{ name: string; color: string }[]>("/groups/acme/labels");
    expect(labels.find((l) => l.name === "bug")?.color).toBe("#FF0000");
    const groupHooks = await bench.get<{ url: string }[]>("/groups/acme/hooks");
    expect(groupHooks.map((h) => h.url)).toEqual([
      `https://chat.acme.example/hooks/ci?key=${env["CHAT_HOOK_KEY"]}`,
    ]);
    const apiHooks = await bench.get<{ push_events_branch_filter: string }[]>(
      "/projects/acme%2Fplatform%2Fapi/hooks",
    );
    expect(apiHooks).toEqual([expect.objectContaining({ push_events_branch_filter: "main" })]);
    const tokenFile = join(bench.dir, "examples", "secrets", "acme-registry.token");
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(await bench.get("/groups/acme/deploy_tokens")).toEqual([
      expect.objectContaining({ name: "registry pull", scopes: ["read_registry"] }),
    ]);
    // The deleted group's and project's export archives were saved first.
    const saved = readdirSync(backups).sort();
    expect(saved).toEqual(["group-acme%2Flegacy.tar.gz", "project-opensource%2Flegacy-site.tar.gz"]);
    for (const file of saved) expect(gunzipSync(readFileSync(join(backups, file))).length).toBeGreaterThan(0);
    await expect(bench.get("/projects/opensource%2Flegacy-site")).rejects.toThrow(/404/);
    // Created, with its own settings and the policy's (and its collections), and the others changed.
    expect(await bench.get("/projects/acme%2Fplatform%2Fbilling")).toMatchObject({
      description: "Invoices and payments",
      build_timeout: 7200,
      merge_method: "rebase_merge",
      topics: ["acme"],
    });
    const badges = await bench.get<{ name: string; kind: string }[]>(
      "/projects/acme%2Fplatform%2Fbilling/badges",
    );
    expect(badges.filter((b) => b.kind === "project").map((b) => b.name)).toEqual(["docs"]);
    expect(await bench.get("/projects/acme%2Fplatform%2Fapi")).toMatchObject({
      merge_method: "ff",
      build_timeout: 5400,
      ci_config_path: "ci/api.gitlab-ci.yml",
      ci_default_git_depth: 20,
    });
  });

  it("left the CI/CD variables as declared, read independently", async () => {
    type Variable = { key: string; value: string; environment_scope?: string; masked: boolean };
    const shown = (vs: Variable[]) =>
      vs.map((v) => `${v.key}#${v.environment_scope ?? "-"}=${v.masked ? "masked:" : ""}${v.value}`).sort();
    expect(shown(await bench.get<Variable[]>("/admin/ci/variables"))).toEqual([
      "DOCKER_REGISTRY_MIRROR#-=https://mirror.acme.example",
      `RENOVATE_TOKEN#-=masked:${env["RENOVATE_TOKEN"]}`,
    ]);
    // The group's undeclared variable was pruned; one key holds a value per scope.
    expect(shown(await bench.get<Variable[]>("/groups/opensource/variables"))).toEqual([
      "DEPLOY_REGION#*=eu-west-1",
      "DEPLOY_REGION#production=eu-central-1",
    ]);
    expect(shown(await bench.get<Variable[]>("/projects/opensource%2Ftoolkit/variables"))).toEqual([
      "LOG_LEVEL#*=info",
      "LOG_LEVEL#production=warn",
      "NPMRC#*=registry=https://npm.acme.example/\nalways-auth=true\n",
      `NPM_TOKEN#production=masked:${env["TOOLKIT_NPM_TOKEN"]}`,
    ]);
    // The pattern gave each project of acme/platform its variable; the undeclared masked one is left alone.
    expect(shown(await bench.get<Variable[]>("/projects/acme%2Fplatform%2Fapi/variables"))).toEqual([
      "LEGACY_DEPLOY_PASSWORD#*=masked:legacy-deploy-password",
      "SERVICE_GROUP#*=platform",
    ]);
  });
});
