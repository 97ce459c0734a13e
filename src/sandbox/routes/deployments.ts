import { createHash } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, hasPublicAccess, requireAuth } from "../auth.js";
import { projectJson, userBasic } from "../entities.js";
import { forbidden, paramError, recordNotFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { coerceBoolean } from "../params.js";
import type { ProjectRec, Store, UserRec } from "../store.js";
import { type JobRec, jobJson, jobsArea } from "./jobs.js";
import {
  fixtureTime,
  listMergeRequests,
  mergeRequestsArea,
  milestoneMergeRequests,
  seedMergeRequest,
} from "./merge-requests.js";
import { setMilestoneMergeRequestSource } from "./milestones.js";
import { fakeCommitSha } from "./pipeline-schedules.js";
import { deployableBy } from "./protected-environments.js";

/**
 * Deployments and the environments they create (contract "Deployments" and "Deployment"; the platform's 13.x
 * `lib/api/deployments.rb`, `DeploymentsFinder`, the `Deployment` state machine, `Deployments::CreateService`,
 * `lib/api/environments.rb`). Where the contract is silent the sandbox follows the platform:
 *
 * - Every route needs a signed-in user (`before { authenticate! }`: 401 for a guest); parameters are checked next
 *   (Grape 400 `{"error":...}`), then the project (`404 Project Not Found` when invisible). Reading needs Reporter,
 *   or a public project, or an internal one for a user who is not external (`read_deployment` and `read_environment`
 *   come with `public_access`); creating and updating need Developer (`create_deployment`,
 *   `create_environment`, `update_deployment`): 403 below that. A project with CI/CD (`jobs_enabled`) off forbids
 *   them all, administrators included (`builds_disabled` prevents the abilities).
 * - `POST /projects/:id/deployments`: `environment`, `sha`, `ref`, `tag` (boolean) and `status` are required;
 *   `status` is one of `running`, `success`, `failed`, `canceled` (`created` is the initial state, not a value the
 *   API takes). The environment is found by name or created: the first deployment brings it into being. An invalid
 *   environment name is 400 `{"message":{"name":[...]}}` (13.x renders the not-yet-assigned deployment there and
 *   answers 500; later releases give this 400). Then, on the licensed edition, a protected environment the caller may
 *   not deploy to is 403 (the environment stays created, as on the platform; see routes/protected-environments.ts
 *   `deployableBy`). The sandbox has no repositories: a `sha` exists when it is a commit id (7 to 40 hex digits) and
 *   a `ref` when it is a well-formed branch or tag name (`git check-ref-format`), otherwise 400
 *   `{"message":{"sha":["The commit does not exist"],"ref":["The branch or tag does not exist"]}}` (blank ones
 *   also "can't be blank"). 201 with `deployable: null` and the caller as `user`.
 * - `PUT /projects/:id/deployments/:deployment_id`: `status` is required (same values). Transitions, as the state
 *   machine allows them: `running` (event `run`) only from `created`; `success` (`succeed`), `failed` (`drop`) and
 *   `canceled` (`cancel`) from any other status; otherwise 400 `{"message":{"status":["cannot transition via
 *   \"run\""]}}`. Finishing sets `finished_at` (not shown in the 13.x entity). A deployment made by a CI job is 403
 *   `403 Forbidden - Deployments created using GitLab CI can not be updated using the API`; protected environments
 *   gate updates as they gate creation. A missing deployment is `{"message":"404 Not found"}`.
 * - `GET /projects/:id/deployments`: `order_by` `id` (default), `iid`, `created_at` (the same as `id`), `updated_at`
 *   (then `id` descending), `ref` (then `id`); `sort` `asc` (default) | `desc`; `updated_after`/`updated_before`
 *   (inclusive); `environment` (exact name); `status` (the five statuses and `skipped`). Paginated.
 * - Entity: `id, iid, ref, sha, created_at, updated_at, user` (brief), `environment` (`id, name, slug, external_url`),
 *   `deployable` (the Job entity, its pipeline with `created_at`, `updated_at`, `web_url`; or null), `status`.
 * - `GET …/deployments/:deployment_id/merge_requests`: Reporter; the merge requests the deployment shipped, with the
 *   merge request listing's parameters (routes/merge-requests.ts). The deployment is looked up in the project, as
 *   the other deployment routes do: another project's deployment, or none, is `{"message":"404 Not found"}`. (The
 *   13.x finder filters merge requests by deployment id alone, so through any project a reader could list another
 *   project's; the sandbox does not copy that.)
 * - Environments, which clients list beside deployments: `GET /projects/:id/environments` (`name` exact | `search`
 *   a case-insensitive name prefix; both is 400 `name, search cannot be used together`; by id; paginated) and
 *   `GET /projects/:id/environments/:environment_id` (with `last_deployment`, the latest successful one, without its
 *   environment). Entity: `id, name, slug, external_url, project, state` (`available`). The slug follows
 *   `Environment#generate_slug` (at most 24 characters; a changed or long name gets a 6-character suffix, which the
 *   sandbox derives from the name instead of drawing at random).
 *
 * Fixture key `deployments` (seeded after `jobs`; protected environments do not gate the fixture): a list of `{ project,
 * environment, external_url?, ref?, sha?, tag?, status? (success), user? (root), created_at?, updated_at?, job?,
 * merge_requests? }`; `job` names a job of the `jobs` fixture (the latest with that name, on `ref` when given) whose
 * pipeline gives `ref`, `sha`, `tag` and `user`. See src/sandbox/README.md.
 */

export const DEPLOYMENT_STATUSES = [
  "created",
  "running",
  "success",
  "failed",
  "canceled",
  "skipped",
] as const;
type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];
const API_STATUSES = ["running", "success", "failed", "canceled"] as const;
type ApiStatus = (typeof API_STATUSES)[number];
const FINISHED: readonly DeploymentStatus[] = ["success", "failed", "canceled"];
const EVENTS: Record<ApiStatus, string> = {
  running: "run",
  success: "succeed",
  failed: "drop",
  canceled: "cancel",
};

