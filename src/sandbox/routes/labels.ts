import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  canReadGroup,
  canReadProject,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  findProject,
  hasPublicAccess,
  requireAuth,
} from "../auth.js";
import { conflict, forbidden, internalError, notFound, validation } from "../errors.js";
import { FixtureError } from "../fixture.js";
import type { ParamSpec } from "../params.js";
import { checkUnmodifiedSince, created, noContent, Reply } from "../respond.js";
import type { GroupRec, ProjectRec, Store, UserRec } from "../store.js";
import { canReadIssue, issuesArea } from "./issues.js";
import { mergeRequestsArea } from "./merge-requests.js";

/**
 * Project and group labels (`/projects/:id/labels`, `/groups/:id/labels`). The contract has no label endpoints; the
 * sandbox follows the platform's 13.12 `lib/api/labels.rb`, `lib/api/group_labels.rb`, `lib/api/subscriptions.rb`,
 * `API::Helpers::LabelHelpers`, `LabelsFinder`, `Labels::{Create,Update}Service` and the `Label`, `ProjectLabel`,
 * `GroupLabel` and `LabelPriority` models:
 *
 * - Every route needs a signed-in user (`authenticate!`): 401 for a guest, except that a GET on a project or group
 *   the guest cannot see is its 404 (the contract's rule for GETs on invisible sources). Writes need Reporter on
 *   the project or group (`admin_label`): 403 below.
 * - A project lists its own labels and those of its group and, with `include_ancestor_groups` (default true), the
 *   groups above; a group lists its own and, by default, its ancestors' (`include_ancestor_groups`),
 *   `include_descendant_groups` (default false) adds its subgroups', and `only_group_labels=false` (default true)
 *   adds the project labels of its projects (of its subgroups' too with `include_descendant_groups`). Groups the
 *   caller cannot see are left out. Sorted by title in byte order (the platform's database order: `Zebra` before
 *   `apple`); `search` matches a part of the title or description, ignoring case. `with_counts=true` adds
 *   `open_issues_count`, `closed_issues_count` and `open_merge_requests_count`, counted (as the caller may see
 *   them) in the label's own project, or in the projects directly in the label's group.
 * - `GET .../labels/:name`: `:name` is an id or a title (an id wins), among the labels the list shows (`include_*`
 *   as for the list): `{"message":"404 Label Not Found"}` otherwise.
 * - Titles are compared case-sensitively: `Bug` and `bug` are two labels. A title is stripped of HTML tags and of
 *   surrounding blanks; it must not be blank (`can't be blank`), contain a comma (`is invalid`) or be longer than
 *   255 characters, and is unique among the labels of the same project or group (`has already been taken`).
 *   Creating a label whose title a label of the project or group, or of a group above, already has is 409 `Label
 *   already exists` (the title as given is compared); renaming a project label to a title of its group's own labels
 *   is 400 `already exists at group level for <group name>. Please choose another one.`.
 * - `color` is required on create: `#` and 3 or 6 hex digits, kept as given (`#fff`, `#FFAABB`, `#ffaabb`), or one
 *   of the 147 CSS color names (any case), kept as the platform's upper-case hex (`red` -> `#FF0000`; the list has
 *   no `rebeccapurple` in 13.12). Anything else is 400 `{"message":{"color":["must be a valid color code"]}}`.
 *   `text_color` is `#333333` on light colors (red+green+blue above 500) and `#FFFFFF` otherwise.
 * - `description` is stripped of HTML tags; an empty description is ignored, as the model's setter ignores blank
 *   values (so `PUT` cannot clear one). `description_html` is the description with HTML escaped (the sandbox does
 *   not render Markdown).
 * - Updates: `PUT .../labels/:name` (id or title), and the deprecated `PUT .../labels` with exactly one of
 *   `label_id`/`name`; at least one of `new_name`, `color`, `description` (and `priority` for projects) is
 *   required. Deletes: `DELETE .../labels/:name`, and the deprecated `DELETE .../labels` (`label_id` or `name` for
 *   a project, `name` for a group); 204, honouring `If-Unmodified-Since`. Through a project they reach the
 *   project's labels and its own group's (not those of groups further up: 404), as in 13.12, where the project's
 *   Reporter may so change its group's labels. Through a group they reach the group's own labels.
 * - `priority` (projects only): an integer set per project on any label the project shows (`null` removes it); a
 *   negative priority fails the platform's `prioritize!` after the label is saved: 500, the label kept.
 * - Entities: `{id, name, color, description, description_html, text_color, [counts], subscribed}`, plus `priority`
 *   and `is_project_label` on project routes.
 * - `POST .../labels/:label_id/subscribe` / `unsubscribe`: 201 with the label, 304 (empty) when nothing changes.
 *   Through a project the subscription is the project's; through a group it is global.
 * - Group labels go into the group export archive and come back with an import (routes/group-import-export.ts);
 *   rows the model refuses are left out.
 *
 * Fixture key `labels` (a list): `{ project: acme/api, name: bug, color: "#d9534f", description: ..., priority: 1 }`
 * or `{ group: acme, name: ..., color: ... }`; `color` defaults to the platform's `#6699cc`.
 */

