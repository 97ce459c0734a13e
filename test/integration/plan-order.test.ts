/**
 * The order of a plan, which is the order apply works in, as a property over random manifests against one estate:
 * creates, updates and replacements first, parents before what is inside or below them; then deletes, the deepest
 * first (an object's milestones before the object, a subgroup and the projects the platform deletes with a group
 * before the group); unmanaged items last. Seen through
 * `plan --format json`, as a user and apply see it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fc } from "../property.js";
import { Bench } from "./helpers.js";

/** What the platform holds: a few levels of groups, projects in them, milestones on a group and a project. */
const fixture = {
  groups: [{ path: "a" }, { path: "a/b" }, { path: "a/b/c" }, { path: "e" }],
  projects: [{ path: "a/b/p" }, { path: "e/q" }],
  milestones: [
    { group: "a", title: "ma" },
    { project: "a/b/p", title: "mp" },
  ],
};

type State = "same" | "changed" | "absent" | "omitted";
interface Node {
  kind: "groups" | "projects";
  path: string;
  /** Its milestone on the platform, if it has one; new nodes get one to create. */
  milestone?: string;
  exists: boolean;
}

const NODES: Node[] = [
  { kind: "groups", path: "a", milestone: "ma", exists: true },
  { kind: "groups", path: "a/b", exists: true },
  { kind: "groups", path: "a/b/c", exists: true },
  { kind: "projects", path: "a/b/p", milestone: "mp", exists: true },
  { kind: "groups", path: "e", exists: true },
  { kind: "projects", path: "e/q", exists: true },
  { kind: "groups", path: "n", exists: false },
  { kind: "groups", path: "n/m", exists: false },
  { kind: "groups", path: "n/m/k", milestone: "mk", exists: false },
  { kind: "groups", path: "a/added", milestone: "mnew", exists: false },
];

const parentOf = (path: string) => path.slice(0, Math.max(0, path.lastIndexOf("/")));

/** A manifest from a state per node and per milestone, made consistent as a user would write it. */
function manifest(states: State[], milestones: ("keep" | "absent" | "omitted")[]): string {
  const chosen = new Map<string, State>();
  NODES.forEach((node, i) => {
    let state = states[i]!;
    const parent = parentOf(node.path);
    const ancestors = node.path
      .split("/")
      .map((_, j, all) => all.slice(0, j).join("/"))
      .slice(1);
    const underDeleted = ancestors.some((a) => chosen.get(a) === "absent");
    if (!node.exists) {
      // A new group: its parent exists or is declared; nothing to create under a deleted group.
      const parentKnown =
        parent === "" || NODES.find((n) => n.path === parent)?.exists || chosen.get(parent) !== "omitted";
      if (state === "absent" || underDeleted || !parentKnown) state = "omitted";
    } else if (node.kind === "projects") {
      // Projects are not created or deleted by manifests, only what is inside them; a deleted group takes them.
      if (underDeleted) state = "omitted";
      else if (state !== "omitted") state = "same";
    } else if (underDeleted && state !== "omitted") {
      // Below a group that is deleted, nothing is kept.
      state = "absent";
    }
    chosen.set(node.path, state);
  });
  const lines = { groups: [] as string[], projects: [] as string[] };
  NODES.forEach((node, i) => {
    const state = chosen.get(node.path)!;
    if (state === "omitted") return;
    const body: string[] = [];
    if (state === "absent") body.push("    state: absent");
    else {
      if (node.kind === "groups") {
        body.push(`    description: ${state === "changed" || !node.exists ? "changed" : '""'}`);
      }
      const m = milestones[i]!;
      if (node.milestone && (m !== "omitted" || !node.exists)) {
        body.push("    milestones:", `      - title: ${node.milestone}`);
        body.push(m === "absent" && node.exists ? "        state: absent" : "        description: changed");
      }
    }
    lines[node.kind].push(`  ${node.path}:${body.length === 0 ? " {}" : ""}`, ...body);
  });
  const parts = ["version: 1"];
  if (lines.groups.length > 0) parts.push("groups:", ...lines.groups);
  if (lines.projects.length > 0) parts.push("projects:", ...lines.projects);
  return `${parts.join("\n")}\n`;
}

