import type { SandboxApp } from "../app.js";
import { requireAdmin, requireAuth } from "../auth.js";
import { userBasic, userFull } from "../entities.js";
import { conflict, notFound, validation } from "../errors.js";
import { noContent } from "../respond.js";
import { applyExternalRules, type Store, type UserRec } from "../store.js";
import { settingValue } from "./application-settings.js";

/**
 * Users: the caller (`/user`), lookups, and administration of users.
 *
 * External users follow the platform's `User#ensure_user_rights_and_limits`, run when a user is created or its
 * `external` flag changes: an external user gets `can_create_group: false` and `projects_limit: 0` (whatever the
 * request says), so it cannot create top-level groups (nor import one) or personal projects; inside groups its role
 * decides, as for anyone. A user who stops being external gets the defaults back (`can_create_group` true, the
 * `default_projects_limit` application setting) unless the same request sets them. Setting `can_create_group` or
 * `projects_limit` of a user who stays external is kept, as on the platform.
 */

/** `Gitlab::CurrentSettings.default_projects_limit`. */
function defaultProjectsLimit(store: Store): number {
  const v = settingValue(store, "default_projects_limit");
  return typeof v === "number" ? v : 100000;
}

const USERNAME = /^[a-zA-Z0-9_.][a-zA-Z0-9_\-.]*[a-zA-Z0-9_-]$|^[a-zA-Z0-9_]$/;

