import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ProjectSettings } from "./project-settings.js";

export type Visibility = "private" | "internal" | "public";
export const VISIBILITIES: readonly Visibility[] = ["private", "internal", "public"];
export const VISIBILITY_LEVEL: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

export interface UserRec {
  id: number;
  username: string;
  name: string;
  email: string;
  state: "active" | "blocked" | "deactivated";
  admin: boolean;
  created_at: string;
  confirmed_at: string | null;
  bio: string | null;
  location: string | null;
  public_email: string;
  skype: string;
  linkedin: string;
  twitter: string;
  website_url: string;
  organization: string | null;
  projects_limit: number;
  can_create_group: boolean;
  external: boolean;
  private_profile: boolean | null;
  /** The user's personal namespace id (shares the namespace id sequence with groups). */
  namespace_id: number;
  identities: { provider: string; extern_uid: string; saml_provider_id: number | null }[];
}

export interface GroupRec {
  id: number;
  name: string;
  path: string;
  description: string;
  visibility: Visibility;
  parent_id: number | null;
  created_at: string;
  share_with_group_lock: boolean;
  require_two_factor_authentication: boolean;
  two_factor_grace_period: number;
  project_creation_level: "noone" | "maintainer" | "developer";
  auto_devops_enabled: boolean | null;
  subgroup_creation_level: "owner" | "maintainer";
  emails_disabled: boolean | null;
  mentions_disabled: boolean | null;
  lfs_enabled: boolean;
  default_branch_protection: number;
  request_access_enabled: boolean;
  file_template_project_id: number | null;
  shared_runners_minutes_limit: number | null;
  extra_shared_runners_minutes_limit: number | null;
  membership_lock: boolean;
  runners_token: string;
  /** Groups this group is shared with (group links). */
  shared_with_groups: { group_id: number; group_access_level: number; expires_at: string | null }[];
}

export interface ProjectRec {
  id: number;
  name: string;
  path: string;
  namespace_id: number;
  description: string | null;
  visibility: Visibility;
  default_branch: string | null;
  created_at: string;
  last_activity_at: string;
  archived: boolean;
  creator_id: number;
  tag_list: string[];
  issues_enabled: boolean;
  merge_requests_enabled: boolean;
  wiki_enabled: boolean;
  jobs_enabled: boolean;
  snippets_enabled: boolean;
  container_registry_enabled: boolean;
  shared_runners_enabled: boolean;
  public_jobs: boolean;
  request_access_enabled: boolean;
  star_count: number;
  forks_count: number;
  open_issues_count: number;
  /** Groups the project is shared with. */
  shared_with_groups: { group_id: number; group_access_level: number; expires_at: string | null }[];
  /** Settings beyond the fields above (see `model.ts`); absent ones have the platform's defaults. */
  settings?: Partial<ProjectSettings>;
  /** How an import into the project ended (`routes/project-import-export.ts`); absent: not imported. */
  import_status?: "finished" | "failed";
}

export interface MemberRec {
  source_type: "group" | "project";
  source_id: number;
  user_id: number;
  access_level: number;
  expires_at: string | null;
  created_at: string;
}

/** A personal access token, kept as its SHA-256 only: the state file never holds a token in clear. */
export interface TokenRec {
  token_sha256: string;
  user_id: number;
  name: string;
}

function memberKey(sourceType: MemberRec["source_type"], sourceId: number, userId: number): string {
  return `${sourceType}:${sourceId}:${userId}`;
}

export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * The platform's rule for external users (`User#ensure_user_rights_and_limits`, run when a user is created or its
 * `external` flag changes): an external user may not create groups and has a projects limit of 0, so no personal
 * projects. It may still create projects and subgroups inside groups where its role allows.
 */
export function applyExternalRules(user: UserRec): void {
  if (!user.external) return;
  user.can_create_group = false;
  user.projects_limit = 0;
}

