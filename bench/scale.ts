/**
 * The benchmark's runs at platform scale beyond the plain plan and apply (issues 14 and 18):
 * - pull-request plans (`--changed-since`): a change to one schedule's cron, and a change to a template that 100
 *   projects use, each planned against the commit before it;
 * - shards: the drift of the 10% changed manifests split 4 ways, each shard's requests against the unsharded run's,
 *   and the merged report against the unsharded one;
 * - apply under faults: the declared objects created on a sandbox that holds only the groups and projects, once
 *   without faults and once with the fault mix of issue 18, then a plan and an independent count of every object.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { type RunningSandbox, startSandbox } from "../src/sandbox/server.js";
import { buildFixture, writeForgeformManifests } from "./artifacts.js";
import { objectTotal } from "./bound.js";
import { type Measured, measureForgeform } from "./measure.js";
import type { BenchState, ObjectKind, Project } from "./state.js";

/** What a run costs: the measured process's own, the sandbox's CPU time, and the requests the sandbox counted. */
export interface RunCost {
  wallMs: number;
  cpuMs: number;
  /** CPU time of the benchmark's own process while the run lasted: the sandbox serving it (and counting). */
  sandboxCpuMs: number;
  maxRssMb: number;
  requests: number;
  /**
   * From the start of the process to the first request the sandbox received (start-up, reading the manifests);
   * null when it made none; absent in results of older runs.
   */
  firstRequestMs?: number | null;
  load: number;
}

/** Counts a sandbox's requests: all, writes, by endpoint, and the projects they address. */
export interface RequestCounter {
  total: number;
  writes: number;
  projects: Set<string>;
  /** When the counting started, and when the first request arrived (performance.now()). */
  since: number;
  first: number | undefined;
  reset(): void;
}

/** Runs forgeform against the counted sandbox and measures it, with the sandbox's CPU time over the run. */
export async function measureRun(
  args: string[],
  env: Record<string, string>,
  counter: RequestCounter,
  nodeArgs: readonly string[] = [],
): Promise<{ m: Measured; cost: RunCost }> {
  counter.reset();
  const cpu = process.cpuUsage();
  const m = await measureForgeform(args, env, nodeArgs);
  const used = process.cpuUsage(cpu);
  return {
    m,
    cost: {
      wallMs: m.wallMs,
      cpuMs: m.cpuMs,
      sandboxCpuMs: (used.user + used.system) / 1000,
      maxRssMb: m.maxRssMb,
      requests: counter.total,
      firstRequestMs: counter.first === undefined ? null : counter.first - counter.since,
      load: loadavg()[0] ?? 0,
    },
  };
}

function fail(what: string, m: Measured): never {
  throw new Error(
    `bench: ${what} failed (exit ${m.code}):\n${m.stderr.slice(-3000)}${m.stdout.slice(-2000)}`,
  );
}

interface PlanJson {
  summary: { create: number; update: number; replace: number; delete: number; unmanaged: number };
  changes: { address: string; action: string; fields: { field: string }[] }[];
  errors: unknown[];
}

const changeCount = (json: PlanJson) =>
  json.summary.create + json.summary.update + json.summary.replace + json.summary.delete;

// ---- pull-request plans -------------------------------------------------------------------------------------

export type ChangedSinceRun = "one schedule's cron" | "a template used by 100 projects";

export interface ChangedSinceRow extends RunCost {
  factor: number;
  run: ChangedSinceRun;
  changes: number;
  expectedChanges: number;
  /** The plan holds exactly the expected changes (addresses, and the fields that differ). */
  exact: boolean;
  /** Requests the goal allows at most; null where the goal is on projects read. */
  maxRequests: number | null;
  /** Distinct projects the run's requests addressed, and those the change concerns. */
  projectsRead: number;
  projectsExpected: number;
  /** Every request addressed one of the projects the change concerns (and each of them was read). */
  onlyThose: boolean;
}

/** Projects that use the template in the template run. */
export const TEMPLATE_PROJECTS = 100;
const TEMPLATE = "bench-release";

function git(cwd: string, args: string[]): void {
  execFileSync(
    "git",
    ["-c", "user.name=bench", "-c", "user.email=bench@example.com", "-c", "commit.gpgsign=false", ...args],
    { cwd, stdio: ["ignore", "pipe", "pipe"] },
  );
}

/**
 * The manifests of `state` with the milestones of the `users` projects declared by the template `bench-release`
 * (`extends`), which holds `milestones`; the other projects as before.
 */