export function register(app: SandboxApp): void {
  app.get("/user", (ctx) => userFull(ctx, requireAuth(ctx), { self: true }));

  app.get("/users", (ctx) => {
    const p = ctx.declare({
      username: { type: "string" },
      search: { type: "string" },
      active: { type: "boolean", default: false },
      blocked: { type: "boolean", default: false },
      external: { type: "boolean", default: false },
      extern_uid: { type: "string" },
      provider: { type: "string" },
      order_by: {
        type: "string",
        values: ["id", "name", "username", "created_at", "updated_at"],
        default: "id",
      },
      sort: { type: "string", values: ["asc", "desc"], default: "desc" },
      with_custom_attributes: { type: "boolean", default: false },
    });
    let list: UserRec[] = [...ctx.store.data.users];
    if (p.username !== undefined)
      list = list.filter((u) => u.username.toLowerCase() === p.username?.toLowerCase());
    if (p.search) {
      const t = p.search.toLowerCase();
      list = list.filter(
        (u) =>
          u.username.toLowerCase().includes(t) ||
          u.name.toLowerCase().includes(t) ||
          u.email.toLowerCase() === t,
      );
    }
    if (p.active) list = list.filter((u) => u.state === "active");
    if (p.blocked) list = list.filter((u) => u.state === "blocked");
    if (p.external) list = list.filter((u) => u.external);
    if (p.extern_uid !== undefined && p.provider !== undefined) {
      list = list.filter((u) =>
        u.identities.some((i) => i.provider === p.provider && i.extern_uid === p.extern_uid),
      );
    }
    const dir = p.sort === "asc" ? 1 : -1;
    list.sort((a, b) => {
      const ka =
        p.order_by === "name"
          ? a.name
          : p.order_by === "username"
            ? a.username
            : p.order_by === "id"
              ? a.id
              : a.created_at;
      const kb =
        p.order_by === "name"
          ? b.name
          : p.order_by === "username"
            ? b.username
            : p.order_by === "id"
              ? b.id
              : b.created_at;
      const c =
        typeof ka === "number" && typeof kb === "number" ? ka - kb : String(ka).localeCompare(String(kb));
      return c * dir || (a.id - b.id) * dir;
    });
    // Administrators get the full form (UserWithAdmin); everyone else the brief one (UserBasic).
    return ctx.paginate(list, (u) => (ctx.isAdmin ? userFull(ctx, u) : userBasic(ctx, u)));
  });

  app.get("/users/:id", (ctx) => {
    const { id } = ctx.declare({ id: { type: "integer", required: true } });
    const u = ctx.store.user(id);
    if (!u) throw notFound("User");
    return userFull(ctx, u);
  });

  app.post("/users", (ctx) => {
    requireAdmin(ctx);
    const p = ctx.declare({
      email: { type: "string", required: true },
      name: { type: "string", required: true },
      username: { type: "string", required: true },
      password: { type: "string" },
      reset_password: { type: "boolean" },
      force_random_password: { type: "boolean" },
      skip_confirmation: { type: "boolean" },
      admin: { type: "boolean" },
      external: { type: "boolean" },
      can_create_group: { type: "boolean" },
      projects_limit: { type: "integer" },
      bio: { type: "string" },
      location: { type: "string" },
      organization: { type: "string" },
      skype: { type: "string" },
      linkedin: { type: "string" },
      twitter: { type: "string" },
      website_url: { type: "string" },
      private_profile: { type: "boolean" },
      extern_uid: { type: "string" },
      provider: { type: "string" },
    });
    const errors: Record<string, string[]> = {};
    if (ctx.store.data.users.some((u) => u.email.toLowerCase() === p.email.toLowerCase())) {
      throw conflict("Email has already been taken");
    }
    if (ctx.store.userByUsername(p.username)) throw conflict("Username has already been taken");
    if (!USERNAME.test(p.username))
      errors["username"] = [
        "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.",
      ];
    if (!/^[^@\s]+@[^@\s]+$/.test(p.email)) errors["email"] = ["is invalid"];
    if (p.password !== undefined && p.password.length < 8)
      errors["password"] = ["is too short (minimum is 8 characters)"];
    if (Object.keys(errors).length > 0) throw validation(errors);
    const u = ctx.store.createUser({
      username: p.username,
      name: p.name,
      email: p.email,
      admin: p.admin,
      external: p.external,
      can_create_group: p.can_create_group,
      projects_limit: p.projects_limit ?? defaultProjectsLimit(ctx.store),
      bio: p.bio,
      location: p.location,
      organization: p.organization,
      skype: p.skype,
      linkedin: p.linkedin,
      twitter: p.twitter,
      website_url: p.website_url,
      private_profile: p.private_profile,
      confirmed: p.skip_confirmation === true,
    });
    if (p.extern_uid !== undefined && p.provider !== undefined) {
      u.identities.push({ provider: p.provider, extern_uid: p.extern_uid, saml_provider_id: null });
    }
    return userFull(ctx, u);
  });

  app.put("/users/:id", (ctx) => {
    requireAdmin(ctx);
    const u = ctx.store.user(Number(ctx.path["id"]));
    if (!u) throw notFound("User");
    const p = ctx.declare({
      email: { type: "string" },
      name: { type: "string" },
      username: { type: "string" },
      admin: { type: "boolean" },
      external: { type: "boolean" },
      can_create_group: { type: "boolean" },
      projects_limit: { type: "integer" },
      bio: { type: "string" },
      location: { type: "string" },
      organization: { type: "string" },
      private_profile: { type: "boolean" },
    });
    if (p.username !== undefined && p.username !== u.username && ctx.store.userByUsername(p.username)) {
      throw conflict("Username has already been taken");
    }
    const before = {
      external: u.external,
      can_create_group: u.can_create_group,
      projects_limit: u.projects_limit,
    };
    for (const [k, v] of Object.entries(p))
      if (v !== undefined) (u as unknown as Record<string, unknown>)[k] = v;
    if (u.external !== before.external) {
      applyExternalRules(u);
      // Back to the defaults, unless this request changed them (Rails' `*_changed?`).
      if (!u.external && u.can_create_group === before.can_create_group) u.can_create_group = true;
      if (!u.external && u.projects_limit === before.projects_limit)
        u.projects_limit = defaultProjectsLimit(ctx.store);
    }
    return userFull(ctx, u);
  });

  app.delete("/users/:id", (ctx) => {
    requireAdmin(ctx);
    const u = ctx.store.user(Number(ctx.path["id"]));
    if (!u) throw notFound("User");
    ctx.store.data.users = ctx.store.data.users.filter((x) => x.id !== u.id);
    ctx.store.data.members = ctx.store.data.members.filter((m) => m.user_id !== u.id);
    ctx.store.data.tokens = ctx.store.data.tokens.filter((t) => t.user_id !== u.id);
    return noContent();
  });

  for (const [action, state] of [
    ["block", "blocked"],
    ["unblock", "active"],
    ["activate", "active"],
    ["deactivate", "deactivated"],
  ] as const) {
    app.post(`/users/:id/${action}`, (ctx) => {
      requireAdmin(ctx);
      const u = ctx.store.user(Number(ctx.path["id"]));
      if (!u) throw notFound("User");
      u.state = state;
      return true;
    });
  }
}
