/** Group and project paths are one path in any case, as on the platform: for duplicates and for matching. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [
    { path: "sec", description: "live" },
    { path: "low", visibility: "public" },
    { path: "low/sub", visibility: "public" },
  ],
  projects: [{ path: "sec/app" }],
};

describe("paths in any case", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("one group declared in two cases is declared twice", async () => {
    const a = bench.manifest("version: 1\ngroups:\n  sec: { description: one }\n", "a.yaml");
    const b = bench.manifest("version: 1\ngroups:\n  SEC: { description: two }\n", "b.yaml");
    const run = await bench.cli(["validate", a, b]);
    expect(run.code).toBe(1);
    expect(run.out.replace(/\s+/g, " ")).toMatch(
      /b\.yaml:3:3: groups\.SEC: group "SEC" is declared twice; first declared as "sec" \(paths are the same in any case on the platform, so this is the same group\) at .*a\.yaml:3:3/,
    );
    const projects = bench.manifest(
      "version: 1\nprojects:\n  sec/app: { badges: [] }\n  Sec/App: { badges: [] }\n",
      "c.yaml",
    );
    expect((await bench.cli(["validate", projects])).out).toContain('project "Sec/App" is declared twice');
  });

  it("a group spelled in another case than the platform's is the same group", async () => {
    const m = bench.manifest("version: 1\ngroups:\n  SEC: { description: upper }\n", "upper.yaml");
    const plan = await bench.cli(["plan", m]);
    expect(plan.out).toContain('~ group["SEC"] will be updated in place');
    expect((await bench.cli(["apply", "--yes", m])).code).toBe(0);
    expect((await bench.get<{ description: string }>("/groups/sec")).description).toBe("upper");
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
  });

  it("a parent spelled in another case than its subgroup still goes first (or last, when lowering)", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  NewTop: { description: t }\n  newtop/child: { description: c }\n  LOW: { visibility: private }\n  low/sub: { visibility: private }\n",
      "order.yaml",
    );
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    // The platform refuses to lower a group before its subgroup, and to create a subgroup before its parent.
    expect((await bench.get<{ visibility: string }>("/groups/low")).visibility).toBe("private");
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
  });

  it("an epic's issue named by its project in two cases is declared twice", async () => {
    const m = bench.manifest(
      `version: 1
groups:
  sec:
    epics:
      - iid: 1
        issues: [{ project: sec/app, iid: 1 }, { project: SEC/App, iid: 1 }]
`,
      "epics.yaml",
    );
    const run = await bench.cli(["validate", m]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('duplicate issues entry "SEC/App#1"');
  });
});
