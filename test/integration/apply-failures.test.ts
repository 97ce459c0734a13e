/**
 * An apply where one create fails: what depends on it is skipped and says why, everything else is applied, and the
 * run says exactly what happened (issue 12's "nothing half-applied without a report").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE } from "./cycle.js";
import { Bench } from "./helpers.js";

const MANIFEST = `version: 1
projects:
  acme/platform/api:
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: FLAVOUR, value: full }
          - { key: TIER, value: gold }
    badges:
      - { name: docs, link_url: "https://docs.example/%{project_path}", image_url: "https://docs.example/b.svg" }
`;

describe("apply with a failed create", () => {
  let bench: Bench;
  beforeAll(async () => {
    // Every schedule create is refused with a 500 (not retried: the outcome of a 500 is not unknown).
    bench = await Bench.start({
      fixture: FIXTURE,
      faults: "500:1@POST/api/v4/projects/acme%2Fplatform%2Fapi/pipeline_schedules",
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("skips what depends on it, saying why, and applies the rest", async () => {
    const run = await bench.cli(["apply", "--yes", "--format", "json", bench.manifest(MANIFEST)]);
    expect(run.code, run.err).toBe(1);
    const report = JSON.parse(run.out) as {
      kind: string;
      outcomes: { address: string; action: string; status: string; message?: string }[];
    };
    expect(report.kind).toBe("apply");
    const outcome = Object.fromEntries(report.outcomes.map(({ address, ...o }) => [address, o]));
    const schedule = 'project["acme/platform/api"].pipeline_schedule["Nightly"]';
    expect(outcome[schedule]).toMatchObject({ status: "failed" });
    for (const key of ["FLAVOUR", "TIER"]) {
      expect(outcome[`${schedule}.variable["${key}"]`]).toEqual({
        action: "create",
        status: "skipped",
        message: `skipped because ${schedule} was not applied`,
      });
    }
    expect(outcome['project["acme/platform/api"].badge["docs"]']).toMatchObject({ status: "done" });
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fapi/pipeline_schedules")).toEqual([]);
    expect(await bench.get<{ name: string }[]>("/projects/acme%2Fplatform%2Fapi/badges")).toEqual([
      expect.objectContaining({ name: "docs" }),
    ]);
  });
});
