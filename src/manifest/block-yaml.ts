/**
 * A quick reader for the plain block style manifests are mostly written in, beside the YAML library's full parse
 * (yaml.ts). The library lexes, parses into a syntax tree and composes a document of nodes before forgeform
 * converts that into values: at 16x (7.9 MB of manifests) that allocated about 3.5 GB and took most of a plan's
 * CPU time in loading, much of it collecting garbage. This reader goes from the text to the same values with the
 * same positions in one pass over the lines.
 *
 * It reads only what it fully understands: one document of block maps and block lists, keys and values each on
 * one line, plain scalars, single-quoted and double-quoted strings without escapes, comments. Anything else (flow
 * collections, anchors, aliases, tags, block scalars, a value on several lines, an empty value, a duplicate or a
 * merge key, a document marker, tabs, a carriage return, a byte order mark, control characters, indentation it
 * does not expect, nesting deeper than it reads) makes it give up on the file, and the library parses it instead,
 * with every message it gives. The two agree on every file this reader reads (test/manifest/block-yaml.test.ts).
 *
 * Plain scalars are resolved with the YAML library's own core-schema tags, as its parse resolves them.
 */
import { isScalar, type ScalarTag, Schema } from "yaml";
import { type Loc, type Meta, Positions, setMeta } from "./located.js";

/** Strings up to this length are kept once per file (see KeptStrings). */
const INTERNED_LENGTH = 200;

/** A copy of `value` that shares no memory with the text it was cut from. */
function flat(value: string): string {
  return value.length === 0 ? value : Buffer.from(value, "utf8").toString("utf8");
}

/**
 * Strings as a file's values keep them: one copy of each short value (a thousand projects repeat `main`, `UTC` and
 * their variables' names), and never a slice of the file's text, which would keep the whole file in memory for as
 * long as the value lives.
 */
export class KeptStrings {
  readonly #kept = new Map<string, string>();

  text(value: string): string {
    if (value.length > INTERNED_LENGTH) return flat(value);
    let kept = this.#kept.get(value);
    if (kept === undefined) {
      kept = flat(value);
      this.#kept.set(kept, kept);
    }
    return kept;
  }
}

/** The YAML 1.2 core schema's scalar tags, as the library's parse (version 1.2, schema core) has them. */
const CORE = new Schema({ schema: "core" }).tags.filter(
  (t): t is ScalarTag => !("collection" in t && t.collection) && t.default === true && t.test !== undefined,
);
/** What a tag's resolve is given (the parse's options that matter to it). */
const RESOLVE_OPTIONS = { intAsBigInt: false };

/** Thrown inside the reader when it gives up on a file. */
class GiveUp extends Error {}
const giveUp = (): never => {
  throw new GiveUp();
};

/** A plain scalar's value, as the library resolves it (null, a boolean, a number, or the string itself). */
function resolvePlain(source: string): unknown {
  for (const tag of CORE) {
    if (!tag.test!.test(source)) continue;
    const res = tag.resolve(source, giveUp, RESOLVE_OPTIONS);
    return isScalar(res) ? res.value : res;
  }
  return source;
}

/** Characters a plain scalar cannot start with (YAML's indicators), but for `-` and `:` followed by a non-space. */
const INDICATORS = new Set([..."-?:,[]{}#&*!|>'\"%@`"]);

/** A scalar read from one line: its value, its text as written (plain ones), and where it ended. */
interface Read {
  value: unknown;
  /** The plain scalar as written; undefined for a quoted one. */
  source: string | undefined;
  /** Offset in the line just past the scalar (past the closing quote). */
  end: number;
}

/**
 * The scalar starting at `at` in `line`: a quoted string (single line, no escapes in double quotes) or a plain
 * scalar. For a key (`key`), the scalar ends at the first `:` followed by a space or the line's end; for a value,
 * at a comment or the line's end. Gives up on anything else.
 */
