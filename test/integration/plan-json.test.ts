/**
 * The JSON plan of the examples against the demo fixture, change by change: what a program reading it (a pull
 * request bot, a policy check) relies on in each record, whatever the kind. docs/plan-format.md describes the fields.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { ChangeV1 } from "../../src/plan/json.js";
import { copyExamples, EXAMPLES_ENV, EXAMPLES_FIXTURE } from "./examples.js";
import { Bench } from "./helpers.js";

/** The address of the object holding this one: everything before its last `.segment` or `.segment["key"]`. */
function holder(address: string): string | undefined {
  const m = /^(.*)\.[a-z_]+(?:\["(?:[^"\\]|\\.)*"\])?$/.exec(address);
  return m?.[1];
}

describe("the JSON plan, record by record", () => {
  let bench: Bench;
  let changes: ChangeV1[];
  let manifests: string[];
  beforeAll(async () => {
    bench = await Bench.start({ fixture: EXAMPLES_FIXTURE, edition: "licensed" });
    manifests = copyExamples(bench.dir);
  });
  // Planned before each test rather than once: mutation testing credits a test only with the code run for it.
  beforeEach(async () => {
    const run = await bench.cli(["plan", "--format", "json", ...manifests], EXAMPLES_ENV);
    expect(run.code, run.err).toBe(0);
    changes = (JSON.parse(run.out) as { changes: ChangeV1[] }).changes;
  });
  afterAll(async () => {
    await bench.stop();
  });
  const byAddress = (address: string) => {
    const c = changes.find((x) => x.address === address);
    if (!c) throw new Error(`no change ${address}`);
    return c;
  };

  it("names the parent of every object held by a group or project, and none for top-level and instance objects", () => {
    expect(changes.length).toBeGreaterThan(30);
    for (const c of changes) {
      const up = holder(c.address);
      if (up === undefined || up === "instance") {
        if (c.action !== "unmanaged") expect(c.parent, c.address).toBeUndefined();
      } else {
        expect(c.parent, c.address).toBe(up);
      }
    }
    expect(byAddress('group["acme/platform"]').parent).toBeUndefined();
    expect(
      byAddress('project["acme/platform/api"].pipeline_schedule["Nightly build"].variable["DEPLOY_TOKEN"]')
        .parent,
    ).toBe('project["acme/platform/api"].pipeline_schedule["Nightly build"]');
  });

  it("gives the live id of everything that exists, and none to what is created", () => {
    for (const c of changes) {
      if (c.action === "create") expect(c.live_id, c.address).toBeUndefined();
      else expect(c.live_id, c.address).toBeDefined();
    }
    // A numeric id where the platform has one, the identity where it has none.
    expect(byAddress('project["acme/platform/api"].badge["coverage"]').live_id).toEqual(expect.any(Number));
    expect(
      byAddress('project["acme/platform/api"].pipeline_schedule["Nightly build"].variable["BUILD_FLAVOUR"]')
        .live_id,
    ).toBe("BUILD_FLAVOUR");
    expect(byAddress('project["acme/platform/api"].protected_environment["production"]').live_id).toBe(
      "production",
    );
  });

  it("shows a create's values after, a delete's before, and both for an update or a replacement", () => {
    for (const c of changes) {
      for (const f of c.fields) {
        const where = `${c.address} ${f.field}`;
        if (c.action === "create") expect(["before" in f, "after" in f], where).toEqual([false, true]);
        if (c.action === "delete") expect(["before" in f, "after" in f], where).toEqual([true, false]);
        // An update may set a field the platform leaves unset (no before), or unset one (no after): never neither.
        if (c.action === "update" || c.action === "replace")
          expect("before" in f || "after" in f, where).toBe(true);
      }
      if (c.action === "unmanaged") expect(c.fields, c.address).toEqual([]);
    }
    expect(byAddress('project["acme/platform/api"].badge["coverage"]').fields).toEqual([
      {
        field: "image_url",
        before: "https://code.acme.example/%{project_path}/badges/master/coverage.svg",
        after: "https://code.acme.example/%{project_path}/badges/%{default_branch}/coverage.svg",
      },
    ]);
    expect(
      byAddress('project["acme/platform/api"].notification_settings').fields.find(
        (f) => f.field === "failed_pipeline",
      ),
    ).toEqual({ field: "failed_pipeline", after: true });
  });

  it("marks the fields that force a replacement, on replacements only", () => {
    for (const c of changes) {
      const forcing = c.fields.filter((f) => f.forces_replacement).map((f) => f.field);
      if (c.action === "replace") expect(forcing.length, c.address).toBeGreaterThan(0);
      else expect(forcing, c.address).toEqual([]);
    }
    expect(
      byAddress('instance.system_hook["https://audit.acme.example/hooks/platform"]').fields.map((f) => [
        f.field,
        f.forces_replacement,
      ]),
    ).toEqual([["push_events", true]]);
  });

  it("marks secret values sensitive and never holds them", () => {
    const schedule = 'project["acme/platform/api"].pipeline_schedule["Nightly build"]';
    const token = byAddress(`${schedule}.variable["DEPLOY_TOKEN"]`).fields.find((f) => f.field === "value");
    expect(token).toEqual({ field: "value", after: "(sensitive)", sensitive: true });
    const flavour = byAddress(`${schedule}.variable["BUILD_FLAVOUR"]`).fields.find(
      (f) => f.field === "value",
    );
    expect(flavour).toMatchObject({ before: "(sensitive)", after: "(sensitive)", sensitive: true });
    const text = JSON.stringify(changes);
    for (const secret of Object.values(EXAMPLES_ENV)) expect(text).not.toContain(secret);
    // Plain fields are not marked.
    expect(byAddress(`${schedule}`).fields).toEqual([
      { field: "cron", before: "0 3 * * *", after: "0 2 * * *" },
    ]);
  });
});
