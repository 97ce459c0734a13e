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
  /** The templates the entry's `extends` names; when absent, any of the file's `uses`. */
  uses?: string[];
  /**
   * The lines the entry spans (0-based, the end excluded), and the line of its section's key (`projects:`): how
   * it is left out of a partial read (keepEntries). Absent where the outline came from a parse.
   */
  rows?: [number, number];
  section?: number;
  /** The entry is marked `state: absent` (templates cannot say it: only the entry's own body). */
  absent?: boolean;
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
  /** Those named outside the entries (by its templates); when absent, all of `uses`. */
  headUses?: string[];
  /**
   * Neither the scanner nor a parse can read the file: what it holds is unknown, so every shard reads it (and
   * reports its errors, as a full run does) rather than none.
   */
  unreadable?: boolean;
}

/** A key of a block mapping on one line: `key:` or `"key":` or `'key':`, then the rest. */
const KEY_LINE =
  /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s"'#&*!|>%@`{[\-?:,][^:#]*?|-[^\s:#][^:#]*?))\s*:(?:\s+(.*))?$/;

/** Thrown where a double-quoted scalar has an escape JSON does not share with YAML: the scanner gives up on the file. */
class UnknownEscape extends Error {}

/**
 * A double-quoted scalar's text, from what is between its quotes. YAML's escapes that JSON lacks (`\x41`, `\e`,
 * `\N`, `\U0001F600`...) are for a parse to read: the scan of the file stops (outlineOf is then undefined).
 */
function doubleQuoted(inner: string): string {
  try {
    return JSON.parse(`"${inner}"`) as string;
  } catch {
    throw new UnknownEscape();
  }
}

function unquote(m: RegExpExecArray): string {
  if (m[1] !== undefined) return doubleQuoted(m[1]);
  if (m[2] !== undefined) return m[2].replaceAll("''", "'");
  return m[3]!.trimEnd();
}

/** A plain scalar's text without a trailing comment; undefined for anything that is not one plain word or quoted string. */
function scalar(text: string): string | undefined {
  const t = text.replace(/\s+#.*$/, "").trim();
  const dq = /^"((?:[^"\\]|\\.)*)"$/.exec(t);
  if (dq) return doubleQuoted(dq[1]!);
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

/**
 * A name read from a file's text, as a string of its own: a slice of the text would keep the whole text alive as
 * long as the outline (a pull request's plan keeps every file's outline for the run).
 */
const own = (s: string) => Buffer.from(s, "utf8").toString("utf8");

/**
 * Whether a character is white space as String.prototype.trimStart sees it (ECMAScript WhiteSpace and
 * LineTerminator): the indentation the scanner measures is what trimStart would remove.
 */
function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** The outline of one manifest file's text, or undefined when the file must be parsed to know it. */
export function outlineOf(text: string): Outline | undefined {
  try {
    return scan(text);
  } catch (error) {
    if (error instanceof UnknownEscape) return undefined;
    throw error;
  }
}

