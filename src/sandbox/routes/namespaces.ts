import type { Ctx, SandboxApp } from "../app.js";
import { canReadGroup, effectiveGroupLevel, requireAuth } from "../auth.js";
import { namespaceJson } from "../entities.js";
import { notFound } from "../errors.js";

/** Namespaces: groups and users' personal namespaces, which share one id sequence. */

function namespaceView(ctx: Ctx, id: number): Record<string, unknown> {
  const out = namespaceJson(ctx, ctx.store, id);
  const g = ctx.store.group(id);
  if (g && effectiveGroupLevel(ctx.store, ctx.user, g) >= 50) {
    const ids = new Set([g.id, ...ctx.store.descendants(g).map((d) => d.id)]);
    const users = new Set(
      ctx.store.data.members
        .filter((m) => m.source_type === "group" && ids.has(m.source_id))
        .map((m) => m.user_id),
    );
    out["members_count_with_descendants"] = users.size;
  }
  if (ctx.licensed) {
    out["plan"] = "default";
    out["trial_ends_on"] = null;
    out["trial"] = false;
  }
  return out;
}

function visibleNamespaceIds(ctx: Ctx): number[] {
  const user = requireAuth(ctx);
  const ids: number[] = [];
  if (ctx.isAdmin) {
    for (const u of ctx.store.data.users) ids.push(u.namespace_id);
    for (const g of ctx.store.data.groups) ids.push(g.id);
  } else {
    ids.push(user.namespace_id);
    for (const g of ctx.store.data.groups) if (effectiveGroupLevel(ctx.store, user, g) > 0) ids.push(g.id);
  }
  return ids.sort((a, b) => a - b);
}

export function register(app: SandboxApp): void {
  app.get("/namespaces", (ctx) => {
    const p = ctx.declare({ search: { type: "string" }, owned_only: { type: "boolean" } });
    let ids = visibleNamespaceIds(ctx);
    if (p.search) {
      const t = p.search.toLowerCase();
      ids = ids.filter((id) => {
        const path = ctx.store.namespaceFullPath(id) ?? "";
        return path.toLowerCase().includes(t);
      });
    }
    return ctx.paginate(ids, (id) => namespaceView(ctx, id));
  });

  app.get("/namespaces/:id", (ctx) => {
    const user = requireAuth(ctx);
    const ref = ctx.path["id"]!;
    let id: number | undefined;
    if (/^\d+$/.test(ref)) id = Number(ref);
    else id = ctx.store.groupByFullPath(ref)?.id ?? ctx.store.userByUsername(ref)?.namespace_id;
    if (id === undefined) throw notFound("Namespace");
    const g = ctx.store.group(id);
    if (g) {
      if (!canReadGroup(ctx.store, user, g)) throw notFound("Namespace");
    } else {
      const owner = ctx.store.userByNamespace(id);
      if (!owner || (owner.id !== user.id && !user.admin)) throw notFound("Namespace");
    }
    return namespaceView(ctx, id);
  });
}
