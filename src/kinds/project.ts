/**
 * Projects, identified by full path. forgeform does not create, change or delete projects: they are the owners of
 * the collections it manages (schedules, badges, protected environments...). The API takes a project's URL-encoded
 * full path wherever it takes its id, so a project costs no request of its own: it is addressed by path, and a
 * project that does not exist (or is not visible to the token's user) shows up as `404 Project Not Found` on the
 * first read of one of its collections, which the engine reports once, as a plan error on the project.
 */
import type { Kind } from "./kind.js";

export const projectKind: Kind = {
  collection: "projects",
  segment: "project",
  parents: ["instance"],
  updateMode: "update",
  explicitDeleteOnly: true,

  async read(_ctx, _parent, wanted) {
    return wanted.map((path) => ({ key: path, id: path, fields: {} }));
  },
};
