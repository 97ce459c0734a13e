import type { SourceRef } from "./model.js";

/**
 * Source positions travel with the plain values parsed from YAML: each object or array parsed from a manifest has
 * an entry here giving its own position and those of its keys and values. Templates copy entries when they merge,
 * so an error in a merged body still points at the line that wrote the value.
 */
export interface Loc extends SourceRef {
  /** The scalar as written in the file (`0123`, `on`), for messages about how YAML read it. */
  text?: string;
}

export interface Meta {
  self: Loc;
  /** Position of each key (objects) or item (arrays, by index as a string). */
  keys: Map<string, Loc>;
  /** Position of each value. */
  values: Map<string, Loc>;
}

const META = new WeakMap<object, Meta>();

export function setMeta(target: object, meta: Meta): void {
  META.set(target, meta);
}

export function getMeta(target: unknown): Meta | undefined {
  return target !== null && typeof target === "object" ? META.get(target) : undefined;
}

export type Path = ReadonlyArray<string | number>;

function child(value: unknown, seg: string | number): unknown {
  if (value === null || typeof value !== "object") return undefined;
  return (value as Record<string | number, unknown>)[seg];
}

/**
 * The position of the thing at `path` below `root`: its key (`which: "key"`, for unknown keys), its value, or
 * the nearest enclosing position known.
 */
export function locate(root: unknown, path: Path, which: "key" | "value" = "value"): Loc {
  let current: unknown = root;
  let best: Loc = getMeta(root)?.self ?? { file: "<unknown>", line: 1, col: 1 };
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const meta = getMeta(current);
    const last = i === path.length - 1;
    const k = String(seg);
    if (meta) {
      const found = last && which === "key" ? (meta.keys.get(k) ?? meta.values.get(k)) : meta.values.get(k);
      if (found) best = found;
      else break;
    }
    current = child(current, seg);
    if (!last && current === undefined) break;
  }
  return best;
}

/** Position of a key inside an object, falling back to the object's own position. */
export function keyLoc(obj: unknown, key: string): Loc {
  const meta = getMeta(obj);
  return meta?.keys.get(key) ?? meta?.self ?? { file: "<unknown>", line: 1, col: 1 };
}

/** Position of a value inside an object or array, falling back to the container's own position. */
export function valueLoc(obj: unknown, key: string | number): Loc {
  const meta = getMeta(obj);
  return meta?.values.get(String(key)) ?? meta?.self ?? { file: "<unknown>", line: 1, col: 1 };
}

export function selfLoc(obj: unknown): Loc {
  return getMeta(obj)?.self ?? { file: "<unknown>", line: 1, col: 1 };
}

/** Creates a fresh object that carries over positions for the given keys from their source objects. */
export function newObjectMeta(self: Loc): Meta {
  return { self, keys: new Map(), values: new Map() };
}
