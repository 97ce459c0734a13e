import type { Ctx, GroupExportRelation, SandboxApp } from "../app.js";
import { ACCESS, authenticateNonGet, authorizeGroup, findGroup, requireAuth } from "../auth.js";
import { badRequest, HttpError } from "../errors.js";
import { buildGroup, type GroupSettings, insertGroup, validateGroup } from "../model.js";
import { nestsDeeperThan } from "../request.js";
import { accepted, raw } from "../respond.js";
import { type GroupRec, type Store, type UserRec, VISIBILITIES, VISIBILITY_LEVEL } from "../store.js";
import { ArchiveError, readTarGzAsync, type TarFile, writeTarGz } from "../tar.js";
import { createGroup, creationParent, detail } from "./groups.js";
import { platformVersion, SANDBOX_REVISION } from "./version.js";

/**
 * Group export and import (contract "Groups": `POST /groups/:id/export`, `GET /groups/:id/export/download`,
 * `POST /groups/import`; "Group export/import": milestones, boards, labels, badges, members and subgroups).
 *
 * The archive is the platform's (13.x NDJSON layout, `Gitlab::ImportExport::Group::TreeSaver`; the contract and
 * platform-behavior.md do not describe it): a tar.gz of
 *
 * ```
 * ./VERSION                              0.2.4, the import/export format version
 * ./GITLAB_VERSION, ./GITLAB_REVISION
 * ./tree/groups/_all.ndjson              the ids of the group and its subgroups, one a line, parents first
 * ./tree/groups/<id>.json                the group's attributes, in the platform's column names
 * ./tree/groups/<id>/<relation>.ndjson   milestones, badges, labels, boards, members: one JSON object a line
 * ```
 *
 * - Export: Owner of the group; `POST` answers 202 and the archive is ready at once (the platform prepares it in the
 *   background); `download` is 404 `Not found or has expired` until then. Route modules add their tables with
 *   `app.onGroupExport` (milestones.ts, badges.ts, labels.ts); members are written here, each with `user: {id,
 *   email, username}`. The sandbox has no boards (the contract has no endpoints for them): a group has none of its
 *   own; of those an imported archive carries, the fields the platform imports are kept (no ids, no unknown keys:
 *   `BOARD_FIELDS`) and written again by later exports.
 * - Import (`multipart`: name, path, file, parent_id): the caller needs `create_group`, or `create_subgroup` on the
 *   parent (403), then the whole archive is read and checked before anything is stored. Where the platform would
 *   fail the import in the background, the sandbox answers 400 `Failed to import group: <file>: <reason>` and
 *   stores nothing: not gzip, not tar, entries with absolute or `..` paths, links, no `tree/groups/_all.ndjson`
 *   ("The import file is incompatible"), a `VERSION` other than 0.2.4, unreadable JSON, a group file whose `id`
 *   differs from its name, a subgroup whose parent is not listed before it, rows of the wrong types, the names
 *   `__proto__`, `constructor`, `prototype` anywhere, and anything over {@link IMPORT_LIMITS} (the sandbox's own
 *   bounds of one import: the platform has only its upload size). The archive is read in `prepare`, unpacked off
 *   the main thread and parsed in steps that let other requests in, before the import takes its turn among writes;
 *   then everything is stored in one go, in work that grows with the archive alone. Then the group is
 *   created with the request's name and path (400 `Failed to save group {…}` as `POST /groups`) and the archive's
 *   settings; subgroups keep theirs, each visibility lowered to its parent's where higher (the platform's
 *   `closest_allowed_level`). The importer becomes an Owner of every imported group; members are matched to users
 *   by e-mail (the platform's `MembersMapper`), at most Owner, and unmatched ones are left out. A subgroup or row the
 *   model refuses is left out and the rest goes on, as the platform logs import failures. Answers 202 (the
 *   platform's status: its import runs in the background) with the imported group (GroupDetail), as the contract's
 *   table gives the result, where the platform's body is `{"message":"202 Accepted"}`.
 */

const EXPORT_VERSION = "0.2.4";

