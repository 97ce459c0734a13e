/**
 * A pull request's plan (`--changed-since REF`) over collections, as a property over HTTP: with the platform as
 * the manifests at REF made it, the plan of any edit made to them since plans exactly what the full plan of the
 * edited manifests plans, and no secret value shows in either; and the shards' plans together are the full plan.
 *
 * The universe is where collections meet selection: labels (a colour the platform spells otherwise, `red`, an item
 * marked `state: absent`), CI/CD variables (values inline or from `${env:}`), pipeline schedules with their
 * variables (a nested collection with its own prune policy) and hooks (one URL with a token from `${env:}`), on
 * projects by full path, through patterns (`a/**`, `a/g/*`, `ab/*`) and through a template, and labels and variables
 * on groups (by full path and through `a/*`); prune policies (`unmanaged:`) on any of them; live objects the
 * manifests do not mention (a hook with a token no manifest names among them). An edit keeps most entries as they were and draws
 * the rest again: other items, another policy, another file, gone, or new. The shrunk counterexample is printed as
 * the two versions of the files. changed-since-properties.test.ts is the same property over settings.
 */
import { describe, it } from "vitest";
import { fc } from "../property.js";
import { pullRequestPlansAsFullPlan, shardsPlanAsFullPlan } from "./since-property.js";

const FILES = 2;
const PROJECTS = ["a/p", "a/g/p", "ab/p"];
const PATTERNS = ["a/**", "a/g/*", "ab/*"];
/** Group entries (keys of Version.entries with GROUP before the path), a pattern over groups among them. */
const GROUP = "groups:";
const GROUPS = ["a", "a/g", "ab", "a/*"];
const SECRETS = { FF_A: "alpha-secret-value", FF_B: "beta-secret-value" };
/** Hook URLs: one plain, one with a secret in its query (live, one with a token no manifest names). */
const HOOK_URLS = ["https://ci.example.com/h", `https://chat.example.com/n?token=\${env:FF_B}`];
const fixture = {
  // b and b/p: a third top-level group, which no entry or pattern declares (three units for the shards).
  groups: ["a", "ab", "a/g", "b"].map((path) => ({ path })),
  projects: [...PROJECTS, "b/p"].map((path) => ({ path })),
  labels: [
    { project: "a/p", name: "x", color: "#111111" },
    { project: "a/g/p", name: "y", color: "#FF0000" },
    { project: "ab/p", name: "x", color: "#00FF00", description: "live" },
    { group: "a", name: "g1", color: "#0000FF" },
    { group: "a/g", name: "g9", color: "#0000FF" },
  ],
  ci_variables: [
    { project: "a/p", key: "V0", value: "live" },
    { project: "a/g/p", key: "V1", value: SECRETS.FF_A },
    { project: "ab/p", key: "V0", value: "live" },
    { group: "ab", key: "G0", value: "live" },
  ],
  project_hooks: [
    { project: "a/p", url: "https://old.example.com/n?token=gamma-secret-value", push_events: true },
  ],
  pipeline_schedules: [
    { project: "a/p", description: "N", cron: "0 1 * * *", variables: { S0: "live", S9: "old" } },
    { project: "a/g/p", description: "O", cron: "0 3 * * *" },
  ],
};

type Policy = "delete" | "warn" | "ignore";
interface Label {
  name: string;
  color?: string;
  description?: string;
  absent?: true;
}
interface Variable {
  key: string;
  value: string;
}
interface Hook {
  url: string;
  push_events: boolean;
}
/** A pipeline schedule: a nested collection (its variables, with their own prune policy). */
interface Schedule {
  description: string;
  cron: string;
  variables: Variable[] | null;
  unmanaged: Policy | null;
}
/** An entry (or the template): its file, collections (null: not declared) and prune policies. */
interface Body {
  file: number;
  extends: boolean;
  labels: Label[] | null;
  variables: Variable[] | null;
  schedules: Schedule[] | null;
  /** Project hooks: by URL, one URL with a secret in its query. */
  hooks: Hook[] | null;
  unmanaged: { labels?: Policy; variables?: Policy; pipeline_schedules?: Policy; hooks?: Policy } | null;
}
interface Version {
  template: Body;
  entries: Record<string, Body | null>;
}

