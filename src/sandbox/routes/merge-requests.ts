import { createHash } from "node:crypto";
import type { Ctx } from "../app.js";
import { ACCESS, canReadProject, effectiveProjectLevel, hasPublicAccess } from "../auth.js";
import { userBasic } from "../entities.js";
import { paramError } from "../errors.js";
import type { FixtureError } from "../fixture.js";
import { coerceInteger, declare } from "../params.js";
import type { ParamHash } from "../request.js";
import type { ProjectRec, Store, UserRec } from "../store.js";
import {
  type MilestoneMergeRequestSource,
  milestoneJson,
  milestonesArea,
  milestonesVisibleTo,
} from "./milestones.js";

/**
 * Merge requests as the sandbox knows them: the merge requests a deployment shipped (the sandbox has no
 * repositories, so they come from the fixture, under a deployment; see routes/deployments.ts). Not a route module:
 * routes/deployments.ts serves `GET /projects/:id/deployments/:deployment_id/merge_requests` with {@link listMergeRequests}
 * and hands {@link milestoneMergeRequests} to routes/milestones.ts for `…/milestones/:milestone_id/merge_requests`
 * (the platform's `milestone_issuables_for`: the milestone's merge requests the caller may read, `MergeRequestBasic`;
 * sorted by label priority there, by id here, since the sandbox's labels have no priorities).
 *
 * The listing follows `MergeRequestsFinder` with the platform's `merge_requests_base_params` (13.x
 * `lib/api/helpers/merge_requests_helpers.rb`): `state` (`opened` `closed` `locked` `merged` `all`, default `all`),
 * `order_by` (`created_at` default, `updated_at`), `sort` (`desc` default), `view=simple`, `scope` (`created_by_me`,
 * `assigned_to_me`, `all`, also hyphenated; default `all`), `author_id` | `author_username`, `assignee_id` (integer,
 * `None`, `Any`) | `assignee_username`, `reviewer_id` | `reviewer_username`, `labels` (all of them; `None`, `Any`),
 * `milestone` (title; `None`, `Any`), `my_reaction_emoji` (the sandbox's merge requests carry no reactions),
 * `created_after/_before`, `updated_after/_before` (inclusive), `source_branch`, `source_project_id`,
 * `target_branch`, `search` in `in` (`title`, `description`), `wip` (`yes`, `no`: a `Draft:`/`WIP:` title), `not[...]`
 * (the negatable ones above; `not[labels]` excludes merge requests with any of the labels), `environment`,
 * `deployed_before`, `deployed_after` (of the deployment that shipped them). `with_labels_details` is accepted;
 * labels stay plain names (the sandbox has no label records).
 */

export type MergeRequestState = "opened" | "closed" | "locked" | "merged";
export const MR_STATES: readonly MergeRequestState[] = ["opened", "closed", "locked", "merged"];

export interface MergeRequestRec {
  id: number;
  iid: number;
  project_id: number;
  title: string;
  description: string | null;
  state: MergeRequestState;
  source_branch: string;
  target_branch: string;
  author_id: number;
  assignee_ids: number[];
  reviewer_ids: number[];
  labels: string[];
  milestone_id: number | null;
  created_at: string;
  updated_at: string;
  merged_at: string | null;
  merged_by_id: number | null;
  closed_at: string | null;
  sha: string;
  merge_commit_sha: string | null;
}

/** Which deployment shipped which merge request (`deployment_merge_requests`). */
export interface DeploymentLinkRec {
  deployment_id: number;
  merge_request_id: number;
  environment_id: number;
}

interface MergeRequestsArea {
  rows: MergeRequestRec[];
  links: DeploymentLinkRec[];
}

export function mergeRequestsArea(store: Store): MergeRequestsArea {
  return store.area<MergeRequestsArea>("merge_requests", () => ({ rows: [], links: [] }));
}

/** What the finder needs to know about the deployment that shipped a merge request. */
export interface ShippedBy {
  environmentName: string;
  finishedAt: string | null;
}

const DRAFT = /^\s*(\[draft\]|\(draft\)|draft:|draft\s|\[wip\]|wip:|wip\s)/i;

function stableSha(...parts: (string | number)[]): string {
  return createHash("sha1")
    .update(`forgeform-sandbox-mr:${parts.join(":")}`)
    .digest("hex");
}

function projectPath(store: Store, projectId: number): string {
  const p = store.project(projectId);
  return p ? store.projectFullPath(p) : String(projectId);
}

