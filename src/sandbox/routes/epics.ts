import type { Ctx, SandboxApp } from "../app.js";
import {
  ACCESS,
  authenticateNonGet,
  effectiveGroupLevel,
  effectiveProjectLevel,
  findGroup,
  requireAuth,
} from "../auth.js";
import { userBasic } from "../entities.js";
import { forbidden, HttpError, recordNotFound } from "../errors.js";
import { FixtureError } from "../fixture.js";
import { json } from "../respond.js";
import type { GroupRec, Store } from "../store.js";
import { canReadIssue, type IssueRec, issueByReference, issueJson, issuesArea } from "./issues.js";

/**
 * Epics and their issues [licensed] (contract "Epic issues").
 *
 * - `GET /groups/:id/epics/:epic_iid/issues` (the epic's issues the caller may read, by relative position, each with
 *   `epic_issue_id` and `relative_position`; paginated), `POST …/issues/:issue_id` (`issue_id` is the issue's global
 *   id; 201 with the association `{id, relative_position, epic, issue}`; a new link goes first; an issue linked to
 *   another epic is moved here), `DELETE …/issues/:epic_issue_id` (200 with the removed association) and
 *   `PUT …/issues/:epic_issue_id` with `move_before_id` (the link to follow) and/or `move_after_id` (the link to
 *   precede): 200 with the epic's issues and their new positions.
 * - Also `GET /groups/:id/epics` and `GET /groups/:id/epics/:epic_iid` (read-only; epics come from the fixture), so
 *   clients that load an epic before its issues work.
 * - Order of checks as on the platform: authentication (401; epic issues need it on every call), the group
 *   (404 `Group Not Found`), the epics feature (on the core edition the routes exist but answer 403
 *   `{"message":"403 Forbidden"}`), the epic (`{"message":"404 Not found"}`), then permissions: linking needs
 *   Reporter on the group (403). An issue that does not exist is `404 Not found`; one outside the group's hierarchy
 *   or not manageable by the caller (Reporter on its project) is 404 `No Issue found for given params`; an issue
 *   already in this epic is 409 `Issue(s) already assigned`; a move target that is not a link of the epic is 404
 *   `Epic issue not found for given params`.
 *
 * Fixture key `epics`: a list of `{ group: <full path>, iid?, title, description?, author?: <username>,
 * start_date?, end_date?, issues?: ["<project full path>#<iid>", ...] }` (listed after `issues`).
 */

export interface EpicRec {
  id: number;
  iid: number;
  group_id: number;
  title: string;
  description: string | null;
  author_id: number;
  start_date: string | null;
  end_date: string | null;
  created_at: string;
  updated_at: string;
}

export interface EpicIssueRec {
  id: number;
  epic_id: number;
  issue_id: number;
  relative_position: number;
}

interface EpicsArea {
  epics: EpicRec[];
  links: EpicIssueRec[];
}

const START_POSITION = 1073741823;
const IDEAL_DISTANCE = 511;

function area(store: Store): EpicsArea {
  return store.area<EpicsArea>("epics", () => ({ epics: [], links: [] }));
}

function epicJson(ctx: Ctx, e: EpicRec): Record<string, unknown> {
  const g = ctx.store.group(e.group_id);
  const author = ctx.store.user(e.author_id);
  return {
    id: e.id,
    iid: e.iid,
    group_id: e.group_id,
    title: e.title,
    description: e.description,
    author: author ? userBasic(ctx, author) : null,
    start_date: e.start_date,
    end_date: e.end_date,
    web_url: `${ctx.baseUrl}/groups/${g ? ctx.store.groupFullPath(g) : e.group_id}/-/epics/${e.iid}`,
  };
}

function linksOf(store: Store, epic: EpicRec): EpicIssueRec[] {
  return area(store)
    .links.filter((l) => l.epic_id === epic.id)
    .sort((a, b) => a.relative_position - b.relative_position || a.id - b.id);
}

function epicIssueJson(ctx: Ctx, link: EpicIssueRec, issue: IssueRec): Record<string, unknown> {
  return {
    ...issueJson(ctx, issue),
    subscribed: false,
    epic_issue_id: link.id,
    relative_position: link.relative_position,
  };
}

/** The epic's issues the caller may read, in order, as EpicIssue entities. */
function readableIssues(ctx: Ctx, epic: EpicRec): Record<string, unknown>[] {
  const issues = new Map(issuesArea(ctx.store).rows.map((i) => [i.id, i]));
  return linksOf(ctx.store, epic).flatMap((l) => {
    const issue = issues.get(l.issue_id);
    return issue && canReadIssue(ctx.store, ctx.user, issue) ? [epicIssueJson(ctx, l, issue)] : [];
  });
}

function linkJson(ctx: Ctx, link: EpicIssueRec, epic: EpicRec): Record<string, unknown> {
  const issue = issuesArea(ctx.store).rows.find((i) => i.id === link.issue_id);
  return {
    id: link.id,
    relative_position: link.relative_position,
    epic: epicJson(ctx, epic),
    issue: issue ? issueJson(ctx, issue) : null,
  };
}

