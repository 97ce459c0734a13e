import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, effectiveProjectLevel, findProject, projectAccessLevel } from "../auth.js";
import { conflict, forbidden, recordNotFound, unprocessable } from "../errors.js";
import { coerceInteger } from "../params.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import type { ProjectRec, Store, UserRec } from "../store.js";
import { type FixtureEntry, fixtureEntries, fixtureFlag, fixtureProject } from "./fixture-entries.js";
import { type LevelInput, parseAccessLevels } from "./protected-environments.js";

/**
 * Protected branches and protected tags. The contract has no such area: the sandbox follows the platform's 13.12
 * REST API (`lib/api/protected_branches.rb`, `lib/api/protected_tags.rb`, their EE parts, `app/models/protected_*.rb`,
 * `ee/app/models/concerns/ee/protected_ref_access.rb`). The sandbox has no repositories: a name (or wildcard such as
 * `release/*`) is protected whether or not a branch or tag of that name exists, as on the platform.
 *
 * - Every route, GETs included, needs Maintainer (`before { authorize_admin_project }`, no `authenticate!`): a
 *   project the caller cannot see is `404 Project Not Found`, a visible one without Maintainer 403 — also for an
 *   anonymous caller. `:name` is one path segment: URL-encode `/` and `*` is literal (`release%2F*`). A missing
 *   name is `{"message":"404 Not found"}` (`find_by!`). Lists are paginated, oldest first.
 * - Access levels: 0 (No one), 30 (Developers + Maintainers), 40 (Maintainers), and on the licensed edition 60
 *   (admins; its `access_level_description` is null, as `HUMAN_ACCESS_LEVELS` has no entry for it). Another value
 *   is 400 `{"error":"push_access_level does not have a valid value"}`.
 * - `GET /projects/:id/protected_branches?search=`: the platform's fuzzy match (`ProtectedBranch.by_name`): every
 *   word of 3 or more characters must occur in the name, case-insensitively; a query without such words must equal
 *   the name, case-insensitively.
 * - `POST /projects/:id/protected_branches`: `name` required; `push_access_level`, `merge_access_level` (default
 *   40), `allow_force_push` (default false). Licensed: `unprotect_access_level` (default 40),
 *   `code_owner_approval_required` (default false) and `allowed_to_push`, `allowed_to_merge`, `allowed_to_unprotect`,
 *   arrays of `{access_level}`, `{user_id}` or `{group_id}`; when one is given, the default 40 of its kind is not
 *   added (`AccessLevelParams`). On core those parameters are ignored, as undeclared parameters are. A name already
 *   protected is 409 `{"message":"Protected branch 'x' already exists"}`. Licensed: a caller who could not unprotect
 *   the new protection (its unprotect levels admit neither their role, nor them, nor a group they belong to) is 403
 *   (`create_protected_branch` is prevented). Model failures are 422 with full messages: `Name can't be blank`,
 *   `Push access levels user is not a member of the project` (a user without access to the project),
 *   `Push access levels group does not have access to the project` (a group the project is not shared with),
 *   `Push access levels access level can't be blank` (an entry naming no role and no existing user or group).
 * - `PATCH /projects/:id/protected_branches/:name` [licensed] sets `code_owner_approval_required` (default false
 *   when not given) and nothing else: 13.12 has no other update. Change any other field by unprotecting and
 *   protecting again. On core the route does not exist (405).
 * - `DELETE /projects/:id/protected_branches/:name`: 204; `If-Unmodified-Since` is honoured (412). Licensed: 403 when
 *   the caller is not admitted by the branch's unprotect levels.
 * - Entity: `id`, `name`, `push_access_levels`, `merge_access_levels` (each `{access_level,
 *   access_level_description}`, plus `user_id` and `group_id` on the licensed edition, the description then being
 *   the user's or group's name), `allow_force_push`; licensed also `unprotect_access_levels` and
 *   `code_owner_approval_required`.
 * - Protected tags: `GET`, `GET :name`, `POST` (`name`, `create_access_level` default 40; 409
 *   `Protected tag 'x' already exists`), `DELETE` (204). No update. Entity `{name, create_access_levels}`.
 *   `allowed_to_create` came with 15.2: 13.12 ignores it, and so does the sandbox.
 *
 * Fixture keys (after projects): `protected_branches: [{ project, name, push_access_level?, merge_access_level?,
 * unprotect_access_level?, allow_force_push?, code_owner_approval_required?, allowed_to_push?: [{ access_level } |
 * { user } | { group }], allowed_to_merge?, allowed_to_unprotect? }]` and `protected_tags: [{ project, name,
 * create_access_level? }]`, with the defaults and validations of POST (licensed fields on the licensed edition only).
 */

