import { describe } from "vitest";
import { pythonCase, scriptCase } from "./python-gitlab.js";

/**
 * Real clients against the sandbox for deployments, environments, file templates and dependencies: python-gitlab
 * (creates and updates deployments too), the ruby gem and GitLab::API::v4 (which can only list and read deployments,
 * so the fixture seeds them). Each script runs against a fresh licensed sandbox seeded with {@link fixture}, its
 * clock in 2023 (license years). Skipped, with the reason in the test name, only when a client is not installed.
 */
const SHA = "3c5b2a1d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b";

const fixture = {
  users: [
    { username: "dev", name: "Dee Developer" },
    { username: "rep", name: "Rae Reporter", token: "conformance-reporter" },
    { username: "outsider", token: "conformance-outsider" },
  ],
  groups: [
    { path: "acme", visibility: "private", members: { "sandbox-user": "developer", rep: "reporter" } },
  ],
  projects: [{ path: "acme/api", visibility: "private" }],
  jobs: [
    {
      project: "acme/api",
      pipelines: [
        {
          ref: "main",
          sha: SHA,
          created_at: "2023-05-01T09:00:00Z",
          jobs: [{ name: "deploy", stage: "deploy" }],
        },
      ],
    },
  ],
  protected_environments: [
    { project: "acme/api", name: "production", deploy_access_levels: [{ access_level: 40 }] },
  ],
  deployments: [
    {
      project: "acme/api",
      environment: "production",
      external_url: "https://acme.example/api",
      job: "deploy",
      created_at: "2023-05-01T09:05:00Z",
      merge_requests: [
        {
          iid: 1,
          title: "Add sign-in",
          author: "dev",
          labels: ["feature"],
          created_at: "2023-04-20T10:00:00Z",
        },
        { iid: 2, title: "Draft: docs", state: "opened", author: "dev", created_at: "2023-04-22T10:00:00Z" },
      ],
    },
    {
      project: "acme/api",
      environment: "staging",
      ref: "main",
      sha: SHA,
      created_at: "2023-05-02T10:00:00Z",
    },
    {
      project: "acme/api",
      environment: "review/feature-x",
      ref: "feature-x",
      status: "created",
      user: "dev",
      created_at: "2023-05-03T10:00:00Z",
    },
  ],
  dependencies: [
    {
      project: "acme/api",
      dependencies: [
        { name: "rails", version: "6.0.3", package_manager: "bundler", dependency_file_path: "Gemfile.lock" },
        {
          name: "minimist",
          version: "1.2.5",
          package_manager: "yarn",
          dependency_file_path: "yarn.lock",
          vulnerabilities: [{ name: "Prototype pollution in minimist", severity: "critical" }],
        },
        {
          name: "express",
          version: "4.17.1",
          package_manager: "npm",
          dependency_file_path: "package-lock.json",
        },
      ],
    },
  ],
};

const sandbox = { edition: "licensed" as const, fixture, clock: () => new Date("2023-06-15T12:00:00.000Z") };
const env = { SHA, REPORTER_TOKEN: "conformance-reporter", OUTSIDER_TOKEN: "conformance-outsider" };

describe("conformance: deployments, environments, templates and dependencies with real clients", () => {
  for (const script of ["deployments.py", "templates.py", "dependencies.py"]) {
    pythonCase({ title: `python-gitlab ${script}`, script, sandbox, env });
  }
  scriptCase({
    title: "ruby gitlab gem: deployments (seeded), environments, templates, dependencies",
    script: "ruby_deployments.rb",
    sandbox,
    env,
  });
  scriptCase({
    title: "Perl GitLab::API::v4: deployments (seeded), environments, templates",
    script: "perl_deployments.pl",
    sandbox,
    env,
  });
});
