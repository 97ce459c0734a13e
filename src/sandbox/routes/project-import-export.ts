import { randomUUID } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, authenticateNonGet, authorizeProject, findProject, requireAuth } from "../auth.js";
import { HttpError } from "../errors.js";
import {
  buildProject,
  type Errors,
  FEATURES,
  type FeatureLevel,
  insertProject,
  type ProjectSettings,
  projectSettings,
  setProjectSettings,
} from "../model.js";
import { declare } from "../params.js";
import type { ParamHash } from "../request.js";
import { accepted, created, raw } from "../respond.js";
import type { ProjectRec, Store } from "../store.js";
import { VISIBILITIES, VISIBILITY_LEVEL, type Visibility } from "../store.js";
import { ArchiveError, readTarGz, type TarFile, writeTarGz } from "../tar.js";
import {
  applyFeatures,
  creationNamespace,
  FEATURE_SPEC,
  findNamespace,
  validationErrors,
} from "./projects.js";
import { platformVersion, SANDBOX_REVISION } from "./version.js";

/**
 * Project export and import. The contract has no such endpoints; the sandbox follows the platform's 13.12
 * interface (docs `api/project_import_export.md`; `lib/api/project_export.rb`, `lib/api/project_import.rb`, the
 * `ProjectExportStatus` and `ProjectImportStatus` entities, `Gitlab::ImportExport`):
 *
 * - `POST /projects/:id/export` (Maintainer, `admin_project`; `description` overrides the archived description)
 *   answers 202 `{"message":"202 Accepted"}` and makes the archive at once (the platform's background job);
 *   `upload[url]` is accepted and nothing is sent (the sandbox makes no outgoing requests).
 *   `GET /projects/:id/export` (Maintainer) shows `export_status` `none` or `finished` (with `_links` once finished);
 *   `GET /projects/:id/export/download` is the tar.gz, or 404 `{"message":"404 Not found or has expired"}`.
 * - The archive is the platform's legacy layout: `VERSION` (0.2.4), `GITLAB_VERSION`, `GITLAB_REVISION` and
 *   `project.json`, the project's attributes in the platform's column names with `project_feature` (access levels as
 *   0/10/20/30), `ci_cd_settings`, `project_setting`, `auto_devops` and `project_members` (each with
 *   `user: {id, email, username}`). The sandbox has no repository, so there is no `project.bundle`; CI/CD variables
 *   are never exported, as on the platform.
 * - `POST /projects/import` (multipart: `path` required, `file` required, `name`, `namespace` as id or path,
 *   `overwrite`, `override_params[...]` with the parameters of `POST /projects`): the caller must be able to create
 *   projects in the namespace (400 "Namespace is not valid"; an invisible namespace is 404); a taken path is 400
 *   "Path has already been taken" unless `overwrite` is true and the caller is the existing project's Owner, which
 *   replaces it. Answers 201 with the `ProjectImportStatus`. The archive is read at once; one the platform's worker
 *   would fail on (not tar.gz, over 32 MiB unpacked or 10,000 entries, JSON nested deeper than 100 levels, more than
 *   10,000 members, links or paths that leave it, no `project.json` or a `VERSION` other than 0.2.4, fields of the
 *   wrong type, the names `__proto__`, `constructor`, `prototype`) leaves the project created with
 *   `import_status: "failed"` and the reason in `import_error`, as the platform does. Otherwise the settings are
 *   restored (visibility lowered to the namespace's where higher), then `override_params` applied and validated as on
 *   create. The importer becomes a Maintainer; the archive's members are mapped by e-mail only when an administrator
 *   imports (the platform's rule). `GET /projects/:id/import` shows the import status to whoever can see the project.
 */

