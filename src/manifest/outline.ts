/**
 * The outline of a manifest file: what it defines (templates, group and project entries, instance settings) and
 * what it uses (the templates its `extends` name), read without parsing the YAML. A pull request's plan and a shard
 * use outlines to load only the files their work can touch; the full loader then reads those files as always.
 *
 * The scanner reads the block style manifests are written in, line by line. Whatever it does not fully understand
 * (flow collections where entries are, anchors and aliases, merge keys, complex keys, tabs) makes it give up on the
 * file, and the caller outlines that file from a real parse instead: an outline is never a guess.
 */

export interface OutlineEntry {
  collection: "groups" | "projects";
  /** The entry's key as written: a full path or a pattern (`acme/**`). */
  key: string;
  /** The size of the entry's text, in characters: what the entry weighs, for sharing work out. */
  size: number;
}

export interface Outline {
  /** The file holds a forgeform manifest (`version: 1`). */
  manifest: boolean;
  /** It has an `instance:` section. */
  instance: boolean;
  /** The size of its `instance:` section, in characters (what it weighs, for sharing work out). */
  instanceSize: number;
  templates: string[];
  entries: OutlineEntry[];
  /** Every template name its `extends` name (in entries and in templates). */
  uses: string[];
}

interface Line {
  indent: number;
  /** The text after the indentation, comments left in (they are stripped where it matters). */
  text: string;
  /** Offset of the line's start in the file. */
  at: number;
}

/** A key of a block mapping on one line: `key:` or `"key":` or `'key':`, then the rest. */
const KEY_LINE =
  /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s"'#&*!|>%@`{[\-?:,][^:#]*?|-[^\s:#][^:#]*?))\s*:(?:\s+(.*))?$/;

function unquote(m: RegExpExecArray): string {
  if (m[1] !== undefined) return JSON.parse(`"${m[1]}"`) as string;
  if (m[2] !== undefined) return m[2].replaceAll("''", "'");
  return m[3]!.trimEnd();
}

/** A plain scalar's text without a trailing comment; undefined for anything that is not one plain word or quoted string. */
function scalar(text: string): string | undefined {
  const t = text.replace(/\s+#.*$/, "").trim();
  const dq = /^"((?:[^"\\]|\\.)*)"$/.exec(t);
  if (dq) return JSON.parse(`"${dq[1]}"`) as string;
  const sq = /^'((?:[^']|'')*)'$/.exec(t);
  if (sq) return sq[1]!.replaceAll("''", "'");
  return /^[^\s"'&*!|>%@`{}[\],#][^#]*$/.test(t) ? t : undefined;
}

