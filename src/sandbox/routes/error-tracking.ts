import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject } from "../auth.js";
import { forbidden, notFound } from "../errors.js";
import { FixtureError } from "../fixture.js";
import type { ProjectRec, Store } from "../store.js";

/**
 * Error-tracking settings of a project (contract "Error-tracking settings").
 *
 * - `GET /projects/:id/error_tracking/settings` and `PATCH …` with `active` (a required boolean; string forms such
 *   as "true"/"0" work). Both answer `{active, project_name, tracker_external_url, api_url}`.
 * - Project maintainers only (`authorize! :admin_operations`): the project lookup comes first (404 `Project Not
 *   Found` for a private project of a non-member), then 403 `{"message":"403 Forbidden"}` for anyone below
 *   Maintainer, a guest included (the platform's `authorize!` does not ask for a login first).
 * - A project without configured settings is 404 `{"message":"404 Error Tracking Setting Not Found"}`; PATCH only
 *   switches `active` of existing settings (states table: "PATCH with active, configured settings exist").
 *
 * Fixture key `error_tracking`: a list of `{ project: <full path>, active?: boolean (default true), project_name,
 * tracker_external_url, api_url }`.
 */

export interface ErrorTrackingRec {
  project_id: number;
  active: boolean;
  project_name: string;
  tracker_external_url: string;
  api_url: string;
}

function area(store: Store): { settings: ErrorTrackingRec[] } {
  return store.area("error_tracking", () => ({ settings: [] as ErrorTrackingRec[] }));
}

function settingsJson(s: ErrorTrackingRec): Record<string, unknown> {
  return {
    active: s.active,
    project_name: s.project_name,
    tracker_external_url: s.tracker_external_url,
    api_url: s.api_url,
  };
}

function maintainerProject(ctx: Ctx): ProjectRec {
  const project = findProject(ctx, ctx.path["id"]!);
  if (effectiveProjectLevel(ctx.store, ctx.user, project) < ACCESS.maintainer) throw forbidden();
  return project;
}

function findSettings(ctx: Ctx, project: ProjectRec): ErrorTrackingRec {
  const s = area(ctx.store).settings.find((x) => x.project_id === project.id);
  if (!s) throw notFound("Error Tracking Setting");
  return s;
}

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("error_tracking must be a list");
  value.forEach((raw, i) => {
    const where = `error_tracking[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw fail(`${where} must be a mapping`);
    const o = raw as Record<string, unknown>;
    const project = typeof o["project"] === "string" ? store.projectByFullPath(o["project"]) : undefined;
    if (!project) throw fail(`${where}.project "${String(o["project"])}" is not in projects`);
    const str = (k: string): string => {
      if (typeof o[k] !== "string") throw fail(`${where}.${k} is required (a string)`);
      return o[k] as string;
    };
    if (o["active"] !== undefined && typeof o["active"] !== "boolean")
      throw fail(`${where}.active must be true or false`);
    const settings = area(store).settings;
    if (settings.some((s) => s.project_id === project.id)) {
      throw fail(`${where}: ${String(o["project"])} has error-tracking settings twice`);
    }
    settings.push({
      project_id: project.id,
      active: o["active"] !== false,
      project_name: str("project_name"),
      tracker_external_url: str("tracker_external_url"),
      api_url: str("api_url"),
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("error_tracking", (value, { store, source }) => seed(value, store, source));

  app.get("/projects/:id/error_tracking/settings", (ctx) => {
    const project = maintainerProject(ctx);
    return settingsJson(findSettings(ctx, project));
  });

  app.patch("/projects/:id/error_tracking/settings", (ctx) => {
    const project = maintainerProject(ctx);
    const p = ctx.declare({ active: { type: "boolean", required: true } });
    const s = findSettings(ctx, project);
    s.active = p.active;
    return settingsJson(s);
  });
}
