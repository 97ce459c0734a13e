/**
 * What a plan of the manifests is asked for, what it gives, and the client its reads go through (workflow.ts and
 * chunks.ts; the commands, the Action).
 */
import { resolve } from "node:path";
import { ApiClient, type ClientOptions } from "../api/index.js";
import { createContext } from "../engine/context.js";
import type { PlanResult } from "../engine/plan/index.js";
import { createRegistry, type KindRegistry } from "../engine/registry.js";
import type { Shard } from "../engine/shard.js";
import { kinds } from "../kinds/index.js";
import type { KindContext } from "../kinds/kind.js";
import { fieldSpecs } from "../kinds/schemas.js";
import { type Diagnostic, manifestRoot } from "../manifest/index.js";
import type { Progress } from "./progress.js";

export interface PlanRequest {
  paths: string[];
  /**
   * The manifest root (`--root`): `${file:}` references, content files and links may not leave it, and the default
   * backup folder is in it. Default: the deepest folder containing every path (manifestRoot).
   */
  root?: string;
  /** Those of `paths` a glob matched: only the forgeform manifests among them are read (see LoadOptions.found). */
  found?: string[];
  connection: ClientOptions;
  targets?: string[];
  replace?: string[];
  env?: NodeJS.ProcessEnv;
  /**
   * Where apply saves a group's export archive before deleting the group: a folder, `false` for none
   * (`--no-backup`), or undefined for the default, `.forgeform/backups/<date>` in the manifest root.
   */
  backupDir?: string | false;
  /** `--changed-since REF`: plan only what differs from the manifests at that git revision. */
  changedSince?: string;
  /**
   * The commit REF named when a saved plan was made: the plan is made again against it, not against wherever REF
   * points now (after the pull request is merged, its base branch holds the change).
   */
  changedSinceCommit?: string;
  /** When REF cannot be used (not a git checkout, unknown revision), plan everything with a warning. */
  changedSinceOptional?: boolean;
  /** `--shard K/N`: plan only this shard's top-level targets. */
  shard?: Shard;
  /** Shows progress while the live state is read. */
  progress?: Progress;
  /** The salt of a saved plan's secrets fingerprint (`apply --plan`), so that the new plan's can be compared. */
  fingerprintSalt?: string;
}

export interface PlanOutcome {
  /** Validation diagnostics (errors stop the plan before anything is written; see chunks.ts for requests). */
  diagnostics: Diagnostic[];
  /** The manifest files read. */
  files?: string[];
  result?: PlanResult;
  ctx?: KindContext;
  api?: ApiClient;
  /** Of a plan made in chunks (chunks.ts), how many were walked: a plan made in one walk has none. */
  chunks?: number;
}

/** The request's manifest root, absolute: `--root`, or the deepest folder containing every path. */
export function rootOf(request: PlanRequest): string {
  return resolve(request.root ?? manifestRoot(request.paths.length > 0 ? request.paths : ["."]));
}

/** What a plan's reads go through: the client, the context the kinds read with, the kinds. */
export interface LiveReads {
  api: ApiClient;
  ctx: KindContext;
  registry: KindRegistry;
}

/**
 * Opens the client a plan reads through (apply writes through it later) and runs `plan` with it: the progress line
 * counts its requests; values in `conceal` are masked in everything it prints. When `plan` fails the client is
 * closed; else the caller closes it (after apply). The progress line is stopped either way.
 */
export async function withLiveReads<T>(
  request: PlanRequest,
  conceal: Iterable<string>,
  plan: (live: LiveReads) => Promise<T>,
): Promise<T> {
  const api = new ApiClient(request.connection);
  api.conceal(conceal);
  request.progress?.phase("Reading live state", api.metrics);
  try {
    const ctx = await createContext(api);
    return await plan({ api, ctx, registry: createRegistry(kinds, fieldSpecs) });
  } catch (error) {
    await api.close();
    throw error;
  } finally {
    request.progress?.stop();
  }
}