/** The names of a flow sequence on one line (`[a, b]`); undefined when it is anything more. */
function flowNames(text: string): string[] | undefined {
  const t = text.replace(/\s+#.*$/, "").trim();
  if (!t.startsWith("[") || !t.endsWith("]") || t.slice(1, -1).includes("[")) return undefined;
  const inner = t.slice(1, -1).trim();
  if (inner === "") return [];
  const names: string[] = [];
  for (const part of inner.split(",")) {
    const s = scalar(part);
    if (s === undefined) return undefined;
    names.push(s);
  }
  return names;
}

/** The outline of one manifest file's text, or undefined when the file must be parsed to know it. */
export function outlineOf(text: string): Outline | undefined {
  if (text.includes("\t") || /(^|[\s[{,])[&*][^\s]/m.test(text) || /^\s*<<\s*:/m.test(text)) return undefined;
  const lines: Line[] = [];
  let at = 0;
  for (const raw of text.split("\n")) {
    const trimmed = raw.replace(/\r$/, "");
    const body = trimmed.trimStart();
    if (body !== "" && !body.startsWith("#"))
      lines.push({ indent: trimmed.length - body.length, text: body, at });
    at += raw.length + 1;
  }
  const out = emptyOutline();
  let documents = 0;
  /** Where the `instance:` section began, while it is the current one. */
  let instanceAt: number | undefined;
  let top: string | undefined;
  /** The indentation of the entries of the current top-level section, once known. */
  let entryIndent: number | undefined;
  let current: OutlineEntry | undefined;
  /** Set while the lines of a block scalar (`|`, `>`) are skipped: their indentation must be deeper than this. */
  let blockAbove: number | undefined;
  /** Set after `extends:` with nothing on its line: the block sequence of names that follows, at this indentation. */
  let extendsAt: number | undefined;
  const close = (end: number) => {
    if (current) current.size = end - current.size;
    current = undefined;
    if (instanceAt !== undefined) out.instanceSize += end - instanceAt;
    instanceAt = undefined;
  };
  for (const line of lines) {
    if (blockAbove !== undefined) {
      if (line.indent > blockAbove) continue;
      blockAbove = undefined;
    }
    if (line.indent === 0 && (line.text.startsWith("---") || line.text.startsWith("..."))) {
      // A second document (or content after the marker) is for a parse to tell.
      if (documents > 0 || line.text.replace(/^(---|\.\.\.)\s*/, "") !== "") return undefined;
      close(line.at);
      documents += 1;
      top = undefined;
      continue;
    }
    documents ||= 1;
    if (line.text.startsWith("? ") || line.text === "?") return undefined;
    if (extendsAt !== undefined) {
      if (line.indent >= extendsAt && line.text.startsWith("- ")) {
        const name = scalar(line.text.slice(2));
        if (name === undefined) return undefined;
        out.uses.push(name);
        continue;
      }
      extendsAt = undefined;
    }
    const item = line.text.startsWith("- ") ? line.text.slice(2).trimStart() : line.text;
    const m = KEY_LINE.exec(item);
    const rest = m?.[4];
    if (m && rest !== undefined && /^[|>][+-]?\d*\s*(#.*)?$/.test(rest)) {
      blockAbove = line.indent;
    }
    if (line.indent === 0) {
      if (!m) return undefined;
      close(line.at);
      top = unquote(m);
      entryIndent = undefined;
      if (top === "version") out.manifest ||= scalar(rest ?? "") === "1";
      if (top === "instance") {
        out.instance = true;
        instanceAt = line.at;
      }
      if ((top === "templates" || top === "groups" || top === "projects") && rest !== undefined) {
        // Entries written in flow style (`groups: {a: {}}`): only a parse can tell them.
        if (scalar(rest) !== undefined || rest.trim().startsWith("{") || rest.trim().startsWith("["))
          return undefined;
      }
      continue;
    }
    if ((top === "templates" || top === "groups" || top === "projects") && !line.text.startsWith("- ")) {
      entryIndent ??= line.indent;
      if (line.indent < entryIndent) return undefined;
      if (line.indent === entryIndent) {
        if (!m) return undefined;
        close(line.at);
        const key = unquote(m);
        if (top === "templates") out.templates.push(key);
        else {
          current = { collection: top, key, size: line.at };
          out.entries.push(current);
        }
        if (rest !== undefined && rest.trim().startsWith("{")) {
          // An entry in flow style on one line: its `extends` is read from it only when it is simple.
          const ext = /(?:^|[{,\s])extends\s*:\s*(\[[^\]]*\]|[^,}\s]+)/.exec(rest);
          if (ext) {
            const names = ext[1]!.startsWith("[") ? flowNames(ext[1]!) : [scalar(ext[1]!)];
            if (!names || names.some((n) => n === undefined)) return undefined;
            out.uses.push(...(names as string[]));
          }
          if (/[{}]/.test(rest.slice(1)) && !rest.trim().endsWith("}")) return undefined;
        }
        continue;
      }
    }
    if (m && unquote(m) === "extends") {
      if (rest === undefined || rest.trim() === "" || /^#/.test(rest.trim())) extendsAt = line.indent;
      else {
        const names = rest.trim().startsWith("[") ? flowNames(rest) : [scalar(rest)];
        if (!names || names.some((n) => n === undefined)) return undefined;
        out.uses.push(...(names as string[]));
      }
    }
  }
  close(text.length);
  out.uses = [...new Set(out.uses)];
  return out;
}

/** An outline of nothing yet: what each reading of a file fills in. */
function emptyOutline(): Outline {
  return { manifest: false, instance: false, instanceSize: 0, templates: [], entries: [], uses: [] };
}

/** The outline of a manifest document already parsed (for the files the scanner gives up on). */
export function outlineOfValues(values: unknown[], text: string): Outline {
  const out = emptyOutline();
  const isObj = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === "object" && !Array.isArray(v);
  const uses = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) uses(x);
    else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === "extends") {
          for (const name of Array.isArray(x) ? x : [x]) if (typeof name === "string") out.uses.push(name);
        } else uses(x);
      }
    }
  };
  for (const value of values) {
    if (!isObj(value)) continue;
    out.manifest ||= value["version"] === 1;
    if (isObj(value["instance"])) {
      out.instance = true;
      out.instanceSize += Math.max(1, JSON.stringify(value["instance"]).length);
    }
    if (isObj(value["templates"])) out.templates.push(...Object.keys(value["templates"]));
    for (const collection of ["groups", "projects"] as const) {
      const entries = value[collection];
      if (!isObj(entries)) continue;
      // Without positions, an entry weighs its share of the file.
      for (const key of Object.keys(entries))
        out.entries.push({
          collection,
          key,
          size: Math.max(1, Math.round(text.length / Math.max(1, Object.keys(entries).length))),
        });
    }
    uses(value["templates"]);
    uses(value["groups"]);
    uses(value["projects"]);
  }
  out.uses = [...new Set(out.uses)];
  return out;
}

