import type { Ctx, SandboxApp } from "../app.js";
import { ACCESS, canReadProject, findGroup, findProject, projectAccessLevel, requireAuth } from "../auth.js";
import { userBasic } from "../entities.js";
import { paramError } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { coerceInteger } from "../params.js";
import type { ProjectRec, Store, UserRec } from "../store.js";
import {
  type MilestoneRec,
  milestoneJson,
  milestonesArea,
  milestonesVisibleTo,
  setMilestoneIssueSource,
} from "./milestones.js";

/**
 * Issues: the data behind issue statistics, milestone issue lists and epics (contract "Issue statistics").
 *
 * - `GET /issues_statistics` (scope defaults to `created_by_me`), `GET /groups/:id/issues_statistics` (the group's
 *   projects and its subgroups' projects) and `GET /projects/:id/issues_statistics` (scope defaults to `all`):
 *   `{"statistics":{"counts":{"all","closed","opened"}}}`. Authentication required (401); a group or project the
 *   caller cannot see is 404.
 * - Filters (all conjunctive): `labels` (comma-separated or `labels[]`, all must match; `None` no labels, `Any` at
 *   least one), `milestone` (title; `None`, `Any`), `scope` (`created_by_me`, `assigned_to_me`, `all`, also the
 *   hyphenated forms), `author_id` | `author_username` (mutually exclusive), `assignee_id` (integer, `None`, `Any`)
 *   | `assignee_username` (array; more than one value on the core edition is 400
 *   `assignee_username allows one value, but found N: a, b`), `my_reaction_emoji` (`None`, `Any` or an emoji
 *   name, of the caller's reactions), `iids[]`, `search` in `in` (`title`, `description` or both; default both),
 *   `created_after/_before`, `updated_after/_before` (inclusive), `confidential`, `state` (`opened`, `closed`,
 *   `all`; counts are per state, so `state` does not change them, as on the platform).
 * - Confidential issues are seen only by their author, assignees, project Reporters and above, and administrators.
 * - `GET /projects/:id/issues`: a minimal paginated list (same filters plus `state`, newest first).
 *
 * Fixture key `issues`: a list of `{ project: <full path>, iid?, title, description?, state?: opened|closed,
 * labels?: [..], milestone?: <title of a milestone of the project or its groups>, author?: <username>,
 * assignees?: [<username>..], confidential?, created_at?, updated_at?, closed_at?, due_date?, weight?,
 * reactions?: [{ user: <username>, emoji: <name> }] }`.
 */

export interface IssueRec {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: "opened" | "closed";
  labels: string[];
  milestone_id: number | null;
  author_id: number;
  assignee_ids: number[];
  confidential: boolean;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  due_date: string | null;
  weight: number | null;
  discussion_locked: boolean | null;
  reactions: { user_id: number; name: string }[];
}

interface IssuesArea {
  rows: IssueRec[];
}

export function issuesArea(store: Store): IssuesArea {
  return store.area<IssuesArea>("issues", () => ({ rows: [] }));
}

/** `read_issue` of one issue: the project is readable, and a confidential issue needs a closer relation. */
export function canReadIssue(store: Store, user: UserRec | null, issue: IssueRec): boolean {
  const project = store.project(issue.project_id);
  if (!project || !canReadProject(store, user, project)) return false;
  if (!project.issues_enabled && !user?.admin) return false;
  if (!issue.confidential) return true;
  if (!user) return false;
  if (user.admin || issue.author_id === user.id || issue.assignee_ids.includes(user.id)) return true;
  return projectAccessLevel(store, user, project) >= ACCESS.reporter;
}

export function issueWebUrl(ctx: Pick<Ctx, "baseUrl">, store: Store, i: IssueRec): string {
  const p = store.project(i.project_id);
  return `${ctx.baseUrl}/${p ? store.projectFullPath(p) : i.project_id}/-/issues/${i.iid}`;
}

function humanDuration(seconds: number): string | null {
  return seconds === 0 ? null : `${Math.round(seconds / 60)}m`;
}

