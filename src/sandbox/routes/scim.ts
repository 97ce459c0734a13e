import { createHash } from "node:crypto";
import type { Ctx, SandboxApp } from "../app.js";
import { HttpError, paramError } from "../errors.js";
import { accessLevel, FixtureError } from "../fixture.js";
import { coerceBoolean } from "../params.js";
import { json, noContent } from "../respond.js";
import type { GroupRec, Store, UserRec } from "../store.js";

/**
 * SCIM 2.0 provisioning of a group's SAML users (contract "SCIM"; platform-behavior §3.13, the 13.x EE interface).
 * Licensed edition only (on core the routes do not exist).
 *
 * Base `/api/scim/v2/groups/:group/Users` (`:group` is the group's id or URL-encoded full path).
 * - Checks in the platform's order: a missing group is 404 SCIM error `Group <path> not found`; a group without
 *   SAML SSO is 404 `Group <path> does not have SAML SSO configured`; then `Authorization: Bearer <scim token>`
 *   must be that group's token, else 401 `{"message":"401 Unauthorized"}` (the platform's own envelope).
 * - Responses are `application/scim+json`. SCIM errors are
 *   `{"schemas":["urn:ietf:params:scim:api:messages:2.0:Error"],"detail":...,"status":<integer>}`.
 * - `GET /Users`: `filter` supports only `id eq "x"` / `externalId eq "x"` and `userName eq "x"` (the value is tried
 *   as an external UID first, then as a username); anything else is 412 `Unsupported Filter`. `startIndex`
 *   (1-based; below 1 read as 1) and `count` (default 20, at most 100, below 0 read as 0). A ListResponse of the
 *   group's SCIM identities, oldest first.
 * - `GET /Users/:id` (`:id` is the external UID); unknown is 404 `Resource <id> not found`.
 * - `POST /Users` (JSON: externalId, userName, emails, name required; active optional): 201 with the user. A new user
 *   is created unless one with that e-mail exists (then that user is linked). The user gets a `group_saml` identity
 *   and a membership of the group (the provider's default role, Guest unless the fixture says otherwise).
 *   An external UID already provisioned in the group, or a username taken by another user, is 409
 *   `Error saving user with {…}: <reason>`.
 * - `PATCH /Users/:id` with `Operations` (ops `Replace` and `Add` only, case-sensitive: others are ignored; `path`
 *   one of id, externalId, userName, displayName, name.formatted, `emails[type eq "work"].value`, active; a missing
 *   path with an object value sets each attribute): 204. `active` false deprovisions (the SAML identity and the
 *   group membership are removed; the SCIM identity stays, inactive); true reprovisions. An e-mail another user has
 *   is 409 `Email has already been taken`.
 * - `DELETE /Users/:id`: 204; the SCIM identity, the SAML identity and the group membership are removed.
 * - Only a SHA-256 of each SCIM token is kept, so neither the state file nor `/-/sandbox/state` holds it.
 *
 * Fixture key `scim`: a list of `{ group: <full path>, token: <scim token>, default_membership_role?: guest…owner,
 * identities?: [{ user: <username>, extern_uid, active?: boolean }] }` (listing a group enables SAML SSO for it).
 */

const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const CONTENT_TYPE = { "Content-Type": "application/scim+json" };

export interface SamlProviderRec {
  id: number;
  group_id: number;
  token_sha256: string;
  default_membership_role: number;
}

export interface ScimIdentityRec {
  id: number;
  group_id: number;
  user_id: number;
  extern_uid: string;
  active: boolean;
  created_at: string;
}

interface ScimArea {
  providers: SamlProviderRec[];
  identities: ScimIdentityRec[];
}

function area(store: Store): ScimArea {
  return store.area<ScimArea>("scim", () => ({ providers: [], identities: [] }));
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

function scimError(status: number, detail: string): HttpError {
  return new HttpError(status, { schemas: [ERROR_SCHEMA], detail, status }, CONTENT_TYPE);
}

/** Ruby `Hash#inspect` of a symbol-keyed hash of strings and booleans. */
function inspect(h: Record<string, string | boolean | undefined>): string {
  const parts = Object.entries(h)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `:${k}=>${typeof v === "string" ? JSON.stringify(v) : String(v)}`);
  return `{${parts.join(", ")}}`;
}

interface Scope {
  group: GroupRec;
  provider: SamlProviderRec;
}