/** The group or project path of an address, and whether the change is of something inside that object. */
function placeOf(address: string): { path: string; inside: boolean } {
  const m = /^(?:group|project)\["([^"]+)"\](.*)$/.exec(address);
  if (!m) throw new Error(`unexpected address ${address}`);
  return { path: m[1]!, inside: m[2] !== "" };
}

/** Whether `outer` holds `inner`: inner is inside outer's object, or its object is below outer's. */
function holds(outer: string, inner: string): boolean {
  const o = placeOf(outer);
  const i = placeOf(inner);
  if (o.inside) return inner.startsWith(`${outer}.`);
  return (i.path === o.path && i.inside) || i.path.startsWith(`${o.path}/`);
}

describe("the order of a plan", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("creates and updates parents first, then deletes the deepest first, then lists unmanaged objects", async () => {
    const state = fc.constantFrom<State>("same", "changed", "absent", "omitted");
    const milestone = fc.constantFrom("keep" as const, "absent" as const, "omitted" as const);
    let seen = { forward: 0, deletes: 0, nested: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(state, { minLength: NODES.length, maxLength: NODES.length }),
        fc.array(milestone, { minLength: NODES.length, maxLength: NODES.length }),
        async (states, milestones) => {
          const text = manifest(states, milestones);
          const run = await bench.cli(["plan", "--format", "json", "--no-backup", bench.manifest(text)]);
          expect(run.code, `${text}\n${run.err}`).toBe(0);
          type Change = { address: string; action: string; deleted_with?: string };
          const changes = (JSON.parse(run.out) as { changes: Change[] }).changes;
          const rank = (action: string) => (action === "delete" ? 1 : action === "unmanaged" ? 2 : 0);
          const ranks = changes.map((c) => rank(c.action));
          expect(ranks, text).toEqual([...ranks].sort((x, y) => x - y));
          // A subgroup or project the platform deletes with a group (`deleted_with`) gets no request of its own: it
          // goes with that group (so it is placed there), or with a group below it deleted first (no order to check).
          const at = (c: Change) =>
            c.deleted_with === undefined
              ? changes.indexOf(c)
              : changes.findIndex((d) => d.address === c.deleted_with);
          const cascade = (x: Change, y: Change) =>
            x.deleted_with !== undefined && holds(y.address, x.address);
          for (const a of changes) {
            for (const b of changes) {
              if (a === b || at(a) >= at(b) || cascade(a, b) || cascade(b, a)) continue;
              // b comes after a: for creates and updates a must not be inside b; for deletes b not inside a.
              if (rank(a.action) === 0 && rank(b.action) === 0) {
                expect(holds(b.address, a.address), `${a.address} before ${b.address}\n${text}`).toBe(false);
              }
              if (a.action === "delete" && b.action === "delete") {
                expect(holds(a.address, b.address), `${a.address} deleted before ${b.address}\n${text}`).toBe(
                  false,
                );
              }
            }
          }
          seen = {
            forward: seen.forward + ranks.filter((r) => r === 0).length,
            deletes: seen.deletes + ranks.filter((r) => r === 1).length,
            nested:
              seen.nested + changes.filter((c) => c.action === "delete" && placeOf(c.address).inside).length,
          };
        },
      ),
      { numRuns: 30 },
    );
    // The runs met what they are about: creates and updates, deletes of objects and of items inside them.
    expect(seen.forward).toBeGreaterThan(30);
    expect(seen.deletes).toBeGreaterThan(15);
    expect(seen.nested).toBeGreaterThan(3);
  });
});
