import { createHash } from "node:crypto";
import { crc32, deflateRawSync } from "node:zlib";
import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, canReadProject, effectiveProjectLevel } from "../auth.js";
import { userFull } from "../entities.js";
import { badRequest, forbidden, HttpError, notFound, recordNotFound, unauthorized } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { raw } from "../respond.js";
import { type ProjectRec, randomToken, type Store, tokenDigest, type UserRec } from "../store.js";

/**
 * CI jobs and their artifacts (contract "Jobs" and "Job"; platform [11.8]/[13.x] `lib/api/jobs.rb`,
 * `lib/api/entities/job.rb`, `Gitlab::Ci::Build::Artifacts::Path`). The sandbox runs no CI: pipelines and jobs
 * come from the fixture.
 *
 * - Reading needs `read_build`: a signed-in user (401 for a guest) who is Reporter or above, or who can read a
 *   public/internal project with `public_jobs`; administrators always. Otherwise 403 (404 `Project Not Found`
 *   when the project itself is invisible).
 * - `GET /projects/:id/jobs` (descending id) and `GET /projects/:id/pipelines/:pipeline_id/jobs` (ascending id):
 *   `scope` is one status or an array (`scope[]=`); a value outside the job statuses is 400
 *   `{"message":"Scope contains invalid value(s)"}`. Paginated. A missing pipeline is `404 Not found`.
 * - `GET /projects/:id/jobs/:job_id`: the Job entity; a missing job is `404 Not found`.
 * - `GET /projects/:id/jobs/:job_id/artifacts`: the artifacts archive, a real zip (deflated entries) built from the
 *   job's files: 200 `application/zip` with `Content-Disposition: attachment; filename="artifacts.zip"`;
 *   `404 Not found` without the job, `{"message":"404 Not Found"}` when the job has no artifacts.
 * - `GET /projects/:id/jobs/artifacts/:ref_name/download?job=<name>`: the archive of job `<name>` in the latest
 *   (highest id) successful pipeline of that ref; `job` is required (400 `job is missing`); 404 when there is no
 *   such pipeline or job (`404 Not found`) or it has no artifacts (`404 Not Found`). A ref with a slash must be
 *   URL-encoded.
 * - `GET /projects/:id/jobs/:job_id/artifacts/*artifact_path`: one file of the archive, sent as stored
 *   (`Content-Type` by extension, `application/octet-stream` otherwise). A path that is empty, has an empty, `.`
 *   or `..` segment, a NUL byte or is not UTF-8 is 400 `{"message":"400 (Bad request)"}` (send `..` encoded as
 *   `%2E%2E`, since HTTP clients collapse literal dot segments); a job without artifacts or a file not in them
 *   is 404.
 * - Job tokens [licensed]: the three artifact downloads also accept `JOB-TOKEN: <token>` or `job_token=<token>`
 *   (platform-behavior §5, `job_token_allowed`). The token of a **running** job authenticates as that job's user;
 *   any other token is 401. On core, and on every other route, job tokens are ignored (so a caller with only a
 *   job token is a guest: 401).
 *
 * Fixture key `jobs`: a list of `{ project: <full path>, pipelines: [{ ref, sha?, tag?, status?, user?,
 * created_at?, commit?: {title?, message?, author_name?, author_email?}, jobs: [{ name, stage? (test),
 * status? (success), allow_failure?, coverage?, token?, started_at?, finished_at?, artifacts?: { <path>:
 * <text contents> } }] }] }`. A pipeline's status defaults to `success` when all its jobs succeeded (or were
 * skipped or allowed to fail), else the first other job status; `sha` defaults to a stable hash; `user` to root;
 * job ids come from one sequence in fixture order. A job's `token` is kept only as its SHA-256 (`token_sha256`); a
 * job without one gets a random token nobody knows, so it is no credential.
 */

export const JOB_STATUSES = [
  "created",
  "pending",
  "running",
  "failed",
  "success",
  "canceled",
  "skipped",
  "manual",
] as const;
type JobStatus = (typeof JOB_STATUSES)[number];

