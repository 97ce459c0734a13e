/** Small helpers shared by kind files: API paths of a parent, field selection, secrets for request bodies. */
import { ApiError, apiPath } from "../api/index.js";
import { revealSecrets } from "../manifest/secret.js";
import type { Fields, Parent } from "./kind.js";

/** `/groups/:id` or `/projects/:id` for a group or project parent (the id encoded as one segment). */
export function ownerPath(parent: Parent): string {
  if (parent.ref === undefined) throw new Error(`${parent.address} does not exist yet`);
  if (parent.collection === "groups") return apiPath`/groups/${parent.ref}`;
  if (parent.collection === "projects") return apiPath`/projects/${parent.ref}`;
  throw new Error(`${parent.address} cannot own this kind`);
}

/** The nearest ancestor (or the parent itself) that is a project. */
export function projectOf(parent: Parent): Parent {
  for (let p: Parent | undefined = parent; p; p = p.parent) if (p.collection === "projects") return p;
  throw new Error(`${parent.address} is not inside a project`);
}

/** The prefix of the fields a manifest sets under `unchecked:` (settings newer than the schema), as plans name them. */
export const UNCHECKED = "unchecked.";

/**
 * The named fields that are set, secrets revealed: a request body. `unchecked.<name>` is sent as `<name>`, as the
 * manifest wrote it.
 */
export function body(fields: Fields, names?: Iterable<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names ?? Object.keys(fields)) {
    const sent = name.startsWith(UNCHECKED) ? name.slice(UNCHECKED.length) : name;
    if (fields[name] !== undefined) out[sent] = revealSecrets(fields[name]);
  }
  return out;
}

/** The body that creates an object: the fields its schema sends, and every `unchecked.<name>` the manifest sets. */
export function createBody(fields: Fields, sent: Iterable<string>): Record<string, unknown> {
  return body(fields, [...sent, ...Object.keys(fields).filter((name) => name.startsWith(UNCHECKED))]);
}

/** The `unchecked.<name>` fields of a live object: the named fields of the API object, as it gives them. */
export function uncheckedFields(item: Record<string, unknown>, names: readonly string[] | undefined): Fields {
  const out: Fields = {};
  for (const name of names ?? []) if (name in item) out[`${UNCHECKED}${name}`] = item[name];
  return out;
}

/** Picks the named keys of an API object. */
export function pick(raw: Record<string, unknown>, names: readonly string[]): Fields {
  return Object.fromEntries(names.filter((n) => n in raw).map((n) => [n, raw[n]]));
}

/** Resolves to undefined when the platform answers 404. */
export async function orNotFound<T>(request: Promise<T>): Promise<T | undefined> {
  try {
    return await request;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}