/**
 * What one import may hold and store, checked while the archive is read, before anything is stored: an archive
 * over any of them is a 400 naming the limit (docs/security.md lists them).
 */
export const IMPORT_LIMITS = {
  /** Bytes of the unpacked tar stream. */
  maxBytes: 32 * 1024 * 1024,
  /** Entries of the tar archive. */
  maxEntries: 10_000,
  /** Groups: the imported group and its subgroups. */
  maxGroups: 1_000,
  /** Rows of all relations together (members, milestones, badges, labels, boards). */
  maxRows: 10_000,
  /** Characters of one JSON document of the archive (a group's attributes, one row). */
  maxDocument: 1024 * 1024,
  /** Nesting of arrays and objects in one JSON document. */
  maxDepth: 8,
  /** Characters of what is kept of all rows together, as JSON. */
  maxStored: 8 * 1024 * 1024,
} as const;
/** The platform's order of the group tree's relations (`import_export.yml`); others follow. */
const RELATION_ORDER = ["milestones", "badges", "labels", "boards", "members"];
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

const PROJECT_CREATION: Record<GroupRec["project_creation_level"], number> = {
  noone: 0,
  maintainer: 1,
  developer: 2,
};
const SUBGROUP_CREATION: Record<GroupRec["subgroup_creation_level"], number> = { owner: 0, maintainer: 1 };

function keyOf<K extends string>(table: Record<K, number>, value: number): K | undefined {
  return (Object.keys(table) as K[]).find((k) => table[k] === value);
}

/** `tree/groups/<id>.json`: the group's attributes as the platform names and stores them. */
function groupAttributes(g: GroupRec): Record<string, unknown> {
  return {
    id: g.id,
    name: g.name,
    path: g.path,
    description: g.description,
    avatar: { url: null },
    membership_lock: g.membership_lock,
    share_with_group_lock: g.share_with_group_lock,
    visibility_level: VISIBILITY_LEVEL[g.visibility],
    request_access_enabled: g.request_access_enabled,
    lfs_enabled: g.lfs_enabled,
    parent_id: g.parent_id,
    require_two_factor_authentication: g.require_two_factor_authentication,
    two_factor_grace_period: g.two_factor_grace_period,
    project_creation_level: PROJECT_CREATION[g.project_creation_level],
    auto_devops_enabled: g.auto_devops_enabled,
    subgroup_creation_level: SUBGROUP_CREATION[g.subgroup_creation_level],
    emails_disabled: g.emails_disabled,
    mentions_disabled: g.mentions_disabled,
    default_branch_protection: g.default_branch_protection,
    type: "Group",
  };
}

type Check = (v: unknown) => boolean;
const isBool: Check = (v) => typeof v === "boolean";
const isBoolOrNull: Check = (v) => v === null || typeof v === "boolean";
const isInt: Check = (v) => Number.isSafeInteger(v);
const oneOf =
  (...values: unknown[]): Check =>
  (v) =>
    values.includes(v);

