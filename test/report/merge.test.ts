/**
 * `forgeform report merge`, as units: a drift report read back is the plan it was written from, a report that is
 * not one is refused with where it is wrong, and the shards of one run combine into the report of the whole run.
 */
import { describe, expect, it } from "vitest";
import { PlanFormatError } from "../../src/plan/json.js";
import type { Change, Plan } from "../../src/plan/model.js";
import { renderDriftJson } from "../../src/report/drift.js";
import {
  type DriftReport,
  MAX_REPORT_DEPTH,
  mergeDriftReports,
  parseDriftJson,
} from "../../src/report/merge.js";
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

describe("parseDriftJson's limits and defaults", () => {
  /** A value nested `n` arrays deep. */
  const nested = (n: number): unknown => (n === 0 ? "deep" : [nested(n - 1)]);
  /** A drift report whose one field's live value is nested `n` arrays deep. */
  const deepReport = (n: number) =>
    renderDriftJson(makePlan([{ ...everyAction[5]!, fields: [{ field: "token", before: nested(n) }] }]));

  it(`reads a report nesting ${MAX_REPORT_DEPTH} levels deep, and refuses one level more before parsing it`, () => {
    // The report's object, its items, an item, its fields and a field: five levels around the value.
    const at = MAX_REPORT_DEPTH - 5;
    expect(parseDriftJson(deepReport(at), "r.json").plan.changes[0]!.fields[0]!.before).toEqual(nested(at));
    expect(() => parseDriftJson(deepReport(at + 1), "r.json")).toThrow(
      new PlanFormatError(
        `r.json nests deeper than ${MAX_REPORT_DEPTH} levels, which no drift report forgeform writes does: it is not one (drift --format json)`,
      ),
    );
  });

  it("reads a report with only the parts it requires: no time, digest, objects in sync or shard units", () => {
    const minimal = {
      format_version: 1,
      kind: "drift",
      url: "https://forge.example.com",
      manifests: ["m.yaml"],
      targets: [],
      shard: { index: 1, count: 1 },
      items: [],
      errors: [],
      warnings: [],
      requests: { total: 0, retries: 0, by_endpoint: {} },
    };
    const { plan, inSync } = parseDriftJson(JSON.stringify(minimal), "m.json");
    expect(inSync).toEqual([]);
    expect(plan.createdAt).toBe("");
    expect(plan.liveDigest).toBe("");
    expect(plan.shard).toEqual({ index: 1, count: 1, units: [] });
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

  it("reads one unsharded report as the whole run, and refuses it beside a shard of a split run", () => {
    const whole = { report: read(makePlan([groupDelete]), ["x"]), label: "whole.json" };
    expect(mergeDriftReports([whole]).plan.changes).toEqual([groupDelete]);
    expect(mergeDriftReports([whole]).inSync).toEqual(["x"]);
    const one = { report: read(shard(1, 2)), label: "one.json" };
    expect(() => mergeDriftReports([one, whole])).toThrow(
      "whole.json is shard 1/1, but one.json is one of 2 shards",
    );
    expect(() => mergeDriftReports([one, { report: read(shard(1, 3)), label: "a.json" }])).toThrow(
      "a.json is shard 1/3, but one.json is one of 2 shards",
    );
  });

  it("puts three shards in order, in whatever order they come", () => {
    const reports = [1, 2, 3].map((i) => ({ report: read(shard(i, 3)), label: `${i}.json` }));
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    for (const order of orders) {
      const given = order.map((i) => reports[i]!);
      expect(mergeDriftReports(given).plan.warnings.map((w) => w.message)).toEqual([
        "shard 1 warns",
        "shard 2 warns",
        "shard 3 warns",
      ]);
    }
  });

  it("names every missing shard", () => {
    const one = { report: read(shard(1, 4)), label: "one.json" };
    expect(() => mergeDriftReports([one, { report: read(shard(3, 4)), label: "three.json" }])).toThrow(
      "missing shard 2/4, shard 4/4: give every shard's drift report",
    );
  });

  it("takes the earliest start, keeps different errors of the shards apart, adds retries up, and digests every shard", () => {
    const late = shard(1, 2, {
      createdAt: "2026-11-22T03:00:09.000Z",
      requests: { total: 3, retries: 2, byEndpoint: { "GET /groups": 3 } },
      liveDigest: "sha256:aaaa",
    });
    const early = shard(2, 2, {
      createdAt: "2026-11-22T03:00:01.000Z",
      errors: [{ address: 'project["acme/y"]', message: "other" }],
      requests: { total: 4, retries: 1, byEndpoint: { "GET /groups": 4 } },
      liveDigest: "sha256:bbbb",
    });
    const merge = (a: Plan, b: Plan) =>
      mergeDriftReports([
        { report: read(a), label: "a.json" },
        { report: read(b), label: "b.json" },
      ]).plan;
    const p = merge(late, early);
    expect(p.createdAt).toBe("2026-11-22T03:00:01.000Z");
    expect(p.errors.map((e) => e.message)).toEqual(["missing", "other"]);
    expect(p.requests).toEqual({ total: 7, retries: 3, byEndpoint: { "GET /groups": 7 } });
    // The same whichever order the shards come in; another shard's digest makes another digest.
    expect(merge(early, late)).toEqual(p);
    expect(merge(late, { ...early, liveDigest: "sha256:cccc" }).liveDigest).not.toBe(p.liveDigest);
    expect(merge({ ...late, liveDigest: "sha256:cccc" }, early).liveDigest).not.toBe(p.liveDigest);
  });
});
