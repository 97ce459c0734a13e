import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authorizeGroup,
  authorizeProject,
  findGroup,
  findProject,
  requireAdmin,
  requireAuth,
} from "../auth.js";
import { conflict, forbidden, notFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { addError as add, type Errors, featureLevels } from "../model.js";
import type { ParamSpec } from "../params.js";
import { checkUnmodifiedSince, created, noContent } from "../respond.js";
import type { GroupRec, ProjectRec, Store } from "../store.js";

/**
 * CI/CD variables of projects, groups and the instance. The contract has no such endpoints; the sandbox follows
 * the platform's 13.12 interface (docs `api/project_level_variables.md`, `group_level_variables.md`,
 * `instance_level_ci_variables.md`; `lib/api/variables.rb`, `group_variables.rb`, `admin/ci/variables.rb`, the
 * models `Ci::Variable`, `Ci::GroupVariable`, `Ci::InstanceVariable` and their concerns):
 *
 * - Permissions: project variables need `admin_build` on the project (Maintainer; refused, even to administrators,
 *   when the project's CI/CD or repository feature is disabled), group variables `admin_build` on the group
 *   (Maintainer), instance variables an administrator (`/admin/ci/variables`). A guest is 401, a user below the role
 *   403, an invisible project or group 404 (a guest is 401 before the lookup). Whoever may list variables sees their values.
 * - Fields: `variable_type` (`env_var` default, `file`), `key`, `value`, `protected`, `masked`, and
 *   `environment_scope` (default `*`) on project variables and, on the licensed edition only, group variables
 *   (core ignores the parameter and does not show the field). Instance variables have no scope.
 * - Validation (400 `{"message":{"field":[...]}}`): `key` is stripped of surrounding blanks, must be present, at most
 *   255 characters of `[A-Za-z0-9_]` ("can contain only letters, digits and '_'."), unique per owner and scope
 *   ("(KEY) has already been taken"); a masked value must match 13.12's `Maskable::REGEX`
 *   (`\A[a-zA-Z0-9_+=/@:.~-]{8,}\z`: one line, at least 8 characters of the Base64 alphabet plus `@ : . ~`), else
 *   `value` "is invalid"; `environment_scope` must match the platform's environment-scope pattern. Instance values
 *   are at most 10,000 characters and the instance has at most 25 variables (the default plan limit).
 * - `protected` and `masked` are Booleans on project variables; on group and instance variables they are strings
 *   the model casts as Rails does (`"false"`, `"0"`, `"f"`, `"off"` are false, anything else true, `""` none).
 * - Project variables: a `:key` held in several scopes is 409 "There are multiple variables with provided
 *   parameters. Please use 'filter[environment_scope]'" on get, update and delete unless `filter[environment_scope]`
 *   picks one. Group variables in 13.12 have no filter: the first variable with the key is used.
 * - Not found: `404 Variable Not Found`, `404 GroupVariable Not Found`, `404 InstanceVariable Not Found`. Deletes
 *   answer 204; a group variable's delete honours `If-Unmodified-Since` (412).
 *
 * Fixture key `ci_variables` (a list): `{ project: acme/api | group: acme | instance: true, key, value,
 * variable_type, protected, masked, environment_scope }`, validated as the API validates them.
 */

type Owner = "project" | "group" | "instance";

export interface VariableRec {
  id: number;
  owner: Owner;
  /** Project or group id; `null` for instance variables. */
  owner_id: number | null;
  key: string;
  value: string;
  variable_type: "env_var" | "file";
  protected: boolean;
  masked: boolean;
  environment_scope: string;
  created_at: string;
  updated_at: string;
}

interface VariablesArea {
  rows: VariableRec[];
}

const KEY_FORMAT = /^[a-zA-Z0-9_]+$/;
const KEY_MESSAGE = "can contain only letters, digits and '_'.";
/** `Maskable::REGEX` of 13.12 (`~` allowed from 13.12 on). */
export const MASKED_VALUE = /^[a-zA-Z0-9_+=/@:.~-]{8,}$/;
/** `Gitlab::Regex.environment_scope_regex`: environment-name characters plus `*`. */
const SCOPE_FORMAT = /^[a-zA-Z0-9_/${}. *-]+$/;
const SCOPE_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', '*' and spaces";
const INSTANCE_VALUE_MAX = 10_000;
const INSTANCE_LIMIT = 25;

const table = (store: Store) => store.area<VariablesArea>("ci_variables", () => ({ rows: [] }));

/** ActiveRecord's Boolean cast of a string attribute; `undefined` for a blank value. */
export function castBoolean(v: unknown): boolean | undefined {
  if (typeof v === "boolean") return v;
  if (v === undefined || v === null) return undefined;
  const s = String(v);
  if (s === "") return undefined;
  return !["0", "f", "F", "false", "FALSE", "off", "OFF"].includes(s);
}

/** The model's validations of a variable as it would be saved (`rows` are the owner's other variables). */
export function validateVariable(v: VariableRec, others: readonly VariableRec[], scoped: boolean): Errors {
  const errors: Errors = {};
  if (v.key === "") add(errors, "key", "can't be blank");
  if (v.key.length > 255) add(errors, "key", "is too long (maximum is 255 characters)");
  if (!KEY_FORMAT.test(v.key)) add(errors, "key", KEY_MESSAGE);
  if (v.owner === "instance" && v.value.length > INSTANCE_VALUE_MAX)
    add(
      errors,
      "value",
      `The value of the provided variable exceeds the ${INSTANCE_VALUE_MAX} character limit`,
    );
  if (v.masked && !MASKED_VALUE.test(v.value)) add(errors, "value", "is invalid");
  if (scoped) {
    if (v.environment_scope === "") add(errors, "environment_scope", "can't be blank");
    else if (!SCOPE_FORMAT.test(v.environment_scope)) add(errors, "environment_scope", SCOPE_MESSAGE);
  }
  const clash = others.some(
    (o) =>
      o.id !== v.id &&
      o.key === v.key &&
      (v.owner === "instance" || o.environment_scope === v.environment_scope),
  );
  if (clash && v.key !== "") add(errors, "key", `(${v.key}) has already been taken`);
  if (v.owner === "instance" && v.id === 0 && others.length >= INSTANCE_LIMIT)
    add(errors, "base", `Maximum number of ci instance level variables (${INSTANCE_LIMIT}) exceeded`);
  return errors;
}

/** The `Ci::Variable` entity: scope only where the owner has scopes. */
function variableJson(v: VariableRec, scoped: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    variable_type: v.variable_type,
    key: v.key,
    value: v.value,
    protected: v.protected,
    masked: v.masked,
  };
  if (scoped) out["environment_scope"] = v.environment_scope;
  return out;
}

