import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { FixtureHook } from "./app.js";
import {
  buildGroup,
  buildProject,
  type Errors,
  GROUP_SETTING_KEYS,
  insertGroup,
  insertProject,
  validateGroup,
  validateProject,
} from "./model.js";
import { applyExternalRules, type Store, VISIBILITIES, type Visibility } from "./store.js";

/**
 * The fixture: the state a fresh sandbox starts with (YAML or JSON; see src/sandbox/README.md).
 * It is applied only when the state file does not exist yet.
 */
export class FixtureError extends Error {
  override name = "FixtureError";
}

const LEVEL_NAMES: Record<string, number> = {
  guest: 10,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
};
const CORE_KEYS = new Set(["users", "groups", "projects"]);

export function loadFixtureFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new FixtureError(`sandbox: cannot read fixture ${path}: ${(error as Error).message}`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new FixtureError(`sandbox: fixture ${path} is not valid YAML or JSON: ${(error as Error).message}`);
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data)) {
    throw new FixtureError(
      `sandbox: fixture ${path} must be a mapping with keys such as users, groups, projects`,
    );
  }
  return data as Record<string, unknown>;
}

function obj(v: unknown, where: string, source: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new FixtureError(`sandbox: fixture ${source}: ${where} must be a mapping`);
  }
  return v as Record<string, unknown>;
}

function list(v: unknown, where: string, source: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new FixtureError(`sandbox: fixture ${source}: ${where} must be a list`);
  return v;
}

function str(v: unknown, where: string, source: string, fallback?: string): string {
  if (v === undefined || v === null) {
    if (fallback !== undefined) return fallback;
    throw new FixtureError(`sandbox: fixture ${source}: ${where} is required`);
  }
  if (typeof v !== "string" && typeof v !== "number") {
    throw new FixtureError(`sandbox: fixture ${source}: ${where} must be a string`);
  }
  return String(v);
}

function visibility(v: unknown, where: string, source: string): Visibility {
  const s = str(v, where, source, "private");
  if (!VISIBILITIES.includes(s as Visibility)) {
    throw new FixtureError(
      `sandbox: fixture ${source}: ${where} must be one of private, internal, public (got "${s}")`,
    );
  }
  return s as Visibility;
}

export function accessLevel(v: unknown, where: string, source: string): number {
  if (typeof v === "number" && [10, 20, 30, 40, 50].includes(v)) return v;
  if (typeof v === "string" && LEVEL_NAMES[v.toLowerCase()] !== undefined)
    return LEVEL_NAMES[v.toLowerCase()]!;
  throw new FixtureError(
    `sandbox: fixture ${source}: ${where} must be an access level (10, 20, 30, 40, 50 or guest, reporter, developer, maintainer, owner)`,
  );
}

function describeErrors(errors: Errors): string {
  return Object.entries(errors)
    .map(([k, v]) => `${k} ${v.join(", ")}`)
    .join("; ");
}

function applyMembers(
  store: Store,
  members: unknown,
  type: "group" | "project",
  id: number,
  where: string,
  source: string,
): void {
  if (members === undefined || members === null) return;
  const entries: [string, unknown][] = Array.isArray(members)
    ? members.map((m, i) => {
        const o = obj(m, `${where}.members[${i}]`, source);
        return [str(o["user"] ?? o["username"], `${where}.members[${i}].user`, source), o["access_level"]];
      })
    : Object.entries(obj(members, `${where}.members`, source));
  for (const [username, level] of entries) {
    const user = store.userByUsername(username);
    if (!user) {
      throw new FixtureError(
        `sandbox: fixture ${source}: ${where}.members names user "${username}", which is not in users`,
      );
    }
    store.setMember(type, id, user.id, accessLevel(level, `${where}.members.${username}`, source));
  }
}