/** A file and its outline. */
export interface OutlinedFile {
  file: string;
  outline: Outline;
}

const lower = (s: string) => s.toLowerCase();
const isPatternKey = (key: string) =>
  key === "*" || key === "**" || key.endsWith("/*") || key.endsWith("/**");
const prefixOf = (key: string) => key.replace(/\/?\*\*?$/, "");
/** Whether `path` is `root` or below it ("" is above everything). */
const under = (path: string, root: string) => root === "" || path === root || path.startsWith(`${root}/`);

interface Index {
  byFile: Map<string, Outline>;
  /** Files by the templates they define, and by those they use. */
  definers: Map<string, string[]>;
  users: Map<string, string[]>;
  entries: { file: string; collection: string; key: string; pattern: boolean; root: string }[];
}

function indexOf(files: readonly OutlinedFile[]): Index {
  const definers = new Map<string, string[]>();
  const users = new Map<string, string[]>();
  const add = (map: Map<string, string[]>, key: string, file: string) =>
    map.set(key, [...(map.get(key) ?? []), file]);
  for (const { file, outline } of files) {
    for (const t of outline.templates) add(definers, t, file);
    for (const t of outline.uses) add(users, t, file);
  }
  return {
    byFile: new Map(files.map((f) => [f.file, f.outline])),
    definers,
    users,
    entries: files.flatMap(({ file, outline }) =>
      outline.entries.map((e) => ({
        file,
        collection: e.collection,
        key: lower(e.key),
        pattern: isPatternKey(e.key),
        root: lower(isPatternKey(e.key) ? prefixOf(e.key) : e.key),
      })),
    ),
  };
}

/**
 * The files a change to `seeds` (the changed files) touches: the seeds, the files using a template a touched file
 * defines, and those with entries below a pattern a touched file declares (their entries' effective settings may
 * change).
 */
function touchedBy(index: Index, seeds: Iterable<string>): Set<string> {
  const touched = new Set<string>();
  const queue = [...seeds].filter((f) => index.byFile.has(f));
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (touched.has(file)) continue;
    touched.add(file);
    const outline = index.byFile.get(file)!;
    for (const t of outline.templates) for (const f of index.users.get(t) ?? []) queue.push(f);
    for (const mine of outline.entries) {
      if (!isPatternKey(mine.key)) continue;
      const root = lower(prefixOf(mine.key));
      for (const other of index.entries)
        if (!touched.has(other.file) && under(other.root, root)) queue.push(other.file);
    }
  }
  return touched;
}

