import type { Alias, Document, Node } from "yaml";
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } from "yaml";
import { KeptStrings, parseBlockYaml } from "./block-yaml.js";
import { type Diagnostics, didYouMean } from "./diagnostics.js";
import { type Loc, type Meta, Positions, setMeta } from "./located.js";

/** Largest manifest file read, in bytes. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/**
 * Most nodes (scalars, maps, lists and keys, every expansion counted) aliases may add to one document: what a
 * document of that size costs to load is about what the largest file (MAX_FILE_BYTES) costs. Counting expansions,
 * not aliases, is what stops "billion laughs": 99 aliases to a map of 10,000 keys are 99 aliases, and 2 million nodes.
 */
export const MAX_ALIAS_NODES = 1_000_000;
/** Deepest nesting of maps and lists read (a manifest needs about ten). */
export const MAX_DEPTH = 200;

export interface ParsedDocument {
  file: string;
  /** The document's top-level value, with positions attached (see located.ts). */
  value: unknown;
  /** Position of the document's start. */
  loc: Loc;
}

export interface ParsedFile {
  documents: ParsedDocument[];
  /**
   * False when a document of the file was left out for an error (syntax, a duplicate key, an alias): what it
   * declares or uses is then unknown (so "template not used" cannot be said).
   */
  complete: boolean;
}

/**
 * Parses YAML text with the YAML 1.2 core schema: `on`/`yes` stay strings, `0123` is the number 123, dates stay
 * strings, duplicate keys are errors (a file with any is not used further, like one with a syntax error). Each
 * document of the file becomes one ParsedDocument.
 *
 * Duplicate keys are found here, with one Set per map, not by the YAML library's `uniqueKeys` check: that one
 * compares every key of a map with every other (a 100,000-key map took a minute), this one is linear.
 */
export function parseYaml(file: string, text: string, diags: Diagnostics): ParsedFile {
  // The plain block style most manifests are written in is read without the library (see block-yaml.ts).
  const quick = parseBlockYaml(file, text, new KeptStrings(), MAX_DEPTH);
  if (quick) return { documents: [{ file, value: quick.value, loc: quick.loc }], complete: true };
  return parseWithLibrary(file, text, diags);
}

/** parseYaml with the YAML library: every file the quick reader leaves, with every message the library gives. */
export function parseWithLibrary(file: string, text: string, diags: Diagnostics): ParsedFile {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, {
    version: "1.2",
    schema: "core",
    uniqueKeys: false,
    merge: false,
    prettyErrors: false,
    lineCounter,
  });
  const list = Array.isArray(docs) ? docs : [];
  const at = (offset: number): Loc => {
    const p = lineCounter.linePos(offset);
    return { file, line: p.line, col: p.col };
  };
  let failed = false;
  for (const doc of list) {
    for (const e of doc.errors) {
      failed = true;
      diags.error(at(e.pos[0]), "", yamlMessage(e.code, e.message));
    }
    for (const w of doc.warnings) diags.warning(at(w.pos[0]), "", yamlMessage(w.code, w.message));
  }
  if (failed) return { documents: [], complete: false };
  const parsed: ParsedDocument[] = [];
  let complete = true;
  for (const doc of list) {
    if (doc.contents === null) continue;
    // Aliases are resolved (and what they expand to counted) before anything is built from the document.
    const targets = resolveAliases(doc, at, diags);
    if (!targets) {
      complete = false;
      continue;
    }
    const conv = new Converter(targets, at, diags);
    parsed.push({ file, value: conv.value(doc.contents, 0), loc: at(doc.contents.range[0]) });
    complete &&= conv.complete;
  }
  return complete ? { documents: parsed, complete } : { documents: [], complete };
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * The node each alias of the document stands for (the last node before it with that anchor), or undefined after
 * reporting why the document cannot be read: an alias to no anchor, an alias inside the node it names, a document
 * nested deeper than MAX_DEPTH, or aliases adding more than MAX_ALIAS_NODES nodes. One pass, each anchored node's
 * expanded size kept, so a billion laughs is counted, never expanded.
 */
function resolveAliases(
  doc: Document,
  at: (offset: number) => Loc,
  diags: Diagnostics,
): Map<Alias, Node> | undefined {
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node>();
  /** The expanded size of each anchored node, once it is complete. */
  const sizes = new Map<Node, number>();
  let added = 0;
  let failed = false;
  const fail = (node: Node, message: string) => {
    diags.error(at(node.range?.[0] ?? 0), "", message);
    failed = true;
  };
  /** `key`: the key whose value `node` is, when it is a plain one. */
  const size = (node: unknown, depth: number, key?: unknown): number => {
    if (failed || node === null || typeof node !== "object") return 1;
    const n = node as Node;
    if (isAlias(n)) {
      const target = anchors.get(n.source);
      if (target === undefined) {
        const hint = didYouMean(n.source, anchors.keys());
        fail(
          n,
          `*${n.source} refers to no anchor: an alias names an anchor (&${n.source}) set on a value above it in the same document${
            hint
              ? `; did you mean *${hint}?`
              : key === "extends"
                ? `; templates are named without *: extends: [${n.source}]`
                : ""
          }`,
        );
        return 1;
      }
      const expanded = sizes.get(target);
      if (expanded === undefined) {
        fail(n, `*${n.source} is inside the value it refers to (&${n.source}), which would never end`);
        return 1;
      }
      targets.set(n, target);
      added += expanded - 1;
      if (added > MAX_ALIAS_NODES) {
        fail(
          n,
          `*${n.source} stands for ${count(expanded)} values, and with it aliases add more than ${count(MAX_ALIAS_NODES)} values to this document (keys, scalars, maps and lists, every expansion counted), the most forgeform reads: share what repeats with a template (extends:) or a pattern entry instead`,
        );
      }
      return expanded;
    }
    if (depth > MAX_DEPTH) {
      fail(n, `the document nests deeper than ${MAX_DEPTH} levels of maps and lists`);
      return 1;
    }
    const anchor = "anchor" in n && typeof n.anchor === "string" ? n.anchor : undefined;
    // An anchor counts from its own node on (an alias inside that node is found, and refused, above).
    if (anchor !== undefined) anchors.set(anchor, n);
    let total = 1;
    if (isMap(n)) {
      for (const pair of n.items) {
        const key = isScalar(pair.key) ? pair.key.value : undefined;
        total += size(pair.key, depth + 1) + size(pair.value, depth + 1, key);
      }
    } else if (isSeq(n)) {
      for (const item of n.items) total += size(item, depth + 1);
    }
    if (anchor !== undefined) sizes.set(n, total);
    return total;
  };
  size(doc.contents, 0);
  return failed ? undefined : targets;
}