export interface PipelineRec {
  id: number;
  project_id: number;
  ref: string;
  sha: string;
  tag: boolean;
  status: JobStatus;
  user_id: number;
  created_at: string;
  updated_at: string;
  commit: { title: string; message: string; author_name: string; author_email: string };
}

export interface JobRec {
  id: number;
  project_id: number;
  pipeline_id: number;
  name: string;
  stage: string;
  status: JobStatus;
  allow_failure: boolean;
  coverage: number | null;
  /** SHA-256 of the job's token: the token itself is kept nowhere (the platform never shows it back either). */
  token_sha256: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Artifact files (path → contents), or `null` when the job has no artifacts. */
  artifacts: Record<string, string> | null;
}

interface JobsArea {
  pipelines: PipelineRec[];
  jobs: JobRec[];
}

export function jobsArea(store: Store): JobsArea {
  const area = store.area<JobsArea>("jobs", () => ({ pipelines: [], jobs: [] }));
  if (!hashed.has(area)) {
    // A state written before job tokens were hashed: hash them now (the next write leaves none in clear).
    for (const job of area.jobs as (JobRec & { token?: unknown })[]) {
      if (typeof job.token === "string") {
        job.token_sha256 = tokenDigest(job.token);
        delete job.token;
      }
    }
    hashed.add(area);
  }
  return area;
}
const hashed = new WeakSet<JobsArea>();

// ---- zip (PKWARE APPNOTE: local headers, central directory, end record; deflate method 8) ----

