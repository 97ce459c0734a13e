/**
 * The lower bound: the fewest requests that can read (and change) the benchmark's state through the contract
 * (`shared/spec/rest-interface.md`, the contract document beside the repository; where it is silent, the
 * platform's 13.12 interface the sandbox follows), whoever the client is, and the wall time that many requests need.
 * Lists are read 100 to a page, the most the platform gives (`per_page` above 100 is clamped to 100).
 *
 * Reading, per declared collection:
 * - groups: the administrator's `GET /groups` lists every group, 100 per page: ceil(groups / 100) pages;
 * - a group's CI/CD variables: ceil(n / 100) pages of `GET /groups/:id/variables` per group, addressed by the
 *   group's URL-encoded path, so no group read is needed for them;
 * - projects: no read of a project's own. A project's collections are addressed by its URL-encoded full path
 *   (`/projects/a%2Fb/badges`);
 * - per project and declared collection: ceil(n / 100) list pages (pipeline schedules, badges, protected
 *   environments, milestones, CI/CD variables, members, labels, protected branches, hooks), at least one even for
 *   an empty collection (only a read tells that it is empty); plus one `GET .../pipeline_schedules/:id` per schedule,
 *   the only response that holds its variables. A project's members list (`/members`) holds its direct members,
 *   its labels list its own labels and its groups' (the benchmark's groups have none), so neither needs more pages;
 * - project settings: ceil(n / 100) pages of `GET /groups/:id/projects?include_subgroups=true` per top-level group,
 *   for the n declared projects in it. The settings are fields of the project, which a project's own read
 *   (`GET /projects/:id`, one request per project) and the project listings show alike; a group's listing holds
 *   100 projects a page, so it reads the settings of 100 projects in one request. It is the smallest listing that
 *   holds the declared projects: the benchmark's groups hold only declared projects, while the instance's listing
 *   (`GET /projects`) holds every project on the platform, which on a real instance are many more than a manifest
 *   declares, so no client can count on it being smaller. Where a pattern (`projects: {"**": ...}`) is declared,
 *   that instance listing is read anyway to find the projects it matches, and the settings come with it: no more
 *   requests (see {@link listingPages});
 * - instance: one `GET /application/settings`, ceil(n / 100) pages of `GET /hooks` and of `GET /broadcast_messages`.
 * `GET /version` is not counted: it tells a client what it talks to, not the state.
 *
 * Changing: one write per changed object (PUT of a schedule, a variable of a schedule, a group or a project, a
 * badge, a milestone, a broadcast message, a member, a label, a project hook, the application settings, a group;
 * one `PUT /projects/:id` for all of a project's changed settings), except where the platform has no update call:
 * a protected environment and a system hook are deleted and created again (2 writes), and so is a protected branch
 * whose access levels change (13.12's `PATCH .../protected_branches/:name` changes `code_owner_approval_required`
 * only).
 *
 * Wall time: with `concurrency` requests in flight and every request taking at least `latency`, N requests need
 * ceil(N / concurrency) rounds; and no fewer rounds than the longest chain of requests that depend on each other
 * (a schedule's detail needs its id from the list: 2 rounds to read; a write after that read: 3; a delete and a
 * create again after a read: 3).
 */
import { changedCounts, type ObjectKind, objectCounts, type Shape } from "./state.js";

const PAGE = 100;
const pages = (n: number) => (n === 0 ? 0 : Math.ceil(n / PAGE));

export interface Bound {
  requests: number;
  wallMs: number;
}

/** Declared projects in each group: project p is in group p mod groups (state.ts). */
export function projectsPerGroup(shape: Shape): number[] {
  return Array.from(
    { length: shape.groups },
    (_, g) => Math.floor(shape.projects / shape.groups) + (g < shape.projects % shape.groups ? 1 : 0),
  );
}

/**
 * Fewest requests that read every object of the `kinds` in `shape`; `settingsFromListing`: the project settings come
 * with a listing of the instance's projects read anyway (a pattern's), and cost nothing more.
 */