/** The group, then the epics feature (403 on core). */
function epicsGroup(ctx: Ctx): GroupRec {
  const group = findGroup(ctx, ctx.path["id"]!);
  if (!ctx.licensed) throw forbidden();
  return group;
}

function findEpic(ctx: Ctx, group: GroupRec): EpicRec {
  const { epic_iid } = ctx.declare({ epic_iid: { type: "integer", required: true } });
  const epic = area(ctx.store).epics.find((e) => e.group_id === group.id && e.iid === epic_iid);
  if (!epic) throw recordNotFound();
  return epic;
}

function inHierarchy(store: Store, group: GroupRec, issue: IssueRec): boolean {
  const project = store.project(issue.project_id);
  const ns = project ? store.group(project.namespace_id) : undefined;
  return ns !== undefined && store.ancestorsAndSelf(ns).some((g) => g.id === group.id);
}

/** Places `link` at the start of the epic's list (the platform's `move_to_start`). */
function moveToStart(store: Store, epic: EpicRec, link: EpicIssueRec): void {
  const others = linksOf(store, epic).filter((l) => l !== link);
  link.relative_position =
    others.length === 0 ? START_POSITION : others[0]!.relative_position - IDEAL_DISTANCE;
}

/** `move_between(before, after)`: right after `before`, or right before `after`; rebalances when there is no gap. */
function moveBetween(
  store: Store,
  epic: EpicRec,
  link: EpicIssueRec,
  before?: EpicIssueRec,
  after?: EpicIssueRec,
): void {
  const others = linksOf(store, epic).filter((l) => l !== link);
  const index = before ? others.indexOf(before) + 1 : after ? others.indexOf(after) : others.length;
  const prev = others[index - 1];
  const next = others[index];
  if (prev && next) {
    if (next.relative_position - prev.relative_position >= 2) {
      link.relative_position = Math.floor((prev.relative_position + next.relative_position) / 2);
      return;
    }
    const order = [...others.slice(0, index), link, ...others.slice(index)];
    order.forEach((l, i) => {
      l.relative_position = START_POSITION + (i - index) * IDEAL_DISTANCE;
    });
    return;
  }
  if (prev) link.relative_position = prev.relative_position + IDEAL_DISTANCE;
  else if (next) link.relative_position = next.relative_position - IDEAL_DISTANCE;
  else link.relative_position = START_POSITION;
}

function seed(value: unknown, store: Store, src: string): void {
  const fail = (msg: string) => new FixtureError(`sandbox: fixture ${src}: ${msg}`);
  if (!Array.isArray(value)) throw fail("epics must be a list");
  const a = area(store);
  const admin = store.data.users.find((u) => u.admin);
  value.forEach((raw, i) => {
    const where = `epics[${i}]`;
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw fail(`${where} must be a mapping`);
    const o = raw as Record<string, unknown>;
    const group = typeof o["group"] === "string" ? store.groupByFullPath(o["group"]) : undefined;
    if (!group) throw fail(`${where}.group "${String(o["group"])}" is not in groups`);
    if (typeof o["title"] !== "string" || o["title"] === "")
      throw fail(`${where}.title is required (a string)`);
    const author = o["author"] === undefined ? admin : store.userByUsername(String(o["author"]));
    if (!author) throw fail(`${where}.author "${String(o["author"])}" is not in users`);
    const date = (k: string): string | null => {
      const v = o[k];
      if (v === undefined || v === null) return null;
      const s = v instanceof Date ? v.toISOString().slice(0, 10) : String(v);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) throw fail(`${where}.${k} must be a date YYYY-MM-DD (got "${s}")`);
      return s;
    };
    const seq = `epic_iids/${group.id}`;
    let iid: number;
    if (o["iid"] !== undefined) {
      iid = Number(o["iid"]);
      if (!Number.isInteger(iid) || iid < 1) throw fail(`${where}.iid must be a positive integer`);
      if (a.epics.some((e) => e.group_id === group.id && e.iid === iid)) {
        throw fail(`${where}.iid ${iid} is used twice in ${o["group"]}`);
      }
      store.data.seq[seq] = Math.max(store.data.seq[seq] ?? 0, iid);
    } else {
      do iid = store.nextId(seq);
      while (a.epics.some((e) => e.group_id === group.id && e.iid === iid));
    }
    const now = store.nowIso();
    const epic: EpicRec = {
      id: store.nextId("epics"),
      iid,
      group_id: group.id,
      title: o["title"],
      description: typeof o["description"] === "string" ? o["description"] : null,
      author_id: author.id,
      start_date: date("start_date"),
      end_date: date("end_date"),
      created_at: now,
      updated_at: now,
    };
    a.epics.push(epic);
    const refs = o["issues"] ?? [];
    if (!Array.isArray(refs)) throw fail(`${where}.issues must be a list of "<project path>#<iid>"`);
    refs.forEach((ref, k) => {
      const issue = typeof ref === "string" ? issueByReference(store, ref) : undefined;
      if (!issue)
        throw fail(`${where}.issues[${k}] "${String(ref)}" is not an issue of the fixture (project#iid)`);
      if (!inHierarchy(store, group, issue)) {
        throw fail(`${where}.issues[${k}] "${ref}" is not in a project of ${o["group"]} or its subgroups`);
      }
      if (a.links.some((l) => l.issue_id === issue.id))
        throw fail(`${where}.issues[${k}] "${ref}" is in two epics`);
      a.links.push({
        id: store.nextId("epic_issues"),
        epic_id: epic.id,
        issue_id: issue.id,
        relative_position: START_POSITION + k * IDEAL_DISTANCE,
      });
    });
  });
}

