import { createHash } from "node:crypto";
import { readdirSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { setImmediate } from "node:timers/promises";
import type { ErrorObject } from "ajv";
import { FileReadError, readTextFile } from "../files/read.js";
import { buildNode } from "./build.js";
import { type Diagnostic, Diagnostics, formatRef, renderPath } from "./diagnostics.js";
import { displayPath, interpolate, isInside } from "./interpolate.js";
import {
  keyLoc,
  type Loc,
  locate,
  type Meta,
  type Path,
  Positions,
  selfLoc,
  setMeta,
  valueLoc,
} from "./located.js";
import type { DesiredCollection, DesiredNode, DesiredState, Selector } from "./model.js";
import { keepEntries, type Outline, type OutlinedFile, outlineOf, outlineOfValues } from "./outline.js";
import { entryProblem } from "./paths.js";
import { reservedProblem } from "./reserved.js";
import { checkBody, checkGroupVisibility, checkIdentities, identityOf, type SharedFields } from "./rules.js";
import { loadSchemas, reportSchemaErrors } from "./schemas.js";
import { covers, exceptProblem, isPattern, parsePattern } from "./selectors.js";
import { TemplateResolver } from "./templates.js";
import type { Manifest } from "./types.gen.js";
import { MAX_FILE_BYTES, type ParsedDocument, parseYaml } from "./yaml.js";

export type { Diagnostic } from "./diagnostics.js";
export { formatDiagnostic } from "./diagnostics.js";
export { type JsonSchema, kindSchema, loadSchemas, type SchemaSet } from "./schemas.js";

import { checkResolvedSecrets, type JsonSchema, type SchemaSet } from "./schemas.js";

export { isValidTimeZone, RAILS_TIME_ZONES } from "./timezones.js";

export interface LoadOptions {
  /** false: `${env:}`/`${file:}` references become empty Secrets and are not resolved (validate --no-secrets). */
  secrets: boolean;
  /** Where `${env:}` references are looked up (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The manifest root; `${file:}`, content_file and attachments may not leave it. Default: see manifestRoot(). */
  root?: string;
  /**
   * Those of the paths that a glob matched (the Action's `paths` input): read like the files of a folder, so only
   * the forgeform manifests among them count, and one that does not exist is skipped. A path named on its own is
   * always read.
   */
  found?: readonly string[];
  /**
   * Read only these files (absolute paths) into the desired state: a pull request's plan or a shard, which need
   * only what their work can touch (see outline.ts). Every file is still listed, with its digest, as in a full load;
   * the others are only outlined, and what only a whole load can say (a template no file uses, no manifest at all)
   * is not said.
   */
  only?: ReadonlySet<string>;
  /**
   * Of the files in `only`, those to read in part: the entries to read of each (by entryId, see outline.ts's
   * Selection); the file's other parts (version, templates, instance settings) are read as always.
   */
  partial?: ReadonlyMap<string, ReadonlySet<string>>;
  /**
   * Outlines already made of the files (by absolute path, with their digests), so that with `only` the other files
   * are not even read again.
   */
  outlines?: ReadonlyMap<string, { outline: Outline; digest: string }>;
  /** How long the load keeps the event loop at most before it lets it run (default HOLD_MS; 0: at every piece). */
  holdMs?: number;
  /**
   * The texts of files read already (by absolute path, through readTextFile), used instead of reading them again,
   * and taken out of the map as they are (it holds none longer than the load needs it); a file whose real path
   * leads outside the root is still refused.
   */
  texts?: Map<string, string>;
}

export interface LoadResult {
  /** The desired state; absent when any error was found. */
  state?: DesiredState;
  /** Errors and warnings, in file order. */
  diagnostics: Diagnostic[];
  /** Every manifest file read (named on its own, or holding a forgeform manifest), valid or not. */
  files: string[];
  /**
   * With `only`: the templates this load used, and the warning a whole load gives each of the others it declares,
   * for a caller loading in parts (a plan made in chunks) to give once, of those no part used.
   */
  templates?: { used: string[]; unused: { name: string; warning: Diagnostic }[] };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** The default manifest root: the deepest directory containing every given path (directories as themselves). */
export function manifestRoot(paths: string[]): string {
  const dirs = paths.map((p) => {
    const abs = resolve(p);
    try {
      return statSync(abs).isDirectory() ? abs : dirname(abs);
    } catch {
      return dirname(abs);
    }
  });
  if (dirs.length === 0) return process.cwd();
  let common = dirs[0]!.split(sep);
  for (const d of dirs.slice(1)) {
    const parts = d.split(sep);
    let i = 0;
    while (i < common.length && i < parts.length && common[i] === parts[i]) i++;
    common = common.slice(0, i);
  }
  return common.join(sep) || sep;
}

/** What to do about a link found in a folder that leads outside the manifest root. */
const OUTSIDE_HINT =
  "; to read it, give --root a folder that holds it too (by default the root is the deepest folder holding every path given)";

/** Whether `path` is a regular file (a link to /dev/zero is not one a hint should suggest reading). */
function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The value of `key` in `map`, taken out of it. */
function taken<V>(map: Map<string, V> | undefined, key: string): V | undefined {
  const value = map?.get(key);
  map?.delete(key);
  return value;
}

/** `path` with symbolic links resolved, or as it is when it does not exist. */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The text of one manifest file, or undefined after reporting why it is not read: it leads outside the manifest
 * root (a symbolic link, such as one a glob matched), it is not a regular file (a FIFO would block for ever, a link
 * to /dev/zero never end), or it holds more than MAX_FILE_BYTES, counted while reading.
 */
function readManifest(
  file: string,
  real: string,
  name: string,
  root: string,
  realRoot: string,
  diags: Diagnostics,
  walked = false,
  /** The file's text, read already. */
  known?: string,
): string | undefined {
  const at = { file: name, line: 1, col: 1 };
  // A file named outside a narrower --root is read as before: only a link out of the root is refused.
  if (isInside(root, file) && !isInside(realRoot, real)) {
    diags.error(
      at,
      "",
      `the file leads outside the manifest root ${displayPath(root)} (to ${real}) through a symbolic link: forgeform reads manifests only inside it${walked && isRegularFile(real) ? OUTSIDE_HINT : ""}`,
    );
    return undefined;
  }
  if (known !== undefined) return known;
  try {
    return readTextFile(file, { maxBytes: MAX_FILE_BYTES });
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    const message =
      error.problem === "too-large"
        ? `the file has ${error.size === undefined ? "more than 5 MiB" : `${error.size} bytes`}; manifests may have at most ${MAX_FILE_BYTES} (5 MiB)`
        : error.problem === "not-a-file"
          ? `the file ${error.reason}: manifests are read from regular files only`
          : `the file ${error.reason}`;
    diags.error(at, "", message);
    return undefined;
  }
}

/**
 * The *.yaml and *.yml files below `dir`, following symbolic links as a checkout holds them (a shared
 * `templates.yaml` linked into each environment's folder): a linked file is listed, and readManifest refuses it
 * when it leads outside the manifest root; a linked folder is walked when it is inside the root (once, however
 * many links lead to it: a link to a folder above it does not loop) and reported when it leads outside (a link to
 * `/` is not walked).
 */
function walkDir(dir: string, out: string[], walk: Walk): void {
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    const full = join(dir, entry.name);
    let isDir = entry.isDirectory();
    if (entry.isSymbolicLink()) {
      try {
        isDir = statSync(full).isDirectory();
      } catch {
        // A link to nothing: listed when named as a manifest, and readManifest says why it cannot be read.
        isDir = false;
      }
    }
    if (isDir) {
      const real = realPath(full);
      // As readManifest refuses a file: only a link from inside the root to outside it (a narrower --root leaves
      // the folders given outside it as they are).
      if (walk.root !== undefined && isInside(walk.root, full) && !isInside(walk.realRoot!, real)) {
        walk.diags.error(
          { file: displayPath(full), line: 1, col: 1 },
          "",
          `the folder leads outside the manifest root ${displayPath(walk.root!)} (to ${real}) through a symbolic link: forgeform reads manifests only inside it${OUTSIDE_HINT}`,
        );
        continue;
      }
      if (walk.seen.has(real)) continue;
      walk.seen.add(real);
      walkDir(full, out, walk);
    } else if ((entry.isFile() || entry.isSymbolicLink()) && /\.ya?ml$/i.test(entry.name)) out.push(full);
  }
}

/** A walk of the folders given: the folders walked already (real paths), and the root they may not leave. */
interface Walk {
  seen: Set<string>;
  root?: string;
  realRoot?: string;
  diags: Diagnostics;
}

interface Source {
  file: string;
  explicit: boolean;
}

function collectFiles(
  paths: string[],
  diags: Diagnostics,
  globbed: readonly string[] = [],
  root?: string,
): Source[] {
  const out: Source[] = [];
  const seen = new Set<string>();
  const walk: Walk = {
    seen: new Set(),
    diags,
    ...(root === undefined ? {} : { root, realRoot: realPath(root) }),
  };
  const matched = new Set(globbed.map((f) => resolve(f)));
  for (const p of paths.length ? paths : ["."]) {
    const abs = resolve(p);
    let st: ReturnType<typeof statSync>;
    try {
      st = statSync(abs);
    } catch {
      if (!matched.has(abs)) diags.error({ file: p, line: 1, col: 1 }, "", "no such file or directory");
      continue;
    }
    const found: Source[] = [];
    if (st.isDirectory()) {
      const files: string[] = [];
      const real = realPath(abs);
      if (walk.seen.has(real)) continue;
      walk.seen.add(real);
      walkDir(abs, files, walk);
      for (const f of files) found.push({ file: f, explicit: false });
    } else found.push({ file: abs, explicit: !matched.has(abs) });
    for (const s of found) {
      if (seen.has(s.file)) continue;
      seen.add(s.file);
      out.push(s);
    }
  }
  return out;
}

interface Declared {
  body: Obj;
  at: Loc;
}

/**
 * Declarations by name. Group and project paths are one path in any case, as on the platform (`acme/API` is
 * `acme/api`): `folded` maps each lower-cased path to its first spelling.
 */
class Declarations extends Map<string, Declared> {
  readonly #folded = new Map<string, { name: string; at: Loc }>();

  constructor(readonly caseInsensitive: boolean) {
    super();
  }

  /** Keeps the first declaration of each name and reports later ones, naming both places. */
  declare(name: string, body: unknown, at: Loc, path: string, what: string, diags: Diagnostics): void {
    const first = this.#folded.get(this.caseInsensitive ? name.toLowerCase() : name);
    if (first) {
      const spelled =
        first.name === name
          ? ""
          : ` as "${first.name}" (paths are the same in any case on the platform, so this is the same ${what})`;
      diags.error(
        at,
        path,
        `${what} "${name}" is declared twice; first declared${spelled} at ${formatRef(first.at)}`,
      );
      return;
    }
    this.#folded.set(this.caseInsensitive ? name.toLowerCase() : name, { name, at });
    if (isObj(body)) this.set(name, { body, at });
  }
}

/** A file's outline: scanned from its text, or from a parse when the scanner cannot tell. */
function outlineFile(name: string, text: string): Outline {
  const scanned = outlineOf(text);
  if (scanned) return scanned;
  const diags = new Diagnostics();
  const parsed = outlineOfValues(
    parseYaml(name, text, diags).documents.map((d) => d.value),
    text,
  );
  return diags.hasErrors ? { ...parsed, unreadable: true } : parsed;
}

/** A manifest file, its text's digests and its outline (for choosing what to load: see outline.ts). */
export interface FileOutline extends OutlinedFile {
  /** SHA-256 of the text. */
  digest: string;
  /** The id git gives the text (`git hash-object`): how it is found unchanged at another revision. */
  blob: string;
}

/**
 * The outlines of the manifest files at `paths` (as loadManifests lists them: a folder's forgeform manifests, every
 * file named on its own), without parsing them where the scanner can tell. Files that cannot be read are left out:
 * the load reports them.
 */
export function manifestOutlines(
  paths: string[],
  found: readonly string[] = [],
  root?: string,
  /** Outlines known by digest (another version of the same files): reused where the text is the same. */
  known?: ReadonlyMap<string, Outline>,
  /** Where to keep the texts read (by path), for a load of the same files not to read them again (LoadOptions.texts). */
  texts?: Map<string, string>,
): FileOutline[] {
  const diags = new Diagnostics();
  const rootDir = resolve(root ?? manifestRoot(paths.length ? paths : ["."]));
  const realRoot = realPath(rootDir);
  const out: FileOutline[] = [];
  const read = new Set<string>();
  for (const src of collectFiles(paths, diags, found, rootDir)) {
    const real = realPath(src.file);
    if (read.has(real)) continue;
    read.add(real);
    const name = displayPath(src.file);
    const text = readManifest(src.file, real, name, rootDir, realRoot, diags, !src.explicit);
    if (text === undefined) continue;
    const digest = createHash("sha256").update(text).digest("hex");
    const outline = known?.get(digest) ?? outlineFile(name, text);
    // A file no parse can read is kept, as a full load reports it (its errors) whatever it would have held.
    if (!src.explicit && !outline.manifest && !outline.unreadable) continue;
    texts?.set(src.file, text);
    const bytes = Buffer.from(text, "utf8");
    const blob = createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
    out.push({ file: src.file, outline, digest, blob });
  }
  return out;
}

/**
 * How long a load keeps the event loop at most before it lets it run (between two files, two documents, two
 * entries). A plan in chunks loads the next chunk while the requests of the one before are in flight
 * (src/cli/chunks.ts): their answers wait while the load holds the loop. At 16x a chunk's load held it for up to
 * 1.9 s at a time, 13.7 s of the plan's 89 s in all. With answers due every 2.5 ms (8 in flight, 20 ms each), 5 ms
 * rather than 20 keeps them flowing through a chunk's load: the 16x plan 72-73.5 s -> 69.7-71.1 s.
 */
export const HOLD_MS = 5;

/** A function to await between two pieces of a load: lets the event loop run once the load has held it holdMs. */
function breather(holdMs: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < holdMs) return;
    await setImmediate();
    since = performance.now();
  };
}

