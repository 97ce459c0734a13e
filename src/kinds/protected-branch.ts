/**
 * Protected branches and branch wildcards of a project, identified by name. A protection is made whole at once, so
 * the fields a manifest leaves out take the platform's defaults (push and merge by maintainers, no force push, no
 * one else allowed) and are compared with them: a protection weakened by hand shows as drift. The platform (13.12)
 * changes only `code_owner_approval_required` in place (`PATCH`); any other change unprotects the branch and
 * protects it again, a replacement whose reason says that the branch is unprotected between the two calls.
 *
 * Who may push, merge or unprotect is, in the API, a list of entries: the role given (`push_access_level`), then the
 * licensed allowances (`allowed_to_push`: roles, users by id, groups by id). In manifest terms the first role is the
 * level and the rest are the allowances, compared as a set; users and groups are named by username and full path.
 */
import { listOf } from "../api/index.js";
import { accessLevelNumber } from "../manifest/normalize.js";
import { revealSecrets } from "../manifest/secret.js";
import {
  type AccessEntry,
  canonicalEntries,
  entriesDependOn,
  namedEntries,
  pendingDependOn,
  resolveEntries,
  resolvePending,
} from "./access.js";
import { body, createBody } from "./common.js";
import { restCollection, unchecked } from "./declare.js";
import type { Fields, KindContext, KindProblem, Live } from "./kind.js";

const MAINTAINER = 40;
const ADMIN = 60;

/** The three lists of a protected branch, and of the licensed edition only: `unprotect`. */
const LISTS = ["push", "merge", "unprotect"] as const;
type List = (typeof LISTS)[number];

const ENTRY = { access_level: "integer?", user_id: "integer?", group_id: "integer?" } as const;

/** The lists the edition has: `unprotect` only on the licensed one. */
const listsOf = (ctx: KindContext): readonly List[] =>
  ctx.edition === "licensed" ? LISTS : (["push", "merge"] as const);

/** The API's entries as the level (the first role) and the allowances (every other entry, canonical). */
export function splitEntries(entries: readonly AccessEntry[]): {
  level: number | null;
  allowed: AccessEntry[];
} {
  // A role: neither a user nor a group (by id, or by the path of a group this plan creates).
  const first = entries.findIndex((e) => e.user_id == null && e.group_id == null && e.group === undefined);
  return {
    level: first < 0 ? null : (accessLevelNumber(entries[first]!.access_level) ?? null),
    allowed: canonicalEntries(entries.filter((_, i) => i !== first)),
  };
}

/**
 * The manifest's level and allowances as the platform makes them: the level given, or the first role among the
 * allowances, or maintainer when there are none; users and groups by id.
 */
async function levelAndAllowed(
  ctx: KindContext,
  fields: Fields,
  list: List,
  declaredGroups: ReadonlyMap<string, unknown> | undefined,
): Promise<{ level: number | null; allowed: AccessEntry[] }> {
  // Allowances are the licensed edition's: on the core one, a manifest's are an error of their own.
  const written =
    ctx.edition === "licensed" ? ((fields[`allowed_to_${list}`] as AccessEntry[] | undefined) ?? []) : [];
  const resolved = await resolveEntries(ctx, `allowed_to_${list}`, written, declaredGroups);
  const level = fields[`${list}_access_level`];
  if (level !== undefined && level !== null)
    return { level: accessLevelNumber(revealSecrets(level)) ?? null, allowed: canonicalEntries(resolved) };
  if (resolved.length === 0) return { level: MAINTAINER, allowed: [] };
  return splitEntries(resolved);
}

/** The manifest's entries of each prepared protection (for the members and shares it waits for). */
const written = new WeakMap<Fields, Fields>();

