import { describe } from "vitest";
import { pythonCase } from "./python-gitlab.js";

/**
 * python-gitlab drives members (group and project, inherited, the last owner, blocked users), shares (group and
 * project) and labels (project and group, priorities, subscriptions, counts) against the sandbox; see
 * python/members_shares_labels.py. Skipped, with the reason in the name, only when python-gitlab is not installed.
 */
const fixture = {
  users: [
    { username: "alice" },
    { username: "bob" },
    { username: "carol" },
    { username: "maint", token: "maint-token" },
    { username: "gm", token: "guest-member-token" },
  ],
  groups: [
    {
      path: "acme",
      visibility: "private",
      members: { alice: "owner", maint: "maintainer", "sandbox-user": "developer", gm: "guest" },
    },
    { path: "acme/team", visibility: "private" },
    { path: "partners", visibility: "private" },
    { path: "locked", visibility: "private", share_with_group_lock: true },
    { path: "open", visibility: "public" },
  ],
  projects: [
    { path: "acme/api", visibility: "private" },
    { path: "locked/app", visibility: "private" },
    { path: "open/site", visibility: "public" },
  ],
  labels: [{ group: "acme", name: "org", color: "#FF0000" }],
  issues: [{ project: "acme/api", title: "Tagged", labels: ["org"] }],
};

describe("conformance with python-gitlab: members, shares, labels", () => {
  pythonCase({
    title: "members, shares and labels",
    script: "members_shares_labels.py",
    sandbox: { fixture },
    env: { MAINT_TOKEN: "maint-token", GUEST_TOKEN: "guest-member-token" },
  });
});
