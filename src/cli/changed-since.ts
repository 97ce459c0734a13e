/**
 * `--changed-since REF`: the manifests as they were at a git revision, compared with the working tree, so that a
 * pull request's plan reads and shows only what its change touches (src/engine/changes.ts). Both versions are
 * loaded without resolving secrets.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { type ChangeScope, changeScope } from "../engine/changes.js";
import { loadManifests, manifestRoot } from "../manifest/index.js";
import type { DesiredState } from "../manifest/model.js";

function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

export interface ScopeResult {
  scope?: ChangeScope;
  /** Why the plan is a full one after all (the manifests at REF could not be read). */
  warning?: string;
}

/**
 * Compares the manifests at `paths` with the same files at the git revision `ref`. `found`: those of the paths a
 * glob matched (see LoadOptions.found).
 */
export async function scopeSince(
  ref: string,
  paths: string[],
  head: DesiredState | undefined,
  found: readonly string[] = [],
): Promise<ScopeResult> {
  const given = paths.length > 0 ? paths : ["."];
  const root = manifestRoot(given);
  let top: string;
  try {
    top = git(root, ["rev-parse", "--show-toplevel"]);
  } catch {
    throw new Error(`--changed-since needs a git checkout, and ${root} is not inside one`);
  }
  try {
    git(top, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    throw new Error(
      `--changed-since: unknown git revision ${JSON.stringify(ref)}: fetch it first (e.g. git fetch origin main; in GitHub Actions, check out with fetch-depth: 0)`,
    );
  }
  const base = mkdtempSync(join(tmpdir(), "forgeform-base-"));
  try {
    const inRepo = relative(top, resolve(root)) || ".";
    let existed = true;
    try {
      const archive = execFileSync("git", ["archive", "--format=tar", ref, "--", inRepo], {
        cwd: top,
        stdio: ["ignore", "pipe", "pipe"],
        maxBuffer: 512 * 1024 * 1024,
      });
      execFileSync("tar", ["-x", "-C", base], { input: archive, stdio: ["pipe", "ignore", "pipe"] });
    } catch {
      existed = false; // the manifests did not exist at REF: everything is new
    }
    const headState = head ?? (await loadManifests(given, { secrets: false, found })).state;
    if (!headState) return { warning: "the manifests could not be read" };
    const atBase = (p: string) => join(base, relative(top, resolve(p)));
    const before = existed
      ? await loadManifests(given.map(atBase), {
          secrets: false,
          root: join(base, inRepo),
          found: found.map(atBase),
        })
      : { state: { root: { ...headState.root, children: {} }, files: [], selectors: [] } as DesiredState };
    if (!before.state) {
      return {
        warning: `the manifests at ${ref} do not load (they had errors then), so everything is planned`,
      };
    }
    return { scope: changeScope(before.state, headState) };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}
