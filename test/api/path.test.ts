import { describe, expect, it } from "vitest";
import { apiPath, encodeSegment, endpointTemplate } from "../../src/api/index.js";

describe("apiPath", () => {
  it("encodes a full path as one segment and keeps numbers as they are", () => {
    expect(apiPath`/projects/${"acme/platform"}/pipeline_schedules/${3}`).toBe(
      "/projects/acme%2Fplatform/pipeline_schedules/3",
    );
  });

  it("encodes keys, slugs and names as a single segment", () => {
    const key = "MY KEY/../x?y#z";
    expect(apiPath`/projects/${1}/pipeline_schedules/${2}/variables/${key}`).toBe(
      "/projects/1/pipeline_schedules/2/variables/MY%20KEY%2F..%2Fx%3Fy%23z",
    );
    expect(apiPath`/projects/${"a/b"}/wikis/${"docs/setup guide"}`).toBe(
      "/projects/a%2Fb/wikis/docs%2Fsetup%20guide",
    );
    expect(apiPath`/projects/${"g/p"}/protected_environments/${"review/*"}`).toBe(
      "/projects/g%2Fp/protected_environments/review%2F*",
    );
  });

  it("rejects values that cannot be a path segment", () => {
    expect(() => apiPath`/projects/${""}`).toThrow(/must not be empty/);
    expect(() => apiPath`/projects/${1.5}`).toThrow(/non-negative integer/);
    expect(() => encodeSegment(Number.NaN)).toThrow(/non-negative integer/);
  });
});

describe("endpointTemplate", () => {
  it("gives the exact template of a path built with apiPath", () => {
    const path = apiPath`/projects/${"acme/api"}/pipeline_schedules/${7}/variables/${"DEPLOY_KEY"}`;
    expect(endpointTemplate(path)).toBe("/projects/:id/pipeline_schedules/:id/variables/:id");
  });

  it("replaces numeric ids and encoded full paths in other paths, and drops the query", () => {
    expect(endpointTemplate("/projects/acme%2Fplatform/pipeline_schedules?per_page=100")).toBe(
      "/projects/:id/pipeline_schedules",
    );
    expect(endpointTemplate("/groups/42/badges/render")).toBe("/groups/:id/badges/render");
    expect(endpointTemplate("/application/settings")).toBe("/application/settings");
  });
});
