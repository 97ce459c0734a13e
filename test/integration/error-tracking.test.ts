import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }, { path: "acme/web" }],
  error_tracking: [
    {
      project: "acme/api",
      active: false,
      api_url: "https://sentry.example.com/api/0/projects/acme/api/",
      tracker_external_url: "https://sentry.example.com/acme/api",
      project_name: "api",
    },
  ],
};

/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("error-tracking settings", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const active = async () =>
    (await bench.get<{ active: boolean }>("/projects/acme%2Fapi/error_tracking/settings")).active;

  it("switches error tracking on and off, then plans nothing", async () => {
    for (const on of [true, false]) {
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    error_tracking:
      active: ${on}
`);
      const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
      expect(plan.code).toBe(2);
      expect(plan.out).toContain('~ project["acme/api"].error_tracking');
      expect(plan.out).toContain("active");
      expect(plan.out.trim().split("\n").at(-1)).toBe(
        "Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.",
      );
      expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
      expect(await active()).toBe(on);
      expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
    }
  });

  it("says that settings that were never configured must be configured first", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/web:
    error_tracking:
      active: true
`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(prose(plan.out)).toContain("error tracking is not configured for acme/web");
  });
});