function writeWithTemplate(
  state: BenchState,
  kinds: ReadonlySet<ObjectKind>,
  dir: string,
  users: Project[],
  milestones: Project["milestones"],
): void {
  writeForgeformManifests(state, kinds, dir);
  const byGroup = new Map<string, Project[]>();
  for (const p of users) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
  for (const [group, projects] of byGroup) {
    const file = join(dir, `${group}.yaml`);
    const doc = parse(readFileSync(file, "utf8")) as { projects: Record<string, Record<string, unknown>> };
    for (const p of projects) {
      const body = doc.projects[p.fullPath]!;
      delete body["milestones"];
      doc.projects[p.fullPath] = { extends: [TEMPLATE], ...body };
    }
    writeFileSync(file, stringify(doc, { lineWidth: 0 }));
  }
  writeFileSync(
    join(dir, "templates.yaml"),
    stringify({ version: 1, templates: { [TEMPLATE]: { milestones } } }, { lineWidth: 0 }),
  );
}

/**
 * Pull-request plans on the seeded state: the manifests committed to a git repository, then changed in the
 * working tree and planned with `--changed-since HEAD`.
 */
export async function runChangedSince(p: {
  factor: number;
  seed: BenchState;
  kinds: ReadonlySet<ObjectKind>;
  dir: string;
  env: Record<string, string>;
  conc: string[];
  counter: RequestCounter;
  log: (line: string) => void;
  /** More options for each forgeform process's node (the profile harness's `--cpu-prof`). */
  nodeArgs?: readonly string[];
}): Promise<ChangedSinceRow[]> {
  const { factor, seed, kinds, env, counter } = p;
  const rows: ChangedSinceRow[] = [];
  const repo = join(p.dir, "pr");
  const manifests = join(repo, "manifests");
  mkdirSync(manifests, { recursive: true });
  git(repo, ["init", "-q"]);
  const commit = (message: string) => {
    git(repo, ["add", "-A"]);
    git(repo, ["commit", "-q", "-m", message]);
  };
  const plan = async (run: ChangedSinceRun): Promise<{ json: PlanJson; cost: RunCost }> => {
    p.log(`${factor}x: forgeform plan --changed-since HEAD (${run})`);
    const { m, cost } = await measureRun(
      ["plan", "--changed-since", "HEAD", "--format", "json", ...p.conc, manifests],
      env,
      counter,
      p.nodeArgs,
    );
    if (m.code !== 0) fail(`forgeform plan --changed-since (${run})`, m);
    const json = JSON.parse(m.stdout) as PlanJson;
    if (json.errors.length > 0)
      throw new Error(`bench: plan --changed-since (${run}) reported errors: ${JSON.stringify(json.errors)}`);
    return { json, cost };
  };

  // 1. One schedule's cron.
  writeForgeformManifests(seed, kinds, manifests);
  commit("the seeded state");
  const project = seed.projects[0]!;
  const schedule = project.schedules[0]!;
  const edited: BenchState = {
    ...seed,
    projects: [
      {
        ...project,
        schedules: [
          { ...schedule, cron: schedule.cron.replace(/ \d+ \* \* \*$/, " 5 * * *") },
          ...project.schedules.slice(1),
        ],
      },
      ...seed.projects.slice(1),
    ],
  };
  writeForgeformManifests(edited, kinds, manifests);
  {
    const { json, cost } = await plan("one schedule's cron");
    const want = `project[${JSON.stringify(project.fullPath)}].pipeline_schedule[${JSON.stringify(schedule.description)}]`;
    const only = json.changes.filter((c) => c.action !== "unmanaged");
    rows.push({
      factor,
      run: "one schedule's cron",
      ...cost,
      changes: changeCount(json),
      expectedChanges: 1,
      exact:
        only.length === 1 &&
        only[0]!.address === want &&
        only[0]!.action === "update" &&
        JSON.stringify(only[0]!.fields.map((f) => f.field)) === JSON.stringify(["cron"]),
      maxRequests: 10,
      projectsRead: counter.projects.size,
      projectsExpected: 1,
      onlyThose: counter.projects.size === 1 && counter.projects.has(project.fullPath),
    });
  }

  // 2. A template used by 100 projects: their milestones come from it; one milestone's description changes.
  const users = seed.projects.slice(0, TEMPLATE_PROJECTS);
  const policy = seed.projects[0]!.milestones;
  writeWithTemplate(seed, kinds, manifests, users, policy);
  commit(`milestones of ${users.length} projects from the template ${TEMPLATE}`);
  const first = policy[0]!;
  writeWithTemplate(seed, kinds, manifests, users, [
    { ...first, description: `${first.description} (template edited)` },
    ...policy.slice(1),
  ]);
  {
    const { json, cost } = await plan("a template used by 100 projects");
    const want = new Set(
      users.map((u) => `project[${JSON.stringify(u.fullPath)}].milestone[${JSON.stringify(first.title)}]`),
    );
    const only = json.changes.filter((c) => c.action !== "unmanaged");
    const wanted = new Set(users.map((u) => u.fullPath));
    rows.push({
      factor,
      run: "a template used by 100 projects",
      ...cost,
      changes: changeCount(json),
      expectedChanges: users.length,
      exact:
        only.length === want.size &&
        only.every(
          (c) =>
            want.has(c.address) &&
            c.action === "update" &&
            JSON.stringify(c.fields.map((f) => f.field)) === JSON.stringify(["description"]),
        ),
      maxRequests: null,
      projectsRead: counter.projects.size,
      projectsExpected: users.length,
      onlyThose: counter.projects.size === wanted.size && [...counter.projects].every((x) => wanted.has(x)),
    });
  }
  return rows;
}

