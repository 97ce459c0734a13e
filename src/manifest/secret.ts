import { randomBytes, scryptSync } from "node:crypto";
import { inspect } from "node:util";
import type { DesiredNode, DesiredState } from "./model.js";

const MASK = "(sensitive)";

/**
 * A value that must never be printed: resolved `${env:}` / `${file:}` references, tokens, write-only settings.
 * Every textual form (String(), JSON.stringify, util.inspect, template literals) yields a mask; only `reveal()`
 * gives the value, and only the API request body should call it.
 */
export class Secret {
  readonly #value: string;
  /** Where the value came from, safe to print: `env:HOOK_TOKEN`, `file:secrets/token.txt`, or `literal`. */
  readonly origin: string;
  /**
   * The value as it may be shown: the manifest's text with each reference masked
   * (`https://h/?key=(sensitive)`), or just the mask when the whole value is secret.
   */
  readonly shown: string;
  /** The value was not resolved (`validate --no-secrets`): it is unknown, not empty. */
  readonly unresolved: boolean;
  /**
   * The values of the references alone, without the literal text around them (`see ${env:S}` holds S's value):
   * what may turn up elsewhere (a live object named after S) and must be masked wherever it does.
   */
  readonly #parts: readonly string[];

  constructor(
    value: string,
    origin: string,
    shown: string = MASK,
    unresolved = false,
    parts: readonly string[] = [value],
  ) {
    this.#value = value;
    this.origin = origin;
    this.shown = shown;
    this.unresolved = unresolved;
    this.#parts = parts;
  }

  /** The values of its references (see `#parts`), for masking them in text; never for output. */
  referenced(): readonly string[] {
    return this.#parts;
  }

  reveal(): string {
    return this.#value;
  }

  /** Compares two secrets (or a secret and a plain string) without revealing either. */
  equals(other: unknown): boolean {
    if (other instanceof Secret) return other.#value === this.#value;
    return typeof other === "string" && other === this.#value;
  }

  toString(): string {
    return MASK;
  }

  toJSON(): string {
    return MASK;
  }

  [inspect.custom](): string {
    return MASK;
  }

  static readonly mask = MASK;
}

export function isSecret(value: unknown): value is Secret {
  return value instanceof Secret;
}

/** True when a Secret sits anywhere inside the value. */
export function containsSecret(value: unknown): boolean {
  if (value instanceof Secret) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsSecret);
  return false;
}

/** Replaces every Secret inside a value with its mask (for plan files, reports and logs). */
export function maskSecrets(value: unknown): unknown {
  if (value instanceof Secret) return MASK;
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v)]));
  }
  return value;
}

/** Replaces every Secret inside a value with its real value (for API request bodies only). */
export function revealSecrets(value: unknown): unknown {
  if (value instanceof Secret) return value.reveal();
  if (Array.isArray(value)) return value.map(revealSecrets);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revealSecrets(v)]));
  }
  return value;
}

/**
 * A value derived from another (a wiki page's slug from its title): a secret stays a secret, with `derive` applied
 * to its value and to the text it is shown as; a string is derived as is.
 */
export function deriveSecret<T>(value: T, derive: (text: string) => string): T | string | Secret {
  if (value instanceof Secret) {
    // A referenced value may turn up derived (a slug) or as written (a title elsewhere): both are masked.
    const parts = value.referenced();
    return new Secret(derive(value.reveal()), value.origin, derive(value.shown), value.unresolved, [
      ...new Set([...parts, ...parts.map(derive)]),
    ]);
  }
  return typeof value === "string" ? derive(value) : value;
}

/** The text of a string or a secret, for matching and lookups inside the process (never for output). */
export function textOf(value: unknown): string | undefined {
  if (value instanceof Secret) return value.reveal();
  return typeof value === "string" ? value : undefined;
}

/** A string or a secret as it may be shown: the secret's masked form. */
export function shownText(value: unknown): string {
  return value instanceof Secret ? value.shown : String(value);
}

/** A value as it may appear in a request line: as is, URL-encoded in a path, form-encoded in a query (`a+b`). */
export function spellings(value: string): string[] {
  return [
    ...new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]),
  ];
}

/** Values shorter than this are not searched for in text: masking them would mangle everything else. */
const MIN_MASKED_LENGTH = 4;

/**
 * The resolved values of a run's `${env:}`/`${file:}` references, to mask wherever they might appear as plain text
 * (a live object named after a secret, a platform id that is a name, a request path in --debug, an error from the
 * platform). Values written literally in a sensitive field are masked in their field, not searched for in text.
 */