export interface LabelRec {
  id: number;
  /** The group of a group label, `null` for a project label. */
  group_id: number | null;
  /** The project of a project label, `null` for a group label. */
  project_id: number | null;
  title: string;
  color: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

interface LabelsArea {
  labels: LabelRec[];
  /** `label_priorities`: a project's priority of a label (its own or a group's). */
  priorities: { project_id: number; label_id: number; priority: number }[];
  /** `subscriptions`: per project (`project_id`) or global (`null`). */
  subscriptions: { user_id: number; label_id: number; project_id: number | null }[];
}

export function labelsArea(store: Store): LabelsArea {
  return store.area<LabelsArea>("labels", () => ({ labels: [], priorities: [], subscriptions: [] }));
}

type Parent = { kind: "project"; project: ProjectRec } | { kind: "group"; group: GroupRec };

/** The platform's `Label::DEFAULT_COLOR` (fixture and imports without a color). */
const DEFAULT_COLOR = "#6699cc";
const COLOR_PATTERN = /^#(?:[0-9A-Fa-f]{3}){1,2}$/;

/** The CSS color names `Labels::BaseService` knows (13.12: CSS 3, no `rebeccapurple`), as name:RRGGBB. */
const COLOR_NAMES: ReadonlyMap<string, string> = new Map(
  (
    "black:000000 silver:C0C0C0 gray:808080 white:FFFFFF maroon:800000 red:FF0000 purple:800080 fuchsia:FF00FF " +
    "green:008000 lime:00FF00 olive:808000 yellow:FFFF00 navy:000080 blue:0000FF teal:008080 aqua:00FFFF " +
    "orange:FFA500 aliceblue:F0F8FF antiquewhite:FAEBD7 aquamarine:7FFFD4 azure:F0FFFF beige:F5F5DC " +
    "bisque:FFE4C4 blanchedalmond:FFEBCD blueviolet:8A2BE2 brown:A52A2A burlywood:DEB887 cadetblue:5F9EA0 " +
    "chartreuse:7FFF00 chocolate:D2691E coral:FF7F50 cornflowerblue:6495ED cornsilk:FFF8DC crimson:DC143C " +
    "darkblue:00008B darkcyan:008B8B darkgoldenrod:B8860B darkgray:A9A9A9 darkgreen:006400 darkgrey:A9A9A9 " +
    "darkkhaki:BDB76B darkmagenta:8B008B darkolivegreen:556B2F darkorange:FF8C00 darkorchid:9932CC " +
    "darkred:8B0000 darksalmon:E9967A darkseagreen:8FBC8F darkslateblue:483D8B darkslategray:2F4F4F " +
    "darkslategrey:2F4F4F darkturquoise:00CED1 darkviolet:9400D3 deeppink:FF1493 deepskyblue:00BFFF " +
    "dimgray:696969 dimgrey:696969 dodgerblue:1E90FF firebrick:B22222 floralwhite:FFFAF0 forestgreen:228B22 " +
    "gainsboro:DCDCDC ghostwhite:F8F8FF gold:FFD700 goldenrod:DAA520 greenyellow:ADFF2F grey:808080 " +
    "honeydew:F0FFF0 hotpink:FF69B4 indianred:CD5C5C indigo:4B0082 ivory:FFFFF0 khaki:F0E68C lavender:E6E6FA " +
    "lavenderblush:FFF0F5 lawngreen:7CFC00 lemonchiffon:FFFACD lightblue:ADD8E6 lightcoral:F08080 " +
    "lightcyan:E0FFFF lightgoldenrodyellow:FAFAD2 lightgray:D3D3D3 lightgreen:90EE90 lightgrey:D3D3D3 " +
    "lightpink:FFB6C1 lightsalmon:FFA07A lightseagreen:20B2AA lightskyblue:87CEFA lightslategray:778899 " +
    "lightslategrey:778899 lightsteelblue:B0C4DE lightyellow:FFFFE0 limegreen:32CD32 linen:FAF0E6 " +
    "mediumaquamarine:66CDAA mediumblue:0000CD mediumorchid:BA55D3 mediumpurple:9370DB mediumseagreen:3CB371 " +
    "mediumslateblue:7B68EE mediumspringgreen:00FA9A mediumturquoise:48D1CC mediumvioletred:C71585 " +
    "midnightblue:191970 mintcream:F5FFFA mistyrose:FFE4E1 moccasin:FFE4B5 navajowhite:FFDEAD oldlace:FDF5E6 " +
    "olivedrab:6B8E23 orangered:FF4500 orchid:DA70D6 palegoldenrod:EEE8AA palegreen:98FB98 " +
    "paleturquoise:AFEEEE palevioletred:DB7093 papayawhip:FFEFD5 peachpuff:FFDAB9 peru:CD853F pink:FFC0CB " +
    "plum:DDA0DD powderblue:B0E0E6 rosybrown:BC8F8F royalblue:4169E1 saddlebrown:8B4513 salmon:FA8072 " +
    "sandybrown:F4A460 seagreen:2E8B57 seashell:FFF5EE sienna:A0522D skyblue:87CEEB slateblue:6A5ACD " +
    "slategray:708090 slategrey:708090 snow:FFFAFA springgreen:00FF7F steelblue:4682B4 tan:D2B48C " +
    "thistle:D8BFD8 tomato:FF6347 turquoise:40E0D0 violet:EE82EE wheat:F5DEB3 whitesmoke:F5F5F5 " +
    "yellowgreen:9ACD32"
  )
    .split(" ")
    .map((entry) => {
      const [name, hex] = entry.split(":") as [string, string];
      return [name, `#${hex}`] as const;
    }),
);

/** `convert_color_name_to_hex`: a color name becomes its hex; anything starting with `#` is kept as given. */
export function labelColor(given: string): string {
  const name = given.trim().toLowerCase();
  if (name.startsWith("#")) return given;
  return COLOR_NAMES.get(name) ?? given;
}

/** `LabelsHelper.text_color_for_bg`. */
function textColor(color: string): string {
  const hex = color.slice(1);
  const parts = hex.length === 3 ? [...hex].map((c) => c + c) : (hex.match(/.{2}/g) ?? []);
  const sum = parts.reduce((acc, p) => acc + Number.parseInt(p, 16), 0);
  return sum > 500 ? "#333333" : "#FFFFFF";
}

/** The model's setters (`sanitize_value`): HTML tags removed, entities of the result decoded. */
function sanitize(value: string): string {
  return value
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const isBlank = (v: string | null | undefined): boolean => v === null || v === undefined || v.trim() === "";

/** The groups whose labels a caller may read: those it can see, or that hold a project it can see. */
function canReadGroupLabels(store: Store, user: UserRec | null, g: GroupRec): boolean {
  if (canReadGroup(store, user, g)) return true;
  const ids = new Set([g.id, ...store.descendants(g).map((d) => d.id)]);
  return store.data.projects.some((p) => ids.has(p.namespace_id) && canReadProject(store, user, p));
}

interface Scope {
  includeAncestors: boolean;
  includeDescendants?: boolean;
  /** Groups: leave out the project labels of the group's projects (default true, as the list's parameter). */
  onlyGroupLabels?: boolean;
}

/** `available_labels_for` (`LabelsFinder`): the labels a project or group shows, sorted by title. */
function availableLabels(store: Store, user: UserRec | null, parent: Parent, scope: Scope): LabelRec[] {
  const { labels } = labelsArea(store);
  let groups: GroupRec[] = [];
  const projectIds = new Set<number>();
  if (parent.kind === "project") {
    projectIds.add(parent.project.id);
    const ns = store.group(parent.project.namespace_id);
    if (ns) groups = scope.includeAncestors ? store.ancestorsAndSelf(ns) : [ns];
  } else {
    const g = parent.group;
    groups = [g];
    if (scope.includeAncestors) groups = store.ancestorsAndSelf(g);
    if (scope.includeDescendants) groups = [...groups, ...store.descendants(g)];
    if (!(scope.onlyGroupLabels ?? true)) {
      const holders = new Set([
        g.id,
        ...(scope.includeDescendants ? store.descendants(g).map((d) => d.id) : []),
      ]);
      for (const p of store.data.projects) {
        const issuables = p.issues_enabled || p.merge_requests_enabled;
        if (holders.has(p.namespace_id) && !p.archived && issuables && canReadProject(store, user, p)) {
          projectIds.add(p.id);
        }
      }
    }
  }
  const groupIds = new Set(groups.filter((g) => canReadGroupLabels(store, user, g)).map((g) => g.id));
  return labels
    .filter((l) =>
      l.project_id !== null ? projectIds.has(l.project_id) : l.group_id !== null && groupIds.has(l.group_id),
    )
    .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
}

/** `find_by_id(ref) || find_by_title(ref)` among `list`. */
function pick(list: LabelRec[], ref: string): LabelRec | undefined {
  if (/^\d+$/.test(ref)) {
    const byId = list.find((l) => l.id === Number(ref));
    if (byId) return byId;
  }
  return list.find((l) => l.title === ref);
}

function findLabel(ctx: Ctx, parent: Parent, ref: string, scope: Scope): LabelRec {
  const label = pick(availableLabels(ctx.store, ctx.user, parent, scope), ref);
  if (!label) throw notFound("Label");
  return label;
}

/** Update and delete reach a project's labels and its group's, or a group's own (and its projects'). */
const WRITE_SCOPE: Scope = { includeAncestors: false, onlyGroupLabels: false };

function readParent(ctx: Ctx, kind: "projects" | "groups"): Parent {
  const ref = ctx.path["id"]!;
  return kind === "projects"
    ? { kind: "project", project: findProject(ctx, ref) }
    : { kind: "group", group: findGroup(ctx, ref) };
}

/** `admin_label`: Reporter on the project or group (administrators always). */
function authorizeAdminLabel(ctx: Ctx, parent: Parent): void {
  const level =
    parent.kind === "project"
      ? effectiveProjectLevel(ctx.store, ctx.user, parent.project)
      : effectiveGroupLevel(ctx.store, ctx.user, parent.group);
  if (level < ACCESS.reporter) throw forbidden();
}

/** The issue and merge request counts of `with_counts`, in the label's own project or group. */
function counts(ctx: Ctx, l: LabelRec): Record<string, number> {
  const { store, user } = ctx;
  const inScope = (projectId: number) => {
    if (l.project_id !== null) return projectId === l.project_id;
    return store.project(projectId)?.namespace_id === l.group_id;
  };
  const issues = issuesArea(store).rows.filter(
    (i) => inScope(i.project_id) && i.labels.includes(l.title) && canReadIssue(store, user, i),
  );
  const mrs = mergeRequestsArea(store).rows.filter((mr) => {
    if (!inScope(mr.project_id) || mr.state !== "opened" || !mr.labels.includes(l.title)) return false;
    const p = store.project(mr.project_id);
    if (!p || !canReadProject(store, user, p)) return false;
    if (user?.admin) return true;
    return (
      p.merge_requests_enabled &&
      (hasPublicAccess(user, p) || effectiveProjectLevel(store, user, p) >= ACCESS.reporter)
    );
  });
  return {
    open_issues_count: issues.filter((i) => i.state === "opened").length,
    closed_issues_count: issues.filter((i) => i.state === "closed").length,
    open_merge_requests_count: mrs.length,
  };
}

function subscribed(ctx: Ctx, l: LabelRec, projectId: number | null): boolean {
  const user = ctx.user;
  if (!user) return false;
  return labelsArea(ctx.store).subscriptions.some(
    (s) =>
      s.user_id === user.id && s.label_id === l.id && (s.project_id === null || s.project_id === projectId),
  );
}

function priorityOf(store: Store, l: LabelRec, projectId: number): number | null {
  return (
    labelsArea(store).priorities.find((p) => p.label_id === l.id && p.project_id === projectId)?.priority ??
    null
  );
}

/** `Entities::ProjectLabel` (project routes) or `Entities::GroupLabel`. */
function labelJson(ctx: Ctx, l: LabelRec, parent: Parent, withCounts = false): Record<string, unknown> {
  const projectId = parent.kind === "project" ? parent.project.id : null;
  const out: Record<string, unknown> = {
    id: l.id,
    name: l.title,
    color: l.color,
    description: l.description,
    description_html: l.description === null ? "" : escapeHtml(l.description),
    text_color: textColor(l.color),
  };
  if (withCounts) Object.assign(out, counts(ctx, l));
  out["subscribed"] = subscribed(ctx, l, projectId);
  if (projectId !== null) {
    out["priority"] = priorityOf(ctx.store, l, projectId);
    out["is_project_label"] = l.project_id !== null;
  }
  return out;
}

/** The model's validations (`Label`, then `ProjectLabel`), in the platform's order; `{}` when valid. */
/**
 * The label model's validations. `titleTaken`, when given, says whether another label of the same owner has the
 * title (by default a scan of all labels finds out).
 */
function labelErrors(
  store: Store,
  l: LabelRec,
  titleChanged: boolean,
  titleTaken?: (title: string) => boolean,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const add = (field: string, msg: string) => {
    errors[field] = [...(errors[field] ?? []), msg];
  };
  if (!COLOR_PATTERN.test(l.color)) add("color", "must be a valid color code");
  if (l.title === "") add("title", "can't be blank");
  if (!/^[^,]+$/.test(l.title)) add("title", "is invalid");
  const taken = () =>
    titleTaken
      ? titleTaken(l.title)
      : labelsArea(store).labels.some(
          (x) =>
            x.id !== l.id &&
            x.title === l.title &&
            x.group_id === l.group_id &&
            x.project_id === l.project_id,
        );
  if (l.title !== "" && taken()) {
    add("title", "has already been taken");
  }
  if ([...l.title].length > 255) add("title", "is too long (maximum is 255 characters)");
  if (l.project_id !== null && titleChanged) {
    const project = store.project(l.project_id);
    const group = project ? store.group(project.namespace_id) : undefined;
    if (
      group &&
      labelsArea(store).labels.some(
        (x) => x.group_id === group.id && x.project_id === null && x.title === l.title,
      )
    ) {
      add("title", `already exists at group level for ${group.name}. Please choose another one.`);
    }
  }
  return errors;
}

/** `prioritize!` / `unprioritize!`; a negative priority fails as the platform's `save!` does (500). */
function setPriority(store: Store, l: LabelRec, projectId: number, priority: number | null): void {
  const area = labelsArea(store);
  area.priorities = area.priorities.filter((p) => !(p.label_id === l.id && p.project_id === projectId));
  if (priority === null) return;
  if (priority < 0) throw internalError();
  area.priorities.push({ project_id: projectId, label_id: l.id, priority });
}

function removeLabel(store: Store, l: LabelRec): void {
  const area = labelsArea(store);
  area.labels = area.labels.filter((x) => x.id !== l.id);
  area.priorities = area.priorities.filter((p) => p.label_id !== l.id);
  area.subscriptions = area.subscriptions.filter((s) => s.label_id !== l.id);
}

/** A new label of the project or group, after the model's checks; throws the platform's 400. */
function createLabel(
  store: Store,
  owner: Parent,
  input: { name: string; color: string; description?: string | null },
  titleTaken?: (title: string) => boolean,
): LabelRec {
  const now = store.nowIso();
  const label: LabelRec = {
    id: 0,
    group_id: owner.kind === "group" ? owner.group.id : null,
    project_id: owner.kind === "project" ? owner.project.id : null,
    title: isBlank(input.name) ? "" : sanitize(input.name).trim(),
    color: input.color.trim(),
    description: isBlank(input.description) ? null : sanitize(input.description as string),
    created_at: now,
    updated_at: now,
  };
  const errors = labelErrors(store, label, true, titleTaken);
  if (Object.keys(errors).length > 0) throw validation(errors);
  label.id = store.nextId("labels");
  labelsArea(store).labels.push(label);
  return label;
}

const LIST_SPEC = {
  with_counts: { type: "boolean", default: false },
  include_ancestor_groups: { type: "boolean", default: true },
  search: { type: "string" },
} as const satisfies Record<string, ParamSpec>;

const GROUP_SCOPE_SPEC = {
  include_ancestor_groups: { type: "boolean", default: true },
  include_descendant_groups: { type: "boolean", default: false },
  only_group_labels: { type: "boolean", default: true },
} as const satisfies Record<string, ParamSpec>;

const UPDATE_SPEC = {
  new_name: { type: "string" },
  color: { type: "string" },
  description: { type: "string" },
} as const satisfies Record<string, ParamSpec>;

export function register(app: SandboxApp): void {
  /** GETs: the parent first (an invisible one is 404 for a guest too), then a signed-in user. */
  const readable = (ctx: Ctx, kind: "projects" | "groups"): Parent => {
    const parent = readParent(ctx, kind);
    requireAuth(ctx);
    return parent;
  };

  app.get("/projects/:id/labels", (ctx) => {
    const parent = readable(ctx, "projects");
    const p = ctx.declare(LIST_SPEC);
    let list = availableLabels(ctx.store, ctx.user, parent, { includeAncestors: p.include_ancestor_groups });
    list = bySearch(list, p.search);
    return ctx.paginate(list, (l) => labelJson(ctx, l, parent, p.with_counts));
  });

  app.get("/groups/:id/labels", (ctx) => {
    const parent = readable(ctx, "groups");
    const p = ctx.declare({ ...LIST_SPEC, ...GROUP_SCOPE_SPEC });
    let list = availableLabels(ctx.store, ctx.user, parent, {
      includeAncestors: p.include_ancestor_groups,
      includeDescendants: p.include_descendant_groups,
      onlyGroupLabels: p.only_group_labels,
    });
    list = bySearch(list, p.search);
    return ctx.paginate(list, (l) => labelJson(ctx, l, parent, p.with_counts));
  });

  app.get("/projects/:id/labels/:name", (ctx) => {
    const parent = readable(ctx, "projects");
    const p = ctx.declare({ include_ancestor_groups: { type: "boolean", default: true } });
    return labelJson(
      ctx,
      findLabel(ctx, parent, ctx.path["name"]!, { includeAncestors: p.include_ancestor_groups }),
      parent,
    );
  });

  app.get("/groups/:id/labels/:name", (ctx) => {
    const parent = readable(ctx, "groups");
    const p = ctx.declare(GROUP_SCOPE_SPEC);
    const label = findLabel(ctx, parent, ctx.path["name"]!, {
      includeAncestors: p.include_ancestor_groups,
      includeDescendants: p.include_descendant_groups,
      onlyGroupLabels: p.only_group_labels,
    });
    return labelJson(ctx, label, parent);
  });

  for (const kind of ["projects", "groups"] as const) {
    app.post(`/${kind}/:id/labels`, (ctx) => {
      requireAuth(ctx);
      const p = ctx.declare({
        name: { type: "string", required: true },
        color: { type: "string", required: true },
        description: { type: "string" },
      });
      const { priority } = ctx.declare(kind === "projects" ? { priority: { type: "integer" } } : {}) as {
        priority?: number;
      };
      const parent = readParent(ctx, kind);
      authorizeAdminLabel(ctx, parent);
      // `available_labels_for(parent)`: the parent's labels and those of the groups above, by the title as given.
      const existing = availableLabels(ctx.store, ctx.user, parent, { includeAncestors: true });
      if (existing.some((l) => l.title === p.name)) throw conflict("Label already exists");
      const label = createLabel(ctx.store, parent, {
        name: p.name,
        color: labelColor(p.color),
        description: p.description,
      });
      if (parent.kind === "project" && priority !== undefined) {
        setPriority(ctx.store, label, parent.project.id, priority);
      }
      return created(labelJson(ctx, label, parent));
    });

    const updateFields =
      kind === "projects"
        ? ["new_name", "color", "description", "priority"]
        : ["new_name", "color", "description"];
    /** The update parameters, checked before anything is looked up (as Grape does). */
    const updateParams = (ctx: Ctx) => {
      const p = ctx.declare(UPDATE_SPEC);
      const { priority } = ctx.declare(kind === "projects" ? { priority: { type: "integer" } } : {}) as {
        priority?: number;
      };
      return { ...p, priority };
    };
    const update = (ctx: Ctx, ref: string, p: ReturnType<typeof updateParams>) => {
      const parent = readParent(ctx, kind);
      authorizeAdminLabel(ctx, parent);
      const label = findLabel(ctx, parent, ref, WRITE_SCOPE);
      const next: LabelRec = { ...label };
      // The model's setters ignore a blank title or description; a color is converted only when not blank.
      if (!isBlank(p.new_name)) next.title = sanitize(p.new_name as string).trim();
      if (p.color !== undefined) next.color = (isBlank(p.color) ? p.color : labelColor(p.color)).trim();
      if (!isBlank(p.description)) next.description = sanitize(p.description as string);
      const changed =
        next.title !== label.title || next.color !== label.color || next.description !== label.description;
      if (changed) {
        const errors = labelErrors(ctx.store, next, next.title !== label.title);
        if (Object.keys(errors).length > 0) throw validation(errors);
        Object.assign(label, next, { updated_at: ctx.store.nowIso() });
      }
      if (parent.kind === "project" && ctx.has("priority")) {
        setPriority(ctx.store, label, parent.project.id, p.priority ?? null);
      }
      return labelJson(ctx, label, parent);
    };

    app.put(`/${kind}/:id/labels/:name`, (ctx) => {
      requireAuth(ctx);
      ctx.declare({ name: { type: "string", required: true } }, { atLeastOneOf: updateFields });
      return update(ctx, ctx.path["name"]!, updateParams(ctx));
    });

    // Deprecated in 12.4, still served in 13.12 (python-gitlab and go-gitlab use it).
    app.put(`/${kind}/:id/labels`, (ctx) => {
      requireAuth(ctx);
      const p = ctx.declare(
        { label_id: { type: "integer" }, name: { type: "string" } },
        { exactlyOneOf: ["label_id", "name"], atLeastOneOf: updateFields },
      );
      const params = updateParams(ctx);
      return update(ctx, p.label_id !== undefined ? String(p.label_id) : (p.name as string), params);
    });

    const remove = (ctx: Ctx, ref: string) => {
      const parent = readParent(ctx, kind);
      authorizeAdminLabel(ctx, parent);
      const label = findLabel(ctx, parent, ref, WRITE_SCOPE);
      checkUnmodifiedSince(ctx.req.header("if-unmodified-since"), label.updated_at);
      removeLabel(ctx.store, label);
      return noContent();
    };

    app.delete(`/${kind}/:id/labels/:name`, (ctx) => {
      requireAuth(ctx);
      return remove(ctx, ctx.path["name"]!);
    });

    // Deprecated: `label_id` or `name` for a project, `name` for a group.
    app.delete(`/${kind}/:id/labels`, (ctx) => {
      requireAuth(ctx);
      if (kind === "groups") {
        const p = ctx.declare({ name: { type: "string", required: true } });
        return remove(ctx, p.name);
      }
      const p = ctx.declare(
        { label_id: { type: "integer" }, name: { type: "string" } },
        { exactlyOneOf: ["label_id", "name"] },
      );
      return remove(ctx, p.label_id !== undefined ? String(p.label_id) : (p.name as string));
    });

    for (const action of ["subscribe", "unsubscribe"] as const) {
      app.post(`/${kind}/:id/labels/:label_id/${action}`, (ctx) => {
        const user = requireAuth(ctx);
        const parent = readParent(ctx, kind);
        const label = findLabel(ctx, parent, ctx.path["label_id"]!, { includeAncestors: true });
        const projectId = parent.kind === "project" ? parent.project.id : null;
        const area = labelsArea(ctx.store);
        // `subscribed?(user, parent)`: the subscription of this project (or the global one, through a group).
        const mine = (s: LabelsArea["subscriptions"][number]) =>
          s.user_id === user.id && s.label_id === label.id && s.project_id === projectId;
        if ((action === "subscribe") === area.subscriptions.some(mine))
          return new Reply(304, undefined, {}, "empty");
        if (action === "subscribe") {
          area.subscriptions.push({ user_id: user.id, label_id: label.id, project_id: projectId });
        } else {
          area.subscriptions = area.subscriptions.filter((s) => !mine(s));
        }
        return created(labelJson(ctx, label, parent));
      });
    }
  }

  registerFixture(app);
  registerExport(app);
}

function bySearch(list: LabelRec[], search: string | undefined): LabelRec[] {
  if (search === undefined || search === "") return list;
  const q = search.toLowerCase();
  return list.filter(
    (l) => l.title.toLowerCase().includes(q) || (l.description ?? "").toLowerCase().includes(q),
  );
}

function registerFixture(app: SandboxApp): void {
  app.onFixture("labels", (value, { store, source }) => {
    const fail = (where: string, msg: string) =>
      new FixtureError(`sandbox: fixture ${source}: labels${where} ${msg}`);
    if (!Array.isArray(value)) throw fail("", "must be a list");
    value.forEach((raw, i) => {
      const where = `[${i}]`;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw))
        throw fail(where, "must be a mapping");
      const e = raw as Record<string, unknown>;
      let owner: Parent;
      if (typeof e["project"] === "string") {
        const p = store.projectByFullPath(e["project"]);
        if (!p) throw fail(`${where}.project`, `names "${e["project"]}", which is not in projects`);
        owner = { kind: "project", project: p };
      } else if (typeof e["group"] === "string") {
        const g = store.groupByFullPath(e["group"]);
        if (!g) throw fail(`${where}.group`, `names "${e["group"]}", which is not in groups`);
        owner = { kind: "group", group: g };
      } else {
        throw fail(where, "needs project (a project full path) or group (a group full path)");
      }
      if (typeof e["name"] !== "string") throw fail(`${where}.name`, "is required (a string)");
      const color = e["color"] === undefined ? DEFAULT_COLOR : String(e["color"]);
      const description = typeof e["description"] === "string" ? e["description"] : null;
      let label: LabelRec;
      try {
        label = createLabel(store, owner, { name: e["name"], color: labelColor(color), description });
      } catch (error) {
        const body = (error as { body?: { message?: Record<string, string[]> } }).body;
        const detail = Object.entries(body?.message ?? {})
          .map(([k, msgs]) => `${k} ${msgs.join(", ")}`)
          .join("; ");
        throw fail(where, detail || String(error));
      }
      if (e["priority"] !== undefined) {
        if (owner.kind !== "project") throw fail(`${where}.priority`, "is only for project labels");
        if (!Number.isInteger(e["priority"]) || (e["priority"] as number) < 0) {
          throw fail(`${where}.priority`, "must be a whole number, 0 or more");
        }
        setPriority(store, label, owner.project.id, e["priority"] as number);
      }
    });
  });
}

