/**
 * Every endpoint of the contract's Endpoints section (`shared/spec/rest-interface.md`, beside the repository) has
 * its case in the contract endpoint tables (test/sandbox/contract-*.test.ts): one `it("<METHOD> <path> | ...")`
 * per endpoint. The list below is the contract's, kept here by hand (no test reads the contract): 120 method and
 * path pairs, with the access-request rows written out for groups and projects and the notification-settings rows
 * for both of their paths, as the contract says each exists for both. SCIM paths are relative to the SCIM base.
 * A missing case, a second case for one endpoint, or a case naming an endpoint the contract does not list fails.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ENDPOINTS: Record<string, string[]> = {
  "SCIM (SCIM base)": [
    "GET /groups/:group_path/Users",
    "GET /groups/:group_path/Users/:id",
    "POST /groups/:group_path/Users",
    "PATCH /groups/:group_path/Users/:id",
    "DELETE /groups/:group_path/Users/:id",
  ],
  "Issue statistics": [
    "GET /issues_statistics",
    "GET /groups/:id/issues_statistics",
    "GET /projects/:id/issues_statistics",
  ],
  Groups: [
    "GET /groups",
    "GET /groups/:id/subgroups",
    "GET /groups/:id/projects",
    "GET /groups/:id",
    "POST /groups/:id/export",
    "GET /groups/:id/export/download",
    "POST /groups/import",
  ],
  "Pipeline schedules": [
    "GET /projects/:id/pipeline_schedules",
    "GET /projects/:id/pipeline_schedules/:pipeline_schedule_id",
    "POST /projects/:id/pipeline_schedules",
    "PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id",
    "POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/take_ownership",
    "DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id",
    "POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/play",
    "POST /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables",
    "PUT /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key",
    "DELETE /projects/:id/pipeline_schedules/:pipeline_schedule_id/variables/:key",
  ],
  "Pipeline triggers": [
    "GET /projects/:id/triggers",
    "GET /projects/:id/triggers/:trigger_id",
    "POST /projects/:id/triggers",
    "PUT /projects/:id/triggers/:trigger_id",
    "DELETE /projects/:id/triggers/:trigger_id",
  ],
  Wikis: [
    "GET /projects/:id/wikis",
    "GET /projects/:id/wikis/:slug",
    "POST /projects/:id/wikis",
    "PUT /projects/:id/wikis/:slug",
    "DELETE /projects/:id/wikis/:slug",
    "POST /projects/:id/wikis/attachments",
  ],
  "Milestones (project)": [
    "GET /projects/:id/milestones",
    "GET /projects/:id/milestones/:milestone_id",
    "POST /projects/:id/milestones",
    "PUT /projects/:id/milestones/:milestone_id",
    "DELETE /projects/:id/milestones/:milestone_id",
    "GET /projects/:id/milestones/:milestone_id/issues",
    "GET /projects/:id/milestones/:milestone_id/merge_requests",
    "POST /projects/:id/milestones/:milestone_id/promote",
    "GET /projects/:id/milestones/:milestone_id/burndown_events",
  ],
  "Application settings": ["GET /application/settings", "PUT /application/settings"],
  "Deploy keys": [
    "GET /deploy_keys",
    "GET /projects/:id/deploy_keys",
    "GET /projects/:id/deploy_keys/:key_id",
    "POST /projects/:id/deploy_keys",
    "PUT /projects/:id/deploy_keys/:key_id",
    "DELETE /projects/:id/deploy_keys/:key_id",
    "POST /projects/:id/deploy_keys/:key_id/enable",
  ],
  "SSH keys lookup": ["GET /keys/:id", "GET /keys"],
  "Broadcast messages": [
    "GET /broadcast_messages",
    "GET /broadcast_messages/:id",
    "POST /broadcast_messages",
    "PUT /broadcast_messages/:id",
    "DELETE /broadcast_messages/:id",
  ],
  Deployments: [
    "GET /projects/:id/deployments",
    "GET /projects/:id/deployments/:deployment_id",
    "POST /projects/:id/deployments",
    "PUT /projects/:id/deployments/:deployment_id",
    "GET /projects/:id/deployments/:deployment_id/merge_requests",
  ],
  Badges: [
    "GET /projects/:id/badges",
    "GET /projects/:id/badges/:badge_id",
    "POST /projects/:id/badges",
    "PUT /projects/:id/badges/:badge_id",
    "DELETE /projects/:id/badges/:badge_id",
    "GET /projects/:id/badges/render",
  ],
  "Access requests": [
    "GET /groups/:id/access_requests",
    "POST /groups/:id/access_requests",
    "PUT /groups/:id/access_requests/:user_id/approve",
    "DELETE /groups/:id/access_requests/:user_id",
    "GET /projects/:id/access_requests",
    "POST /projects/:id/access_requests",
    "PUT /projects/:id/access_requests/:user_id/approve",
    "DELETE /projects/:id/access_requests/:user_id",
  ],
  "Protected environments": [
    "GET /projects/:id/protected_environments",
    "GET /projects/:id/protected_environments/:name",
    "POST /projects/:id/protected_environments",
    "DELETE /projects/:id/protected_environments/:name",
  ],
  "System hooks": ["GET /hooks", "POST /hooks", "GET /hooks/:id", "DELETE /hooks/:id"],
  "Notification settings": [
    "GET /notification_settings",
    "PUT /notification_settings",
    "GET /groups/:id/notification_settings",
    "PUT /groups/:id/notification_settings",
    "GET /projects/:id/notification_settings",
    "PUT /projects/:id/notification_settings",
  ],
  Events: ["GET /events", "GET /users/:id/events", "GET /projects/:project_id/events"],
  Jobs: [
    "GET /projects/:id/jobs",
    "GET /projects/:id/pipelines/:pipeline_id/jobs",
    "GET /projects/:id/jobs/:job_id",
    "GET /projects/:id/jobs/:job_id/artifacts",
    "GET /projects/:id/jobs/artifacts/:ref_name/download",
    "GET /projects/:id/jobs/:job_id/artifacts/*artifact_path",
  ],
  "Error-tracking settings": [
    "GET /projects/:id/error_tracking/settings",
    "PATCH /projects/:id/error_tracking/settings",
  ],
  Snippets: [
    "GET /snippets",
    "GET /snippets/:id",
    "GET /snippets/:id/raw",
    "POST /snippets",
    "PUT /snippets/:id",
    "DELETE /snippets/:id",
    "GET /snippets/public",
    "GET /snippets/:id/user_agent_detail",
  ],
  Templates: ["GET /projects/:id/templates/:type", "GET /projects/:id/templates/:type/:key"],
  Dependencies: ["GET /projects/:id/dependencies"],
  "Epic issues": [
    "GET /groups/:id/epics/:epic_iid/issues",
    "POST /groups/:id/epics/:epic_iid/issues/:issue_id",
    "DELETE /groups/:id/epics/:epic_iid/issues/:epic_issue_id",
    "PUT /groups/:id/epics/:epic_iid/issues/:epic_issue_id",
  ],
};

const HERE = fileURLToPath(new URL(".", import.meta.url));
const SELF = "contract-endpoints.test.ts";

/** `METHOD path` of every case whose title starts with one, per file. */
function cases(): { endpoint: string; file: string }[] {
  const found: { endpoint: string; file: string }[] = [];
  const files = readdirSync(HERE).filter((f) => /^contract-.*\.test\.ts$/.test(f) && f !== SELF);
  for (const file of files) {
    const source = readFileSync(`${HERE}${file}`, "utf8");
    for (const m of source.matchAll(/\bit\(\s*["'`]((?:GET|POST|PUT|PATCH|DELETE) [^\s|"'`]+)/g)) {
      found.push({ endpoint: m[1]!, file });
    }
  }
  return found;
}

describe("the contract's Endpoints section is covered by the contract endpoint tables", () => {
  const all = Object.values(ENDPOINTS).flat();
  const found = cases();

  it("the list holds the contract's 120 endpoints, each once", () => {
    expect(all.length).toBe(120);
    expect(new Set(all).size).toBe(all.length);
  });

  it("every endpoint has exactly one case", () => {
    const missing = all.filter((e) => !found.some((f) => f.endpoint === e));
    expect(missing, "endpoints without a case").toEqual([]);
    const twice = all.filter((e) => found.filter((f) => f.endpoint === e).length > 1);
    expect(twice, "endpoints with more than one case").toEqual([]);
  });

  it("every case names an endpoint of the contract", () => {
    const unknown = found.filter((f) => !all.includes(f.endpoint)).map((f) => `${f.file}: ${f.endpoint}`);
    expect(unknown).toEqual([]);
  });
});