export class SecretValues {
  readonly #values: string[];

  /** Every spelling of every value, longest first (a value holding another is masked whole). */
  readonly #forms: string[];

  constructor(values: Iterable<string>) {
    this.#values = [...new Set(values)].filter((v) => v.length >= MIN_MASKED_LENGTH);
    this.#forms = [...new Set(this.#values.flatMap(spellings))].sort((a, b) => b.length - a.length);
  }

  /** Every referenced value found anywhere inside `root` (a desired state, fields, lists...). */
  static of(root: unknown): SecretValues {
    const found: string[] = [];
    const seen = new WeakSet<object>();
    const walk = (v: unknown): void => {
      if (v instanceof Secret) {
        // Each reference's value on its own: `see ${env:S}` masks S wherever it appears, not only after "see ".
        if (!v.unresolved && v.origin !== "literal") found.push(...v.referenced());
        return;
      }
      if (v === null || typeof v !== "object" || seen.has(v)) return;
      seen.add(v);
      for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x);
    };
    walk(root);
    return new SecretValues(found);
  }

  /** SecretValues.of a desired state, without walking its nodes' positions (see eachSecretOf). */
  static ofState(state: DesiredState): SecretValues {
    const found: string[] = [];
    eachSecretOf(state, (v) => {
      if (!v.unresolved && v.origin !== "literal") found.push(...v.referenced());
    });
    return new SecretValues(found);
  }

  /** The values, for a redactor elsewhere (the API client's --debug lines and errors). */
  list(): string[] {
    return [...this.#values];
  }

  /** Whether the text holds one of the values (in any of its spellings). */
  contains(text: string): boolean {
    return this.#forms.some((form) => text.includes(form));
  }

  /** The text with each value (in any of its spellings) replaced by the mask. */
  text(text: string): string {
    let out = text;
    for (const form of this.#forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }

  /** Every string inside a JSON-like value masked, keys included. */
  value<T>(value: T): T {
    if (this.#values.length === 0) return value;
    const walk = (v: unknown): unknown => {
      if (typeof v === "string") return this.text(v);
      if (Array.isArray(v)) return v.map(walk);
      if (v !== null && typeof v === "object" && !(v instanceof Secret)) {
        return Object.fromEntries(Object.entries(v).map(([k, x]) => [this.text(k), walk(x)]));
      }
      return v;
    };
    return walk(value) as T;
  }
}

/** scrypt's cost for the fingerprint below: 16 MiB and tens of milliseconds a guess. */
const FINGERPRINT_COST = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/**
 * A fingerprint of the values of every reference inside `root` together (`${env:}`/`${file:}`, with where each
 * came from), or undefined when there is none: a saved plan keeps it so that apply can tell that a value is not
 * the one the plan was made with. It is a salted scrypt of all the values at once, never of one value alone, so it
 * gives nothing away but the answer to "all the same?". `salt` (base64) recomputes a saved fingerprint.
 */
export function secretsFingerprint(root: unknown, salt?: string): string | undefined {
  return fingerprintOf(secretPairs(root), salt);
}

/** What `secretsFingerprint` hashes: each reference's origin and value found inside `root`, added to `pairs`. */
export function secretPairs(root: unknown, pairs = new Set<string>()): Set<string> {
  const seen = new WeakSet<object>();
  const walk = (v: unknown): void => {
    if (v instanceof Secret) {
      if (!v.unresolved && v.origin !== "literal") pairs.add(JSON.stringify([v.origin, v.reveal()]));
      return;
    }
    if (v === null || typeof v !== "object" || seen.has(v)) return;
    seen.add(v);
    for (const x of Array.isArray(v) ? v : Object.values(v)) walk(x);
  };
  walk(root);
  return pairs;
}

/** secretPairs of a desired node and what is below it, without walking positions (see eachSecretOf). */
export function secretPairsOf(node: DesiredNode, pairs = new Set<string>()): Set<string> {
  eachSecretOf(node, (v) => {
    if (!v.unresolved && v.origin !== "literal") pairs.add(JSON.stringify([v.origin, v.reveal()]));
  });
  return pairs;
}

/** What a plan needs of the secrets of a desired state: the values to mask, and the fingerprint's pairs. */
export interface StateSecrets {
  /** SecretValues.ofState of the state. */
  values: SecretValues;
  /** secretPairsOf its root. */
  pairs: Set<string>;
}

/**
 * SecretValues.ofState(state) and secretPairsOf(state.root) in one walk of the state (its root first): a plan in
 * chunks needs both of each chunk's state, and each walk of a large one holds the event loop (at 16x, about 0.1 s).
 */
export function secretsOfState(state: DesiredState): StateSecrets {
  const values: string[] = [];
  const pairs = new Set<string>();
  let inRoot = true;
  eachSecretOf(
    state,
    (v) => {
      if (v.unresolved || v.origin === "literal") return;
      values.push(...v.referenced());
      if (inRoot) pairs.add(JSON.stringify([v.origin, v.reveal()]));
    },
    () => {
      inRoot = false;
    },
  );
  return { values: new SecretValues(values), pairs };
}

/**
 * Calls `found` with every Secret inside a desired state (or a node), in the order a walk of the whole value meets
 * them (each object's keys in order, each object once), but for the nodes' positions (`source`, `fieldSources`):
 * they hold only files, lines and columns, and most of a large state's objects (one position per field). A state's
 * root is walked first; `rootDone` is called once it is.
 */
function eachSecretOf(
  root: DesiredState | DesiredNode,
  found: (secret: Secret) => void,
  rootDone: () => void = () => {},
): void {
  // A Set, not a WeakSet: it lives for the walk only, and is faster (the 16x state: about 180 -> 115 ms a walk).
  const seen = new Set<object>();
  /** Whether `v` is an object to look into, seen now for the first time. */
  const first = (v: unknown): v is object => {
    if (v === null || typeof v !== "object" || v instanceof Secret || seen.has(v)) return false;
    seen.add(v);
    return true;
  };
  /** Any value: every key of every object. */
  const value = (v: unknown): void => {
    if (v instanceof Secret) found(v);
    else if (first(v)) for (const x of Array.isArray(v) ? v : Object.values(v)) value(x);
  };
  /** `v` walked as `inside` walks it when it is an object, as any value when it is not. */
  const as = (v: unknown, inside: (o: Record<string, unknown>) => void): void => {
    if (v === null || typeof v !== "object" || v instanceof Secret) value(v);
    else if (first(v)) inside(v as Record<string, unknown>);
  };
  const node = (n: Record<string, unknown>): void => {
    for (const key of Object.keys(n)) {
      if (key === "source" || key === "fieldSources") continue;
      if (key === "children") as(n[key], children);
      else value(n[key]);
    }
  };
  const children = (c: Record<string, unknown>): void => {
    for (const key of Object.keys(c)) as(c[key], collection);
  };
  const collection = (c: Record<string, unknown>): void => {
    for (const key of Object.keys(c)) {
      if (key === "items" && Array.isArray(c[key])) as(c[key], list);
      else value(c[key]);
    }
  };
  const list = (items: Record<string, unknown>): void => {
    for (const item of items as unknown as unknown[]) as(item, node);
  };
  const selector = (s: Record<string, unknown>): void => {
    for (const key of Object.keys(s)) {
      if (key === "node") as(s[key], node);
      else value(s[key]);
    }
  };
  if (!("root" in root)) {
    as(root, node);
    return;
  }
  as(root, (state) => {
    as(state["root"], node);
    rootDone();
    for (const key of Object.keys(state)) {
      if (key === "root") continue;
      if (key === "selectors" && Array.isArray(state[key]))
        as(state[key], (all) => {
          for (const s of all as unknown as unknown[]) as(s, selector);
        });
      else value(state[key]);
    }
  });
}

/** The fingerprint of the pairs `secretPairs` found (of one desired state, or of every chunk of one). */
export function fingerprintOf(pairs: ReadonlySet<string>, salt?: string): string | undefined {
  if (pairs.size === 0) return undefined;
  const saltBytes = salt !== undefined ? Buffer.from(salt, "base64") : randomBytes(16);
  const hash = scryptSync(JSON.stringify([...pairs].sort()), saltBytes, 32, FINGERPRINT_COST);
  return `scrypt:${saltBytes.toString("base64")}:${hash.toString("base64")}`;
}

/** The salt of a fingerprint made by `secretsFingerprint`, to make a new one comparable with it. */
export function fingerprintSalt(fingerprint: string): string | undefined {
  const [scheme, salt] = fingerprint.split(":");
  return scheme === "scrypt" && salt ? salt : undefined;
}