const DUPLICATE_KEY = "duplicate key: a key may appear only once in a map";

/** YAML 1.1's merge key, which YAML 1.2 (what forgeform reads) does not have. */
const MERGE_KEY = "<<";
const MERGE_KEY_MESSAGE =
  "`<<` merge keys are YAML 1.1, not part of the YAML 1.2 forgeform reads: nothing would be merged. Put the shared keys in a template and name it in `extends:`, or write them out";

function yamlMessage(code: string, message: string): string {
  const first = message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (code === "DUPLICATE_KEY") return DUPLICATE_KEY;
  return `YAML: ${first}`;
}

class Converter {
  /** False once an error means the document is not used (a duplicate key, a merge key, nesting too deep). */
  complete = true;
  /** The file's strings as kept (see KeptStrings). */
  private readonly strings = new KeptStrings();

  constructor(
    /** The node each alias stands for (see resolveAliases). */
    private readonly targets: Map<Alias, Node>,
    private readonly at: (offset: number) => Loc,
    private readonly diags: Diagnostics,
  ) {}

  /** A string value as kept (see KeptStrings). */
  text(value: string): string {
    return this.strings.text(value);
  }

  loc(node: Node | null | undefined, fallback: Loc): Loc {
    const range = node?.range;
    if (!range) return fallback;
    const l = this.at(range[0]);
    // The scalar as written is kept only where YAML read it as something else (`0123`, `on`): messages show it then.
    if (
      node &&
      isScalar(node) &&
      typeof node.source === "string" &&
      node.source !== "" &&
      node.source !== String(node.value)
    ) {
      l.text = node.source;
    }
    return l;
  }

  value(node: unknown, depth: number): unknown {
    if (isAlias(node)) return this.value(this.targets.get(node), depth);
    if (isScalar(node)) return typeof node.value === "string" ? this.text(node.value) : node.value;
    if (depth > MAX_DEPTH && (isMap(node) || isSeq(node))) {
      // Only an alias can take a document this deep (resolveAliases refuses a document written so).
      if (this.complete) {
        this.diags.error(
          this.loc(node, { file: "", line: 1, col: 1 }),
          "",
          `with its aliases expanded, the document nests deeper than ${MAX_DEPTH} levels of maps and lists`,
        );
      }
      this.complete = false;
      return null;
    }
    if (isMap(node)) {
      const self = this.loc(node, { file: "", line: 1, col: 1 });
      const obj: Record<string, unknown> = {};
      const meta: Meta = {
        self,
        keys: new Positions(node.items.length),
        values: new Positions(node.items.length),
      };
      const seen = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const keyNode = pair.key as Node | null;
        let key: string;
        if (keyNode === null || keyNode === undefined) key = "";
        else if (isScalar(keyNode)) key = String(keyNode.value);
        else {
          this.diags.error(this.loc(keyNode, self), "", "a key must be a plain string, not a map or a list");
          continue;
        }
        const keyLoc = this.loc(keyNode, self);
        if (seen.has(key)) {
          this.complete = false;
          this.diags.error(keyLoc, "", DUPLICATE_KEY);
          continue;
        }
        if (key === MERGE_KEY && isScalar(keyNode) && keyNode.type === "PLAIN") {
          this.complete = false;
          this.diags.error(keyLoc, "", MERGE_KEY_MESSAGE);
          continue;
        }
        seen.add(key);
        const valueNode = pair.value as Node | null;
        const v = valueNode === null || valueNode === undefined ? null : this.value(valueNode, depth + 1);
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        meta.keys.set(key, keyLoc);
        meta.values.set(
          key,
          valueNode ? this.loc(isAlias(valueNode) ? valueNode : valueNode, keyLoc) : keyLoc,
        );
      }
      setMeta(obj, meta);
      return obj;
    }
    if (isSeq(node)) {
      const self = this.loc(node, { file: "", line: 1, col: 1 });
      const arr: unknown[] = [];
      // An item's key and value are one position: one map serves as both.
      const items = new Positions(node.items.length);
      const meta: Meta = { self, keys: items, values: items };
      node.items.forEach((item, i) => {
        arr.push(this.value(item, depth + 1));
        items.set(String(i), this.loc(item as Node, self));
      });
      setMeta(arr, meta);
      return arr;
    }
    return null;
  }
}