/** Reads the archived attributes the sandbox keeps: `[check, how it reads, what the check wants]`. */
const ATTRIBUTE_READERS: Record<string, [Check, (v: unknown) => GroupSettings, string]> = {
  description: [
    (v) => v === null || typeof v === "string",
    (v) => ({ description: (v as string) ?? "" }),
    "a string",
  ],
  visibility_level: [
    oneOf(0, 10, 20),
    (v) => ({ visibility: VISIBILITIES.find((x) => VISIBILITY_LEVEL[x] === v)! }),
    "0, 10 or 20",
  ],
  membership_lock: [isBool, (v) => ({ membership_lock: v as boolean }), "a boolean"],
  share_with_group_lock: [isBool, (v) => ({ share_with_group_lock: v as boolean }), "a boolean"],
  request_access_enabled: [isBool, (v) => ({ request_access_enabled: v as boolean }), "a boolean"],
  lfs_enabled: [isBoolOrNull, (v) => (v === null ? {} : { lfs_enabled: v as boolean }), "a boolean or null"],
  require_two_factor_authentication: [
    isBool,
    (v) => ({ require_two_factor_authentication: v as boolean }),
    "a boolean",
  ],
  two_factor_grace_period: [isInt, (v) => ({ two_factor_grace_period: v as number }), "an integer"],
  project_creation_level: [
    oneOf(null, 0, 1, 2),
    (v) => (v === null ? {} : { project_creation_level: keyOf(PROJECT_CREATION, v as number)! }),
    "0, 1, 2 or null",
  ],
  subgroup_creation_level: [
    oneOf(0, 1),
    (v) => ({ subgroup_creation_level: keyOf(SUBGROUP_CREATION, v as number)! }),
    "0 or 1",
  ],
  auto_devops_enabled: [
    isBoolOrNull,
    (v) => ({ auto_devops_enabled: v as boolean | null }),
    "a boolean or null",
  ],
  emails_disabled: [isBoolOrNull, (v) => ({ emails_disabled: v as boolean | null }), "a boolean or null"],
  mentions_disabled: [isBoolOrNull, (v) => ({ mentions_disabled: v as boolean | null }), "a boolean or null"],
  default_branch_protection: [
    oneOf(null, 0, 1, 2, 3),
    (v) => (v === null ? {} : { default_branch_protection: v as number }),
    "0 to 3 or null",
  ],
};

/** One group of an archive, checked. */
interface ArchivedGroup {
  id: number;
  parentId: number | null;
  name: string;
  path: string;
  settings: GroupSettings;
  relations: Map<string, unknown[]>;
}

function parseJson(text: string, where: string): unknown {
  if (text.length > IMPORT_LIMITS.maxDocument) {
    throw new ArchiveError(`${where} is longer than ${IMPORT_LIMITS.maxDocument} characters`);
  }
  if (nestsDeeperThan(text, IMPORT_LIMITS.maxDepth)) {
    throw new ArchiveError(`${where} nests deeper than ${IMPORT_LIMITS.maxDepth} levels`);
  }
  try {
    return JSON.parse(text, (key, value: unknown) => {
      if (FORBIDDEN_KEYS.has(key)) throw new ArchiveError(`${where}: the name "${key}" is not allowed`);
      return value;
    });
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`${where} is not valid JSON`);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The non-empty lines of an `.ndjson` file, with their line numbers (from 1). */
function lines(file: TarFile): { text: string; line: number }[] {
  return file.data
    .toString("utf8")
    .split("\n")
    .flatMap((text, i) => (text.trim() === "" ? [] : [{ text, line: i + 1 }]));
}

/**
 * Lets other requests in during a long computation: resolves at once, or after the event loop has turned when the
 * work has held it for `everyMs` since the last turn.
 */
function pauser(everyMs = 10): () => Promise<void> {
  let last = performance.now();
  return async () => {
    if (performance.now() - last < everyMs) return;
    await new Promise((resolve) => setImmediate(resolve));
    last = performance.now();
  };
}

/** What an archive being read has used of {@link IMPORT_LIMITS} so far. */
interface Budget {
  rows: number;
  stored: number;
  pause: () => Promise<void>;
}

async function readRows(file: TarFile, r: GroupExportRelation, budget: Budget): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const { text, line } of lines(file)) {
    if (++budget.rows > IMPORT_LIMITS.maxRows) {
      throw new ArchiveError(`it holds more than ${IMPORT_LIMITS.maxRows} rows`);
    }
    const row = parseJson(text, `${file.name} line ${line}`);
    const where = `${file.name} row ${out.length + 1}`;
    if (!isObject(row)) throw new ArchiveError(`${where} is not a JSON object`);
    let kept: unknown;
    try {
      kept = r.read(row);
    } catch (error) {
      throw new ArchiveError(`${where}: ${(error as Error).message}`);
    }
    budget.stored += JSON.stringify(kept)?.length ?? 0;
    if (budget.stored > IMPORT_LIMITS.maxStored) {
      throw new ArchiveError(`what it would store is more than ${IMPORT_LIMITS.maxStored} characters`);
    }
    out.push(kept);
    await budget.pause();
  }
  return out;
}