/** Group lookup, SAML check and token check, in the platform's order. */
function authenticate(ctx: Ctx): Scope {
  const ref = ctx.path["group"]!;
  const group = ctx.store.groupByRef(ref);
  if (!group) throw scimError(404, `Group ${ref} not found`);
  const provider = area(ctx.store).providers.find((p) => p.group_id === group.id);
  if (!provider) throw scimError(404, `Group ${ref} does not have SAML SSO configured`);
  const auth = ctx.req.header("authorization") ?? "";
  const m = /^bearer\s+(.+)$/i.exec(auth.trim());
  if (!m || sha256(m[1]!.trim()) !== provider.token_sha256) {
    throw new HttpError(401, { message: "401 Unauthorized" }, CONTENT_TYPE);
  }
  return { group, provider };
}

function userJson(store: Store, identity: ScimIdentityRec): Record<string, unknown> {
  const u = store.user(identity.user_id);
  return {
    schemas: [USER_SCHEMA],
    id: identity.extern_uid,
    active: identity.active,
    "name.formatted": u?.name ?? "",
    userName: u?.username ?? "",
    meta: { resourceType: "User" },
    emails: [{ type: "work", value: u?.email ?? "", primary: true }],
  };
}

function findIdentity(ctx: Ctx, scope: Scope): ScimIdentityRec {
  const id = ctx.path["id"]!;
  const identity = area(ctx.store).identities.find(
    (i) => i.group_id === scope.group.id && i.extern_uid === id,
  );
  if (!identity) throw scimError(404, `Resource ${id} not found`);
  return identity;
}

/** Gives the user the group's SAML identity and (unless already a member) the default membership. */
function provision(store: Store, scope: Scope, identity: ScimIdentityRec): void {
  const user = store.user(identity.user_id);
  if (!user) return;
  user.identities = user.identities.filter((i) => i.saml_provider_id !== scope.provider.id);
  user.identities.push({
    provider: "group_saml",
    extern_uid: identity.extern_uid,
    saml_provider_id: scope.provider.id,
  });
  if (!store.member("group", scope.group.id, user.id)) {
    store.setMember("group", scope.group.id, user.id, scope.provider.default_membership_role);
  }
}

/** Removes the SAML identity and the group membership. */
function deprovision(store: Store, scope: Scope, identity: ScimIdentityRec): void {
  const user = store.user(identity.user_id);
  if (user) user.identities = user.identities.filter((i) => i.saml_provider_id !== scope.provider.id);
  store.removeMember("group", scope.group.id, identity.user_id);
}

/** `ParamsParser`: SCIM attribute paths to stored fields. */
const ATTRIBUTES: Record<string, "extern_uid" | "username" | "name" | "email" | "active"> = {
  id: "extern_uid",
  externalId: "extern_uid",
  userName: "username",
  displayName: "name",
  "name.formatted": "name",
  'emails[type eq "work"].value': "email",
  active: "active",
};

function workEmail(emails: unknown): string | undefined {
  if (!Array.isArray(emails)) return undefined;
  const list = emails.filter((e): e is Record<string, unknown> => typeof e === "object" && e !== null);
  const work = list.find((e) => e["type"] === "work") ?? list.find((e) => e["primary"] === true) ?? list[0];
  return typeof work?.["value"] === "string" ? work["value"] : undefined;
}

