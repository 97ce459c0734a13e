import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

interface ApiSettings {
  level: string;
  notification_email?: string;
  events?: Record<string, boolean>;
}

const fixture = {
  users: [{ username: "root", email: "root@example.com" }],
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
};

const summary = (out: string) => out.trim().split("\n").at(-1);
/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("notification settings", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("global settings: level, then notification_email, each planned and applied alone", async () => {
    const watch = bench.manifest(`version: 1
instance:
  notification_settings:
    level: watch
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", watch]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain("~ instance.notification_settings");
    expect(plan.out).toContain("level");
    expect(summary(plan.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", watch])).code).toBe(0);
    expect((await bench.get<ApiSettings>("/notification_settings")).level).toBe("watch");
    expect((await bench.cli(["plan", "--detailed-exitcode", watch])).code).toBe(0);

    // The address defaults to the user's own, the only one the platform accepts: declaring it changes nothing.
    const email = bench.manifest(`version: 1
instance:
  notification_settings:
    level: watch
    notification_email: root@example.com
`);
    expect((await bench.cli(["plan", "--detailed-exitcode", email])).code).toBe(0);
    const foreign = bench.manifest(`version: 1
instance:
  notification_settings:
    notification_email: someone@elsewhere.example
`);
    const p2 = await bench.cli(["plan", "--detailed-exitcode", foreign]);
    expect(p2.code).toBe(2);
    expect(p2.out).toContain("notification_email");
    const refused = await bench.cli(["apply", "--yes", foreign]);
    expect(refused.code).toBe(1);
    expect(refused.out + refused.err).toContain("is not an email you own");

    const custom = bench.manifest(`version: 1
instance:
  notification_settings:
    level: custom
    new_issue: true
`);
    expect((await bench.cli(["apply", "--yes", custom])).code).toBe(0);
    const live = await bench.get<ApiSettings>("/notification_settings");
    expect(live.level).toBe("custom");
    expect((await bench.cli(["plan", "--detailed-exitcode", custom])).code).toBe(0);
  });

  it("per group and project: level, then custom with each event switch", async () => {
    const manifest = (project: string) =>
      bench.manifest(`version: 1
groups:
  acme:
    notification_settings:
      level: participating
projects:
  acme/api:
    notification_settings:
${project}
`);
    const levels = manifest("      level: mention");
    const plan = await bench.cli(["plan", "--detailed-exitcode", levels]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('~ group["acme"].notification_settings');
    expect(plan.out).toContain('~ project["acme/api"].notification_settings');
    expect(summary(plan.out)).toBe("Plan: 0 to create, 2 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", levels])).code).toBe(0);
    expect((await bench.get<ApiSettings>("/groups/acme/notification_settings")).level).toBe("participating");
    expect((await bench.get<ApiSettings>("/projects/acme%2Fapi/notification_settings")).level).toBe(
      "mention",
    );
    expect((await bench.cli(["plan", "--detailed-exitcode", levels])).code).toBe(0);

    const custom = manifest(`      level: custom
      new_merge_request: true
      failed_pipeline: false`);
    const p2 = await bench.cli(["plan", "--detailed-exitcode", custom]);
    expect(p2.code).toBe(2);
    expect(summary(p2.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect((await bench.cli(["apply", "--yes", custom])).code).toBe(0);
    const live = await bench.get<ApiSettings>("/projects/acme%2Fapi/notification_settings");
    expect(live.level).toBe("custom");
    expect(live.events).toMatchObject({ new_merge_request: true, failed_pipeline: false });
    expect((await bench.cli(["plan", "--detailed-exitcode", custom])).code).toBe(0);

    for (const event of ["new_note", "close_issue", "success_pipeline", "failed_pipeline"]) {
      const on = event !== "failed_pipeline";
      const one = manifest(`      level: custom
      new_merge_request: true
      failed_pipeline: ${event === "failed_pipeline" ? "true" : "false"}
${event === "failed_pipeline" ? "" : `      ${event}: ${on}`}`);
      const p = await bench.cli(["plan", "--detailed-exitcode", one]);
      expect(p.code, event).toBe(2);
      expect(p.out).toContain(event);
      expect(summary(p.out)).toBe("Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
      expect((await bench.cli(["apply", "--yes", one])).code).toBe(0);
      const after = await bench.get<ApiSettings>("/projects/acme%2Fapi/notification_settings");
      expect(after.events?.[event], event).toBe(true);
      expect((await bench.cli(["plan", "--detailed-exitcode", one])).code, event).toBe(0);
    }
  });

  it("event switches without level custom are a plan error", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    notification_settings:
      level: watch
      new_issue: true
`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(prose(plan.out)).toContain('event switches apply only with level "custom"');
  });
});

describe("notification settings: event switches without level custom", () => {
  it("are named in the error, with the level declared or, when none is, the level the platform has", async () => {
    const bench = await Bench.start({ fixture });
    try {
      const declared = bench.manifest(`version: 1
projects:
  acme/api:
    notification_settings:
      level: watch
      new_issue: true
      new_note: false
`);
      const plan = await bench.cli(["plan", declared]);
      expect(plan.code).toBe(1);
      expect(prose(plan.out)).toContain(
        ': project["acme/api"].notification_settings.new_issue: new_issue, new_note: event switches apply only with level "custom" (the level is "watch"): set level: custom or remove them',
      );
      // A level from a reference is shown as such, never its value.
      const fromEnv = bench.manifest(`version: 1
projects:
  acme/api:
    notification_settings:
      level: "$${"{"}env:LEVEL}"
      new_issue: true
`);
      const plan3 = await bench.cli(["plan", fromEnv], { LEVEL: "watch" });
      expect(plan3.code).toBe(1);
      expect(prose(plan3.out)).toContain(
        'new_issue: event switches apply only with level "custom" (the level is "(sensitive)"): set level: custom or remove them',
      );
      const live = (await bench.get<ApiSettings>("/groups/acme/notification_settings")).level;
      const inherited = bench.manifest(`version: 1
groups:
  acme:
    notification_settings:
      new_issue: true
`);
      const plan2 = await bench.cli(["plan", inherited]);
      expect(plan2.code).toBe(1);
      expect(prose(plan2.out)).toContain(
        `: group["acme"].notification_settings.new_issue: new_issue: event switches apply only with level "custom" (the level is "${live}"): set level: custom or remove them`,
      );
    } finally {
      await bench.stop();
    }
  });
});