/** The Issue entity (as listed). */
export function issueJson(ctx: Ctx, i: IssueRec): Record<string, unknown> {
  const store = ctx.store;
  const user = (id: number) => {
    const u = store.user(id);
    return u ? userBasic(ctx, u) : null;
  };
  const milestone =
    i.milestone_id === null ? undefined : milestonesArea(store).rows.find((m) => m.id === i.milestone_id);
  const assignees = i.assignee_ids.flatMap((id) => {
    const u = user(id);
    return u ? [u] : [];
  });
  const api = `${ctx.baseUrl}/api/v4/projects/${i.project_id}`;
  const out: Record<string, unknown> = {
    id: i.id,
    iid: i.iid,
    project_id: i.project_id,
    title: i.title,
    description: i.description,
    state: i.state,
    created_at: i.created_at,
    updated_at: i.updated_at,
    closed_at: i.closed_at,
    closed_by: null,
    labels: [...i.labels].sort(),
    milestone: milestone ? milestoneJson(ctx, store, milestone) : null,
    assignees,
    author: user(i.author_id),
    assignee: assignees[0] ?? null,
    user_notes_count: 0,
    merge_requests_count: 0,
    upvotes: i.reactions.filter((r) => r.name === "thumbsup").length,
    downvotes: i.reactions.filter((r) => r.name === "thumbsdown").length,
    due_date: i.due_date,
    confidential: i.confidential,
    discussion_locked: i.discussion_locked,
    web_url: issueWebUrl(ctx, store, i),
    time_stats: {
      time_estimate: 0,
      total_time_spent: 0,
      human_time_estimate: humanDuration(0),
      human_total_time_spent: humanDuration(0),
    },
    task_completion_status: { count: 0, completed_count: 0 },
    has_tasks: false,
    _links: {
      self: `${api}/issues/${i.iid}`,
      notes: `${api}/issues/${i.iid}/notes`,
      award_emoji: `${api}/issues/${i.iid}/award_emoji`,
      project: api,
    },
    references: {
      short: `#${i.iid}`,
      relative: `#${i.iid}`,
      full: `${(() => {
        const p = store.project(i.project_id);
        return p ? store.projectFullPath(p) : String(i.project_id);
      })()}#${i.iid}`,
    },
  };
  if (ctx.licensed) out["weight"] = i.weight;
  return out;
}

/** The `IssuesFinder` parameters shared by the statistics and list endpoints. */
const FILTER_SPEC = {
  labels: { type: "string[]", split: true },
  milestone: { type: "string" },
  iids: { type: "integer[]", split: true },
  search: { type: "string" },
  in: { type: "string" },
  author_id: { type: "integer" },
  author_username: { type: "string" },
  assignee_id: { type: "string" },
  assignee_username: { type: "string[]", split: true },
  created_after: { type: "datetime" },
  created_before: { type: "datetime" },
  updated_after: { type: "datetime" },
  updated_before: { type: "datetime" },
  scope: {
    type: "string",
    values: ["created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all"],
  },
  my_reaction_emoji: { type: "string" },
  confidential: { type: "boolean" },
  state: { type: "string", values: ["opened", "closed", "all"] },
} as const;

const FILTER_RULES = {
  mutuallyExclusive: [
    ["author_id", "author_username"],
    ["assignee_id", "assignee_username"],
  ],
};

type Filters = ReturnType<typeof declareFilters>;

function declareFilters(ctx: Ctx, defaultScope: "created_by_me" | "all") {
  // `assignee_id` is `types: [Integer, String], integer_none_any: true`.
  const raw = ctx.params["assignee_id"];
  if (raw !== undefined && raw !== "" && raw !== null) {
    const ok =
      coerceInteger(raw) !== undefined || (typeof raw === "string" && /^(none|any)$/i.test(raw.trim()));
    if (!ok) throw paramError("assignee_id should be an integer, none or any");
  }
  const p = ctx.declare(FILTER_SPEC, FILTER_RULES);
  if (p.assignee_username && p.assignee_username.length > 1 && !ctx.licensed) {
    throw paramError(
      `assignee_username allows one value, but found ${p.assignee_username.length}: ${p.assignee_username.join(", ")}`,
    );
  }
  return { ...p, scope: (p.scope ?? defaultScope).replace(/-/g, "_") };
}

const isNone = (v: string) => v.toLowerCase() === "none";
const isAny = (v: string) => v.toLowerCase() === "any";