const policy = fc.constantFrom<Policy>("delete", "warn", "ignore");
const label = (name: string): fc.Arbitrary<Label> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record(
          { name: fc.constant(name), color: fc.constantFrom("red", "#00ff00", "#111111") },
          { requiredKeys: ["name", "color"] },
        )
        .chain((l) =>
          fc
            .option(fc.constantFrom("live", "new"), { nil: undefined })
            .map((d) => (d === undefined ? l : { ...l, description: d })),
        ),
    },
    { weight: 1, arbitrary: fc.constant<Label>({ name, absent: true }) },
  );
const labelsOf = (names: string[]) =>
  fc.option(
    fc.subarray(names).chain((some) => fc.tuple(...some.map(label)) as fc.Arbitrary<Label[]>),
    {
      nil: null,
      freq: 2,
    },
  );
const variablesOf = (keys: string[]) =>
  fc.option(
    fc.subarray(keys).chain(
      (keys) =>
        fc.tuple(
          ...keys.map((key) =>
            fc.record({
              key: fc.constant(key),
              value: fc.constantFrom("live", "one", `\${env:FF_A}`, `\${env:FF_B}`),
            }),
          ),
        ) as fc.Arbitrary<Variable[]>,
    ),
    { nil: null, freq: 2 },
  );
const scheduleVariables = fc.option(
  fc
    .subarray(["S0", "S1"])
    .chain(
      (keys) =>
        fc.tuple(
          ...keys.map((key) =>
            fc.record({ key: fc.constant(key), value: fc.constantFrom("live", "two", `\${env:FF_A}`) }),
          ),
        ) as fc.Arbitrary<Variable[]>,
    ),
  { nil: null, freq: 2 },
);
const schedules = fc.option(
  fc.subarray(["N", "M"]).chain(
    (names) =>
      fc.tuple(
        ...names.map((description) =>
          fc.record({
            description: fc.constant(description),
            cron: fc.constantFrom("0 1 * * *", "0 2 * * *"),
            variables: scheduleVariables,
            unmanaged: fc.option(policy, { nil: null, freq: 2 }),
          }),
        ),
      ) as fc.Arbitrary<Schedule[]>,
  ),
  { nil: null, freq: 2 },
);
const hooks = fc.option(
  fc
    .subarray(HOOK_URLS)
    .chain(
      (urls) =>
        fc.tuple(
          ...urls.map((url) => fc.record({ url: fc.constant(url), push_events: fc.boolean() })),
        ) as fc.Arbitrary<Hook[]>,
    ),
  { nil: null, freq: 2 },
);
const unmanaged = fc.option(
  fc.record(
    { labels: policy, variables: policy, pipeline_schedules: policy, hooks: policy },
    { requiredKeys: [] },
  ),
  {
    nil: null,
    freq: 2,
  },
);
const body = (canExtend: boolean): fc.Arbitrary<Body> =>
  fc.record({
    file: fc.integer({ min: 0, max: FILES - 1 }),
    extends: canExtend ? fc.boolean() : fc.constant(false),
    labels: labelsOf(["x", "y", "z"]),
    variables: variablesOf(["V0", "V1"]),
    schedules,
    hooks,
    unmanaged,
  });
/**
 * A group's entry: labels of other names than those below it (a label whose name a group above has is a plan error,
 * not what this property is about: the subgroup a/g, and a/* over it, take other names than a), variables, their
 * policies; no template.
 */
const groupBody = (key: string): fc.Arbitrary<Body> =>
  fc.record({
    file: fc.integer({ min: 0, max: FILES - 1 }),
    extends: fc.constant(false),
    labels: labelsOf(key.includes("/") ? ["g3", "g4"] : ["g1", "g2"]),
    variables: variablesOf(["G0", "G1"]),
    schedules: fc.constant(null),
    hooks: fc.constant(null),
    unmanaged: fc.option(fc.record({ labels: policy, variables: policy }, { requiredKeys: [] }), {
      nil: null,
      freq: 2,
    }),
  });
const keys = [...GROUPS.map((g) => `${GROUP}${g}`), ...PROJECTS, ...PATTERNS];
// A pattern extends no template: a template's list replaces a pattern's at the objects both reach, which is
// what the settings property covers.
const slotOf = (key: string) =>
  fc.option(key.startsWith(GROUP) ? groupBody(key) : body(!key.includes("*")), { nil: null, freq: 3 });

