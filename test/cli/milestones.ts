/** What apply at a terminal and the progress line are tried on: many small creates in one project. */
import type { SandboxOptions } from "../../src/sandbox/server.js";
import { Bench } from "../integration/helpers.js";

/**
 * A sandbox holding project g/p, and a manifest (m.yaml) that declares `count` milestones on it, m1 to mN, after
 * `more` (YAML of other top-level keys, e.g. groups).
 */
export async function milestonesBench(
  count: number,
  options: SandboxOptions = {},
  more = "",
): Promise<{ bench: Bench; file: string }> {
  const bench = await Bench.start({
    fixture: { groups: [{ path: "g" }], projects: [{ path: "g/p" }] },
    ...options,
  });
  const titles = Array.from({ length: count }, (_, i) => `      - { title: m${i + 1} }`).join("\n");
  const file = bench.manifest(`version: 1\n${more}projects:\n  g/p:\n    milestones:\n${titles}\n`, "m.yaml");
  return { bench, file };
}

/** The titles of g/p's milestones on the sandbox, sorted. */
export const milestonesOf = async (bench: Bench) =>
  (await bench.get<{ title: string }[]>("/projects/g%2Fp/milestones?per_page=100"))
    .map((m) => m.title)
    .sort();
