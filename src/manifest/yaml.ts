import type { Document, Node } from "yaml";
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } from "yaml";
import type { Diagnostics } from "./diagnostics.js";
import { type Loc, type Meta, setMeta } from "./located.js";

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
      doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
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

const DUPLICATE_KEY = "duplicate key: a key may appear only once in a map";

function yamlMessage(code: string, message: string): string {
  const first = message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (code === "DUPLICATE_KEY") return DUPLICATE_KEY;
  return `YAML: ${first}`;
}

class Converter {
  /** Duplicate keys found (each reported where the repeated key is). */
  duplicates = 0;

  constructor(
    private readonly doc: Document,
    private readonly at: (offset: number) => Loc,
    private readonly diags: Diagnostics,
  ) {}

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
    if (isScalar(node)) return node.value;
    if (isMap(node)) {
      const self = this.loc(node, { file: "", line: 1, col: 1 });
      const obj: Record<string, unknown> = {};
      const meta: Meta = { self, keys: new Map(), values: new Map() };
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
      const meta: Meta = { self, keys: new Map(), values: new Map() };
      node.items.forEach((item, i) => {
        arr.push(this.value(item, depth + 1));
        const l = this.loc(item as Node, self);
        meta.keys.set(String(i), l);
        meta.values.set(String(i), l);
      });
      setMeta(arr, meta);
      return arr;
    }
    return null;
  }
}