async function readGroup(
  files: Map<string, TarFile>,
  id: number,
  known: Set<number>,
  relations: Map<string, GroupExportRelation>,
  budget: Budget,
): Promise<ArchivedGroup> {
  const name = `tree/groups/${id}.json`;
  const file = files.get(name);
  if (!file) throw new ArchiveError(`${name} is missing`);
  const attrs = parseJson(file.data.toString("utf8"), name);
  if (!isObject(attrs)) throw new ArchiveError(`${name} is not a JSON object`);
  if (attrs["id"] !== id) throw new ArchiveError(`Invalid group_id for ${id}`);
  const parentId = attrs["parent_id"] ?? null;
  if (parentId !== null && !isInt(parentId)) throw new ArchiveError(`${name}: parent_id must be an integer`);
  if (known.size > 0 && !known.has(parentId as number)) {
    throw new ArchiveError(`${name}: its parent group ${String(parentId)} is not listed before it`);
  }
  for (const key of ["name", "path"]) {
    if (typeof attrs[key] !== "string") throw new ArchiveError(`${name}: ${key} must be a string`);
  }
  let settings: GroupSettings = {};
  for (const [key, [check, read, wanted]] of Object.entries(ATTRIBUTE_READERS)) {
    if (!Object.hasOwn(attrs, key)) continue;
    if (!check(attrs[key])) throw new ArchiveError(`${name}: ${key} must be ${wanted}`);
    settings = { ...settings, ...read(attrs[key]) };
  }
  const rows = new Map<string, unknown[]>();
  for (const [relation, r] of relations) {
    const f = files.get(`tree/groups/${id}/${relation}.ndjson`);
    if (f) rows.set(relation, await readRows(f, r, budget));
  }
  return {
    id,
    parentId: parentId as number | null,
    name: attrs["name"] as string,
    path: attrs["path"] as string,
    settings,
    relations: rows,
  };
}

/**
 * Reads and checks a whole archive; throws {@link ArchiveError}. The root group comes first. Unpacking happens off
 * the main thread and the reading lets other requests in every few milliseconds; nothing is stored.
 */
async function readArchive(
  data: Buffer,
  relations: Map<string, GroupExportRelation>,
): Promise<ArchivedGroup[]> {
  const files = new Map((await readTarGzAsync(data, IMPORT_LIMITS)).map((f) => [f.name, f]));
  const version = files.get("VERSION")?.data.toString("utf8").trim();
  if (version !== undefined && version !== EXPORT_VERSION) {
    throw new ArchiveError(`Import version mismatch: Required ${EXPORT_VERSION} but was ${version}`);
  }
  const all = files.get("tree/groups/_all.ndjson");
  if (!all) throw new ArchiveError("The import file is incompatible");
  const listed = lines(all);
  if (listed.length === 0) throw new ArchiveError(`${all.name} lists no group`);
  if (listed.length > IMPORT_LIMITS.maxGroups) {
    throw new ArchiveError(
      `it holds ${listed.length} groups; an import may hold at most ${IMPORT_LIMITS.maxGroups}`,
    );
  }
  const budget: Budget = { rows: 0, stored: 0, pause: pauser() };
  const known = new Set<number>();
  const out: ArchivedGroup[] = [];
  for (const { text, line } of listed) {
    const id = parseJson(text, `${all.name} line ${line}`);
    if (!isInt(id) || known.has(id as number)) {
      throw new ArchiveError(`${all.name} line ${line} is not a new group id`);
    }
    const g = await readGroup(files, id as number, known, relations, budget);
    known.add(g.id);
    out.push(g);
    await budget.pause();
  }
  return out;
}

function byPlatformOrder([a]: [string, unknown], [b]: [string, unknown]): number {
  const rank = (x: string) =>
    RELATION_ORDER.includes(x) ? RELATION_ORDER.indexOf(x) : RELATION_ORDER.length;
  return rank(a) - rank(b) || a.localeCompare(b);
}

