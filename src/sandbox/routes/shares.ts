import type { SandboxApp } from "../app.js";
import {
  ACCESS,
  ACCESS_LEVELS,
  authenticateNonGet,
  authorizeProject,
  effectiveGroupLevel,
  findGroup,
  findProject,
  groupAccessLevel,
} from "../auth.js";
import { badRequest, forbidden, HttpError, notFound } from "../errors.js";
import { created, noContent } from "../respond.js";
import type { GroupRec, ProjectRec, Store, UserRec } from "../store.js";
import { detail } from "./groups.js";
import { PROJECT_LEVELS, toSentence } from "./members.js";

/**
 * Sharing a group or a project with a group (`POST`/`DELETE /groups/:id/share[/:group_id]`,
 * `POST`/`DELETE /projects/:id/share[/:group_id]`). The contract lists the group endpoints without their rules; the
 * sandbox follows the platform's 13.12 `lib/api/groups.rb`, `lib/api/projects.rb`, `Groups::GroupLinks` and
 * `Projects::GroupLinks` services and the `GroupGroupLink`/`ProjectGroupLink` models:
 *
 * - Writes need a signed-in user (401). Parameters come first: `group_id` (integer) and `group_access` are
 *   required, `expires_at` is a date (`YYYY-MM-DD`, past dates allowed, as the platform's models do not check);
 *   `group_access` takes 10 to 50 for a group and 10 to 40 for a project (`group_access does not have a valid
 *   value`).
 * - A group: the group to share is found (404 `Group Not Found`), then the group it is shared with (the same 404
 *   when the caller cannot see it); a caller who is not Owner of the shared group gets 404 `{"message":"Not
 *   Found"}` (the service's answer, not a 403). Sharing again with the same group is 409 `{"message":"Shared group
 *   The group has already been shared with this group"}`. The answer is 201 with the group's details.
 * - A project: Maintainer is needed (403). When the project's namespace, or a group above it, has
 *   `share_with_group_lock`, the answer is 400 `{"message":"The project sharing with group is disabled"}` (the
 *   platform copies a parent's lock into its subgroups; looking up the ancestors gives the same answer without the
 *   copy). The group must be one the caller belongs to (`read_namespace`: a member of the group or of a group above
 *   it; administrators always), else 404 `{"message":"Not Found"}`, whether it exists or not. 409 when already
 *   shared (`Group already shared with this group`) or when the group holds the project (`Project cannot be shared
 *   with the group it is in or one of its ancestors.`). The answer is 201 `{id, project_id, group_id,
 *   group_access, expires_at}`.
 * - `DELETE` of a share that is not there is 404 `{"message":"404 Group Link Not Found"}`; 204 otherwise. A
 *   project's needs Maintainer (403). A group's needs Owner of the shared group (403): the 13.12 service removes the
 *   link for anyone who can see the group, which later releases correct; the sandbox refuses, as they do.
 * - 13.12 has no endpoint that changes a share: a new level or expiry is a `DELETE` and a new `POST`.
 * - Members of the invited group get the lower of their level there and the share's on the shared group, its
 *   subgroups and projects (auth.ts), or on the project. `shared_with_groups` of `GET /projects/:id` lists every
 *   share; that of `GET /groups/:id` only the groups public or visible to the caller (entities.ts).
 */

/** The service's 404 `{"message":"Not Found"}` (`render_api_error!('Not Found', 404)`). */
const serviceNotFound = () => new HttpError(404, { message: "Not Found" });

/** `Project#allowed_to_share_with_group?`: no `share_with_group_lock` on the namespace or a group above it. */
function sharingLocked(store: Store, project: ProjectRec): boolean {
  const ns = store.group(project.namespace_id);
  return ns !== undefined && store.ancestorsAndSelf(ns).some((g) => g.share_with_group_lock);
}

/** `read_namespace` on a group: a member of it or of a group above it; administrators always. */
function canReadNamespace(store: Store, user: UserRec, group: GroupRec): boolean {
  return user.admin || groupAccessLevel(store, user, group) > 0;
}

export function register(app: SandboxApp): void {
  app.post("/groups/:id/share", (ctx) => {
    authenticateNonGet(ctx);
    const p = ctx.declare({
      group_id: { type: "integer", required: true },
      group_access: { type: "integer", required: true, values: ACCESS_LEVELS },
      expires_at: { type: "date" },
    });
    const g = findGroup(ctx, ctx.path["id"]!);
    const invited = findGroup(ctx, String(p.group_id));
    if (effectiveGroupLevel(ctx.store, ctx.user, g) < ACCESS.owner) throw serviceNotFound();
    if (g.shared_with_groups.some((s) => s.group_id === invited.id)) {
      throw new HttpError(409, { message: "Shared group The group has already been shared with this group" });
    }
    g.shared_with_groups.push({
      group_id: invited.id,
      group_access_level: p.group_access,
      expires_at: p.expires_at ?? null,
    });
    return created(detail(ctx, g));
  });

  app.delete("/groups/:id/share/:group_id", (ctx) => {
    authenticateNonGet(ctx);
    const { group_id } = ctx.declare({ group_id: { type: "integer", required: true } });
    const g = findGroup(ctx, ctx.path["id"]!);
    if (!g.shared_with_groups.some((s) => s.group_id === group_id)) throw notFound("Group Link");
    if (effectiveGroupLevel(ctx.store, ctx.user, g) < ACCESS.owner) throw forbidden();
    g.shared_with_groups = g.shared_with_groups.filter((s) => s.group_id !== group_id);
    return noContent();
  });

  app.post("/projects/:id/share", (ctx) => {
    authenticateNonGet(ctx);
    const input = ctx.declare({
      group_id: { type: "integer", required: true },
      group_access: { type: "integer", required: true, values: PROJECT_LEVELS },
      expires_at: { type: "date" },
    });
    const project = findProject(ctx, ctx.path["id"]!);
    const user = authorizeProject(ctx, project, ACCESS.maintainer);
    if (sharingLocked(ctx.store, project)) throw badRequest("The project sharing with group is disabled");
    const g = ctx.store.group(input.group_id);
    if (!g || !canReadNamespace(ctx.store, user, g)) throw serviceNotFound();
    const problems: string[] = [];
    if (project.shared_with_groups.some((s) => s.group_id === g.id)) {
      problems.push("Group already shared with this group");
    }
    const ns = ctx.store.group(project.namespace_id);
    if (ns && ctx.store.ancestorsAndSelf(ns).some((a) => a.id === g.id)) {
      problems.push("Project cannot be shared with the group it is in or one of its ancestors.");
    }
    if (problems.length > 0) throw new HttpError(409, { message: toSentence(problems) });
    const link = {
      group_id: g.id,
      group_access_level: input.group_access,
      expires_at: input.expires_at ?? null,
    };
    project.shared_with_groups.push(link);
    return created({
      id: ctx.store.nextId("project_group_links"),
      project_id: project.id,
      group_id: g.id,
      group_access: link.group_access_level,
      expires_at: link.expires_at,
    });
  });

  app.delete("/projects/:id/share/:group_id", (ctx) => {
    authenticateNonGet(ctx);
    const { group_id } = ctx.declare({ group_id: { type: "integer", required: true } });
    const project = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, project, ACCESS.maintainer);
    if (!project.shared_with_groups.some((s) => s.group_id === group_id)) throw notFound("Group Link");
    project.shared_with_groups = project.shared_with_groups.filter((s) => s.group_id !== group_id);
    return noContent();
  });
}
