/**
 * A configuration file of another tool, read with the place of every key and value: YAML (GitLabForm's config.yml,
 * gitlabracadabra's action files) and JSON (the output of `terraform show -json`) become one tree of nodes, each
 * with its file, line and column (and, for JSON, its JSON pointer), so that everything the report says points at
 * the line that wrote it.
 */
import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type Scalar,
} from "yaml";

/** Where a key or value was written in a source file. */
export interface Place {
  /** The file as the user named it. */
  file: string;
  line: number;
  col: number;
  /** In a JSON file: the RFC 6901 pointer to the value (`/values/root_module/resources/3/values/token`). */
  pointer?: string;
}

export interface SMap {
  kind: "map";
  at: Place;
  entries: SEntry[];
}

export interface SEntry {
  key: string;
  keyAt: Place;
  value: SNode;
}

export interface SSeq {
  kind: "seq";
  at: Place;
  items: SNode[];
}

export interface SScalar {
  kind: "scalar";
  at: Place;
  value: string | number | boolean | null;
}

export type SNode = SMap | SSeq | SScalar;

/** A source that cannot be read as its tool reads it: what is wrong and where. */
export class SourceError extends Error {
  override readonly name = "SourceError";
  constructor(
    readonly at: Place,
    message: string,
  ) {
    super(`${placeText(at)}: ${message}`);
  }
}

/** `file:line:col` of a place. */
export function placeText(at: Place): string {
  return `${at.file}:${at.line}:${at.col}`;
}

/** Most nodes one source may expand to through aliases (a "billion laughs" file is refused, not expanded). */
const MAX_NODES = 1_000_000;

export interface ReadOptions {
  /** The YAML version of a document without a `%YAML` directive: PyYAML reads 1.1, ruamel.yaml 1.2. */
  version: "1.1" | "1.2";
  /** JSON pointers are recorded (for a JSON file). */
  pointers?: boolean;
}

/** Parses the text of one source file into a tree of placed nodes, or throws a SourceError. */
export function readSource(file: string, text: string, options: ReadOptions): SNode {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    version: options.version,
    // YAML 1.1's merge keys (`<<: *defaults`) are what PyYAML and ruamel.yaml read in 1.1 documents.
    merge: true,
    lineCounter,
    prettyErrors: false,
    uniqueKeys: true,
  });
  const at = (offset: number | undefined, pointer?: string): Place => {
    const p = lineCounter.linePos(offset ?? 0);
    return {
      file,
      line: p.line,
      col: p.col,
      ...(options.pointers && pointer !== undefined ? { pointer } : {}),
    };
  };
  const error = doc.errors[0];
  if (error) throw new SourceError(at(error.pos[0]), error.message.split("\n")[0] ?? "not valid YAML");
  // What the document expands to is counted before anything is built (each node once, an alias as what it
  // stands for), so a "billion laughs" file is refused at once.
  const sizes = new Map<Node, number>();
  const sizeOf = (node: Node | null | undefined, depth: number): number => {
    if (!node || depth > 200) return 1;
    const known = sizes.get(node);
    if (known !== undefined) return known;
    let size = 1;
    if (isAlias(node)) {
      const target = node.resolve(doc as Document) as Node | undefined;
      size = target ? sizeOf(target, depth + 1) : 1;
    } else if (isMap(node)) {
      for (const pair of node.items)
        size += sizeOf(pair.key as Node, depth + 1) + sizeOf(pair.value as Node, depth + 1);
    } else if (isSeq(node)) for (const item of node.items) size += sizeOf(item as Node, depth + 1);
    size = Math.min(size, MAX_NODES + 1);
    sizes.set(node, size);
    return size;
  };
  if (sizeOf(doc.contents as Node | null, 0) > MAX_NODES)
    throw new SourceError(at(0), `the file expands to more than ${MAX_NODES} values through aliases`);
  const build = (node: Node | null | undefined, pointer: string, depth: number): SNode => {
    if (depth > 200) throw new SourceError(at(node?.range?.[0]), "the file nests deeper than 200 levels");
    if (isAlias(node)) {
      const target = node.resolve(doc as Document) as Node | undefined;
      if (!target) throw new SourceError(at(node.range?.[0]), `the alias *${node.source} has no anchor`);
      return build(target, pointer, depth + 1);
    }
    if (isMap(node)) {
      const out: SMap = { kind: "map", at: at(node.range?.[0], pointer), entries: [] };
      const merged: SEntry[] = [];
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const keyValue = isScalar(keyNode) ? (keyNode as Scalar).value : undefined;
        // `<<` entries hold defaults: maps (or a list of maps) whose keys are taken where the map has none.
        if (isScalar(keyNode) && keyNode.source === "<<" && typeof keyValue === "symbol") {
          const value = build(pair.value as Node, pointer, depth + 1);
          const sources = value.kind === "seq" ? value.items : [value];
          for (const s of sources) if (s.kind === "map") merged.push(...s.entries);
          continue;
        }
        if (keyValue === undefined || (keyValue !== null && typeof keyValue === "object"))
          throw new SourceError(at(keyNode?.range?.[0]), "a key must be a plain value, not a map or a list");
        const key = String(keyValue);
        const childPointer = `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
        out.entries.push({
          key,
          keyAt: at(keyNode?.range?.[0], childPointer),
          value: build(pair.value as Node, childPointer, depth + 1),
        });
      }
      for (const m of merged) if (!out.entries.some((e) => e.key === m.key)) out.entries.push(m);
      return out;
    }
    if (isSeq(node)) {
      return {
        kind: "seq",
        at: at(node.range?.[0], pointer),
        items: node.items.map((item, i) => build(item as Node, `${pointer}/${i}`, depth + 1)),
      };
    }
    if (isScalar(node)) {
      const v = node.value;
      const value =
        typeof v === "string" || typeof v === "number" || typeof v === "boolean" || v === null
          ? v
          : typeof v === "bigint"
            ? Number(v)
            : v instanceof Date
              ? // YAML 1.1's timestamps (`2026-01-01` unquoted, as PyYAML reads it): the text as written.
                String(node.source ?? v.toISOString().slice(0, 10))
              : String(v);
      return { kind: "scalar", at: at(node.range?.[0], pointer), value };
    }
    // An empty value (`key:`) is null.
    return { kind: "scalar", at: at((node as Node | null | undefined)?.range?.[0], pointer), value: null };
  };
  return build(doc.contents as Node | null, "", 0);
}

/** The entry of a map with this key, or undefined. */
export function entry(node: SNode | undefined, key: string): SEntry | undefined {
  return node?.kind === "map" ? node.entries.find((e) => e.key === key) : undefined;
}

/** The value of a map's key, or undefined. */
export function child(node: SNode | undefined, key: string): SNode | undefined {
  return entry(node, key)?.value;
}

/** The plain value of a node: maps become objects, lists arrays. */
export function plain(node: SNode | undefined): unknown {
  if (node === undefined) return undefined;
  if (node.kind === "scalar") return node.value;
  if (node.kind === "seq") return node.items.map(plain);
  return Object.fromEntries(node.entries.map((e) => [e.key, plain(e.value)]));
}

/** A scalar's value, or undefined for maps and lists. */
export function scalar(node: SNode | undefined): string | number | boolean | null | undefined {
  return node?.kind === "scalar" ? node.value : undefined;
}
