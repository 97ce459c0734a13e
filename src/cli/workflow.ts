/**
 * The work shared by the CLI commands and the GitHub Action: load and validate manifests, connect, read live
 * state and plan; apply a plan. Nothing here prints: callers choose the renderers.
 */

import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { type ApplyOptions, applySteps, type Outcome } from "../engine/apply.js";
import type { ChangeScope } from "../engine/changes.js";
import { makePlan, type PlanOptions, type PlanResult } from "../engine/plan/index.js";
import { normalizeTargets, TargetError, withAncestors } from "../engine/targets.js";
import type { KindContext } from "../kinds/kind.js";
import { didYouMean } from "../manifest/diagnostics.js";
import { loadManifests, manifestOutlines } from "../manifest/index.js";
import { displayPath } from "../manifest/interpolate.js";
import type { DesiredState } from "../manifest/model.js";
import { type OutlinedFile, shardEntries, shardTargets } from "../manifest/outline.js";
import { pathProblem } from "../manifest/paths.js";
import { fingerprintSalt, SecretValues } from "../manifest/secret.js";
import { isPattern, parsePattern } from "../manifest/selectors.js";
import type { Plan } from "../plan/model.js";
import { type SinceSelection, scopeOf, selectSince } from "./changed-since.js";
import { chunkingOf, planInChunks, requestStatsOf } from "./chunks.js";
import { type PlanOutcome, type PlanRequest, rootOf, withLiveReads } from "./plan-request.js";
import { keepYoungGenerationSmall } from "./runtime.js";

export type { PlanOutcome, PlanRequest } from "./plan-request.js";

/**
 * What a saved plan fixes of the plan apply makes again to check it: its manifests, `--target`, `--replace`,
 * `--changed-since`, `--shard`, its manifest root, and the salt of its secrets fingerprint. The CLI and the Action both use this.
 */
export function savedPlanRequest(
  saved: Plan,
): Pick<
  PlanRequest,
  | "paths"
  | "root"
  | "targets"
  | "replace"
  | "shard"
  | "changedSince"
  | "changedSinceCommit"
  | "fingerprintSalt"
> {
  const salt = saved.secretsFingerprint ? fingerprintSalt(saved.secretsFingerprint) : undefined;
  return {
    paths: saved.manifests,
    // A plan saved before the root was kept: the folder holding its files, as then.
    ...(saved.root !== undefined ? { root: saved.root } : {}),
    targets: saved.targets,
    replace: saved.replace ?? [],
    ...(saved.shard ? { shard: { index: saved.shard.index, count: saved.shard.count } } : {}),
    ...(saved.changedSince !== undefined ? { changedSince: saved.changedSince } : {}),
    ...(saved.changedSinceCommit !== undefined ? { changedSinceCommit: saved.changedSinceCommit } : {}),
    ...(salt !== undefined ? { fingerprintSalt: salt } : {}),
  };
}

/**
 * A saved plan names its files and its manifest root as they were named from the folder it was made in: applied
 * from elsewhere, none of them is found. Throws saying so (the loader would say only "no such file" of each), and
 * when the root is not a folder (a plan file edited by hand).
 */
export function checkSavedPlanFolder(saved: Plan): void {
  if (saved.root !== undefined) {
    let isDir = false;
    try {
      isDir = statSync(resolve(saved.root)).isDirectory();
    } catch {}
    if (!isDir)
      throw new Error(
        `the saved plan's manifest root ${JSON.stringify(saved.root)} is not a folder here (${process.cwd()}). Apply it from the folder the plan was made in`,
      );
  }
  const relativeOnes = saved.manifests.filter((f) => !isAbsolute(f));
  if (relativeOnes.length === 0 || relativeOnes.some((f) => existsSync(resolve(f)))) return;
  const shown = relativeOnes.slice(0, 3).join(", ");
  throw new Error(
    `the saved plan names its manifests from the folder it was made in, and none of them is here (${process.cwd()}): ${shown}${relativeOnes.length > 3 ? ` and ${relativeOnes.length - 3} more` : ""}. Apply it from the folder the plan was made in (or, if they were removed since, run plan again)`,
  );
}

export { TargetError };

/**
 * Before reading: every `--target` (normalised) must be a path the platform allows (see manifest/paths.ts) and
 * select something declared: a group or project path (or a tree above one), or `instance`. A target below a pattern's root is checked after reading, when the platform
 * has said what the pattern matches.
 */
/** What the manifests declare, as far as targets go: full paths, the roots of patterns, instance settings. */
export interface Declared {
  paths: string[];
  prefixes: string[];
  instance: boolean;
}