export interface StateData {
  format: "forgeform-sandbox-state";
  version: 1;
  seq: Record<string, number>;
  users: UserRec[];
  tokens: TokenRec[];
  groups: GroupRec[];
  projects: ProjectRec[];
  members: MemberRec[];
  /** Per-area tables of route modules (see {@link Store.area}). */
  areas: Record<string, unknown>;
}

export function emptyState(): StateData {
  return {
    format: "forgeform-sandbox-state",
    version: 1,
    seq: {},
    users: [],
    tokens: [],
    groups: [],
    projects: [],
    members: [],
    areas: {},
  };
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/** A type a state file's field must have, and how it is named in the error. */
interface FieldCheck {
  readonly what: string;
  readonly test: (v: unknown) => boolean;
}

const INTEGER: FieldCheck = { what: "an integer", test: (v) => Number.isSafeInteger(v) };
const STRING: FieldCheck = { what: "a string", test: (v) => typeof v === "string" };
const BOOLEAN: FieldCheck = { what: "true or false", test: (v) => typeof v === "boolean" };
const nullable = (c: FieldCheck): FieldCheck => ({
  what: `${c.what} or null`,
  test: (v) => v === null || c.test(v),
});
const oneOf = (...values: string[]): FieldCheck => ({
  what: `one of ${values.map((x) => JSON.stringify(x)).join(", ")}`,
  test: (v) => values.includes(v as string),
});

/** Field -> check; a field named with a trailing `?` may be absent (state files written by older versions). */
type RecordSpec = Readonly<Record<string, FieldCheck>>;

const listOf = (spec: RecordSpec): FieldCheck => ({
  what: "a list of records",
  test: (v) => Array.isArray(v) && v.every((item) => recordProblem(item, spec) === undefined),
});

const SHARES = listOf({ group_id: INTEGER, group_access_level: INTEGER, "expires_at?": nullable(STRING) });

/** The fields of each record the sandbox relies on, with their types. */
const RECORDS: Readonly<Record<"users" | "tokens" | "groups" | "projects" | "members", RecordSpec>> = {
  users: {
    id: INTEGER,
    username: STRING,
    name: STRING,
    email: STRING,
    state: oneOf("active", "blocked", "deactivated"),
    admin: BOOLEAN,
    namespace_id: INTEGER,
    "external?": BOOLEAN,
    "identities?": listOf({ provider: STRING, extern_uid: STRING, "saml_provider_id?": nullable(INTEGER) }),
  },
  tokens: { user_id: INTEGER, "token_sha256?": STRING, "token?": STRING, "name?": STRING },
  groups: {
    id: INTEGER,
    name: STRING,
    path: STRING,
    parent_id: nullable(INTEGER),
    visibility: oneOf(...VISIBILITIES),
    "description?": nullable(STRING),
    "shared_with_groups?": SHARES,
  },
  projects: {
    id: INTEGER,
    name: STRING,
    path: STRING,
    namespace_id: INTEGER,
    visibility: oneOf(...VISIBILITIES),
    "archived?": BOOLEAN,
    "tag_list?": { what: "a list of strings", test: (v) => Array.isArray(v) && v.every(STRING.test) },
    "shared_with_groups?": SHARES,
    "settings?": { what: "an object", test: isRecord },
  },
  members: {
    source_type: oneOf("group", "project"),
    source_id: INTEGER,
    user_id: INTEGER,
    access_level: INTEGER,
  },
};

/** What is wrong with one record, as `.field must be ...`, if anything. */
function recordProblem(item: unknown, spec: RecordSpec): string | undefined {
  if (!isRecord(item)) return " must be a record (a JSON object)";
  for (const [key, check] of Object.entries(spec)) {
    const optional = key.endsWith("?");
    const field = optional ? key.slice(0, -1) : key;
    const value = item[field];
    if (value === undefined && optional) continue;
    if (!check.test(value))
      return `.${field} must be ${check.what}, not ${JSON.stringify(value) ?? "missing"}`;
  }
  return undefined;
}

/** A group whose parents do not lead to a top-level group (a missing parent, or a cycle), if any. */
function brokenParents(groups: readonly GroupRec[]): string | undefined {
  const byId = new Map(groups.map((g) => [g.id, g]));
  for (const [i, g] of groups.entries()) {
    let cur: GroupRec | undefined = g;
    for (let steps = 0; cur && cur.parent_id !== null; steps++) {
      cur = byId.get(cur.parent_id);
      if (!cur) return `"groups"[${i}].parent_id leads to a group that does not exist`;
      if (steps > groups.length) return `"groups"[${i}].parent_id leads round in a cycle`;
    }
  }
  return undefined;
}

/**
 * What is wrong with the shape of a parsed state file, if anything: the lists and the fields of each record that
 * the sandbox relies on, the id sequences, and the group tree. The route modules' own tables (`areas`) must be
 * objects; their rows are the modules' own.
 */
function shapeProblem(d: Partial<StateData>): string | undefined {
  if (!isRecord(d.seq) && d.seq !== undefined) return '"seq" must be an object';
  for (const [name, n] of Object.entries(d.seq ?? {})) {
    if (!Number.isSafeInteger(n) || (n as number) < 0) return `"seq".${name} must be a whole number`;
  }
  if (!isRecord(d.areas) && d.areas !== undefined) return '"areas" must be an object';
  for (const [name, table] of Object.entries(d.areas ?? {})) {
    if (!isRecord(table)) return `"areas".${name} must be an object`;
  }
  for (const [key, spec] of Object.entries(RECORDS)) {
    const list = d[key as keyof typeof RECORDS] as unknown;
    if (list === undefined && (key === "tokens" || key === "members")) continue;
    if (!Array.isArray(list)) return `"${key}" must be a list`;
    for (const [i, item] of list.entries()) {
      const problem = recordProblem(item, spec);
      if (problem) return `"${key}"[${i}]${problem}`;
      if (key === "tokens" && typeof item.token_sha256 !== "string" && typeof item.token !== "string") {
        return `"tokens"[${i}] must have a token_sha256`;
      }
    }
  }
  return brokenParents(d.groups ?? []);
}

/** Where JSON.parse stopped, as `line L, column C (<what>)`. */
function jsonErrorPlace(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const m = /at position (\d+)/.exec(message);
  const offset = m ? Number(m[1]) : text.length;
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  const what = m ? message.replace(/\s*in JSON at position \d+.*$/, "").trim() : "the file ends early";
  return `line ${line}, column ${column} (${what})`;
}

export class StateFileError extends Error {
  override name = "StateFileError";
}

/** Random lowercase alphanumeric string (tokens, runner tokens). */
export function randomToken(length = 20): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const bytes = randomBytes(length);
  let s = "";
  for (const b of bytes) s += alphabet[b % alphabet.length];
  return s;
}