/** Loads manifest files and directories into one desired state, with every problem found reported. */
export async function loadManifests(paths: string[], opts: LoadOptions): Promise<LoadResult> {
  const breathe = breather(opts.holdMs ?? HOLD_MS);
  const diags = new Diagnostics();
  const schemas = loadSchemas();
  const root = resolve(opts.root ?? manifestRoot(paths.length ? paths : ["."]));
  const env = opts.env ?? process.env;
  const files: string[] = [];
  /** The SHA-256 of each file's text, by its name in `files`. */
  const digests: Record<string, string> = {};
  const docs: ParsedDocument[] = [];

  // Some document left unread (an error in it) may be what uses a template: no template is then said to be unused.
  let allRead = true;
  const realRoot = realPath(root);
  // One file reached by several names (a link to it, a folder linked twice) is read once, by the first.
  const read = new Set<string>();
  for (const src of collectFiles(paths, diags, opts.found, root)) {
    const known = opts.only && !opts.only.has(src.file) ? opts.outlines?.get(src.file) : undefined;
    if (known) {
      // Outlined already, and not to be read into the state: listed as a full load lists it.
      allRead = false;
      if (src.explicit || known.outline.manifest) {
        const name = displayPath(src.file);
        files.push(name);
        digests[name] = known.digest;
      }
      continue;
    }
    const name = displayPath(src.file);
    const real = realPath(src.file);
    if (read.has(real)) continue;
    read.add(real);
    const text = readManifest(
      src.file,
      real,
      name,
      root,
      realRoot,
      diags,
      !src.explicit,
      taken(opts.texts, src.file),
    );
    if (text === undefined) {
      files.push(name);
      allRead = false;
      continue;
    }
    if (opts.only && !opts.only.has(src.file)) {
      // Listed and digested as in a full load; not parsed.
      allRead = false;
      if (src.explicit || outlineFile(name, text).manifest) {
        files.push(name);
        digests[name] = createHash("sha256").update(text).digest("hex");
      }
      continue;
    }
    const keep = opts.partial?.get(src.file);
    // A partial read leaves the file's other entries out: what they use is not known.
    if (keep) allRead = false;
    const digest = createHash("sha256").update(text).digest("hex");
    // The outline made of this very text already (when the files were outlined to choose what to read).
    const outlined = opts.outlines?.get(src.file);
    const same = outlined?.digest === digest ? outlined.outline : undefined;
    const parsed = parseYaml(
      name,
      keep ? (keepEntries(text, keep, same ?? outlineOf(text)) ?? text) : text,
      diags,
    );
    allRead &&= parsed.complete;
    const relevant = parsed.documents.filter(
      // In a directory only forgeform manifests are read: documents with `version: 1`, or with a top-level
      // `version` and one of the manifest's own keys (a typo in the version is then reported). Other YAML, such
      // as a Helm Chart.yaml (`version: 0.1.0`), a docker-compose.yml or the sandbox fixture, is left alone; a file
      // named explicitly is always checked.
      (d) => src.explicit || isManifestDocument(d.value),
    );
    if (relevant.length > 0 || src.explicit) {
      files.push(name);
      digests[name] = digest;
    }
    docs.push(...relevant);
    await breathe();
  }

  const templates = new Declarations(false);
  const groups = new Declarations(true);
  const projects = new Declarations(true);
  const instanceParts: Obj[] = [];
  const manifestValidator = schemas.validator("manifest.schema.json");
  // Reported once every entry is declared: a required key may be left to a less specific entry in another file.
  const invalid: { errors: ErrorObject[]; value: Obj }[] = [];

  for (const doc of docs) {
    if (!isObj(doc.value)) {
      diags.error(doc.loc, "", "a manifest must be a map starting with `version: 1`");
      continue;
    }
    if (!manifestValidator(doc.value))
      invalid.push({ errors: manifestValidator.errors ?? [], value: doc.value });
    // Typed by the generated Manifest type; values are still checked, since a document with errors is read on.
    const v = doc.value as Partial<Record<keyof Manifest, unknown>>;
    if (isObj(v.templates)) {
      for (const [n, b] of Object.entries(v.templates)) {
        templates.declare(n, b, keyLoc(v.templates, n), renderPath(["templates", n]), "template", diags);
      }
    }
    if (isObj(v.groups)) {
      for (const [n, b] of Object.entries(v.groups)) {
        groups.declare(n, b, keyLoc(v.groups, n), renderPath(["groups", n]), "group", diags);
      }
    }
    if (isObj(v.projects)) {
      for (const [n, b] of Object.entries(v.projects)) {
        projects.declare(n, b, keyLoc(v.projects, n), renderPath(["projects", n]), "project", diags);
      }
    }
    if (isObj(v.instance)) instanceParts.push(v.instance);
    await breathe();
  }
  const leftToPattern = patternCompletes({ groups, projects }, schemas);
  for (const { errors, value } of invalid) reportSchemaErrors(errors, value, [], diags, leftToPattern);

  const instance = mergeInstance(instanceParts, diags);
  const resolver = new TemplateResolver(new Map([...templates].map(([k, d]) => [k, d.body])), diags);
  const groupBodies = new Map<string, Obj>();
  const projectBodies = new Map<string, Obj>();
  for (const [kind, decls, bodies, file] of [
    ["groups", groups, groupBodies, "group.schema.json"],
    ["projects", projects, projectBodies, "project.schema.json"],
  ] as const) {
    const validate = schemas.validator(file);
    for (const [name, d] of decls) {
      const body = resolver.apply(d.body, [kind, name]);
      if (body !== d.body && !validate(body)) {
        reportSchemaErrors(validate.errors ?? [], body, [kind, name], diags, leftToPattern);
      }
      bodies.set(name, body);
      await breathe();
    }
  }
  const unusedTemplate = (name: string) => `template "${name}" is not used by any extends`;
  for (const [name, d] of templates) {
    if (allRead && !resolver.used.has(name)) {
      diags.warning(d.at, renderPath(["templates", name]), unusedTemplate(name));
    }
  }
  const templateUse = opts.only
    ? {
        used: [...resolver.used],
        unused: [...templates]
          .filter(([name]) => !resolver.used.has(name))
          .map(([name, d]) => ({
            name,
            warning: {
              severity: "warning" as const,
              file: d.at.file,
              line: d.at.line,
              col: d.at.col,
              path: renderPath(["templates", name]),
              message: unusedTemplate(name),
            },
          })),
      }
    : undefined;

  const ctx = { schemas, diags, root };
  const file = (n: string) => schemas.files[n]!;
  if (instance) checkBody(instance, file("instance.schema.json"), ["instance"], ctx);
  for (const [n, b] of groupBodies) {
    checkBody(b, file("group.schema.json"), ["groups", n], ctx);
    await breathe();
  }
  for (const [n, b] of projectBodies) {
    checkBody(b, file("project.schema.json"), ["projects", n], ctx);
    await breathe();
  }
  checkGroupVisibility(
    new Map([...groupBodies].filter(([n]) => !isPattern(n))),
    new Map([...projectBodies].filter(([n]) => !isPattern(n))),
    diags,
  );
  for (const [collection, decls, bodies] of [
    ["groups", groups, groupBodies],
    ["projects", projects, projectBodies],
  ] as const) {
    for (const [n, b] of bodies) {
      // A path the schema refuses is reported once, there; a pattern creates nothing, nor does a delete.
      if (isPattern(n) || entryProblem(n, collection) !== undefined || b.state === "absent") continue;
      const problem = reservedProblem(n, collection);
      if (problem) diags.error(decls.get(n)!.at, renderPath([collection, n]), problem);
    }
  }
  checkSelectorEntries(groupBodies, "groups", file("group.schema.json"), schemas, diags);
  checkSelectorEntries(projectBodies, "projects", file("project.schema.json"), schemas, diags);

  const interp = { secrets: opts.secrets, env, root };
  if (instance) interpolate(instance, ["instance"], interp, diags);
  for (const [n, b] of groupBodies) {
    interpolate(b, ["groups", n], interp, diags);
    await breathe();
  }
  for (const [n, b] of projectBodies) {
    interpolate(b, ["projects", n], interp, diags);
    await breathe();
  }

  // Values of secrets are checked against their fields once resolved, without being shown.
  if (instance) checkResolvedSecrets(instance, "instance.schema.json", ["instance"], schemas, diags);
  for (const [n, b] of groupBodies) {
    checkResolvedSecrets(b, "group.schema.json", ["groups", n], schemas, diags);
    await breathe();
  }
  for (const [n, b] of projectBodies) {
    checkResolvedSecrets(b, "project.schema.json", ["projects", n], schemas, diags);
    await breathe();
  }
  // Identities are compared once secrets are resolved: two spellings of one object are one object.
  const shared: SharedFields = new Map();
  if (instance) checkIdentities(instance, file("instance.schema.json"), ["instance"], ctx, shared);
  for (const [n, b] of groupBodies) {
    checkIdentities(b, file("group.schema.json"), ["groups", n], ctx, shared);
    await breathe();
  }
  for (const [n, b] of projectBodies) {
    checkIdentities(b, file("project.schema.json"), ["projects", n], ctx, shared);
    await breathe();
  }

  for (const doc of docs) {
    checkNumbers(doc.value, [], diags);
    await breathe();
  }

  if (docs.length === 0 && !diags.hasErrors && !opts.only) {
    diags.error(
      { file: paths[0] ?? ".", line: 1, col: 1 },
      "",
      "no manifest found: manifests are *.yaml or *.yml files with a top-level `version: 1` (other YAML in a directory is left alone)",
    );
  }
  const diagnostics = diags.sorted(files);
  if (diags.hasErrors) return { diagnostics, files, ...(templateUse ? { templates: templateUse } : {}) };

  const bctx = { schemas, root, diags };
  const rootBody: Obj = instance ?? {};
  const rootNode = buildNode("instance", "instance", rootBody, file("instance.schema.json"), bctx);
  rootNode.source = docs[0]
    ? { file: docs[0].file, line: docs[0].loc.line, col: docs[0].loc.col }
    : rootNode.source;
  // From here on, each group's and project's parsed body is released once its node is built: with 100,000 objects,
  // the parsed bodies (with their positions) and the built nodes held together were the most memory a plan took.
  docs.length = 0;
  const built = (decls: Declarations, bodies: Map<string, Obj>, name: string, node: DesiredNode) => {
    const d = decls.get(name)!;
    bodies.delete(name);
    const keyedNode = keyed(node, d.at);
    d.body = {};
    return keyedNode;
  };
  const unmanaged = isObj(rootBody.unmanaged) ? rootBody.unmanaged : {};
  const groupSchema = file("group.schema.json");
  const projectSchema = file("project.schema.json");
  const exact = (bodies: Map<string, Obj>) => [...bodies].filter(([n]) => !isPattern(n));
  const groupOrder = exact(groupBodies)
    .map(([n]) => n)
    .sort((a, b) => a.split("/").length - b.split("/").length);
  const groupsColl: DesiredCollection = {
    policy: unmanaged.groups === "delete" || unmanaged.groups === "ignore" ? unmanaged.groups : "warn",
    items: [],
  };
  for (const n of groupOrder) {
    groupsColl.items.push(
      built(groups, groupBodies, n, buildNode("groups", n, groupBodies.get(n)!, groupSchema, bctx)),
    );
    await breathe();
  }
  const projectsColl: DesiredCollection = { policy: "ignore", items: [] };
  for (const [n] of exact(projectBodies)) {
    projectsColl.items.push(
      built(projects, projectBodies, n, buildNode("projects", n, projectBodies.get(n)!, projectSchema, bctx)),
    );
    await breathe();
  }
  const selectors: Selector[] = [];
  for (const [collection, bodies, decls, schema] of [
    ["groups", groupBodies, groups, groupSchema],
    ["projects", projectBodies, projects, projectSchema],
  ] as const) {
    for (const [pattern, body] of bodies) {
      if (!isPattern(pattern)) continue;
      selectors.push({
        collection,
        pattern,
        ...parsePattern(pattern),
        except: Array.isArray(body.except) ? body.except.map(String) : [],
        exceptSources: Array.isArray(body.except)
          ? body.except.map((_, i) => {
              const at = valueLoc(body.except, i);
              return { file: at.file, line: at.line, col: at.col };
            })
          : [],
        includeArchived: body.include_archived === true,
        node: keyed(buildNode(collection, pattern, body, schema, bctx), decls.get(pattern)!.at),
      });
    }
  }
  const patterns = (c: string) => selectors.some((sel) => sel.collection === c);
  if (groupsColl.items.length > 0 || unmanaged.groups !== undefined || patterns("groups"))
    rootNode.children.groups = groupsColl;
  if (projectsColl.items.length > 0 || patterns("projects")) rootNode.children.projects = projectsColl;
  return {
    state: { root: rootNode, files, digests, selectors },
    diagnostics,
    files,
    ...(templateUse ? { templates: templateUse } : {}),
  };
}