/** Group labels in the export archive (`labels.ndjson`, the platform's columns) and back from an import. */
function registerExport(app: SandboxApp): void {
  app.onGroupExport<{ title: string; color: string; description: string | null }>("labels", {
    rows: (store, g) =>
      labelsArea(store)
        .labels.filter((l) => l.group_id === g.id && l.project_id === null)
        .sort((a, b) => a.id - b.id)
        .map((l) => ({
          id: l.id,
          title: l.title,
          color: l.color,
          project_id: null,
          created_at: l.created_at,
          updated_at: l.updated_at,
          template: false,
          description: l.description,
          group_id: l.group_id,
          type: "GroupLabel",
          priorities: [],
        })),
    read: (row) => ({
      title: typeof row["title"] === "string" ? row["title"] : "",
      color: typeof row["color"] === "string" ? row["color"] : DEFAULT_COLOR,
      description: typeof row["description"] === "string" ? row["description"] : null,
    }),
    restore: (store, group, rows) => {
      // The group was just made by the import: the titles it may not repeat are those restored here.
      const titles = new Set<string>();
      for (const row of rows) {
        try {
          const made = createLabel(
            store,
            { kind: "group", group },
            { name: row.title, color: labelColor(row.color), description: row.description },
            (title) => titles.has(title),
          );
          titles.add(made.title);
        } catch {
          // The platform logs a row its model refuses as an import failure and goes on.
        }
      }
    },
  });
}