interface Target {
  owner: Owner;
  ownerId: number | null;
  /** Whether variables of this owner have an environment scope (on this edition). */
  scoped: boolean;
  /** The resource name of `404 <name> Not Found`. */
  missing: string;
  /** Booleans typed as in the platform's API (project: Boolean; group, instance: String cast by the model). */
  booleans: "boolean" | "string";
}

function projectTarget(ctx: Ctx): Target {
  requireAuth(ctx); // `before { authenticate! }`: 401 before the project is looked up
  const project = findProject(ctx, ctx.path["id"]!);
  authorizeProject(ctx, project, ACCESS.maintainer);
  if (!buildsAvailable(project)) throw forbidden();
  return { owner: "project", ownerId: project.id, scoped: true, missing: "Variable", booleans: "boolean" };
}

/** `builds_disabled | repository_disabled` prevents `admin_build` whatever the role. */
function buildsAvailable(p: ProjectRec): boolean {
  const levels = featureLevels(p);
  return levels.builds_access_level !== "disabled" && levels.repository_access_level !== "disabled";
}

function groupTarget(ctx: Ctx): Target {
  requireAuth(ctx);
  const group: GroupRec = findGroup(ctx, ctx.path["id"]!);
  authorizeGroup(ctx, group, ACCESS.maintainer);
  return {
    owner: "group",
    ownerId: group.id,
    scoped: ctx.licensed,
    missing: "GroupVariable",
    booleans: "string",
  };
}

function instanceTarget(ctx: Ctx): Target {
  requireAdmin(ctx);
  return { owner: "instance", ownerId: null, scoped: false, missing: "InstanceVariable", booleans: "string" };
}

function rowsOf(store: Store, t: Target): VariableRec[] {
  return table(store)
    .rows.filter((v) => v.owner === t.owner && v.owner_id === t.ownerId)
    .sort((a, b) => a.id - b.id);
}

