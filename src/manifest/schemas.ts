import { readdirSync, readFileSync } from "node:fs";
import type { ErrorObject } from "ajv";
import { type Diagnostics, didYouMean, renderPath } from "./diagnostics.js";
import { FORMAT_CHECKS, hasReference, standardFormatMessage } from "./formats.js";
import { getMeta, type Loc, locate, type Path, setMeta } from "./located.js";
import { accessLevelName, accessLevelNumber, accessLevelWords } from "./normalize.js";
import { entryProblem, PATH_RULE, pathProblem } from "./paths.js";
import { containsSecret, isSecret, type Secret } from "./secret.js";
import * as generated from "./validators.gen.js";

/** A JSON Schema object as stored in schemas/*.schema.json. */
export type JsonSchema = Record<string, unknown>;

const SCHEMA_DIR = new URL("../../schemas/", import.meta.url);

/** A validator of one schema file: true when the value is valid, else false with its `errors`. */
export type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** The validators generated from the schemas (scripts/gen-validators.mjs), by schema file. */
const VALIDATORS = generated.byFile as Record<string, Validator>;

export interface SchemaSet {
  /** Every schema file by name (`group.schema.json`), as parsed JSON. */
  files: Record<string, JsonSchema>;
  /** The validator of one schema file (generated, see VALIDATORS). */
  validator(file: string): Validator;
  /**
   * The item schema of a collection key: "groups", "projects", "pipeline_schedules", "variables",
   * "application_settings", ... `parent` picks between same-named collections (`notification_settings` under
   * "instance" versus under a group or project).
   */
  kindSchema(collection: string, parent?: string): JsonSchema | undefined;
  /** Follows a `$ref` (file name, optionally with a `#/$defs/...` fragment) to its schema. */
  resolve(schema: JsonSchema): JsonSchema;
}

let cached: SchemaSet | undefined;

/** Loads the manifest schemas and their generated validators (once per process). */
export function loadSchemas(): SchemaSet {
  if (cached) return cached;
  const files: Record<string, JsonSchema> = {};
  for (const name of readdirSync(SCHEMA_DIR).sort()) {
    if (!name.endsWith(".schema.json")) continue;
    const schema = JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), "utf8")) as JsonSchema;
    files[name] = schema;
  }
  // Each `$ref` is followed once: the rules ask for the same fields' schemas for every object of a large estate.
  const resolved = new WeakMap<JsonSchema, JsonSchema>();
  const resolve = (schema: JsonSchema): JsonSchema => {
    let known = resolved.get(schema);
    if (known === undefined) {
      known = follow(schema);
      resolved.set(schema, known);
    }
    return known;
  };
  const follow = (schema: JsonSchema): JsonSchema => {
    let current = schema;
    for (let i = 0; i < 10 && typeof current.$ref === "string"; i++) {
      const [file, fragment] = current.$ref.split("#");
      let target: unknown = files[file!];
      for (const seg of (fragment ?? "").split("/").filter(Boolean)) {
        target = (target as Record<string, unknown> | undefined)?.[seg];
      }
      if (!target) break;
      current = target as JsonSchema;
    }
    return current;
  };
  const byCollection = new Map<string, JsonSchema>();
  const visit = (owner: string, schema: JsonSchema, seen: Set<JsonSchema>) => {
    if (seen.has(schema)) return;
    seen.add(schema);
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
    for (const [key, raw] of Object.entries(props)) {
      const prop = resolve(raw);
      let item: JsonSchema | undefined;
      if (prop.type === "array" && prop.items && (raw["x-identity"] ?? prop["x-identity"])) {
        item = resolve(prop.items as JsonSchema);
      } else if (prop["x-singleton"] === true) item = prop;
      else if (
        key === "instance" ||
        ((key === "groups" || key === "projects") && prop.additionalProperties)
      ) {
        item = key === "instance" ? prop : resolve(prop.additionalProperties as JsonSchema);
      }
      if (!item) continue;
      if (!byCollection.has(`${owner}/${key}`)) byCollection.set(`${owner}/${key}`, item);
      if (!byCollection.has(key)) byCollection.set(key, item);
      visit(key, item, seen);
    }
  };
  visit("root", files["manifest.schema.json"]!, new Set());
  cached = {
    files,
    validator(file) {
      const v = VALIDATORS[file];
      if (!v) throw new Error(`no schema ${file}`);
      return v;
    },
    kindSchema(collection, parent) {
      if (parent) {
        const scoped =
          byCollection.get(`${parent}/${collection}`) ??
          byCollection.get(
            `${parent === "group" ? "groups" : parent === "project" ? "projects" : parent}/${collection}`,
          );
        if (scoped) return scoped;
      }
      return byCollection.get(collection);
    },
    resolve,
  };
  return cached;
}