/**
 * `files` and what they need to be read right: the files defining the templates they use (and the templates those
 * use), declaring the same group or project, a pattern covering one of their entries, or a group above or below
 * one of their groups (their visibilities are checked together); and the files with instance settings (their
 * `unmanaged:` policies say how groups are planned), when anything is selected.
 */
function neededBy(index: Index, files: Iterable<string>): Set<string> {
  const selected = new Set<string>();
  const need = (file: string) => {
    if (selected.has(file)) return;
    selected.add(file);
    for (const t of index.byFile.get(file)!.uses) for (const f of index.definers.get(t) ?? []) need(f);
  };
  const base = [...files].filter((f) => index.byFile.has(f));
  for (const f of base) need(f);
  for (const file of base) {
    for (const mine of index.byFile.get(file)!.entries) {
      const key = lower(mine.key);
      const pattern = isPatternKey(mine.key);
      const root = pattern ? lower(prefixOf(mine.key)) : key;
      for (const other of index.entries) {
        if (selected.has(other.file)) continue;
        const related =
          other.key === key ||
          (other.pattern && under(root, other.root)) ||
          (!pattern &&
            !other.pattern &&
            other.collection === "groups" &&
            (under(key, other.key) || (mine.collection === "groups" && under(other.key, key))));
        if (related) need(other.file);
      }
    }
  }
  if (selected.size > 0) for (const [file, outline] of index.byFile) if (outline.instance) selected.add(file);
  return selected;
}

/** The files a change to `seeds` (the changed files) touches, and what those need to be read right. */
export function touchedFiles(files: readonly OutlinedFile[], seeds: Iterable<string>): Set<string> {
  const index = indexOf(files);
  return neededBy(index, touchedBy(index, seeds));
}

/** The top-level target an entry belongs to: the first segment of its path (a pattern's, of its root). */
const unitOfKey = (key: string) => lower(prefixOf(key)).split("/")[0]!;

/**
 * The top-level targets (`instance`, and each first path segment) a shard K/N owns, from the outlines alone: each
 * target weighs the text of its entries, heaviest first to the least-loaded shard (ties to the lowest). Undefined
 * when a pattern covers every top-level target (`*`, `**`): which targets exist is then the platform's to say.
 */
export function shardTargets(
  files: readonly OutlinedFile[],
  shard: { index: number; count: number },
): Set<string> | undefined {
  const weights = new Map<string, number>();
  for (const { outline } of files) {
    for (const e of outline.entries) {
      if (isPatternKey(e.key) && prefixOf(e.key) === "") return undefined;
      const unit = unitOfKey(e.key);
      weights.set(unit, (weights.get(unit) ?? 0) + e.size);
    }
    if (outline.instance) weights.set("instance", (weights.get("instance") ?? 0) + outline.instanceSize);
  }
  return shareOf(weights, shard);
}

/**
 * The units shard `index` of `count` owns: units go, heaviest first (then by name), each to the shard with the
 * least weight so far (the lowest-numbered on a tie). The manifests' outline and the engine's loaded model weigh
 * the same units alike, so both find the same share.
 */
export function shareOf(
  weights: ReadonlyMap<string, number>,
  shard: { index: number; count: number },
): Set<string> {
  const load = Array.from({ length: shard.count }, () => 0);
  const mine = new Set<string>();
  const units = [...weights].sort(([a, wa], [b, wb]) => wb - wa || (a < b ? -1 : a > b ? 1 : 0));
  for (const [unit, w] of units) {
    let best = 0;
    for (let i = 1; i < load.length; i++) if (load[i]! < load[best]!) best = i;
    load[best]! += w;
    if (best === shard.index - 1) mine.add(unit);
  }
  return mine;
}

/** The files a shard owning `targets` reads: those with its entries, and what they need (see touchedFiles). */
export function shardFiles(files: readonly OutlinedFile[], targets: ReadonlySet<string>): Set<string> {
  const own = files.filter(
    ({ outline }) =>
      outline.entries.some((e) => targets.has(unitOfKey(e.key))) ||
      (targets.has("instance") && outline.instance),
  );
  return neededBy(
    indexOf(files),
    own.map((f) => f.file),
  );
}
