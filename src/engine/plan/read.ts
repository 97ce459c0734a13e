/**
 * Reading the live state of one collection through its kind: one bulk read of the owner's collection, the wanted
 * identities passed along for kinds that read just those. A read that fails is a plan problem on the collection.
 * A project that the plan addressed without reading it (its own fields are not declared) and that does not exist
 * shows up here, as `404 Project Not Found` on the first read below it: it is noted, and the project is then
 * planned as missing (item.ts).
 */
import { ApiError } from "../../api/index.js";
import type { Kind, Live, Parent, ReadOptions } from "../../kinds/kind.js";
import type { PlanState } from "./state.js";

/**
 * The live objects of `kind` under `parent`, or undefined when they could not be read (the problem is recorded: on
 * the collection at `where`, or on the project when a project that was read has gone since).
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
      if (!state.missingProjects.has(parent.address)) {
        state.missingProjects.add(parent.address);
        // A project addressed without a read is planned as missing by its own item; one that was read has gone.
        if (!parent.live?.unverified) {
          state.problem(
            parent.address,
            `project ${JSON.stringify(parent.key)} no longer exists or is no longer visible to this token's user (it was read earlier in this plan): plan again`,
            state.sources.get(parent.address),
          );
        }
      }
      return undefined;
    }
    state.problem(where, `could not read ${kind.collection}: ${(error as Error).message}`);
    return undefined;
  }
}
