/**
 * Protected tags and tag wildcards of a project, identified by name: who may create matching tags. The platform has
 * no call that changes one, so a change unprotects the tag and protects it again (a replacement whose reason says
 * that the tag is unprotected between the two calls). Left out, `create_access_level` is the platform's default,
 * maintainer, and is compared with it.
 */
import { listOf } from "../api/index.js";
import { accessLevelNumber } from "../manifest/normalize.js";
import { revealSecrets } from "../manifest/secret.js";
import type { AccessEntry } from "./access.js";
import { createBody } from "./common.js";
import { restCollection, unchecked } from "./declare.js";
import { splitEntries } from "./protected-branch.js";

const MAINTAINER = 40;
const ADMIN = 60;

export const protectedTagKind = restCollection(
  {
    collection: "protected_tags",
    segment: "protected_tag",
    parents: ["projects"],
    path: "protected_tags",
    id: { field: "name", type: "string" },
    noUpdate:
      "protected tags have no update call in the API: the tag is unprotected, then protected again, and is unprotected for the moment between the two calls",
    shape: {
      create_access_levels: listOf({ access_level: "integer?", user_id: "integer?", group_id: "integer?" }),
    },
    live: (_parent, t, live) => ({
      ...live,
      fields: {
        name: t["name"],
        create_access_level: splitEntries(t["create_access_levels"] as AccessEntry[]).level,
      },
    }),
  },
  (rest) => ({
    async prepare(_ctx, _parent, fields) {
      return {
        ...fields,
        create_access_level: accessLevelNumber(revealSecrets(fields["create_access_level"])) ?? MAINTAINER,
      };
    },

    check(ctx, _parent, desired) {
      return ctx.edition === "core" && desired["create_access_level"] === ADMIN
        ? [
            {
              field: "create_access_level",
              message:
                "admin (60) exists only on the licensed edition, and this platform is the core edition",
            },
          ]
        : [];
    },

    async create(ctx, parent, desired, key) {
      const created = await rest.post(ctx, parent, {
        ...createBody(desired, ["create_access_level"]),
        name: key,
      });
      return rest.toLive(parent, created, unchecked(desired));
    },
  }),
);