export interface RefAccessRec {
  id: number;
  access_level: number | null;
  user_id: number | null;
  group_id: number | null;
}

export interface ProtectedBranchRec {
  id: number;
  project_id: number;
  name: string;
  created_at: string;
  updated_at: string;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
  push_access_levels: RefAccessRec[];
  merge_access_levels: RefAccessRec[];
  /** Empty on the core edition. */
  unprotect_access_levels: RefAccessRec[];
}

export interface ProtectedTagRec {
  id: number;
  project_id: number;
  name: string;
  created_at: string;
  updated_at: string;
  create_access_levels: RefAccessRec[];
}

interface ProtectedRefsArea {
  branches: ProtectedBranchRec[];
  tags: ProtectedTagRec[];
}

const CORE_LEVELS = [40, 30, 0] as const;
const ADMIN_LEVEL = 60;

/** `ProtectedRefAccess.allowed_access_levels`; EE adds the admin level. */
function allowedLevels(licensed: boolean): number[] {
  return licensed ? [...CORE_LEVELS, ADMIN_LEVEL] : [...CORE_LEVELS];
}

const HUMAN_ACCESS_LEVELS: Record<number, string> = {
  40: "Maintainers",
  30: "Developers + Maintainers",
  0: "No one",
};

type BranchLevelKind = "push" | "merge" | "unprotect";

/** Association names as full messages show them, in the model's validation order. */
const ASSOCIATION: Record<BranchLevelKind, string> = {
  merge: "Merge access levels",
  push: "Push access levels",
  unprotect: "Unprotect access levels",
};

/** `ProtectedRefAccess#type` (EE): a user or group that exists, else a role. */
function levelType(store: Store, l: RefAccessRec): "user" | "group" | "role" {
  if (l.user_id !== null && store.user(l.user_id)) return "user";
  if (l.group_id !== null && store.group(l.group_id)) return "group";
  return "role";
}

function accessJson(store: Store, l: RefAccessRec, licensed: boolean): Record<string, unknown> {
  const type = levelType(store, l);
  const description =
    type === "user"
      ? store.user(l.user_id!)!.name
      : type === "group"
        ? store.group(l.group_id!)!.name
        : l.access_level === null
          ? null
          : (HUMAN_ACCESS_LEVELS[l.access_level] ?? null);
  const out: Record<string, unknown> = {
    access_level: l.access_level,
    access_level_description: description,
  };
  if (licensed) {
    out["user_id"] = l.user_id;
    out["group_id"] = l.group_id;
  }
  return out;
}

function branchJson(store: Store, b: ProtectedBranchRec, licensed: boolean): Record<string, unknown> {
  const levels = (list: RefAccessRec[]) => list.map((l) => accessJson(store, l, licensed));
  const out: Record<string, unknown> = {
    id: b.id,
    name: b.name,
    push_access_levels: levels(b.push_access_levels),
    merge_access_levels: levels(b.merge_access_levels),
    allow_force_push: b.allow_force_push,
  };
  if (licensed) {
    out["unprotect_access_levels"] = levels(b.unprotect_access_levels);
    out["code_owner_approval_required"] = b.code_owner_approval_required;
  }
  return out;
}

function tagJson(store: Store, t: ProtectedTagRec, licensed: boolean): Record<string, unknown> {
  return {
    name: t.name,
    create_access_levels: t.create_access_levels.map((l) => accessJson(store, l, licensed)),
  };
}