/**
 * Whether a required key of a collection item in a `groups:`/`projects:` entry is given by a less specific pattern
 * entry that covers it (see `covers`) and declares the same item, found by identity level by level. The engine
 * checks again once entries are merged for each object (a pattern that did not apply leaves the key missing).
 */
function patternCompletes(
  declared: { groups: Map<string, Declared>; projects: Map<string, Declared> },
  schemas: SchemaSet,
): (path: Path, key: string) => boolean {
  return (path, key) => {
    const [collection, name, ...rest] = path;
    if ((collection !== "groups" && collection !== "projects") || typeof name !== "string") return false;
    const entries = declared[collection];
    const own = entries.get(name)?.body;
    if (!own || rest.length < 2) return false;
    const topSchema = schemas.files[collection === "groups" ? "group.schema.json" : "project.schema.json"]!;
    return [...entries].some(([outer, d]) => {
      const except = Array.isArray(d.body.except) ? d.body.except.map(String) : [];
      if (outer === name || !covers(outer, except, name, collection)) return false;
      let mine: unknown = own;
      let theirs: unknown = d.body;
      let schema: JsonSchema | undefined = topSchema;
      for (let i = 0; i + 1 < rest.length; i += 2) {
        const [coll, index] = [rest[i], rest[i + 1]];
        if (typeof coll !== "string" || typeof index !== "number" || !isObj(mine) || !isObj(theirs))
          return false;
        const raw = (schema?.properties as Record<string, JsonSchema> | undefined)?.[coll];
        const prop = raw ? schemas.resolve(raw) : undefined;
        const identity = raw?.["x-identity"] ?? prop?.["x-identity"];
        if (!prop?.items || identity === undefined) return false;
        schema = schemas.resolve(prop.items as JsonSchema);
        const itemSchema = schema;
        const idOf = (item: unknown) =>
          isObj(item) ? identityOf(item, identity, coll, itemSchema)?.compare : undefined;
        const item = Array.isArray(mine[coll]) ? mine[coll][index] : undefined;
        const id = idOf(item);
        const other = Array.isArray(theirs[coll]) ? theirs[coll].find((x) => idOf(x) === id) : undefined;
        if (id === undefined || !isObj(other) || other.state === "absent") return false;
        [mine, theirs] = [item, other];
      }
      return isObj(theirs) && theirs[key] !== undefined;
    });
  };
}

