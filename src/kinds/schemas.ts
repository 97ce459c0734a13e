/**
 * Reads the published JSON Schemas (schemas/*.json) to find each kind's item schema by where it lives in the
 * manifest (parent collection + collection key), and from it the kind's field declarations.
 */
import { readdirSync, readFileSync } from "node:fs";
import { type FieldSpec, fieldSpecsFromSchema } from "./fields.js";

type JsonSchema = Record<string, unknown>;

const SCHEMA_DIR = new URL("../../schemas/", import.meta.url);

let documents: Map<string, JsonSchema> | undefined;

function loadDocuments(): Map<string, JsonSchema> {
  if (!documents) {
    documents = new Map();
    for (const name of readdirSync(SCHEMA_DIR)) {
      if (name.endsWith(".schema.json")) {
        documents.set(name, JSON.parse(readFileSync(new URL(name, SCHEMA_DIR), "utf8")) as JsonSchema);
      }
    }
  }
  return documents;
}

/** Resolves `file.schema.json` and `file.schema.json#/$defs/x` (or `#/$defs/x` within `base`). */
function resolver(base: string) {
  return (ref: string): JsonSchema | undefined => {
    const [file, pointer] = ref.split("#");
    const doc = loadDocuments().get(file || base);
    if (!doc) return undefined;
    if (!pointer) return doc;
    let node: unknown = doc;
    for (const part of pointer.split("/").filter(Boolean)) node = (node as Record<string, unknown>)?.[part];
    return node as JsonSchema | undefined;
  };
}

function refFile(schema: JsonSchema, base: string): string {
  const ref = schema["$ref"];
  return typeof ref === "string" && !ref.startsWith("#") ? (ref.split("#")[0] ?? base) : base;
}

interface Located {
  schema: JsonSchema;
  file: string;
}

let index: Map<string, Located> | undefined;

/** Every kind's item schema, keyed `parent.collection` (`projects.pipeline_schedules`, `instance.groups`). */
function buildIndex(): Map<string, Located> {
  const found = new Map<string, Located>();
  const visit = (parent: string, schema: JsonSchema, file: string, depth: number): void => {
    if (depth > 6) return;
    const resolve = resolver(file);
    const props = (schema["properties"] as Record<string, JsonSchema> | undefined) ?? {};
    for (const [name, prop] of Object.entries(props)) {
      let item: JsonSchema | undefined;
      let itemFile = file;
      if (prop["type"] === "array" && prop["items"] && prop["x-identity"] !== undefined) {
        const items = prop["items"] as JsonSchema;
        itemFile = refFile(items, file);
        item = typeof items["$ref"] === "string" ? resolve(items["$ref"]) : items;
      } else if (typeof prop["$ref"] === "string") {
        const target = resolve(prop["$ref"]);
        if (target?.["x-singleton"] === true) {
          item = target;
          itemFile = refFile(prop, file);
        }
      } else if (prop["x-singleton"] === true) {
        item = prop;
      }
      if (!item) continue;
      found.set(`${parent}.${name}`, { schema: item, file: itemFile });
      visit(name, item, itemFile, depth + 1);
    }
  };
  const root = loadDocuments().get("manifest.schema.json");
  if (!root) throw new Error("schemas/manifest.schema.json is missing from the installation");
  const rootProps = root["properties"] as Record<string, JsonSchema>;
  const instance = loadDocuments().get("instance.schema.json");
  if (instance) {
    found.set(".instance", { schema: instance, file: "instance.schema.json" });
    visit("instance", instance, "instance.schema.json", 0);
  }
  for (const top of ["groups", "projects"]) {
    const ref = (rootProps[top]?.["additionalProperties"] as JsonSchema | undefined)?.["$ref"];
    const file = typeof ref === "string" ? ref : undefined;
    const schema = file ? loadDocuments().get(file) : undefined;
    if (file && schema) {
      found.set(`instance.${top}`, { schema, file });
      visit(top, schema, file, 0);
    }
  }
  return found;
}

/** The item schema of `collection` under `parent` (e.g. `projects`, `badges`). */
export function itemSchema(parent: string, collection: string): JsonSchema | undefined {
  index ??= buildIndex();
  return index.get(`${parent}.${collection}`)?.schema;
}

/** Field declarations of the kind stored at `collection` under `parent`. */
export function fieldSpecs(parent: string, collection: string): Map<string, FieldSpec> {
  index ??= buildIndex();
  const located = index.get(`${parent}.${collection}`);
  if (!located) return new Map();
  return fieldSpecsFromSchema(located.schema, resolver(located.file));
}