function exportArchive(app: SandboxApp, store: Store, root: GroupRec): Buffer {
  const depth = (g: GroupRec) => store.ancestorsAndSelf(g).length;
  const groups = [root, ...store.descendants(root)].sort((a, b) => depth(a) - depth(b));
  const text = (name: string, s: string): TarFile => ({ name, data: Buffer.from(s, "utf8") });
  const lines = (rows: unknown[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join("");
  const relations = [...app.groupExportRelations].sort(byPlatformOrder);
  const files: TarFile[] = [
    text("VERSION", EXPORT_VERSION),
    text("GITLAB_VERSION", platformVersion(app.licensed)),
    text("GITLAB_REVISION", SANDBOX_REVISION),
  ];
  for (const g of groups) {
    files.push(text(`tree/groups/${g.id}.json`, JSON.stringify(groupAttributes(g))));
    for (const [name, r] of relations) {
      files.push(text(`tree/groups/${g.id}/${name}.ndjson`, lines(r.rows(store, g))));
    }
  }
  files.push(text("tree/groups/_all.ndjson", lines(groups.map((g) => g.id))));
  return writeTarGz(files, store.now());
}

/**
 * Creates the archive's subgroups below the imported root, parents first; refused ones (and their subtrees) are left
 * out. Its work grows with the archive alone, not with the groups already stored: every parent is a group it has
 * just made, so the names and paths taken under it are those it has given there itself.
 */
function importTree(ctx: Ctx, user: UserRec, archived: ArchivedGroup[], root: GroupRec): void {
  const store = ctx.store;
  const relations = [...ctx.app.groupExportRelations].sort(byMembersFirst);
  const created = new Map<number, GroupRec>([[archived[0]!.id, root]]);
  const taken = new Map<number, { names: Set<string>; paths: Set<string> }>();
  const restore = (a: ArchivedGroup, g: GroupRec) => {
    taken.set(g.id, { names: new Set(), paths: new Set() });
    for (const [name, r] of relations) r.restore(store, g, a.relations.get(name) ?? [], user);
  };
  restore(archived[0]!, root);
  for (const a of archived.slice(1)) {
    const parent = created.get(a.parentId as number);
    if (!parent) continue;
    const siblings = taken.get(parent.id)!;
    const g = buildGroup(store, {
      ...a.settings,
      visibility: lowerTo(a.settings.visibility ?? "private", parent),
      name: a.name,
      path: a.path,
      parent_id: parent.id,
    });
    const errors = validateGroup(store, g, undefined, {
      nameTaken: (name) => siblings.names.has(name),
      pathTaken: (path) => siblings.paths.has(path.toLowerCase()),
    });
    if (Object.keys(errors).length > 0) continue;
    insertGroup(store, g);
    siblings.names.add(g.name);
    siblings.paths.add(g.path.toLowerCase());
    store.setMember("group", g.id, user.id, ACCESS.owner);
    created.set(a.id, g);
    restore(a, g);
  }
}

/** The platform restores members before the other relations. */
function byMembersFirst([a]: [string, unknown], [b]: [string, unknown]): number {
  return Number(b === "members") - Number(a === "members");
}

/** `closest_allowed_level`: a visibility no higher than the parent's. */
function lowerTo(visibility: GroupRec["visibility"], parent: GroupRec | undefined): GroupRec["visibility"] {
  if (!parent || VISIBILITY_LEVEL[visibility] <= VISIBILITY_LEVEL[parent.visibility]) return visibility;
  return parent.visibility;
}

const emailIndexes = new WeakMap<Store, Map<string, UserRec>>();

/**
 * The users by e-mail (lowercased; the first of a duplicate wins, as a linear find would), built once for a whole
 * import: the index lives until the synchronous work that asked for it is over, so no change to an e-mail can make
 * it stale.
 */
function usersByEmail(store: Store): Map<string, UserRec> {
  let index = emailIndexes.get(store);
  if (!index) {
    const fresh = new Map<string, UserRec>();
    for (const u of store.data.users) {
      const key = u.email.toLowerCase();
      if (!fresh.has(key)) fresh.set(key, u);
    }
    emailIndexes.set(store, fresh);
    queueMicrotask(() => emailIndexes.delete(store));
    index = fresh;
  }
  return index;
}

/** Group members in the archive: matched to users by e-mail on import. */
function membersRelation(): GroupExportRelation<{
  email: string | null;
  access_level: number;
  expires_at: string | null;
}> {
  return {
    rows: (store, g) =>
      store.members("group", g.id).flatMap((m) => {
        const u = store.user(m.user_id);
        if (!u) return [];
        return [
          {
            access_level: m.access_level,
            source_id: g.id,
            source_type: "Namespace",
            user_id: u.id,
            notification_level: 3,
            created_at: m.created_at,
            updated_at: m.created_at,
            created_by_id: null,
            invite_email: null,
            invite_accepted_at: null,
            requested_at: null,
            expires_at: m.expires_at,
            ldap: false,
            override: false,
            user: { id: u.id, email: u.email, username: u.username },
          },
        ];
      }),
    read: (row) => {
      const level = row["access_level"];
      if (!oneOf(10, 20, 30, 40, 50)(level)) throw new Error("access_level must be 10, 20, 30, 40 or 50");
      const user = row["user"] ?? null;
      if (user !== null && !(isObject(user) && typeof user["email"] === "string")) {
        throw new Error("user must be an object with an email");
      }
      const expires = row["expires_at"] ?? null;
      if (expires !== null && !(typeof expires === "string" && /^\d{4}-\d{2}-\d{2}$/.test(expires))) {
        throw new Error("expires_at must be a date YYYY-MM-DD or null");
      }
      return {
        email: user === null ? null : (user["email"] as string),
        access_level: level as number,
        expires_at: expires,
      };
    },
    restore: (store, g, rows) => {
      for (const row of rows) {
        const u = row.email === null ? undefined : usersByEmail(store).get(row.email.toLowerCase());
        if (!u || store.member("group", g.id, u.id)) continue;
        store.setMember("group", g.id, u.id, Math.min(row.access_level, ACCESS.owner)).expires_at =
          row.expires_at;
      }
    },
  };
}

/** The fields of a kept row: a JSON type, a list of records, or a record (any of them may be null). */
type KeptField = "string" | "integer" | "boolean" | { list: KeptFields } | { record: KeptFields };
type KeptFields = Readonly<Record<string, KeptField>>;

/** A board list's label as the platform imports it (`import_export.yml`: its attributes, without ids). */
const LABEL_FIELDS: KeptFields = {
  title: "string",
  color: "string",
  description: "string",
  type: "string",
  template: "boolean",
  created_at: "string",
  updated_at: "string",
};

/** A group board and its lists (each with its label), as the platform imports them, without ids. */
const BOARD_FIELDS: KeptFields = {
  name: "string",
  hide_backlog_list: "boolean",
  hide_closed_list: "boolean",
  created_at: "string",
  updated_at: "string",
  lists: {
    list: {
      list_type: "string",
      position: "integer",
      created_at: "string",
      updated_at: "string",
      label: { record: LABEL_FIELDS },
    },
  },
};

/** The fields of `row` that `fields` names, checked; the rest (ids, unknown keys) is left out. */
function keptFields(row: Record<string, unknown>, fields: KeptFields, where = ""): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    const v = row[key];
    if (v === undefined) continue;
    const name = `${where}${key}`;
    if (v === null) out[key] = null;
    else if (typeof field !== "string") {
      if ("record" in field) {
        if (!isObject(v)) throw new Error(`${name} must be an object`);
        out[key] = keptFields(v, field.record, `${name}.`);
      } else {
        if (!Array.isArray(v)) throw new Error(`${name} must be a list`);
        out[key] = v.map((item, i) => {
          if (!isObject(item)) throw new Error(`${name}[${i}] must be an object`);
          return keptFields(item, field.list, `${name}[${i}].`);
        });
      }
    } else if (field === "integer" ? !isInt(v) : typeof v !== field) {
      throw new Error(`${name} must be ${field === "integer" ? "an integer" : `a ${field}`}`);
    } else out[key] = v;
  }
  return out;
}