/** The item schema of a collection key (see SchemaSet.kindSchema). */
export function kindSchema(collection: string, parent?: string): JsonSchema | undefined {
  return loadSchemas().kindSchema(collection, parent);
}

function pointerToPath(pointer: string, root: unknown): (string | number)[] {
  const out: (string | number)[] = [];
  let current: unknown = root;
  for (const raw of pointer.split("/").slice(1)) {
    const seg = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(current)) {
      out.push(Number(seg));
      current = current[Number(seg)];
    } else {
      out.push(seg);
      current = (current as Record<string, unknown> | undefined)?.[seg];
    }
  }
  return out;
}

function describe(value: unknown, loc: Loc): string {
  const written = loc.text !== undefined && loc.text !== String(value) ? ` (written ${loc.text})` : "";
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a map";
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number" && !Number.isFinite(value))
    return `${loc.text ?? value}, which is not a number`;
  if (typeof value === "number") return `the number ${value}${written}`;
  if (typeof value === "boolean") return `${value}${written}`;
  return String(value);
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  integer: "a whole number",
  number: "a number",
  boolean: "true or false",
  object: "a map",
  array: "a list",
  null: "nothing",
};

/**
 * An access level a field does not take (`x-normalize: access-level`): the levels it takes by name and number, and
 * the closest name to a misspelt one.
 */
function accessLevelMessage(value: unknown, allowed: unknown[]): string {
  const levels = [...new Set(allowed.map(accessLevelNumber))]
    .filter((n): n is number => n !== undefined)
    .sort((a, b) => a - b)
    .map(accessLevelWords);
  const takes = levels.length > 1 ? `${levels.slice(0, -1).join(", ")} or ${levels.at(-1)}` : levels.join("");
  // A level the platform has (by name or number), but not here.
  if (accessLevelNumber(value) !== undefined && typeof accessLevelName(value) === "string")
    return `${accessLevelWords(value)} is not an access level this field takes: it takes ${takes}`;
  const names = allowed.filter((v): v is string => typeof v === "string");
  const hint = typeof value === "string" ? didYouMean(value, names) : undefined;
  return `${JSON.stringify(value)} is not an access level: write ${takes}, by name or number${hint ? `; did you mean "${hint}"?` : ""}`;
}

/** How a number was written, for messages: as in the file (`99999999999999999999999`), not as read (`1e+23`). */
function written(value: unknown, loc: Loc): string {
  return loc.text ?? JSON.stringify(value);
}

/** The range a field's schema allows, in words: `from 0 to 2147483647`, `more than 0 and at most 10`. */
function rangeWords(schema: JsonSchema | undefined): string {
  const n = (k: string) => (typeof schema?.[k] === "number" ? (schema[k] as number) : undefined);
  const low =
    n("minimum") !== undefined
      ? { text: String(n("minimum")), inclusive: true }
      : n("exclusiveMinimum") !== undefined
        ? { text: String(n("exclusiveMinimum")), inclusive: false }
        : undefined;
  const high =
    n("maximum") !== undefined
      ? { text: String(n("maximum")), inclusive: true }
      : n("exclusiveMaximum") !== undefined
        ? { text: String(n("exclusiveMaximum")), inclusive: false }
        : undefined;
  if (low?.inclusive && high?.inclusive) return `from ${low.text} to ${high.text}`;
  const parts = [
    ...(low ? [low.inclusive ? `at least ${low.text}` : `more than ${low.text}`] : []),
    ...(high ? [high.inclusive ? `at most ${high.text}` : `less than ${high.text}`] : []),
  ];
  return parts.join(" and ");
}

/** Whether `value` has the JSON type a schema names (`integer` for whole numbers, `number` for any). */
function typeFits(type: unknown, value: unknown): boolean {
  if (type === "integer") return typeof value === "number" && Number.isInteger(value);
  if (type === "number") return typeof value === "number";
  if (type === "array") return Array.isArray(value);
  if (type === "object") return value !== null && typeof value === "object" && !Array.isArray(value);
  if (type === "null") return value === null;
  return typeof type === "string" && typeof value === type;
}

