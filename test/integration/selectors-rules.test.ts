/**
 * Selectors, the finer rules: every value an `H` cron can take is valid, equally specific entries never depend on
 * declaration order, archived projects stay out of patterns even when declared by full path, `except:` entries are
 * checked, listings are shared between patterns and with the engine, and `explain` tells groups from projects.
 * Manifests are written as docs/manifests.md describes them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";
import { fixture } from "./selectors-fixture.js";

const BADGE = 'link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/c.svg"';

describe("selectors: the finer rules", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });
  const schedules = (p: string) =>
    bench.get<{ description: string; cron: string }[]>(
      `/projects/${encodeURIComponent(p)}/pipeline_schedules`,
    );

  it("checks every value an H cron can take, at validate, with the place of each bad form", async () => {
    const bad = bench.manifest(
      `version: 1
projects:
  acme/tools/*:
    pipeline_schedules:
      - { description: odd, ref: main, cron: "H(55-65) 2 * * *" }
      - { description: reversed, ref: main, cron: "H(30-10) 2 * * *" }
      - { description: zero, ref: main, cron: "H/0 2 * * *" }
      - { description: hours, ref: main, cron: "0 H(20-24) * * *" }
`,
      "h-bad.yaml",
    );
    const validate = await bench.cli(["validate", bad]);
    expect(validate.code).toBe(1);
    const out = validate.out + validate.err;
    expect(out).toMatch(/h-bad\.yaml:5:\d+: .*"H\(55-65\)": the minute range must be within 0-59/);
    expect(out).toMatch(/h-bad\.yaml:6:\d+: .*"H\(30-10\)": the minute range 30-10 is empty/);
    expect(out).toMatch(/h-bad\.yaml:7:\d+: .*"H\/0": the minute step must be between 1 and 60/);
    expect(out).toMatch(/h-bad\.yaml:8:\d+: .*"H\(20-24\)": the hour range must be within 0-23/);
    // apply refuses before writing anything
    const apply = await bench.cli(["apply", "--yes", bad]);
    expect(apply.code).toBe(1);
    expect(await schedules("acme/tools/cli")).toEqual([]);

    const good = bench.manifest(
      `version: 1
projects:
  acme/platform/*:
    pipeline_schedules:
      - { description: ranged, ref: main, cron: "H(50-59)/5 H(1-3) * * H(1-5)" }
`,
      "h-good.yaml",
    );
    const applied = await bench.cli(["apply", "--yes", good]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    for (const p of ["acme/platform/api", "acme/platform/web"]) {
      const [s] = await schedules(p);
      expect(s?.cron).toMatch(/^5[0-4]-59\/5 [1-3] \* \* [1-5]$/);
    }
    expect((await bench.cli(["plan", "--detailed-exitcode", good])).code).toBe(0);
  });

  it("makes equally specific entries that disagree on an item's state an error, in either order", async () => {
    const entries = [
      "  acme/platform/*:\n    badges: [{ name: coverage, state: absent }]\n",
      `  acme/platform/**:\n    badges: [{ name: coverage, ${BADGE} }]\n`,
    ];
    for (const [i, order] of [entries, [...entries].reverse()].entries()) {
      const m = bench.manifest(`version: 1\nprojects:\n${order.join("")}`, `state-${i}.yaml`);
      const run = await bench.cli(["plan", m]);
      expect(run.code).toBe(1);
      expect(run.out + run.err).toMatch(
        new RegExp(
          `state-${i}\\.yaml:\\d+:\\d+: projects\\["acme/platform/\\*\\*?"\\]\\.badges\\[0\\]\\.state: "acme/platform/\\*\\*?" and "acme/platform/\\*\\*?" \\(at .*state-${i}\\.yaml:\\d+:\\d+\\) are equally specific`,
        ),
      );
    }
  });
});