// ---- shards -------------------------------------------------------------------------------------------------

export const SHARDS = 4;

export interface ShardRow {
  factor: number;
  unsharded: RunCost;
  shards: RunCost[];
  /** Drift items of the unsharded report. */
  items: number;
  /** The largest shard's requests over the unsharded run's. */
  maxShare: number;
  /** The merged report (summary, items, objects in sync, errors, warnings) equals the unsharded one. */
  mergedEqual: boolean;
}

/** What a JSON drift report holds that the comparison looks at. */
type DriftJson = Record<"summary" | "errors" | "warnings", unknown> & {
  items: { address: string }[];
  in_sync: string[];
};

/** A drift report's content, without what differs by run (timestamps, request counts, shard labels). */
const canonical = ({ summary, items, in_sync, errors, warnings }: DriftJson) =>
  JSON.stringify({
    summary,
    items: [...items].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0)),
    in_sync: [...in_sync].sort(),
    errors,
    warnings,
  });

/** Drift of `manifests` unsharded, then as 4 shards, merged with `forgeform report merge`. */
export async function runShards(p: {
  factor: number;
  manifests: string;
  dir: string;
  env: Record<string, string>;
  conc: string[];
  counter: RequestCounter;
  log: (line: string) => void;
}): Promise<ShardRow> {
  const { factor, env, counter } = p;
  mkdirSync(p.dir, { recursive: true });
  const drift = async (label: string, extra: string[], out: string) => {
    p.log(`${factor}x: forgeform drift ${label}`);
    const { m, cost } = await measureRun(
      ["drift", ...extra, "--format", "json", "--out", out, ...p.conc, p.manifests],
      env,
      counter,
    );
    if (m.code !== 0 && m.code !== 2) fail(`forgeform drift ${label}`, m);
    return cost;
  };
  const wholeFile = join(p.dir, "unsharded.json");
  const unsharded = await drift("(unsharded)", [], wholeFile);
  const files: string[] = [];
  const shards: RunCost[] = [];
  for (let k = 1; k <= SHARDS; k++) {
    const file = join(p.dir, `shard-${k}.json`);
    shards.push(await drift(`--shard ${k}/${SHARDS}`, ["--shard", `${k}/${SHARDS}`], file));
    files.push(file);
  }
  const mergedFile = join(p.dir, "merged.json");
  const merged = await measureForgeform(
    ["report", "merge", "--format", "json", "--out", mergedFile, ...files],
    env,
  );
  if (merged.code !== 0 && merged.code !== 2) fail("forgeform report merge", merged);
  const whole = JSON.parse(readFileSync(wholeFile, "utf8")) as DriftJson;
  const joined = JSON.parse(readFileSync(mergedFile, "utf8")) as DriftJson;
  return {
    factor,
    unsharded,
    shards,
    items: whole.items.length,
    maxShare: Math.max(...shards.map((s) => s.requests)) / Math.max(1, unsharded.requests),
    mergedEqual: canonical(whole) === canonical(joined),
  };
}

// ---- apply under faults -------------------------------------------------------------------------------------

