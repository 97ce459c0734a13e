import { paramError } from "./errors.js";
import { isUploadedFile, type ParamHash, type UploadedFile } from "./request.js";

/**
 * Declarative parameter validation with the platform's (Grape's) coercion rules and messages.
 *
 * - booleans accept `true`/`false`, `"true"`/`"false"`, `"1"`/`"0"`, `"t"`/`"f"`, `"yes"`/`"no"`, `"on"`/`"off"`
 * - integers accept JSON integers and digit strings (`"42"`, `"-1"`)
 * - arrays accept JSON arrays and `k[]=a&k[]=b`; with `split: true` also a comma-separated string
 * - an empty string for a non-string type counts as not given
 * - `null` (JSON bodies; go-gitlab sends it for unset fields without `omitempty`) counts as not given, except for a
 *   required string: Grape's coercion lets `nil` through to the model, whose presence check then answers (`"can't be
 *   blank"`), so a required string that is `null` reads as `""` and goes on to the same checks
 *
 * Failures are 400 `{"error":"<messages joined by ', '>"}`, e.g. `"name is missing, path is missing"`,
 * `"per_page is invalid"`, `"visibility does not have a valid value"`, `"ref is empty"`.
 */
export type ParamType =
  | "string"
  | "integer"
  | "boolean"
  | "float"
  | "date"
  | "datetime"
  | "string[]"
  | "integer[]"
  | "hash"
  | "hash[]"
  | "json"
  | "file";

export interface ParamSpec {
  type: ParamType;
  required?: boolean;
  /** Allowed values (after coercion; for arrays, each element). */
  values?: readonly (string | number | boolean)[];
  default?: unknown;
  /** `false`: an empty or blank string is `"<name> is empty"`. */
  allowBlank?: boolean;
  /** For array types: also accept a comma-separated string. */
  split?: boolean;
}

interface TypeMap {
  string: string;
  integer: number;
  boolean: boolean;
  float: number;
  date: string;
  datetime: string;
  "string[]": string[];
  "integer[]": number[];
  hash: Record<string, unknown>;
  "hash[]": Record<string, unknown>[];
  json: unknown;
  file: UploadedFile;
}

export type Declared<S extends Record<string, ParamSpec>> = {
  [K in keyof S]: S[K] extends { required: true }
    ? TypeMap[S[K]["type"]]
    : S[K] extends { default: unknown }
      ? TypeMap[S[K]["type"]]
      : TypeMap[S[K]["type"]] | undefined;
};

export interface DeclareRules {
  atLeastOneOf?: string[];
  mutuallyExclusive?: string[][];
  exactlyOneOf?: string[];
  allOrNoneOf?: string[][];
}

const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);

const INVALID = Symbol("invalid");
const ABSENT = Symbol("absent");
const NULL_STRING = Symbol("null string");

/** Coerces a boolean the way the platform does; `undefined` when the value is not a boolean form. */
export function coerceBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v === 1 ? true : v === 0 ? false : undefined;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (TRUE.has(s)) return true;
    if (FALSE.has(s)) return false;
  }
  return undefined;
}