export function readRequests(
  shape: Shape,
  kinds: ReadonlySet<ObjectKind>,
  settingsFromListing = false,
): number {
  let n = 0;
  if (kinds.has("group")) n += pages(shape.groups);
  if (kinds.has("group_variable")) n += shape.groups * Math.max(1, pages(shape.ciVariablesPerGroup));
  if (kinds.has("project_settings") && !settingsFromListing)
    for (const count of projectsPerGroup(shape)) n += pages(count);
  const perProject: [ObjectKind, number][] = [
    ["pipeline_schedule", shape.schedulesPerProject],
    ["badge", shape.badgesPerProject],
    ["protected_environment", shape.environmentsPerProject],
    ["milestone", shape.milestonesPerProject],
    ["project_variable", shape.ciVariablesPerProject],
    ["project_member", shape.membersPerProject],
    ["label", shape.labelsPerProject],
    ["protected_branch", shape.protectedBranchesPerProject],
    ["project_hook", shape.hooksPerProject],
  ];
  for (const [kind, count] of perProject)
    if (kinds.has(kind)) n += shape.projects * Math.max(1, pages(count));
  // Variables come with the schedule's detail read, one per schedule.
  if (kinds.has("schedule_variable") || kinds.has("pipeline_schedule"))
    n += shape.projects * shape.schedulesPerProject;
  if (kinds.has("application_settings")) n += 1;
  if (kinds.has("system_hook")) n += Math.max(1, pages(shape.systemHooks));
  if (kinds.has("broadcast_message")) n += Math.max(1, pages(shape.broadcastMessages));
  return n;
}

/** Writes per changed object: 2 where the contract has no update call (delete, then create). */
const WRITES: Record<ObjectKind, number> = {
  group: 1,
  pipeline_schedule: 1,
  schedule_variable: 1,
  badge: 1,
  protected_environment: 2,
  milestone: 1,
  application_settings: 1,
  system_hook: 2,
  broadcast_message: 1,
  group_variable: 1,
  project_variable: 1,
  project_settings: 1,
  project_member: 1,
  label: 1,
  protected_branch: 2,
  project_hook: 1,
};

/** Fewest writes that turn the seeded state into the changed one, for the `kinds` declared. */
export function writeRequests(shape: Shape, kinds: ReadonlySet<ObjectKind>): number {
  const changed = changedCounts(shape);
  let n = 0;
  for (const kind of kinds) n += changed[kind] * WRITES[kind];
  return n;
}

/** Objects of the `kinds` that differ in the changed state: what a plan of the changed manifests must report. */
export function expectedChanges(shape: Shape, kinds: ReadonlySet<ObjectKind>): number {
  const changed = changedCounts(shape);
  let n = 0;
  for (const kind of kinds) n += changed[kind];
  return n;
}

/** Objects of the `kinds` in the state. */
export function objectTotal(shape: Shape, kinds: ReadonlySet<ObjectKind>): number {
  const counts = objectCounts(shape);
  let n = 0;
  for (const kind of kinds) n += counts[kind];
  return n;
}

function wall(requests: number, chain: number, latencyMs: number, concurrency: number): number {
  return Math.max(Math.ceil(requests / concurrency), requests > 0 ? chain : 0) * latencyMs;
}

/**
 * Pages of the instance's project listing (`GET /projects`, 100 per page): what a `projects: {"**": ...}` pattern
 * adds to reading the projects it matches, which are then addressed by path like declared ones. The listing shows
 * each project's settings, so with it the group listings of the project settings are not needed.
 */
export function listingPages(shape: Shape): number {
  return Math.max(1, pages(shape.projects));
}

/**
 * Lower bound of a plan (a read of the whole declared state); `listing`: pages of a listing read first (a pattern's),
 * one more link in the chain of dependent requests.
 */
export function planBound(
  shape: Shape,
  kinds: ReadonlySet<ObjectKind>,
  latencyMs: number,
  concurrency: number,
  listing = 0,
): Bound {
  const requests = readRequests(shape, kinds, listing > 0) + listing;
  return {
    requests,
    wallMs: wall(requests, readChain(kinds) + (listing > 0 ? 1 : 0), latencyMs, concurrency),
  };
}

/** Longest chain of dependent reads: a schedule's detail after the list that gives its id; else one list. */
const readChain = (kinds: ReadonlySet<ObjectKind>) =>
  kinds.has("pipeline_schedule") || kinds.has("schedule_variable") ? 2 : 1;

/** Lower bound of an apply: the read, then the writes of the changed objects. */
export function applyBound(
  shape: Shape,
  kinds: ReadonlySet<ObjectKind>,
  latencyMs: number,
  concurrency: number,
): Bound {
  const reads = readRequests(shape, kinds);
  const writes = writeRequests(shape, kinds);
  // Each changed object's write after the read of it; a delete, then the create again, where it has no update call.
  const changed = changedCounts(shape);
  const chain = Math.max(
    readChain(kinds),
    ...[...kinds].filter((k) => changed[k] > 0).map((k) => readChain(new Set([k])) + WRITES[k]),
  );
  return { requests: reads + writes, wallMs: wall(reads + writes, chain, latencyMs, concurrency) };
}