function fieldSpec(t: Target, keyRequired: boolean): Record<string, ParamSpec> {
  const flag: ParamSpec = { type: t.booleans === "boolean" ? "boolean" : "string" };
  const spec: Record<string, ParamSpec> = {
    key: { type: "string", required: keyRequired },
    value: { type: "string", required: keyRequired },
    protected: flag,
    masked: flag,
    variable_type: { type: "string", values: ["env_var", "file"] },
  };
  if (t.owner === "project" || t.scoped) spec["environment_scope"] = { type: "string" };
  return spec;
}

/** Applies declared parameters to a variable; a blank String-typed flag becomes `null` and fails `masked`. */
function assign(v: VariableRec, p: Record<string, unknown>, t: Target): Errors {
  const errors: Errors = {};
  if (typeof p["value"] === "string") v.value = p["value"];
  if (typeof p["variable_type"] === "string")
    v.variable_type = p["variable_type"] as VariableRec["variable_type"];
  for (const flag of ["protected", "masked"] as const) {
    if (p[flag] === undefined) continue;
    const b = castBoolean(p[flag]);
    if (b === undefined) add(errors, flag, "is not included in the list");
    else v[flag] = b;
  }
  if (t.scoped && typeof p["environment_scope"] === "string") v.environment_scope = p["environment_scope"];
  return errors;
}

/**
 * The project variable `:key` names, narrowed by `filter[environment_scope]`: 409 when several remain
 * (`Ci::VariablesFinder` and `find_variable`).
 */
function findProjectVariable(ctx: Ctx, t: Target): VariableRec {
  const key = ctx.path["key"]!;
  const filter = ctx.params["filter"];
  const scope =
    filter && typeof filter === "object" && !Array.isArray(filter)
      ? (filter as Record<string, unknown>)["environment_scope"]
      : undefined;
  let found = rowsOf(ctx.store, t).filter((v) => v.key === key);
  if (typeof scope === "string" && scope !== "") found = found.filter((v) => v.environment_scope === scope);
  if (found.length > 1)
    throw conflict(
      "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'",
    );
  if (!found[0]) throw notFound(t.missing);
  return found[0];
}

function findByKey(ctx: Ctx, t: Target): VariableRec {
  const v = rowsOf(ctx.store, t).find((x) => x.key === ctx.path["key"]);
  if (!v) throw notFound(t.missing);
  return v;
}

function newVariable(store: Store, t: Target): VariableRec {
  const now = store.nowIso();
  return {
    id: 0,
    owner: t.owner,
    owner_id: t.ownerId,
    key: "",
    value: "",
    variable_type: "env_var",
    protected: false,
    masked: false,
    environment_scope: "*",
    created_at: now,
    updated_at: now,
  };
}

function create(ctx: Ctx, t: Target): unknown {
  const p = ctx.declare(fieldSpec(t, true));
  const v = newVariable(ctx.store, t);
  v.key = String(p["key"]).trim();
  const errors = { ...assign(v, p, t), ...validateVariable(v, rowsOf(ctx.store, t), t.owner !== "instance") };
  if (Object.keys(errors).length > 0) throw validation(errors);
  v.id = ctx.store.nextId("ci_variables");
  table(ctx.store).rows.push(v);
  return created(variableJson(v, t.scoped));
}

function update(ctx: Ctx, t: Target, v: VariableRec, extra: Record<string, ParamSpec> = {}): unknown {
  const p = ctx.declare({ ...fieldSpec(t, false), ...extra });
  const next: VariableRec = { ...v };
  const errors = {
    ...assign(next, p, t),
    ...validateVariable(next, rowsOf(ctx.store, t), t.owner !== "instance"),
  };
  if (Object.keys(errors).length > 0) throw validation(errors);
  Object.assign(v, next, { updated_at: ctx.store.nowIso() });
  return variableJson(v, t.scoped);
}

function remove(ctx: Ctx, v: VariableRec): void {
  table(ctx.store).rows = table(ctx.store).rows.filter((x) => x.id !== v.id);
}

function list(ctx: Ctx, t: Target): unknown {
  return ctx.paginate(rowsOf(ctx.store, t), (v) => variableJson(v, t.scoped));
}

