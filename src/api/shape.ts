/**
 * The shape a caller relies on in what the platform returns: a small checker, so that an answer with a field of the
 * wrong type fails with a message naming the request, the item and the field, instead of a TypeError somewhere
 * downstream. Kinds pass the fields their read uses (`shape` in RequestOptions); the client checks every answer
 * (every item of a list), nested lists and objects included. It also bounds how deep an answer may nest before
 * anything parses it.
 */

export type FieldType = "string" | "number" | "integer" | "boolean" | "object" | "array";

/** A nested list or object whose items (or fields) are checked too: see {@link listOf} and {@link objectOf}. */
export interface Nested {
  readonly nested: "list" | "object";
  /** The items' type or shape (lists), or the fields (objects). */
  readonly of: FieldType | Shape;
  /** May also be absent or null. */
  readonly optional: boolean;
}

/**
 * Field name -> expected type. A trailing `?` means the field may also be absent or null:
 * `{ id: "integer", description: "string", owner: "object?", variables: listOf({ key: "string" }, true) }`.
 */
export type Shape = Readonly<{ [field: string]: FieldType | `${FieldType}?` | Nested }>;

/** What a request's answer must be: an object with these fields, or (`listOf`) a list of such items. */
export type AnswerShape = Shape | Nested;

/** A list whose items are each of `of` (a type or a shape); `optional`: the field may be absent or null. */
export function listOf(of: FieldType | Shape, optional = false): Nested {
  return { nested: "list", of, optional };
}

/** An object with the fields of `shape`; `optional`: the field may be absent or null. */
export function objectOf(shape: Shape, optional = false): Nested {
  return { nested: "object", of: shape, optional };
}

/**
 * How deep an answer may nest: the platform's JSON generator refuses deeper documents itself (`max_nesting` 100),
 * and code that walks a value (redaction, diffs) must never run out of stack on one.
 */
export const MAX_JSON_DEPTH = 100;

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const OPEN_MAP = 0x7b;
const CLOSE_MAP = 0x7d;

/** Whether JSON text nests deeper than `limit`, in one pass over its brackets and quotes, before it is parsed. */
export function nestsTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  // Character by character (every answer goes through this: a regular expression's matches were a tenth of a large
  // plan's allocations). A backslash and the character after it are skipped, so `\"` never ends a string.
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) inString = !inString;
    else if (inString) continue;
    else if (c === OPEN_LIST || c === OPEN_MAP) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_LIST || c === CLOSE_MAP) depth -= 1;
  }
  return false;
}

const ARTICLE: Record<FieldType, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  object: "an object",
  array: "an array",
};

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a number";
  return `a ${typeof value}`;
}

function matches(value: unknown, type: FieldType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return value !== null && typeof value === "object" && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
  }
}

/** A short, quoted rendering of a value for an error message. */
function sample(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

const isNested = (spec: unknown): spec is Nested =>
  typeof spec === "object" && spec !== null && "nested" in spec;

/** What is wrong with the value of the field at `path` for `spec` (a type, or a nested list or object). */
function fieldProblem(value: unknown, spec: FieldType | Shape, path: string): string | undefined {
  if (typeof spec === "string") {
    return matches(value, spec)
      ? undefined
      : `the field "${path}" is ${typeOf(value)} (${sample(value)}), not ${ARTICLE[spec]}`;
  }
  if (!matches(value, "object")) {
    return `the field "${path}" is ${typeOf(value)} (${sample(value)}), not an object`;
  }
  return fieldsProblem(value as Record<string, unknown>, spec, `${path}.`);
}

/** The first field of `record` that does not fit `shape`, named with `prefix` (`owner.`, `variables[2].`). */
function fieldsProblem(record: Record<string, unknown>, shape: Shape, prefix: string): string | undefined {
  for (const [field, spec] of Object.entries(shape)) {
    const path = `${prefix}${field}`;
    const optional = isNested(spec) ? spec.optional : spec.endsWith("?");
    const v = Object.hasOwn(record, field) ? record[field] : undefined;
    if (optional && (v === undefined || v === null)) continue;
    if (v === undefined) {
      const expected = isNested(spec)
        ? spec.nested === "list"
          ? "a list"
          : "an object"
        : ARTICLE[spec as FieldType];
      return `the field "${path}" is missing (${expected} was expected)`;
    }
    if (!isNested(spec)) {
      const problem = fieldProblem(v, (optional ? spec.slice(0, -1) : spec) as FieldType, path);
      if (problem) return problem;
    } else if (spec.nested === "object") {
      const problem = fieldProblem(v, spec.of, path);
      if (problem) return problem;
    } else {
      if (!Array.isArray(v)) return `the field "${path}" is ${typeOf(v)} (${sample(v)}), not a list`;
      for (const [i, item] of v.entries()) {
        const problem = fieldProblem(item, spec.of, `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  return undefined;
}

/** What is wrong with `value` for `shape`, or undefined when it fits. */
export function shapeProblem(value: unknown, shape: Shape): string | undefined {
  if (!matches(value, "object")) {
    return `${typeOf(value)} (${sample(value)}) came back where an object was expected`;
  }
  return fieldsProblem(value as Record<string, unknown>, shape, "");
}

/** The first problem among the items of a list (or a page of one), with the item's position counted from 1. */
export function itemsProblem(items: readonly unknown[], shape: Shape): string | undefined {
  for (let i = 0; i < items.length; i++) {
    const problem = shapeProblem(items[i], shape);
    if (problem) return `item ${i + 1}: ${problem}`;
  }
  return undefined;
}

/** The answer shape of a list whose items are each `shape` (a list shape stays as it is). */
export function asList(shape: AnswerShape): Nested {
  if (isNested(shape)) return shape.nested === "list" ? shape : listOf(shape.of);
  return listOf(shape);
}

/** What is wrong with a whole answer: an object for a Shape, a list of fitting items for `listOf(...)`. */
export function answerProblem(value: unknown, shape: AnswerShape): string | undefined {
  if (!isNested(shape)) return shapeProblem(value, shape);
  if (shape.nested === "object") return shapeProblem(value, shape.of as Shape);
  if (!Array.isArray(value)) return `${typeOf(value)} (${sample(value)}) came back where a list was expected`;
  if (typeof shape.of === "string") {
    const type = shape.of;
    const bad = value.findIndex((item) => !matches(item, type));
    return bad < 0 ? undefined : `item ${bad + 1} is ${typeOf(value[bad])}, not ${ARTICLE[type]}`;
  }
  return itemsProblem(value, shape.of);
}
