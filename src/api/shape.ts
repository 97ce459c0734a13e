/**
 * The shape a caller relies on in what the platform returns: a small checker, so that an answer with a field of the
 * wrong type fails with a message naming the request, the item and the field, instead of a TypeError somewhere
 * downstream. Kinds pass the fields their read uses (`shape` in RequestOptions); the client checks every item.
 */

export type FieldType = "string" | "number" | "integer" | "boolean" | "object" | "array";

/**
 * Field name -> expected type. A trailing `?` means the field may also be absent or null:
 * `{ id: "integer", description: "string", owner: "object?" }`.
 */
export type Shape = Readonly<Record<string, FieldType | `${FieldType}?`>>;

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

/** What is wrong with `value` for `shape`, or undefined when it fits. */
export function shapeProblem(value: unknown, shape: Shape): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return `${typeOf(value)} (${sample(value)}) came back where an object was expected`;
  }
  const record = value as Record<string, unknown>;
  for (const [field, spec] of Object.entries(shape)) {
    const optional = spec.endsWith("?");
    const type = (optional ? spec.slice(0, -1) : spec) as FieldType;
    const v = Object.hasOwn(record, field) ? record[field] : undefined;
    if (optional && (v === undefined || v === null)) continue;
    if (v === undefined) return `the field "${field}" is missing (${ARTICLE[type]} was expected)`;
    if (!matches(v, type)) {
      return `the field "${field}" is ${typeOf(v)} (${sample(v)}), not ${ARTICLE[type]}`;
    }
  }
  return undefined;
}

/** The first problem among the items of a list (or a page of one), with the item's position counted from 1. */
export function itemsProblem(items: readonly unknown[], shape: Shape): string | undefined {
  for (let i = 0; i < items.length; i++) {
    const problem = shapeProblem(items[i], shape);
    if (problem) return `item ${i + 1}: ${problem}`;
  }
  return undefined;
}
