/**
 * `forgeform report merge`, as units: a drift report read back is the plan it was written from, a report that is
 * not one is refused with where it is wrong, and the shards of one run combine into the report of the whole run.
 */
import { describe, expect, it } from "vitest";
import type { Change, Plan } from "../../src/plan/model.js";
import { renderDriftJson } from "../../src/report/drift.js";
import { type DriftReport, mergeDriftReports, parseDriftJson } from "../../src/report/merge.js";
import { everyAction, makePlan } from "./fixtures.js";

const groupDelete: Change = {
  address: 'group["acme/old"].badge["b"]',
  parent: 'group["acme/old"]',
  collection: "badges",
  key: "b",
  action: "delete",
  reason: "deleted with its group",
  deletedWith: 'group["acme/old"]',
  backup: "backups/acme-old.tar.gz",
  source: { file: "m.yaml", line: 4, col: 7 },
  liveId: "b-1",
  fields: [{ field: "name", before: "b" }],
};

function shard(index: number, count: number, extra: Partial<Plan> = {}): Plan {
  return {
    ...makePlan(index === 1 ? [...everyAction, groupDelete] : [], {
      errors: [
        { address: 'project["acme/x"]', message: "missing", source: { file: "m.yaml", line: 9, col: 3 } },
      ],
      warnings: [{ address: "instance", message: `shard ${index} warns` }],
    }),
    shard: { index, count, units: [`unit-${index}`] },
    ...extra,
  };
}

const read = (plan: Plan, inSync: string[] = [], label = "r.json"): DriftReport =>
  parseDriftJson(renderDriftJson(plan, { inSync }), label);

describe("parseDriftJson", () => {
  it("reads back every part of the plan a drift report was written from", () => {
    const plan = shard(1, 2);
    expect(read(plan, ['project["acme/api"]'])).toEqual({ plan, inSync: ['project["acme/api"]'] });
    const unsharded = makePlan([groupDelete]);
    expect(read(unsharded)).toEqual({ plan: unsharded, inSync: [] });
  });

  it("refuses text that is not JSON, or not a drift report, saying where", () => {
    expect(() => parseDriftJson("{", "a.json")).toThrow(/^a\.json is not valid JSON \(/);
    expect(() => parseDriftJson("[]", "b.json")).toThrow(
      "b.json is not a forgeform drift report (drift --format json): the top level must be object",
    );
    const wrong = JSON.parse(renderDriftJson(makePlan(everyAction))) as { items: { action: string }[] };
    wrong.items[1]!.action = "explode";
    expect(() => parseDriftJson(JSON.stringify(wrong), "c.json")).toThrow(
      "c.json is not a forgeform drift report (drift --format json): /items/1/action must be equal to one of the allowed values",
    );
  });
});

describe("mergeDriftReports", () => {
  it("combines the shards of one run, in shard order, whatever order they come in", () => {
    const one = read(shard(1, 2, { createdAt: "2026-11-22T03:00:05.000Z" }), ["b", "a"], "one.json");
    const two = read(
      shard(2, 2, { manifests: ["manifests/acme.yaml", "manifests/more.yaml"] }),
      ["a"],
      "two.json",
    );
    const merged = mergeDriftReports([
      { report: two, label: "two.json" },
      { report: one, label: "one.json" },
    ]);
    expect(merged.inSync).toEqual(["a", "b"]);
    const p = merged.plan;
    expect(p.changes).toEqual([...everyAction, groupDelete]);
    expect(p.summary).toEqual(one.plan.summary);
    expect(p.createdAt).toBe("2026-11-22T03:00:00.000Z");
    expect(p.manifests).toEqual(["manifests/acme.yaml", "manifests/more.yaml"]);
    // The same error from both shards once; each shard's own warning.
    expect(p.errors).toEqual(one.plan.errors);
    expect(p.warnings.map((w) => w.message)).toEqual(["shard 1 warns", "shard 2 warns"]);
    expect(p.requests).toEqual({
      total: 24,
      retries: 0,
      byEndpoint: { "GET /projects/:id/pipeline_schedules": 6, "GET /groups": 18 },
    });
    expect(p.liveDigest).toMatch(/^[0-9a-f]{64}$/);
    expect(p.shard).toBeUndefined();
  });

  it("refuses reports of another platform, another split, the same shard twice, or a missing shard", () => {
    const one = { report: read(shard(1, 2)), label: "one.json" };
    const elsewhere = { report: read(shard(2, 2, { url: "https://other.example" })), label: "else.json" };
    const three = { report: read(shard(2, 3)), label: "three.json" };
    expect(() => mergeDriftReports([])).toThrow("report merge needs the drift reports of every shard");
    expect(() => mergeDriftReports([one, elsewhere])).toThrow(
      "else.json describes https://other.example, but one.json describes https://forge.example.com: merge the reports of one run",
    );
    expect(() => mergeDriftReports([one, three])).toThrow(
      "three.json is shard 2/3, but one.json is one of 2 shards",
    );
    expect(() => mergeDriftReports([one, { ...one, label: "again.json" }])).toThrow(
      "again.json and one.json are both shard 1/2",
    );
    expect(() => mergeDriftReports([one])).toThrow("missing shard 2/2: give every shard's drift report");
  });
});
