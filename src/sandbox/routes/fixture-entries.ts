import { FixtureError } from "../fixture.js";
import type { GroupRec, ProjectRec, Store } from "../store.js";

/**
 * Reading a list-valued fixture key whose entries belong to a project or a group (`project: acme/api` or
 * `group: acme`), for routes/hooks.ts, routes/protected-refs.ts and routes/deploy-tokens.ts. Errors name the key,
 * the entry's index and the field: `sandbox: fixture f.yaml: project_hooks[2].url must be an http(s) URL`.
 */
export interface FixtureEntry {
  /** The entry, a mapping. */
  e: Record<string, unknown>;
  /** `[i]`, for messages. */
  where: string;
  /** An error about `field` of this entry (or the entry itself when `field` is empty). */
  fail(field: string, message: string): FixtureError;
}

/** The entries of `value` (which must be a list of mappings) under the fixture key `key`. */
export function fixtureEntries(value: unknown, key: string, source: string): FixtureEntry[] {
  const error = (where: string, message: string) =>
    new FixtureError(`sandbox: fixture ${source}: ${key}${where} ${message}`);
  if (!Array.isArray(value)) throw error("", "must be a list");
  return value.map((raw, i) => {
    const where = `[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw error(where, "must be a mapping");
    return {
      e: raw as Record<string, unknown>,
      where,
      fail: (field, message) => error(field ? `${where}.${field}` : where, message),
    };
  });
}

/** The project an entry names with `project:` (a full path). */
export function fixtureProject(store: Store, entry: FixtureEntry): ProjectRec {
  const path = entry.e["project"];
  if (typeof path !== "string") throw entry.fail("project", "must be a project full path");
  const project = store.projectByFullPath(path);
  if (!project) throw entry.fail("project", `names "${path}", which is not in projects`);
  return project;
}

/** The group an entry names with `group:` (a full path). */
export function fixtureGroup(store: Store, entry: FixtureEntry): GroupRec {
  const path = entry.e["group"];
  if (typeof path !== "string") throw entry.fail("group", "must be a group full path");
  const group = store.groupByFullPath(path);
  if (!group) throw entry.fail("group", `names "${path}", which is not in groups`);
  return group;
}

/** An optional boolean field: its value, `fallback` when absent; anything else is an error. */
export function fixtureFlag(entry: FixtureEntry, field: string, fallback: boolean): boolean {
  const v = entry.e[field];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "boolean") throw entry.fail(field, "must be true or false");
  return v;
}
