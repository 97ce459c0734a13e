import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

interface ApiEpicIssue {
  iid: number;
  project_id: number;
  epic_issue_id: number;
}

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
  issues: [1, 2, 3, 4, 5].map((iid) => ({ project: "acme/api", iid, title: `issue ${iid}` })),
  epics: [
    { group: "acme", iid: 1, title: "Launch", issues: ["acme/api#1", "acme/api#5"] },
    { group: "acme", iid: 2, title: "Cleanup", issues: ["acme/api#4"] },
  ],
};

const summary = (out: string) => out.trim().split("\n").at(-1);

describe("epic issue links", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const order = async (epic: number) =>
    (await bench.get<ApiEpicIssue[]>(`/groups/acme/epics/${epic}/issues`)).map((i) => i.iid);
  const manifest = (issues: number[], extra = "") =>
    bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
${extra}        issues:
${issues.map((i) => `          - { project: acme/api, iid: ${i} }`).join("\n")}
`);

  it("links issues in the declared order, then plans nothing", async () => {
    const file = manifest([1, 2, 3]);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ group["acme"].epic["1"].issue["acme/api#2"]');
    expect(plan.out).toContain('+ group["acme"].epic["1"].issue["acme/api#3"]');
    expect(plan.out).toContain('group["acme"].epic["1"].issue["acme/api#5"]');
    expect(plan.out).toContain("prune policy warn");
    expect(summary(plan.out)).toBe("Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.");
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const live = await order(1);
    expect(live.filter((i) => i !== 5)).toEqual([1, 2, 3]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("reorders links with moves, and converges", async () => {
    expect((await bench.cli(["apply", "--yes", manifest([1, 2, 3])])).code).toBe(0);
    const file = manifest([3, 1, 2]);
    // Live 1, 2, 3; declared 3, 1, 2: issue 3 moves first and issue 1 after it; issue 2 stays after 1.
    const json = JSON.parse((await bench.cli(["plan", "--format", "json", file])).out) as {
      changes: {
        address: string;
        action: string;
        fields: { field: string; before?: unknown; after?: unknown }[];
      }[];
    };
    const link = (iid: number) => `group["acme"].epic["1"].issue["acme/api#${iid}"]`;
    const acting = json.changes.filter((c) => c.action !== "unmanaged");
    expect(acting.map((c) => [c.address, c.action, c.fields])).toEqual([
      [link(3), "update", [{ field: "after", before: "acme/api#2", after: "(first)" }]],
      [link(1), "update", [{ field: "after", before: "(first)", after: "acme/api#3" }]],
    ]);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    expect(summary(plan.out)).toBe("Plan: 0 to create, 2 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect((await order(1)).filter((i) => i !== 5)).toEqual([3, 1, 2]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("moves an issue linked to another epic here", async () => {
    const file = manifest([3, 1, 2, 4]);
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect((await order(1)).filter((i) => i !== 5)).toEqual([3, 1, 2, 4]);
    expect(await order(2)).toEqual([]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("removes links marked absent or undeclared under a delete policy", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        unmanaged:
          issues: delete
        issues:
          - { project: acme/api, iid: 3 }
          - { project: acme/api, iid: 1 }
          - { project: acme/api, iid: 2, state: absent }
          - { project: acme/api, iid: 4 }
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.out).toContain('- group["acme"].epic["1"].issue["acme/api#2"]');
    expect(plan.out).toContain('- group["acme"].epic["1"].issue["acme/api#5"]');
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect(await order(1)).toEqual([3, 1, 4]);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("matches project paths case-insensitively, as the platform does", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 1
        issues:
          - { project: Acme/API, iid: 3 }
          - { project: ACME/api, iid: 1 }
          - { project: acme/Api, iid: 4 }
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out).toBe(0);
  });

  it("links the issue of the number asked for, and says which issue of which project does not exist", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 2
        issues:
          - { project: acme/api, iid: 4 }
          - { project: acme/api, iid: 3 }
          - { project: acme/api, iid: 42 }
`);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(1);
    expect((apply.out + apply.err).replace(/\s+/g, " ")).toContain("issue #42 does not exist in acme/api");
    // Issue #3, not the first of the project's issues.
    expect(await order(2)).toEqual([4, 3]);
  });

  it("does not create epics: a missing epic is a plan error", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    epics:
      - iid: 99
        issues:
          - { project: acme/api, iid: 1 }
`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\s+/g, " ")).toContain('epic "99" does not exist');
  });
});
