/**
 * `--changed-since REF`: the manifests as they were at a git revision, compared with the working tree, so that a
 * pull request's plan reads and shows only what its change touches (src/engine/changes.ts). Only what the change
 * can touch is parsed, in both versions: the files whose text differs, and what those touch or need (the entries
 * using their templates, the entries below their patterns, the templates, patterns and groups over their entries...:
 * touchedEntries in src/manifest/outline.ts, from outlines read without parsing); of another file, only those
 * entries. The version at REF is loaded without resolving secrets.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { type ChangeScope, changeScope, type ScopeRoots } from "../engine/changes.js";
import { FileReadError, readTextFile } from "../files/read.js";
import { type FileOutline, loadManifests, manifestOutlines, manifestRoot } from "../manifest/index.js";
import { isInside } from "../manifest/interpolate.js";
import type { DesiredState } from "../manifest/model.js";
import { type Outline, touchedEntries } from "../manifest/outline.js";
import { MAX_FILE_BYTES } from "../manifest/yaml.js";

function git(cwd: string, args: string[]): string {
  return gitBytes(cwd, args).toString("utf8").trim();
}

function gitBytes(cwd: string, args: string[]): Buffer {
  return execFileSync("git", args, { cwd, stdio: ["ignore", "pipe", "pipe"], maxBuffer: 512 * 1024 * 1024 });
}

/** What a `--changed-since` plan loads, and the manifests at REF to compare them with. */
export interface SinceSelection {
  /** The files (absolute, as listed) to load from the working tree. */
  only?: Set<string>;
  /** Of those, the ones to load in part, with the entries to read (see outline.ts's Selection). */
  partial?: Map<string, Set<string>>;
  /** The same files at REF, loaded. */
  before?: DesiredState;
  /** The commit REF named when the files were compared. */
  commit?: string;
  /** Why the plan is a full one after all (the manifests at REF could not be read). */
  warning?: string;
  /** The outlines of the files in the working tree (every one, read or not). */
  outlines?: FileOutline[];
  /** Where the manifests at REF were read, and where they are now: files they name compare by their place. */
  roots?: ScopeRoots;
}

/** Two outlines of one file (at REF and now) as one: what either version defines and uses. */
function union(a: Outline | undefined, b: Outline | undefined): Outline {
  // A file that did not change has one outline: its entries once, not twice.
  if (a && (a === b || !b)) return a;
  if (b && !a) return b;
  return {
    manifest: (a?.manifest ?? false) || (b?.manifest ?? false),
    instance: (a?.instance ?? false) || (b?.instance ?? false),
    instanceSize: Math.max(a?.instanceSize ?? 0, b?.instanceSize ?? 0),
    templates: [...new Set([...(a?.templates ?? []), ...(b?.templates ?? [])])],
    entries: [...(a?.entries ?? []), ...(b?.entries ?? [])],
    uses: [...new Set([...(a?.uses ?? []), ...(b?.uses ?? [])])],
    // What the heads use (their templates' own `extends`), where both outlines know it: unknown, a selection
    // counts every template the file uses.
    ...((a && !a.headUses) || (b && !b.headUses)
      ? {}
      : { headUses: [...new Set([...(a?.headUses ?? []), ...(b?.headUses ?? [])])] }),
  };
}

/**
 * The manifests at `paths` compared with the same files at the git revision `ref`: which files to load, and their
 * version at REF. `found`: those of the paths a glob matched (see LoadOptions.found).
 */
