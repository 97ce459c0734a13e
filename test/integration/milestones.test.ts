import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

interface ApiMilestone {
  id: number;
  title: string;
  description: string | null;
  start_date: string | null;
  due_date: string | null;
  state: string;
}

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
  milestones: [
    { project: "acme/api", title: "busy", description: "has open work" },
    { project: "acme/api", title: "stray" },
    { group: "acme", title: "2026 Q4" },
  ],
  issues: [
    { project: "acme/api", title: "open one", milestone: "busy" },
    { project: "acme/api", title: "open two", milestone: "busy" },
    { project: "acme/api", title: "done", milestone: "busy", state: "closed" },
    { project: "acme/api", title: "late", milestone: "2026 Q4" },
  ],
};

const summary = (out: string) => out.trim().split("\n").at(-1);
/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("milestones", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const projectMilestones = () => bench.get<ApiMilestone[]>("/projects/acme%2Fapi/milestones");
  const byTitle = async (title: string) => (await projectMilestones()).find((m) => m.title === title);

  it("project milestones go through the whole lifecycle, field by field", async () => {
    const manifest = (fields: string) =>
      bench.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: busy
        description: has open work
      - title: "1.0"
${fields}
`);
    const created = manifest(`        description: First release
        start_date: "2027-01-01"
        due_date: "2027-03-31"`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", created]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ project["acme/api"].milestone["1.0"]');
    expect(plan.out).toContain("stray");
    expect(plan.out).toContain("prune policy warn");
    expect(summary(plan.out)).toBe("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
    const apply = await bench.cli(["apply", "--yes", created]);
    expect(apply.code).toBe(0);
    expect(await byTitle("1.0")).toMatchObject({
      description: "First release",
      start_date: "2027-01-01",
      due_date: "2027-03-31",
      state: "active",
    });
    expect((await bench.cli(["plan", "--detailed-exitcode", created])).code).toBe(0);

    const changes: [string, string, Partial<ApiMilestone>][] = [
      [
        "description",
        `        description: First stable release
        start_date: "2027-01-01"
        due_date: "2027-03-31"`,
        { description: "First stable release" },
      ],
      [
        "start_date",
        `        description: First stable release
        start_date: "2027-02-01"
        due_date: "2027-03-31"`,
        { start_date: "2027-02-01" },
      ],
      [
        "due_date",
        `        description: First stable release
        start_date: "2027-02-01"
        due_date: "2027-04-30"`,
        { due_date: "2027-04-30" },
      ],
      [
        "state",
        `        description: First stable release
        start_date: "2027-02-01"
        due_date: "2027-04-30"
        state: closed`,
        { state: "closed" },
      ],
      [
        "state",
        `        description: First stable release
        start_date: "2027-02-01"
        due_date: "2027-04-30"
        state: active`,
        { state: "active" },
      ],
    ];
    for (const [field, fields, expected] of changes) {
      const file = manifest(fields);
      const p = await bench.cli(["plan", "--detailed-exitcode", file]);
      expect(p.code, field).toBe(2);
      expect(p.out).toContain('~ project["acme/api"].milestone["1.0"]');
      // The field's own change line, not any mention of the word.
      expect(p.out).toMatch(new RegExp(`\\n\\s+~ ${field}: `));
      expect(summary(p.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
      expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
      expect(await byTitle("1.0")).toMatchObject(expected);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code, field).toBe(0);
    }
  });

  it("refuses a due date from the environment before the start date in the plan, where it is written; the same day is fine", async () => {
    // Dates written in the manifest are checked by validate; a date from a reference only once it is resolved.
    const file = bench.manifest(
      `version: 1
projects:
  acme/api:
    milestones:
      - title: backwards
        start_date: "2027-05-02"
        due_date: "\${env:DUE}"
      - title: one day
        start_date: "\${env:DUE}"
        due_date: "2027-05-01"
`,
      "dates.yaml",
    );
    const plan = await bench.cli(["plan", file], { DUE: "2027-05-01" });
    expect(plan.code).toBe(1);
    const said = prose(plan.out + plan.err);
    // The date comes from a reference: shown as such, never its value.
    expect(said).toContain(
      `Errors (1): - ${file}:7:19: project["acme/api"].milestone["backwards"].due_date: due_date (sensitive) is before start_date 2027-05-02: the platform refuses it`,
    );
    expect(await byTitle("backwards")).toBeUndefined();
  });

  it("leaves a closed milestone closed when another field changes and the manifest does not say its state", async () => {
    const own = await Bench.start({ fixture });
    const closed = own.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: archived
        description: old
        state: closed
`);
    try {
      expect((await own.cli(["apply", "--yes", closed])).code).toBe(0);
      const file = own.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: archived
        description: kept for the record
`);
      expect((await own.cli(["apply", "--yes", file])).code).toBe(0);
      const all = await own.get<ApiMilestone[]>("/projects/acme%2Fapi/milestones");
      expect(all.find((m) => m.title === "archived")).toMatchObject({
        description: "kept for the record",
        state: "closed",
      });
    } finally {
      await own.stop();
    }
  });

  it("creates a milestone closed when the manifest says so", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: "0.9"
        state: closed
`);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect((await byTitle("0.9"))?.state).toBe("closed");
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("deletes with a delete policy, and refuses to delete a milestone that has open issues", async () => {
    // Independent of the tests before it: the declared milestones are there first.
    const declared = bench.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: busy
      - title: "1.0"
      - title: "0.9"
`);
    expect((await bench.cli(["apply", "--yes", declared])).code).toBe(0);
    const pruned = bench.manifest(`version: 1
projects:
  acme/api:
    unmanaged:
      milestones: delete
    milestones:
      - title: busy
      - title: "1.0"
      - title: "0.9"
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", pruned]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('- project["acme/api"].milestone["stray"]');
    expect(summary(plan.out)).toBe("Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.");
    expect((await bench.cli(["apply", "--yes", pruned])).code).toBe(0);
    expect(await byTitle("stray")).toBeUndefined();

    const absent = bench.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: busy
        state: absent
`);
    const refused = await bench.cli(["plan", absent]);
    expect(refused.code).toBe(1);
    const text = prose(refused.out);
    expect(text).toContain(
      'milestone "busy" still has 2 open issues, which would lose their milestone: close or move them first',
    );
    expect(text).toContain("force_delete: true");
    expect((await bench.cli(["apply", "--yes", absent])).code).toBe(1);
    expect(await byTitle("busy")).toBeDefined();

    const forced = bench.manifest(`version: 1
projects:
  acme/api:
    milestones:
      - title: busy
        state: absent
        force_delete: true
`);
    const plan2 = await bench.cli(["plan", "--detailed-exitcode", forced]);
    expect(plan2.code).toBe(2);
    expect(plan2.out).toContain('- project["acme/api"].milestone["busy"]');
    expect((await bench.cli(["apply", "--yes", forced])).code).toBe(0);
    expect(await byTitle("busy")).toBeUndefined();
  });

  it("manages group milestones the same way", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    milestones:
      - title: "2027 Q1"
        description: First quarter
        due_date: "2027-03-31"
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.out).toContain('+ group["acme"].milestone["2027 Q1"]');
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    const m = (await bench.get<ApiMilestone[]>("/groups/acme/milestones")).find((x) => x.title === "2027 Q1");
    expect(m).toMatchObject({ title: "2027 Q1", description: "First quarter", due_date: "2027-03-31" });
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("a prune policy does not delete a milestone that has open issues either", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    unmanaged:
      milestones: delete
    milestones:
      - title: "2027 Q1"
`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(prose(plan.out)).toContain(
      'milestone "2026 Q4" still has 1 open issue, which would lose their milestone: close or move it first',
    );
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(1);
    const titles = (await bench.get<ApiMilestone[]>("/groups/acme/milestones")).map((m) => m.title);
    expect(titles).toContain("2026 Q4");
  });
});
