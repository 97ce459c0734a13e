import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

const fixture = {
  groups: [{ path: "acme", visibility: "internal" }],
  projects: [{ path: "acme/api", visibility: "internal" }],
  jobs: [
    {
      project: "acme/api",
      pipelines: [
        {
          ref: "main",
          jobs: [
            { name: "build", stage: "build", artifacts: { "out/app.txt": "version 1\n" } },
            { name: "test", status: "failed", allow_failure: true },
          ],
        },
        {
          ref: "main",
          status: "success",
          jobs: [
            { name: "build", stage: "build", artifacts: { "out/app.txt": "version 2\n" } },
            { name: "deploy", stage: "deploy", status: "running", token: "conformance-job-token" },
          ],
        },
      ],
    },
  ],
  events: [
    { author: "sandbox-user", action: "pushed", project: "acme/api", created_at: "2023-01-15T10:00:00Z" },
    {
      author: "sandbox-user",
      action: "commented",
      project: "acme/api",
      target_type: "Note",
      created_at: "2023-03-01T10:00:00Z",
      note: { body: "LGTM", noteable_type: "Issue" },
    },
    {
      author: "root",
      action: "created",
      project: "acme/api",
      target_type: "Project",
      created_at: "2020-01-01T00:00:00Z",
    },
  ],
};

describe("conformance: python-gitlab access requests, snippets, jobs and artifacts, events", () => {
  pythonCase({
    title: "access requests, snippets, jobs/artifacts (job token, licensed) and events",
    script: "more_contract.py",
    sandbox: { edition: "licensed", fixture, clock: () => new Date("2023-06-15T12:00:00.000Z") },
    env: { JOB_TOKEN: "conformance-job-token" },
  });
});