/** The fault mix and seed of issue 18. */
export const FAULTS = "429:0.05,503:0.05,reset:0.03,drop-after-commit:0.05@POST";
export const FAULT_SEED = 11;

export interface ApplyCost extends RunCost {
  code: number;
  /** Retries and re-reads after a create whose outcome was unknown, as forgeform counts them (`--debug`). */
  retries: number;
  rereads: number;
  /** Objects the apply reports done, failed and recovered (found on re-reading). */
  done: number;
  failed: number;
  recovered: number;
}

export interface FaultRow {
  factor: number;
  faults: string;
  seed: number;
  /** Objects the apply creates (everything declared but the groups, the projects and the settings). */
  objects: number;
  calm: ApplyCost;
  faulted: ApplyCost;
  /** Changes the plan after the faulted apply reports (must be 0), and its exit code. */
  nextPlanChanges: number;
  /** Objects counted on the platform after the faulted apply: missing, and more than one of the same. */
  missing: number;
  duplicates: number;
}

type Rec = Record<string, unknown>;

/**
 * Counts, in the sandbox's own tables (not through its API, which injects faults), each declared object of `state`:
 * how many are missing and how many are there more than once.
 */
export function countObjects(
  sandbox: RunningSandbox,
  state: BenchState,
  kinds: ReadonlySet<ObjectKind>,
): { missing: number; duplicates: number } {
  const store = sandbox.store;
  const table = (area: string, key: string): Rec[] =>
    ((store.area(area, () => ({})) as Record<string, Rec[] | undefined>)[key] ?? []) as Rec[];
  let missing = 0;
  let duplicates = 0;
  const tally = (found: number) => {
    if (found === 0) missing++;
    else if (found > 1) duplicates += found - 1;
  };
  /** Tallies each of `values` among the `rows` whose `field` holds it. */
  const tallyEach = (rows: Rec[], field: string, values: unknown[]) => {
    for (const value of values) tally(rows.filter((r) => r[field] === value).length);
  };
  const schedules = table("pipeline_schedules", "schedules");
  const badges = table("badges", "badges");
  const milestones = table("milestones", "rows");
  const environments = table("protected_environments", "environments");
  const variables = table("ci_variables", "rows");
  const labels = table("labels", "labels");
  const branches = table("protected_refs", "branches");
  const webHooks = table("web_hooks", "hooks");
  const variablesOf = (owner: "group" | "project", id: number | undefined, keys: string[]) =>
    tallyEach(
      variables.filter((r) => r["owner"] === owner && r["owner_id"] === id),
      "key",
      keys,
    );
  if (kinds.has("group_variable"))
    for (const g of state.groups)
      variablesOf(
        "group",
        store.groupByFullPath(g.path)?.id,
        g.variables.map((v) => v.key),
      );
  for (const p of state.projects) {
    const id = store.projectByFullPath(p.fullPath)?.id;
    const mine = (rows: Rec[], field = "project_id") => rows.filter((r) => r[field] === id);
    if (kinds.has("project_variable"))
      variablesOf(
        "project",
        id,
        p.variables.map((v) => v.key),
      );
    if (kinds.has("project_member")) {
      const ours = store.data.members.filter((m) => m.source_type === "project" && m.source_id === id);
      for (const m of p.members) {
        const user = store.userByUsername(m.user)?.id;
        tally(ours.filter((r) => r.user_id === user).length);
      }
    }
    if (kinds.has("label"))
      tallyEach(
        mine(labels),
        "title",
        p.labels.map((l) => l.name),
      );
    if (kinds.has("protected_branch"))
      tallyEach(
        mine(branches),
        "name",
        p.protectedBranches.map((b) => b.name),
      );
    if (kinds.has("project_hook"))
      tallyEach(
        mine(webHooks),
        "url",
        p.hooks.map((h) => h.url),
      );
    if (kinds.has("pipeline_schedule")) {
      const ours = mine(schedules);
      for (const s of p.schedules) {
        const found = ours.filter((r) => r["description"] === s.description);
        tally(found.length);
        if (kinds.has("schedule_variable"))
          for (const v of s.variables)
            tally(found.flatMap((f) => (f["variables"] as Rec[]).filter((x) => x["key"] === v.key)).length);
      }
    }
    if (kinds.has("badge")) {
      const ours = badges.filter((b) => b["source_type"] === "project" && b["source_id"] === id);
      for (const b of p.badges) tally(ours.filter((r) => r["name"] === b.name).length);
    }
    if (kinds.has("milestone")) {
      const ours = mine(milestones);
      for (const m of p.milestones) tally(ours.filter((r) => r["title"] === m.title).length);
    }
    if (kinds.has("protected_environment")) {
      const ours = mine(environments);
      for (const e of p.environments) tally(ours.filter((r) => r["name"] === e.name).length);
    }
  }
  if (kinds.has("system_hook")) {
    const hooks = table("system_hooks", "hooks");
    for (const h of state.hooks) tally(hooks.filter((r) => r["url"] === h.url).length);
  }
  if (kinds.has("broadcast_message")) {
    const messages = table("broadcast_messages", "rows");
    for (const b of state.broadcasts) tally(messages.filter((r) => r["message"] === b.message).length);
  }
  return { missing, duplicates };
}

