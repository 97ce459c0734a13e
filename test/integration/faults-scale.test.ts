/**
 * One apply converges under faults (issue: "One apply converges under faults, at scale"): 20 projects, each with
 * 2 pipeline schedules of 2 variables, 2 badges and a milestone (180 objects to create), against the sandbox with
 * 429, 503, resets and lost responses on writes. The first apply succeeds, the next plan is empty, and the platform
 * holds exactly one of every declared object, counted through the sandbox's API.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const PROJECTS = Array.from({ length: 20 }, (_, i) => `chaos/p${i + 1}`);
const fixture = { groups: [{ path: "chaos" }], projects: PROJECTS.map((path) => ({ path })) };

const MANIFEST = `version: 1
projects:
${PROJECTS.map(
  (p) => `  ${p}:
    pipeline_schedules:
${["nightly", "weekly"]
  .map(
    (s) => `      - description: ${s}
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: FLAVOUR, value: ${s} }
          - { key: TARGET, value: ${p.replace("/", "-")} }
`,
  )
  .join("")}    badges:
      - { name: coverage, link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/c.svg" }
      - { name: pipeline, link_url: "https://ci.example/%{project_path}/p", image_url: "https://ci.example/p.svg" }
    milestones:
      - { title: v1 }
`,
).join("")}`;

interface Schedule {
  id: number;
  description: string;
}

describe("one apply converges under faults", () => {
  let bench: Bench;
  let calm: Bench | undefined;
  // The counts are read from a calm sandbox on the same state, so the checks themselves meet no fault.
  const statePath = join(mkdtempSync(join(tmpdir(), "forgeform-faults-")), "state.json");
  beforeAll(async () => {
    bench = await Bench.start({
      statePath,
      fixture,
      faults: "429:0.05,503:0.05,reset:0.03,drop-after-commit:0.05@POST",
      seed: 11,
      retryAfterSeconds: 0,
    });
  });
  afterAll(async () => {
    await bench.stop().catch(() => undefined);
    await calm?.stop();
  });

  it("applies every object in the first run, with no failure and no duplicate", async () => {
    const file = bench.manifest(MANIFEST);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(
      apply.code,
      apply.out
        .split("\n")
        .filter((l) => /failed|skipped/.test(l))
        .join("\n"),
    ).toBe(0);
    expect(apply.out).toContain("Apply complete: 180 done, 0 failed, 0 skipped.");
    // The run met faults and got past them.
    expect(apply.out).toContain("its response was lost; found on re-reading");

    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out).toBe(0);

    // Independent counts: exactly one of every declared object.
    await bench.stop();
    calm = await Bench.start({ statePath });
    const read = calm;
    const base = (p: string) => `/projects/${encodeURIComponent(p)}`;
    for (const p of PROJECTS) {
      const schedules = await read.get<Schedule[]>(`${base(p)}/pipeline_schedules`);
      expect(schedules.map((s) => s.description).sort(), p).toEqual(["nightly", "weekly"]);
      for (const s of schedules) {
        const detail = await read.get<{ variables: { key: string }[] }>(
          `${base(p)}/pipeline_schedules/${s.id}`,
        );
        expect(detail.variables.map((v) => v.key).sort(), `${p} ${s.description}`).toEqual([
          "FLAVOUR",
          "TARGET",
        ]);
      }
      const badges = await read.get<{ name: string; kind: string }[]>(`${base(p)}/badges`);
      expect(
        badges
          .filter((b) => b.kind === "project")
          .map((b) => b.name)
          .sort(),
        p,
      ).toEqual(["coverage", "pipeline"]);
      const milestones = await read.get<{ title: string }[]>(`${base(p)}/milestones`);
      expect(
        milestones.map((m) => m.title),
        p,
      ).toEqual(["v1"]);
    }
  });
});

describe("at twice the fault rates", () => {
  it("converges in at most two applies, with no duplicate", async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), "forgeform-faults-")), "state.json");
    const bench = await Bench.start({
      statePath,
      fixture,
      faults: "429:0.1,503:0.1,reset:0.06,drop-after-commit:0.1@POST",
      seed: 12,
      retryAfterSeconds: 0,
    });
    let calm: Bench | undefined;
    try {
      const file = bench.manifest(MANIFEST);
      const first = await bench.cli(["apply", "--yes", file]);
      if (first.code !== 0) {
        const second = await bench.cli(["apply", "--yes", file]);
        expect(
          second.code,
          second.out
            .split("\n")
            .filter((l) => /failed|skipped/.test(l))
            .join("\n"),
        ).toBe(0);
      }
      await bench.stop();
      calm = await Bench.start({ statePath });
      expect((await calm.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
      let schedules = 0;
      for (const p of PROJECTS) {
        schedules += (await calm.get<Schedule[]>(`/projects/${encodeURIComponent(p)}/pipeline_schedules`))
          .length;
      }
      expect(schedules).toBe(PROJECTS.length * 2);
    } finally {
      await bench.stop().catch(() => undefined);
      await calm?.stop();
    }
  });
});