export async function selectSince(
  ref: string,
  paths: string[],
  found: readonly string[] = [],
  /** The manifest root (default: the deepest folder containing every path). */
  manifestRootDir?: string,
): Promise<SinceSelection> {
  const given = paths.length > 0 ? paths : ["."];
  const root = resolve(manifestRootDir ?? manifestRoot(given));
  let top: string;
  try {
    top = git(root, ["rev-parse", "--show-toplevel"]);
  } catch {
    throw new Error(
      `--changed-since needs a git checkout, and ${manifestRootDir ? `the manifest root (--root) ${root}` : root} is not inside one`,
    );
  }
  // The commit REF names now: what is compared, and what a saved plan is made again against (a branch moves).
  let commit: string;
  try {
    commit = git(top, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  } catch {
    throw new Error(
      `--changed-since: unknown git revision ${JSON.stringify(ref)}: fetch it first (e.g. git fetch origin main; in GitHub Actions, check out with fetch-depth: 0)`,
    );
  }
  const inRepo = relative(top, root) || ".";
  // What is compared: the files below the root, and below the paths given outside a narrower --root.
  const scopeDir = resolve(manifestRoot([root, ...given]));
  const inScope = relative(top, scopeDir) || ".";
  if (inScope.startsWith("..") || isAbsolute(inScope))
    throw new Error(
      `--changed-since compares the manifests with the git checkout ${top} at ${ref}, and ${given.filter((p) => !isInside(top, resolve(p))).join(", ")} is outside it: plan those manifests on their own`,
    );
  const now = manifestOutlines(given, found, root);
  // The files at REF by their git ids: a file with the same id did not change, and is not read at REF at all.
  let atRef: Map<string, string>;
  try {
    atRef = new Map(
      git(top, ["ls-tree", "-r", "-z", "--full-tree", commit, "--", inScope])
        .split("\0")
        .filter((line) => line !== "")
        .map((line) => {
          const [meta, path] = line.split("\t");
          return [path!, meta!.split(" ")[2]!] as const;
        }),
    );
  } catch {
    atRef = new Map();
  }
  if (atRef.size === 0) return { only: new Set(now.map((f) => f.file)), outlines: now, commit };
  const place = (file: string) => relative(top, resolve(file));
  const head = new Map(now.map((f) => [place(f.file), f]));
  const changed = [
    ...[...head].filter(([p, f]) => atRef.get(p) !== f.blob).map(([p]) => p),
    ...[...atRef.keys()].filter((p) => !head.has(p) && /\.ya?ml$/i.test(p)),
  ];
  // Files the manifests name (a wiki page's content_file, its attachments) are read into the desired state: a
  // change to one is a change of the manifests that name it.
  const notManifest = (p: string) => !head.has(p) && !(atRef.has(p) && /\.ya?ml$/i.test(p));
  const others = changedFilesSince(top, commit, inScope).filter(notManifest);
  if (others.length > 0) {
    const already = new Set(changed);
    const naming = namingFiles(
      [...head].filter(([p]) => !already.has(p)).map(([p, f]) => [p, f.file] as const),
      others,
    );
    changed.push(...naming);
  }
  const changedSet = new Set(changed);
  const base = mkdtempSync(join(tmpdir(), "forgeform-base-"));
  try {
    // The changed files at REF, to outline; then the selection, to load.
    const extract = (places: string[]) => {
      const wanted = places.filter((p) => atRef.has(p));
      for (let i = 0; i < wanted.length; i += 200) {
        const archive = gitBytes(top, ["archive", "--format=tar", commit, "--", ...wanted.slice(i, i + 200)]);
        execFileSync("tar", ["-x", "-C", base], { input: archive, stdio: ["pipe", "ignore", "pipe"] });
      }
    };
    extract(changed);
    const baseRoot = join(base, inRepo);
    const atBase = (p: string) => join(base, relative(top, resolve(p)));
    // At REF: the changed files as they were; the others as they are now.
    // The texts read at REF (the changed files, to outline them; the selected ones, for the files they name), by
    // where they were read: the load reads none of them again.
    const texts = new Map<string, string>();
    const thenChanged = new Map(
      manifestOutlines(
        changed.filter((p) => atRef.has(p)).map((p) => join(base, p)),
        [],
        baseRoot,
        undefined,
        texts,
      ).map((f) => [relative(base, f.file), f]),
    );
    const past = new Map([...head].filter(([p]) => !changedSet.has(p)));
    for (const [p, f] of thenChanged) past.set(p, f);
    const places = [...new Set([...head.keys(), ...past.keys()])];
    const { files: selected, partial } = touchedEntries(
      places.map((p) => ({ file: p, outline: union(head.get(p)?.outline, past.get(p)?.outline) })),
      changed,
    );
    // A selected file that did not change is at REF what it is in the working tree (the same git id): it is copied
    // from there rather than read out of git (at 16x, 100 files of a template's users: 150 ms less).
    for (const p of selected) {
      const now = head.get(p);
      if (changedSet.has(p) || !now) continue;
      const to = join(base, p);
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(now.file, to);
    }
    // The files the selected manifests may name, as they were at REF (the working tree's may have changed).
    const selectedAtBase = [...selected].filter((p) => existsSync(join(base, p)));
    extract(
      namedFiles(
        selectedAtBase.map((p) => [p, join(base, p)] as const),
        [...atRef.keys()].filter(notManifest),
        texts,
      ),
    );
    const pick = (places: Iterable<string>) => new Set([...places].map((p) => join(base, p)));
    // What was named at REF and is there (a file named on its own that did not change was not extracted).
    const named = given.map(atBase).filter((p) => existsSync(p));
    const baseOnly = pick([...selected].filter((p) => past.has(p)));
    let before: DesiredState | undefined;
    if (named.length > 0 && baseOnly.size > 0) {
      const loaded = await loadManifests(named, {
        secrets: false,
        root: baseRoot,
        found: found.map(atBase),
        only: baseOnly,
        partial: new Map([...partial].map(([p, ids]) => [join(base, p), ids])),
        outlines: new Map([...past].map(([p, f]) => [join(base, p), f])),
        texts,
      });
      if (!loaded.state) {
        const first = loaded.diagnostics.find((d) => d.severity === "error");
        const where = first ? `${relative(base, first.file)}:${first.line}:${first.col}` : "";
        const what = first ? `: ${where}: ${first.message.split(base + sep).join("")}` : "";
        return {
          warning: `the manifests at ${ref} do not load (they had errors then${what}), so everything is planned`,
        };
      }
      before = loaded.state;
    }
    return {
      only: new Set([...selected].flatMap((p) => (head.has(p) ? [head.get(p)!.file] : []))),
      partial: new Map([...partial].flatMap(([p, ids]) => (head.has(p) ? [[head.get(p)!.file, ids]] : []))),
      ...(before ? { before } : {}),
      outlines: now,
      commit,
      // Real paths, as the files they name are resolved (the base folder exists; its root only if a file was read).
      roots: { base: join(realpathSync(base), inRepo), head: realpathSync(root) },
    };
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
}

/** What differs between the manifests at REF and the ones loaded now (src/engine/changes.ts). */
export function scopeOf(selection: SinceSelection, head: DesiredState): ChangeScope | undefined {
  if (selection.warning) return undefined;
  const before =
    selection.before ?? ({ root: { ...head.root, children: {} }, files: [], selectors: [] } as DesiredState);
  return changeScope(before, head, selection.roots);
}

/**
 * The files (paths from the top of the checkout) that differ between REF and the working tree below `inRepo`:
 * modified, added to the index, or deleted. Files git does not track are not at REF, and a manifest that names one
 * changed to do so.
 */
function changedFilesSince(top: string, ref: string, inRepo: string): string[] {
  return gitBytes(top, ["diff", "--name-only", "--no-renames", "-z", ref, "--", inRepo])
    .toString("utf8")
    .split("\0")
    .filter((p) => p !== "");
}

/** A manifest's text, or undefined when it cannot be read as one (the load reports why). */
function manifestText(file: string): string | undefined {
  try {
    return readTextFile(file, { maxBytes: MAX_FILE_BYTES });
  } catch (error) {
    if (error instanceof FileReadError) return undefined;
    throw error;
  }
}

/**
 * Which of `files` (path from the top of the checkout, and where to read it) may name one of `named` (paths from
 * the top): those whose text holds its file name. A manifest names a file relative to itself, in any quoting, so
 * its name is what any spelling holds; a file that holds it and does not name it is only read for nothing (its
 * entries compare equal and are not planned).
 */
function namingFiles(files: readonly (readonly [string, string])[], named: readonly string[]): string[] {
  const names = [...new Set(named.map((p) => basename(p)))];
  return files
    .filter(([, file]) => {
      const text = manifestText(file);
      return text !== undefined && names.some((n) => text.includes(n));
    })
    .map(([p]) => p);
}

/**
 * Of `candidates` (paths from the top), those that one of `files` (path from the top, and where to read it) may
 * name: the ones whose file name is a word of a file's text (split at spaces, quotes, brackets, commas and colons),
 * or, for a name with one of those in it, is in the text. Texts are taken from `read` (by where they were read)
 * and those read here kept in it, for the load not to read them again; a file that cannot be read as a manifest is
 * left to the load to report.
 */
function namedFiles(
  files: readonly (readonly [string, string])[],
  candidates: readonly string[],
  read: Map<string, string>,
): string[] {
  if (candidates.length === 0 || files.length === 0) return [];
  const words = new Set<string>();
  const texts: string[] = [];
  for (const [, file] of files) {
    const text = read.get(file) ?? manifestText(file);
    if (text === undefined) continue;
    read.set(file, text);
    texts.push(text);
    for (const word of text.split(/[\s"'[\]{},:]+/)) if (word !== "") words.add(basename(word));
  }
  return candidates.filter((p) => {
    const name = basename(p);
    return /[\s"'[\]{},:]/.test(name) ? texts.some((t) => t.includes(name)) : words.has(name);
  });
}