function typeMessage(expected: string, value: unknown, loc: Loc): string {
  const want = expected
    .split(",")
    .map((t) => TYPE_NAMES[t] ?? t)
    .join(" or ");
  let msg = `expected ${want}, got ${describe(value, loc)}`;
  if (expected === "string" && (typeof value === "number" || typeof value === "boolean")) {
    const text = loc.text ?? String(value);
    msg += `; quote it to keep it as written: "${text}"`;
  } else if (expected === "boolean" && typeof value === "string" && /^(yes|no|on|off|y|n)$/i.test(value)) {
    msg += "; YAML 1.2 reads yes/no/on/off as strings, write true or false";
  }
  return msg;
}

/**
 * Turns ajv errors for `value` (validated as a whole) into diagnostics at the right file, line and column.
 * `prefix` is the path of `value` inside the manifest, for messages.
 */
export function reportSchemaErrors(
  errors: ErrorObject[],
  value: unknown,
  prefix: Path,
  diags: Diagnostics,
  /**
   * Whether the required `key` of the item at `path` (from the manifest's top) is left to a less specific entry
   * that declares the same item (`projects: {"acme/**": ...}` gives a schedule's ref; `acme/api` changes its cron).
   */
  leftToPattern?: (path: Path, key: string) => boolean,
): void {
  const anyOfPaths = errors
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .map((e) => e.schemaPath.replace(/\/(anyOf|oneOf)$/, ""));
  // A value of the wrong type is reported once, for its type: that it is not one of the allowed values says no more.
  const wrongType = new Set(errors.filter((e) => e.keyword === "type").map((e) => e.instancePath));
  // An empty value is reported once, as empty: that "" does not match a pattern or a format says no more.
  const empty = new Set(
    errors.filter((e) => e.keyword === "minLength" && e.data === "").map((e) => e.instancePath),
  );
  for (const e of errors) {
    if (
      anyOfPaths.some((p) => e.schemaPath.startsWith(`${p}/anyOf/`) || e.schemaPath.startsWith(`${p}/oneOf/`))
    ) {
      continue;
    }
    if ((e as ErrorObject & { propertyName?: string }).propertyName !== undefined) continue;
    if (e.keyword === "if") continue;
    if (e.keyword === "enum" && wrongType.has(e.instancePath)) continue;
    if ((e.keyword === "pattern" || e.keyword === "format") && empty.has(e.instancePath)) continue;
    // A value holding `${env:}`/`${file:}` is checked once resolved (checkResolvedSecrets), without being shown:
    // its text as written says nothing about its format, enum or length.
    if (RESOLVED_KEYWORDS.has(e.keyword) && typeof e.data === "string" && hasReference(e.data)) continue;
    const path = pointerToPath(e.instancePath, value);
    const data = e.data;
    const parent = e.parentSchema as JsonSchema | undefined;
    let at: Loc;
    let fieldPath: (string | number)[] = path;
    let message: string;
    switch (e.keyword) {
      case "additionalProperties": {
        const key = String((e.params as { additionalProperty: string }).additionalProperty);
        fieldPath = [...path, key];
        at = locate(value, fieldPath, "key");
        const allowed = Object.keys((parent?.properties ?? {}) as object);
        const hint = didYouMean(key, allowed);
        // An object that takes settings newer than the schema says where such a setting goes.
        const newer = allowed.includes("unchecked")
          ? `; a setting newer than this version of forgeform goes under unchecked: (sent and compared as written)`
          : "";
        message = hint
          ? `unknown key "${key}"; did you mean "${hint}"?`
          : allowed.length <= 25
            ? `unknown key "${key}"; allowed keys: ${allowed.join(", ")}${newer}`
            : `unknown key "${key}": it is none of the ${allowed.length} keys ${String(parent?.title ?? "this object")} allows (see schemas/)${newer}`;
        break;
      }
      case "required": {
        const key = (e.params as { missingProperty: string }).missingProperty;
        const target = data as Record<string, unknown> | null;
        const identity = parent?.["x-identity"];
        const isIdentity = Array.isArray(identity) ? identity.includes(key) : identity === key;
        // Deleting an object needs only its identity.
        if (target?.state === "absent" && !isIdentity) continue;
        if (!isIdentity && leftToPattern?.([...prefix, ...path], key)) continue;
        at = locate(value, path);
        fieldPath = [...path, key];
        message = `missing required key "${key}"`;
        break;
      }
      case "propertyNames": {
        const key = String((e.params as { propertyName: string }).propertyName);
        fieldPath = [...path, key];
        at = locate(value, fieldPath, "key");
        const collection = path[path.length - 1] === "projects" ? "projects" : "groups";
        message =
          entryProblem(key, collection) ??
          `"${key}" is not a valid full path: use path segments of letters, digits, "_", "-" and "." separated by "/"${
            collection === "projects" ? " (a project path has at least one group segment)" : ""
          }`;
        break;
      }
      case "type":
        at = locate(value, path);
        message = typeMessage(String((e.params as { type: string | string[] }).type), data, at);
        break;
      case "enum": {
        at = locate(value, path);
        const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
        if (parent?.["x-normalize"] === "access-level") {
          message = accessLevelMessage(data, allowed);
          break;
        }
        const hint = typeof data === "string" ? didYouMean(data, allowed.map(String)) : undefined;
        message = `${JSON.stringify(data)} is not one of: ${allowed.map(String).join(", ")}${hint ? `; did you mean "${hint}"?` : ""}`;
        break;
      }
      case "const":
        at = locate(value, path);
        message = `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}, not ${JSON.stringify(data)}`;
        break;
      case "format": {
        at = locate(value, path);
        const format = (e.params as { format: string }).format;
        const check = FORMAT_CHECKS[format];
        message =
          (check && typeof data === "string" ? check(data) : undefined) ??
          standardFormatMessage(format, data);
        break;
      }
      case "pattern": {
        at = locate(value, path);
        const pattern = (e.params as { pattern: string }).pattern;
        const platformPath = isPathPattern(pattern) && typeof data === "string";
        const own = parent?.["x-pattern-message"];
        message =
          typeof own === "string"
            ? `${JSON.stringify(data)} ${own}`
            : path[path.length - 1] === "key"
              ? `${JSON.stringify(data)} may contain only letters A-Z and a-z, digits 0-9 and "_"`
              : platformPath && path[path.length - 2] === "except"
                ? (entryProblem(data, "groups") ?? `${JSON.stringify(data)} is not a full path or a pattern`)
                : platformPath
                  ? (pathProblem(data) ??
                    `${JSON.stringify(data)} is not a full project path: a project's path has its group's first (group/project)`)
                  : `${JSON.stringify(data)} does not match the pattern ${pattern}`;
        break;
      }
      case "minLength":
        at = locate(value, path);
        message =
          (e.params as { limit: number }).limit === 1
            ? "must not be empty"
            : `must be at least ${(e.params as { limit: number }).limit} characters`;
        break;
      case "maxLength":
        at = locate(value, path);
        message = `must be at most ${(e.params as { limit: number }).limit} characters (it has ${String(data).length})`;
        break;
      case "minimum":
      case "maximum":
      case "exclusiveMinimum":
      case "exclusiveMaximum": {
        at = locate(value, path);
        const { limit, comparison } = e.params as { limit: number; comparison: string };
        const range = rangeWords(parent);
        message = `${written(data, at)} is out of range: must be ${range || `${comparison} ${limit}`}`;
        break;
      }
      case "minItems":
        at = locate(value, path);
        message = `must have at least ${(e.params as { limit: number }).limit} entr${(e.params as { limit: number }).limit === 1 ? "y" : "ies"}`;
        break;
      case "anyOf":
      case "oneOf": {
        // A value of the type one alternative takes (a whole number where a number or a duration text is allowed)
        // is told what is wrong with it there: its range, its format.
        const alternatives = (parent?.[e.keyword] ?? []) as JsonSchema[];
        const fits = alternatives.map((s, i) => [s, i] as const).filter(([s]) => typeFits(s.type, data));
        if (fits.length === 1) {
          const branch = `${e.schemaPath}/${fits[0]![1]}/`;
          const inner = errors.filter(
            (x) => x.schemaPath.startsWith(branch) && x.instancePath === e.instancePath,
          );
          if (inner.length > 0) {
            reportSchemaErrors(inner, value, prefix, diags, leftToPattern);
            continue;
          }
        }
        at = locate(value, path);
        const options = ((parent?.[e.keyword] ?? []) as JsonSchema[]).map((s) =>
          s.type === "array"
            ? `a list of ${String((s.items as JsonSchema | undefined)?.type ?? "value")}s`
            : (TYPE_NAMES[String(s.type)] ?? "a value"),
        );
        message = `expected ${options.join(" or ")}, got ${describe(data, at)}`;
        break;
      }
      default:
        at = locate(value, path);
        message = e.message ?? "is invalid";
    }
    if (VALUE_KEYWORDS.has(e.keyword) && (parent?.writeOnly === true || parent?.["x-sensitive"] === true)) {
      message = `${blindReason(e)} (the value is not shown: the field is sensitive)`;
    }
    diags.error(at, renderPath([...prefix, ...fieldPath]), message);
  }
}

