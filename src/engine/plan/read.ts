/**
 * Reading the live state of one collection through its kind: one bulk read of the owner's collection, the wanted
 * identities passed along for kinds that read just those. A read that fails is a plan problem on the collection;
 * a project that does not exist shows up here (projects are addressed by path without a lookup of their own), and
 * is reported once, with the closest path the platform knows.
 */
import { ApiError, apiPath } from "../../api/index.js";
import { listSubgroups } from "../../kinds/group.js";
import type { Kind, KindContext, Live, Parent, ReadOptions } from "../../kinds/kind.js";
import { didYouMean } from "../../manifest/diagnostics.js";
import type { PlanState } from "./state.js";

/**
 * The live objects of `kind` under `parent`, or undefined when they could not be read (the problem is recorded:
 * on the project when it does not exist, else on the collection at `where`).
 */
export async function readCollection(
  state: PlanState,
  kind: Kind,
  parent: Parent,
  wanted: string[],
  options: ReadOptions,
  where: string,
): Promise<Live[] | undefined> {
  try {
    return await kind.read(state.ctx, parent, wanted, options);
  } catch (error) {
    if (
      parent.collection === "projects" &&
      error instanceof ApiError &&
      error.status === 404 &&
      /Project Not Found/i.test(error.platformMessage)
    ) {
      // Projects are addressed by path without a lookup of their own: this is where a missing one shows.
      if (!state.missingProjects.has(parent.address)) {
        state.missingProjects.add(parent.address);
        const hint = await missingProjectHint(state.ctx, parent.key);
        state.problem(
          parent.address,
          `project ${JSON.stringify(parent.key)} does not exist or is not visible to this token's user, and forgeform does not create projects: create it first, or check the path${hint}`,
          state.sources.get(parent.address),
        );
      }
      return undefined;
    }
    state.problem(where, `could not read ${kind.collection}: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * For a declared project the platform does not know: the closest path among its group's projects (a typo in its
 * name), or that the group is unknown too, with the closest of its parent's subgroups (a typo above it). One
 * listing per group, read only on this error.
 */
async function missingProjectHint(ctx: KindContext, path: string): Promise<string> {
  const slash = path.lastIndexOf("/");
  if (slash < 0) return "";
  const group = path.slice(0, slash);
  const key = `missing-project:${group.toLowerCase()}`;
  let listing = ctx.memo.get(key) as Promise<string[] | undefined> | undefined;
  if (!listing) {
    listing = ctx.api
      .list<{ path_with_namespace: string }>(apiPath`/groups/${group}/projects`, {
        query: { simple: true, with_shared: false },
        shape: { path_with_namespace: "string" },
      })
      .then(
        (projects) => projects.map((p) => p.path_with_namespace),
        // Any other failure gives no hint: the missing project is reported all the same.
        (error: unknown) => (error instanceof ApiError && error.status === 404 ? undefined : []),
      );
    ctx.memo.set(key, listing);
  }
  const paths = await listing;
  if (paths === undefined) {
    const above = group.lastIndexOf("/");
    const siblings =
      above < 0 ? [] : ((await listSubgroups(ctx, group.slice(0, above)).catch(() => [])) ?? []);
    const nearGroup = didYouMean(
      group,
      siblings.map((g) => g.full_path),
    );
    return `; ${JSON.stringify(group)} is not a group this token's user can see either${nearGroup ? `: did you mean group ${JSON.stringify(nearGroup)}?` : ""}`;
  }
  const near = didYouMean(path, paths);
  return near ? `; did you mean ${JSON.stringify(near)}?` : "";
}