/**
 * `ProtectedRefAccess#check_access`: administrators always; the named user; a direct member of the named group; for
 * a role, a project member at that level or above (0 admits no one, 60 administrators only).
 */
function admits(store: Store, user: UserRec, project: ProjectRec, l: RefAccessRec): boolean {
  if (user.admin) return true;
  const type = levelType(store, l);
  if (type === "user") return l.user_id === user.id;
  if (type === "group") return store.member("group", l.group_id!, user.id) !== undefined;
  if (l.access_level === null || l.access_level === 0 || l.access_level === ADMIN_LEVEL) return false;
  return projectAccessLevel(store, user, project) >= l.access_level;
}

/** `ProtectedBranch#can_unprotect?`: no unprotect levels, or one that admits the user. */
function canUnprotect(
  store: Store,
  user: UserRec | null,
  project: ProjectRec,
  levels: RefAccessRec[],
): boolean {
  if (levels.length === 0) return true;
  if (!user) return false;
  return levels.some((l) => admits(store, user, project, l));
}

/** The model's validations of new access levels of one kind: full messages. */
function levelErrors(
  store: Store,
  project: ProjectRec,
  association: string,
  levels: RefAccessRec[],
): string[] {
  const errors: string[] = [];
  for (const l of levels) {
    const type = levelType(store, l);
    if (type === "user") {
      if (projectAccessLevel(store, store.user(l.user_id!)!, project) === 0) {
        errors.push(`${association} user is not a member of the project`);
      }
    } else if (type === "group") {
      if (!project.shared_with_groups.some((s) => s.group_id === l.group_id)) {
        errors.push(`${association} group does not have access to the project`);
      }
    } else if (l.access_level === null) {
      errors.push(
        `${association} access level can't be blank`,
        `${association} access level is not included in the list`,
      );
    }
  }
  return errors;
}

/** Access level records without ids: {@link stampIds} gives them ids once the protection is valid. */
function toRecords(levels: LevelInput[]): RefAccessRec[] {
  return levels.map((l) => ({
    id: 0,
    access_level: l.access_level ?? null,
    user_id: l.user_id ?? null,
    group_id: l.group_id ?? null,
  }));
}

/** Gives a protection about to be stored, and its access levels, their ids (a refused one takes none). */
function stampIds<T extends ProtectedBranchRec | ProtectedTagRec>(store: Store, rec: T, sequence: string): T {
  rec.id = store.nextId(sequence);
  const lists =
    "create_access_levels" in rec
      ? [rec.create_access_levels]
      : [rec.push_access_levels, rec.merge_access_levels, rec.unprotect_access_levels];
  for (const l of lists.flat()) l.id = store.nextId("protected_ref_access_levels");
  return rec;
}

/**
 * `AccessLevelParams`: the role level given (or 40 when neither it nor an `allowed_to_*` list is), then the list.
 */
function levelsOf(role: number | undefined, allowed: LevelInput[]): LevelInput[] {
  const level = role ?? (allowed.length === 0 ? ACCESS.maintainer : undefined);
  return [...(level === undefined ? [] : [{ access_level: level }]), ...allowed];
}

/** What a new protected branch is made of, from the API or the fixture. */
interface BranchInput {
  name: string;
  allow_force_push: boolean;
  code_owner_approval_required: boolean;
  levels: Record<BranchLevelKind, LevelInput[]>;
}

/** Builds a protected branch (not stored, without ids) and its model errors. */
function buildBranch(
  store: Store,
  project: ProjectRec,
  input: BranchInput,
  licensed: boolean,
): { branch: ProtectedBranchRec; errors: string[] } {
  const now = store.nowIso();
  const branch: ProtectedBranchRec = {
    id: 0,
    project_id: project.id,
    name: input.name,
    created_at: now,
    updated_at: now,
    allow_force_push: input.allow_force_push,
    code_owner_approval_required: licensed && input.code_owner_approval_required,
    push_access_levels: toRecords(input.levels.push),
    merge_access_levels: toRecords(input.levels.merge),
    unprotect_access_levels: licensed ? toRecords(input.levels.unprotect) : [],
  };
  const errors = input.name.trim() === "" ? ["Name can't be blank"] : [];
  for (const kind of ["merge", "push", "unprotect"] as const) {
    errors.push(...levelErrors(store, project, ASSOCIATION[kind], branch[`${kind}_access_levels`]));
  }
  return { branch, errors: [...new Set(errors)] };
}

