/**
 * SCIM users of a group [licensed], identified by externalId, through the SCIM base with the SCIM token
 * (FORGEFORM_SCIM_TOKEN). Listed with SCIM paging (startIndex/count), created with POST, changed with PATCH
 * Operations (op "Replace"), deprovisioned with `active: false`, deleted with DELETE. The platform stores only
 * the formatted name, so given and family names are sent on create and never compared.
 */
import { ApiError, apiPath, ClientConfigError, listOf, objectOf, type Shape } from "../api/index.js";
import type { ScimUser as ManifestScimUser, ScimEmail, ScimName } from "../manifest/types.gen.js";
import { lazySchema } from "./declare.js";
import type { Fields, Kind, KindContext, Live, Parent } from "./kind.js";

/**
 * A SCIM user as the SCIM API shows it: the schema's fields (externalId absent for a user provisioned without one,
 * the name and e-mails as far as the platform keeps them), its SCIM id, and the name in the flat form some
 * versions answer with.
 */
type ScimUser = Partial<Omit<ManifestScimUser, "name" | "emails" | "state">> & {
  id: string;
  name?: Partial<ScimName>;
  "name.formatted"?: string;
  emails?: (ScimEmail & { primary?: boolean })[];
};

const schema = lazySchema("groups", "scim_users");
let shape: Shape | undefined;
const SCIM_USER_SHAPE = (): Shape => {
  shape ??= schema().shape({
    id: "string",
    externalId: "string?",
    name: objectOf({ formatted: "string?" }, true),
    "name.formatted": "string?",
    emails: listOf({ value: "string", type: "string?", primary: "boolean?" }, true),
  });
  return shape;
};

const USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User";
const PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

function usersPath(parent: Parent): string {
  return apiPath`/groups/${parent.key}/Users`;
}

const toLive = (u: ScimUser): Live => {
  const formatted = u.name?.formatted ?? u["name.formatted"];
  return {
    key: u.externalId ?? u.id,
    id: u.id,
    fields: {
      externalId: u.externalId ?? u.id,
      userName: u.userName,
      name: formatted === undefined ? {} : { formatted },
      emails: (u.emails ?? []).map((e) => ({ ...e })),
      active: u.active ?? true,
    },
  };
};

/** The full desired names (with given and family names), by prepared fields object, for create. */
const fullNames = new WeakMap<Fields, unknown>();

/** The work address, which the platform keeps as the user's e-mail. */
function workEmail(emails: unknown): string | undefined {
  const list = (emails as ScimEmail[] | undefined) ?? [];
  return (list.find((e) => e.type === "work") ?? list.find((e) => e.primary) ?? list[0])?.value;
}

async function userByExternalId(
  ctx: KindContext,
  parent: Parent,
  key: string,
): Promise<ScimUser | undefined> {
  const found = await ctx.api.list<ScimUser>(usersPath(parent), {
    scim: true,
    query: { filter: `id eq "${key}"` },
    shape: SCIM_USER_SHAPE(),
  });
  return found.find((u) => (u.externalId ?? u.id) === key);
}

export const scimUserKind: Kind = {
  collection: "scim_users",
  segment: "scim_user",
  parents: ["groups"],
  updateMode: "update",

  async notConfigured(ctx, parent, error) {
    // The platform checks the group's SAML SSO before the token (platform-behavior §3.13): a group without it is
    // 404 "does not have SAML SSO configured" whatever the token, while a group with it is 401 for a missing or
    // wrong token. So only a 404 means "no SCIM here"; a 401 or 403 is a token problem worth saying.
    if (error instanceof ApiError) return error.status === 404;
    if (!(error instanceof ClientConfigError)) return false;
    // No SCIM token in this run: ask without one, and the platform's answer tells the two cases apart.
    try {
      await ctx.api.get(usersPath(parent), { scim: true, withoutScimToken: true, query: { count: 1 } });
    } catch (probe) {
      return probe instanceof ApiError && probe.status === 404;
    }
    return false;
  },

  async read(ctx, parent) {
    return (await ctx.api.list<ScimUser>(usersPath(parent), { scim: true, shape: SCIM_USER_SHAPE() })).map(
      toLive,
    );
  },

  async prepare(_ctx, _parent, fields) {
    const name = fields["name"] as { formatted?: string } | undefined;
    const out: Fields = { ...fields };
    if (name) out["name"] = { formatted: name.formatted };
    // Compare e-mails by address and kind only; `primary` is the platform's to decide.
    if (Array.isArray(fields["emails"]))
      out["emails"] = (fields["emails"] as ScimEmail[]).map((e) => ({
        type: e.type ?? "work",
        value: e.value,
      }));
    fullNames.set(out, name);
    return out;
  },

  async create(ctx, parent, desired, key) {
    const payload = {
      schemas: [USER_SCHEMA],
      externalId: key,
      userName: desired["userName"],
      emails: desired["emails"],
      name: fullNames.get(desired) ?? desired["name"],
      ...(desired["active"] === false ? {} : { active: true }),
    };
    const created = await ctx.api.post<ScimUser>(usersPath(parent), {
      scim: true,
      body: payload,
      shape: SCIM_USER_SHAPE(),
    });
    return (await deprovisionNew(ctx, parent, toLive(created), desired)) ?? toLive(created);
  },

  // A user found on re-reading is deprovisioned as its create would have deprovisioned it.
  async finishCreate(ctx, parent, found, desired) {
    return (await deprovisionNew(ctx, parent, found, desired)) ?? found;
  },

  async update(ctx, parent, live, desired, changed) {
    const ops: { op: string; path: string; value: unknown }[] = [];
    for (const name of changed) {
      if (name === "userName") ops.push({ op: "Replace", path: "userName", value: desired["userName"] });
      else if (name === "name")
        ops.push({
          op: "Replace",
          path: "name.formatted",
          value: (desired["name"] as { formatted?: string }).formatted,
        });
      else if (name === "emails")
        ops.push({
          op: "Replace",
          path: 'emails[type eq "work"].value',
          value: workEmail(desired["emails"]),
        });
    }
    // Deprovisioning last: the other changes need the identity to be active.
    if (changed.includes("active")) ops.push({ op: "Replace", path: "active", value: desired["active"] });
    if (ops.length > 0) await patch(ctx, parent, String(live.id), ops);
    const after = await userByExternalId(ctx, parent, live.key);
    return after ? toLive(after) : undefined;
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${usersPath(parent)}${apiPath`/${String(live.id)}`}`, { scim: true });
  },
};

/**
 * What a SCIM user's create does after its POST (which provisions the user active): the PATCH of `active: false`
 * for one declared inactive, unless it is inactive already. The user as it is then, when the PATCH was sent.
 */
async function deprovisionNew(
  ctx: KindContext,
  parent: Parent,
  user: Live,
  desired: Fields,
): Promise<Live | undefined> {
  if (desired["active"] !== false || user.fields["active"] === false) return undefined;
  await patch(ctx, parent, String(user.id), [{ op: "Replace", path: "active", value: false }]);
  return { ...user, fields: { ...user.fields, active: false } };
}

async function patch(
  ctx: KindContext,
  parent: Parent,
  id: string,
  operations: { op: string; path: string; value: unknown }[],
): Promise<void> {
  await ctx.api.patch(`${usersPath(parent)}${apiPath`/${id}`}`, {
    scim: true,
    body: { schemas: [PATCH_SCHEMA], Operations: operations },
  });
}