/**
 * Rules for pattern entries: `except` and `include_archived` belong on patterns only; a pattern never deletes
 * (`state: absent`); two patterns of equal specificity that can match the same object must not disagree on a
 * field, a collection item's field or a prune policy.
 */
function checkSelectorEntries(
  bodies: Map<string, Obj>,
  collection: string,
  schema: JsonSchema,
  schemas: SchemaSet,
  diags: Diagnostics,
): void {
  for (const [key, body] of bodies) {
    const pattern = isPattern(key);
    for (const local of ["except", "include_archived"]) {
      if (!pattern && Object.hasOwn(body, local)) {
        diags.error(
          keyLoc(body, local),
          renderPath([collection, key, local]),
          `${local} belongs on a pattern entry (such as "${key.split("/")[0]}/**"), not on the full path ${key}`,
        );
      }
    }
    if (pattern && Array.isArray(body.except)) {
      body.except.forEach((entry, i) => {
        const problem = typeof entry === "string" ? exceptProblem(key, entry) : undefined;
        if (problem)
          diags.error(valueLoc(body.except, i), renderPath([collection, key, "except", i]), problem);
      });
    }
    if (pattern && body.state === "absent") {
      diags.error(
        valueLoc(body, "state"),
        renderPath([collection, key, "state"]),
        `a pattern never deletes: mark the ${collection} to delete "state: absent" one by one, by full path`,
      );
    }
  }
  const entries = [...bodies].filter(([k]) => isPattern(k));
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const [a, bodyA] = entries[i]!;
      const [b, bodyB] = entries[j]!;
      // Equal specificity and an overlap means the same literal prefix (`acme/*` and `acme/**`).
      if (parsePattern(a).prefix.toLowerCase() !== parsePattern(b).prefix.toLowerCase()) continue;
      for (const conflict of disagreements(bodyA, bodyB, schema, schemas, [])) {
        diags.error(
          locate(bodyB, conflict),
          renderPath([collection, b, ...conflict]),
          `"${b}" and "${a}" (at ${formatRef(locate(bodyA, conflict))}) are equally specific, both match the same ${collection}, and set this differently: set it in one of them, or in a more specific entry`,
        );
      }
    }
  }
}