export const protectedBranchKind = restCollection(
  {
    collection: "protected_branches",
    segment: "protected_branch",
    parents: ["projects"],
    path: "protected_branches",
    id: { field: "name", type: "string" },
    shape: {
      push_access_levels: listOf(ENTRY),
      merge_access_levels: listOf(ENTRY),
      unprotect_access_levels: listOf(ENTRY, true),
      allow_force_push: "boolean",
      code_owner_approval_required: "boolean?",
    },
    live: (_parent, b, live) => {
      const fields: Fields = { name: b["name"], allow_force_push: b["allow_force_push"] };
      for (const list of LISTS) {
        const entries = b[`${list}_access_levels`] as AccessEntry[] | undefined;
        // The core edition shows no unprotect levels.
        if (entries === undefined) continue;
        const { level, allowed } = splitEntries(entries);
        fields[`${list}_access_level`] = level;
        fields[`allowed_to_${list}`] = allowed;
      }
      if (b["code_owner_approval_required"] !== undefined)
        fields["code_owner_approval_required"] = b["code_owner_approval_required"];
      return { ...live, fields: { ...live.fields, ...fields } };
    },
  },
  (rest) => ({
    replaceReason:
      "the platform (13.12) changes only code_owner_approval_required in place: the branch is unprotected, then protected again, and is unprotected for the moment between the two calls",

    async prepare(ctx, _parent, fields, scope) {
      const licensed = ctx.edition === "licensed";
      const groups = scope?.top?.("groups");
      const lists = await Promise.all(listsOf(ctx).map((list) => levelAndAllowed(ctx, fields, list, groups)));
      // In the schema's order, the platform's defaults where the manifest leaves a field out.
      const out: Fields = { name: fields["name"] };
      listsOf(ctx).forEach((list, i) => {
        out[`${list}_access_level`] = lists[i]!.level;
      });
      out["allow_force_push"] = fields["allow_force_push"] ?? false;
      if (licensed) {
        out["code_owner_approval_required"] = fields["code_owner_approval_required"] ?? false;
        listsOf(ctx).forEach((list, i) => {
          out[`allowed_to_${list}`] = lists[i]!.allowed;
        });
      }
      // Whatever else the manifest sets (an `unchecked:` setting; a licensed field on the core edition, an error).
      const prepared: Fields = { ...out };
      for (const [name, value] of Object.entries(fields)) if (!(name in out)) prepared[name] = value;
      written.set(prepared, fields);
      return prepared;
    },

    check(ctx, _parent, desired) {
      if (ctx.edition === "licensed") return [];
      return LISTS.flatMap((list): KindProblem[] =>
        desired[`${list}_access_level`] === ADMIN
          ? [
              {
                field: `${list}_access_level`,
                message:
                  "admin (60) exists only on the licensed edition, and this platform is the core edition",
              },
            ]
          : [],
      );
    },

    dependsOn(parent, _key, desired) {
      const fields = written.get(desired) ?? {};
      return LISTS.flatMap((list) => [
        ...entriesDependOn(parent.address, fields[`allowed_to_${list}`] as AccessEntry[] | undefined),
        ...pendingDependOn(desired[`allowed_to_${list}`] as AccessEntry[] | undefined),
      ]);
    },

    async display(ctx, field, value) {
      return field.startsWith("allowed_to_") && Array.isArray(value)
        ? namedEntries(ctx, value as AccessEntry[])
        : value;
    },

    async export(ctx, _parent, live) {
      const out: Fields = { ...live.fields };
      for (const list of LISTS) {
        const allowed = live.fields[`allowed_to_${list}`] as AccessEntry[] | undefined;
        if (allowed) out[`allowed_to_${list}`] = await namedEntries(ctx, allowed);
      }
      return out;
    },

    async create(ctx, parent, desired, key) {
      const payload: Fields = {
        ...createBody(desired, ["allow_force_push", "code_owner_approval_required"]),
        name: key,
      };
      for (const list of listsOf(ctx)) {
        const level = desired[`${list}_access_level`];
        if (level !== null && level !== undefined) payload[`${list}_access_level`] = level;
        const allowed = desired[`allowed_to_${list}`] as AccessEntry[] | undefined;
        if (allowed && allowed.length > 0) payload[`allowed_to_${list}`] = await resolvePending(ctx, allowed);
      }
      return rest.toLive(parent, await rest.post(ctx, parent, payload), unchecked(desired));
    },

    async update(ctx, parent, live, desired, changed) {
      // Only code_owner_approval_required changes in place (every other field forces a replacement).
      const updated = await ctx.api.patch<Record<string, unknown>>(rest.itemPath(parent, live.id!), {
        body: body(desired, changed),
        shape: rest.shape(),
      });
      return rest.toLive(parent, updated, unchecked(desired)) satisfies Live;
    },
  }),
);
