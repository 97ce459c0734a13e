import { statSync } from "node:fs";
import type { Diagnostics } from "./diagnostics.js";
import { formatRef, renderPath } from "./diagnostics.js";
import { hasReference } from "./formats.js";
import { resolveManifestPath } from "./interpolate.js";
import { keyLoc, type Loc, type Path, selfLoc, valueLoc } from "./located.js";
import { isNormalizerName, normalizeValue } from "./normalize.js";
import type { JsonSchema, SchemaSet } from "./schemas.js";
import { deriveSecret, isSecret, textOf } from "./secret.js";
import type {
  BroadcastMessage,
  CiVariable,
  DeployAccessLevel,
  Milestone,
  NotificationSettings,
  ProtectedBranch,
  ProtectedEnvironment,
  RefAllowance,
  WikiPage,
} from "./types.gen.js";

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);

/** The default slug of a wiki page: the title with whitespace and `<`, `>`, `+` turned into `-`. */
export function wikiSlug(title: string): string {
  return title.trim().replace(/[\s<>+]/g, "-");
}

/**
 * Identity fields the platform derives from another field when the manifest leaves them out: a wiki page's slug
 * from its title. The derived value is a secret when its source is one (a title from `${env:}`).
 */
const DERIVED_IDENTITY: Record<string, { field: string; from: string; derive: (text: string) => string }> = {
  wiki_pages: { field: "slug", from: "title", derive: wikiSlug },
};

/** The item's derived identity field and its value, when the manifest leaves that field out (see above). */
export function derivedIdentity(
  collection: string,
  item: Obj,
): { field: string; value: unknown } | undefined {
  const rule = DERIVED_IDENTITY[collection];
  if (!rule || item[rule.field] !== undefined) return undefined;
  const source = item[rule.from];
  if (typeof source !== "string" && !isSecret(source)) return undefined;
  return { field: rule.field, value: deriveSecret(source, rule.derive) };
}

/** An item's identity: resolved (to match and compare) and as it may be shown. */
export interface Identity {
  /** From the resolved values; may hold a secret, so it is never printed. */
  key: string;
  /** As it may be shown: secret parts masked. */
  label: string;
  /** The key in the terms of the identity fields' normalisers, for duplicate checks (`ssh-key`: no comment). */
  compare: string;
  /** Part of it is not known (a reference left unresolved by `validate --no-secrets`). */
  unknown: boolean;
}

/**
 * The identity of an item under an `x-identity` spec (a field name, or several joined with `#`), from resolved
 * values: a part from `${env:}`/`${file:}` is matched by its value and shown masked. `itemSchema` gives each
 * identity field's normaliser, and the default of one the item leaves out (a CI/CD variable's scope is `*`).
 */
export function identityOf(
  written: Obj,
  spec: unknown,
  collection: string,
  itemSchema?: JsonSchema,
): Identity | undefined {
  const derived = derivedIdentity(collection, written);
  const item = derived ? { ...written, [derived.field]: derived.value } : written;
  const fields = Array.isArray(spec) ? spec.map(String) : [String(spec)];
  const props = (itemSchema?.properties ?? {}) as Record<string, JsonSchema>;
  const keys: string[] = [];
  const labels: string[] = [];
  const compares: string[] = [];
  let unknown = false;
  for (const f of fields) {
    const v = item[f] ?? props[f]?.default;
    let key: string;
    if (isSecret(v)) {
      key = v.reveal();
      labels.push(v.shown);
      unknown ||= v.unresolved;
    } else if (v === undefined || v === null || typeof v === "object") return undefined;
    else {
      key = String(v);
      labels.push(key);
    }
    keys.push(key);
    const normalizer = props[f]?.["x-normalize"];
    compares.push(isNormalizerName(normalizer) ? String(normalizeValue(normalizer, key)) : key);
  }
  return { key: keys.join("#"), label: labels.join("#"), compare: compares.join("#"), unknown };
}

const LEVEL_NAMES: Record<string, number> = { private: 0, internal: 10, public: 20 };

export interface RuleContext {
  schemas: SchemaSet;
  diags: Diagnostics;
  root: string;
}

/** A setting's name that says its value is a secret. */
const SECRET_NAME = /(^|_)(token|secret|password|passwd|key|credentials?|private)(_|$)/;