/** Paths (relative to the bodies) where two bodies set a value differently; collection items match by identity. */
function disagreements(
  a: unknown,
  b: unknown,
  schema: JsonSchema | undefined,
  schemas: SchemaSet,
  path: (string | number)[],
): (string | number)[][] {
  if (isObj(a) && isObj(b)) {
    const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const out: (string | number)[][] = [];
    for (const key of Object.keys(b)) {
      if (key === "except" || key === "include_archived" || key === "extends" || !Object.hasOwn(a, key))
        continue;
      const prop = props[key] ? schemas.resolve(props[key]) : undefined;
      out.push(...disagreements(a[key], b[key], prop, schemas, [...path, key]));
    }
    return out;
  }
  const identity = schema?.["x-identity"];
  if (Array.isArray(a) && Array.isArray(b) && identity !== undefined && schema?.items) {
    const itemSchema = schemas.resolve(schema.items as JsonSchema);
    const idOf = (item: unknown) =>
      isObj(item) ? identityOf(item, identity, "", itemSchema)?.compare : undefined;
    // An item without `state` is there: one entry marking an item absent and another declaring it disagree.
    const absent = (item: unknown) => isObj(item) && item.state === "absent";
    const stateless = (item: unknown) => isObj(item) && !Object.hasOwn(item, "state");
    const out: (string | number)[][] = [];
    b.forEach((item, i) => {
      const id = idOf(item);
      const other = id === undefined ? undefined : a.find((x) => idOf(x) === id);
      if (other === undefined) return;
      if (absent(other) !== absent(item) && (stateless(other) || stateless(item)))
        out.push([...path, i, "state"]);
      out.push(...disagreements(other, item, itemSchema, schemas, [...path, i]));
    });
    return out;
  }
  return String(a) === String(b) && JSON.stringify(a) === JSON.stringify(b) ? [] : [path];
}
/**
 * Numbers no field takes, wherever they are: a whole number beyond 2^53 - 1 either way (YAML reads
 * `99999999999999999999999` as 1e+23, which is what would be sent) and `.inf`/`.nan`. A field with a range of its
 * own (its schema's minimum and maximum) has already said so at the same place; this is said only where nothing was.
 */