function scan(text: string): Outline | undefined {
  if (text.includes("\t") || /(^|[\s[{,])[&*][^\s]/m.test(text) || /^\s*<<\s*:/m.test(text)) return undefined;
  const out = emptyOutline();
  const headUses: string[] = [];
  /** The templates named at this point: by the current entry, or by the file's templates. */
  const used = (...named: string[]) => {
    const names = named.map(own);
    out.uses.push(...names);
    (current ? current.uses! : headUses).push(...names);
  };
  /** The line of the current section's key (`groups:`, `projects:`). */
  let sectionRow = 0;
  let documents = 0;
  /** The document was ended (`...`). */
  let ended = false;
  /** Where the `instance:` section began, while it is the current one. */
  let instanceAt: number | undefined;
  let top: string | undefined;
  /** The indentation of the entries of the current top-level section, once known. */
  let entryIndent: number | undefined;
  let current: OutlineEntry | undefined;
  /** The indentation of the current entry's own keys, once known (where its `state:` is). */
  let bodyIndent: number | undefined;
  /** Set while the lines of a block scalar (`|`, `>`) are skipped: their indentation must be deeper than this. */
  let blockAbove: number | undefined;
  /** Set after `extends:` with nothing on its line: the block sequence of names that follows, at this indentation. */
  let extendsAt: number | undefined;
  /**
   * Set where a value the outline reads (`state: absent`, `extends: x`, a name of an `extends` list) was a scalar on
   * its line: the column of its key or dash. A deeper line after it continues that scalar (`absent` over two lines
   * is `absent more`), which only a parse reads.
   */
  let scalarAt: number | undefined;
  const close = (end: number, endRow: number) => {
    if (current) {
      current.size = end - current.size;
      current.rows![1] = endRow;
    }
    current = undefined;
    if (instanceAt !== undefined) out.instanceSize += end - instanceAt;
    instanceAt = undefined;
  };
  // The lines one at a time, and of a line only what is looked at: outlining every file of a large estate reads
  // millions of lines, and a line left alone (blank, a comment, deep in an entry's body) costs no string.
  let row = -1;
  /** The current line's text after its indentation and its `- `, if any. */
  let item = "";
  /** The line as a key (`key: rest`), once read: only where it matters (key()). */
  let keyLine: RegExpExecArray | null | undefined;
  /**
   * The line as a key, read where it matters: at the top level, for an entry's key, and where its text could hold a
   * block scalar, `state` or `extends` (may(); a key written with escapes could be either).
   */
  const key = (): RegExpExecArray | null => {
    if (keyLine === undefined) keyLine = KEY_LINE.exec(item);
    return keyLine;
  };
  const may = (word: string) => item.includes(word) || item.includes("\\");
  for (let next = 0; next <= text.length; ) {
    const at = next;
    row += 1;
    const nl = text.indexOf("\n", at);
    next = nl < 0 ? text.length + 1 : nl + 1;
    let end = nl < 0 ? text.length : nl;
    if (end > at && text.charCodeAt(end - 1) === 13) end -= 1;
    // A byte order mark before the first line is not indentation.
    const bom = at === 0 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    let start = at + bom;
    while (start < end && isSpace(text.charCodeAt(start))) start += 1;
    if (start === end || text.charCodeAt(start) === 35 /* # */) continue;
    const indent = start - at - bom;
    if (scalarAt !== undefined) {
      if (indent > scalarAt) return undefined;
      scalarAt = undefined;
    }
    if (blockAbove !== undefined) {
      if (indent > blockAbove) continue;
      blockAbove = undefined;
    }
    const body = text.slice(start, end);
    if (indent === 0 && (body.startsWith("---") || body.startsWith("..."))) {
      // A second document, or content after the marker (but a comment), is for a parse to tell.
      if (body.replace(/^(---|\.\.\.)(\s+#.*|\s*)$/, "") !== "") return undefined;
      if (body.startsWith("---") && documents > 0) return undefined;
      close(at, row);
      documents = 1;
      // `...` ends the document: only comments may follow.
      ended = body.startsWith("...");
      top = undefined;
      continue;
    }
    if (ended) return undefined;
    // A document's root indented (`  version: 1`): the scanner reads top-level keys at the first column only.
    if (top === undefined && indent > 0) return undefined;
    documents ||= 1;
    if (body.startsWith("? ") || body === "?") return undefined;
    if (extendsAt !== undefined) {
      if (indent >= extendsAt && body.startsWith("- ")) {
        const name = scalar(body.slice(2));
        if (name === undefined) return undefined;
        used(name);
        scalarAt = indent;
        continue;
      }
      // What follows `extends:` deeper and is not a list item (a flow list or a name on the next line): a parse.
      if (indent > extendsAt) return undefined;
      extendsAt = undefined;
    }
    item = body.startsWith("- ") ? body.slice(2).trimStart() : body;
    keyLine = undefined;
    if ((item.includes("|") || item.includes(">")) && key()) {
      const rest = keyLine![4];
      // The header of a block scalar, its indicators in either order, after a tag (`!!str |`) if any.
      if (rest !== undefined && /^(?:!\S*\s+)?[|>](?:[1-9][+-]?|[+-][1-9]?)?\s*(#.*)?$/.test(rest))
        blockAbove = indent;
    }
    if (indent === 0) {
      const m = key();
      if (!m) return undefined;
      const rest = m[4];
      close(at, row);
      top = unquote(m);
      sectionRow = row;
      entryIndent = undefined;
      if (top === "version") out.manifest ||= scalar(rest ?? "") === "1";
      if (top === "instance") {
        out.instance = true;
        instanceAt = at;
      }
      if ((top === "templates" || top === "groups" || top === "projects") && rest !== undefined) {
        // Entries written in flow style (`groups: {a: {}}`): only a parse can tell them.
        if (scalar(rest) !== undefined || rest.trim().startsWith("{") || rest.trim().startsWith("["))
          return undefined;
      }
      continue;
    }
    if ((top === "templates" || top === "groups" || top === "projects") && !body.startsWith("- ")) {
      entryIndent ??= indent;
      if (indent < entryIndent) return undefined;
      if (indent === entryIndent) {
        const m = key();
        if (!m) return undefined;
        const rest = m[4];
        close(at, row);
        const name = own(unquote(m));
        bodyIndent = undefined;
        if (top === "templates") out.templates.push(name);
        else {
          current = {
            collection: top,
            key: name,
            size: at,
            uses: [],
            rows: [row, row + 1],
            section: sectionRow,
          };
          out.entries.push(current);
        }
        if (rest?.trim().startsWith("{")) {
          // Whether a flow entry is marked absent is for a parse to tell, and so is one over several lines.
          if (current && /absent/.test(rest)) return undefined;
          const flow = rest.replace(/\s+#.*$/, "").trim();
          if (!flow.endsWith("}")) return undefined;
          // An entry in flow style on one line: its `extends` is read from it only when it is simple.
          const ext = /(?:^|[{,\s])extends\s*:\s*(\[[^\]]*\]|[^,}\s]+)/.exec(rest);
          if (ext) {
            const names = ext[1]!.startsWith("[") ? flowNames(ext[1]!) : [scalar(ext[1]!)];
            if (!names || names.some((n) => n === undefined)) return undefined;
            used(...(names as string[]));
          }
        }
        continue;
      }
    }
    if (current && indent > entryIndent!) {
      // The entry's own keys: `state: absent` marks it absent. A body the scanner cannot read this way (in flow
      // style on its own line, a tag or an alias on `state`) is for a parse to tell.
      if (bodyIndent === undefined) {
        if (/^[{[]/.test(body)) return undefined;
        bodyIndent = indent;
      }
      if (indent === bodyIndent && !body.startsWith("- ") && may("state")) {
        const m = key();
        if (m && unquote(m) === "state") {
          const value = scalar(m[4] ?? "");
          if (value === undefined) return undefined;
          if (value === "absent") current.absent = true;
          scalarAt = indent;
        }
      }
    }
    if (may("extends")) {
      const m = key();
      if (m && unquote(m) === "extends") {
        const rest = m[4];
        if (rest === undefined || rest.trim() === "" || /^#/.test(rest.trim())) extendsAt = indent;
        else {
          const names = rest.trim().startsWith("[") ? flowNames(rest) : [scalar(rest)];
          if (!names || names.some((n) => n === undefined)) return undefined;
          used(...(names as string[]));
          // The key's column: after a list item's dash, where the item's keys are.
          scalarAt = indent + body.length - item.length;
        }
      }
    }
  }
  // The end of the file: one past its last line (the empty one after a final line break, as split would give).
  const rows = row + 1;
  close(text.length, rows);
  out.uses = [...new Set(out.uses)];
  out.headUses = [...new Set(headUses)];
  for (const e of out.entries) e.uses = [...new Set(e.uses)];
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
  const uses = (v: unknown, into: string[] = out.uses): string[] => {
    if (Array.isArray(v)) for (const x of v) uses(x, into);
    else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === "extends") {
          for (const name of Array.isArray(x) ? x : [x]) if (typeof name === "string") into.push(name);
        } else uses(x, into);
      }
    }
    return into;
  };
  const headUses: string[] = [];
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
      for (const [key, body] of Object.entries(entries))
        out.entries.push({
          collection,
          key,
          size: Math.max(1, Math.round(text.length / Math.max(1, Object.keys(entries).length))),
          uses: [...new Set(uses(body, []))],
          ...(isObj(body) && body["state"] === "absent" ? { absent: true } : {}),
        });
    }
    headUses.push(...uses(value["templates"], []));
    uses(value["templates"]);
    uses(value["groups"]);
    uses(value["projects"]);
  }
  out.uses = [...new Set(out.uses)];
  out.headUses = [...new Set(headUses)];
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

/** An entry of a file, as the selection sees it. */
interface EntryRef {
  file: string;
  /** `projects:acme/api`, lower-cased: how a partial read names the entries it keeps (see keepEntries). */
  id: string;
  collection: string;
  key: string;
  pattern: boolean;
  root: string;
  uses: readonly string[];
}

/** The entry's name in a partial read: its collection and key, lower-cased as paths compare. */
export const entryId = (collection: string, key: string) => `${collection}:${lower(key)}`;

interface Index {
  byFile: Map<string, Outline>;
  entries: EntryRef[];
  entriesOf: Map<string, EntryRef[]>;
  /** Files by the templates they define; entries, and files whose templates, by the templates they use. */
  definers: Map<string, string[]>;
  entryUsers: Map<string, EntryRef[]>;
  headUsers: Map<string, string[]>;
}

function indexOf(files: readonly OutlinedFile[]): Index {
  const index: Index = {
    byFile: new Map(files.map((f) => [f.file, f.outline])),
    entries: [],
    entriesOf: new Map(),
    definers: new Map(),
    entryUsers: new Map(),
    headUsers: new Map(),
  };
  const add = <T>(map: Map<string, T[]>, key: string, value: T) => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const { file, outline } of files) {
    for (const t of outline.templates) add(index.definers, t, file);
    for (const t of outline.headUses ?? outline.uses) add(index.headUsers, t, file);
    const mine = outline.entries.map((e) => ({
      file,
      id: entryId(e.collection, e.key),
      collection: e.collection,
      key: lower(e.key),
      pattern: isPatternKey(e.key),
      root: lower(isPatternKey(e.key) ? prefixOf(e.key) : e.key),
      uses: e.uses ?? outline.uses,
    }));
    for (const e of mine) for (const t of e.uses) add(index.entryUsers, t, e);
    index.entriesOf.set(file, mine);
    index.entries.push(...mine);
  }
  return index;
}

/**
 * What a partial load reads: the files, and of those read only in part, the entries to read (by entryId). Every
 * read file's other parts (`version`, its templates, its instance settings) are read; a file not in `partial` is
 * read whole.
 */
export interface Selection {
  files: Set<string>;
  partial: Map<string, Set<string>>;
}

/** What a selection reads: file heads (templates, instance settings) and entries. */
interface Parts {
  heads: Set<string>;
  entries: Set<EntryRef>;
}

/**
 * What a change to `seeds` (the changed files, whole) touches: their templates and entries; the entries and the
 * templates that use a touched template; the entries below a touched pattern (their effective settings may change).
 */
function touchedBy(index: Index, seeds: Iterable<string>): Parts {
  const touched: Parts = { heads: new Set(), entries: new Set() };
  const heads = [...seeds].filter((f) => index.byFile.has(f));
  const entries = heads.flatMap((f) => index.entriesOf.get(f)!);
  while (heads.length > 0 || entries.length > 0) {
    const file = heads.pop();
    if (file !== undefined) {
      if (touched.heads.has(file)) continue;
      touched.heads.add(file);
      for (const t of index.byFile.get(file)!.templates) {
        entries.push(...(index.entryUsers.get(t) ?? []));
        heads.push(...(index.headUsers.get(t) ?? []));
      }
      continue;
    }
    const entry = entries.pop()!;
    if (touched.entries.has(entry)) continue;
    touched.entries.add(entry);
    if (entry.pattern)
      for (const other of index.entries)
        if (!touched.entries.has(other) && under(other.root, entry.root)) entries.push(other);
  }
  return touched;
}

/** The paths `path` is under (see `under`): itself, each of its parents, and "". */
function ancestorsOf(path: string): string[] {
  const out = ["", path];
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

/**
 * The entries related to an entry, in the index's order: the same key, a pattern whose root it is under, and (for
 * a full path) a group declared above it, or (for a group) below it. Found through maps of the index's entries by
 * key and by the paths they are under, not by comparing every entry with every other: a plan in chunks asks this
 * of every entry of each chunk (at 16x, 2,192 entries against 2,192).
 */
function relatedEntries(index: Index): (mine: EntryRef) => EntryRef[] {
  const position = new Map<EntryRef, number>();
  const byKey = new Map<string, EntryRef[]>();
  const patterns: EntryRef[] = [];
  /** Full-path group entries by their key, and by each path their key is under. */
  const groupsAt = new Map<string, EntryRef[]>();
  const groupsUnder = new Map<string, EntryRef[]>();
  const add = (map: Map<string, EntryRef[]>, key: string, e: EntryRef) => {
    const list = map.get(key);
    if (list) list.push(e);
    else map.set(key, [e]);
  };
  index.entries.forEach((e, i) => {
    position.set(e, i);
    add(byKey, e.key, e);
    if (e.pattern) patterns.push(e);
    else if (e.collection === "groups") {
      add(groupsAt, e.key, e);
      for (const a of new Set(ancestorsOf(e.key))) add(groupsUnder, a, e);
    }
  });
  return (mine) => {
    const found = new Set<EntryRef>(byKey.get(mine.key));
    for (const p of patterns) if (under(mine.root, p.root)) found.add(p);
    if (!mine.pattern) {
      for (const a of ancestorsOf(mine.key)) for (const g of groupsAt.get(a) ?? []) found.add(g);
      if (mine.collection === "groups") for (const g of groupsUnder.get(mine.key) ?? []) found.add(g);
    }
    return [...found].sort((a, b) => position.get(a)! - position.get(b)!);
  };
}

/**
 * `parts` and what they need to be read right: the templates they use (and the templates those use), the same
 * group or project declared elsewhere, a pattern covering one of their entries, a group above or below one of their
 * groups (their visibilities are checked together); and the instance settings (their `unmanaged:` policies say how
 * groups are planned), when anything is selected.
 */
function neededBy(index: Index, parts: Parts): Selection {
  const heads = new Set<string>();
  const entries = new Set<EntryRef>();
  /**
   * The entries read for their own sake, whose related entries are read too: the parts' entries, and every entry
   * of a file that is read whole because its outline came from a parse (it cannot leave any out). Such an entry is
   * validated, and planned where it is the run's to plan, like the others: it needs its templates and the patterns
   * over it as much (a shard reading a file of another shard's projects whole, where one of them extends a
   * template of a file it would not read otherwise, reported "unknown template").
   */
  const primary: EntryRef[] = [...parts.entries];
  const templatesOf = (names: readonly string[]) => names.flatMap((t) => index.definers.get(t) ?? []);
  const needEntry = (entry: EntryRef) => {
    if (entries.has(entry)) return;
    entries.add(entry);
    needHead(entry.file);
    for (const f of templatesOf(entry.uses)) needHead(f);
  };
  const needHead = (file: string) => {
    if (heads.has(file)) return;
    heads.add(file);
    const outline = index.byFile.get(file)!;
    for (const f of templatesOf(outline.headUses ?? outline.uses)) needHead(f);
    if (!canReadInPart(outline))
      for (const e of index.entriesOf.get(file)!) {
        if (entries.has(e)) continue;
        primary.push(e);
        needEntry(e);
      }
  };
  for (const f of parts.heads) needHead(f);
  for (const e of parts.entries) needEntry(e);
  const related = relatedEntries(index);
  // `primary` grows while it is gone through: a related entry may be in a file read whole.
  let done = 0;
  const relate = () => {
    for (; done < primary.length; done++)
      for (const other of related(primary[done]!)) if (!entries.has(other)) needEntry(other);
  };
  relate();
  if (heads.size > 0) for (const [file, outline] of index.byFile) if (outline.instance) needHead(file);
  relate();
  const partial = new Map<string, Set<string>>();
  for (const file of heads) {
    const all = index.entriesOf.get(file)!;
    const kept = all.filter((e) => entries.has(e));
    if (kept.length === all.length || !canReadInPart(index.byFile.get(file)!)) continue;
    partial.set(file, new Set(kept.map((e) => e.id)));
  }
  return { files: heads, partial };
}

/** Whether a file can be read in part: its outline has every entry's lines (it was not made from a parse). */
const canReadInPart = (outline: Outline) => outline.entries.every((e) => e.rows !== undefined);

/** What a change to `seeds` (the changed files) touches, and what that needs to be read right. */
export function touchedEntries(files: readonly OutlinedFile[], seeds: Iterable<string>): Selection {
  const index = indexOf(files);
  return neededBy(index, touchedBy(index, seeds));
}

/** The files a change to `seeds` touches (see touchedEntries), each read whole or in part. */
export function touchedFiles(files: readonly OutlinedFile[], seeds: Iterable<string>): Set<string> {
  return touchedEntries(files, seeds).files;
}

/** The top-level target an entry belongs to: the first segment of its path (a pattern's, of its root). */
export const unitOfKey = (key: string) => lower(prefixOf(key)).split("/")[0]!;

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

/**
 * What a shard owning `targets` reads: its entries (and the instance settings, when it owns them), and what they
 * need (see neededBy): of a file that also holds other shards' entries, only its own. And the files no shard owns a
 * part of (ownerless), which every shard reads.
 */
export function shardEntries(
  files: readonly OutlinedFile[],
  targets: ReadonlySet<string>,
  /** Whether the files no shard owns a part of are read too (see ownerless): a shard's; a chunk's reads them last. */
  withOwnerless = true,
): Selection {
  const index = indexOf(files);
  const parts: Parts = {
    heads: new Set(
      files
        .filter(
          ({ file, outline }) =>
            (targets.has("instance") && outline.instance) ||
            (withOwnerless && ownerless(file, outline, index)),
        )
        .map((f) => f.file),
    ),
    entries: new Set(index.entries.filter((e) => targets.has(e.root.split("/")[0]!))),
  };
  return neededBy(index, parts);
}

/**
 * A file no shard owns a part of, nor reads for what its entries need: one no parse can read, or one with no
 * entries, no instance settings and no template anything extends (unused templates, a manifest holding nothing to
 * plan). Every shard reads it, so that what a full run reports of it (a template's invalid setting, an unknown key,
 * a YAML error) is reported, not left to no one.
 */
const ownerless = (file: string, outline: Outline, index: Index) =>
  outline.unreadable === true ||
  (outline.entries.length === 0 &&
    !outline.instance &&
    outline.templates.every(
      (t) => !index.entryUsers.has(t) && !(index.headUsers.get(t) ?? []).some((user) => user !== file),
    ));

/** The files a shard owning `targets` reads (see shardEntries). */
export function shardFiles(files: readonly OutlinedFile[], targets: ReadonlySet<string>): Set<string> {
  return shardEntries(files, targets).files;
}

/**
 * The text of a manifest file with only the entries `keep` names (by entryId) left in, for a partial read: the
 * lines of the others become comments (`#`), so that every line and column of what is read stays where it is in
 * the file (positions in messages are the file's). A section left with no entry loses its key too (an empty `projects:` is
 * null, which the schema refuses). `outline`: the text's outline when it is known already (outlineOf's, of this
 * very text). Undefined when the scanner cannot outline the text: it is then read whole.
 */
export function keepEntries(
  text: string,
  keep: ReadonlySet<string>,
  outline = outlineOf(text),
): string | undefined {
  if (!outline || !canReadInPart(outline)) return undefined;
  /** The rows to empty, as [first, end) ranges. */
  const gaps: [number, number][] = [];
  const sections = new Map<number, boolean>();
  for (const e of outline.entries) {
    const kept = keep.has(entryId(e.collection, e.key));
    sections.set(e.section!, (sections.get(e.section!) ?? false) || kept);
    if (!kept) gaps.push(e.rows!);
  }
  for (const [row, anyKept] of sections) if (!anyKept) gaps.push([row, row + 1]);
  if (gaps.length === 0) return text;
  gaps.sort((a, b) => a[0] - b[0]);
  // Copied in stretches: the kept lines as they are, a left-out line as a `#` and its line break (its `\r` kept),
  // a blank one as its line break. A comment, not a blank line: a block scalar that keeps its final line breaks
  // (`|+`, `>+`) right before a left-out entry would take blank lines into its value, and a comment at the first
  // column ends it as the entry's key did.
  const parts: string[] = [];
  let row = 0;
  let at = 0;
  /** The offset of the start of row `target` (at or after the current row), or the text's length. */
  const advance = (target: number) => {
    while (row < target && at <= text.length) {
      const nl = text.indexOf("\n", at);
      at = nl < 0 ? text.length + 1 : nl + 1;
      row += 1;
    }
    return Math.min(at, text.length);
  };
  let copied = 0;
  for (const [first, end] of gaps) {
    if (end <= row && first < row) continue;
    const from = advance(first);
    parts.push(text.slice(copied, from));
    for (let r = Math.max(first, row); r < end && at <= text.length; r++) {
      const nl = text.indexOf("\n", at);
      const lineEnd = nl < 0 ? text.length : nl;
      const cr = lineEnd > at && text.charCodeAt(lineEnd - 1) === 13;
      if (lineEnd - (cr ? 1 : 0) > at) parts.push("#");
      if (cr) parts.push("\r");
      if (nl >= 0) parts.push("\n");
      at = nl < 0 ? text.length + 1 : nl + 1;
      row += 1;
    }
    copied = Math.min(at, text.length);
  }
  parts.push(text.slice(copied));
  return parts.join("");
}

/**
 * A plan made in chunks of top-level targets, one after another in one process (see src/cli/chunks.ts): the
 * targets of each chunk, and what every chunk's walk must know of the whole.
 */
export interface ChunkLayout {
  /** The top-level targets (`instance`, first path segments) of each chunk, in the order the manifests name them. */
  chunks: Set<string>[];
  /**
   * Every group and project the manifests declare, as written, in the order a plan walks them: deeper paths after
   * shallower ones, then in manifest order (files in the order they are read, entries as written).
   */
  order: Record<"groups" | "projects", string[]>;
  /** Those not marked `state: absent`, lower-cased: the top-level objects every chunk's plan counts as declared. */
  present: Record<"groups" | "projects", ReadonlySet<string>>;
}

/**
 * How to plan the outlined files in chunks: consecutive top-level targets, `perChunk` of them in each or, without
 * it, as many as weigh `chunkSize` characters of entries, the first `firstSize` (each next chunk weighs twice its
 * predecessor, up to `chunkSize`: the first requests wait for a small first chunk only, and each chunk loads in
 * less time than its predecessor's reads take). Undefined when the files cannot be planned in chunks (an outline
 * made from a parse, which cannot leave entries out; a pattern, which only the platform can expand) or when they
 * make one chunk only. With `units` (a shard's, shardTargets), the layout of those top-level targets alone: the plan
 * in chunks is then that shard's.
 */
export function chunkLayout(
  files: readonly OutlinedFile[],
  size: { perChunk?: number; chunkSize: number; firstSize?: number },
  units?: ReadonlySet<string>,
): ChunkLayout | undefined {
  const weights = new Map<string, number>();
  const order: ChunkLayout["order"] = { groups: [], projects: [] };
  const present = { groups: new Set<string>(), projects: new Set<string>() };
  for (const { outline } of files) {
    if (outline.instance && (!units || units.has("instance")))
      weights.set("instance", (weights.get("instance") ?? 0) + outline.instanceSize);
    for (const e of outline.entries) {
      const unit = unitOfKey(e.key);
      if (units && !units.has(unit)) continue;
      if (e.rows === undefined || isPatternKey(e.key)) return undefined;
      weights.set(unit, (weights.get(unit) ?? 0) + e.size);
      order[e.collection].push(e.key);
      if (!e.absent) present[e.collection].add(lower(e.key));
    }
  }
  const depth = (key: string) => key.split("/").length;
  for (const keys of Object.values(order)) keys.sort((a, b) => depth(a) - depth(b));
  const chunks: Set<string>[] = [];
  let current = new Set<string>();
  let weight = 0;
  let limit = Math.min(size.firstSize ?? size.chunkSize, size.chunkSize);
  for (const [unit, w] of weights) {
    const full = size.perChunk !== undefined ? current.size >= size.perChunk : weight >= limit;
    if (current.size > 0 && full) {
      chunks.push(current);
      current = new Set();
      weight = 0;
      limit = Math.min(limit * 2, size.chunkSize);
    }
    current.add(unit);
    weight += w;
  }
  if (current.size > 0) chunks.push(current);
  return chunks.length > 1 ? { chunks, order, present } : undefined;
}
