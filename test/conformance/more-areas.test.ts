import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

/**
 * python-gitlab against the sandbox for milestones (project and group, promote), issue statistics, epic issues,
 * wiki pages and attachments, notification settings, error-tracking settings and SCIM. Each script runs against a
 * fresh in-process sandbox seeded with {@link fixture}. Skipped, with the reason in the test name, only when
 * Debian's python-gitlab is not installed for /usr/bin/python3.
 */
const SCIM_TOKEN = "conformance-scim-token";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@acme.example", token: "conformance-alice" },
  ],
  groups: [
    { path: "acme", visibility: "private" },
    { path: "acme/sub", visibility: "private" },
  ],
  projects: [
    { path: "acme/api", visibility: "private", members: { alice: "developer" } },
    { path: "acme/sub/deep", visibility: "private" },
  ],
  milestones: [{ project: "acme/api", title: "v1" }],
  issues: [
    { project: "acme/api", iid: 1, title: "Login fails", labels: ["bug"], milestone: "v1", author: "alice" },
    { project: "acme/api", iid: 2, title: "Docs typo", state: "closed", author: "alice" },
    { project: "acme/api", iid: 3, title: "Secret plan", confidential: true },
    { project: "acme/sub/deep", iid: 1, title: "Deep bug", labels: ["bug"] },
  ],
  epics: [{ group: "acme", iid: 1, title: "Platform", issues: ["acme/api#1", "acme/api#2"] }],
  wikis: [{ project: "acme/api", title: "Home", content: "Welcome" }],
  error_tracking: [
    {
      project: "acme/api",
      project_name: "api",
      tracker_external_url: "https://sentry.example.com/acme/api",
      api_url: "https://sentry.example.com/api/0/projects/acme/api",
    },
  ],
  scim: [{ group: "acme", token: SCIM_TOKEN, identities: [{ user: "alice", extern_uid: "alice-uid" }] }],
};

describe("python-gitlab conformance: milestones, issues, epics, wikis, notifications, error tracking, SCIM", () => {
  for (const script of ["milestones.py", "wikis.py", "notifications.py", "scim.py"]) {
    pythonCase({
      title: script,
      script,
      sandbox: { fixture },
      env: { ALICE_TOKEN: "conformance-alice", SCIM_TOKEN },
    });
  }
});
