/**
 * A kind as a declaration. The kind's JSON Schema is the one list of its fields: which are read back and compared,
 * which are sent, the shape a response must have, the types. A plain REST collection (list, create, update,
 * delete under its owner's path, identified by one field) is then just its name, owners, path and edition
 * (`restCollection`); a kind that deviates from that pattern keeps code only for its deviation, in hooks named for
 * what they do (`live` for how an API object reads in manifest terms, `create` where creating is more than a POST).
 * See docs/adding-a-kind.md.
 */
import { apiPath, type QueryValue, type Shape } from "../api/index.js";
import { body, createBody, ownerPath, pick, UNCHECKED, uncheckedFields } from "./common.js";
import type { FieldSpec } from "./fields.js";
import type { Fields, Kind, KindContext, Live, Parent, ReadOptions } from "./kind.js";
import { fieldSpecs, itemSchema } from "./schemas.js";

/** An object as the platform's API returns it. */
export type ApiObject = Record<string, unknown>;

/** What a kind's schema declares, read once. */
export interface KindSchema {
  specs: Map<string, FieldSpec>;
  /** The identity field (`x-identity`), when it is one field. */
  identity: string | undefined;
  /** The fields read back from the platform and compared, in the schema's order (no collections, instructions or write-only fields). */
  read: readonly string[];
  /** The fields sent when an object is created (write-only ones too; not those the platform takes on update only). */
  sent: readonly string[];
  /** The fields the platform takes on update only (`x-update-only`): sent in an update right after a create. */
  updateOnly: readonly string[];
  /**
   * The shape of an API object: `extra`'s own fields (an id, a path) first, then each read field with the schema's
   * type (required where the manifest requires it) or the type `extra` gives it (the API's differs).
   */
  shape(extra?: Shape): Shape;
}

/** The schema of the kind stored at `collection` under `parent` (`projects`, `badges`). */
export function kindSchema(parent: string, collection: string): KindSchema {
  const specs = fieldSpecs(parent, collection);
  const identity = itemSchema(parent, collection)?.["x-identity"];
  const own = [...specs.values()].filter((s) => !s.child && !s.local);
  const read = own.filter((s) => !s.writeOnly).map((s) => s.name);
  return {
    specs,
    identity: typeof identity === "string" ? identity : undefined,
    read,
    sent: own.filter((s) => !s.updateOnly).map((s) => s.name),
    updateOnly: own.filter((s) => s.updateOnly).map((s) => s.name),
    shape(extra = {}) {
      // What is not the schema's first (an id, a path: a response without them is checked for them first), then
      // the schema's fields, each with the type `extra` gives it, if it gives one.
      const shape: Record<string, Shape[string]> = {};
      for (const [name, type] of Object.entries(extra)) if (!read.includes(name)) shape[name] = type;
      for (const name of read) {
        const spec = specs.get(name)!;
        const type = extra[name] ?? (spec.type && (spec.required ? spec.type : (`${spec.type}?` as const)));
        if (type) shape[name] = type;
      }
      return shape;
    },
  };
}

/** The read options that keep the `unchecked:` fields `desired` sets (for what a create or update answers). */
export function unchecked(desired: Fields): ReadOptions {
  const names = Object.keys(desired)
    .filter((name) => name.startsWith(UNCHECKED))
    .map((name) => name.slice(UNCHECKED.length));
  return names.length > 0 ? { unchecked: names } : {};
}

/** Reads a schema once, on first use (the schemas are files read at run time). */
export function lazySchema(parent: string, collection: string): () => KindSchema {
  let schema: KindSchema | undefined;
  return () => {
    schema ??= kindSchema(parent, collection);
    return schema;
  };
}

/** What every plain REST collection does, for a kind's own hooks to reuse. */
export interface Rest {
  schema(): KindSchema;
  /** The response shape. */
  shape(): Shape;
  /** The collection's path under `parent`. */
  path(parent: Parent): string;
  /** One object's path. */
  itemPath(parent: Parent, id: string | number): string;
  /**
   * An API object as a live object (through the declaration's `live`), with the `unchecked:` fields the read asks
   * for (`options.unchecked`).
   */
  toLive(parent: Parent, item: ApiObject, options?: ReadOptions): Live;
  list(ctx: KindContext, parent: Parent): Promise<ApiObject[]>;
  post(ctx: KindContext, parent: Parent, payload: Fields): Promise<ApiObject>;
  put(ctx: KindContext, parent: Parent, id: string | number, payload: Fields): Promise<ApiObject>;
}