/** The rows a fixture entry or an import gives, validated as the API validates them. */
function seed(store: Store, value: unknown, source: string, licensed: boolean): void {
  const fail = (where: string, msg: string) =>
    new FixtureError(`sandbox: fixture ${source}: ci_variables${where} ${msg}`);
  if (!Array.isArray(value)) throw fail("", "must be a list");
  value.forEach((raw, i) => {
    const where = `[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw fail(where, "must be a mapping");
    const e = raw as Record<string, unknown>;
    let t: Target;
    if (typeof e["project"] === "string") {
      const p = store.projectByFullPath(e["project"]);
      if (!p) throw fail(`${where}.project`, `names "${e["project"]}", which is not in projects`);
      t = { owner: "project", ownerId: p.id, scoped: true, missing: "", booleans: "boolean" };
    } else if (typeof e["group"] === "string") {
      const g = store.groupByFullPath(e["group"]);
      if (!g) throw fail(`${where}.group`, `names "${e["group"]}", which is not in groups`);
      t = { owner: "group", ownerId: g.id, scoped: licensed, missing: "", booleans: "string" };
    } else if (e["instance"] === true) {
      t = { owner: "instance", ownerId: null, scoped: false, missing: "", booleans: "string" };
    } else throw fail(where, "needs project (a full path), group (a full path) or instance: true");
    if (typeof e["key"] !== "string") throw fail(`${where}.key`, "is required (a string)");
    if (e["value"] !== undefined && typeof e["value"] !== "string")
      throw fail(`${where}.value`, "must be a string");
    if (e["variable_type"] !== undefined && e["variable_type"] !== "env_var" && e["variable_type"] !== "file")
      throw fail(`${where}.variable_type`, "must be env_var or file");
    if (e["environment_scope"] !== undefined && !t.scoped)
      throw fail(`${where}.environment_scope`, `is not kept for ${t.owner} variables on this edition`);
    const v = newVariable(store, t);
    v.key = e["key"].trim();
    const errors = {
      ...assign(v, { ...e, value: e["value"] ?? "" }, t),
      ...validateVariable(v, rowsOf(store, t), t.owner !== "instance"),
    };
    if (Object.keys(errors).length > 0) {
      const text = Object.entries(errors)
        .map(([k, msgs]) => `${k} ${msgs.join(", ")}`)
        .join("; ");
      throw fail(where, `(${v.key}): ${text}`);
    }
    v.id = store.nextId("ci_variables");
    table(store).rows.push(v);
  });
}

export function register(app: SandboxApp): void {
  const filter: Record<string, ParamSpec> = { filter: { type: "hash" } };

  app.get("/projects/:id/variables", (ctx) => list(ctx, projectTarget(ctx)));
  app.get("/projects/:id/variables/:key", (ctx) => {
    const t = projectTarget(ctx);
    return variableJson(findProjectVariable(ctx, t), t.scoped);
  });
  app.post("/projects/:id/variables", (ctx) => create(ctx, projectTarget(ctx)));
  app.put("/projects/:id/variables/:key", (ctx) => {
    const t = projectTarget(ctx);
    return update(ctx, t, findProjectVariable(ctx, t), filter);
  });
  app.delete("/projects/:id/variables/:key", (ctx) => {
    const t = projectTarget(ctx);
    remove(ctx, findProjectVariable(ctx, t));
    return noContent();
  });

  app.get("/groups/:id/variables", (ctx) => list(ctx, groupTarget(ctx)));
  app.get("/groups/:id/variables/:key", (ctx) => {
    const t = groupTarget(ctx);
    return variableJson(findByKey(ctx, t), t.scoped);
  });
  app.post("/groups/:id/variables", (ctx) => create(ctx, groupTarget(ctx)));
  app.put("/groups/:id/variables/:key", (ctx) => {
    const t = groupTarget(ctx);
    return update(ctx, t, findByKey(ctx, t));
  });
  app.delete("/groups/:id/variables/:key", (ctx) => {
    const t = groupTarget(ctx);
    const v = findByKey(ctx, t);
    checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), v.updated_at);
    remove(ctx, v);
    return noContent();
  });

  app.get("/admin/ci/variables", (ctx) => list(ctx, instanceTarget(ctx)));
  app.get("/admin/ci/variables/:key", (ctx) => {
    const t = instanceTarget(ctx);
    return variableJson(findByKey(ctx, t), false);
  });
  app.post("/admin/ci/variables", (ctx) => create(ctx, instanceTarget(ctx)));
  app.put("/admin/ci/variables/:key", (ctx) => {
    const t = instanceTarget(ctx);
    return update(ctx, t, findByKey(ctx, t));
  });
  app.delete("/admin/ci/variables/:key", (ctx) => {
    const t = instanceTarget(ctx);
    remove(ctx, findByKey(ctx, t));
    return noContent();
  });

  app.onFixture("ci_variables", (value, { store, source }) => seed(store, value, source, app.licensed));
}