function buildTag(
  store: Store,
  project: ProjectRec,
  name: string,
  level: number,
): { tag: ProtectedTagRec; errors: string[] } {
  const now = store.nowIso();
  const tag: ProtectedTagRec = {
    id: 0,
    project_id: project.id,
    name,
    created_at: now,
    updated_at: now,
    create_access_levels: toRecords([{ access_level: level }]),
  };
  return { tag, errors: name.trim() === "" ? ["Name can't be blank"] : [] };
}

/** The platform's fuzzy name match (`fuzzy_arel_match`): see the module comment. */
function matchesSearch(name: string, query: string): boolean {
  const q = query.trim().replace(/\s+/g, " ");
  if (q === "") return true;
  const lower = name.toLowerCase();
  const words = q.split(" ").filter((w) => w.length >= 3);
  if (words.length === 0) return lower === q.toLowerCase();
  return words.every((w) => lower.includes(w.toLowerCase()));
}

export function register(app: SandboxApp): void {
  const area = () => app.store.area<ProtectedRefsArea>("protected_refs", () => ({ branches: [], tags: [] }));

  /** `authorize_admin_project`: 404 for an invisible project, 403 below Maintainer (guests included). */
  const adminProject = (ctx: Ctx): ProjectRec => {
    const project = findProject(ctx, ctx.path["id"]!);
    if (effectiveProjectLevel(ctx.store, ctx.user, project) < ACCESS.maintainer) throw forbidden();
    return project;
  };

  const branchesOf = (project: ProjectRec) => area().branches.filter((b) => b.project_id === project.id);
  const tagsOf = (project: ProjectRec) => area().tags.filter((t) => t.project_id === project.id);

  const findBranch = (ctx: Ctx, project: ProjectRec): ProtectedBranchRec => {
    const branch = branchesOf(project).find((b) => b.name === ctx.path["name"]);
    if (!branch) throw recordNotFound();
    return branch;
  };

  const findTag = (ctx: Ctx, project: ProjectRec): ProtectedTagRec => {
    const tag = tagsOf(project).find((t) => t.name === ctx.path["name"]);
    if (!tag) throw recordNotFound();
    return tag;
  };

  // ---- protected branches ----

  app.get("/projects/:id/protected_branches", (ctx) => {
    const project = adminProject(ctx);
    const { search } = ctx.declare({ search: { type: "string" } });
    const rows = branchesOf(project)
      .filter((b) => search === undefined || matchesSearch(b.name, search))
      .sort((a, b) => a.id - b.id);
    return ctx.paginate(rows, (b) => branchJson(ctx.store, b, ctx.licensed));
  });

  app.get("/projects/:id/protected_branches/:name", (ctx) =>
    branchJson(ctx.store, findBranch(ctx, adminProject(ctx)), ctx.licensed),
  );

  app.post("/projects/:id/protected_branches", (ctx) => {
    const project = adminProject(ctx);
    const levels = allowedLevels(ctx.licensed);
    const p = ctx.declare({
      name: { type: "string", required: true },
      push_access_level: { type: "integer", values: levels },
      merge_access_level: { type: "integer", values: levels },
      allow_force_push: { type: "boolean", default: false },
      ...(ctx.licensed
        ? {
            unprotect_access_level: { type: "integer", values: levels },
            code_owner_approval_required: { type: "boolean", default: false },
            allowed_to_push: { type: "hash[]" },
            allowed_to_merge: { type: "hash[]" },
            allowed_to_unprotect: { type: "hash[]" },
          }
        : {}),
    } as const) as {
      name: string;
      allow_force_push: boolean;
      code_owner_approval_required?: boolean;
    } & Partial<Record<`${BranchLevelKind}_access_level`, number>> &
      Partial<Record<`allowed_to_${BranchLevelKind}`, Record<string, unknown>[]>>;
    const allowed = (kind: BranchLevelKind) =>
      parseAccessLevels(p[`allowed_to_${kind}`] ?? [], `allowed_to_${kind}`, levels);
    const input: BranchInput = {
      name: p.name,
      allow_force_push: p.allow_force_push,
      code_owner_approval_required: p.code_owner_approval_required ?? false,
      levels: {
        push: levelsOf(p.push_access_level, allowed("push")),
        merge: levelsOf(p.merge_access_level, allowed("merge")),
        unprotect: levelsOf(p.unprotect_access_level, allowed("unprotect")),
      },
    };
    if (branchesOf(project).some((b) => b.name === p.name)) {
      throw conflict(`Protected branch '${p.name}' already exists`);
    }
    const { branch, errors } = buildBranch(ctx.store, project, input, ctx.licensed);
    if (ctx.licensed && !canUnprotect(ctx.store, ctx.user, project, branch.unprotect_access_levels)) {
      throw forbidden();
    }
    if (errors.length > 0) throw unprocessable(errors);
    area().branches.push(stampIds(ctx.store, branch, "protected_branches"));
    return created(branchJson(ctx.store, branch, ctx.licensed));
  });

  app.patch(
    "/projects/:id/protected_branches/:name",
    (ctx) => {
      const project = adminProject(ctx);
      const p = ctx.declare({ code_owner_approval_required: { type: "boolean", default: false } });
      const branch = findBranch(ctx, project);
      branch.code_owner_approval_required = p.code_owner_approval_required;
      branch.updated_at = ctx.store.nowIso();
      return branchJson(ctx.store, branch, ctx.licensed);
    },
    { licensed: true },
  );

  app.delete("/projects/:id/protected_branches/:name", (ctx) => {
    const project = adminProject(ctx);
    const branch = findBranch(ctx, project);
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), branch.updated_at);
    if (ctx.licensed && !canUnprotect(ctx.store, ctx.user, project, branch.unprotect_access_levels)) {
      throw forbidden();
    }
    const a = area();
    a.branches = a.branches.filter((b) => b.id !== branch.id);
    return noContent();
  });

  // ---- protected tags ----

  app.get("/projects/:id/protected_tags", (ctx) => {
    const project = adminProject(ctx);
    const rows = tagsOf(project).sort((a, b) => a.id - b.id);
    return ctx.paginate(rows, (t) => tagJson(ctx.store, t, ctx.licensed));
  });

  app.get("/projects/:id/protected_tags/:name", (ctx) =>
    tagJson(ctx.store, findTag(ctx, adminProject(ctx)), ctx.licensed),
  );

  app.post("/projects/:id/protected_tags", (ctx) => {
    const project = adminProject(ctx);
    const p = ctx.declare({
      name: { type: "string", required: true },
      create_access_level: {
        type: "integer",
        default: ACCESS.maintainer,
        values: allowedLevels(ctx.licensed),
      },
    });
    if (tagsOf(project).some((t) => t.name === p.name)) {
      throw conflict(`Protected tag '${p.name}' already exists`);
    }
    const { tag, errors } = buildTag(ctx.store, project, p.name, p.create_access_level);
    if (errors.length > 0) throw unprocessable(errors);
    area().tags.push(stampIds(ctx.store, tag, "protected_tags"));
    return created(tagJson(ctx.store, tag, ctx.licensed));
  });

  app.delete("/projects/:id/protected_tags/:name", (ctx) => {
    const tag = findTag(ctx, adminProject(ctx));
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), tag.updated_at);
    const a = area();
    a.tags = a.tags.filter((t) => t.id !== tag.id);
    return noContent();
  });

  // ---- fixture ----

  /** A role level of the fixture: one of the edition's levels. */
  const fixtureLevel = (entry: FixtureEntry, field: string, v: unknown): number | undefined => {
    if (v === undefined || v === null) return undefined;
    const n = coerceInteger(v);
    const levels = allowedLevels(app.licensed);
    if (n === undefined || !levels.includes(n))
      throw entry.fail(field, `must be one of ${levels.join(", ")}`);
    return n;
  };

  /** `allowed_to_*` of the fixture: `{ access_level }`, `{ user: username }` or `{ group: full path }`. */
  const fixtureAllowed = (store: Store, entry: FixtureEntry, field: string): LevelInput[] => {
    const v = entry.e[field];
    if (v === undefined || v === null) return [];
    if (!app.licensed) throw entry.fail(field, "is for the licensed edition only");
    if (!Array.isArray(v)) throw entry.fail(field, "must be a list");
    return v.map((item, j): LevelInput => {
      const f = `${field}[${j}]`;
      if (typeof item !== "object" || item === null) throw entry.fail(f, "must be a mapping");
      const m = item as Record<string, unknown>;
      if (typeof m["user"] === "string") {
        const u = store.userByUsername(m["user"]);
        if (!u) throw entry.fail(f, `names user "${m["user"]}", which is not in users`);
        return { user_id: u.id };
      }
      if (typeof m["group"] === "string") {
        const g = store.groupByFullPath(m["group"]);
        if (!g) throw entry.fail(f, `names group "${m["group"]}", which is not in groups`);
        return { group_id: g.id };
      }
      const level = fixtureLevel(entry, `${f}.access_level`, m["access_level"]);
      if (level === undefined)
        throw entry.fail(f, "needs access_level, user (a username) or group (a group path)");
      return { access_level: level };
    });
  };

  const fixtureName = (entry: FixtureEntry): string => {
    const name = entry.e["name"];
    if (typeof name !== "string" || name.trim() === "") throw entry.fail("name", "is required");
    return name;
  };

  app.onFixture("protected_branches", (value, { store, source }) => {
    const table = store.area<ProtectedRefsArea>("protected_refs", () => ({ branches: [], tags: [] }));
    for (const entry of fixtureEntries(value, "protected_branches", source)) {
      const project = fixtureProject(store, entry);
      const name = fixtureName(entry);
      if (table.branches.some((b) => b.project_id === project.id && b.name === name)) {
        throw entry.fail("name", `"${name}" is listed twice for ${entry.e["project"]}`);
      }
      for (const field of ["unprotect_access_level", "code_owner_approval_required"]) {
        if (!app.licensed && entry.e[field] !== undefined) {
          throw entry.fail(field, "is for the licensed edition only");
        }
      }
      const role = (kind: BranchLevelKind) =>
        fixtureLevel(entry, `${kind}_access_level`, entry.e[`${kind}_access_level`]);
      const allowed = (kind: BranchLevelKind) => fixtureAllowed(store, entry, `allowed_to_${kind}`);
      const { branch, errors } = buildBranch(
        store,
        project,
        {
          name,
          allow_force_push: fixtureFlag(entry, "allow_force_push", false),
          code_owner_approval_required: fixtureFlag(entry, "code_owner_approval_required", false),
          levels: {
            push: levelsOf(role("push"), allowed("push")),
            merge: levelsOf(role("merge"), allowed("merge")),
            unprotect: levelsOf(role("unprotect"), allowed("unprotect")),
          },
        },
        app.licensed,
      );
      if (errors.length > 0) throw entry.fail("", errors.join("; "));
      table.branches.push(stampIds(store, branch, "protected_branches"));
    }
  });

  app.onFixture("protected_tags", (value, { store, source }) => {
    const table = store.area<ProtectedRefsArea>("protected_refs", () => ({ branches: [], tags: [] }));
    for (const entry of fixtureEntries(value, "protected_tags", source)) {
      const project = fixtureProject(store, entry);
      const name = fixtureName(entry);
      if (table.tags.some((t) => t.project_id === project.id && t.name === name)) {
        throw entry.fail("name", `"${name}" is listed twice for ${entry.e["project"]}`);
      }
      const level = fixtureLevel(entry, "create_access_level", entry.e["create_access_level"]);
      table.tags.push(
        stampIds(store, buildTag(store, project, name, level ?? ACCESS.maintainer).tag, "protected_tags"),
      );
    }
  });
}