/**
 * `unchecked:`, settings newer than the schema: each is a warning naming it (sent and compared as written, nothing
 * checks it); one the schema knows is an error (write it as the field), and so is a secret written in clear (it
 * must come from `${env:}` or `${file:}`, so that it is masked).
 */
function checkUnchecked(
  unchecked: Obj,
  props: Record<string, JsonSchema>,
  path: Path,
  diags: Diagnostics,
): void {
  for (const [name, v] of Object.entries(unchecked)) {
    const at = keyLoc(unchecked, name);
    const where = renderPath([...path, name]);
    if (Object.hasOwn(props, name) && name !== "unchecked") {
      diags.error(at, where, `${name} is a field forgeform knows: write it as ${name}, not under unchecked`);
      continue;
    }
    const written = typeof v === "string" ? v : undefined;
    if (SECRET_NAME.test(name) && written !== undefined && !/\$\{(env|file):/.test(written)) {
      diags.error(
        valueLoc(unchecked, name),
        where,
        `${name} looks like a secret: write it as \${env:NAME} or \${file:path}, so that forgeform masks it (it is never shown here)`,
      );
      continue;
    }
    diags.warning(
      at,
      where,
      `${name} is not a setting forgeform checks: it is sent and compared as written (check its name and value in the platform's API documentation)`,
    );
  }
}

/** A property of a schema that checkBody or checkIdentities has something to check on. */
interface PropertyRule {
  key: string;
  /** The property's schema, resolved ($ref followed). */
  prop: JsonSchema;
  requires?: string[];
  deprecated?: string;
  sizes?: number[];
  /** An array of items with an identity (`x-identity`): their identity, and the items' schema (resolved). */
  identity?: unknown;
  itemSchema?: JsonSchema;
  /** An object the platform has once (`x-singleton`). */
  singleton: boolean;
}

/**
 * Each schema's properties that have a rule (annotations, collections with an identity, singletons), listed once
 * and in the schema's order: checkBody and checkIdentities go through them for every object of the manifests, and
 * most properties (a project's hundred settings) have none.
 */
const RULES = new WeakMap<JsonSchema, PropertyRule[]>();

function rulesOf(schema: JsonSchema, schemas: SchemaSet): PropertyRule[] {
  let list = RULES.get(schema);
  if (list !== undefined) return list;
  list = [];
  for (const [key, raw] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    const prop = schemas.resolve(raw);
    const requires = (raw["x-requires"] ?? prop["x-requires"]) as string[] | undefined;
    const deprecated = (raw["x-deprecated"] ?? prop["x-deprecated"]) as string | undefined;
    const sizes = (raw["x-key-sizes"] ?? prop["x-key-sizes"]) as number[] | undefined;
    const identity = raw["x-identity"] ?? prop["x-identity"];
    const collection = prop.type === "array" && Boolean(identity);
    const singleton = prop["x-singleton"] === true;
    if (!requires && !deprecated && !sizes && !collection && !singleton) continue;
    list.push({
      key,
      prop,
      ...(requires ? { requires } : {}),
      ...(deprecated ? { deprecated } : {}),
      ...(sizes ? { sizes } : {}),
      ...(collection ? { identity, itemSchema: schemas.resolve(prop.items as JsonSchema) } : {}),
      singleton,
    });
  }
  RULES.set(schema, list);
  return list;
}

/** Checks one body (instance, group, project or one of their items) against the contract's rules. */
export function checkBody(value: unknown, schema: JsonSchema, path: Path, ctx: RuleContext): void {
  if (!isObj(value)) return;
  const { schemas, diags } = ctx;
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  if (isObj(value["unchecked"])) checkUnchecked(value["unchecked"], props, [...path, "unchecked"], diags);
  for (const rule of rulesOf(schema, schemas)) {
    const { key, requires, deprecated, sizes } = rule;
    if (!Object.hasOwn(value, key)) continue;
    const v = value[key];
    // Made only where it is used: most fields of most objects have nothing to say.
    const fieldPath = () => [...path, key];
    // settings annotations
    if (requires && (v === true || (typeof v === "string" && v !== ""))) {
      const missing = requires.filter((r) => value[r] === undefined || value[r] === null || value[r] === "");
      if (missing.length > 0) {
        diags.error(
          keyLoc(value, key),
          renderPath(fieldPath()),
          `${key}${v === true ? ": true" : " is set, so it"} requires ${missing.join(", ")}; set ${missing.length === 1 ? "it" : "them"} in the same place`,
        );
      }
    }
    if (deprecated) {
      diags.warning(
        keyLoc(value, key),
        renderPath(fieldPath()),
        `${key} is deprecated; use ${deprecated} instead`,
      );
    }
    if (sizes && typeof v === "number" && v !== 0 && v !== -1 && !sizes.includes(v)) {
      const at = valueLoc(value, key);
      diags.error(
        at,
        renderPath(fieldPath()),
        `${at.text ?? v} is not a valid restriction: use 0 (no restriction), -1 (forbid this key type) or a size of ${sizes.join(", ")} bits`,
      );
    }
    // collections
    if (rule.itemSchema && Array.isArray(v)) {
      const itemSchema = rule.itemSchema;
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (!isObj(item)) continue;
        const itemPath = [...path, key, i];
        checkItem(key, item, itemPath, ctx);
        checkBody(item, itemSchema, itemPath, ctx);
      }
    } else if (rule.singleton && isObj(v)) {
      checkItem(key, v, fieldPath(), ctx);
      checkBody(v, rule.prop, fieldPath(), ctx);
    }
  }
}

