/**
 * Values the platform rewrites compare in the terms their schema declares (x-normalize): durations, time zones,
 * refs. What is sent is what the manifest says; what is shown and exported is what the platform holds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const fixture = { groups: [{ path: "norm" }], projects: [{ path: "norm/app", default_branch: "main" }] };

interface ApiSchedule {
  description: string;
  ref: string;
  cron_timezone: string;
}

describe("values the platform rewrites", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("a duration converges although the platform spells it another way", async () => {
    for (const [written, kept] of [
      ["30 days", "1 month"],
      ["90 days", "3 months"],
      ["45 days", "1 month 15 days"],
    ] as const) {
      const m = bench.manifest(
        `version: 1\ninstance:\n  application_settings:\n    archive_builds_in_human_readable: "${written}"\n`,
      );
      const apply = await bench.cli(["apply", "--yes", m]);
      expect(apply.code, apply.out + apply.err).toBe(0);
      const live = await bench.get<Record<string, unknown>>("/application/settings");
      expect(live["archive_builds_in_human_readable"]).toBe(kept);
      const plan = await bench.cli(["plan", "--detailed-exitcode", m]);
      expect(plan.code, plan.out).toBe(0);
    }
    // A real change is still a change, shown in each side's words.
    const longer = bench.manifest(
      'version: 1\ninstance:\n  application_settings:\n    archive_builds_in_human_readable: "60 days"\n',
    );
    const plan = await bench.cli(["plan", "--detailed-exitcode", longer]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('~ archive_builds_in_human_readable: "1 month 15 days" -> "60 days"');
  });

  it("time zones and refs: sent as written, equal in any spelling, exported as the platform holds them", async () => {
    const m = bench.manifest(`version: 1
projects:
  norm/app:
    pipeline_schedules:
      - { description: utc, ref: refs/heads/main, cron: "0 1 * * *", cron_timezone: UTC }
      - { description: london, ref: main, cron: "0  2 * * *", cron_timezone: London }
`);
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    const live = await bench.get<ApiSchedule[]>("/projects/norm%2Fapp/pipeline_schedules");
    expect(live.find((s) => s.description === "london")?.cron_timezone).toBe("London");
    expect(live.find((s) => s.description === "utc")?.cron_timezone).toBe("UTC");
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
    // Other spellings of the same values: still no change.
    const respelled = bench.manifest(`version: 1
projects:
  norm/app:
    pipeline_schedules:
      - { description: utc, ref: main, cron: "0 1 * * *", cron_timezone: Etc/UTC }
      - { description: london, ref: refs/heads/main, cron: "0 2 * * *", cron_timezone: Europe/London }
`);
    expect((await bench.cli(["plan", "--detailed-exitcode", respelled])).code).toBe(0);
    const out = join(bench.dir, "exported");
    const exported = await bench.cli(["export", "--project", "norm/app", "--out", out]);
    expect(exported.code, exported.err).toBe(0);
    const text = readFileSync(join(out, "norm__app.yaml"), "utf8");
    // UTC, in any spelling, is the platform's default time zone: not written.
    expect(text).not.toMatch(/cron_timezone: (Etc\/)?UTC/);
    expect(text).toMatch(/cron_timezone: London\n/);
  });
});