/** `MergeRequestBasic` (13.x), or `MergeRequestSimple` with `view=simple`. */
function mergeRequestJson(ctx: Ctx, mr: MergeRequestRec, simple: boolean): Record<string, unknown> {
  const store = ctx.store;
  const path = projectPath(store, mr.project_id);
  const web_url = `${ctx.baseUrl}/${path}/-/merge_requests/${mr.iid}`;
  const head = {
    id: mr.id,
    iid: mr.iid,
    project_id: mr.project_id,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: mr.created_at,
    updated_at: mr.updated_at,
  };
  if (simple) return { ...head, web_url };
  const user = (id: number | null) => {
    const u = id === null ? undefined : store.user(id);
    return u ? userBasic(ctx, u) : null;
  };
  const users = (ids: number[]) => ids.flatMap((id) => user(id) ?? []);
  const assignees = users(mr.assignee_ids);
  const milestone =
    mr.milestone_id === null ? undefined : milestonesArea(store).rows.find((m) => m.id === mr.milestone_id);
  const out: Record<string, unknown> = {
    ...head,
    merged_by: user(mr.merged_by_id),
    merged_at: mr.merged_at,
    closed_by: mr.state === "closed" ? user(mr.author_id) : null,
    closed_at: mr.closed_at,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    user_notes_count: 0,
    upvotes: 0,
    downvotes: 0,
    author: user(mr.author_id),
    assignees,
    assignee: assignees[0] ?? null,
    reviewers: users(mr.reviewer_ids),
    source_project_id: mr.project_id,
    target_project_id: mr.project_id,
    labels: [...mr.labels].sort(),
    work_in_progress: DRAFT.test(mr.title),
    milestone: milestone ? milestoneJson(ctx, store, milestone) : null,
    merge_when_pipeline_succeeds: false,
    merge_status: mr.state === "opened" ? "can_be_merged" : "unchecked",
    sha: mr.sha,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: null,
    discussion_locked: null,
    should_remove_source_branch: null,
    force_remove_source_branch: false,
    reference: `!${mr.iid}`,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${path}!${mr.iid}` },
    web_url,
    time_stats: {
      time_estimate: 0,
      total_time_spent: 0,
      human_time_estimate: null,
      human_total_time_spent: null,
    },
    squash: false,
    task_completion_status: { count: 0, completed_count: 0 },
    has_conflicts: false,
    blocking_discussions_resolved: true,
  };
  if (ctx.licensed) out["approvals_before_merge"] = null;
  return out;
}

/** `read_merge_request` on the merge request's project. */
function canReadMergeRequest(store: Store, user: UserRec | null, mr: MergeRequestRec): boolean {
  const project = store.project(mr.project_id);
  if (!project || !canReadProject(store, user, project)) return false;
  if (user?.admin) return true;
  if (!project.merge_requests_enabled) return false;
  return hasPublicAccess(user, project) || effectiveProjectLevel(store, user, project) >= ACCESS.reporter;
}

export const milestoneMergeRequests: MilestoneMergeRequestSource = {
  mergeRequestsOf: (ctx, m) =>
    mergeRequestsArea(ctx.store)
      .rows.filter((mr) => mr.milestone_id === m.id && canReadMergeRequest(ctx.store, ctx.user, mr))
      .sort((a, b) => a.id - b.id),
  mergeRequestJson: (ctx, mr) => mergeRequestJson(ctx, mr as MergeRequestRec, false),
  reassign: (store, from, to) => {
    for (const mr of mergeRequestsArea(store).rows)
      if (mr.milestone_id === from) mr.milestone_id = to === 0 ? null : to;
  },
};

const NEGATABLE = {
  author_id: { type: "integer" },
  author_username: { type: "string" },
  assignee_id: { type: "string" },
  assignee_username: { type: "string[]", split: true },
  reviewer_id: { type: "string" },
  reviewer_username: { type: "string" },
  labels: { type: "string[]", split: true },
  milestone: { type: "string" },
  my_reaction_emoji: { type: "string" },
} as const;

const LIST_SPEC = {
  ...NEGATABLE,
  state: { type: "string", values: ["opened", "closed", "locked", "merged", "all"], default: "all" },
  order_by: { type: "string", values: ["created_at", "updated_at"], default: "created_at" },
  sort: { type: "string", values: ["asc", "desc"], default: "desc" },
  with_labels_details: { type: "boolean", default: false },
  with_merge_status_recheck: { type: "boolean", default: false },
  created_after: { type: "datetime" },
  created_before: { type: "datetime" },
  updated_after: { type: "datetime" },
  updated_before: { type: "datetime" },
  view: { type: "string", values: ["simple"] },
  scope: {
    type: "string",
    values: ["created-by-me", "assigned-to-me", "created_by_me", "assigned_to_me", "all"],
  },
  source_branch: { type: "string" },
  source_project_id: { type: "integer" },
  target_branch: { type: "string" },
  search: { type: "string" },
  in: { type: "string" },
  wip: { type: "string", values: ["yes", "no"] },
  not: { type: "hash" },
  deployed_before: { type: "datetime" },
  deployed_after: { type: "datetime" },
  environment: { type: "string" },
} as const;

const EXCLUSIVE = [
  ["author_id", "author_username"],
  ["assignee_id", "assignee_username"],
  ["reviewer_id", "reviewer_username"],
];

type Negatable = { [K in keyof typeof NEGATABLE]?: unknown };
type Predicate = (mr: MergeRequestRec) => boolean;

/** `types: [Integer, String], integer_none_any: true`. */
function checkNoneAny(name: string, v: unknown): void {
  if (v === undefined || v === null || v === "") return;
  if (coerceInteger(v) !== undefined) return;
  if (typeof v === "string" && /^(none|any)$/i.test(v.trim())) return;
  throw paramError(`${name} should be an integer, none or any`);
}

/** `None`, `Any` or one user id against a list of user ids. */
function userIdsMatch(ref: string, ids: (mr: MergeRequestRec) => number[]): Predicate {
  const v = ref.trim().toLowerCase();
  if (v === "none") return (mr) => ids(mr).length === 0;
  if (v === "any") return (mr) => ids(mr).length > 0;
  const id = Number(ref);
  return (mr) => ids(mr).includes(id);
}

/** The predicates of the negatable parameters; `negated` builds those of `not[...]`. */
function negatablePredicates(ctx: Ctx, project: ProjectRec, f: Negatable, negated: boolean): Predicate[] {
  const store = ctx.store;
  const out: Predicate[] = [];
  const byName = (name: unknown) => store.userByUsername(String(name))?.id ?? -1;
  if (typeof f.author_id === "number") out.push((mr) => mr.author_id === f.author_id);
  if (typeof f.author_username === "string") {
    const id = byName(f.author_username);
    out.push((mr) => mr.author_id === id);
  }
  if (typeof f.assignee_id === "string" && f.assignee_id !== "") {
    out.push(userIdsMatch(f.assignee_id, (mr) => mr.assignee_ids));
  }
  if (Array.isArray(f.assignee_username) && f.assignee_username.length > 0) {
    const ids = f.assignee_username.map(byName);
    out.push((mr) => ids.every((id) => mr.assignee_ids.includes(id)));
  }
  if (typeof f.reviewer_id === "string" && f.reviewer_id !== "") {
    out.push(userIdsMatch(f.reviewer_id, (mr) => mr.reviewer_ids));
  }
  if (typeof f.reviewer_username === "string") {
    const id = byName(f.reviewer_username);
    out.push((mr) => mr.reviewer_ids.includes(id));
  }
  const labels = Array.isArray(f.labels) ? (f.labels as string[]).filter((l) => l !== "") : [];
  if (labels.length === 1 && /^(none|any)$/i.test(labels[0]!)) {
    const none = labels[0]!.toLowerCase() === "none";
    out.push((mr) => (mr.labels.length === 0) === none);
  } else if (labels.length > 0) {
    out.push(
      negated
        ? (mr) => labels.some((l) => mr.labels.includes(l))
        : (mr) => labels.every((l) => mr.labels.includes(l)),
    );
  }
  if (typeof f.milestone === "string") {
    const ms = f.milestone.toLowerCase();
    if (ms === "none" || ms === "any") out.push((mr) => (mr.milestone_id === null) === (ms === "none"));
    else {
      const ids = new Set(
        milestonesVisibleTo(store, project)
          .filter((m) => m.title === f.milestone)
          .map((m) => m.id),
      );
      out.push((mr) => mr.milestone_id !== null && ids.has(mr.milestone_id));
    }
  }
  if (typeof f.my_reaction_emoji === "string" && f.my_reaction_emoji !== "") {
    const none = f.my_reaction_emoji.toLowerCase() === "none";
    out.push(() => none);
  }
  return negated ? out.map((p) => (mr: MergeRequestRec) => !p(mr)) : out;
}

/** `optional :not, type: Hash do use :merge_requests_negatable_params end`: messages name `not[<key>]`. */
function declareNot(n: Record<string, unknown>): Negatable {
  const keys = Object.keys(NEGATABLE).filter((k) => Object.hasOwn(n, k));
  for (const k of ["assignee_id", "reviewer_id"]) checkNoneAny(`not[${k}]`, n[k]);
  const spec = Object.fromEntries(keys.map((k) => [`not[${k}]`, NEGATABLE[k as keyof typeof NEGATABLE]]));
  const input = Object.fromEntries(keys.map((k) => [`not[${k}]`, n[k]])) as ParamHash;
  const rules = { mutuallyExclusive: EXCLUSIVE.map((g) => g.map((k) => `not[${k}]`)) };
  const out = declare(input, spec, rules) as Record<string, unknown>;
  return Object.fromEntries(keys.map((k) => [k, out[`not[${k}]`]]));
}

/**
 * The paginated listing of `candidates` (the merge requests of one deployment) with the finder's parameters,
 * as the caller may see them. `shippedBy` tells the deployment filters which deployment shipped each one.
 */
export function listMergeRequests(
  ctx: Ctx,
  project: ProjectRec,
  candidates: MergeRequestRec[],
  shippedBy: ShippedBy,
) {
  checkNoneAny("assignee_id", ctx.params["assignee_id"]);
  checkNoneAny("reviewer_id", ctx.params["reviewer_id"]);
  const f = ctx.declare(LIST_SPEC, { mutuallyExclusive: EXCLUSIVE });
  const me = ctx.user;
  const keep: Predicate[] = [(mr) => canReadMergeRequest(ctx.store, me, mr)];
  if (f.state !== "all") keep.push((mr) => mr.state === f.state);
  const scope = (f.scope ?? "all").replace(/-/g, "_");
  if (scope === "created_by_me") keep.push((mr) => me !== null && mr.author_id === me.id);
  if (scope === "assigned_to_me") keep.push((mr) => me !== null && mr.assignee_ids.includes(me.id));
  keep.push(...negatablePredicates(ctx, project, f, false));
  if (f.not) keep.push(...negatablePredicates(ctx, project, declareNot(f.not), true));
  const t = Date.parse;
  const bound = (value: string | undefined, field: "created_at" | "updated_at", after: boolean) => {
    if (value) keep.push((mr) => (after ? t(mr[field]) >= t(value) : t(mr[field]) <= t(value)));
  };
  bound(f.created_after, "created_at", true);
  bound(f.created_before, "created_at", false);
  bound(f.updated_after, "updated_at", true);
  bound(f.updated_before, "updated_at", false);
  if (f.source_branch !== undefined) keep.push((mr) => mr.source_branch === f.source_branch);
  if (f.target_branch !== undefined) keep.push((mr) => mr.target_branch === f.target_branch);
  if (f.source_project_id !== undefined) keep.push((mr) => mr.project_id === f.source_project_id);
  if (f.wip !== undefined) keep.push((mr) => DRAFT.test(mr.title) === (f.wip === "yes"));
  if (f.search !== undefined && f.search !== "") {
    const columns = (f.in ?? "").split(",").map((s) => s.trim());
    const inTitle = columns.includes("title") || !columns.includes("description");
    const inDescription = columns.includes("description") || !columns.includes("title");
    const needle = f.search.toLowerCase();
    const has = (s: string | null) => (s ?? "").toLowerCase().includes(needle);
    keep.push((mr) => (inTitle && has(mr.title)) || (inDescription && has(mr.description)));
  }
  if (f.environment !== undefined && f.environment !== shippedBy.environmentName) keep.push(() => false);
  const finished = shippedBy.finishedAt === null ? Number.NaN : t(shippedBy.finishedAt);
  if (f.deployed_before !== undefined && !(finished < t(f.deployed_before))) keep.push(() => false);
  if (f.deployed_after !== undefined && !(finished > t(f.deployed_after))) keep.push(() => false);
  const key = f.order_by as "created_at" | "updated_at";
  const dir = f.sort === "asc" ? 1 : -1;
  const rows = candidates
    .filter((mr) => keep.every((p) => p(mr)))
    .sort((a, b) => dir * (t(a[key]) - t(b[key]) || a.id - b.id));
  return ctx.paginate(rows, (mr) => mergeRequestJson(ctx, mr, f.view === "simple"));
}

// ---- fixture ----

/** A fixture's datetime as the platform writes it; `undefined` when not given. */
export function fixtureTime(
  v: unknown,
  fail: (msg: string) => FixtureError,
  where: string,
): string | undefined {
  if (v === undefined || v === null) return undefined;
  const d = v instanceof Date ? v : new Date(String(v));
  if (Number.isNaN(d.getTime())) throw fail(`${where} must be an ISO 8601 time (got "${String(v)}")`);
  return d.toISOString();
}

/**
 * A merge request of a deployment's fixture entry: `{ iid?, title, description?, state?: merged (default) | opened |
 * closed | locked, source_branch?, target_branch? (default: the deployment's ref), author?, assignees?, reviewers?,
 * labels?, milestone? (a title of the project's or its groups' milestones), created_at?, updated_at?, merged_at?,
 * merged_by?, closed_at? }`. An `iid` the project already has links that merge request again (nothing else may be
 * given then).
 */
export function seedMergeRequest(
  store: Store,
  project: ProjectRec,
  raw: unknown,
  defaults: { target_branch: string; created_at: string },
  fail: (msg: string) => FixtureError,
  where: string,
): MergeRequestRec {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw fail(`${where} must be a mapping`);
  const o = raw as Record<string, unknown>;
  const area = mergeRequestsArea(store);
  const ofProject = area.rows.filter((m) => m.project_id === project.id);
  const iid = o["iid"] === undefined ? undefined : coerceInteger(o["iid"]);
  if (o["iid"] !== undefined && (iid === undefined || iid < 1))
    throw fail(`${where}.iid must be a positive integer`);
  const existing = ofProject.find((m) => m.iid === iid);
  if (existing) {
    const extra = Object.keys(o).filter((k) => k !== "iid");
    if (extra.length > 0) throw fail(`${where} links !${iid} again, so it may not set ${extra.join(", ")}`);
    return existing;
  }
  if (typeof o["title"] !== "string" || o["title"].trim() === "") throw fail(`${where}.title is required`);
  const str = (k: string): string | undefined => {
    if (o[k] === undefined || o[k] === null) return undefined;
    if (typeof o[k] !== "string") throw fail(`${where}.${k} must be a string`);
    return o[k] as string;
  };
  const user = (k: string, name: unknown): UserRec => {
    const u = typeof name === "string" ? store.userByUsername(name) : undefined;
    if (!u) throw fail(`${where}.${k} names user "${String(name)}", which is not in users`);
    return u;
  };
  const users = (k: string): number[] => {
    const v = o[k];
    if (v === undefined) return [];
    if (!Array.isArray(v)) throw fail(`${where}.${k} must be a list of usernames`);
    return v.map((name) => user(k, name).id);
  };
  const state = (o["state"] ?? "merged") as MergeRequestState;
  if (!MR_STATES.includes(state)) throw fail(`${where}.state must be one of ${MR_STATES.join(", ")}`);
  const labels = o["labels"] ?? [];
  if (!Array.isArray(labels) || labels.some((l) => typeof l !== "string")) {
    throw fail(`${where}.labels must be a list of names`);
  }
  let milestoneId: number | null = null;
  const milestone = str("milestone");
  if (milestone !== undefined) {
    const m = milestonesVisibleTo(store, project).find((x) => x.title === milestone);
    if (!m) throw fail(`${where}.milestone "${milestone}" is not a milestone of the project or its groups`);
    milestoneId = m.id;
  }
  const author = o["author"] === undefined ? store.userByUsername("root")! : user("author", o["author"]);
  const number = iid ?? Math.max(0, ...ofProject.map((m) => m.iid)) + 1;
  const createdAt = fixtureTime(o["created_at"], fail, `${where}.created_at`) ?? defaults.created_at;
  const at = (k: string, when: boolean) =>
    fixtureTime(o[k], fail, `${where}.${k}`) ?? (when ? createdAt : null);
  const mergedAt = at("merged_at", state === "merged");
  const closedAt = at("closed_at", state === "closed");
  const sourceBranch = str("source_branch") ?? `feature-${number}`;
  const mr: MergeRequestRec = {
    id: store.nextId("merge_requests"),
    iid: number,
    project_id: project.id,
    title: o["title"],
    description: str("description") ?? null,
    state,
    source_branch: sourceBranch,
    target_branch: str("target_branch") ?? defaults.target_branch,
    author_id: author.id,
    assignee_ids: users("assignees"),
    reviewer_ids: users("reviewers"),
    labels: [...new Set(labels as string[])],
    milestone_id: milestoneId,
    created_at: createdAt,
    updated_at:
      fixtureTime(o["updated_at"], fail, `${where}.updated_at`) ?? mergedAt ?? closedAt ?? createdAt,
    merged_at: mergedAt,
    merged_by_id:
      state === "merged"
        ? o["merged_by"] === undefined
          ? author.id
          : user("merged_by", o["merged_by"]).id
        : null,
    closed_at: closedAt,
    sha: stableSha(project.id, sourceBranch, number),
    merge_commit_sha: state === "merged" ? stableSha("merge", project.id, number) : null,
  };
  area.rows.push(mr);
  return mr;
}