export interface EnvironmentRec {
  id: number;
  project_id: number;
  name: string;
  slug: string;
  external_url: string | null;
  state: "available" | "stopped";
  created_at: string;
  updated_at: string;
}

export interface DeploymentRec {
  id: number;
  iid: number;
  project_id: number;
  environment_id: number;
  ref: string;
  sha: string;
  tag: boolean;
  status: DeploymentStatus;
  user_id: number;
  /** The CI job that deployed, or null for deployments made through the API. */
  deployable_id: number | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

interface DeploymentsArea {
  environments: EnvironmentRec[];
  deployments: DeploymentRec[];
}

function deploymentsArea(store: Store): DeploymentsArea {
  return store.area<DeploymentsArea>("deployments", () => ({ environments: [], deployments: [] }));
}

// ---- environments ----

const ENVIRONMENT_NAME = /^[a-zA-Z0-9_${}. -]([a-zA-Z0-9_/${}. -]*[a-zA-Z0-9_${}. -])?$/;
const ENVIRONMENT_NAME_MESSAGE =
  "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";

/** The `Environment` model's validation of `name`: full list of messages, empty when valid. */
function environmentNameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.trim() === "") errors.push("can't be blank");
  if (name.length > 255) errors.push("is too long (maximum is 255 characters)");
  if (!ENVIRONMENT_NAME.test(name)) errors.push(ENVIRONMENT_NAME_MESSAGE);
  return errors;
}

/** `Environment#generate_slug`, with a suffix derived from the project and name instead of a random one. */
function environmentSlug(projectId: number, name: string): string {
  let slug = name.toLowerCase().replace(/[^a-z0-9]/g, "-");
  if (!/^[a-z]/.test(slug)) slug = `env-${slug}`;
  slug = slug.replace(/-+/g, "-");
  if (slug.length <= 24 && slug === name) return slug.replace(/-$/, "");
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const digest = createHash("sha1").update(`environment:${projectId}:${name}`).digest();
  const suffix = [...digest.subarray(0, 6)].map((b) => alphabet[b % alphabet.length]).join("");
  return `${slug.slice(0, 17)}-${suffix}`;
}

/** `find_or_create_by_name`: the project's environment of that name, created when missing; the name's errors when invalid. */
function findOrCreateEnvironment(store: Store, project: ProjectRec, name: string): EnvironmentRec | string[] {
  const area = deploymentsArea(store);
  const found = area.environments.find((e) => e.project_id === project.id && e.name === name);
  if (found) return found;
  const errors = environmentNameErrors(name);
  if (errors.length > 0) return errors;
  const now = store.nowIso();
  const env: EnvironmentRec = {
    id: store.nextId("environments"),
    project_id: project.id,
    name,
    slug: environmentSlug(project.id, name),
    external_url: null,
    state: "available",
    created_at: now,
    updated_at: now,
  };
  area.environments.push(env);
  return env;
}