/** REF, and the edit: most of it kept, the rest drawn again. */
const versions = fc
  .record({
    template: body(false),
    entries: fc.record(Object.fromEntries(keys.map((k) => [k, slotOf(k)]))),
  })
  .chain((ref: Version) => {
    const edited = <T>(was: T, again: fc.Arbitrary<T>) =>
      fc.oneof({ weight: 3, arbitrary: fc.constant(was) }, { weight: 1, arbitrary: again });
    return fc
      .record({
        template: edited(ref.template, body(false)),
        entries: fc.record(Object.fromEntries(keys.map((k) => [k, edited(ref.entries[k]!, slotOf(k))]))),
      })
      .map((head: Version) => ({ ref, head }));
  });

/** A body's YAML lines, indented under its key. */
function lines(b: Body): string[] {
  const out: string[] = [];
  if (b.extends) out.push("extends: [t1]");
  if (b.labels) {
    const item = (l: Label) =>
      l.absent
        ? `{ name: ${l.name}, state: absent }`
        : `{ name: ${l.name}, color: "${l.color}"${l.description ? `, description: ${l.description}` : ""} }`;
    out.push(`labels: [${b.labels.map(item).join(", ")}]`);
  }
  if (b.variables)
    out.push(`variables: [${b.variables.map((v) => `{ key: ${v.key}, value: "${v.value}" }`).join(", ")}]`);
  if (b.hooks)
    out.push(
      `hooks: [${b.hooks.map((h) => `{ url: "${h.url}", push_events: ${h.push_events} }`).join(", ")}]`,
    );
  if (b.schedules) {
    const item = (x: Schedule) => {
      const fields = [`description: ${x.description}`, "ref: main", `cron: "${x.cron}"`];
      if (x.variables)
        fields.push(
          `variables: [${x.variables.map((v) => `{ key: ${v.key}, value: "${v.value}" }`).join(", ")}]`,
        );
      if (x.unmanaged) fields.push(`unmanaged: { variables: ${x.unmanaged} }`);
      return `{ ${fields.join(", ")} }`;
    };
    out.push(`pipeline_schedules: [${b.schedules.map(item).join(", ")}]`);
  }
  if (b.unmanaged) {
    const policies = Object.entries(b.unmanaged).map(([k, v]) => `${k}: ${v}`);
    out.push(`unmanaged: { ${policies.join(", ")} }`);
  }
  return out;
}

/** The files of a version, by name (every file written, `version: 1` alone when it holds nothing). */
function filesOf(v: Version): Record<string, string> {
  const entry = (key: string, b: Body) => {
    const ls = lines(b);
    return ls.length ? `  "${key}":\n${ls.map((l) => `    ${l}\n`).join("")}` : `  "${key}": {}\n`;
  };
  const out: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    let text = "version: 1\n";
    if (v.template.file === i) text += `templates:\n${entry("t1", v.template)}`;
    const mine = keys.filter((k) => v.entries[k]?.file === i);
    const groups = mine.filter((k) => k.startsWith(GROUP));
    const projects = mine.filter((k) => !k.startsWith(GROUP));
    if (groups.length)
      text += `groups:\n${groups.map((k) => entry(k.slice(GROUP.length), v.entries[k]!)).join("")}`;
    if (projects.length) text += `projects:\n${projects.map((k) => entry(k, v.entries[k]!)).join("")}`;
    out[`f${i}.yaml`] = text;
  }
  return out;
}

const RUNS = process.env["FORGEFORM_PROPERTY_RUNS"] ? Number(process.env["FORGEFORM_PROPERTY_RUNS"]) : 25;
const SHARD_RUNS = process.env["FORGEFORM_PROPERTY_RUNS"]
  ? Number(process.env["FORGEFORM_PROPERTY_RUNS"])
  : 10;

describe("--changed-since over collections as a property", () => {
  it("after REF is applied, a pull request's plan is the full plan of the edited manifests", async () => {
    await fc.assert(
      fc.asyncProperty(versions, ({ ref, head }) =>
        pullRequestPlansAsFullPlan({
          fixture,
          env: SECRETS,
          hidden: [...Object.values(SECRETS), "gamma-secret-value"],
          ref: filesOf(ref),
          head: filesOf(head),
        }),
      ),
      { numRuns: RUNS },
    );
  }, 300_000);

  it("the shards' plans together are the full plan", async () => {
    await fc.assert(
      fc.asyncProperty(versions, ({ ref, head }) =>
        shardsPlanAsFullPlan(
          {
            fixture,
            env: SECRETS,
            hidden: [...Object.values(SECRETS), "gamma-secret-value"],
            ref: filesOf(ref),
            head: filesOf(head),
          },
          [2, 3],
        ),
      ),
      { numRuns: SHARD_RUNS },
    );
  }, 300_000);
});