export function register(app: SandboxApp): void {
  app.onFixture("epics", (value, { store, source }) => seed(value, store, source));

  app.get("/groups/:id/epics", (ctx) => {
    authenticateNonGet(ctx);
    const group = epicsGroup(ctx);
    const epics = area(ctx.store)
      .epics.filter((e) => e.group_id === group.id)
      .sort((a, b) => b.id - a.id);
    return ctx.paginate(epics, (e) => epicJson(ctx, e));
  });

  app.get("/groups/:id/epics/:epic_iid", (ctx) => {
    authenticateNonGet(ctx);
    const group = epicsGroup(ctx);
    return epicJson(ctx, findEpic(ctx, group));
  });

  app.get("/groups/:id/epics/:epic_iid/issues", (ctx) => {
    requireAuth(ctx);
    const group = epicsGroup(ctx);
    const epic = findEpic(ctx, group);
    return ctx.paginate(readableIssues(ctx, epic));
  });

  app.post("/groups/:id/epics/:epic_iid/issues/:issue_id", (ctx) => {
    const user = requireAuth(ctx);
    const group = epicsGroup(ctx);
    const epic = findEpic(ctx, group);
    if (effectiveGroupLevel(ctx.store, user, group) < ACCESS.reporter) throw forbidden();
    const { issue_id } = ctx.declare({ issue_id: { type: "integer", required: true } });
    const issue = issuesArea(ctx.store).rows.find((i) => i.id === issue_id);
    if (!issue) throw recordNotFound();
    const project = ctx.store.project(issue.project_id);
    if (
      !project ||
      !inHierarchy(ctx.store, group, issue) ||
      !canReadIssue(ctx.store, user, issue) ||
      effectiveProjectLevel(ctx.store, user, project) < ACCESS.reporter
    ) {
      throw new HttpError(404, { message: "No Issue found for given params" });
    }
    const a = area(ctx.store);
    const existing = a.links.find((l) => l.issue_id === issue.id);
    if (existing?.epic_id === epic.id) throw new HttpError(409, { message: "Issue(s) already assigned" });
    // An issue belongs to one epic at most: linking it here removes it from the other one.
    if (existing) a.links = a.links.filter((l) => l !== existing);
    const link: EpicIssueRec = {
      id: ctx.store.nextId("epic_issues"),
      epic_id: epic.id,
      issue_id: issue.id,
      relative_position: 0,
    };
    moveToStart(ctx.store, epic, link);
    a.links.push(link);
    return json(linkJson(ctx, link, epic), 201);
  });

  app.delete("/groups/:id/epics/:epic_iid/issues/:epic_issue_id", (ctx) => {
    const user = requireAuth(ctx);
    const group = epicsGroup(ctx);
    const epic = findEpic(ctx, group);
    if (effectiveGroupLevel(ctx.store, user, group) < ACCESS.reporter) throw forbidden();
    const { epic_issue_id } = ctx.declare({ epic_issue_id: { type: "integer", required: true } });
    const a = area(ctx.store);
    const link = a.links.find((l) => l.id === epic_issue_id && l.epic_id === epic.id);
    if (!link) throw recordNotFound();
    const body = linkJson(ctx, link, epic);
    a.links = a.links.filter((l) => l !== link);
    return json(body, 200);
  });

  app.put("/groups/:id/epics/:epic_iid/issues/:epic_issue_id", (ctx) => {
    const user = requireAuth(ctx);
    const group = epicsGroup(ctx);
    const epic = findEpic(ctx, group);
    if (effectiveGroupLevel(ctx.store, user, group) < ACCESS.reporter) throw forbidden();
    const p = ctx.declare({
      epic_issue_id: { type: "integer", required: true },
      move_before_id: { type: "integer" },
      move_after_id: { type: "integer" },
    });
    const links = linksOf(ctx.store, epic);
    const link = links.find((l) => l.id === p.epic_issue_id);
    if (!link) throw recordNotFound();
    const notFound = () => new HttpError(404, { message: "Epic issue not found for given params" });
    const before = p.move_before_id === undefined ? undefined : links.find((l) => l.id === p.move_before_id);
    const after = p.move_after_id === undefined ? undefined : links.find((l) => l.id === p.move_after_id);
    if ((p.move_before_id !== undefined && !before) || (p.move_after_id !== undefined && !after))
      throw notFound();
    if ((before || after) && before !== link && after !== link)
      moveBetween(ctx.store, epic, link, before, after);
    return readableIssues(ctx, epic);
  });
}