function environmentBasic(env: EnvironmentRec): Record<string, unknown> {
  return { id: env.id, name: env.name, slug: env.slug, external_url: env.external_url };
}

// ---- deployments ----

/**
 * Whether the sandbox counts `ref` as an existing branch or tag: a well-formed ref name (`git check-ref-format`),
 * at most `maxLength` characters (255 for a deployment's ref).
 */
export function wellFormedRef(ref: string, maxLength = 255): boolean {
  if (ref === "" || ref === "@" || ref.length > maxLength) return false;
  if ([...ref].some((ch) => ch.charCodeAt(0) <= 32 || ch.charCodeAt(0) === 127 || "~^:?*[\\".includes(ch))) {
    return false;
  }
  if (ref.includes("..") || ref.includes("@{") || ref.includes("//")) return false;
  if (/^[/-]/.test(ref) || /[/.]$/.test(ref)) return false;
  return ref.split("/").every((part) => !part.startsWith(".") && !part.endsWith(".lock"));
}

/** The `Deployment` model's validations on create. */
function deploymentErrors(sha: string, ref: string): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };
  if (sha.trim() === "") add("sha", "can't be blank");
  if (ref.trim() === "") add("ref", "can't be blank");
  if (!/^[0-9a-fA-F]{7,40}$/.test(sha)) add("sha", "The commit does not exist");
  if (!wellFormedRef(ref)) add("ref", "The branch or tag does not exist");
  return errors;
}

/** Applies a status change through the state machine; the event name when the transition is not allowed. */
function transition(store: Store, d: DeploymentRec, to: ApiStatus): string | undefined {
  const allowed = to === "running" ? d.status === "created" : d.status !== to;
  if (!allowed) return EVENTS[to];
  const now = store.nowIso();
  d.status = to;
  d.updated_at = now;
  if (FINISHED.includes(to)) d.finished_at = now;
  return undefined;
}

function deployableJson(ctx: Ctx, job: JobRec): Record<string, unknown> {
  const out = jobJson(ctx, job);
  const pipeline = jobsArea(ctx.store).pipelines.find((p) => p.id === job.pipeline_id);
  const project = ctx.store.project(job.project_id);
  if (pipeline && project) {
    out["pipeline"] = {
      id: pipeline.id,
      sha: pipeline.sha,
      ref: pipeline.ref,
      status: pipeline.status,
      created_at: pipeline.created_at,
      updated_at: pipeline.updated_at,
      web_url: `${ctx.baseUrl}/${ctx.store.projectFullPath(project)}/-/pipelines/${pipeline.id}`,
    };
  }
  return out;
}

function deploymentJson(ctx: Ctx, d: DeploymentRec, withEnvironment = true): Record<string, unknown> {
  const store = ctx.store;
  const user = store.user(d.user_id);
  const env = deploymentsArea(store).environments.find((e) => e.id === d.environment_id);
  const job =
    d.deployable_id === null ? undefined : jobsArea(store).jobs.find((j) => j.id === d.deployable_id);
  const out: Record<string, unknown> = {
    id: d.id,
    iid: d.iid,
    ref: d.ref,
    sha: d.sha,
    created_at: d.created_at,
    updated_at: d.updated_at,
    user: user ? userBasic(ctx, user) : null,
  };
  if (withEnvironment) out["environment"] = env ? environmentBasic(env) : null;
  out["deployable"] = job ? deployableJson(ctx, job) : null;
  out["status"] = d.status;
  return out;
}

function environmentJson(
  ctx: Ctx,
  env: EnvironmentRec,
  withLastDeployment: boolean,
): Record<string, unknown> {
  const project = ctx.store.project(env.project_id);
  const out: Record<string, unknown> = {
    ...environmentBasic(env),
    project: project ? projectJson(ctx, ctx.store, project) : null,
  };
  if (withLastDeployment) {
    const last = deploymentsArea(ctx.store)
      .deployments.filter((d) => d.environment_id === env.id && d.status === "success")
      .sort((a, b) => b.id - a.id)[0];
    out["last_deployment"] = last ? deploymentJson(ctx, last, false) : null;
  }
  out["state"] = env.state;
  return out;
}

