/**
 * Field declarations, read from the kind's JSON Schema (the single declaration of every field): whether a field
 * is sensitive or write-only, whether changing it forces a replacement, whether its list is a set, whether it
 * needs a restart, is licensed, deprecated, or requires partners. The diff, the masking and the docs all use it.
 */

export interface FieldSpec {
  name: string;
  /** The field's JSON type when the schema gives one type (a response is checked against it); else undefined. */
  type?: FieldType;
  /** The manifest must set it (the schema's `required`). */
  required: boolean;
  /** Printed masked everywhere, still compared. */
  sensitive: boolean;
  /**
   * The platform's value is printed masked (`x-sensitive-live`), the manifest's as written unless it is a secret:
   * the platform may hold a secret no manifest says is one (a CI/CD variable an earlier commit gave from
   * `${env:}`, or one set by hand), while what the manifest writes in clear is in git already.
   */
  liveSensitive: boolean;
  /** Never read back from the platform: sent on create/replace, never compared, printed masked. */
  writeOnly: boolean;
  /** A change forces delete-then-create. */
  replace: boolean;
  /** An array compared without order. */
  set: boolean;
  /** Takes effect only after a restart of the platform. */
  restart: boolean;
  /** Exists only on the licensed edition. */
  licensed: boolean;
  /** The replacement of a deprecated field. */
  deprecatedBy?: string;
  /** Fields the platform requires to be sent together with this one when it is enabled. */
  requires: string[];
  /** A nested collection of child objects (`x-identity` items) or a singleton child, not a field. */
  child: boolean;
  /** A manifest-only instruction to forgeform (`x-local`): never sent as such, never compared with live state. */
  local: boolean;
  /** The platform takes it on update only (`x-update-only`): a new object gets it in an update right after its create. */
  updateOnly: boolean;
  /** The platform shows it in a read of the object itself only, not in lists (`x-detail-only`). */
  detailOnly: boolean;
  /** How the platform rewrites this field's value (`x-normalize`): both sides compare in its terms. */
  normalize?: NormalizerName;
  /** The platform's default (`default`), which export leaves out. */
  default?: unknown;
  /** A default that depends on the instance (`x-default-template`: `users.noreply.{host}`, `{user_email}`). */
  defaultTemplate?: string;
}

import type { FieldType } from "../api/index.js";
import { isNormalizerName, type NormalizerName } from "../manifest/normalize.js";

const FIELD_TYPES: ReadonlySet<string> = new Set([
  "string",
  "integer",
  "number",
  "boolean",
  "array",
  "object",
]);

type JsonSchema = Record<string, unknown>;

const META_KEYS = new Set(["state", "extends", "unmanaged", "except", "include_archived", "unchecked"]);

/** Follows a local `$ref` (`#/$defs/x`) inside the same document, and reaches into `allOf` parts. */
export type RefResolver = (ref: string) => JsonSchema | undefined;

function deref(schema: JsonSchema, resolve?: RefResolver): JsonSchema {
  let current = schema;
  for (let i = 0; i < 10 && typeof current["$ref"] === "string" && resolve; i++) {
    const next = resolve(current["$ref"] as string);
    if (!next) break;
    current = { ...next, ...Object.fromEntries(Object.entries(current).filter(([k]) => k !== "$ref")) };
  }
  return current;
}

function collectProperties(schema: JsonSchema, resolve?: RefResolver): Record<string, JsonSchema> {
  const s = deref(schema, resolve);
  const props: Record<string, JsonSchema> = { ...((s["properties"] as Record<string, JsonSchema>) ?? {}) };
  for (const part of (s["allOf"] as JsonSchema[] | undefined) ?? []) {
    Object.assign(props, collectProperties(part, resolve));
  }
  return props;
}

function isChild(prop: JsonSchema, resolve?: RefResolver): boolean {
  const p = deref(prop, resolve);
  if (p["x-singleton"] === true) return true;
  if (p["type"] === "array" && p["items"]) {
    if (p["x-identity"] !== undefined) return true;
    const items = deref(p["items"] as JsonSchema, resolve);
    return items["x-identity"] !== undefined;
  }
  return false;
}

/** The field declarations of an object schema (meta keys `state`, `extends`, `unmanaged` excluded). */
export function fieldSpecsFromSchema(schema: JsonSchema, resolve?: RefResolver): Map<string, FieldSpec> {
  const specs = new Map<string, FieldSpec>();
  const required = new Set((deref(schema, resolve)["required"] as string[] | undefined) ?? []);
  for (const [name, raw] of Object.entries(collectProperties(schema, resolve))) {
    if (META_KEYS.has(name)) continue;
    const prop = deref(raw, resolve);
    const type = prop["type"];
    specs.set(name, {
      name,
      ...(typeof type === "string" && FIELD_TYPES.has(type) ? { type: type as FieldType } : {}),
      required: required.has(name),
      sensitive: prop["x-sensitive"] === true || prop["writeOnly"] === true,
      liveSensitive: prop["x-sensitive-live"] === true,
      writeOnly: prop["writeOnly"] === true,
      replace: prop["x-replace"] === true,
      set:
        prop["uniqueItems"] === true ||
        [...((prop["anyOf"] as JsonSchema[]) ?? []), ...((prop["oneOf"] as JsonSchema[]) ?? [])].some(
          (alt) => alt["uniqueItems"] === true,
        ),
      restart: prop["x-restart"] === true,
      licensed: prop["x-licensed"] === true,
      deprecatedBy: typeof prop["x-deprecated"] === "string" ? (prop["x-deprecated"] as string) : undefined,
      requires: Array.isArray(prop["x-requires"]) ? (prop["x-requires"] as string[]) : [],
      child: isChild(prop, resolve),
      local: prop["x-local"] === true,
      updateOnly: prop["x-update-only"] === true,
      detailOnly: prop["x-detail-only"] === true,
      ...(isNormalizerName(prop["x-normalize"]) ? { normalize: prop["x-normalize"] } : {}),
      ...(prop["default"] !== undefined ? { default: prop["default"] } : {}),
      ...(typeof prop["x-default-template"] === "string"
        ? { defaultTemplate: prop["x-default-template"] }
        : {}),
    });
  }
  return specs;
}
