/**
 * Test values for every field a kind's schema declares, derived from the schema itself (types, enums, formats,
 * bounds), in two variants so that a field can be set and then changed. Fields whose valid values depend on other
 * fields or on the platform get an entry in the `overrides` a test passes.
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";

export type Schema = Record<string, unknown>;
export type Variant = 0 | 1;

const SCHEMAS = join(import.meta.dirname, "../../schemas");

/** A schema file, or a schema inside one (`epic.schema.json#/properties/issues/items`). */
export function loadSchema(ref: string): Schema {
  const [file, pointer] = ref.split("#");
  let node: unknown = JSON.parse(readFileSync(join(SCHEMAS, file!), "utf8"));
  for (const part of (pointer ?? "").split("/").filter(Boolean)) node = (node as Schema)[part];
  return node as Schema;
}

function deref(schema: Schema): Schema {
  const ref = schema["$ref"];
  if (typeof ref !== "string") return schema;
  return {
    ...loadSchema(ref),
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== "$ref")),
  };
}

/**
 * Every collection the manifest schema allows, as `<parent collection>.<collection>` (`projects.badges`): keyed
 * objects (groups, projects), lists with an identity, and singletons, under the instance and recursively below.
 * Templates are bodies for `extends`, not objects on the platform, and are not walked.
 */
export function collections(): string[] {
  const out: string[] = [];
  const walk = (schema: Schema, parent: string) => {
    const props = (deref(schema)["properties"] ?? {}) as Record<string, Schema>;
    for (const [name, raw] of Object.entries(props)) {
      const p = deref(raw);
      const items = p["type"] === "array" ? deref((p["items"] as Schema | undefined) ?? {}) : undefined;
      const entries =
        p["type"] === "object" && typeof p["additionalProperties"] === "object"
          ? deref(p["additionalProperties"] as Schema)
          : undefined;
      if (p["x-singleton"] === true) out.push(`${parent}.${name}`);
      else if (items && (p["x-identity"] !== undefined || items["x-identity"] !== undefined)) {
        out.push(`${parent}.${name}`);
        walk(items, name);
      } else if (entries && p["x-identity"] !== undefined) {
        out.push(`${parent}.${name}`);
        walk(entries, name);
      }
    }
  };
  const manifest = loadSchema("manifest.schema.json");
  const { instance, ...rest } = manifest["properties"] as Record<string, Schema>;
  walk(instance!, "instance");
  walk({ properties: rest }, "instance");
  return out;
}

export function sshKey(comment: string): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]).toString("base64")} ${comment}`;
}

const FORMATS: Record<string, [unknown, unknown]> = {
  "http-url": ["https://a.rt.example/x", "https://b.rt.example/y"],
  "badge-url": ["https://a.rt.example/%{project_path}", "https://b.rt.example/%{default_branch}"],
  "hex-color": ["#112233", "#445566"],
  cron: ["0 2 * * *", "30 4 * * 1-5"],
  timezone: ["Europe/Berlin", "America/New_York"],
  "archive-age": ["30 days", "2 years"],
  date: ["2027-01-01", "2027-06-30"],
  "date-time": ["2027-01-05T08:00:00Z", "2027-01-06T09:30:00Z"],
  email: ["a@rt.example", "b@rt.example"],
};

/** A value for one field, or undefined when the schema gives no way to make one (the test must override it). */
export function valueFor(name: string, raw: Schema, variant: Variant): unknown {
  const schema = deref(raw);
  if (Array.isArray(schema["enum"])) {
    const values = schema["enum"] as unknown[];
    return values[variant % values.length];
  }
  for (const alt of ["anyOf", "oneOf"]) {
    if (Array.isArray(schema[alt])) return valueFor(name, (schema[alt] as Schema[])[0]!, variant);
  }
  const sizes = schema["x-key-sizes"];
  if (Array.isArray(sizes)) return variant === 0 ? sizes[0] : -1;
  const format = schema["format"];
  if (typeof format === "string" && FORMATS[format]) return FORMATS[format][variant];
  if (format === "ssh-public-key") return sshKey(`rt-${variant}`);
  switch (schema["type"]) {
    case "boolean":
      return variant === 0;
    case "integer":
    case "number": {
      const min = typeof schema["minimum"] === "number" ? schema["minimum"] : 0;
      const max = typeof schema["maximum"] === "number" ? schema["maximum"] : min + 100;
      return Math.min(max, min + 1 + variant);
    }
    case "string":
      return `rt ${variant === 0 ? "a" : "b"} ${name}`.slice(
        0,
        typeof schema["maxLength"] === "number" ? schema["maxLength"] : 255,
      );
    case "array": {
      const item = valueFor(`${name}-item`, (schema["items"] as Schema | undefined) ?? {}, variant);
      return item === undefined ? undefined : [item];
    }
    default:
      return undefined;
  }
}

/** The fields of an object schema that are the object's own settings (no meta keys, no child collections). */
export function ownFields(schema: Schema): [string, Schema][] {
  const props = (deref(schema)["properties"] ?? {}) as Record<string, Schema>;
  return Object.entries(props).filter(([name, raw]) => {
    if (["state", "extends", "unmanaged", "except", "include_archived", "unchecked"].includes(name))
      return false;
    const p = deref(raw);
    if (p["x-singleton"] === true || p["x-local"] === true) return false;
    if (
      p["type"] === "array" &&
      (p["x-identity"] !== undefined || deref((p["items"] as Schema) ?? {})["x-identity"] !== undefined)
    )
      return false;
    return true;
  });
}

/** Every own field with a value of the variant, overrides first; fields that get neither are listed as missing. */
export function values(
  schema: Schema,
  variant: Variant,
  overrides: Record<string, [unknown, unknown] | null> = {},
): { values: Record<string, unknown>; missing: string[] } {
  const out: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [name, raw] of ownFields(schema)) {
    if (Object.hasOwn(overrides, name)) {
      const o = overrides[name];
      if (o !== null && o !== undefined) out[name] = o[variant];
      continue;
    }
    const v = valueFor(name, raw, variant);
    if (v === undefined) missing.push(name);
    else out[name] = v;
  }
  return { values: out, missing };
}

/** YAML for a flat map of values (strings quoted as JSON, which YAML reads as the same strings). */
export function yamlFields(values: Record<string, unknown>, indent: string): string {
  return Object.entries(values)
    .map(([k, v]) => `${indent}${k}: ${JSON.stringify(v)}`)
    .join("\n");
}