/**
 * `authenticate!`, the project, then an ability on it: reading (`read_deployment`, `read_environment`) needs Reporter
 * or the project's public access; writing Developer. `builds_disabled` prevents every one of them.
 */
function projectFor(ctx: Ctx, need: "read" | "write"): { user: UserRec; project: ProjectRec } {
  const user = requireAuth(ctx);
  const project = findProject(ctx, ctx.path["id"]!);
  if (!project.jobs_enabled || !allowed(ctx, user, project, need)) throw forbidden();
  return { user, project };
}

function allowed(ctx: Ctx, user: UserRec, project: ProjectRec, need: "read" | "write"): boolean {
  const level = effectiveProjectLevel(ctx.store, user, project);
  if (need === "write") return level >= ACCESS.developer;
  return level >= ACCESS.reporter || hasPublicAccess(user, project);
}

/** The protected-environment gate (licensed edition only). */
function mayDeploy(ctx: Ctx, user: UserRec, env: EnvironmentRec): boolean {
  return !ctx.licensed || deployableBy(ctx.store, user, env.project_id, env.name);
}

const LIST_SPEC = {
  order_by: { type: "string", values: ["id", "iid", "created_at", "updated_at", "ref"], default: "id" },
  sort: { type: "string", values: ["asc", "desc"], default: "asc" },
  updated_after: { type: "datetime" },
  updated_before: { type: "datetime" },
  environment: { type: "string" },
  status: { type: "string", values: DEPLOYMENT_STATUSES },
} as const;

function sortDeployments(rows: DeploymentRec[], orderBy: string, sort: string): DeploymentRec[] {
  const dir = sort === "desc" ? -1 : 1;
  const cmp: Record<string, (a: DeploymentRec, b: DeploymentRec) => number> = {
    id: (a, b) => dir * (a.id - b.id),
    created_at: (a, b) => dir * (a.id - b.id),
    iid: (a, b) => dir * (a.iid - b.iid),
    updated_at: (a, b) => dir * (Date.parse(a.updated_at) - Date.parse(b.updated_at)) || b.id - a.id,
    ref: (a, b) => dir * (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0) || a.id - b.id,
  };
  return rows.sort(cmp[orderBy]);
}

// ---- fixture ----

