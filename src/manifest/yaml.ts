import type { Document, Node } from "yaml";
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, visit } from "yaml";
import type { Diagnostics } from "./diagnostics.js";
import { type Loc, type Meta, Positions, setMeta } from "./located.js";

/** Largest manifest file read, in bytes. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** Most alias expansions allowed in one document (guards against "billion laughs" documents). */
export const MAX_ALIAS_COUNT = 100;

export interface ParsedDocument {
  file: string;
  /** The document's top-level value, with positions attached (see located.ts). */
  value: unknown;
  /** Position of the document's start. */
  loc: Loc;
}

/**
 * Parses YAML text with the YAML 1.2 core schema: `on`/`yes` stay strings, `0123` is the number 123, dates stay
 * strings, duplicate keys are errors (a file with any is not used further, like one with a syntax error). Each
 * document of the file becomes one ParsedDocument.
 *
 * Duplicate keys are found here, with one Set per map, not by the YAML library's `uniqueKeys` check: that one
 * compares every key of a map with every other (a 100,000-key map took a minute), this one is linear.
 */
export function parseYaml(file: string, text: string, diags: Diagnostics): ParsedDocument[] {
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
  if (failed) return [];
  const parsed: ParsedDocument[] = [];
  let duplicates = false;
  for (const doc of list) {
    if (doc.contents === null) continue;
    try {
      // Building the document's values is how the YAML library counts alias expansions; a document without
      // aliases has none to count, and is not built twice (at 100,000 objects that copy was most of the garbage).
      if (hasAlias(doc)) doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      diags.error(
        at(doc.contents.range[0]),
        "",
        `too many alias expansions (${error instanceof Error ? error.message : String(error)}); at most ${MAX_ALIAS_COUNT} are allowed`,
      );
      continue;
    }
    const conv = new Converter(doc, at, diags);
    parsed.push({ file, value: conv.value(doc.contents, 0), loc: at(doc.contents.range[0]) });
    duplicates ||= conv.duplicates > 0;
  }
  return duplicates ? [] : parsed;
}

/** Whether the document holds an alias (`*name`). */
function hasAlias(doc: Document): boolean {
  let found = false;
  visit(doc, {
    Alias() {
      found = true;
      return visit.BREAK;
    },
  });
  return found;
}

const DUPLICATE_KEY = "duplicate key: a key may appear only once in a map";

function yamlMessage(code: string, message: string): string {
  const first = message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (code === "DUPLICATE_KEY") return DUPLICATE_KEY;
  return `YAML: ${first}`;
}

/** Strings up to this length are kept once per file (see Converter.text). */
const INTERNED_LENGTH = 200;

/** A copy of `value` that shares no memory with the text it was cut from. */
function flat(value: string): string {
  return value.length === 0 ? value : Buffer.from(value, "utf8").toString("utf8");
}

class Converter {
  /** Duplicate keys found (each reported where the repeated key is). */
  duplicates = 0;
  /** Short strings already kept (see `text`). */
  private readonly interned = new Map<string, string>();

  constructor(
    private readonly doc: Document,
    private readonly at: (offset: number) => Loc,
    private readonly diags: Diagnostics,
  ) {}

  /**
   * A string value as kept: one copy of each short value (a thousand projects repeat `main`, `UTC` and their
   * variables' names), and never a slice of the file's text, which would keep the whole file in memory for as long
   * as the value lives.
   */
  text(value: string): string {
    if (value.length > INTERNED_LENGTH) return flat(value);
    let kept = this.interned.get(value);
    if (kept === undefined) {
      kept = flat(value);
      this.interned.set(kept, kept);
    }
    return kept;
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
    if (depth > 200) return null;
    if (isAlias(node)) return this.value(node.resolve(this.doc), depth + 1);
    if (isScalar(node)) return typeof node.value === "string" ? this.text(node.value) : node.value;
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
          this.duplicates++;
          this.diags.error(keyLoc, "", DUPLICATE_KEY);
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