function isPlainString(v: unknown): v is string {
  return typeof v === "string" && !hasReference(v);
}

/**
 * A file path a manifest names (content_file, attachments, token_file): inside the manifest root, existing when
 * forgeform reads it. Such paths are taken as written: a `${env:}`/`${file:}` reference in one would otherwise be
 * left unread (a trigger's token silently not written), so it is an error.
 */
function checkFilePath(
  container: Obj | unknown[],
  key: string | number,
  path: Path,
  mustExist: boolean,
  ctx: RuleContext,
  maxBytes?: number,
): void {
  const written = (container as Record<string | number, unknown>)[key];
  if (typeof written !== "string") return;
  const at = valueLoc(container, key);
  if (hasReference(written)) {
    ctx.diags.error(
      at,
      renderPath(path),
      `a file path is taken as written: \${env:} and \${file:} are not resolved in it; write the path itself`,
    );
    return;
  }
  const r = resolveManifestPath(at.file, written, ctx.root, mustExist);
  if ("error" in r) ctx.diags.error(at, renderPath(path), r.error);
  else if (maxBytes !== undefined) {
    const size = statSync(r.path).size;
    if (size > maxBytes) {
      ctx.diags.error(at, renderPath(path), `the file has ${size} bytes; at most ${maxBytes} are read`);
    }
  }
}

/**
 * Largest wiki `content_file` read: the platform's own default limit on a page's content (13.12,
 * `wiki_page_max_content_bytes`, 50 MiB).
 */
export const MAX_CONTENT_FILE_BYTES = 50 * 1024 * 1024;

/**
 * A list of who may act (a protected environment's deployers, a protected branch's allowances): each entry is exactly
 * one of a role, a user or a group.
 */
function checkEntries(entries: unknown, path: Path, diags: Diagnostics): void {
  if (!Array.isArray(entries)) return;
  const keys: (keyof DeployAccessLevel & keyof RefAllowance)[] = ["access_level", "user", "group"];
  entries.forEach((entry, i) => {
    if (!isObj(entry)) return;
    const set = keys.filter((k) => entry[k] !== undefined);
    if (set.length !== 1) {
      diags.error(
        selfLoc(entry),
        renderPath([...path, i]),
        `set exactly one of user, group or access_level (${set.length === 0 ? "none is set" : `it sets ${set.join(" and ")}`})`,
      );
    }
  });
}