function readScalar(line: string, at: number, key: boolean): Read {
  const first = line[at]!;
  if (first === '"' || first === "'") {
    let i = at + 1;
    let value = "";
    for (;;) {
      const q = line.indexOf(first, i);
      if (q < 0) giveUp();
      if (first === "'" && line[q + 1] === "'") {
        value += line.slice(i, q + 1);
        i = q + 2;
        continue;
      }
      value += line.slice(i, q);
      i = q + 1;
      break;
    }
    if (first === '"' && value.includes("\\")) giveUp();
    return { value, source: undefined, end: i };
  }
  if (INDICATORS.has(first)) {
    const next = line[at + 1];
    if (!((first === "-" || first === ":") && next !== undefined && next !== " ")) giveUp();
  }
  let end: number;
  if (key) {
    let c = line.indexOf(":", at);
    while (c >= 0 && c + 1 < line.length && line[c + 1] !== " ") c = line.indexOf(":", c + 1);
    if (c < 0) giveUp();
    end = c;
  } else {
    const comment = line.indexOf(" #", at);
    end = comment < 0 ? line.length : comment;
    while (end > at && line[end - 1] === " ") end--;
  }
  const source = line.slice(at, end);
  // A space before the key's colon, a comment in a key, `: ` in a value (a map in a value) or a value ending in `:`.
  if (source.endsWith(" ") || (key && source.includes(" #"))) giveUp();
  if (!key && (source.includes(": ") || source.endsWith(":"))) giveUp();
  if (source.length > 1024) giveUp();
  return { value: resolvePlain(source), source, end };
}

/** After a scalar: nothing, or spaces and a comment. */
function restIsEmpty(line: string, from: number): boolean {
  if (from === line.length) return true;
  if (line[from] !== " ") return false;
  let i = from;
  while (i < line.length && line[i] === " ") i++;
  return i === line.length || line[i] === "#";
}

/** A map or list being read: its indentation, its value, and the positions of what it holds so far. */
interface Frame {
  map: boolean;
  indent: number;
  value: Record<string, unknown> | unknown[];
  self: Loc;
  keys: string[];
  keyLocs: Loc[];
  valueLocs: Loc[];
}

/** The document's value, or undefined when it is not the block style this reader reads (see the module's comment). */
export function parseBlockYaml(
  file: string,
  text: string,
  strings: KeptStrings,
  maxDepth: number,
): { value: unknown; loc: Loc } | undefined {
  try {
    return read(file, text, strings, maxDepth);
  } catch (error) {
    if (error instanceof GiveUp) return undefined;
    throw error;
  }
}

// Anything but printable characters, newlines and spaces: tabs, carriage returns, a byte order mark, controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
const UNREAD = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff\ufffe\uffff]/;

