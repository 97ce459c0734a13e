/**
 * The lifecycle every managed kind is tested through, over real HTTP against the sandbox: create, then plan
 * shows nothing; change each managed field, plan shows exactly that change and apply converges; unmanaged live
 * objects are reported and left alone; with a delete policy, plan shows the delete and apply removes it.
 */
import { expect } from "vitest";
import type { ChangeV1, PlanV1 } from "../../src/plan/json.js";
import type { Bench } from "./helpers.js";

/** A plan and a change as `plan --format json` writes them. */
export type JsonPlan = PlanV1;
export type JsonChange = ChangeV1;

export async function planJson(bench: Bench, file: string, extra: string[] = []): Promise<JsonPlan> {
  const r = await bench.cli(["plan", "--format", "json", ...extra, file]);
  if (r.code !== 0) throw new Error(`plan exited ${r.code}: ${r.err}\n${r.out}`);
  return JSON.parse(r.out) as JsonPlan;
}

export async function apply(bench: Bench, file: string, extra: string[] = []): Promise<string> {
  const r = await bench.cli(["apply", "--yes", ...extra, file]);
  if (r.code !== 0) throw new Error(`apply exited ${r.code}: ${r.err}\n${r.out}`);
  return r.out;
}

/** Asserts the plan is exactly the given changes (address + action + changed field names), in any order. */
export function expectChanges(
  plan: JsonPlan,
  expected: { address: string; action: string; fields?: string[] }[],
) {
  expect(plan.errors).toEqual([]);
  const actual = plan.changes.map((c) => ({
    address: c.address,
    action: c.action,
    ...(expected.find((e) => e.address === c.address)?.fields
      ? { fields: c.fields.map((f) => f.field).sort() }
      : {}),
  }));
  const wanted = expected.map((e) => ({ ...e, ...(e.fields ? { fields: [...e.fields].sort() } : {}) }));
  const order = (a: { address: string }, b: { address: string }) => (a.address < b.address ? -1 : 1);
  expect(actual.sort(order)).toEqual(wanted.sort(order));
}

export async function expectNoChanges(bench: Bench, file: string): Promise<void> {
  const plan = await planJson(bench, file);
  expectChanges(plan, []);
  const detailed = await bench.cli(["plan", "--detailed-exitcode", file]);
  expect(detailed.code).toBe(0);
}

export interface CycleSpec<V> {
  bench: Bench;
  /** The manifest for the given values of the object's fields (and the collection's prune policy). */
  render: (values: V, policy?: "warn" | "delete") => string;
  base: V;
  address: string;
  /** One entry per managed field: the values after changing that field, and the field names the plan shows. */
  edits: { values: V; fields: string[]; action?: "update" | "replace" }[];
  /** Manifest without the object, under the given policy. */
  without: (policy: "warn" | "delete") => string;
  /**
   * An independent read of the platform (not forgeform's): the live objects with this identity. After every
   * apply there must be exactly one (none once deleted), holding `expected(values)`.
   */
  read: () => Promise<Record<string, unknown>[]>;
  expected: (values: V) => Record<string, unknown>;
}

async function expectLive<V>(spec: CycleSpec<V>, values: V | undefined): Promise<void> {
  const live = await spec.read();
  if (values === undefined) {
    expect(live).toEqual([]);
    return;
  }
  expect(live).toHaveLength(1);
  expect(live[0]).toMatchObject(spec.expected(values));
}

export async function lifecycle<V>(spec: CycleSpec<V>): Promise<void> {
  const { bench, address } = spec;
  const file = bench.manifest(spec.render(spec.base), "cycle.yaml");
  expectChanges(await planJson(bench, file), [{ address, action: "create" }]);
  await apply(bench, file);
  await expectLive(spec, spec.base);
  await expectNoChanges(bench, file);

  let current = spec.base;
  for (const edit of spec.edits) {
    const changed = bench.manifest(spec.render(edit.values), "cycle.yaml");
    const plan = await planJson(bench, changed);
    expectChanges(plan, [{ address, action: edit.action ?? "update", fields: edit.fields }]);
    // Each changed field shows a different value on each side; a sensitive one (a variable's value) neither.
    for (const f of plan.changes[0]!.fields.filter((x) => edit.fields.includes(x.field))) {
      if (f.sensitive) expect([f.before, f.after], f.field).toEqual(["(sensitive)", "(sensitive)"]);
      else expect(JSON.stringify(f.before), f.field).not.toBe(JSON.stringify(f.after));
    }
    await apply(bench, changed);
    await expectLive(spec, edit.values);
    await expectNoChanges(bench, changed);
    current = edit.values;
  }

  // Warn: reported, and left alone on the platform.
  const warned = bench.manifest(spec.without("warn"), "cycle.yaml");
  expectChanges(await planJson(bench, warned), [{ address, action: "unmanaged" }]);
  await apply(bench, warned);
  await expectLive(spec, current);
  expectChanges(await planJson(bench, warned), [{ address, action: "unmanaged" }]);

  const pruned = bench.manifest(spec.without("delete"), "cycle.yaml");
  expectChanges(await planJson(bench, pruned), [{ address, action: "delete" }]);
  await apply(bench, pruned);
  await expectLive(spec, undefined);
  await expectNoChanges(bench, pruned);
}

export type Deployer = { access_level: number } | { user: string } | { group: string };

/**
 * A protected environment's deployers as the platform lists them (users and groups by id) in the manifest's terms
 * (usernames, full paths), by independent reads, sorted so that two sets compare whatever their order.
 */
export async function deployersByName(
  bench: Bench,
  levels: { access_level: number | null; user_id: number | null; group_id: number | null }[],
): Promise<Deployer[]> {
  const named = await Promise.all(
    levels.map(
      async (l): Promise<Deployer> =>
        l.user_id !== null
          ? { user: (await bench.get<{ username: string }>(`/users/${l.user_id}`)).username }
          : l.group_id !== null
            ? { group: (await bench.get<{ full_path: string }>(`/groups/${l.group_id}`)).full_path }
            : { access_level: l.access_level! },
    ),
  );
  return sortedDeployers(named);
}

export const sortedDeployers = (v: readonly Deployer[]): Deployer[] =>
  [...v].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));

/** A small world: an owner group, a subgroup and a project, and a second user. */
export const FIXTURE = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@example.com" },
    { username: "bob", name: "Bob Example", email: "bob@example.com" },
  ],
  groups: [
    { path: "acme", name: "Acme", visibility: "private", members: { alice: "maintainer" } },
    { path: "acme/platform", name: "Platform", visibility: "private" },
  ],
  projects: [{ path: "acme/platform/api", visibility: "private", default_branch: "main" }],
};