/**
 * An index over one of the state's arrays (records are added with push and removed with filter, which makes a new
 * array): lookups that were a linear find cost one Map read, which keeps the sandbox fast with thousands of records.
 * Records pushed since the last lookup are added to the index; a replaced array, or one whose last indexed record
 * is no longer where it was (something removed in place), is indexed afresh. Keys that change without the array
 * changing (a full path after a rename) are checked by the caller on a hit, and a miss falls back to the linear find.
 */
class ArrayIndex<T, K> {
  #of: readonly T[] | undefined;
  #length = 0;
  #last: T | undefined;
  #map = new Map<K, T>();

  constructor(private readonly keyOf: (record: T) => K) {}

  get(array: readonly T[], key: K): T | undefined {
    this.#sync(array);
    return this.#map.get(key);
  }

  #sync(array: readonly T[]): void {
    const intact =
      array === this.#of &&
      array.length >= this.#length &&
      (this.#length === 0 || array[this.#length - 1] === this.#last);
    if (!intact) {
      this.#map = new Map();
      this.#length = 0;
      this.#of = array;
    }
    for (let i = this.#length; i < array.length; i++) {
      const record = array[i]!;
      const k = this.keyOf(record);
      if (!this.#map.has(k)) this.#map.set(k, record);
    }
    this.#length = array.length;
    this.#last = array[array.length - 1];
  }

  /** Forgets the index: the next lookup rebuilds it. */
  clear(): void {
    this.#of = undefined;
  }
}

/**
 * The sandbox's state: users, groups, projects, namespaces, memberships, and an `areas` record where each
 * route module keeps its own tables. Everything is plain JSON so it persists as one file.
 */
export class Store {
  readonly #groupsById = new ArrayIndex<GroupRec, number>((g) => g.id);
  readonly #groupsByPath = new ArrayIndex<GroupRec, string>((g) => this.groupFullPath(g).toLowerCase());
  readonly #projectsById = new ArrayIndex<ProjectRec, number>((p) => p.id);
  readonly #projectsByPath = new ArrayIndex<ProjectRec, string>((p) => this.projectFullPath(p).toLowerCase());
  readonly #members = new ArrayIndex<MemberRec, string>((m) =>
    memberKey(m.source_type, m.source_id, m.user_id),
  );
  data: StateData;
  readonly statePath: string | undefined;
  private readonly clockFn: () => Date;
  /** The state file's text as last written: what {@link rollback} puts back. */
  #saved: string | undefined;