/** Applies every filter except `state` to the issues the caller may read. */
function applyFilters(ctx: Ctx, issues: IssueRec[], f: Filters): IssueRec[] {
  const store = ctx.store;
  const me = ctx.user;
  let rows = issues.filter((i) => canReadIssue(store, me, i));
  if (f.scope === "created_by_me") rows = rows.filter((i) => me !== null && i.author_id === me.id);
  if (f.scope === "assigned_to_me") rows = rows.filter((i) => me !== null && i.assignee_ids.includes(me.id));
  if (f.labels && f.labels.length > 0) {
    const labels = f.labels.filter((l) => l !== "");
    if (labels.length === 1 && isNone(labels[0]!)) rows = rows.filter((i) => i.labels.length === 0);
    else if (labels.length === 1 && isAny(labels[0]!)) rows = rows.filter((i) => i.labels.length > 0);
    else rows = rows.filter((i) => labels.every((l) => i.labels.includes(l)));
  }
  if (f.milestone !== undefined) {
    const ms = f.milestone;
    if (isNone(ms)) rows = rows.filter((i) => i.milestone_id === null);
    else if (isAny(ms)) rows = rows.filter((i) => i.milestone_id !== null);
    else {
      const titles = new Map(milestonesArea(store).rows.map((m) => [m.id, m.title]));
      rows = rows.filter((i) => i.milestone_id !== null && titles.get(i.milestone_id) === ms);
    }
  }
  if (f.iids && f.iids.length > 0) rows = rows.filter((i) => f.iids?.includes(i.iid));
  if (f.author_id !== undefined) rows = rows.filter((i) => i.author_id === f.author_id);
  if (f.author_username !== undefined) {
    const u = store.userByUsername(f.author_username);
    rows = rows.filter((i) => u !== undefined && i.author_id === u.id);
  }
  if (f.assignee_id !== undefined && f.assignee_id !== "") {
    const a = f.assignee_id.trim();
    if (isNone(a)) rows = rows.filter((i) => i.assignee_ids.length === 0);
    else if (isAny(a)) rows = rows.filter((i) => i.assignee_ids.length > 0);
    else rows = rows.filter((i) => i.assignee_ids.includes(Number(a)));
  }
  if (f.assignee_username && f.assignee_username.length > 0) {
    const ids = f.assignee_username.map((n) => store.userByUsername(n)?.id);
    rows = rows.filter((i) => ids.every((id) => id !== undefined && i.assignee_ids.includes(id)));
  }
  if (f.my_reaction_emoji !== undefined && f.my_reaction_emoji !== "" && me) {
    const e = f.my_reaction_emoji;
    const mine = (i: IssueRec) => i.reactions.filter((r) => r.user_id === me.id);
    if (isNone(e)) rows = rows.filter((i) => mine(i).length === 0);
    else if (isAny(e)) rows = rows.filter((i) => mine(i).length > 0);
    else rows = rows.filter((i) => mine(i).some((r) => r.name === e));
  }
  if (f.search !== undefined && f.search !== "") {
    const allowed = ["title", "description"];
    let columns = (f.in ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => allowed.includes(s));
    if (columns.length === 0) columns = allowed;
    const needle = f.search.toLowerCase();
    rows = rows.filter((i) =>
      columns.some((c) => ((c === "title" ? i.title : i.description) ?? "").toLowerCase().includes(needle)),
    );
  }
  const t = (s: string) => Date.parse(s);
  if (f.created_after) rows = rows.filter((i) => t(i.created_at) >= t(f.created_after!));
  if (f.created_before) rows = rows.filter((i) => t(i.created_at) <= t(f.created_before!));
  if (f.updated_after) rows = rows.filter((i) => t(i.updated_at) >= t(f.updated_after!));
  if (f.updated_before) rows = rows.filter((i) => t(i.updated_at) <= t(f.updated_before!));
  if (f.confidential !== undefined) rows = rows.filter((i) => i.confidential === f.confidential);
  return rows;
}

function statistics(rows: IssueRec[]): Record<string, unknown> {
  const opened = rows.filter((i) => i.state === "opened").length;
  const closed = rows.filter((i) => i.state === "closed").length;
  return { statistics: { counts: { all: rows.length, closed, opened } } };
}

function projectIssues(store: Store, projectIds: Set<number>): IssueRec[] {
  return issuesArea(store).rows.filter((i) => projectIds.has(i.project_id));
}