/** Applies a fixture to an empty store: core keys here, every other key through a module's hook. */
export function applyFixture(
  store: Store,
  fixture: Record<string, unknown>,
  hooks: ReadonlyMap<string, FixtureHook>,
  source: string,
): void {
  for (const key of Object.keys(fixture)) {
    if (!CORE_KEYS.has(key) && !hooks.has(key)) {
      throw new FixtureError(
        `sandbox: fixture ${source}: top-level key "${key}" is not known (known: ${[...CORE_KEYS, ...hooks.keys()].join(", ")})`,
      );
    }
  }
  const seen = new Set<string>();
  list(fixture["users"], "users", source).forEach((raw, i) => {
    const u = obj(raw, `users[${i}]`, source);
    const username = str(u["username"], `users[${i}].username`, source);
    if (seen.has(username.toLowerCase())) {
      throw new FixtureError(`sandbox: fixture ${source}: user "${username}" is listed twice`);
    }
    seen.add(username.toLowerCase());
    const fields = {
      name: str(u["name"], `users[${i}].name`, source, username),
      email: str(u["email"], `users[${i}].email`, source, `${username}@example.com`),
      admin: u["admin"] === true,
      external: u["external"] === true,
      can_create_group: u["can_create_group"] !== false,
    };
    // The built-in users (root, sandbox-user) exist already; a fixture entry with their name adjusts them.
    const existing = store.userByUsername(username);
    const user = existing ? Object.assign(existing, fields) : store.createUser({ username, ...fields });
    applyExternalRules(user);
    if (u["token"] !== undefined)
      store.addToken(str(u["token"], `users[${i}].token`, source), user.id, "fixture");
  });
  list(fixture["groups"], "groups", source).forEach((raw, i) => {
    const g = obj(raw, `groups[${i}]`, source);
    const fullPath = str(g["path"] ?? g["full_path"], `groups[${i}].path`, source);
    const where = `groups[${i}] (${fullPath})`;
    const slash = fullPath.lastIndexOf("/");
    const parentPath = slash < 0 ? undefined : fullPath.slice(0, slash);
    const parent = parentPath === undefined ? undefined : store.groupByFullPath(parentPath);
    if (parentPath !== undefined && !parent) {
      throw new FixtureError(
        `sandbox: fixture ${source}: ${where}: parent group "${parentPath}" is not defined; list parents before children`,
      );
    }
    const path = fullPath.slice(slash + 1);
    const settings: Record<string, unknown> = {};
    for (const k of GROUP_SETTING_KEYS) if (g[k] !== undefined) settings[k] = g[k];
    const rec = buildGroup(store, {
      ...settings,
      name: str(g["name"], `${where}.name`, source, path),
      path,
      description: str(g["description"], `${where}.description`, source, ""),
      visibility: visibility(g["visibility"], `${where}.visibility`, source),
      parent_id: parent?.id ?? null,
    });
    const errors = validateGroup(store, rec);
    if (Object.keys(errors).length > 0)
      throw new FixtureError(`sandbox: fixture ${source}: ${where}: ${describeErrors(errors)}`);
    insertGroup(store, rec);
    applyMembers(store, g["members"], "group", rec.id, where, source);
  });
  list(fixture["projects"], "projects", source).forEach((raw, i) => {
    const p = obj(raw, `projects[${i}]`, source);
    const fullPath = str(p["path"] ?? p["full_path"], `projects[${i}].path`, source);
    const where = `projects[${i}] (${fullPath})`;
    const slash = fullPath.lastIndexOf("/");
    if (slash < 0)
      throw new FixtureError(`sandbox: fixture ${source}: ${where}: path must be namespace/project`);
    const nsPath = fullPath.slice(0, slash);
    const nsId = store.groupByFullPath(nsPath)?.id ?? store.userByUsername(nsPath)?.namespace_id;
    if (nsId === undefined) {
      throw new FixtureError(
        `sandbox: fixture ${source}: ${where}: namespace "${nsPath}" is neither a listed group nor a user`,
      );
    }
    const creator = store.data.users.find((u) => u.admin) ?? store.data.users[0];
    const rec = buildProject(store, {
      name: str(p["name"], `${where}.name`, source, fullPath.slice(slash + 1)),
      path: fullPath.slice(slash + 1),
      namespace_id: nsId,
      creator_id: creator?.id ?? 1,
      description: str(p["description"], `${where}.description`, source, ""),
      visibility: visibility(p["visibility"], `${where}.visibility`, source),
      default_branch:
        p["default_branch"] === undefined
          ? "main"
          : str(p["default_branch"], `${where}.default_branch`, source),
      archived: p["archived"] === true,
    });
    const errors = validateProject(store, rec);
    if (Object.keys(errors).length > 0)
      throw new FixtureError(`sandbox: fixture ${source}: ${where}: ${describeErrors(errors)}`);
    insertProject(store, rec);
    applyMembers(store, p["members"], "project", rec.id, where, source);
    if (p["shared_with"] !== undefined && p["shared_with"] !== null) {
      for (const [groupPath, level] of Object.entries(
        obj(p["shared_with"], `${where}.shared_with`, source),
      )) {
        const g = store.groupByFullPath(groupPath);
        if (!g) {
          throw new FixtureError(
            `sandbox: fixture ${source}: ${where}.shared_with names group "${groupPath}", which is not in groups`,
          );
        }
        const access = accessLevel(level, `${where}.shared_with.${groupPath}`, source);
        rec.shared_with_groups.push({ group_id: g.id, group_access_level: access, expires_at: null });
      }
    }
  });
  for (const [key, hook] of hooks) {
    if (fixture[key] !== undefined) hook(fixture[key], { store, source });
  }
}