/** Coerces an integer (JSON integer or digit string); `undefined` otherwise. */
export function coerceInteger(v: unknown): number | undefined {
  if (typeof v === "number") return Number.isInteger(v) ? v : undefined;
  if (typeof v === "string" && /^\s*[+-]?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return undefined;
}

function coerceScalar(type: ParamType, v: unknown): unknown {
  switch (type) {
    case "string":
      if (v === null) return NULL_STRING;
      if (typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "boolean") return String(v);
      return INVALID;
    case "integer": {
      if (v === "" || v === null) return ABSENT;
      return coerceInteger(v) ?? INVALID;
    }
    case "float": {
      if (v === "" || v === null) return ABSENT;
      if (typeof v === "number") return v;
      if (typeof v === "string" && /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(v)) return Number(v);
      return INVALID;
    }
    case "boolean": {
      if (v === "" || v === null) return ABSENT;
      return coerceBoolean(v) ?? INVALID;
    }
    case "date": {
      if (v === "" || v === null) return ABSENT;
      if (typeof v !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return INVALID;
      const d = new Date(`${v}T00:00:00.000Z`);
      return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v ? INVALID : v;
    }
    case "datetime": {
      if (v === "" || v === null) return ABSENT;
      if (typeof v !== "string") return INVALID;
      const d = new Date(v);
      return Number.isNaN(d.getTime()) ? INVALID : d.toISOString();
    }
    default:
      return INVALID;
  }
}

function coerce(spec: ParamSpec, v: unknown): unknown {
  switch (spec.type) {
    case "string[]":
    case "integer[]": {
      const elem: ParamType = spec.type === "string[]" ? "string" : "integer";
      let list: unknown[];
      if (Array.isArray(v)) list = v;
      else if (typeof v === "string" && spec.split) list = v === "" ? [] : v.split(",").map((s) => s.trim());
      else if (v === null || v === "") return ABSENT;
      else return INVALID;
      const out: unknown[] = [];
      for (const item of list) {
        const c = coerceScalar(elem, item);
        if (c === INVALID) return INVALID;
        if (c !== ABSENT && c !== NULL_STRING) out.push(c);
      }
      return out;
    }
    case "hash":
      return typeof v === "object" && v !== null && !Array.isArray(v) && !isUploadedFile(v) ? v : INVALID;
    case "hash[]": {
      if (Array.isArray(v)) {
        return v.every((x) => typeof x === "object" && x !== null && !Array.isArray(x)) ? v : INVALID;
      }
      // Rack turns `k[0][a]=1&k[1][a]=2` into a hash keyed by index; accept that form as a list.
      if (typeof v === "object" && v !== null && !isUploadedFile(v)) {
        const vals = Object.values(v as Record<string, unknown>);
        return vals.every((x) => typeof x === "object" && x !== null && !Array.isArray(x)) ? vals : INVALID;
      }
      return INVALID;
    }
    case "json":
      return v;
    case "file":
      return isUploadedFile(v) ? v : INVALID;
    default:
      return coerceScalar(spec.type, v);
  }
}

/** Validates and coerces `params` against `spec`; throws the platform's 400 on failure. */
export function declare<const S extends Record<string, ParamSpec>>(
  params: ParamHash,
  spec: S,
  rules: DeclareRules = {},
): Declared<S> {
  const errors: string[] = [];
  const out: Record<string, unknown> = {};
  const given = (name: string): boolean => Object.hasOwn(params, name) && params[name] !== undefined;
  for (const [name, s] of Object.entries(spec)) {
    if (!given(name)) {
      if (s.required) errors.push(`${name} is missing`);
      else if (s.default !== undefined) out[name] = s.default;
      continue;
    }
    let value = coerce(s, params[name]);
    if (value === NULL_STRING) value = s.required ? "" : ABSENT;
    if (value === INVALID) {
      errors.push(`${name} is invalid`);
      continue;
    }
    if (value === ABSENT) {
      if (s.required) errors.push(`${name} is missing`);
      else if (s.default !== undefined) out[name] = s.default;
      continue;
    }
    if (s.allowBlank === false && typeof value === "string" && value.trim() === "") {
      errors.push(`${name} is empty`);
      continue;
    }
    if (s.values) {
      const list = Array.isArray(value) ? value : [value];
      if (!list.every((x) => s.values?.includes(x as string | number | boolean))) {
        errors.push(`${name} does not have a valid value`);
        continue;
      }
    }
    out[name] = value;
  }
  const present = (names: string[]) => names.filter((n) => given(n));
  for (const group of rules.mutuallyExclusive ?? []) {
    if (present(group).length > 1) errors.push(`${present(group).join(", ")} are mutually exclusive`);
  }
  if (rules.atLeastOneOf && present(rules.atLeastOneOf).length === 0) {
    errors.push(`${rules.atLeastOneOf.join(", ")} are missing, at least one parameter must be provided`);
  }
  if (rules.exactlyOneOf) {
    const p = present(rules.exactlyOneOf);
    if (p.length === 0) {
      errors.push(`${rules.exactlyOneOf.join(", ")} are missing, exactly one parameter must be provided`);
    } else if (p.length > 1) errors.push(`${p.join(", ")} are mutually exclusive`);
  }
  for (const group of rules.allOrNoneOf ?? []) {
    const p = present(group);
    if (p.length > 0 && p.length < group.length) {
      errors.push(`${group.join(", ")} provide all or none of parameters`);
    }
  }
  if (errors.length > 0) throw paramError([...new Set(errors)].join(", "));
  return out as Declared<S>;
}
