import { readTextFile } from "../files/read.js";
import type { Diagnostics } from "./diagnostics.js";
import { resolveManifestPath } from "./interpolate.js";
import { getMeta, type Loc, selfLoc } from "./located.js";
import type { DesiredCollection, DesiredNode, PrunePolicy, SourceRef } from "./model.js";
import { derivedIdentity, identityOf, MAX_CONTENT_FILE_BYTES } from "./rules.js";
import type { JsonSchema, SchemaSet } from "./schemas.js";
import { isSecret, Secret } from "./secret.js";
import type { WikiPage } from "./types.gen.js";

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj =>
  v !== null && typeof v === "object" && !Array.isArray(v) && !isSecret(v);
const META_KEYS = new Set(["state", "extends", "unmanaged", "except", "include_archived"]);

const ref = (l: Loc): SourceRef => ({ file: l.file, line: l.line, col: l.col });

export interface BuildContext {
  schemas: SchemaSet;
  root: string;
  diags: Diagnostics;
}

/** Records the position of every declared value below `value` (paths relative to the node, dotted). */
function collectSources(value: unknown, prefix: string, out: Record<string, SourceRef>): void {
  const meta = getMeta(value);
  if (!meta) return;
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [String(i), v])
    : Object.entries(value as Obj);
  for (const [k, v] of entries) {
    const p = Array.isArray(value) ? `${prefix}[${k}]` : prefix ? `${prefix}.${k}` : k;
    const l = meta.values.get(k) ?? meta.keys.get(k);
    if (l) out[p] = ref(l);
    if (v !== null && typeof v === "object" && !isSecret(v)) collectSources(v, p, out);
  }
}

function policyDeclared(body: Obj, collection: string): boolean {
  return isObj(body.unmanaged) && body.unmanaged[collection] !== undefined;
}

function policyOf(body: Obj, collection: string): PrunePolicy {
  const u = body.unmanaged;
  const p = isObj(u) ? u[collection] : undefined;
  return p === "delete" || p === "ignore" || p === "warn" ? p : "warn";
}

/** Builds one desired node from a resolved body, following the schema's annotations. */
export function buildNode(
  collection: string,
  key: string,
  body: Obj,
  schema: JsonSchema,
  ctx: BuildContext,
): DesiredNode {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const fields: Record<string, unknown> = {};
  const fieldSources: Record<string, SourceRef> = {};
  const children: Record<string, DesiredCollection> = {};
  const meta = getMeta(body);
  const ownState = props.state ? ctx.schemas.resolve(props.state) : undefined;
  const ownStateValues = Array.isArray(ownState?.enum) ? (ownState.enum as unknown[]) : [];
  const keepsState = ownStateValues.includes("active");
  for (const [k, v] of Object.entries(body)) {
    const raw = props[k];
    const prop = raw ? ctx.schemas.resolve(raw) : undefined;
    const identity = raw?.["x-identity"] ?? prop?.["x-identity"];
    if (prop && prop.type === "array" && identity && Array.isArray(v)) {
      const itemSchema = ctx.schemas.resolve(prop.items as JsonSchema);
      children[k] = {
        policy: policyOf(body, k),
        ...(policyDeclared(body, k) ? { policyDeclared: true } : {}),
        items: v.filter(isObj).map((item) => {
          const id = identityOf(item, identity, k, itemSchema);
          const node = buildNode(k, id?.key ?? "", item, itemSchema, ctx);
          if (id && id.label !== id.key) node.label = id.label;
          if (id && id.compare !== id.key) node.compare = id.compare;
          return node;
        }),
      };
      continue;
    }
    if (prop && prop["x-singleton"] === true && isObj(v)) {
      children[k] = { policy: "ignore", items: [buildNode(k, k, v, prop, ctx)] };
      continue;
    }
    if (k === "unchecked" && isObj(v)) {
      // Settings newer than the schema, flattened as plans name them: `unchecked.<name>`.
      const at = getMeta(v);
      for (const [name, value] of Object.entries(v)) {
        fields[`unchecked.${name}`] = value;
        const l = at?.values.get(name) ?? at?.keys.get(name);
        if (l) fieldSources[`unchecked.${name}`] = ref(l);
        if (value !== null && typeof value === "object" && !isSecret(value))
          collectSources(value, `unchecked.${name}`, fieldSources);
      }
      continue;
    }
    if (META_KEYS.has(k) && !(k === "state" && keepsState && v !== "absent")) continue;
    const sensitive = prop && (prop.writeOnly === true || prop["x-sensitive"] === true);
    fields[k] = sensitive && typeof v === "string" ? new Secret(v, "literal") : v;
    const l = meta?.values.get(k) ?? meta?.keys.get(k);
    if (l) fieldSources[k] = ref(l);
    if (v !== null && typeof v === "object" && !isSecret(v)) collectSources(v, k, fieldSources);
  }
  // Collections the manifest leaves out are not managed, unless an `unmanaged` policy names them.
  if (isObj(body.unmanaged)) {
    for (const k of Object.keys(body.unmanaged)) {
      if (!children[k] && props[k])
        children[k] = { policy: policyOf(body, k), policyDeclared: true, items: [] };
    }
  }
  const derived = derivedIdentity(collection, fields);
  if (derived) fields[derived.field] = derived.value;
  if (collection === "wiki_pages") {
    const page = fields as Partial<Record<keyof WikiPage, unknown>>;
    if (typeof page.content_file === "string") {
      const at = fieldSources.content_file!;
      const r = resolveManifestPath(at.file, page.content_file, ctx.root, true);
      // Checked at validation; read capped all the same, should the file have changed since.
      if ("path" in r) fields.content = readTextFile(r.path, { maxBytes: MAX_CONTENT_FILE_BYTES });
      fieldSources.content = at;
      delete fields.content_file;
    }
    if (Array.isArray(fields.attachments)) {
      fields.attachments = fields.attachments.map((a, i) => {
        const at = fieldSources[`attachments[${i}]`] ?? fieldSources.attachments!;
        const r = typeof a === "string" ? resolveManifestPath(at.file, a, ctx.root, true) : undefined;
        return r && "path" in r ? r.path : a;
      });
    }
  }
  if (props["token_file"] && typeof fields["token_file"] === "string") {
    // Where apply writes a new token (a trigger's, a deploy token's): relative to the manifest, like every other
    // path in it.
    const r = resolveManifestPath(fieldSources["token_file"]!.file, fields["token_file"], ctx.root, false);
    if ("path" in r) fields["token_file"] = r.path;
  }
  const self = selfLoc(body);
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const needs = body.state === "absent" ? [] : required.filter((k) => body[k] === undefined);
  return {
    collection,
    key,
    state: body.state === "absent" ? "absent" : "present",
    fields,
    source: ref(self),
    fieldSources,
    children,
    ...(needs.length > 0 ? { needs } : {}),
  };
}
