/**
 * Protected environments of a project [licensed], identified by name. The interface has no update call, so a
 * change is a replacement (unprotect, then protect again). Deployers named by username or group path in the
 * manifest are resolved to ids; the list of deployers is compared as a set.
 */
import { apiPath, listOf, type Shape } from "../api/index.js";
import { shownText, textOf } from "../manifest/secret.js";
import { createBody, orNotFound } from "./common.js";
import { restCollection, unchecked } from "./declare.js";
import { FieldError, type Fields, type KindContext } from "./kind.js";

interface Level {
  access_level?: number | null;
  user_id?: number | null;
  group_id?: number | null;
  user?: string;
  group?: string;
}

/** One deployer as exactly one of its three keys, sorted so lists compare in any order. */
function canonical(levels: Level[]): Level[] {
  const out = levels.map((l): Level => {
    if (l.user_id != null) return { user_id: l.user_id };
    if (l.group_id != null) return { group_id: l.group_id };
    return { access_level: l.access_level ?? undefined };
  });
  const text = (l: Level) => JSON.stringify(l);
  return out.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
}

/** Names the manifests used for user and group ids (`user_id:5` -> `alice`), kept for showing plans. */
function namesOf(ctx: KindContext): Map<string, string> {
  let names = ctx.memo.get("protected_environments:names") as Map<string, string> | undefined;
  if (!names) {
    names = new Map();
    ctx.memo.set("protected_environments:names", names);
  }
  return names;
}

const USER_SHAPE: Shape = { username: "string" };
const GROUP_SHAPE: Shape = { full_path: "string" };

export const protectedEnvironmentKind = restCollection(
  {
    collection: "protected_environments",
    segment: "protected_environment",
    parents: ["projects"],
    path: "protected_environments",
    id: { field: "name", type: "string" },
    noUpdate: "protected environments have no update call in the API: unprotected and protected again",
    // Deployers are named by username or group path in manifests, by id in the API: each deployer's kind of id
    // (exactly one is set; the others may be null).
    shape: {
      deploy_access_levels: listOf({ access_level: "integer?", user_id: "integer?", group_id: "integer?" }),
    },
    live: (_parent, e, live) => ({
      ...live,
      fields: { name: e["name"], deploy_access_levels: canonical(e["deploy_access_levels"] as Level[]) },
    }),
  },
  (rest) => ({
    async prepare(ctx, _parent, fields) {
      const levels = (fields["deploy_access_levels"] as Level[] | undefined) ?? [];
      const resolved = await Promise.all(
        levels.map(async (l, i): Promise<Level> => {
          // A username or group path may come from a secret: looked up by its value, shown masked.
          if (l.user !== undefined) {
            const id = await ctx.resolve.userId(textOf(l.user) ?? "");
            if (id !== undefined) namesOf(ctx).set(`user_id:${id}`, shownText(l.user));
            if (id === undefined) {
              throw new FieldError(
                `deploy_access_levels[${i}].user`,
                `user ${JSON.stringify(shownText(l.user))} does not exist (or is not visible to this token): check the username`,
              );
            }
            return { user_id: id };
          }
          if (l.group !== undefined) {
            const id = await ctx.resolve.groupId(textOf(l.group) ?? "");
            if (id !== undefined) namesOf(ctx).set(`group_id:${id}`, shownText(l.group));
            if (id === undefined) {
              throw new FieldError(
                `deploy_access_levels[${i}].group`,
                `group ${JSON.stringify(shownText(l.group))} does not exist (or is not visible to this token): check the full path`,
              );
            }
            return { group_id: id };
          }
          return l;
        }),
      );
      return { ...fields, name: fields["name"], deploy_access_levels: canonical(resolved) } satisfies Fields;
    },

    async export(ctx, _parent, live) {
      // Deployers are named by username and group path in manifests, not by id.
      const levels = await Promise.all(
        ((live.fields["deploy_access_levels"] as Level[] | undefined) ?? []).map(
          async (l): Promise<Level> => {
            if (l.user_id != null)
              return {
                user: (
                  await ctx.api.get<{ username: string }>(apiPath`/users/${l.user_id}`, { shape: USER_SHAPE })
                ).username,
              };
            if (l.group_id != null)
              return {
                group: (
                  await ctx.api.get<{ full_path: string }>(apiPath`/groups/${l.group_id}`, {
                    shape: GROUP_SHAPE,
                  })
                ).full_path,
              };
            return { access_level: l.access_level ?? undefined };
          },
        ),
      );
      return { ...live.fields, deploy_access_levels: levels };
    },

    async display(ctx, field, value) {
      if (field !== "deploy_access_levels" || !Array.isArray(value)) return value;
      const names = namesOf(ctx);
      // Ids the manifests did not name are looked up once each, for changed objects only.
      const nameOf = async (kind: "user_id" | "group_id", id: number): Promise<string | undefined> => {
        const key = `${kind}:${id}`;
        if (!names.has(key)) {
          const found =
            kind === "user_id"
              ? (
                  await orNotFound(
                    ctx.api.get<{ username: string }>(apiPath`/users/${id}`, { shape: USER_SHAPE }),
                  )
                )?.username
              : (
                  await orNotFound(
                    ctx.api.get<{ full_path: string }>(apiPath`/groups/${id}`, {
                      query: { with_projects: false },
                      shape: GROUP_SHAPE,
                    }),
                  )
                )?.full_path;
          if (found) names.set(key, found);
        }
        return names.get(key);
      };
      return Promise.all(
        (value as Level[]).map(async (l): Promise<Level> => {
          if (l.user_id != null) {
            const name = await nameOf("user_id", l.user_id);
            return name ? { user: name } : l;
          }
          if (l.group_id != null) {
            const name = await nameOf("group_id", l.group_id);
            return name ? { group: name } : l;
          }
          return l;
        }),
      );
    },

    async create(ctx, parent, desired, key) {
      const created = await rest.post(ctx, parent, {
        ...createBody(desired, []),
        name: key,
        deploy_access_levels: desired["deploy_access_levels"],
      });
      return rest.toLive(parent, created, unchecked(desired));
    },
  }),
);