/**
 * Whether a schema's `pattern` is one of the platform-path patterns (group and project paths, `except:` entries):
 * they all end each segment with the platform's `.git`/`.atom` rule, and their errors are explained by paths.ts.
 */
function isPathPattern(pattern: string): boolean {
  return pattern.includes("(?<!\\.git|\\.atom)");
}

/** Keywords checked on the resolved value of a reference rather than on its text. */
const RESOLVED_KEYWORDS = new Set(["enum", "const", "format", "pattern", "minLength", "maxLength"]);

/** Keywords whose messages describe the value itself. */
const VALUE_KEYWORDS = new Set([
  "type",
  "enum",
  "const",
  "format",
  "pattern",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "anyOf",
  "oneOf",
]);

const FORMAT_WORDS: Record<string, string> = {
  cron: "a 5-field cron expression",
  timezone: "a time zone the platform knows",
  "http-url": "an http:// or https:// URL",
  "badge-url": "an http(s) URL with only the badge placeholders",
  "hex-color": "a hex colour such as #E75E40",
  "label-color": "a colour (#RGB, #RRGGBB or a CSS colour name)",
  "date-or-date-time": "a date (YYYY-MM-DD) or an ISO 8601 date and time",
  "ssh-public-key": "an SSH public key (type, base64 key, optional comment)",
  "archive-age": "a duration of at least 1 day, such as 30 days",
  date: "a date (YYYY-MM-DD)",
  "date-time": "an ISO 8601 date and time",
  email: "an e-mail address",
};

