import type { Ctx, GroupExportRelation, SandboxApp } from "../app.js";
import { ACCESS, authorizeGroup, authorizeProject, findGroup, findProject } from "../auth.js";
import { badRequest, HttpError, recordNotFound, rubyInspect } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { json, noContent } from "../respond.js";
import type { GroupRec, ProjectRec, Store } from "../store.js";

/**
 * Milestones of projects and groups (contract "Milestones (project)"; platform-behavior §3.10, the 13.x interface).
 *
 * - `/projects/:id/milestones` and `/groups/:id/milestones`: list (`state` active|closed|all, default all;
 *   `iids[]`; `title`; `search` in title or description; ordered id desc; paginated), get, create (201), update
 *   (`at_least_one_of`; `state_event` close|activate), delete (204), `…/:milestone_id/issues` (issues of the
 *   milestone, from routes/issues.ts), `…/merge_requests` (the merge requests of the milestone the caller may read,
 *   by id, from routes/merge-requests.ts: the sandbox's merge requests are those the deployments fixture seeds),
 *   `POST /projects/:id/milestones/:milestone_id/promote` and `…/burndown_events` [licensed].
 * - `:milestone_id` is the milestone's **id** (ids come from one sequence shared by project and group milestones;
 *   `iid`s count per project or group).
 * - Reads follow the project's or group's visibility (404 `Project Not Found` / `Group Not Found`); writes need
 *   Developer (403 otherwise, 401 for a guest); a missing milestone is `{"message":"404 Not found"}`.
 * - Model errors use the platform's string form: `Failed to create milestone {:title=>["…"]}` /
 *   `Failed to update milestone {…}`. A title is unique across a project and its group, or a group and its
 *   projects ("already being used for another group or project milestone."); `due_date` before `start_date` is
 *   "must be greater than start date".
 * - Promote: the project must belong to a group (400 `Project does not belong to a group.`); the caller needs
 *   Developer on the group. The new group milestone takes over the project milestone's fields; every milestone of
 *   that title in the group's projects is merged into it (their issues and merge requests move to it) and removed.
 *   Answers 200 with
 *   the group milestone.
 * - Burndown events [licensed]: derived from the milestone's issues: `created` at each issue's creation and
 *   `closed` at its closing, oldest first (`{created_at, weight, action}`), not paginated (the platform presents
 *   the whole list; the contract shows no result for this endpoint).
 *
 * - Group milestones go into the group export archive and come back with an import (routes/group-import-export.ts).
 *
 * Fixture key `milestones`: a list of `{ project: <full path> | group: <full path>, title, description?,
 * state?: active|closed, due_date?, start_date? }`. Listed before `issues` so issues can name them by title.
 */

export interface MilestoneRec {
  id: number;
  iid: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  description: string | null;
  state: "active" | "closed";
  created_at: string;
  updated_at: string;
  due_date: string | null;
  start_date: string | null;
}

interface MilestonesArea {
  rows: MilestoneRec[];
}

/** The module's table (shared with routes/issues.ts and routes/epics.ts). */
export function milestonesArea(store: Store): MilestonesArea {
  return store.area<MilestonesArea>("milestones", () => ({ rows: [] }));
}