  constructor(opts: { statePath?: string; clock?: () => Date; data?: StateData } = {}) {
    this.statePath = opts.statePath;
    this.clockFn = opts.clock ?? (() => new Date());
    this.data = opts.data ?? emptyState();
  }

  /** Loads the state file if it exists. A file that is not valid state is an error, never replaced. */
  static load(statePath: string, clock?: () => Date): { store: Store; loaded: boolean } {
    if (!existsSync(statePath)) return { store: new Store({ statePath, clock }), loaded: false };
    const text = readFileSync(statePath, "utf8");
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new StateFileError(
        `sandbox: state file ${statePath} is not valid JSON at ${jsonErrorPlace(text, error)}; move it away or fix it`,
      );
    }
    const d = parsed as Partial<StateData> | null;
    if (
      !d ||
      typeof d !== "object" ||
      d.format !== "forgeform-sandbox-state" ||
      d.version !== 1 ||
      !Array.isArray(d.users) ||
      !Array.isArray(d.groups) ||
      !Array.isArray(d.projects)
    ) {
      throw new StateFileError(
        `sandbox: state file ${statePath} is not a forgeform sandbox state (expected "format": "forgeform-sandbox-state", "version": 1); move it away or fix it`,
      );
    }
    const problem = shapeProblem(d);
    if (problem) {
      throw new StateFileError(
        `sandbox: state file ${statePath} is not a forgeform sandbox state (${problem}); move it away or fix it`,
      );
    }
    const data: StateData = { ...emptyState(), ...(d as StateData) };
    // State written before tokens were hashed: hash them now (the next write leaves no token in clear).
    data.tokens = (data.tokens as (TokenRec & { token?: unknown })[]).map((t) =>
      typeof t.token === "string"
        ? { token_sha256: tokenDigest(t.token), user_id: t.user_id, name: t.name }
        : t,
    );
    // A file written before the sandbox applied the platform's rule for external users.
    for (const user of data.users) applyExternalRules(user);
    return { store: new Store({ statePath, clock, data }), loaded: true };
  }

  /**
   * Writes the state atomically (temp file + rename). No-op without a state path. Throws a {@link StateFileError}
   * when it cannot (the directory is gone or not writable, the disk is full, the state is too large to write): the
   * file then still holds the state as last written, which {@link rollback} puts back in memory.
   */
  persist(): void {
    if (!this.statePath) return;
    const tmp = join(
      dirname(this.statePath),
      `.${Date.now()}-${process.pid}-${randomToken(6)}.sandbox-state.tmp`,
    );
    try {
      const text = `${JSON.stringify(this.data, null, 1)}\n`;
      // Owner-only: the state holds the instance's data (and token digests).
      writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
      renameSync(tmp, this.statePath);
      this.#saved = text;
    } catch (error) {
      try {
        rmSync(tmp, { force: true });
      } catch {
        // Nothing more can be done about a temporary file that cannot be removed; the state file is untouched.
      }
      const code = (error as NodeJS.ErrnoException).code;
      const hint =
        code === "ENOENT"
          ? `the directory ${dirname(this.statePath)} does not exist; create it or choose another state file`
          : code === "EACCES" || code === "EPERM"
            ? `permission denied in ${dirname(this.statePath)}; choose a writable location`
            : (error as Error).message;
      throw new StateFileError(`sandbox: cannot write state file ${this.statePath}: ${hint}`);
    }
  }

  /**
   * Puts back the state as last written by {@link persist}, dropping every change made in memory since: what a
   * write request whose state could not be saved leaves behind. False (and nothing changes) when nothing was written
   * yet (no state path).
   */
  rollback(): boolean {
    if (this.#saved === undefined) return false;
    this.data = JSON.parse(this.#saved) as StateData;
    return true;
  }

  /**
   * Makes `token` the token given at start to a built-in user (`name`: `admin` for root, `user` for sandbox-user):
   * the tokens given to that user at earlier starts stop working, so restarting with another token (or without
   * one: a new random token) revokes the old one. Tokens from the fixture are not start tokens and stay.
   */
  setStartToken(token: string, userId: number, name: "admin" | "user"): void {
    this.data.tokens = this.data.tokens.filter((t) => !(t.user_id === userId && t.name === name));
    this.addToken(token, userId, name);
  }

  /** The current time (injectable for tests). */
  now(): Date {
    return this.clockFn();
  }

  /** The current time as the platform formats datetimes. */
  nowIso(): string {
    return this.clockFn().toISOString();
  }

  /** Next id of a sequence (`"groups"`, `"projects"`, `"pipeline_schedules"`, ...), starting at 1. */
  nextId(sequence: string): number {
    const n = (this.data.seq[sequence] ?? 0) + 1;
    this.data.seq[sequence] = n;
    return n;
  }

  /**
   * A route module's own tables, created by `init` on first use and persisted with everything else.
   * Keep the contents plain JSON (no Maps, Dates or class instances).
   */
  area<T extends object>(name: string, init: () => T): T {
    const existing = this.data.areas[name];
    if (existing !== undefined) return existing as T;
    const fresh = init();
    this.data.areas[name] = fresh;
    return fresh;
  }

  // ---- users ----
  user(id: number): UserRec | undefined {
    return this.data.users.find((u) => u.id === id);
  }

  userByUsername(username: string): UserRec | undefined {
    const lower = username.toLowerCase();
    return this.data.users.find((u) => u.username.toLowerCase() === lower);
  }

  /** `find_user`: digits are an id, anything else a username. */
  userByIdOrUsername(ref: string): UserRec | undefined {
    return /^\d+$/.test(ref) ? this.user(Number(ref)) : this.userByUsername(ref);
  }

  userByToken(token: string): UserRec | undefined {
    const digest = tokenDigest(token);
    const t = this.data.tokens.find((x) => x.token_sha256 === digest);
    return t ? this.user(t.user_id) : undefined;
  }

  addToken(token: string, userId: number, name = "sandbox"): void {
    const digest = tokenDigest(token);
    this.data.tokens = this.data.tokens.filter((t) => t.token_sha256 !== digest);
    this.data.tokens.push({ token_sha256: digest, user_id: userId, name });
  }

  createUser(input: {
    username: string;
    name: string;
    email: string;
    admin?: boolean;
    can_create_group?: boolean;
    external?: boolean;
    projects_limit?: number;
    bio?: string | null;
    location?: string | null;
    organization?: string | null;
    skype?: string;
    linkedin?: string;
    twitter?: string;
    website_url?: string;
    private_profile?: boolean | null;
    confirmed?: boolean;
  }): UserRec {
    const now = this.nowIso();
    const user: UserRec = {
      id: this.nextId("users"),
      username: input.username,
      name: input.name,
      email: input.email,
      state: "active",
      admin: input.admin ?? false,
      created_at: now,
      confirmed_at: input.confirmed === false ? null : now,
      bio: input.bio ?? null,
      location: input.location ?? null,
      public_email: "",
      skype: input.skype ?? "",
      linkedin: input.linkedin ?? "",
      twitter: input.twitter ?? "",
      website_url: input.website_url ?? "",
      organization: input.organization ?? null,
      projects_limit: input.projects_limit ?? 100000,
      can_create_group: input.can_create_group ?? true,
      external: input.external ?? false,
      private_profile: input.private_profile ?? null,
      namespace_id: this.nextId("namespaces"),
      identities: [],
    };
    applyExternalRules(user);
    this.data.users.push(user);
    return user;
  }

  // ---- groups ----
  group(id: number): GroupRec | undefined {
    return this.#groupsById.get(this.data.groups, id);
  }

  groupFullPath(g: GroupRec): string {
    const parts: string[] = [];
    let cur: GroupRec | undefined = g;
    while (cur) {
      parts.unshift(cur.path);
      cur = cur.parent_id === null ? undefined : this.group(cur.parent_id);
    }
    return parts.join("/");
  }

  groupFullName(g: GroupRec): string {
    return this.ancestorsAndSelf(g)
      .map((x) => x.name)
      .join(" / ");
  }

  /** Root first, `g` last. */
  ancestorsAndSelf(g: GroupRec): GroupRec[] {
    const out: GroupRec[] = [];
    let cur: GroupRec | undefined = g;
    while (cur) {
      out.unshift(cur);
      cur = cur.parent_id === null ? undefined : this.group(cur.parent_id);
    }
    return out;
  }

  /** All groups below `g` (not `g` itself). */
  descendants(g: GroupRec): GroupRec[] {
    const children = new Map<number, GroupRec[]>();
    for (const c of this.data.groups) {
      if (c.parent_id === null) continue;
      const list = children.get(c.parent_id);
      if (list) list.push(c);
      else children.set(c.parent_id, [c]);
    }
    const out: GroupRec[] = [];
    const walk = (id: number) => {
      for (const c of children.get(id) ?? []) {
        out.push(c);
        walk(c.id);
      }
    };
    walk(g.id);
    return out;
  }

  /** Case-insensitive full-path lookup. */
  groupByFullPath(fullPath: string): GroupRec | undefined {
    const lower = fullPath.toLowerCase();
    const indexed = this.#groupsByPath.get(this.data.groups, lower);
    if (indexed && this.groupFullPath(indexed).toLowerCase() === lower) return indexed;
    const found = this.data.groups.find((g) => this.groupFullPath(g).toLowerCase() === lower);
    // Found only by the linear find: a group was renamed or moved since the index was built.
    if (found || indexed) this.#groupsByPath.clear();
    return found;
  }

  /** §4: digits are an id (so an all-digit path is reachable only by id), anything else a full path. */
  groupByRef(ref: string): GroupRec | undefined {
    return /^\d+$/.test(ref) ? this.group(Number(ref)) : this.groupByFullPath(ref);
  }

  // ---- namespaces (groups and users' personal namespaces) ----
  namespaceFullPath(namespaceId: number): string | undefined {
    const g = this.group(namespaceId);
    if (g) return this.groupFullPath(g);
    return this.data.users.find((u) => u.namespace_id === namespaceId)?.username;
  }

  userByNamespace(namespaceId: number): UserRec | undefined {
    return this.data.users.find((u) => u.namespace_id === namespaceId);
  }

  // ---- projects ----
  project(id: number): ProjectRec | undefined {
    return this.#projectsById.get(this.data.projects, id);
  }

  projectFullPath(p: ProjectRec): string {
    return `${this.namespaceFullPath(p.namespace_id) ?? "?"}/${p.path}`;
  }

  projectByFullPath(fullPath: string): ProjectRec | undefined {
    const lower = fullPath.toLowerCase();
    const indexed = this.#projectsByPath.get(this.data.projects, lower);
    if (indexed && this.projectFullPath(indexed).toLowerCase() === lower) return indexed;
    const found = this.data.projects.find((p) => this.projectFullPath(p).toLowerCase() === lower);
    // Found only by the linear find: a project (or a group above it) was renamed or moved since the index was built.
    if (found || indexed) this.#projectsByPath.clear();
    return found;
  }

  /** §4: digits are an id; a string with `/` a full path; anything else finds nothing. */
  projectByRef(ref: string): ProjectRec | undefined {
    if (/^\d+$/.test(ref)) return this.project(Number(ref));
    if (ref.includes("/")) return this.projectByFullPath(ref);
    return undefined;
  }

  /**
   * How many more personal projects `user` may create (`User#projects_limit_left`): the projects limit less the
   * projects in the user's own namespace. Projects in groups do not count.
   */
  projectsLimitLeft(user: UserRec): number {
    return user.projects_limit - this.projectsIn(user.namespace_id).length;
  }

  /** Projects directly in a namespace. */
  projectsIn(namespaceId: number): ProjectRec[] {
    return this.data.projects.filter((p) => p.namespace_id === namespaceId);
  }

  // ---- membership ----
  member(sourceType: "group" | "project", sourceId: number, userId: number): MemberRec | undefined {
    return this.#members.get(this.data.members, memberKey(sourceType, sourceId, userId));
  }

  members(sourceType: "group" | "project", sourceId: number): MemberRec[] {
    return this.data.members.filter((m) => m.source_type === sourceType && m.source_id === sourceId);
  }

  setMember(
    sourceType: "group" | "project",
    sourceId: number,
    userId: number,
    accessLevel: number,
  ): MemberRec {
    const existing = this.member(sourceType, sourceId, userId);
    if (existing) {
      existing.access_level = accessLevel;
      return existing;
    }
    const m: MemberRec = {
      source_type: sourceType,
      source_id: sourceId,
      user_id: userId,
      access_level: accessLevel,
      expires_at: null,
      created_at: this.nowIso(),
    };
    this.data.members.push(m);
    return m;
  }

  removeMember(sourceType: "group" | "project", sourceId: number, userId: number): boolean {
    const before = this.data.members.length;
    this.data.members = this.data.members.filter(
      (m) => !(m.source_type === sourceType && m.source_id === sourceId && m.user_id === userId),
    );
    return this.data.members.length !== before;
  }

  /** Removes a project and its memberships. Route modules keep their own rows keyed by project id. */
  removeProject(id: number): void {
    this.data.projects = this.data.projects.filter((p) => p.id !== id);
    this.data.members = this.data.members.filter((m) => !(m.source_type === "project" && m.source_id === id));
  }

  /** Removes a group, its subgroups, their projects and memberships. */
  removeGroup(id: number): void {
    const g = this.group(id);
    if (!g) return;
    const ids = new Set([g.id, ...this.descendants(g).map((d) => d.id)]);
    for (const p of this.data.projects.filter((x) => ids.has(x.namespace_id))) this.removeProject(p.id);
    this.data.groups = this.data.groups.filter((x) => !ids.has(x.id));
    this.data.members = this.data.members.filter((m) => !(m.source_type === "group" && ids.has(m.source_id)));
    for (const p of this.data.projects)
      p.shared_with_groups = p.shared_with_groups.filter((s) => !ids.has(s.group_id));
    for (const x of this.data.groups)
      x.shared_with_groups = x.shared_with_groups.filter((s) => !ids.has(s.group_id));
  }
}
