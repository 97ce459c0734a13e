/**
 * A pull request's plan (`--changed-since REF`) as a property, over HTTP: with the platform as the manifests at REF
 * made it (applied, and planned again to nothing), the plan of any edit made to them since plans exactly what the
 * full plan of the edited manifests plans, change for change, field for field.
 *
 * The manifests are drawn over a small universe where selection can go wrong: top-level groups whose names share
 * characters (`a`, `ab`), groups and projects below them, patterns over them (`a/**`, `ab/*`, `a/g/*`; `a/*` over
 * groups), and two
 * templates (t2 may extend t1), spread over three files. An edit keeps most of them as they were and changes the
 * rest: another description, other templates, another file, gone, or new. The shrunk counterexample is printed as
 * the two versions of the files.
 */
import { describe, it } from "vitest";
import { fc } from "../property.js";
import { pullRequestPlansAsFullPlan } from "./since-property.js";

const FILES = 3;
const TEMPLATES = ["t1", "t2"] as const;
const GROUPS = ["a", "ab", "a/g", "b"];
const PROJECTS = ["a/p", "ab/p", "a/g/p", "b/p"];
const PATTERNS = ["a/**", "ab/*", "a/g/*"];
const GROUP_PATTERNS = ["a/*"];
const fixture = {
  groups: ["a", "ab", "b", "a/g", "ab/g"].map((path) => ({ path, description: "live" })),
  projects: [...PROJECTS, "ab/g/q"].map((path) => ({ path, description: "live" })),
};

interface Slot {
  file: number;
  description: string | null;
  extends: readonly string[];
}
/** A version of the manifests: each template (always declared) and each entry (or null: not declared). */
interface Version {
  templates: Record<string, Slot>;
  entries: Record<string, Slot | null>;
}

const file = fc.integer({ min: 0, max: FILES - 1 });
const description = fc.option(fc.constantFrom("d1", "d2", "d3"), { nil: null });
const exact = fc.record({
  file,
  description,
  extends: fc.uniqueArray(fc.constantFrom(...TEMPLATES), { maxLength: 2 }),
});
const pattern = fc.record({ file, description, extends: fc.constant([] as string[]) });
const template = (name: string) =>
  fc.record({
    file,
    description: fc.constantFrom("t-one", "t-two"),
    // t2 may extend t1; t1 extends nothing (no cycle).
    extends: name === "t2" ? fc.constantFrom([], ["t1"]) : fc.constant([] as string[]),
  });
const keys = [
  ...GROUPS.map((k) => `groups:${k}`),
  ...GROUP_PATTERNS.map((k) => `groups:${k}`),
  ...PROJECTS.map((k) => `projects:${k}`),
  ...PATTERNS.map((k) => `projects:${k}`),
];
const slotOf = (key: string) => fc.option(key.includes("*") ? pattern : exact, { nil: null, freq: 3 });

/** REF, and the edit: most of it kept, the rest drawn again. */
const versions = fc
  .record({
    templates: fc.record(Object.fromEntries(TEMPLATES.map((t) => [t, template(t)]))),
    entries: fc.record(Object.fromEntries(keys.map((k) => [k, slotOf(k)]))),
  })
  .chain((ref: Version) => {
    const edited = <T>(was: T, again: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(was) }, { weight: 1, arbitrary: again });
    return fc
      .record({
        templates: fc.record(
          Object.fromEntries(TEMPLATES.map((t) => [t, edited(ref.templates[t]!, template(t))])),
        ),
        entries: fc.record(Object.fromEntries(keys.map((k) => [k, edited(ref.entries[k]!, slotOf(k))]))),
      })
      .map((head: Version) => ({ ref, head }));
  });

/** The files of a version, by name (every file written, `version: 1` alone when it holds nothing). */
function filesOf(v: Version): Record<string, string> {
  const body = (s: Slot) => {
    const fields = [
      ...(s.description !== null ? [`description: ${s.description}`] : []),
      ...(s.extends.length ? [`extends: [${s.extends.join(", ")}]`] : []),
    ];
    return fields.length ? `\n${fields.map((f) => `    ${f}\n`).join("")}` : " {}\n";
  };
  const out: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    let text = "version: 1\n";
    const templates = TEMPLATES.filter((t) => v.templates[t]!.file === i);
    if (templates.length)
      text += `templates:\n${templates.map((t) => `  ${t}:${body(v.templates[t]!)}`).join("")}`;
    for (const collection of ["groups", "projects"]) {
      const mine = keys.filter((k) => k.startsWith(`${collection}:`) && v.entries[k]?.file === i);
      if (mine.length)
        text += `${collection}:\n${mine.map((k) => `  "${k.slice(collection.length + 1)}":${body(v.entries[k]!)}`).join("")}`;
    }
    out[`f${i}.yaml`] = text;
  }
  return out;
}

const RUNS = process.env["FORGEFORM_PROPERTY_RUNS"] ? Number(process.env["FORGEFORM_PROPERTY_RUNS"]) : 30;

describe("--changed-since as a property", () => {
  it("after REF is applied, a pull request's plan is the full plan of the edited manifests", async () => {
    await fc.assert(
      fc.asyncProperty(versions, ({ ref, head }) =>
        pullRequestPlansAsFullPlan({ fixture, ref: filesOf(ref), head: filesOf(head) }),
      ),
      { numRuns: RUNS },
    );
  }, 300_000);
});