export type Parent = { kind: "project"; project: ProjectRec } | { kind: "group"; group: GroupRec };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Rails casts a date string that does not parse to nil; an empty string clears the date. */
function castDate(v: string | undefined): string | null {
  if (v === undefined || !DATE.test(v.trim())) return null;
  const d = new Date(`${v.trim()}T00:00:00.000Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== v.trim() ? null : v.trim();
}

export function milestoneWebUrl(ctx: Pick<Ctx, "baseUrl">, store: Store, m: MilestoneRec): string {
  if (m.group_id !== null) {
    const g = store.group(m.group_id);
    return `${ctx.baseUrl}/groups/${g ? store.groupFullPath(g) : m.group_id}/-/milestones/${m.iid}`;
  }
  const p = m.project_id === null ? undefined : store.project(m.project_id);
  return `${ctx.baseUrl}/${p ? store.projectFullPath(p) : m.project_id}/-/milestones/${m.iid}`;
}

/** The Milestone entity: `project_id` or `group_id`, whichever applies. */
export function milestoneJson(
  ctx: Pick<Ctx, "baseUrl">,
  store: Store,
  m: MilestoneRec,
): Record<string, unknown> {
  const out: Record<string, unknown> = { id: m.id, iid: m.iid };
  if (m.group_id !== null) out["group_id"] = m.group_id;
  else out["project_id"] = m.project_id;
  Object.assign(out, {
    title: m.title,
    description: m.description,
    state: m.state,
    created_at: m.created_at,
    updated_at: m.updated_at,
    due_date: m.due_date,
    start_date: m.start_date,
    web_url: milestoneWebUrl(ctx, store, m),
  });
  return out;
}

/** Milestones whose titles a new or renamed milestone of `parent` must not repeat (excluding `except`). */
function titleScope(store: Store, parent: Parent): MilestoneRec[] {
  const rows = milestonesArea(store).rows;
  if (parent.kind === "project") {
    const groupId = store.group(parent.project.namespace_id)?.id;
    return rows.filter(
      (m) => m.project_id === parent.project.id || (groupId !== undefined && m.group_id === groupId),
    );
  }
  const projectIds = new Set(store.projectsIn(parent.group.id).map((p) => p.id));
  return rows.filter(
    (m) => m.group_id === parent.group.id || (m.project_id !== null && projectIds.has(m.project_id)),
  );
}

/**
 * The model's validations of a milestone as it would be saved. `titleTaken`, when given, says whether another
 * milestone of its scope has the title (by default a scan of all milestones finds out).
 */
export function validateMilestone(
  store: Store,
  parent: Parent,
  m: MilestoneRec,
  titleTaken?: (title: string) => boolean,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const taken = () =>
    titleTaken
      ? titleTaken(m.title)
      : titleScope(store, parent).some((x) => x.id !== m.id && x.title === m.title);
  if (m.title.trim() === "") errors["title"] = ["can't be blank"];
  else if (m.title.length > 255) errors["title"] = ["is too long (maximum is 255 characters)"];
  else if (taken()) {
    errors["title"] = ["already being used for another group or project milestone."];
  }
  if (m.due_date !== null && m.start_date !== null && m.due_date < m.start_date) {
    errors["due_date"] = ["must be greater than start date"];
  }
  return errors;
}

function parentOf(m: MilestoneRec, parent: Parent): boolean {
  return parent.kind === "project" ? m.project_id === parent.project.id : m.group_id === parent.group.id;
}

function parentRef(parent: Parent): { project_id: number | null; group_id: number | null } {
  return parent.kind === "project"
    ? { project_id: parent.project.id, group_id: null }
    : { project_id: null, group_id: parent.group.id };
}

function nextIid(store: Store, parent: Parent): number {
  return parent.kind === "project"
    ? store.nextId(`milestone_iids/project/${parent.project.id}`)
    : store.nextId(`milestone_iids/group/${parent.group.id}`);
}

/** Builds and stores a milestone; throws the model errors as `{field: [...]}` via `onError`. */
export function createMilestone(
  store: Store,
  parent: Parent,
  input: {
    title: string;
    description?: string | null;
    due_date?: string | null;
    start_date?: string | null;
    state?: "active" | "closed";
  },
  onError: (errors: Record<string, string[]>) => never,
  titleTaken?: (title: string) => boolean,
): MilestoneRec {
  const now = store.nowIso();
  const m: MilestoneRec = {
    id: 0,
    iid: 0,
    ...parentRef(parent),
    title: input.title,
    description: input.description ?? null,
    state: input.state ?? "active",
    created_at: now,
    updated_at: now,
    due_date: input.due_date ?? null,
    start_date: input.start_date ?? null,
  };
  const errors = validateMilestone(store, parent, m, titleTaken);
  if (Object.keys(errors).length > 0) onError(errors);
  m.id = store.nextId("milestones");
  m.iid = nextIid(store, parent);
  milestonesArea(store).rows.push(m);
  return m;
}

/** The milestone `:milestone_id` of a parent, or 404 `Not found`. Also 400 for a non-integer id. */
export function findMilestone(ctx: Ctx, parent: Parent): MilestoneRec {
  const { milestone_id } = ctx.declare({ milestone_id: { type: "integer", required: true } });
  const m = milestonesArea(ctx.store).rows.find((x) => x.id === milestone_id && parentOf(x, parent));
  if (!m) throw recordNotFound();
  return m;
}

/** Resolves `:id` to a readable project or group (404 when missing or invisible). */
export function readParent(ctx: Ctx, kind: "project" | "group"): Parent {
  const ref = ctx.path["id"]!;
  return kind === "project" ? { kind, project: findProject(ctx, ref) } : { kind, group: findGroup(ctx, ref) };
}

function authorizeWrite(ctx: Ctx, parent: Parent): void {
  if (parent.kind === "project") authorizeProject(ctx, parent.project, ACCESS.developer);
  else authorizeGroup(ctx, parent.group, ACCESS.developer);
}

/** Milestone titles of a project as `milestone=` filters see them: its own and its groups' (ancestors). */
export function milestonesVisibleTo(store: Store, project: ProjectRec): MilestoneRec[] {
  const ns = store.group(project.namespace_id);
  const groupIds = new Set(ns ? store.ancestorsAndSelf(ns).map((g) => g.id) : []);
  return milestonesArea(store).rows.filter(
    (m) => m.project_id === project.id || (m.group_id !== null && groupIds.has(m.group_id)),
  );
}

function failed(verb: "create" | "update"): (errors: Record<string, string[]>) => never {
  return (errors) => {
    throw badRequest(`Failed to ${verb} milestone ${rubyInspect(errors)}`);
  };
}

/** Hooks routes/issues.ts registers to serve `…/milestones/:milestone_id/issues` and burndown events. */
export interface MilestoneIssueSource {
  /** Issues of the milestone visible to the caller, in the platform's order. */
  issuesOf(ctx: Ctx, m: MilestoneRec): unknown[];
  /** The issue JSON used by the list. */
  issueJson(ctx: Ctx, issue: unknown): unknown;
  /** `{created_at, weight, action}` events of the milestone's issues, oldest first. */
  burndown(ctx: Ctx, m: MilestoneRec): unknown[];
  /** Moves every issue of milestone `from` to milestone `to`. */
  reassign(store: Store, from: number, to: number): void;
}

let issueSource: MilestoneIssueSource | undefined;

/** Called by routes/issues.ts when it registers. */
export function setMilestoneIssueSource(source: MilestoneIssueSource): void {
  issueSource = source;
}

function source(): MilestoneIssueSource {
  if (!issueSource) throw new HttpError(500, { message: "500 Internal Server Error" });
  return issueSource;
}

/** Hooks routes/merge-requests.ts provides (through routes/deployments.ts) for `…/milestones/:milestone_id/merge_requests`. */
export interface MilestoneMergeRequestSource {
  /** Merge requests of the milestone visible to the caller, in the platform's order. */
  mergeRequestsOf(ctx: Ctx, m: MilestoneRec): unknown[];
  /** The merge request JSON used by the list. */
  mergeRequestJson(ctx: Ctx, mr: unknown): unknown;
  /** Moves every merge request of milestone `from` to milestone `to` (0: none). */
  reassign(store: Store, from: number, to: number): void;
}

let mergeRequestSource: MilestoneMergeRequestSource | undefined;

export function setMilestoneMergeRequestSource(source: MilestoneMergeRequestSource): void {
  mergeRequestSource = source;
}

/** Every hook that moves records along with a milestone. */
function reassignAll(store: Store, from: number, to: number): void {
  source().reassign(store, from, to);
  mergeRequestSource?.reassign(store, from, to);
}

function fixtureError(src: string, msg: string): FixtureError {
  return new FixtureError(`sandbox: fixture ${src}: ${msg}`);
}

function seedMilestones(value: unknown, store: Store, src: string): void {
  if (!Array.isArray(value)) throw fixtureError(src, "milestones must be a list");
  value.forEach((raw, i) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw fixtureError(src, `milestones[${i}] must be a mapping`);
    }
    const o = raw as Record<string, unknown>;
    const where = `milestones[${i}]`;
    let parent: Parent;
    if (typeof o["project"] === "string") {
      const project = store.projectByFullPath(o["project"]);
      if (!project) throw fixtureError(src, `${where}.project "${o["project"]}" is not in projects`);
      parent = { kind: "project", project };
    } else if (typeof o["group"] === "string") {
      const group = store.groupByFullPath(o["group"]);
      if (!group) throw fixtureError(src, `${where}.group "${o["group"]}" is not in groups`);
      parent = { kind: "group", group };
    } else {
      throw fixtureError(src, `${where} needs project: <full path> or group: <full path>`);
    }
    if (typeof o["title"] !== "string") throw fixtureError(src, `${where}.title is required (a string)`);
    const state = o["state"] ?? "active";
    if (state !== "active" && state !== "closed") {
      throw fixtureError(src, `${where}.state must be active or closed (got "${String(state)}")`);
    }
    const date = (key: string): string | null => {
      const v = o[key];
      if (v === undefined || v === null) return null;
      const s = v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
      const d = castDate(s);
      if (d === null) throw fixtureError(src, `${where}.${key} must be a date YYYY-MM-DD (got "${s}")`);
      return d;
    };
    createMilestone(
      store,
      parent,
      {
        title: o["title"],
        description: typeof o["description"] === "string" ? o["description"] : null,
        state,
        due_date: date("due_date"),
        start_date: date("start_date"),
      },
      (errors) => {
        throw fixtureError(
          src,
          `${where} (${String(o["title"])}): ${Object.entries(errors)
            .map(([k, v]) => `${k} ${v.join(", ")}`)
            .join("; ")}`,
        );
      },
    );
  });
}

type ArchivedMilestone = Pick<
  MilestoneRec,
  "title" | "description" | "state" | "due_date" | "start_date" | "iid"
>;

/** Group milestones in the group export archive (`tree/groups/<id>/milestones.ndjson`). */
const exportedMilestones: GroupExportRelation<ArchivedMilestone> = {
  rows: (store, g) =>
    milestonesArea(store)
      .rows.filter((m) => m.group_id === g.id)
      .sort((a, b) => a.id - b.id)
      .map((m) => ({ ...m, project_id: null })),
  read: (row) => {
    const text = (key: string, nullable: boolean): string | null => {
      const v = row[key] ?? null;
      if (typeof v === "string" || (nullable && v === null)) return v;
      throw new Error(`${key} must be a string${nullable ? " or null" : ""}`);
    };
    const date = (key: string): string | null => {
      const v = text(key, true);
      if (v !== null && castDate(v) === null) throw new Error(`${key} must be a date YYYY-MM-DD`);
      return v;
    };
    const state = row["state"] ?? "active";
    if (state !== "active" && state !== "closed") throw new Error("state must be active or closed");
    const iid = row["iid"];
    if (!Number.isSafeInteger(iid)) throw new Error("iid must be an integer");
    return {
      title: text("title", false)!,
      description: text("description", true),
      state,
      due_date: date("due_date"),
      start_date: date("start_date"),
      iid: iid as number,
    };
  },
  restore: (store, group, rows) => {
    const refused = new Error("refused");
    // The group was just made by the import: the titles it may not repeat are those restored here.
    const titles = new Set<string>();
    for (const m of [...rows].sort((a, b) => a.iid - b.iid)) {
      try {
        const made = createMilestone(
          store,
          { kind: "group", group },
          m,
          () => {
            throw refused;
          },
          (title) => titles.has(title),
        );
        titles.add(made.title);
      } catch (error) {
        if (error !== refused) throw error;
      }
    }
  },
};

export function register(app: SandboxApp): void {
  app.onFixture("milestones", (value, { store, source: src }) => seedMilestones(value, store, src));
  app.onGroupExport("milestones", exportedMilestones);

  for (const kind of ["project", "group"] as const) {
    const base = kind === "project" ? "/projects/:id/milestones" : "/groups/:id/milestones";

    app.get(base, (ctx) => {
      const parent = readParent(ctx, kind);
      const p = ctx.declare({
        state: { type: "string", values: ["active", "closed", "all"], default: "all" },
        iids: { type: "integer[]", split: true },
        title: { type: "string" },
        search: { type: "string" },
        include_parent_milestones: { type: "boolean" },
      });
      let rows = milestonesArea(ctx.store).rows.filter((m) => parentOf(m, parent));
      if (p.include_parent_milestones) {
        const groups =
          parent.kind === "project"
            ? (() => {
                const ns = ctx.store.group(parent.project.namespace_id);
                return ns ? ctx.store.ancestorsAndSelf(ns) : [];
              })()
            : ctx.store.ancestorsAndSelf(parent.group).filter((g) => g.id !== parent.group.id);
        const ids = new Set(groups.map((g) => g.id));
        rows = rows.concat(
          milestonesArea(ctx.store).rows.filter((m) => m.group_id !== null && ids.has(m.group_id)),
        );
      }
      if (p.state !== "all") rows = rows.filter((m) => m.state === p.state);
      if (p.iids && p.iids.length > 0) rows = rows.filter((m) => p.iids?.includes(m.iid));
      if (p.title !== undefined) rows = rows.filter((m) => m.title === p.title);
      if (p.search !== undefined && p.search !== "") {
        const needle = p.search.toLowerCase();
        rows = rows.filter(
          (m) =>
            m.title.toLowerCase().includes(needle) || (m.description ?? "").toLowerCase().includes(needle),
        );
      }
      rows.sort((a, b) => b.id - a.id);
      return ctx.paginate(rows, (m) => milestoneJson(ctx, ctx.store, m));
    });

    app.get(`${base}/:milestone_id`, (ctx) => {
      const parent = readParent(ctx, kind);
      return milestoneJson(ctx, ctx.store, findMilestone(ctx, parent));
    });

    app.post(base, (ctx) => {
      const parent = readParent(ctx, kind);
      authorizeWrite(ctx, parent);
      const p = ctx.declare({
        title: { type: "string", required: true },
        description: { type: "string" },
        due_date: { type: "string" },
        start_date: { type: "string" },
      });
      const m = createMilestone(
        ctx.store,
        parent,
        {
          title: p.title,
          description: p.description ?? null,
          due_date: castDate(p.due_date),
          start_date: castDate(p.start_date),
        },
        failed("create"),
      );
      return json(milestoneJson(ctx, ctx.store, m), 201);
    });

    app.put(`${base}/:milestone_id`, (ctx) => {
      const parent = readParent(ctx, kind);
      authorizeWrite(ctx, parent);
      const p = ctx.declare(
        {
          milestone_id: { type: "integer", required: true },
          title: { type: "string" },
          description: { type: "string" },
          due_date: { type: "string" },
          start_date: { type: "string" },
          state_event: { type: "string", values: ["close", "activate"] },
        },
        { atLeastOneOf: ["title", "description", "due_date", "start_date", "state_event"] },
      );
      const m = findMilestone(ctx, parent);
      const next: MilestoneRec = { ...m };
      if (p.title !== undefined) next.title = p.title;
      if (ctx.has("description")) next.description = p.description ?? null;
      if (ctx.has("due_date")) next.due_date = castDate(p.due_date);
      if (ctx.has("start_date")) next.start_date = castDate(p.start_date);
      if (p.state_event === "close") next.state = "closed";
      if (p.state_event === "activate") next.state = "active";
      const errors = validateMilestone(ctx.store, parent, next);
      if (Object.keys(errors).length > 0) failed("update")(errors);
      const changed = (Object.keys(next) as (keyof MilestoneRec)[]).some((k) => next[k] !== m[k]);
      Object.assign(m, next);
      if (changed) m.updated_at = ctx.store.nowIso();
      return milestoneJson(ctx, ctx.store, m);
    });

    app.delete(`${base}/:milestone_id`, (ctx) => {
      const parent = readParent(ctx, kind);
      authorizeWrite(ctx, parent);
      const m = findMilestone(ctx, parent);
      reassignAll(ctx.store, m.id, 0);
      const area = milestonesArea(ctx.store);
      area.rows = area.rows.filter((x) => x.id !== m.id);
      return noContent();
    });

    app.get(`${base}/:milestone_id/issues`, (ctx) => {
      const parent = readParent(ctx, kind);
      const m = findMilestone(ctx, parent);
      const s = source();
      return ctx.paginate(s.issuesOf(ctx, m), (i) => s.issueJson(ctx, i));
    });

    app.get(`${base}/:milestone_id/merge_requests`, (ctx) => {
      const parent = readParent(ctx, kind);
      const m = findMilestone(ctx, parent);
      const s = mergeRequestSource;
      return s
        ? ctx.paginate(s.mergeRequestsOf(ctx, m), (mr) => s.mergeRequestJson(ctx, mr))
        : ctx.paginate([]);
    });

    app.get(
      `${base}/:milestone_id/burndown_events`,
      (ctx) => {
        const parent = readParent(ctx, kind);
        const m = findMilestone(ctx, parent);
        return source().burndown(ctx, m);
      },
      { licensed: true },
    );
  }

  app.post("/projects/:id/milestones/:milestone_id/promote", (ctx) => {
    const project = findProject(ctx, ctx.path["id"]!);
    authorizeProject(ctx, project, ACCESS.developer);
    const m = findMilestone(ctx, { kind: "project", project });
    const group = ctx.store.group(project.namespace_id);
    if (!group) throw badRequest("Project does not belong to a group.");
    authorizeGroup(ctx, group, ACCESS.developer);
    const area = milestonesArea(ctx.store);
    const projectIds = new Set(ctx.store.projectsIn(group.id).map((p) => p.id));
    const merged = area.rows.filter(
      (x) => x.project_id !== null && projectIds.has(x.project_id) && x.title === m.title,
    );
    if (area.rows.some((x) => x.group_id === group.id && x.title === m.title)) {
      throw badRequest("Title already being used for another group or project milestone.");
    }
    const now = ctx.store.nowIso();
    const promoted: MilestoneRec = {
      ...m,
      id: ctx.store.nextId("milestones"),
      iid: nextIid(ctx.store, { kind: "group", group }),
      project_id: null,
      group_id: group.id,
      created_at: now,
      updated_at: now,
    };
    const mergedIds = new Set(merged.map((x) => x.id));
    for (const x of merged) reassignAll(ctx.store, x.id, promoted.id);
    area.rows = area.rows.filter((x) => !mergedIds.has(x.id));
    area.rows.push(promoted);
    return json(milestoneJson(ctx, ctx.store, promoted), 200);
  });
}