const EXPORT_VERSION = "0.2.4";
const LIMITS = { maxBytes: 32 * 1024 * 1024, maxEntries: 10_000 };
const MAX_DEPTH = 100;
const MAX_MEMBERS = 10_000;
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const LEVEL_NUMBER: Record<FeatureLevel, number> = { disabled: 0, private: 10, enabled: 20, public: 30 };
const SQUASH = ["never", "always", "default_on", "default_off"] as const;
const DEPLOY_STRATEGY = ["continuous", "manual", "timed_incremental"] as const;

interface ExportEntry {
  created_at: string;
  data: string;
}

interface ImportState {
  status: "finished" | "failed";
  error: string | null;
  correlation_id: string;
}

/** `ProjectIdentity`: the fields the export and import status entities share. */
function identity(store: Store, p: ProjectRec): Record<string, unknown> {
  const ns = store.group(p.namespace_id);
  const nsName = ns ? store.groupFullName(ns) : (store.userByNamespace(p.namespace_id)?.name ?? "");
  return {
    id: p.id,
    description: p.description,
    name: p.name,
    name_with_namespace: `${nsName} / ${p.name}`,
    path: p.path,
    path_with_namespace: store.projectFullPath(p),
    created_at: p.created_at,
  };
}

/** `project.json`: the project as the platform's legacy export writes it (the sandbox's part of it). */
function projectTree(store: Store, p: ProjectRec, description: string | undefined): Record<string, unknown> {
  const s = projectSettings(p);
  const features: Record<string, number> = {};
  for (const f of FEATURES) features[`${f}_access_level`] = LEVEL_NUMBER[s[`${f}_access_level`]];
  return {
    description: description ?? p.description,
    visibility_level: VISIBILITY_LEVEL[p.visibility],
    archived: p.archived,
    tag_list: p.tag_list.join(", "),
    merge_requests_rebase_enabled: s.merge_method !== "merge",
    merge_requests_ff_only_enabled: s.merge_method === "ff",
    only_allow_merge_if_pipeline_succeeds: s.only_allow_merge_if_pipeline_succeeds,
    allow_merge_on_skipped_pipeline: s.allow_merge_on_skipped_pipeline,
    only_allow_merge_if_all_discussions_are_resolved: s.only_allow_merge_if_all_discussions_are_resolved,
    resolve_outdated_diff_discussions: s.resolve_outdated_diff_discussions,
    remove_source_branch_after_merge: s.remove_source_branch_after_merge,
    printing_merge_request_link_enabled: s.printing_merge_request_link_enabled,
    autoclose_referenced_issues: s.autoclose_referenced_issues,
    suggestion_commit_message: s.suggestion_commit_message,
    build_allow_git_fetch: s.build_git_strategy === "fetch",
    build_timeout: s.build_timeout,
    build_coverage_regex: s.build_coverage_regex,
    ci_config_path: s.ci_config_path,
    auto_cancel_pending_pipelines: s.auto_cancel_pending_pipelines === "enabled" ? 1 : 0,
    public_builds: p.public_jobs,
    shared_runners_enabled: p.shared_runners_enabled,
    request_access_enabled: p.request_access_enabled,
    lfs_enabled: s.lfs_enabled,
    packages_enabled: s.packages_enabled,
    show_default_award_emojis: s.show_default_award_emojis,
    approvals_before_merge: s.approvals_before_merge,
    merge_requests_template: s.merge_requests_template,
    issues_template: s.issues_template,
    project_feature: features,
    ci_cd_settings: {
      default_git_depth: s.ci_default_git_depth,
      forward_deployment_enabled: s.ci_forward_deployment_enabled,
      keep_latest_artifact: s.keep_latest_artifact,
    },
    project_setting: { squash_option: SQUASH.indexOf(s.squash_option) },
    auto_devops: {
      enabled: s.auto_devops_enabled,
      deploy_strategy: DEPLOY_STRATEGY.indexOf(s.auto_devops_deploy_strategy),
    },
    project_members: store.members("project", p.id).flatMap((m) => {
      const u = store.user(m.user_id);
      if (!u) return [];
      return [
        {
          access_level: m.access_level,
          source_type: "Project",
          notification_level: 3,
          created_at: m.created_at,
          updated_at: m.created_at,
          expires_at: m.expires_at,
          user: { id: u.id, email: u.email, username: u.username },
        },
      ];
    }),
  };
}

