/**
 * Project and group badges, identified by name. A project's badge list also holds the badges of its ancestor
 * groups (`kind: group`): those are read-only here and are managed in the group's manifest.
 */
import { apiPath, type Shape } from "../api/index.js";
import { body, ownerPath, pick } from "./common.js";
import type { Kind, Live, Parent } from "./kind.js";

const FIELDS = ["name", "link_url", "image_url"] as const;

interface ApiBadge extends Record<string, unknown> {
  id: number;
  name?: string | null;
  kind?: string;
  link_url: string;
  image_url: string;
}

const SHAPE: Shape = {
  id: "integer",
  link_url: "string",
  image_url: "string",
  name: "string?",
  kind: "string?",
};

function toLive(parent: Parent, b: ApiBadge): Live {
  const inherited = parent.collection === "projects" && b.kind === "group";
  return {
    key: b.name ?? `${b.link_url} ${b.image_url}`,
    id: b.id,
    fields: pick(b, FIELDS),
    ...(inherited
      ? { readOnly: "a group badge inherited by the project; manage it in its group's manifest" }
      : {}),
  };
}

export const badgeKind: Kind = {
  collection: "badges",
  segment: "badge",
  parents: ["groups", "projects"],
  updateMode: "update",

  async read(ctx, parent) {
    const badges = await ctx.api.list<ApiBadge>(`${ownerPath(parent)}/badges`, {
      shape: SHAPE,
    });
    return badges.map((b) => toLive(parent, b));
  },

  async create(ctx, parent, desired) {
    return toLive(
      parent,
      await ctx.api.post<ApiBadge>(`${ownerPath(parent)}/badges`, {
        body: body(desired, FIELDS),
        shape: SHAPE,
      }),
    );
  },

  async update(ctx, parent, live, desired, changed) {
    const updated = await ctx.api.put<ApiBadge>(`${ownerPath(parent)}${apiPath`/badges/${live.id!}`}`, {
      body: body(desired, changed),
      shape: SHAPE,
    });
    return toLive(parent, updated);
  },

  async remove(ctx, parent, live) {
    await ctx.api.delete(`${ownerPath(parent)}${apiPath`/badges/${live.id!}`}`);
  },
};