function seed(value: unknown, store: Store, source: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${source}: ${msg}`);
  if (!Array.isArray(value)) throw fail("deployments must be a list");
  const area = deploymentsArea(store);
  const time = (v: unknown, where: string) => fixtureTime(v, fail, where);
  value.forEach((raw, n) => {
    const where = `deployments[${n}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw fail(`${where} must be a mapping`);
    const o = raw as Record<string, unknown>;
    const project = typeof o["project"] === "string" ? store.projectByFullPath(o["project"]) : undefined;
    if (!project) throw fail(`${where}.project "${String(o["project"])}" is not in projects`);
    if (typeof o["environment"] !== "string") throw fail(`${where}.environment is required (a name)`);
    const env = findOrCreateEnvironment(store, project, o["environment"]);
    if (Array.isArray(env)) throw fail(`${where}.environment "${o["environment"]}" ${env.join("; ")}`);
    if (o["external_url"] !== undefined) {
      if (typeof o["external_url"] !== "string" || !/^https?:\/\/[^\s]+$/.test(o["external_url"])) {
        throw fail(`${where}.external_url must be an http(s) URL`);
      }
      env.external_url = o["external_url"];
    }
    let job: JobRec | undefined;
    if (o["job"] !== undefined) {
      const jobs = jobsArea(store);
      job = jobs.jobs
        .filter((j) => j.project_id === project.id && j.name === o["job"])
        .filter(
          (j) =>
            o["ref"] === undefined ||
            jobs.pipelines.some((p) => p.id === j.pipeline_id && p.ref === o["ref"]),
        )
        .sort((a, b) => b.id - a.id)[0];
      if (!job) throw fail(`${where}.job "${String(o["job"])}" is not a job of ${o["project"]} in jobs`);
    }
    const pipeline = job ? jobsArea(store).pipelines.find((p) => p.id === job.pipeline_id) : undefined;
    const ref =
      o["ref"] === undefined ? (pipeline?.ref ?? project.default_branch ?? "main") : String(o["ref"]);
    const sha = o["sha"] === undefined ? (pipeline?.sha ?? fakeCommitSha(project.id, ref)) : String(o["sha"]);
    const errors = deploymentErrors(sha, ref);
    if (Object.keys(errors).length > 0) {
      throw fail(
        `${where}: ${Object.entries(errors)
          .map(([k, m]) => `${k} ${m.join(", ")}`)
          .join("; ")}`,
      );
    }
    const tag = o["tag"] === undefined ? (pipeline?.tag ?? false) : coerceBoolean(o["tag"]);
    if (tag === undefined) throw fail(`${where}.tag must be true or false`);
    const status = (o["status"] ?? "success") as DeploymentStatus;
    if (!DEPLOYMENT_STATUSES.includes(status)) {
      throw fail(`${where}.status must be one of ${DEPLOYMENT_STATUSES.join(", ")}`);
    }
    const username = o["user"] ?? (pipeline ? store.user(pipeline.user_id)?.username : "root");
    const user = typeof username === "string" ? store.userByUsername(username) : undefined;
    if (!user) throw fail(`${where}.user names "${String(username)}", which is not in users`);
    const createdAt = time(o["created_at"], `${where}.created_at`) ?? store.nowIso();
    const updatedAt = time(o["updated_at"], `${where}.updated_at`) ?? createdAt;
    const d: DeploymentRec = {
      id: store.nextId("deployments"),
      iid: Math.max(0, ...area.deployments.filter((x) => x.project_id === project.id).map((x) => x.iid)) + 1,
      project_id: project.id,
      environment_id: env.id,
      ref,
      sha,
      tag,
      status,
      user_id: user.id,
      deployable_id: job?.id ?? null,
      created_at: createdAt,
      updated_at: updatedAt,
      finished_at: FINISHED.includes(status) ? updatedAt : null,
    };
    area.deployments.push(d);
    if (o["merge_requests"] === undefined) return;
    if (!Array.isArray(o["merge_requests"])) throw fail(`${where}.merge_requests must be a list`);
    const links = mergeRequestsArea(store).links;
    o["merge_requests"].forEach((m, k) => {
      const mr = seedMergeRequest(
        store,
        project,
        m,
        { target_branch: ref, created_at: createdAt },
        fail,
        `${where}.merge_requests[${k}]`,
      );
      if (!links.some((l) => l.deployment_id === d.id && l.merge_request_id === mr.id)) {
        links.push({ deployment_id: d.id, merge_request_id: mr.id, environment_id: env.id });
      }
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("deployments", (value, { store, source }) => seed(value, store, source));
  setMilestoneMergeRequestSource(milestoneMergeRequests);

  const findDeployment = (ctx: Ctx, project: ProjectRec, id: number): DeploymentRec => {
    const d = deploymentsArea(ctx.store).deployments.find((x) => x.project_id === project.id && x.id === id);
    if (!d) throw recordNotFound();
    return d;
  };

  app.get("/projects/:id/deployments", (ctx) => {
    requireAuth(ctx);
    const p = ctx.declare(LIST_SPEC);
    const { project } = projectFor(ctx, "read");
    const area = deploymentsArea(ctx.store);
    const envIds = new Set(
      area.environments
        .filter((e) => e.project_id === project.id && e.name === p.environment)
        .map((e) => e.id),
    );
    const t = Date.parse;
    const rows = area.deployments.filter(
      (d) =>
        d.project_id === project.id &&
        (p.environment === undefined || p.environment === "" || envIds.has(d.environment_id)) &&
        (p.status === undefined || d.status === p.status) &&
        (p.updated_after === undefined || t(d.updated_at) >= t(p.updated_after)) &&
        (p.updated_before === undefined || t(d.updated_at) <= t(p.updated_before)),
    );
    return ctx.paginate(sortDeployments(rows, p.order_by, p.sort), (d) => deploymentJson(ctx, d));
  });

  app.get("/projects/:id/deployments/:deployment_id", (ctx) => {
    requireAuth(ctx);
    const { deployment_id } = ctx.declare({ deployment_id: { type: "integer", required: true } });
    const { project } = projectFor(ctx, "read");
    return deploymentJson(ctx, findDeployment(ctx, project, deployment_id));
  });

  app.post("/projects/:id/deployments", (ctx) => {
    requireAuth(ctx);
    const p = ctx.declare({
      environment: { type: "string", required: true },
      sha: { type: "string", required: true },
      ref: { type: "string", required: true },
      tag: { type: "boolean", required: true },
      status: { type: "string", required: true, values: API_STATUSES },
    });
    const { user, project } = projectFor(ctx, "write");
    const env = findOrCreateEnvironment(ctx.store, project, p.environment);
    if (Array.isArray(env)) throw validation({ name: env });
    if (!mayDeploy(ctx, user, env)) throw forbidden();
    const errors = deploymentErrors(p.sha, p.ref);
    if (Object.keys(errors).length > 0) throw validation(errors);
    const area = deploymentsArea(ctx.store);
    const now = ctx.store.nowIso();
    const d: DeploymentRec = {
      id: ctx.store.nextId("deployments"),
      iid: Math.max(0, ...area.deployments.filter((x) => x.project_id === project.id).map((x) => x.iid)) + 1,
      project_id: project.id,
      environment_id: env.id,
      ref: p.ref,
      sha: p.sha,
      tag: p.tag,
      status: "created",
      user_id: user.id,
      deployable_id: null,
      created_at: now,
      updated_at: now,
      finished_at: null,
    };
    transition(ctx.store, d, p.status as ApiStatus);
    area.deployments.push(d);
    return deploymentJson(ctx, d);
  });

  app.put("/projects/:id/deployments/:deployment_id", (ctx) => {
    requireAuth(ctx);
    const p = ctx.declare({
      deployment_id: { type: "integer", required: true },
      status: { type: "string", required: true, values: API_STATUSES },
    });
    const { user, project } = projectFor(ctx, "read");
    const d = findDeployment(ctx, project, p.deployment_id);
    const env = deploymentsArea(ctx.store).environments.find((e) => e.id === d.environment_id);
    if (!allowed(ctx, user, project, "write") || (env && !mayDeploy(ctx, user, env))) throw forbidden();
    if (d.deployable_id !== null) {
      throw forbidden("Deployments created using GitLab CI can not be updated using the API");
    }
    const refused = transition(ctx.store, d, p.status as ApiStatus);
    if (refused) throw validation({ status: [`cannot transition via "${refused}"`] });
    return deploymentJson(ctx, d);
  });

  app.get("/projects/:id/deployments/:deployment_id/merge_requests", (ctx) => {
    requireAuth(ctx);
    const { deployment_id } = ctx.declare({ deployment_id: { type: "integer", required: true } });
    const { project } = projectFor(ctx, "read");
    const d = findDeployment(ctx, project, deployment_id);
    const env = deploymentsArea(ctx.store).environments.find((e) => e.id === d.environment_id);
    const mrs = mergeRequestsArea(ctx.store);
    const ids = new Set(mrs.links.filter((l) => l.deployment_id === d.id).map((l) => l.merge_request_id));
    const shipped = { environmentName: env?.name ?? "", finishedAt: d.finished_at };
    return listMergeRequests(
      ctx,
      project,
      mrs.rows.filter((m) => m.project_id === project.id && ids.has(m.id)),
      shipped,
    );
  });

  app.get("/projects/:id/environments", (ctx) => {
    requireAuth(ctx);
    const p = ctx.declare({ name: { type: "string" }, search: { type: "string" } });
    if (ctx.has("name") && ctx.has("search")) throw paramError("name, search cannot be used together");
    const { project } = projectFor(ctx, "read");
    const prefix = p.search?.toLowerCase();
    const rows = deploymentsArea(ctx.store)
      .environments.filter(
        (e) =>
          e.project_id === project.id &&
          (p.name === undefined || e.name === p.name) &&
          (prefix === undefined || e.name.toLowerCase().startsWith(prefix)),
      )
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(rows, (e) => environmentJson(ctx, e, false));
  });

  app.get("/projects/:id/environments/:environment_id", (ctx) => {
    requireAuth(ctx);
    const { environment_id } = ctx.declare({ environment_id: { type: "integer", required: true } });
    const { project } = projectFor(ctx, "read");
    const env = deploymentsArea(ctx.store).environments.find(
      (e) => e.project_id === project.id && e.id === environment_id,
    );
    if (!env) throw recordNotFound();
    return environmentJson(ctx, env, true);
  });
}