function read(
  file: string,
  text: string,
  strings: KeptStrings,
  maxDepth: number,
): { value: unknown; loc: Loc } | undefined {
  if (UNREAD.test(text)) return undefined;
  const stack: Frame[] = [];
  let root: Frame | undefined;
  /** A key whose value is a block on the lines below: its map and its position. */
  let pending: { frame: Frame; key: string; keyLoc: Loc } | undefined;

  const loc = (row: number, col: number, source?: string, value?: unknown): Loc => {
    const l: Loc = { file, line: row + 1, col: col + 1 };
    if (source !== undefined && source !== "" && source !== String(value)) l.text = source;
    return l;
  };
  const close = (frame: Frame) => {
    const n = frame.keys.length;
    if (frame.map) {
      const keys = new Positions(n);
      const values = new Positions(n);
      for (let i = 0; i < n; i++) {
        keys.set(frame.keys[i]!, frame.keyLocs[i]!);
        values.set(frame.keys[i]!, frame.valueLocs[i]!);
      }
      setMeta(frame.value, { self: frame.self, keys, values } satisfies Meta);
    } else {
      const items = new Positions(n);
      for (let i = 0; i < n; i++) items.set(String(i), frame.valueLocs[i]!);
      setMeta(frame.value, { self: frame.self, keys: items, values: items } satisfies Meta);
    }
  };
  const open = (map: boolean, indent: number, self: Loc): Frame => {
    if (stack.length >= maxDepth) giveUp();
    const frame: Frame = {
      map,
      indent,
      value: map ? {} : [],
      self,
      keys: [],
      keyLocs: [],
      valueLocs: [],
    };
    stack.push(frame);
    return frame;
  };
  const value = (v: unknown) => (typeof v === "string" ? strings.text(v) : v);
  /** Adds a key's value to a map. */
  const put = (frame: Frame, key: string, keyLoc: Loc, v: unknown, valueLoc: Loc) => {
    const obj = frame.value as Record<string, unknown>;
    if (Object.hasOwn(obj, key)) giveUp();
    Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
    frame.keys.push(key);
    frame.keyLocs.push(keyLoc);
    frame.valueLocs.push(valueLoc);
  };
  /** A `key: value` or `key:` line of `frame` (a map), the key at column `col` of `line`. */
  const keyLine = (frame: Frame, line: string, row: number, col: number) => {
    const k = readScalar(line, col, true);
    if (line[k.end] !== ":") giveUp();
    // YAML 1.1's merge key, which the library's parse reports.
    if (k.source === "<<") giveUp();
    const key = strings.text(String(k.value));
    const keyLoc = loc(row, col, k.source, k.value);
    const after = k.end + 1;
    if (restIsEmpty(line, after)) {
      pending = { frame, key, keyLoc };
      return;
    }
    if (line[after] !== " ") giveUp();
    let at = after;
    while (line[at] === " ") at++;
    const v = readScalar(line, at, false);
    if (!restIsEmpty(line, v.end)) giveUp();
    put(frame, key, keyLoc, value(v.value), loc(row, at, v.source, v.value));
  };

  let start = 0;
  for (let row = 0; start <= text.length; row++) {
    const nl = text.indexOf("\n", start);
    const line = text.slice(start, nl < 0 ? text.length : nl);
    start = nl < 0 ? text.length + 1 : nl + 1;
    let indent = 0;
    while (line.charCodeAt(indent) === 32) indent++;
    if (indent === line.length || line[indent] === "#") continue;
    if (indent === 0 && (line.startsWith("---") || line.startsWith("..."))) giveUp();
    const dash = line[indent] === "-" && (line[indent + 1] === " " || indent + 1 === line.length);
    let frame: Frame;
    if (root === undefined) {
      // The document: a map from the first column.
      if (indent !== 0 || dash) giveUp();
      root = open(true, 0, loc(row, 0));
      frame = root;
    } else if (pending) {
      // The block below `key:`, further in (a list at the key's own indentation is left to the library).
      const owner = pending.frame;
      if (indent <= owner.indent || stack[stack.length - 1] !== owner) giveUp();
      frame = open(!dash, indent, loc(row, indent));
      put(owner, pending.key, pending.keyLoc, frame.value, frame.self);
      pending = undefined;
    } else {
      while (stack.length > 0 && indent < stack[stack.length - 1]!.indent) close(stack.pop()!);
      frame = stack[stack.length - 1] ?? giveUp();
      // Further in than the map or list: a value on several lines, or indentation the library reports.
      if (indent !== frame.indent) giveUp();
    }
    if (frame.map) {
      if (dash) giveUp();
      keyLine(frame, line, row, indent);
      continue;
    }
    // A list's item: `- scalar` or `- key: ...` (a map whose keys start where this one does).
    if (!dash) giveUp();
    let at = indent + 1;
    while (line[at] === " ") at++;
    if (at === line.length || line[at] === "#" || (line[at] === "-" && line[at + 1] === " ")) giveUp();
    const list = frame.value as unknown[];
    if (looksLikeKey(line, at)) {
      const item = open(true, at, loc(row, at));
      list.push(item.value);
      frame.valueLocs.push(item.self);
      frame.keys.push("");
      keyLine(item, line, row, at);
      continue;
    }
    const v = readScalar(line, at, false);
    if (!restIsEmpty(line, v.end)) giveUp();
    list.push(value(v.value));
    frame.valueLocs.push(loc(row, at, v.source, v.value));
    frame.keys.push("");
  }
  if (pending || root === undefined) return undefined;
  while (stack.length > 0) close(stack.pop()!);
  return { value: root.value, loc: root.self };
}

/** Whether the item text at `at` is a key (`key:` or `key: value`) rather than a scalar. */
function looksLikeKey(line: string, at: number): boolean {
  const first = line[at];
  if (first === '"' || first === "'") {
    // A quoted key is followed by its colon at once; a quoted scalar is not.
    try {
      const end = readScalar(line, at, false).end;
      return line[end] === ":";
    } catch (error) {
      if (error instanceof GiveUp) return false;
      throw error;
    }
  }
  for (let c = line.indexOf(":", at); c >= 0; c = line.indexOf(":", c + 1)) {
    if (c + 1 === line.length || line[c + 1] === " ") {
      // A `:` inside a comment does not make a key.
      const comment = line.indexOf(" #", at);
      return comment < 0 || comment > c;
    }
  }
  return false;
}