function checkNumbers(value: unknown, path: (string | number)[], diags: Diagnostics): void {
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) checkNumber(value, i, path, diags);
  else for (const key of Object.keys(value)) checkNumber(value, key, path, diags);
}

/** checkNumbers for one key of `container`: a number is checked, a map or list looked into. */
function checkNumber(
  container: object,
  key: string | number,
  path: (string | number)[],
  diags: Diagnostics,
): void {
  const v = (container as Record<string | number, unknown>)[key];
  if (typeof v !== "number") {
    if (v !== null && typeof v === "object") checkNumbers(v, [...path, key], diags);
    return;
  }
  const unsafe = Number.isInteger(v) && !Number.isSafeInteger(v);
  if (Number.isFinite(v) && !unsafe) return;
  const at = valueLoc(container, key);
  if (diags.hasErrorAt(at)) return;
  const text = at.text ?? String(v);
  diags.error(
    at,
    renderPath([...path, key]),
    unsafe
      ? `${text} is beyond the whole numbers any field takes: it would be sent as ${v}, not as written (whole numbers are exact only from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}); write the number the field needs`
      : `${text} is not a number any field takes (YAML reads it as ${v})`,
  );
}

const MANIFEST_KEYS = ["templates", "instance", "groups", "projects"];

/** Whether a YAML document found in a directory is a forgeform manifest (see loadManifests). */
export function isManifestDocument(value: unknown): boolean {
  if (!isObj(value) || !Object.hasOwn(value, "version")) return false;
  return value.version === 1 || MANIFEST_KEYS.some((k) => Object.hasOwn(value, k));
}

