/**
 * Projects, identified by full path. forgeform does not create, change or delete projects: they are the owners of
 * the collections it manages (schedules, badges, protected environments...). A declared project that does not
 * exist is a plan error.
 */
import { apiPath } from "../api/index.js";
import { orNotFound } from "./common.js";
import type { Kind, Live } from "./kind.js";

/** Above this many declared projects, listing each top-level group's projects is cheaper than one GET each. */
const BULK_THRESHOLD = 20;

interface ApiProject {
  id: number;
  path_with_namespace: string;
  default_branch?: string | null;
}

const toLive = (p: ApiProject): Live => ({ key: p.path_with_namespace, id: p.id, fields: {}, raw: p });

export const projectKind: Kind = {
  collection: "projects",
  segment: "project",
  parents: ["instance"],
  updateMode: "update",
  explicitDeleteOnly: true,

  async read(ctx, _parent, wanted) {
    const lower = new Map(wanted.map((w) => [w.toLowerCase(), w]));
    const found = new Map<string, Live>();
    if (wanted.length > BULK_THRESHOLD) {
      const roots = [...new Set(wanted.map((w) => w.split("/")[0]!))];
      await Promise.all(
        roots.map(async (root) => {
          const projects = await orNotFound(
            ctx.api.list<ApiProject>(apiPath`/groups/${root}/projects`, {
              query: { include_subgroups: true },
            }),
          );
          for (const p of projects ?? []) {
            if (lower.has(p.path_with_namespace.toLowerCase()))
              found.set(p.path_with_namespace.toLowerCase(), toLive(p));
          }
        }),
      );
    }
    const missing = [...lower.keys()].filter((k) => !found.has(k));
    await Promise.all(
      missing.map(async (k) => {
        const p = await orNotFound(ctx.api.get<ApiProject>(apiPath`/projects/${lower.get(k)!}`));
        if (p) found.set(k, toLive(p));
      }),
    );
    // Report the manifest's spelling of the path, so identities match case-insensitively as the platform does.
    return [...found.entries()].map(([k, live]) => ({ ...live, key: lower.get(k) ?? live.key }));
  },
};