/**
 * Objects the apply creates on a sandbox holding only the groups, projects and users: everything but the groups and
 * the settings (the instance's and each project's, which are updated).
 */
export function createdObjects(state: BenchState, kinds: ReadonlySet<ObjectKind>): number {
  const created = new Set(kinds);
  created.delete("group");
  created.delete("application_settings");
  created.delete("project_settings");
  return objectTotal(state.shape, created);
}

function applyCost(m: Measured, cost: RunCost): ApplyCost {
  const debug = /requests: (\d+) sent, (\d+) retries, .*; (\d+) collections re-read/.exec(m.stderr);
  const summary = /Apply complete: (\d+) done, (\d+) failed/.exec(m.stdout);
  return {
    ...cost,
    code: m.code,
    retries: Number(debug?.[2] ?? Number.NaN),
    rereads: Number(debug?.[3] ?? Number.NaN),
    done: Number(summary?.[1] ?? Number.NaN),
    failed: Number(summary?.[2] ?? Number.NaN),
    recovered: (m.stdout.match(/found on re-reading/g) ?? []).length,
  };
}

/**
 * Applies the seeded state's manifests to sandboxes that hold only its groups and projects: without faults, then
 * with {@link FAULTS}; then plans against the faulted sandbox and counts every object in its tables.
 */
export async function runApplyUnderFaults(p: {
  factor: number;
  state: BenchState;
  kinds: ReadonlySet<ObjectKind>;
  /** The sandbox's fixture keys (buildFixture's). */
  hookKeys: ReadonlySet<string>;
  manifests: string;
  latencyMs: number;
  conc: string[];
  counter: RequestCounter & { record: (method: string, path: string) => void };
  log: (line: string) => void;
}): Promise<FaultRow> {
  const { factor, state, counter } = p;
  // The users, groups and projects only: the members are among what the apply creates.
  const { fixture } = buildFixture(state, [], p.hookKeys);
  const apply = async (faults: string | undefined) => {
    const sandbox = await startSandbox({
      fixture,
      latencyMs: p.latencyMs,
      onRequest: counter.record,
      ...(faults ? { faults, seed: FAULT_SEED } : {}),
    });
    const env = { FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: sandbox.adminToken };
    p.log(
      `${factor}x: forgeform apply ${faults ? `under faults (${faults}, seed ${FAULT_SEED})` : "(no faults)"}`,
    );
    const { m, cost } = await measureRun(
      ["apply", "--yes", "--no-color", "--debug", ...p.conc, p.manifests],
      env,
      counter,
    );
    return { sandbox, env, result: applyCost(m, cost), m };
  };
  const calm = await apply(undefined);
  await calm.sandbox.stop();
  if (calm.result.code !== 0) fail("forgeform apply (no faults)", calm.m);
  const faulted = await apply(FAULTS);
  try {
    p.log(`${factor}x: forgeform plan after the apply under faults`);
    const { m } = await measureRun(
      ["plan", "--format", "json", ...p.conc, p.manifests],
      faulted.env,
      counter,
    );
    if (m.code !== 0) fail("forgeform plan after the apply under faults", m);
    const json = JSON.parse(m.stdout) as PlanJson;
    const counted = countObjects(faulted.sandbox, state, p.kinds);
    return {
      factor,
      faults: FAULTS,
      seed: FAULT_SEED,
      objects: createdObjects(state, p.kinds),
      calm: calm.result,
      faulted: faulted.result,
      nextPlanChanges: changeCount(json) + json.errors.length,
      ...counted,
    };
  } finally {
    await faulted.sandbox.stop();
  }
}