/**
 * Boards: the sandbox has none of its own; of those an imported archive carries, it keeps the fields the platform
 * imports (`fields`) and writes them again in later exports.
 */
function keptRelation(
  app: SandboxApp,
  relation: string,
  fields: KeptFields,
): GroupExportRelation<Record<string, unknown>> {
  const kept = () =>
    app.store.area(
      "group_export_kept",
      () => ({}) as Record<string, Record<string, Record<string, unknown>[]>>,
    );
  return {
    rows: (_store, g) => kept()[String(g.id)]?.[relation] ?? [],
    read: (row) => keptFields(row, fields),
    restore: (_store, g, rows) => {
      if (rows.length === 0) return;
      const table = kept();
      table[String(g.id)] = { ...table[String(g.id)], [relation]: rows };
    },
  };
}

export function register(app: SandboxApp): void {
  const exports = () =>
    app.store.area("group_exports", () => ({}) as Record<string, { created_at: string; data: string }>);

  app.onGroupExport("members", membersRelation());
  app.onGroupExport("boards", keptRelation(app, "boards", BOARD_FIELDS));

  app.post("/groups/:id/export", (ctx) => {
    authenticateNonGet(ctx);
    const g = findGroup(ctx, ctx.path["id"]!);
    authorizeGroup(ctx, g, ACCESS.owner);
    const table = exports();
    // Archives of deleted groups can never be downloaded again.
    for (const id of Object.keys(table)) if (!ctx.store.group(Number(id))) delete table[id];
    table[String(g.id)] = {
      created_at: ctx.store.nowIso(),
      data: exportArchive(app, ctx.store, g).toString("base64"),
    };
    return accepted();
  });

  app.get("/groups/:id/export/download", (ctx) => {
    requireAuth(ctx);
    const g = findGroup(ctx, ctx.path["id"]!);
    authorizeGroup(ctx, g, ACCESS.owner);
    const entry = exports()[String(g.id)];
    if (!entry) throw new HttpError(404, { message: "404 Not found or has expired" });
    const stamp = entry.created_at.replace(/[-:T]/g, "").slice(0, 14);
    const filename = `${stamp}_${ctx.store.groupFullPath(g).replace(/\//g, "_")}_export.tar.gz`;
    return raw(Buffer.from(entry.data, "base64"), "application/octet-stream", {
      "Content-Disposition": `attachment; filename="${filename}"`,
    });
  });

  // The caller is checked, then the archive read (off the main thread and in steps, letting other requests in),
  // before the import takes its turn among writes; then the groups are stored in one go.
  const importParams = (ctx: Ctx) => {
    const user = requireAuth(ctx);
    const p = ctx.declare({
      name: { type: "string", required: true },
      path: { type: "string", required: true },
      file: { type: "file", required: true },
      parent_id: { type: "integer" },
    });
    return { user, p, parent: creationParent(ctx, user, p.parent_id) };
  };
  app.post(
    "/groups/import",
    (ctx) => {
      const { user, p, parent } = importParams(ctx);
      const archived = ctx.prepared as ArchivedGroup[];
      const root = archived[0]!;
      const settings = {
        ...root.settings,
        visibility: lowerTo(root.settings.visibility ?? "private", parent),
      };
      const g = createGroup(ctx, user, { ...settings, name: p.name, path: p.path }, p.parent_id);
      importTree(ctx, user, archived, g);
      return accepted(detail(ctx, g));
    },
    {
      prepare: async (ctx) => {
        const { p } = importParams(ctx);
        try {
          return await readArchive(p.file.data, app.groupExportRelations);
        } catch (error) {
          if (!(error instanceof ArchiveError)) throw error;
          throw badRequest(`Failed to import group: ${p.file.filename}: ${error.message}`);
        }
      },
    },
  );
}