/** Rules that involve several fields of one item. */
function checkItem(collection: string, item: Obj, path: Path, ctx: RuleContext): void {
  const { diags } = ctx;
  if (item.state === "absent") return;
  switch (collection) {
    case "protected_environments": {
      // Rules run on values that may have failed schema checks: the generated types name the fields, the guards
      // check the shapes.
      const levels: unknown = (item as Partial<ProtectedEnvironment>).deploy_access_levels;
      checkEntries(levels, [...path, "deploy_access_levels"], diags);
      break;
    }
    case "protected_branches": {
      const branch = item as Partial<ProtectedBranch>;
      for (const list of ["allowed_to_push", "allowed_to_merge", "allowed_to_unprotect"] as const)
        checkEntries(branch[list], [...path, list], diags);
      break;
    }
    case "wiki_pages": {
      const page = item as Partial<WikiPage>;
      const hasContent = page.content !== undefined;
      const hasFile = page.content_file !== undefined;
      if (hasContent === hasFile) {
        diags.error(
          selfLoc(item),
          renderPath(path),
          hasContent
            ? "set either content or content_file, not both"
            : "missing the page text: set content (inline) or content_file (a path)",
        );
      }
      checkFilePath(item, "content_file", [...path, "content_file"], true, ctx, MAX_CONTENT_FILE_BYTES);
      const attachments: unknown = page.attachments;
      if (Array.isArray(attachments)) {
        attachments.forEach((_, i) => {
          checkFilePath(attachments, i, [...path, "attachments", i], true, ctx);
        });
      }
      break;
    }
    case "triggers":
    case "deploy_tokens":
      checkFilePath(item, "token_file", [...path, "token_file"], false, ctx);
      break;
    case "labels":
      // A priority is a project's order of the labels it shows: a group label has none of its own.
      if (path[0] === "groups")
        onlyFor(item, "priority", path, "projects", diags, "set it in each project's labels");
      break;
    case "hooks":
      if (path[0] === "projects")
        onlyFor(item, "subgroup_events", path, "groups", diags, "a project has no subgroups");
      break;
    case "variables": {
      // A masked variable's value is a secret: it is read from the environment or a file, never kept in the
      // manifest (a file meant for git), as an `unchecked:` secret is not.
      const { masked, value }: Partial<CiVariable> = item;
      if (masked === true && typeof value === "string" && !hasReference(value)) {
        diags.error(
          valueLoc(item, "value"),
          renderPath([...path, "value"]),
          `a masked variable's value is a secret: write it as \${env:NAME} or \${file:path}, not in the manifest (the value is not shown)`,
        );
      }
      break;
    }
    case "broadcast_messages": {
      const { starts_at: s, ends_at: e }: Partial<BroadcastMessage> = item;
      if (isPlainString(s) && isPlainString(e)) {
        const a = Date.parse(s);
        const b = Date.parse(e);
        if (!Number.isNaN(a) && !Number.isNaN(b) && b <= a) {
          diags.error(
            valueLoc(item, "ends_at"),
            renderPath([...path, "ends_at"]),
            `ends_at (${e}) must be after starts_at (${s})`,
          );
        }
      }
      break;
    }
    case "milestones": {
      const { start_date: s, due_date: d }: Partial<Milestone> = item;
      if (isPlainString(s) && isPlainString(d) && d < s) {
        diags.error(
          valueLoc(item, "due_date"),
          renderPath([...path, "due_date"]),
          `due_date (${d}) is before start_date (${s})`,
        );
      }
      break;
    }
    case "notification_settings": {
      if (path[0] === "projects" && Object.hasOwn(item, "new_epic")) {
        // Epics belong to groups: a project's settings have no such switch, and the platform drops it (the plan
        // would then show it as a change forever).
        diags.error(
          keyLoc(item, "new_epic"),
          renderPath([...path, "new_epic"]),
          "new_epic exists only for groups and your global notification settings (epics belong to groups): set it on the group",
        );
      }
      const level: unknown = (item as Partial<NotificationSettings>).level;
      const events = Object.keys(item).filter((k) => k !== "level" && k !== "notification_email");
      if (events.length > 0 && level !== undefined && level !== "custom") {
        diags.warning(
          keyLoc(item, events[0]!),
          renderPath([...path, events[0]!]),
          `event switches apply only when level is custom (level is ${String(level)}); they are sent but have no effect`,
        );
      }
      break;
    }
  }
}

/** A field that only the other owner's objects of this collection have (a project label's `priority`). */
function onlyFor(
  item: Obj,
  field: string,
  path: Path,
  owners: string,
  diags: Diagnostics,
  hint: string,
): void {
  if (!Object.hasOwn(item, field)) return;
  diags.error(
    keyLoc(item, field),
    renderPath([...path, field]),
    `${field} exists only for the ${path[path.length - 2]} of ${owners}: ${hint}`,
  );
}