function dosDateTime(iso: string): { time: number; date: number } {
  const d = new Date(iso);
  const year = Math.max(d.getUTCFullYear(), 1980);
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

/** A zip archive of `files` (UTF-8 names, deflated), timestamps from `mtime`. */
export function zipArchive(files: Record<string, string>, mtime: string): Buffer {
  const { time, date } = dosDateTime(mtime);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, contents] of Object.entries(files)) {
    const nameBuf = Buffer.from(name, "utf8");
    const data = Buffer.from(contents, "utf8");
    const packed = deflateRawSync(data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(time, 10);
    local.writeUInt16LE(date, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(nameBuf.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(0x0314, 4); // made by: Unix, 2.0
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(time, 12);
    central.writeUInt16LE(date, 14);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(packed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(nameBuf.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBuf, packed);
    centrals.push(central, nameBuf);
    offset += local.length + nameBuf.length + packed.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  const count = Object.keys(files).length;
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const MIME: Record<string, string> = {
  txt: "text/plain",
  log: "text/plain",
  md: "text/markdown",
  json: "application/json",
  xml: "application/xml",
  html: "text/html",
  css: "text/css",
  js: "application/javascript",
  yml: "text/yaml",
  yaml: "text/yaml",
  csv: "text/csv",
  svg: "image/svg+xml",
};

function mimeOf(path: string): string {
  const ext = /\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase();
  return (ext && MIME[ext]) ?? "application/octet-stream";
}

// ---- access ----

/** The caller: the token's user, or on the licensed edition a running job's user by `JOB-TOKEN`/`job_token`. */
function caller(ctx: Ctx, jobTokenAllowed: boolean): UserRec {
  if (ctx.user) return ctx.user;
  if (jobTokenAllowed && ctx.licensed) {
    const q = ctx.req.query["job_token"] ?? ctx.req.body["job_token"];
    const token = ctx.req.header("job-token") ?? (typeof q === "string" ? q : undefined);
    if (token) {
      const job = runningJob(ctx.store, token);
      const user = job ? ctx.store.user(pipelineOf(ctx.store, job)?.user_id ?? -1) : undefined;
      if (!user) throw unauthorized();
      return user;
    }
  }
  throw unauthorized();
}

/** The running job whose token this is (any other job's token authenticates nobody). */
function runningJob(store: Store, token: string): JobRec | undefined {
  const digest = tokenDigest(token);
  return jobsArea(store).jobs.find((j) => j.token_sha256 === digest && j.status === "running");
}

/** `find_project!` then `authorize_read_builds!` for `user`. */
function readableProject(ctx: Ctx, user: UserRec): ProjectRec {
  const project = ctx.store.projectByRef(ctx.path["id"]!);
  if (!project || !canReadProject(ctx.store, user, project)) throw notFound("Project");
  const level = effectiveProjectLevel(ctx.store, user, project);
  const publicJobs = project.public_jobs && project.visibility !== "private";
  if (level < ACCESS.reporter && !publicJobs) throw forbidden();
  return project;
}

function pipelineOf(store: Store, job: JobRec): PipelineRec | undefined {
  return jobsArea(store).pipelines.find((p) => p.id === job.pipeline_id);
}

function findJob(ctx: Ctx, project: ProjectRec): JobRec {
  const { job_id } = ctx.declare({ job_id: { type: "integer", required: true } });
  const job = jobsArea(ctx.store).jobs.find((j) => j.id === job_id && j.project_id === project.id);
  if (!job) throw recordNotFound();
  return job;
}

function scopeFilter(ctx: Ctx): (j: JobRec) => boolean {
  const v = ctx.params["scope"];
  if (v === undefined) return () => true;
  const list = (Array.isArray(v) ? v : [v]).map(String);
  if (list.some((s) => !(JOB_STATUSES as readonly string[]).includes(s))) {
    throw badRequest("Scope contains invalid value(s)");
  }
  return (j) => list.includes(j.status);
}

// ---- JSON ----

function archiveOf(job: JobRec): Buffer | null {
  if (!job.artifacts) return null;
  return zipArchive(job.artifacts, job.finished_at ?? job.created_at);
}

function duration(job: JobRec): number | null {
  if (!job.started_at) return null;
  return (Date.parse(job.finished_at ?? job.started_at) - Date.parse(job.started_at)) / 1000;
}

export function jobJson(ctx: Ctx, job: JobRec): Record<string, unknown> {
  const pipeline = pipelineOf(ctx.store, job);
  const project = ctx.store.project(job.project_id);
  const user = pipeline ? ctx.store.user(pipeline.user_id) : undefined;
  const archive = archiveOf(job);
  return {
    id: job.id,
    status: job.status,
    stage: job.stage,
    name: job.name,
    ref: pipeline?.ref ?? null,
    tag: pipeline?.tag ?? false,
    coverage: job.coverage,
    allow_failure: job.allow_failure,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    duration: duration(job),
    user: user ? userFull(ctx, user) : null,
    commit: pipeline
      ? {
          id: pipeline.sha,
          short_id: pipeline.sha.slice(0, 8),
          title: pipeline.commit.title,
          created_at: pipeline.created_at,
          parent_ids: [],
          message: pipeline.commit.message,
          author_name: pipeline.commit.author_name,
          author_email: pipeline.commit.author_email,
          authored_date: pipeline.created_at,
          committer_name: pipeline.commit.author_name,
          committer_email: pipeline.commit.author_email,
          committed_date: pipeline.created_at,
        }
      : null,
    pipeline: pipeline
      ? { id: pipeline.id, sha: pipeline.sha, ref: pipeline.ref, status: pipeline.status }
      : null,
    web_url: `${ctx.baseUrl}/${project ? ctx.store.projectFullPath(project) : job.project_id}/-/jobs/${job.id}`,
    artifacts_file: archive ? { filename: "artifacts.zip", size: archive.length } : undefined,
    artifacts: archive
      ? [{ file_type: "archive", size: archive.length, filename: "artifacts.zip", file_format: "zip" }]
      : [],
    runner: null,
    artifacts_expire_at: null,
  };
}

function sendArchive(job: JobRec) {
  const archive = archiveOf(job);
  if (!archive) throw notFound();
  return raw(archive, "application/zip", {
    "Content-Disposition": 'attachment; filename="artifacts.zip"',
  });
}

/** `Gitlab::Ci::Build::Artifacts::Path#valid?` plus the sandbox's refusal of dot segments. */
function validArtifactPath(path: string): boolean {
  if (path === "" || path.includes("\0") || path.includes("\uFFFD")) return false;
  return path.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");
}

// ---- fixture ----

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  const mapping = (v: unknown, where: string): Record<string, unknown> => {
    if (typeof v !== "object" || v === null || Array.isArray(v)) throw fail(`${where} must be a mapping`);
    return v as Record<string, unknown>;
  };
  const time = (v: unknown, where: string): string | null => {
    if (v === undefined || v === null) return null;
    const d = v instanceof Date ? v : new Date(String(v));
    if (Number.isNaN(d.getTime())) throw fail(`${where} must be a datetime (got "${String(v)}")`);
    return d.toISOString();
  };
  const status = (v: unknown, where: string, dflt: JobStatus): JobStatus => {
    if (v === undefined) return dflt;
    if (!(JOB_STATUSES as readonly unknown[]).includes(v)) {
      throw fail(`${where} must be one of ${JOB_STATUSES.join(", ")} (got "${String(v)}")`);
    }
    return v as JobStatus;
  };
  if (!Array.isArray(value)) throw fail("jobs must be a list");
  const area = jobsArea(store);
  value.forEach((rawEntry, i) => {
    const where = `jobs[${i}]`;
    const o = mapping(rawEntry, where);
    const project = typeof o["project"] === "string" ? store.projectByFullPath(o["project"]) : undefined;
    if (!project)
      throw fail(`${where}.project must name a project of projects (got "${String(o["project"])}")`);
    if (!Array.isArray(o["pipelines"])) throw fail(`${where}.pipelines must be a list`);
    o["pipelines"].forEach((rawPipeline, k) => {
      const pw = `${where}.pipelines[${k}]`;
      const p = mapping(rawPipeline, pw);
      if (typeof p["ref"] !== "string" || p["ref"] === "")
        throw fail(`${pw}.ref is required (a branch or tag)`);
      const ref = p["ref"];
      const user =
        p["user"] === undefined ? store.userByUsername("root") : store.userByUsername(String(p["user"]));
      if (!user) throw fail(`${pw}.user must name a user of users (got "${String(p["user"])}")`);
      const createdAt = time(p["created_at"], `${pw}.created_at`) ?? store.nowIso();
      const commit = p["commit"] === undefined ? {} : mapping(p["commit"], `${pw}.commit`);
      const sha =
        typeof p["sha"] === "string"
          ? p["sha"]
          : createHash("sha1")
              .update(`${store.projectFullPath(project)}\n${ref}\n${k}`)
              .digest("hex");
      if (!/^[0-9a-f]{40}$/.test(sha)) throw fail(`${pw}.sha must be 40 lowercase hex digits`);
      const pipeline: PipelineRec = {
        id: store.nextId("pipelines"),
        project_id: project.id,
        ref,
        sha,
        tag: p["tag"] === true,
        status: "success",
        user_id: user.id,
        created_at: createdAt,
        updated_at: createdAt,
        commit: {
          title: typeof commit["title"] === "string" ? commit["title"] : `Update ${ref}`,
          message: typeof commit["message"] === "string" ? commit["message"] : `Update ${ref}\n`,
          author_name: typeof commit["author_name"] === "string" ? commit["author_name"] : user.name,
          author_email: typeof commit["author_email"] === "string" ? commit["author_email"] : user.email,
        },
      };
      if (!Array.isArray(p["jobs"])) throw fail(`${pw}.jobs must be a list`);
      const jobs = p["jobs"].map((rawJob, n) => {
        const jw = `${pw}.jobs[${n}]`;
        const j = mapping(rawJob, jw);
        if (typeof j["name"] !== "string" || j["name"] === "") throw fail(`${jw}.name is required`);
        let artifacts: Record<string, string> | null = null;
        if (j["artifacts"] !== undefined && j["artifacts"] !== null) {
          artifacts = {};
          for (const [path, contents] of Object.entries(mapping(j["artifacts"], `${jw}.artifacts`))) {
            if (!validArtifactPath(path)) throw fail(`${jw}.artifacts has an invalid path "${path}"`);
            artifacts[path] = typeof contents === "string" ? contents : JSON.stringify(contents);
          }
        }
        // Without a token in the fixture, a random one nobody knows: the job cannot be used as a credential.
        const token = tokenDigest(j["token"] === undefined ? randomToken(20) : String(j["token"]));
        if (area.jobs.some((x) => x.token_sha256 === token)) throw fail(`${jw}.token is used by another job`);
        const job: JobRec = {
          id: store.nextId("jobs"),
          project_id: project.id,
          pipeline_id: pipeline.id,
          name: j["name"],
          stage: typeof j["stage"] === "string" ? j["stage"] : "test",
          status: status(j["status"], `${jw}.status`, "success"),
          allow_failure: j["allow_failure"] === true,
          coverage: typeof j["coverage"] === "number" ? j["coverage"] : null,
          token_sha256: token,
          created_at: createdAt,
          started_at: time(j["started_at"], `${jw}.started_at`),
          finished_at: time(j["finished_at"], `${jw}.finished_at`),
          artifacts,
        };
        area.jobs.push(job);
        return job;
      });
      const blocking = jobs.find(
        (j) =>
          j.status !== "success" && j.status !== "skipped" && !(j.allow_failure && j.status === "failed"),
      );
      pipeline.status = status(p["status"], `${pw}.status`, blocking ? blocking.status : "success");
      area.pipelines.push(pipeline);
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("jobs", (value, { store, source }) => seed(value, store, source));
  app.acceptCredential("job", (token) => app.licensed && runningJob(app.store, token) !== undefined);

  app.get("/projects/:id/jobs", (ctx) => {
    const project = readableProject(ctx, caller(ctx, false));
    const keep = scopeFilter(ctx);
    const rows = jobsArea(ctx.store)
      .jobs.filter((j) => j.project_id === project.id && keep(j))
      .sort((a, b) => b.id - a.id);
    return ctx.paginate(rows, (j) => jobJson(ctx, j));
  });

  app.get("/projects/:id/pipelines/:pipeline_id/jobs", (ctx) => {
    const project = readableProject(ctx, caller(ctx, false));
    const { pipeline_id } = ctx.declare({ pipeline_id: { type: "integer", required: true } });
    const pipeline = jobsArea(ctx.store).pipelines.find(
      (p) => p.id === pipeline_id && p.project_id === project.id,
    );
    if (!pipeline) throw recordNotFound();
    const keep = scopeFilter(ctx);
    const rows = jobsArea(ctx.store)
      .jobs.filter((j) => j.pipeline_id === pipeline.id && keep(j))
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(rows, (j) => jobJson(ctx, j));
  });

  app.get("/projects/:id/jobs/:job_id", (ctx) => {
    const project = readableProject(ctx, caller(ctx, false));
    return jobJson(ctx, findJob(ctx, project));
  });

  app.get("/projects/:id/jobs/:job_id/artifacts", (ctx) => {
    const project = readableProject(ctx, caller(ctx, true));
    return sendArchive(findJob(ctx, project));
  });

  app.get("/projects/:id/jobs/artifacts/:ref_name/download", (ctx) => {
    const project = readableProject(ctx, caller(ctx, true));
    const p = ctx.declare({
      ref_name: { type: "string", required: true },
      job: { type: "string", required: true },
    });
    const area = jobsArea(ctx.store);
    const pipeline = area.pipelines
      .filter((x) => x.project_id === project.id && x.ref === p.ref_name && x.status === "success")
      .sort((a, b) => b.id - a.id)[0];
    const job = pipeline
      ? area.jobs
          .filter((j) => j.pipeline_id === pipeline.id && j.name === p.job && j.status === "success")
          .sort((a, b) => b.id - a.id)[0]
      : undefined;
    if (!job) throw recordNotFound();
    return sendArchive(job);
  });

  app.get("/projects/:id/jobs/:job_id/artifacts/*artifact_path", (ctx) => {
    const project = readableProject(ctx, caller(ctx, true));
    const job = findJob(ctx, project);
    if (!job.artifacts) throw notFound();
    const path = ctx.path["artifact_path"] ?? "";
    if (!validArtifactPath(path)) throw new HttpError(400, { message: "400 (Bad request)" });
    const contents = job.artifacts[path];
    if (contents === undefined) throw notFound();
    return raw(Buffer.from(contents, "utf8"), mimeOf(path), {
      "Content-Disposition": `attachment; filename="${(path.split("/").pop() ?? path).replace(/"/g, "")}"`,
    });
  });
}