export interface RestDeclaration {
  collection: string;
  segment: string;
  parents: readonly string[];
  /**
   * The collection's path: below the owner's (`badges`: `/projects/:id/badges`), from the root (`/hooks`), or made
   * from the parent (a schedule's variables, under its project's schedule).
   */
  path: string | ((parent: Parent) => string);
  /** The field of an API object that is its id in paths: `id` (an integer) unless said otherwise. */
  id?: { field: string; type: "integer" | "string" };
  /** The platform has no update call: why, for the plan; a change is then a replacement. */
  noUpdate?: string;
  /** Query parameters of the list read. */
  query?: Record<string, QueryValue>;
  /** Fields of the API object beyond the schema's that the kind relies on, or whose type the API gives differently. */
  shape?: Shape;
  /**
   * Fields the API names otherwise than the manifest (`{ user: "username" }`): read, and checked in responses,
   * under the API's name.
   */
  apiNames?: Record<string, string>;
  /** How an API object reads in manifest terms, beyond the schema's fields as they are. */
  live?(parent: Parent, item: ApiObject, live: Live): Live;
}

/** The fields an API object names otherwise (`apiNames`), under the manifest's names. */
function inManifestTerms(item: ApiObject, apiNames: Record<string, string>): ApiObject {
  return Object.fromEntries(
    Object.entries(apiNames).flatMap(([name, api]) => (api in item ? [[name, item[api]]] : [])),
  );
}

/** The kind's own code, beside the plain collection's: any member of Kind overrides the generic one. */
export type Deviations = Partial<Omit<Kind, "collection" | "segment" | "parents">>;

/**
 * A plain REST collection: `GET path` (paginated), `POST path`, `PUT path/:id` with the changed fields,
 * `DELETE path/:id`; identified by the schema's `x-identity` field; the fields read and sent are the schema's.
 * `deviations` receives the generic pieces (`Rest`) and returns what this kind does otherwise.
 */
export function restCollection(decl: RestDeclaration, deviations?: (rest: Rest) => Deviations): Kind {
  const schema = lazySchema(decl.parents[0]!, decl.collection);
  const idField = decl.id?.field ?? "id";
  let shape: Shape | undefined;
  const rest: Rest = {
    schema,
    shape() {
      shape ??= Object.fromEntries(
        Object.entries(
          schema().shape({
            [idField]: decl.id?.type ?? "integer",
            ...(schema().identity ? { [schema().identity!]: "string" } : {}),
            ...decl.shape,
          }),
        ).map(([name, type]) => [decl.apiNames?.[name] ?? name, type]),
      );
      return shape;
    },
    path: (parent) =>
      typeof decl.path === "function"
        ? decl.path(parent)
        : decl.path.startsWith("/")
          ? decl.path
          : `${ownerPath(parent)}/${decl.path}`,
    itemPath: (parent, id) => `${rest.path(parent)}${apiPath`/${id}`}`,
    toLive(parent, raw, options) {
      const identity = schema().identity;
      const item = decl.apiNames ? { ...raw, ...inManifestTerms(raw, decl.apiNames) } : raw;
      const plain: Live = {
        key: String(identity ? item[identity] : item[idField]),
        id: item[idField] as string | number,
        fields: pick(item, schema().read),
      };
      const live = decl.live ? decl.live(parent, item, plain) : plain;
      if (!options?.unchecked?.length) return live;
      return { ...live, fields: { ...live.fields, ...uncheckedFields(item, options.unchecked) } };
    },
    list: (ctx, parent) =>
      ctx.api.list<ApiObject>(rest.path(parent), {
        shape: rest.shape(),
        ...(decl.query ? { query: decl.query } : {}),
      }),
    post: (ctx, parent, payload) =>
      ctx.api.post<ApiObject>(rest.path(parent), { body: payload, shape: rest.shape() }),
    put: (ctx, parent, id, payload) =>
      ctx.api.put<ApiObject>(rest.itemPath(parent, id), { body: payload, shape: rest.shape() }),
  };
  const kind: Kind = {
    collection: decl.collection,
    segment: decl.segment,
    parents: decl.parents,
    updateMode: decl.noUpdate ? "replace" : "update",
    ...(decl.noUpdate ? { replaceReason: decl.noUpdate } : {}),

    async read(ctx, parent, _wanted, options) {
      return (await rest.list(ctx, parent)).map((item) => rest.toLive(parent, item, options));
    },

    async create(ctx, parent, desired, key) {
      const identity = schema().identity;
      const payload = { ...createBody(desired, schema().sent), ...(identity ? { [identity]: key } : {}) };
      return rest.toLive(parent, await rest.post(ctx, parent, payload), unchecked(desired));
    },

    ...(decl.noUpdate
      ? {}
      : {
          async update(ctx: KindContext, parent: Parent, live: Live, desired: Fields, changed: string[]) {
            const updated = await rest.put(ctx, parent, live.id!, body(desired, changed));
            return rest.toLive(parent, updated, unchecked(desired));
          },
        }),

    async remove(ctx, parent, live) {
      await ctx.api.delete(rest.itemPath(parent, live.id!));
    },
  };
  return { ...kind, ...deviations?.(rest) };
}