/** A subgroup or a project may not be more visible than its group (when both are declared). */
export function checkGroupVisibility(
  groups: Map<string, Obj>,
  projects: Map<string, Obj>,
  diags: Diagnostics,
): void {
  // Paths are one path in any case, as on the platform.
  const byPath = new Map([...groups].map(([p, b]) => [p.toLowerCase(), b]));
  const entries = [
    ...[...groups].map(([p, b]) => ["groups", p, b] as const),
    ...[...projects].map(([p, b]) => ["projects", p, b] as const),
  ];
  for (const [collection, path, body] of entries) {
    const vis = body.visibility;
    // A visibility from `${env:}` is known only once resolved; the platform then says whether it fits.
    if (!isPlainString(vis)) continue;
    const parentPath = path.split("/").slice(0, -1).join("/");
    const parent = parentPath ? byPath.get(parentPath.toLowerCase()) : undefined;
    const pvis = parent?.visibility;
    if (!isPlainString(pvis)) continue;
    if ((LEVEL_NAMES[vis] ?? 0) > (LEVEL_NAMES[pvis] ?? 0)) {
      diags.error(
        valueLoc(body, "visibility"),
        renderPath([collection, path, "visibility"]),
        `${vis} is not allowed since the ${collection === "groups" ? "parent group" : "project's group"} ${parentPath} is ${pvis}; use ${pvis} or less`,
      );
    }
  }
}

/** What `checkIdentities` remembers across bodies: fields an object shares wherever it is declared. */
export type SharedFields = Map<string, { values: Obj; at: Loc; label: string }>;

/**
 * Duplicate identities, from resolved values (run after interpolation): two entries of one collection with the same
 * identity are an error naming both places, whether written inline or read from `${file:}`, with or without a
 * key's comment. Fields an object has once on the platform (`x-shared-fields`: a deploy key's title) must agree
 * wherever the object is declared, across groups and projects. Messages show identities masked.
 */
export function checkIdentities(
  value: unknown,
  schema: JsonSchema,
  path: Path,
  ctx: RuleContext,
  shared: SharedFields,
): void {
  if (!isObj(value)) return;
  const { schemas, diags } = ctx;
  for (const { key, identity, itemSchema, singleton, prop } of rulesOf(schema, schemas)) {
    if (!Object.hasOwn(value, key)) continue;
    const v = value[key];
    if (itemSchema && Array.isArray(v)) {
      const sharedFields = (itemSchema["x-shared-fields"] as string[] | undefined) ?? [];
      const seen = new Map<string, Loc>();
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (!isObj(item)) continue;
        const itemPath = [...path, key, i];
        const id = identityOf(item, identity, key, itemSchema);
        if (id !== undefined && !id.unknown) {
          const first = seen.get(id.compare);
          const at = selfLoc(item);
          if (first) {
            diags.error(
              at,
              renderPath(itemPath),
              `duplicate ${key} entry "${id.label}" (identity: ${Array.isArray(identity) ? identity.join("#") : identity}); also declared at ${formatRef(first)}`,
            );
          } else {
            seen.set(id.compare, at);
            if (sharedFields.length > 0 && item["state"] !== "absent")
              checkShared(key, id, item, sharedFields, itemPath, shared, diags);
          }
        }
        checkIdentities(item, itemSchema, itemPath, ctx, shared);
      }
    } else if (singleton && isObj(v)) {
      checkIdentities(v, prop, [...path, key], ctx, shared);
    }
  }
}

function checkShared(
  collection: string,
  id: Identity,
  item: Obj,
  fields: string[],
  path: Path,
  shared: SharedFields,
  diags: Diagnostics,
): void {
  const slot = `${collection}\u0000${id.compare}`;
  const first = shared.get(slot);
  if (!first) {
    shared.set(slot, { values: item, at: selfLoc(item), label: id.label });
    return;
  }
  for (const f of fields) {
    const mine = item[f];
    const theirs = first.values[f];
    if (mine === undefined || theirs === undefined) continue;
    // Secrets compare by their values (their shown forms are all alike).
    const same = isSecret(mine) || isSecret(theirs) ? textOf(mine) === textOf(theirs) : mine === theirs;
    if (same) continue;
    const show = (x: unknown) => (isSecret(x) ? x.shown : JSON.stringify(x));
    diags.error(
      valueLoc(item, f),
      renderPath([...path, f]),
      `${collection} entry "${id.label}" is also declared at ${formatRef(first.at)} with ${f} ${show(theirs)}, here ${show(mine)}: the platform keeps one ${f} for it, shared by every project that uses it, so give it the same ${f} everywhere`,
    );
  }
}