/** What a loaded desired state declares. */
export function declaredIn(state: DesiredState): Declared;
/** What the outlined files declare (those a partial load leaves unread too). */
export function declaredIn(files: readonly OutlinedFile[]): Declared;
export function declaredIn(from: DesiredState | readonly OutlinedFile[]): Declared {
  if (Array.isArray(from)) {
    const entries = (from as readonly OutlinedFile[]).flatMap((f) => f.outline.entries.map((e) => e.key));
    return {
      paths: entries.filter((k) => !isPattern(k)),
      prefixes: entries.filter(isPattern).map((k) => parsePattern(k).prefix),
      instance: (from as readonly OutlinedFile[]).some((f) => f.outline.instance),
    };
  }
  const state = from as DesiredState;
  return {
    paths: ["groups", "projects"].flatMap((c) => (state.root.children[c]?.items ?? []).map((i) => i.key)),
    prefixes: state.selectors.map((s) => s.prefix),
    instance: Object.keys(state.root.children).some((c) => c !== "groups" && c !== "projects"),
  };
}

export function checkTargets(targets: readonly string[], declared: Declared): void {
  const paths = [...declared.paths, ...declared.prefixes.filter((p) => p !== "")];
  // Below a pattern's root (`acme/**` selects whatever exists under acme), only the platform can tell.
  const prefixes = declared.prefixes.map((p) => p.toLowerCase());
  const instanceDeclared = declared.instance;
  const problems: string[] = [];
  for (const target of targets) {
    if (target === "instance" && instanceDeclared) continue;
    // A path the platform cannot have (`acme/..`) would go out in URLs as written: refused before anything is read.
    const invalid = target === "instance" ? undefined : pathProblem(target);
    if (invalid !== undefined) {
      problems.push(`--target ${JSON.stringify(target)}: ${invalid}`);
      continue;
    }
    const t = target.toLowerCase();
    if (paths.some((p) => p.toLowerCase() === t || p.toLowerCase().startsWith(`${t}/`))) continue;
    if (prefixes.some((p) => p === "" || t === p || t.startsWith(`${p}/`))) continue;
    const candidates = [...withAncestors(paths), ...(instanceDeclared ? ["instance"] : [])];
    const suggestion = didYouMean(target, candidates);
    problems.push(
      `--target ${JSON.stringify(target)} matches nothing the manifests declare${suggestion ? `; did you mean ${JSON.stringify(suggestion)}?` : ""} (a target is a group or project path, or a group above declared ones, or "instance")`,
    );
  }
  if (problems.length > 0) throw new TargetError(problems.join("\n"));
}

/**
 * The backup folder a plan announces: the one asked for (`--backup-dir`, the user's choice, taken as given), or a
 * dated folder in the manifest root, which must stay inside the root with symbolic links resolved, as a trigger's
 * `token_file` must (a `.forgeform` link to elsewhere in the repository is a plan error on each delete).
 */
function backupOption(request: PlanRequest): NonNullable<PlanOptions["backup"]> | undefined {
  if (request.backupDir === false) return undefined;
  const root = rootOf(request);
  const dir = resolve(
    request.backupDir ?? join(root, ".forgeform", "backups", new Date().toISOString().slice(0, 10)),
  );
  const rel = relative(process.cwd(), dir);
  const shown = rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : dir;
  if (request.backupDir !== undefined) return { dir, shown };
  const real = realExistingPath(dir);
  const realRoot = realExistingPath(root);
  const inside = relative(realRoot, real);
  const problem =
    inside === "" || (!inside.startsWith("..") && !isAbsolute(inside))
      ? undefined
      : `the backup folder ${shown} leads outside the manifest root through a symbolic link (to ${real}): remove the link, choose a folder with --backup-dir, or delete without a backup with --no-backup`;
  return { dir, shown, root, ...(problem ? { problem } : {}) };
}

/** `path` with its nearest existing ancestor's symbolic links resolved, the rest as written. */
function realExistingPath(path: string): string {
  const rest: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    try {
      return join(realpathSync(at), ...rest);
    } catch {
      if (dirname(at) === at) return path;
      rest.unshift(basename(at));
    }
  }
}

/** The platform URL without credentials, for plans and reports. */
export function displayUrl(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  u.search = "";
  return u.toString().replace(/\/$/, "");
}

