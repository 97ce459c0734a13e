/**
 * Protected environments of a project [licensed], identified by name. The interface has no update call, so a
 * change is a replacement (unprotect, then protect again). Deployers named by username or group path in the
 * manifest are resolved to ids, roles written by name to numbers; the list of deployers is compared as a set
 * (access.ts).
 */
import { listOf } from "../api/index.js";
import {
  type AccessEntry,
  canonicalEntries,
  entriesDependOn,
  namedEntries,
  pendingDependOn,
  resolveEntries,
  resolvePending,
} from "./access.js";
import { createBody } from "./common.js";
import { restCollection, unchecked } from "./declare.js";
import type { Fields } from "./kind.js";

/** The deployers as the manifest names them, for each prepared environment. */
const written = new WeakMap<Fields, AccessEntry[]>();

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
      fields: {
        name: e["name"],
        deploy_access_levels: canonicalEntries(e["deploy_access_levels"] as AccessEntry[]),
      },
    }),
  },
  (rest) => ({
    async prepare(ctx, _parent, fields, scope) {
      const levels = (fields["deploy_access_levels"] as AccessEntry[] | undefined) ?? [];
      const out: Fields = {
        ...fields,
        deploy_access_levels: canonicalEntries(
          await resolveEntries(ctx, "deploy_access_levels", levels, scope?.top?.("groups")),
        ),
      };
      written.set(out, levels);
      return out;
    },

    // A deployer the project does not know yet is refused: a user waits for their membership, a group for the
    // project's share with it, when this plan makes them; a group this plan creates, for its create.
    dependsOn: (parent, _key, desired) => [
      ...entriesDependOn(parent.address, written.get(desired)),
      ...pendingDependOn(desired["deploy_access_levels"] as AccessEntry[] | undefined),
    ],

    async export(ctx, _parent, live) {
      const levels = (live.fields["deploy_access_levels"] as AccessEntry[] | undefined) ?? [];
      return { ...live.fields, deploy_access_levels: await namedEntries(ctx, levels) };
    },

    async display(ctx, field, value) {
      return field === "deploy_access_levels" && Array.isArray(value)
        ? namedEntries(ctx, value as AccessEntry[])
        : value;
    },

    async create(ctx, parent, desired, key) {
      const levels = desired["deploy_access_levels"] as AccessEntry[] | undefined;
      const created = await rest.post(ctx, parent, {
        ...createBody(desired, []),
        name: key,
        deploy_access_levels: levels && (await resolvePending(ctx, levels)),
      });
      return rest.toLive(parent, created, unchecked(desired));
    },
  }),
);