/** A group's or project's node is declared at its map key. */
function keyed(node: DesiredNode, at: Loc): DesiredNode {
  node.source = { file: at.file, line: at.line, col: at.col };
  return node;
}

/** Merges the `instance` sections of several documents: lists concatenate, singletons may appear once. */
function mergeInstance(parts: Obj[], diags: Diagnostics): Obj | undefined {
  if (parts.length === 0) return undefined;
  if (parts.length === 1) return parts[0];
  const out: Obj = {};
  const meta: Meta = { self: selfLoc(parts[0]), keys: new Positions(), values: new Positions() };
  const listMeta = new Map<string, Meta>();
  for (const part of parts) {
    for (const [k, v] of Object.entries(part)) {
      const kl = keyLoc(part, k);
      if (Array.isArray(v)) {
        const list = (out[k] as unknown[] | undefined) ?? [];
        let lm = listMeta.get(k);
        if (!lm) {
          lm = { self: valueLoc(part, k), keys: new Positions(), values: new Positions() };
          listMeta.set(k, lm);
        }
        v.forEach((item, i) => {
          lm.keys.set(String(list.length), valueLoc(v, i));
          lm.values.set(String(list.length), valueLoc(v, i));
          list.push(item);
        });
        out[k] = list;
        if (!meta.keys.has(k)) {
          meta.keys.set(k, kl);
          meta.values.set(k, valueLoc(part, k));
        }
        continue;
      }
      if (k === "unmanaged" && isObj(v)) {
        const merged = (out[k] as Obj | undefined) ?? {};
        const um = listMeta.get(k) ?? {
          self: valueLoc(part, k),
          keys: new Positions(),
          values: new Positions(),
        };
        listMeta.set(k, um);
        for (const [c, p] of Object.entries(v)) {
          const at = keyLoc(v, c);
          if (merged[c] !== undefined && merged[c] !== p) {
            diags.error(
              at,
              renderPath(["instance", "unmanaged", c]),
              `conflicting policy ${String(p)}; ${formatRef(um.keys.get(c)!)} sets ${String(merged[c])}`,
            );
            continue;
          }
          merged[c] = p;
          um.keys.set(c, at);
          um.values.set(c, valueLoc(v, c));
        }
        out[k] = merged;
        meta.keys.set(k, kl);
        continue;
      }
      if (Object.hasOwn(out, k)) {
        diags.error(
          kl,
          renderPath(["instance", k]),
          `instance.${k} is declared twice; first declared at ${formatRef(meta.keys.get(k)!)}`,
        );
        continue;
      }
      out[k] = v;
      meta.keys.set(k, kl);
      meta.values.set(k, valueLoc(part, k));
    }
  }
  for (const [k, lm] of listMeta) setMeta(out[k] as object, lm);
  setMeta(out, meta);
  return out;
}
