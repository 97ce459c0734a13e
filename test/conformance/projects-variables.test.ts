import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { itNeeding } from "../required.js";
import { pythonCase } from "./python-gitlab.js";
import { racadabraMissing, racadabraRunner } from "./racadabra.js";

/**
 * CI/CD variables and project settings through real clients: python-gitlab's managers and `project.save()` (with
 * export and import), and gitlabracadabra applying its own project settings and variables twice, the second run
 * changing nothing. Skipped, with the reason in the name, only when the client is not installed.
 */
const fixture = {
  users: [
    { username: "owner", token: "conformance-owner" },
    { username: "maint", token: "conformance-maint" },
    { username: "dev", token: "conformance-dev" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "internal",
      members: { owner: "owner", maint: "maintainer", dev: "developer" },
    },
  ],
  projects: [{ path: "acme/api", visibility: "private" }],
};

describe("conformance with python-gitlab: variables, project.save(), project export and import", () => {
  pythonCase({
    title: "project, group and instance variables, project settings, export and import",
    script: "variables_settings.py",
    sandbox: { fixture },
    env: { OWNER_TOKEN: "conformance-owner", MAINT_TOKEN: "conformance-maint", DEV_TOKEN: "conformance-dev" },
  });
});

describe("conformance with gitlabracadabra: project settings and variables (applied twice)", () => {
  const missing = racadabraMissing();
  itNeeding(missing)(
    `sets every project setting and the group's and project's variables, then converges`,
    async () => {
      const sb = await startSandbox({ adminToken: "racadabra-admin", userToken: "racadabra-user" });
      const run = racadabraRunner(
        sb,
        fileURLToPath(new URL("gitlabracadabra-projects.yml", import.meta.url)),
      );
      try {
        const first = await run();
        expect(first.code, first.out).toBe(0);
        expect(first.out, first.out).toContain("[racadabra-ci/app] Creating project");
        expect(first.out, first.out).not.toMatch(/ERROR|Traceback|Unable to|current value is not available/);
        const api = async <T>(path: string): Promise<T> => {
          const res = await fetch(`${sb.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": sb.adminToken } });
          expect(res.status, path).toBe(200);
          return (await res.json()) as T;
        };
        const project = await api<Record<string, unknown>>("/projects/racadabra-ci%2Fapp");
        expect(project).toMatchObject({
          description: "Settings and variables",
          issues_access_level: "private",
          merge_requests_access_level: "private",
          forking_access_level: "private",
          wiki_access_level: "disabled",
          wiki_enabled: false,
          pages_access_level: "disabled",
          container_registry_enabled: false,
          lfs_enabled: false,
          packages_enabled: false,
          request_access_enabled: false,
          emails_disabled: true,
          merge_method: "ff",
          squash_option: "default_on",
          resolve_outdated_diff_discussions: true,
          printing_merge_request_link_enabled: false,
          remove_source_branch_after_merge: false,
          only_allow_merge_if_pipeline_succeeds: true,
          allow_merge_on_skipped_pipeline: true,
          only_allow_merge_if_all_discussions_are_resolved: true,
          suggestion_commit_message: "Apply suggestion",
          autoclose_referenced_issues: false,
          approvals_before_merge: 1,
          tag_list: ["ci", "demo"],
          build_git_strategy: "clone",
          ci_default_git_depth: 20,
          build_timeout: 7200,
          ci_config_path: "ci/main.yml",
          auto_cancel_pending_pipelines: "disabled",
          build_coverage_regex: "Coverage: (\\d+)%",
          auto_devops_enabled: false,
          auto_devops_deploy_strategy: "manual",
          shared_runners_enabled: false,
        });
        const vars = await api<Record<string, unknown>[]>("/projects/racadabra-ci%2Fapp/variables");
        expect(
          vars
            .map((v) => [
              v["key"],
              v["value"],
              v["variable_type"],
              v["masked"],
              v["protected"],
              v["environment_scope"],
            ])
            .sort(),
        ).toEqual([
          ["CONFIG_FILE", "some: yaml", "file", false, false, "*"],
          ["DEPLOY_TOKEN", "abc~def:ghi", "env_var", true, true, "*"],
          ["PROD_ONLY", "prod", "env_var", false, false, "production"],
        ]);
        const groupVars = await api<Record<string, unknown>[]>("/groups/racadabra-ci/variables");
        expect(
          groupVars.map((v) => [v["key"], v["value"], v["variable_type"], v["protected"]]).sort(),
        ).toEqual([
          ["GROUP_CONFIG", "a: 1", "file", false],
          ["GROUP_REGISTRY", "registry.example", "env_var", true],
        ]);
        const second = await run();
        expect(second.code, second.out).toBe(0);
        expect(second.out, second.out).not.toMatch(/Creating|Changing|Adding|Removing|ERROR|Traceback/);
      } finally {
        await sb.stop();
      }
    },
    60_000,
  );
});