/** Issues of a milestone visible to the caller: a project milestone's own; a group milestone's across projects. */
function issuesOfMilestone(ctx: Ctx, m: MilestoneRec): IssueRec[] {
  return issuesArea(ctx.store)
    .rows.filter((i) => i.milestone_id === m.id && canReadIssue(ctx.store, ctx.user, i))
    .sort((a, b) => a.id - b.id);
}

// ---- fixture ----

function fixtureError(src: string, msg: string): FixtureError {
  return new FixtureError(`sandbox: fixture ${src}: ${msg}`);
}

function timeValue(v: unknown, where: string, src: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  const d = v instanceof Date ? v : new Date(String(v));
  if (Number.isNaN(d.getTime()))
    throw fixtureError(src, `${where} must be an ISO 8601 time (got "${String(v)}")`);
  return d.toISOString();
}

function userRef(store: Store, v: unknown, where: string, src: string): UserRec {
  const u = typeof v === "string" ? store.userByUsername(v) : undefined;
  if (!u) throw fixtureError(src, `${where} names user "${String(v)}", which is not in users`);
  return u;
}

/** Finds an issue by `<project full path>#<iid>` (used by the epics fixture). */
export function issueByReference(store: Store, ref: string): IssueRec | undefined {
  const hash = ref.lastIndexOf("#");
  if (hash < 0) return undefined;
  const project = store.projectByFullPath(ref.slice(0, hash));
  const iid = Number(ref.slice(hash + 1));
  if (!project) return undefined;
  return issuesArea(store).rows.find((i) => i.project_id === project.id && i.iid === iid);
}