/** What every plan of the request is made with (a plan made in chunks too). */
function baseOptions(request: PlanRequest, targets: string[]): Omit<PlanOptions, "requestStats"> {
  const backup = backupOption(request);
  const root = rootOf(request);
  return {
    url: displayUrl(request.connection.url),
    root: root === process.cwd() ? "." : displayPath(root),
    targets,
    replace: request.replace ?? [],
    ...(request.shard ? { shard: request.shard } : {}),
    ...(backup ? { backup } : {}),
    ...(request.fingerprintSalt !== undefined ? { fingerprintSalt: request.fingerprintSalt } : {}),
  };
}

/**
 * Loads the manifests; when they are valid, reads the live state and plans. The caller closes `api`. A full plan of
 * a large estate is made in chunks (chunks.ts): requests may then start before the last chunk is validated, and
 * nothing is planned further (nor written) once one is found invalid.
 */
export async function planFromManifests(request: PlanRequest): Promise<PlanOutcome> {
  const found = request.found ?? [];
  const paths = request.paths.length > 0 ? request.paths : ["."];
  // A pull request's plan (--changed-since) loads only the files its change can touch.
  let since: SinceSelection | undefined;
  if (request.changedSince !== undefined) {
    try {
      since = await selectSince(
        request.changedSinceCommit ?? request.changedSince,
        request.paths,
        found,
        request.root,
      );
    } catch (error) {
      if (!request.changedSinceOptional) throw error;
      since = { warning: `${(error as Error).message}; planning everything` };
    }
  }
  // A full plan of a large estate, or of a shard of one, is made in chunks of top-level trees (chunks.ts).
  const chunking = since ? undefined : chunkingOf(request, paths, found);
  if (chunking) {
    const outcome = await planInChunks(request, chunking, paths, found, baseOptions(request, []));
    if (outcome) return outcome;
  }
  // A shard loads only its share: the files with its top-level targets, and what they need.
  let outlines = since?.outlines;
  let units: Set<string> | undefined;
  let only = since?.only;
  let partial = since?.partial;
  if (request.shard) {
    outlines ??= manifestOutlines(paths, found, rootOf(request));
    units = shardTargets(outlines, request.shard);
    if (units && !only) ({ files: only, partial } = shardEntries(outlines, units));
    // It holds a share of the estate, as a chunk does: V8's young generation is kept small (runtime.ts).
    if (units) keepYoungGenerationSmall();
  }
  const loaded = await loadManifests(paths, {
    secrets: true,
    found,
    root: rootOf(request),
    ...(request.env ? { env: request.env } : {}),
    ...(only
      ? {
          only,
          ...(partial ? { partial } : {}),
          outlines: new Map((outlines ?? []).map((f) => [f.file, f])),
        }
      : {}),
  });
  const diagnostics = loaded.diagnostics;
  if (!loaded.state || diagnostics.some((d) => d.severity === "error"))
    return { diagnostics, files: loaded.files };
  const targets = normalizeTargets(request.targets ?? []);
  // What the targets are checked against: every file's entries, also those a partial load left unread.
  const declared = only
    ? declaredIn(outlines ?? manifestOutlines(paths, found, rootOf(request)))
    : declaredIn(loaded.state);
  checkTargets(targets, declared);
  let changes: ChangeScope | undefined;
  if (since) {
    if (since.warning) {
      diagnostics.push({
        severity: "warning",
        file: loaded.state.files[0] ?? ".",
        line: 1,
        col: 1,
        path: "",
        message: `--changed-since ${request.changedSince}: ${since.warning}`,
      });
    }
    changes = scopeOf(since, loaded.state);
  }
  // Values of the run's references are masked in everything the client prints (--debug, errors), paths included.
  return withLiveReads(request, SecretValues.ofState(loaded.state).list(), async ({ api, ctx, registry }) => {
    const result = await makePlan(loaded.state!, ctx, registry, {
      ...baseOptions(request, targets),
      ...(changes ? { changes } : {}),
      ...(only ? { declared: declared.paths } : {}),
      ...(units ? { shardUnits: units } : {}),
      ...(changes && request.changedSince !== undefined ? { changedSince: request.changedSince } : {}),
      ...(changes && since?.commit ? { changedSinceCommit: since.commit } : {}),
      requestStats: requestStatsOf(api),
    });
    return { diagnostics, result, ctx, api };
  });
}

export async function applyPlanResult(
  ctx: KindContext,
  result: PlanResult,
  options: ApplyOptions,
): Promise<Outcome[]> {
  // What the platform or a kind says about a failure must not show a value of the run's references either.
  return applySteps(ctx, result.steps, { ...options, mask: (text) => result.secrets.text(text) });
}
