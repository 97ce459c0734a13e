/**
 * The lower bound: the fewest requests that can read (and change) the benchmark's state through the contract
 * (`shared/spec/rest-interface.md`, the contract document beside the repository), whoever the client is, and the wall time that many requests need.
 *
 * Reading, per declared collection:
 * - groups: the administrator's `GET /groups` lists every group, 100 per page: ceil(groups / 100) pages;
 * - projects: 0. A project's collections are addressed by its URL-encoded full path (`/projects/a%2Fb/badges`), and
 *   no project field is managed, so no project needs to be read;
 * - per project and declared collection: ceil(n / 100) list pages (pipeline schedules, badges, protected
 *   environments, milestones); plus one `GET .../pipeline_schedules/:id` per schedule, the only response that holds
 *   its variables;
 * - instance: one `GET /application/settings`, ceil(n / 100) pages of `GET /hooks` and of `GET /broadcast_messages`.
 * `GET /version` is not counted: it tells a client what it talks to, not the state.
 *
 * Changing: one write per changed object (PUT of a schedule, a variable, a badge, a milestone, a broadcast message,
 * the settings, a group), except where the contract has no update call: a protected environment and a system hook
 * are deleted and created again (2 writes).
 *
 * Wall time: with `concurrency` requests in flight and every request taking at least `latency`, N requests need
 * ceil(N / concurrency) rounds; and no fewer rounds than the longest chain of requests that depend on each other
 * (a schedule's detail needs its id from the list: 2 rounds to read; a write after that read: 3).
 */
import { changedCounts, type ObjectKind, objectCounts, type Shape } from "./state.js";

const PAGE = 100;
const pages = (n: number) => (n === 0 ? 0 : Math.ceil(n / PAGE));

export interface Bound {
  requests: number;
  wallMs: number;
}

/** Fewest requests that read every object of the `kinds` in `shape`. */
export function readRequests(shape: Shape, kinds: ReadonlySet<ObjectKind>): number {
  let n = 0;
  if (kinds.has("group")) n += pages(shape.groups);
  const perProject: [ObjectKind, number][] = [
    ["pipeline_schedule", shape.schedulesPerProject],
    ["badge", shape.badgesPerProject],
    ["protected_environment", shape.environmentsPerProject],
    ["milestone", shape.milestonesPerProject],
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
 * adds to reading the projects it matches, which are then addressed by path like declared ones.
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
  const requests = readRequests(shape, kinds) + listing;
  const chain =
    (kinds.has("pipeline_schedule") || kinds.has("schedule_variable") ? 2 : 1) + (listing > 0 ? 1 : 0);
  return { requests, wallMs: wall(requests, chain, latencyMs, concurrency) };
}

/** Lower bound of an apply: the read, then the writes of the changed objects. */
export function applyBound(
  shape: Shape,
  kinds: ReadonlySet<ObjectKind>,
  latencyMs: number,
  concurrency: number,
): Bound {
  const reads = readRequests(shape, kinds);
  const writes = writeRequests(shape, kinds);
  const chain = kinds.has("pipeline_schedule") || kinds.has("schedule_variable") ? 3 : 2;
  return { requests: reads + writes, wallMs: wall(reads + writes, chain, latencyMs, concurrency) };
}