/** Why a value fails its schema, without showing the value (sensitive fields, values of secrets). */
function blindReason(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "type":
      return `expected ${String(params["type"])
        .split(",")
        .map((t) => TYPE_NAMES[t] ?? t)
        .join(
          " or ",
        )}, got ${Array.isArray(e.data) ? "a list" : e.data === null ? "an empty value" : `a ${typeof e.data}`}`;
    case "format": {
      const format = String(params["format"]);
      return `is not ${FORMAT_WORDS[format] ?? `a valid ${format}`}`;
    }
    case "enum":
      return `is not one of: ${(params["allowedValues"] as unknown[]).map(String).join(", ")}`;
    case "pattern":
      if (typeof e.parentSchema?.["x-pattern-message"] === "string")
        return String(e.parentSchema["x-pattern-message"]);
      return isPathPattern(String(params["pattern"]))
        ? `is not a path the platform allows: ${PATH_RULE}`
        : `does not match the pattern ${String(params["pattern"])}`;
    case "minLength":
      return params["limit"] === 1
        ? "must not be empty"
        : `must be at least ${String(params["limit"])} characters`;
    case "maxLength":
      return `must be at most ${String(params["limit"])} characters`;
    default:
      return e.message ?? "is invalid";
  }
}

/**
 * Checks the values of `${env:}`/`${file:}` references against their fields' schemas once resolved (cron,
 * formats, lengths), so a bad secret fails at validate rather than at apply, and says so without showing it: the
 * message names where the value came from. `body` is a resolved group, project or instance body.
 */
export function checkResolvedSecrets(
  body: unknown,
  schemaFile: string,
  prefix: Path,
  schemas: SchemaSet,
  diags: Diagnostics,
): void {
  // Most bodies hold no reference: nothing to copy and check again.
  if (!containsSecret(body)) return;
  const secrets = new Map<string, Secret>();
  let found = false;
  const reveal = (v: unknown, pointer: string): unknown => {
    if (isSecret(v)) {
      found = true;
      if (!v.unresolved) secrets.set(pointer, v);
      return v.reveal();
    }
    if (v === null || typeof v !== "object") return v;
    const copy: unknown = Array.isArray(v)
      ? v.map((x, i) => reveal(x, `${pointer}/${i}`))
      : Object.fromEntries(
          Object.entries(v).map(([k, x]) => [
            k,
            reveal(x, `${pointer}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`),
          ]),
        );
    const meta = getMeta(v);
    if (meta) setMeta(copy as object, meta);
    return copy;
  };
  const copy = reveal(body, "");
  if (!found || secrets.size === 0) return;
  const validate = schemas.validator(schemaFile);
  if (validate(copy)) return;
  for (const e of validate.errors ?? []) {
    const secret = secrets.get(e.instancePath);
    if (!secret) continue; // every other error was reported before resolution
    const path = pointerToPath(e.instancePath, copy);
    diags.error(
      locate(copy, path),
      renderPath([...prefix, ...path]),
      `the value from ${secret.origin} ${blindReason(e)} (the value is not shown)`,
    );
  }
}