function formattedName(name: unknown): string | undefined {
  if (typeof name !== "object" || name === null) return undefined;
  const n = name as Record<string, unknown>;
  if (typeof n["formatted"] === "string" && n["formatted"] !== "") return n["formatted"];
  const parts = [n["givenName"], n["familyName"]].filter(
    (x): x is string => typeof x === "string" && x !== "",
  );
  return parts.length > 0 ? parts.join(" ") : undefined;
}

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("scim must be a list");
  value.forEach((raw, i) => {
    const where = `scim[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw fail(`${where} must be a mapping`);
    const o = raw as Record<string, unknown>;
    const group = typeof o["group"] === "string" ? store.groupByFullPath(o["group"]) : undefined;
    if (!group) throw fail(`${where}.group "${String(o["group"])}" is not in groups`);
    if (typeof o["token"] !== "string" || o["token"] === "")
      throw fail(`${where}.token is required (a string)`);
    const a = area(store);
    if (a.providers.some((p) => p.group_id === group.id))
      throw fail(`${where}: group ${o["group"]} is listed twice`);
    const provider: SamlProviderRec = {
      id: store.nextId("saml_providers"),
      group_id: group.id,
      token_sha256: sha256(o["token"]),
      default_membership_role:
        o["default_membership_role"] === undefined
          ? 10
          : accessLevel(o["default_membership_role"], `${where}.default_membership_role`, src),
    };
    a.providers.push(provider);
    const identities = o["identities"] ?? [];
    if (!Array.isArray(identities)) throw fail(`${where}.identities must be a list`);
    identities.forEach((rawId, k) => {
      const w = `${where}.identities[${k}]`;
      const io = (rawId ?? {}) as Record<string, unknown>;
      const user = typeof io["user"] === "string" ? store.userByUsername(io["user"]) : undefined;
      if (!user) throw fail(`${w}.user "${String(io["user"])}" is not in users`);
      if (typeof io["extern_uid"] !== "string" && typeof io["extern_uid"] !== "number") {
        throw fail(`${w}.extern_uid is required`);
      }
      const uid = String(io["extern_uid"]);
      if (
        a.identities.some((x) => x.group_id === group.id && (x.extern_uid === uid || x.user_id === user.id))
      ) {
        throw fail(
          `${w}: extern_uid "${uid}" or user ${user.username} is provisioned twice in ${o["group"]}`,
        );
      }
      const identity: ScimIdentityRec = {
        id: store.nextId("scim_identities"),
        group_id: group.id,
        user_id: user.id,
        extern_uid: uid,
        active: io["active"] !== false,
        created_at: store.nowIso(),
      };
      a.identities.push(identity);
      if (identity.active) provision(store, { group, provider }, identity);
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("scim", (value, { store, source }) => seed(value, store, source));
  // A SCIM token lets its caller send a body as large as a user's token does.
  app.acceptCredential(
    "bearer",
    (token, path) =>
      path.startsWith("/api/scim/v2/") &&
      area(app.store).providers.some((p) => p.token_sha256 === sha256(token)),
  );
  const opts = { mount: "scim", licensed: true, auth: "none" } as const;
  const base = "/groups/:group/Users";

  app.get(
    base,
    (ctx) => {
      const scope = authenticate(ctx);
      const p = ctx.declare({
        filter: { type: "string" },
        startIndex: { type: "integer" },
        count: { type: "integer" },
      });
      let rows = area(ctx.store)
        .identities.filter((i) => i.group_id === scope.group.id)
        .sort((a, b) => a.id - b.id);
      if (p.filter !== undefined && p.filter.trim() !== "") {
        const parts = p.filter.split(" ");
        if (parts.length !== 3 || parts[1] !== "eq") throw scimError(412, "Unsupported Filter");
        const [attr, , rawValue] = parts as [string, string, string];
        const value = rawValue.replace(/"/g, "");
        const field = ATTRIBUTES[attr];
        if (field === "extern_uid") rows = rows.filter((i) => i.extern_uid === value);
        else if (field === "username") {
          const byUid = rows.filter((i) => i.extern_uid === value);
          rows =
            byUid.length > 0
              ? byUid
              : rows.filter((i) => ctx.store.user(i.user_id)?.username.toLowerCase() === value.toLowerCase());
        } else throw scimError(412, "Unsupported Filter");
      }
      const start = Math.max(p.startIndex ?? 1, 1);
      const count = Math.min(Math.max(p.count ?? 20, 0), 100);
      const page = rows.slice(start - 1, start - 1 + count);
      return json(
        {
          schemas: [LIST_SCHEMA],
          totalResults: rows.length,
          itemsPerPage: count,
          startIndex: start,
          Resources: page.map((i) => userJson(ctx.store, i)),
        },
        200,
        CONTENT_TYPE,
      );
    },
    opts,
  );

  app.get(
    `${base}/:id`,
    (ctx) => {
      const scope = authenticate(ctx);
      return json(userJson(ctx.store, findIdentity(ctx, scope)), 200, CONTENT_TYPE);
    },
    opts,
  );

  app.post(
    base,
    (ctx) => {
      const scope = authenticate(ctx);
      const p = ctx.declare({
        externalId: { type: "string", required: true },
        userName: { type: "string", required: true },
        emails: { type: "json", required: true },
        name: { type: "json", required: true },
        meta: { type: "json" },
        schemas: { type: "json" },
        active: { type: "boolean" },
      });
      const email = workEmail(p.emails);
      const name = formattedName(p.name);
      const parsed = { extern_uid: p.externalId, email, name, username: p.userName, active: p.active };
      const failed = (status: number, reason: string) =>
        scimError(status, `Error saving user with ${inspect(parsed)}: ${reason}`);
      if (!email) throw failed(412, "Email can't be blank");
      if (!name) throw failed(412, "Name can't be blank");
      const a = area(ctx.store);
      if (a.identities.some((i) => i.group_id === scope.group.id && i.extern_uid === p.externalId)) {
        throw failed(409, "Extern uid has already been taken");
      }
      const store = ctx.store;
      let user: UserRec | undefined = store.data.users.find(
        (u) => u.email.toLowerCase() === email.toLowerCase(),
      );
      if (user && a.identities.some((i) => i.group_id === scope.group.id && i.user_id === user?.id)) {
        throw failed(409, "User has already been taken");
      }
      if (!user) {
        const taken = store.userByUsername(p.userName);
        if (taken) throw failed(409, "Username has already been taken");
        if (!/^[a-zA-Z0-9_.][a-zA-Z0-9_.-]*$/.test(p.userName)) {
          throw failed(412, "Username can contain only letters, digits, '_', '-' and '.'");
        }
        user = store.createUser({ username: p.userName, name, email, confirmed: true });
      }
      const identity: ScimIdentityRec = {
        id: store.nextId("scim_identities"),
        group_id: scope.group.id,
        user_id: user.id,
        extern_uid: p.externalId,
        active: p.active !== false,
        created_at: store.nowIso(),
      };
      a.identities.push(identity);
      if (identity.active) provision(store, scope, identity);
      return json(userJson(store, identity), 201, CONTENT_TYPE);
    },
    opts,
  );

  app.patch(
    `${base}/:id`,
    (ctx) => {
      const scope = authenticate(ctx);
      const p = ctx.declare({ Operations: { type: "json", required: true } });
      if (!Array.isArray(p.Operations)) throw paramError("Operations is invalid");
      const identity = findIdentity(ctx, scope);
      const store = ctx.store;
      const changes: {
        extern_uid?: string;
        username?: string;
        name?: string;
        email?: string;
        active?: boolean;
      } = {};
      const apply = (path: string, value: unknown) => {
        const field = ATTRIBUTES[path];
        if (!field) return;
        if (field === "active") {
          const b =
            typeof value === "string" ? coerceBoolean(value) : typeof value === "boolean" ? value : undefined;
          if (b !== undefined) changes.active = b;
        } else if (typeof value === "string" || typeof value === "number") {
          changes[field] = String(value);
        }
      };
      for (const op of p.Operations) {
        if (typeof op !== "object" || op === null) continue;
        const o = op as Record<string, unknown>;
        if (o["op"] !== "Replace" && o["op"] !== "Add") continue;
        if (typeof o["path"] === "string") apply(o["path"], o["value"]);
        else if (typeof o["value"] === "object" && o["value"] !== null && !Array.isArray(o["value"])) {
          for (const [k, v] of Object.entries(o["value"] as Record<string, unknown>)) apply(k, v);
        }
      }
      const user = store.user(identity.user_id);
      if (changes.extern_uid !== undefined && changes.extern_uid !== identity.extern_uid) {
        if (
          area(store).identities.some(
            (i) => i.group_id === scope.group.id && i.extern_uid === changes.extern_uid && i !== identity,
          )
        ) {
          throw scimError(409, "Extern uid has already been taken");
        }
        identity.extern_uid = changes.extern_uid;
        for (const i of user?.identities ?? [])
          if (i.saml_provider_id === scope.provider.id) i.extern_uid = changes.extern_uid;
      }
      if (user) {
        const email = changes.email;
        if (email !== undefined && email.toLowerCase() !== user.email.toLowerCase()) {
          if (
            store.data.users.some((u) => u.id !== user.id && u.email.toLowerCase() === email.toLowerCase())
          ) {
            throw scimError(409, "Email has already been taken");
          }
        }
        const username = changes.username;
        if (username !== undefined && username.toLowerCase() !== user.username.toLowerCase()) {
          if (store.userByUsername(username)) {
            throw scimError(
              412,
              `Error updating ${user.name} with ${inspect({ username })}: Username has already been taken`,
            );
          }
        }
        if (email !== undefined) user.email = email;
        if (username !== undefined) user.username = username;
        if (changes.name !== undefined && changes.name !== "") user.name = changes.name;
      }
      if (changes.active === false && identity.active) {
        identity.active = false;
        deprovision(store, scope, identity);
      } else if (changes.active === true && !identity.active) {
        identity.active = true;
        provision(store, scope, identity);
      }
      return noContent();
    },
    opts,
  );

  app.delete(
    `${base}/:id`,
    (ctx) => {
      const scope = authenticate(ctx);
      const identity = findIdentity(ctx, scope);
      deprovision(ctx.store, scope, identity);
      const a = area(ctx.store);
      a.identities = a.identities.filter((i) => i !== identity);
      return noContent();
    },
    opts,
  );
}