function seedIssues(value: unknown, store: Store, src: string): void {
  if (!Array.isArray(value)) throw fixtureError(src, "issues must be a list");
  const admin = store.data.users.find((u) => u.admin);
  value.forEach((raw, n) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw fixtureError(src, `issues[${n}] must be a mapping`);
    }
    const o = raw as Record<string, unknown>;
    const where = `issues[${n}]`;
    const project = typeof o["project"] === "string" ? store.projectByFullPath(o["project"]) : undefined;
    if (!project) throw fixtureError(src, `${where}.project "${String(o["project"])}" is not in projects`);
    if (typeof o["title"] !== "string" || o["title"].trim() === "") {
      throw fixtureError(src, `${where}.title is required (a non-empty string)`);
    }
    const state = o["state"] ?? "opened";
    if (state !== "opened" && state !== "closed") {
      throw fixtureError(src, `${where}.state must be opened or closed (got "${String(state)}")`);
    }
    const labels = o["labels"] ?? [];
    if (!Array.isArray(labels) || !labels.every((l) => typeof l === "string")) {
      throw fixtureError(src, `${where}.labels must be a list of strings`);
    }
    let milestoneId: number | null = null;
    if (o["milestone"] !== undefined && o["milestone"] !== null) {
      const m = milestonesVisibleTo(store, project).find((x) => x.title === String(o["milestone"]));
      if (!m) {
        throw fixtureError(
          src,
          `${where}.milestone "${String(o["milestone"])}" is not a milestone of ${store.projectFullPath(project)} or its groups (list it under milestones)`,
        );
      }
      milestoneId = m.id;
    }
    const author = o["author"] === undefined ? admin : userRef(store, o["author"], `${where}.author`, src);
    if (!author) throw fixtureError(src, `${where}.author is required (no administrator exists)`);
    const assigneesRaw = o["assignees"] ?? [];
    if (!Array.isArray(assigneesRaw))
      throw fixtureError(src, `${where}.assignees must be a list of usernames`);
    const assignees = assigneesRaw.map((a, k) => userRef(store, a, `${where}.assignees[${k}]`, src).id);
    const reactionsRaw = o["reactions"] ?? [];
    if (!Array.isArray(reactionsRaw)) throw fixtureError(src, `${where}.reactions must be a list`);
    const reactions = reactionsRaw.map((r, k) => {
      const ro = (r ?? {}) as Record<string, unknown>;
      if (typeof ro["emoji"] !== "string")
        throw fixtureError(src, `${where}.reactions[${k}].emoji is required`);
      return {
        user_id: userRef(store, ro["user"], `${where}.reactions[${k}].user`, src).id,
        name: ro["emoji"],
      };
    });
    const now = store.nowIso();
    const created = timeValue(o["created_at"], `${where}.created_at`, src) ?? now;
    const updated = timeValue(o["updated_at"], `${where}.updated_at`, src) ?? created;
    const iidRaw = o["iid"];
    const rows = issuesArea(store).rows;
    let iid: number;
    if (iidRaw !== undefined) {
      const v = coerceInteger(iidRaw);
      if (v === undefined || v < 1) throw fixtureError(src, `${where}.iid must be a positive integer`);
      if (rows.some((i) => i.project_id === project.id && i.iid === v)) {
        throw fixtureError(src, `${where}.iid ${v} is used twice in ${store.projectFullPath(project)}`);
      }
      iid = v;
      const seq = `issue_iids/${project.id}`;
      store.data.seq[seq] = Math.max(store.data.seq[seq] ?? 0, v);
    } else {
      do iid = store.nextId(`issue_iids/${project.id}`);
      while (rows.some((i) => i.project_id === project.id && i.iid === iid));
    }
    const weight = o["weight"] === undefined || o["weight"] === null ? null : coerceInteger(o["weight"]);
    if (weight === undefined) throw fixtureError(src, `${where}.weight must be an integer`);
    rows.push({
      id: store.nextId("issues"),
      iid,
      project_id: project.id,
      title: o["title"],
      description: typeof o["description"] === "string" ? o["description"] : null,
      state,
      labels: [...new Set(labels as string[])],
      milestone_id: milestoneId,
      author_id: author.id,
      assignee_ids: assignees,
      confidential: o["confidential"] === true,
      created_at: created,
      updated_at: updated,
      closed_at:
        state === "closed" ? (timeValue(o["closed_at"], `${where}.closed_at`, src) ?? updated) : null,
      due_date:
        o["due_date"] === undefined || o["due_date"] === null ? null : String(o["due_date"]).slice(0, 10),
      weight,
      discussion_locked: null,
      reactions,
    });
    if (state === "opened") project.open_issues_count += 1;
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("issues", (value, { store, source }) => seedIssues(value, store, source));

  setMilestoneIssueSource({
    issuesOf: issuesOfMilestone,
    issueJson: (ctx, i) => issueJson(ctx, i as IssueRec),
    burndown: (ctx, m) => {
      const events: { created_at: string; weight: number | null; action: string }[] = [];
      for (const i of issuesOfMilestone(ctx, m)) {
        events.push({ created_at: i.created_at, weight: i.weight, action: "created" });
        if (i.closed_at) events.push({ created_at: i.closed_at, weight: i.weight, action: "closed" });
      }
      return events.sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    },
    reassign: (store, from, to) => {
      for (const i of issuesArea(store).rows)
        if (i.milestone_id === from) i.milestone_id = to === 0 ? null : to;
    },
  });

  app.get("/issues_statistics", (ctx) => {
    requireAuth(ctx);
    const f = declareFilters(ctx, "created_by_me");
    return statistics(applyFilters(ctx, issuesArea(ctx.store).rows, f));
  });

  app.get("/groups/:id/issues_statistics", (ctx) => {
    requireAuth(ctx);
    const group = findGroup(ctx, ctx.path["id"]!);
    const f = declareFilters(ctx, "all");
    const groupIds = new Set([group.id, ...ctx.store.descendants(group).map((g) => g.id)]);
    const projectIds = new Set(
      ctx.store.data.projects.filter((p) => groupIds.has(p.namespace_id)).map((p) => p.id),
    );
    return statistics(applyFilters(ctx, projectIssues(ctx.store, projectIds), f));
  });

  app.get("/projects/:id/issues_statistics", (ctx) => {
    requireAuth(ctx);
    const project = findProject(ctx, ctx.path["id"]!);
    const f = declareFilters(ctx, "all");
    return statistics(applyFilters(ctx, projectIssues(ctx.store, new Set([project.id])), f));
  });

  app.get("/projects/:id/issues", (ctx) => {
    const project: ProjectRec = findProject(ctx, ctx.path["id"]!);
    const f = declareFilters(ctx, "all");
    let rows = applyFilters(ctx, projectIssues(ctx.store, new Set([project.id])), f);
    if (f.state && f.state !== "all") rows = rows.filter((i) => i.state === f.state);
    rows.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || b.id - a.id);
    return ctx.paginate(rows, (i) => issueJson(ctx, i));
  });
}
