import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authenticateNonGet,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  findProject,
} from "../auth.js";
import { userBasic } from "../entities.js";
import { conflict, forbidden, notFound, validation } from "../errors.js";
import { created, noContent } from "../respond.js";
import type { MemberRec, Store } from "../store.js";

/**
 * Group and project members (`/groups/:id/members`, `/projects/:id/members`, and the `/all` forms that include
 * inherited members). Adding an existing member is 409; validation errors are 400.
 */

type Source = {
  type: "group" | "project";
  id: number;
  manage: boolean;
  chain: { type: "group" | "project"; id: number }[];
};

function source(ctx: Ctx, kind: "groups" | "projects"): Source {
  const ref = ctx.path["id"]!;
  if (kind === "groups") {
    const g = findGroup(ctx, ref);
    const chain = ctx.store
      .ancestorsAndSelf(g)
      .reverse()
      .map((x) => ({ type: "group" as const, id: x.id }));
    return {
      type: "group",
      id: g.id,
      manage: effectiveGroupLevel(ctx.store, ctx.user, g) >= ACCESS.owner,
      chain,
    };
  }
  const p = findProject(ctx, ref);
  const ns = ctx.store.group(p.namespace_id);
  const chain: Source["chain"] = [{ type: "project", id: p.id }];
  if (ns) for (const x of ctx.store.ancestorsAndSelf(ns).reverse()) chain.push({ type: "group", id: x.id });
  return {
    type: "project",
    id: p.id,
    manage: effectiveProjectLevel(ctx.store, ctx.user, p) >= ACCESS.maintainer,
    chain,
  };
}

function memberJson(ctx: Ctx, store: Store, m: MemberRec): Record<string, unknown> {
  const u = store.user(m.user_id);
  return {
    ...(u ? userBasic(ctx, u) : { id: m.user_id }),
    access_level: m.access_level,
    created_at: m.created_at,
    expires_at: m.expires_at,
  };
}

function filterQuery(ctx: Ctx, list: MemberRec[]): MemberRec[] {
  const p = ctx.declare({ query: { type: "string" }, user_ids: { type: "integer[]" } });
  let out = list;
  if (p.query) {
    const t = p.query.toLowerCase();
    out = out.filter((m) => {
      const u = ctx.store.user(m.user_id);
      return u !== undefined && (u.username.toLowerCase().includes(t) || u.name.toLowerCase().includes(t));
    });
  }
  if (p.user_ids) {
    const ids = new Set(p.user_ids);
    out = out.filter((m) => ids.has(m.user_id));
  }
  return out;
}

export function register(app: SandboxApp): void {
  for (const kind of ["groups", "projects"] as const) {
    app.get(`/${kind}/:id/members`, (ctx) => {
      const s = source(ctx, kind);
      const list = filterQuery(ctx, ctx.store.members(s.type, s.id)).sort((a, b) => a.user_id - b.user_id);
      return ctx.paginate(list, (m) => memberJson(ctx, ctx.store, m));
    });

    app.get(`/${kind}/:id/members/all`, (ctx) => {
      const s = source(ctx, kind);
      const best = new Map<number, MemberRec>();
      for (const link of s.chain) {
        for (const m of ctx.store.members(link.type, link.id)) {
          const cur = best.get(m.user_id);
          if (!cur || m.access_level > cur.access_level) best.set(m.user_id, m);
        }
      }
      const list = filterQuery(ctx, [...best.values()]).sort((a, b) => a.user_id - b.user_id);
      return ctx.paginate(list, (m) => memberJson(ctx, ctx.store, m));
    });

    app.get(`/${kind}/:id/members/:user_id`, (ctx) => {
      const s = source(ctx, kind);
      const { user_id } = ctx.declare({ user_id: { type: "integer", required: true } });
      const m = ctx.store.member(s.type, s.id, user_id);
      if (!m) throw notFound("Member");
      return memberJson(ctx, ctx.store, m);
    });

    app.get(`/${kind}/:id/members/all/:user_id`, (ctx) => {
      const s = source(ctx, kind);
      const { user_id } = ctx.declare({ user_id: { type: "integer", required: true } });
      let found: MemberRec | undefined;
      for (const link of s.chain) {
        const m = ctx.store.member(link.type, link.id, user_id);
        if (m && (!found || m.access_level > found.access_level)) found = m;
      }
      if (!found) throw notFound("Member");
      return memberJson(ctx, ctx.store, found);
    });

    app.post(`/${kind}/:id/members`, (ctx) => {
      authenticateNonGet(ctx);
      const s = source(ctx, kind);
      if (!s.manage) throw forbidden();
      const p = ctx.declare({
        user_id: { type: "integer", required: true },
        access_level: { type: "integer", required: true },
        expires_at: { type: "date" },
      });
      const user = ctx.store.user(p.user_id);
      if (!user) throw notFound("User");
      if (ctx.store.member(s.type, s.id, user.id)) throw conflict("Member already exists");
      const allowed = s.type === "group" ? [10, 20, 30, 40, 50] : [10, 20, 30, 40];
      if (!allowed.includes(p.access_level))
        throw validation({ access_level: ["is not included in the list"] });
      const m = ctx.store.setMember(s.type, s.id, user.id, p.access_level);
      m.expires_at = p.expires_at ?? null;
      return created(memberJson(ctx, ctx.store, m));
    });

    app.put(`/${kind}/:id/members/:user_id`, (ctx) => {
      authenticateNonGet(ctx);
      const s = source(ctx, kind);
      if (!s.manage) throw forbidden();
      const p = ctx.declare({
        user_id: { type: "integer", required: true },
        access_level: { type: "integer", required: true },
        expires_at: { type: "date" },
      });
      const m = ctx.store.member(s.type, s.id, p.user_id);
      if (!m) throw notFound("Member");
      const allowed = s.type === "group" ? [10, 20, 30, 40, 50] : [10, 20, 30, 40];
      if (!allowed.includes(p.access_level))
        throw validation({ access_level: ["is not included in the list"] });
      m.access_level = p.access_level;
      if (ctx.has("expires_at")) m.expires_at = p.expires_at ?? null;
      return memberJson(ctx, ctx.store, m);
    });

    app.delete(`/${kind}/:id/members/:user_id`, (ctx) => {
      authenticateNonGet(ctx);
      const s = source(ctx, kind);
      const { user_id } = ctx.declare({ user_id: { type: "integer", required: true } });
      if (!s.manage && ctx.user?.id !== user_id) throw forbidden();
      if (!ctx.store.member(s.type, s.id, user_id)) throw notFound("Member");
      ctx.store.removeMember(s.type, s.id, user_id);
      return noContent();
    });
  }
}
