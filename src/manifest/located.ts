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

/** The few Map operations positions need. */
export interface PositionMap {
  get(key: string): Loc | undefined;
  set(key: string, loc: Loc): unknown;
  has(key: string): boolean;
}

/** Keys up to which {@link Positions} keeps arrays; above, a Map. */
const SMALL = 16;
/** Columns below this are packed with the line into one small integer (see Positions). */
const COLS = 4096;
/** Lines below this are packed (line * COLS + col stays a small integer). */
const LINES = 1 << 18;

/**
 * Positions by key. A manifest's every map has them, for each key and each value: with 100,000 objects that is two
 * million positions. Kept as a Loc object each in a Map per object they were most of the memory loading took; here a
 * small map keeps its keys, files and positions (line and column packed in one small integer) in one array, sized
 * for the keys it will hold when that is known, and makes the Loc when asked. A large map (a file's `projects:`)
 * and an unusual position (a column past 4,095, the scalar as written) keep Loc objects in a Map, so lookups stay
 * constant-time and nothing is lost.
 */
export class Positions implements PositionMap {
  /** Key, file and packed position of each small entry, one after the other. */
  #slots: (string | number)[] | undefined;
  #count = 0;
  #map: Map<string, Loc> | undefined;

  /** `size`: how many keys the map will hold, when known (its array is then allocated at that size). */
  constructor(private readonly size = 0) {}

  #find(key: string): number {
    const slots = this.#slots;
    if (!slots) return -1;
    for (let i = 0; i < this.#count; i++) if (slots[3 * i] === key) return i;
    return -1;
  }

  get(key: string): Loc | undefined {
    const kept = this.#map?.get(key);
    if (kept) return kept;
    const i = this.#find(key);
    if (i < 0) return undefined;
    const slots = this.#slots!;
    const packed = slots[3 * i + 2] as number;
    return { file: slots[3 * i + 1] as string, line: Math.floor(packed / COLS), col: packed % COLS };
  }

  set(key: string, loc: Loc): this {
    const i = this.#find(key);
    const packable =
      loc.text === undefined &&
      Number.isInteger(loc.line) &&
      Number.isInteger(loc.col) &&
      loc.line >= 0 &&
      loc.line < LINES &&
      loc.col >= 0 &&
      loc.col < COLS;
    if (packable && (i >= 0 || (this.#count < SMALL && !this.#map?.has(key)))) {
      const at = i >= 0 ? i : this.#count++;
      this.#slots ??= this.size > 0 ? new Array(3 * Math.min(this.size, SMALL)) : [];
      this.#slots[3 * at] = key;
      this.#slots[3 * at + 1] = loc.file;
      this.#slots[3 * at + 2] = loc.line * COLS + loc.col;
      return this;
    }
    if (i >= 0) {
      this.#slots!.splice(3 * i, 3);
      this.#count--;
    }
    this.#map ??= new Map();
    this.#map.set(key, loc);
    return this;
  }

  has(key: string): boolean {
    return (this.#map?.has(key) ?? false) || this.#find(key) >= 0;
  }
}

export interface Meta {
  self: Loc;
  /** Position of each key (objects) or item (arrays, by index as a string). */
  keys: PositionMap;
  /** Position of each value (for an array, the same as its items'). */
  values: PositionMap;
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
  return { self, keys: new Positions(), values: new Positions() };
}