function exportArchive(
  app: SandboxApp,
  store: Store,
  p: ProjectRec,
  description: string | undefined,
): Buffer {
  const text = (name: string, s: string): TarFile => ({ name, data: Buffer.from(s, "utf8") });
  return writeTarGz(
    [
      text("VERSION", EXPORT_VERSION),
      text("GITLAB_VERSION", platformVersion(app.licensed)),
      text("GITLAB_REVISION", SANDBOX_REVISION),
      text("project.json", JSON.stringify(projectTree(store, p, description))),
    ],
    store.now(),
  );
}

/** How deep JSON text nests (brackets outside strings); scanned before parsing so a deep file costs no stack. */
function nesting(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") max = Math.max(max, ++depth);
    else if (c === "}" || c === "]") depth--;
  }
  return max;
}

function parseJson(text: string, where: string): unknown {
  if (nesting(text) > MAX_DEPTH) throw new ArchiveError(`${where} nests deeper than ${MAX_DEPTH} levels`);
  try {
    return JSON.parse(text, (key, value: unknown) => {
      if (FORBIDDEN_KEYS.has(key)) throw new ArchiveError(`${where}: the name "${key}" is not allowed`);
      return value;
    });
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`${where} is not valid JSON`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** What an archive restores: settings, the record's own fields, and members (by e-mail). */
interface ArchivedProject {
  description: string | null | undefined;
  visibility: Visibility | undefined;
  archived: boolean | undefined;
  tagList: string[] | undefined;
  publicJobs: boolean | undefined;
  sharedRunners: boolean | undefined;
  requestAccess: boolean | undefined;
  settings: Partial<ProjectSettings>;
  members: { email: string; access_level: number; expires_at: string | null }[];
}

type Reader = (v: unknown, out: ArchivedProject) => void;

const bool =
  (key: keyof ProjectSettings): Reader =>
  (v, out) => {
    if (typeof v !== "boolean") throw new ArchiveError(`project.json: ${key} must be true or false`);
    (out.settings as Record<string, unknown>)[key] = v;
  };
const nullableString =
  (key: keyof ProjectSettings): Reader =>
  (v, out) => {
    if (v !== null && typeof v !== "string")
      throw new ArchiveError(`project.json: ${key} must be a string or null`);
    (out.settings as Record<string, unknown>)[key] = v;
  };
const integer =
  (name: string, set: (n: number, out: ArchivedProject) => void): Reader =>
  (v, out) => {
    if (!Number.isSafeInteger(v)) throw new ArchiveError(`project.json: ${name} must be an integer`);
    set(v as number, out);
  };
const flag =
  (name: string, set: (b: boolean, out: ArchivedProject) => void): Reader =>
  (v, out) => {
    if (typeof v !== "boolean") throw new ArchiveError(`project.json: ${name} must be true or false`);
    set(v, out);
  };

/** The attributes of `project.json` the sandbox restores, each checked; others are ignored as the platform's. */
const READERS: Record<string, Reader> = {
  description: (v, out) => {
    if (v !== null && typeof v !== "string")
      throw new ArchiveError("project.json: description must be a string");
    out.description = v as string | null;
  },
  visibility_level: (v, out) => {
    const vis = VISIBILITIES.find((x) => VISIBILITY_LEVEL[x] === v);
    if (!vis) throw new ArchiveError("project.json: visibility_level must be 0, 10 or 20");
    out.visibility = vis;
  },
  archived: flag("archived", (b, out) => {
    out.archived = b;
  }),
  tag_list: (v, out) => {
    if (typeof v !== "string") throw new ArchiveError("project.json: tag_list must be a string");
    out.tagList = v
      .split(",")
      .map((t) => t.trim())
      .filter((t) => t !== "");
  },
  public_builds: flag("public_builds", (b, out) => {
    out.publicJobs = b;
  }),
  shared_runners_enabled: flag("shared_runners_enabled", (b, out) => {
    out.sharedRunners = b;
  }),
  request_access_enabled: flag("request_access_enabled", (b, out) => {
    out.requestAccess = b;
  }),
  only_allow_merge_if_pipeline_succeeds: bool("only_allow_merge_if_pipeline_succeeds"),
  allow_merge_on_skipped_pipeline: bool("allow_merge_on_skipped_pipeline"),
  only_allow_merge_if_all_discussions_are_resolved: bool("only_allow_merge_if_all_discussions_are_resolved"),
  resolve_outdated_diff_discussions: bool("resolve_outdated_diff_discussions"),
  remove_source_branch_after_merge: bool("remove_source_branch_after_merge"),
  printing_merge_request_link_enabled: bool("printing_merge_request_link_enabled"),
  autoclose_referenced_issues: bool("autoclose_referenced_issues"),
  lfs_enabled: bool("lfs_enabled"),
  packages_enabled: bool("packages_enabled"),
  show_default_award_emojis: bool("show_default_award_emojis"),
  suggestion_commit_message: nullableString("suggestion_commit_message"),
  build_coverage_regex: nullableString("build_coverage_regex"),
  ci_config_path: nullableString("ci_config_path"),
  merge_requests_template: nullableString("merge_requests_template"),
  issues_template: nullableString("issues_template"),
  build_timeout: integer("build_timeout", (n, out) => {
    out.settings.build_timeout = n;
  }),
  approvals_before_merge: integer("approvals_before_merge", (n, out) => {
    out.settings.approvals_before_merge = n;
  }),
  build_allow_git_fetch: flag("build_allow_git_fetch", (b, out) => {
    out.settings.build_git_strategy = b ? "fetch" : "clone";
  }),
  auto_cancel_pending_pipelines: (v, out) => {
    if (v !== 0 && v !== 1)
      throw new ArchiveError("project.json: auto_cancel_pending_pipelines must be 0 or 1");
    out.settings.auto_cancel_pending_pipelines = v === 1 ? "enabled" : "disabled";
  },
  project_feature: (v, out) => {
    if (!isObject(v)) throw new ArchiveError("project.json: project_feature must be an object");
    for (const f of FEATURES) {
      const n = v[`${f}_access_level`];
      if (n === undefined || n === null) continue;
      const level = (Object.keys(LEVEL_NUMBER) as FeatureLevel[]).find((l) => LEVEL_NUMBER[l] === n);
      if (!level || (level === "public" && f !== "pages"))
        throw new ArchiveError(`project.json: project_feature.${f}_access_level must be 0, 10 or 20`);
      out.settings[`${f}_access_level`] = level;
    }
  },
  ci_cd_settings: (v, out) => {
    if (!isObject(v)) throw new ArchiveError("project.json: ci_cd_settings must be an object");
    if (v["default_git_depth"] !== undefined && v["default_git_depth"] !== null) {
      integer("ci_cd_settings.default_git_depth", (n) => {
        out.settings.ci_default_git_depth = n;
      })(v["default_git_depth"], out);
    }
    for (const [key, setting] of [
      ["forward_deployment_enabled", "ci_forward_deployment_enabled"],
      ["keep_latest_artifact", "keep_latest_artifact"],
    ] as const) {
      if (v[key] !== undefined && v[key] !== null) bool(setting)(v[key], out);
    }
  },
  project_setting: (v, out) => {
    if (!isObject(v)) throw new ArchiveError("project.json: project_setting must be an object");
    const n = v["squash_option"];
    if (n === undefined || n === null) return;
    const option = SQUASH[n as number];
    if (!Number.isInteger(n) || !option)
      throw new ArchiveError("project.json: project_setting.squash_option must be 0 to 3");
    out.settings.squash_option = option;
  },
  auto_devops: (v, out) => {
    if (v === null) return;
    if (!isObject(v)) throw new ArchiveError("project.json: auto_devops must be an object");
    const enabled = v["enabled"];
    if (enabled !== undefined && enabled !== null && typeof enabled !== "boolean")
      throw new ArchiveError("project.json: auto_devops.enabled must be true, false or null");
    if (typeof enabled === "boolean") out.settings.auto_devops_enabled = enabled;
    const n = v["deploy_strategy"];
    if (n === undefined || n === null) return;
    const strategy = DEPLOY_STRATEGY[n as number];
    if (!Number.isInteger(n) || !strategy)
      throw new ArchiveError("project.json: auto_devops.deploy_strategy must be 0 to 2");
    out.settings.auto_devops_deploy_strategy = strategy;
  },
  project_members: (v, out) => {
    if (!Array.isArray(v)) throw new ArchiveError("project.json: project_members must be a list");
    if (v.length > MAX_MEMBERS)
      throw new ArchiveError(`project.json: more than ${MAX_MEMBERS} project_members`);
    v.forEach((m, i) => {
      const where = `project.json: project_members[${i}]`;
      if (!isObject(m)) throw new ArchiveError(`${where} must be an object`);
      const level = m["access_level"];
      if (![10, 20, 30, 40, 50].includes(level as number))
        throw new ArchiveError(`${where}.access_level must be 10, 20, 30, 40 or 50`);
      const user = m["user"];
      if (!isObject(user) || typeof user["email"] !== "string")
        throw new ArchiveError(`${where}.user must be an object with an email`);
      const expires = m["expires_at"] ?? null;
      if (expires !== null && !(typeof expires === "string" && /^\d{4}-\d{2}-\d{2}/.test(expires)))
        throw new ArchiveError(`${where}.expires_at must be a date or null`);
      out.members.push({
        email: user["email"],
        access_level: level as number,
        expires_at: expires === null ? null : (expires as string).slice(0, 10),
      });
    });
  },
};

/** Reads and checks an archive; throws {@link ArchiveError} saying what is wrong. */
function readArchive(data: Buffer): ArchivedProject {
  const files = new Map(readTarGz(data, LIMITS).map((f) => [f.name, f]));
  const version = files.get("VERSION")?.data.toString("utf8").trim();
  if (version !== undefined && version !== EXPORT_VERSION)
    throw new ArchiveError(`Import version mismatch: Required ${EXPORT_VERSION} but was ${version}`);
  const file = files.get("project.json");
  if (!file) throw new ArchiveError("The import file is incompatible");
  const tree = parseJson(file.data.toString("utf8"), "project.json");
  if (!isObject(tree)) throw new ArchiveError("project.json is not a JSON object");
  const out: ArchivedProject = {
    description: undefined,
    visibility: undefined,
    archived: undefined,
    tagList: undefined,
    publicJobs: undefined,
    sharedRunners: undefined,
    requestAccess: undefined,
    settings: {},
    members: [],
  };
  for (const [key, read] of Object.entries(READERS)) {
    if (Object.hasOwn(tree, key) && tree[key] !== undefined) read(tree[key], out);
  }
  // `Project#merge_method`: fast-forward only wins over rebase, which wins over a merge commit.
  const ff = tree["merge_requests_ff_only_enabled"];
  const rebase = tree["merge_requests_rebase_enabled"];
  for (const [name, value] of [
    ["merge_requests_ff_only_enabled", ff],
    ["merge_requests_rebase_enabled", rebase],
  ] as const) {
    if (value !== undefined && value !== null && typeof value !== "boolean")
      throw new ArchiveError(`project.json: ${name} must be true or false`);
  }
  if (ff !== undefined || rebase !== undefined)
    out.settings.merge_method = ff === true ? "ff" : rebase === true ? "rebase_merge" : "merge";
  return out;
}

/** Restores what an archive holds into a new project (not yet stored). */
function restore(p: ProjectRec, a: ArchivedProject, store: Store): void {
  if (a.description !== undefined) p.description = a.description;
  if (a.archived !== undefined) p.archived = a.archived;
  if (a.tagList !== undefined) p.tag_list = a.tagList;
  if (a.publicJobs !== undefined) p.public_jobs = a.publicJobs;
  if (a.sharedRunners !== undefined) p.shared_runners_enabled = a.sharedRunners;
  if (a.requestAccess !== undefined) p.request_access_enabled = a.requestAccess;
  if (a.visibility !== undefined) {
    const ns = store.group(p.namespace_id);
    // The platform's `closest_allowed_level`: no higher than the namespace's.
    p.visibility =
      ns && VISIBILITY_LEVEL[a.visibility] > VISIBILITY_LEVEL[ns.visibility] ? ns.visibility : a.visibility;
  }
  setProjectSettings(p, a.settings);
}

/** Rails' `full_messages`: the humanized attribute before each message (`base` alone). */
function fullMessages(errors: Errors): string[] {
  return Object.entries(errors).flatMap(([key, msgs]) =>
    msgs.map((m) => {
      if (key === "base") return m;
      const words = key.replace(/[._]/g, " ");
      return `${words.charAt(0).toUpperCase()}${words.slice(1)} ${m}`;
    }),
  );
}

export function register(app: SandboxApp): void {
  const exports = () => app.store.area("project_exports", () => ({}) as Record<string, ExportEntry>);
  const imports = () => app.store.area("project_imports", () => ({}) as Record<string, ImportState>);

  function exportStatus(ctx: Ctx, p: ProjectRec): Record<string, unknown> {
    const done = exports()[String(p.id)] !== undefined;
    const out: Record<string, unknown> = {
      ...identity(ctx.store, p),
      export_status: done ? "finished" : "none",
    };
    if (done) {
      const web = `${ctx.baseUrl}/${ctx.store.projectFullPath(p)}`;
      out["_links"] = {
        api_url: `${ctx.baseUrl}/api/v4/projects/${p.id}/export/download`,
        web_url: `${web}/download_export`,
      };
    }
    return out;
  }

  function importStatus(ctx: Ctx, p: ProjectRec): Record<string, unknown> {
    const state = imports()[String(p.id)];
    return {
      ...identity(ctx.store, p),
      import_status: state?.status ?? "none",
      correlation_id: state?.correlation_id ?? null,
      failed_relations: [],
      import_error: state?.error ?? null,
    };
  }

  app.post("/projects/:id/export", (ctx) => {
    authenticateNonGet(ctx);
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    const input = ctx.declare({
      description: { type: "string" },
      upload: { type: "hash" },
    });
    const table = exports();
    // Archives of deleted projects can never be downloaded again.
    for (const id of Object.keys(table)) if (!ctx.store.project(Number(id))) delete table[id];
    table[String(p.id)] = {
      created_at: ctx.store.nowIso(),
      data: exportArchive(app, ctx.store, p, input.description).toString("base64"),
    };
    return accepted();
  });

  app.get("/projects/:id/export", (ctx) => {
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    return exportStatus(ctx, p);
  });

  app.get("/projects/:id/export/download", (ctx) => {
    const p = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, p, ACCESS.maintainer);
    const entry = exports()[String(p.id)];
    if (!entry) throw new HttpError(404, { message: "404 Not found or has expired" });
    // `%Y-%m-%d_%H-%M-%L_<namespace>_<project>_export.tar.gz`
    const t = entry.created_at;
    const stamp = `${t.slice(0, 10)}_${t.slice(11, 13)}-${t.slice(14, 16)}-${t.slice(20, 23)}`;
    const filename = `${stamp}_${ctx.store.projectFullPath(p).replace(/\//g, "_")}_export.tar.gz`;
    return raw(Buffer.from(entry.data, "base64"), "application/octet-stream", {
      "Content-Disposition": `attachment; filename="${filename}"`,
    });
  });

  app.post("/projects/import", (ctx) => {
    const user = requireAuth(ctx);
    const p = ctx.declare({
      path: { type: "string", required: true },
      file: { type: "file", required: true },
      name: { type: "string" },
      namespace: { type: "string" },
      overwrite: { type: "boolean", default: false },
      override_params: { type: "hash" },
    });
    const overrides = p.override_params ? declareOverrides(p.override_params) : {};
    const namespaceId = p.namespace === undefined ? user.namespace_id : findNamespace(ctx, p.namespace);
    try {
      creationNamespace(ctx, user, namespaceId);
    } catch (error) {
      if (error instanceof HttpError && error.status === 400) throw badImport(["Namespace is not valid"]);
      throw error;
    }
    const lower = p.path.toLowerCase();
    const existing = ctx.store.data.projects.find(
      (x) => x.namespace_id === namespaceId && x.path.toLowerCase() === lower,
    );
    if (existing && p.overwrite) {
      authorizeProject(ctx, existing, ACCESS.owner);
    }
    let archived: ArchivedProject | undefined;
    let failure: string | undefined;
    try {
      archived = readArchive(p.file.data);
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      failure = `${p.file.filename}: ${error.message}`;
    }
    const rec = buildProject(ctx.store, {
      name: p.name ?? p.path,
      path: p.path,
      namespace_id: namespaceId,
      creator_id: user.id,
    });
    if (archived) restore(rec, archived, ctx.store);
    applyFeatures(ctx, rec, overrides as Record<string, unknown>);
    // An overwritten project's path and name are free for the new one (its id stands in while validating).
    if (existing && p.overwrite) rec.id = existing.id;
    const errors = validationErrors(ctx.store, rec);
    if (Object.keys(errors).length > 0) throw badImport(fullMessages(errors));
    if (existing && p.overwrite) ctx.store.removeProject(existing.id);
    insertProject(ctx.store, rec);
    ctx.store.setMember("project", rec.id, user.id, ACCESS.maintainer);
    if (archived && user.admin) {
      for (const m of archived.members) {
        const u = ctx.store.data.users.find((x) => x.email.toLowerCase() === m.email.toLowerCase());
        if (!u || ctx.store.member("project", rec.id, u.id)) continue;
        // Project members are at most Maintainers.
        ctx.store.setMember("project", rec.id, u.id, Math.min(m.access_level, ACCESS.maintainer)).expires_at =
          m.expires_at;
      }
    }
    rec.import_status = failure === undefined ? "finished" : "failed";
    imports()[String(rec.id)] = {
      status: rec.import_status,
      error: failure ?? null,
      correlation_id: randomUUID().replace(/-/g, ""),
    };
    return created(importStatus(ctx, rec));
  });

  app.get("/projects/:id/import", (ctx) => importStatus(ctx, findProject(ctx, ctx.path["id"]!)));
}

/** `override_params` as Grape declares the nested hash: errors name `override_params[<name>]`. */
function declareOverrides(hash: Record<string, unknown>): Record<string, unknown> {
  const name = (k: string) => `override_params[${k}]`;
  const spec = Object.fromEntries(Object.entries(FEATURE_SPEC).map(([k, v]) => [name(k), v]));
  const given = Object.fromEntries(Object.entries(hash).map(([k, v]) => [name(k), v])) as ParamHash;
  const declared: Record<string, unknown> = declare(given, spec);
  return Object.fromEntries(Object.entries(declared).map(([k, v]) => [k.slice(16, -1), v]));
}

/** 400 with the first full message, as `render_api_error!(project.errors.full_messages&.first, 400)`. */
function badImport(messages: string[]): HttpError {
  return new HttpError(400, { message: messages[0] ?? "400 Bad request" });
}
