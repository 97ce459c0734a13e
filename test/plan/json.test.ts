import { beforeEach, describe, expect, it } from "vitest";
import { PlanFormatError, parsePlanJson, renderPlanJson } from "../../src/plan/json.js";
import type { Plan } from "../../src/plan/model.js";
import { createSchedule, deleteHook, everyAction, makePlan, updateToken } from "../report/fixtures.js";

describe("renderPlanJson / parsePlanJson", () => {
  // Rendered before each test rather than when the file is collected: mutation testing credits a test only with the
  // code that runs for it (docs/testing.md).
  let plan: Plan;
  beforeEach(() => {
    plan = makePlan(everyAction, {
      errors: [
        {
          address: createSchedule.address,
          message: "cron is invalid",
          source: { file: "manifests/acme.yaml", line: 14, col: 13 },
        },
      ],
      warnings: [{ address: "instance", message: "unmanaged objects left alone" }],
      targets: ['project["acme/api"]'],
    });
  });

  it("round-trips every Plan field, and adds none", () => {
    expect(parsePlanJson(renderPlanJson(plan))).toStrictEqual(plan);
    const full: Plan = {
      ...makePlan([
        {
          ...deleteHook,
          parent: "instance",
          deletedWith: 'group["acme/old"]',
          backup: "backups/old.tar.gz",
          source: { file: "m.yaml", line: 3, col: 5 },
          fields: [
            { field: "url", before: "https://h", note: "n", forcesReplacement: true, sensitive: false },
          ],
        },
      ]),
      changedSince: "origin/main",
      shard: { index: 2, count: 4, units: ["acme"] },
    };
    expect(parsePlanJson(renderPlanJson(full))).toStrictEqual(full);
  });

  it("writes the requests by endpoint in sorted order", () => {
    const text = renderPlanJson({
      ...plan,
      requests: { total: 3, retries: 1, byEndpoint: { "PUT /z": 1, "GET /a": 1, "GET /m": 1 } },
    });
    expect(
      Object.keys((JSON.parse(text) as { requests: { by_endpoint: object } }).requests.by_endpoint),
    ).toEqual(["GET /a", "GET /m", "PUT /z"]);
  });

  it("keeps null distinct from an absent value", () => {
    const withNull = makePlan([
      {
        ...createSchedule,
        fields: [
          { field: "ref", before: null, after: "main" },
          { field: "owner", after: null },
        ],
      },
    ]);
    const back = parsePlanJson(renderPlanJson(withNull));
    expect(back.changes[0]?.fields).toEqual([
      { field: "ref", before: null, after: "main" },
      { field: "owner", after: null },
    ]);
    expect("before" in (back.changes[0]?.fields[1] ?? {})).toBe(false);
  });

  it("writes versioned snake_case JSON in a stable key order", () => {
    const json = JSON.parse(renderPlanJson(plan)) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual([
      "format_version",
      "kind",
      "created_at",
      "url",
      "manifests",
      "targets",
      "summary",
      "changes",
      "errors",
      "warnings",
      "requests",
      "live_digest",
    ]);
    expect(json["format_version"]).toBe(1);
    const changes = json["changes"] as Record<string, unknown>[];
    const hook = changes.find((c) => c["address"] === deleteHook.address)!;
    expect(Object.keys(hook)).toEqual([
      "address",
      "action",
      "collection",
      "key",
      "live_id",
      "reason",
      "fields",
    ]);
    expect((hook["fields"] as unknown[])[1]).toEqual({
      field: "token",
      before: "(write-only)",
      write_only: true,
    });
    expect(json["requests"]).toEqual({
      total: 12,
      retries: 0,
      by_endpoint: { "GET /groups": 9, "GET /projects/:id/pipeline_schedules": 3 },
    });
    expect(renderPlanJson(plan)).toBe(renderPlanJson(parsePlanJson(renderPlanJson(plan))));
  });

  it("keeps masked values masked", () => {
    const text = renderPlanJson(makePlan([updateToken]));
    expect(text).toContain('"before": "(sensitive)"');
    expect(text).toContain('"sensitive": true');
  });

  it("rejects an unknown format_version with a clear message", () => {
    const json = JSON.parse(renderPlanJson(plan)) as Record<string, unknown>;
    json["format_version"] = 2;
    expect(() => parsePlanJson(JSON.stringify(json), "plan.json")).toThrow(PlanFormatError);
    expect(() => parsePlanJson(JSON.stringify(json), "plan.json")).toThrow(
      "plan.json has format_version 2, but this forgeform reads format_version 1 only",
    );
    delete json["format_version"];
    expect(() => parsePlanJson(JSON.stringify(json))).toThrow("it has no format_version");
  });

  it("reads back the root and the commit REF named, and rejects an empty root and a commit that is not an id", () => {
    const json = JSON.parse(renderPlanJson(plan)) as Record<string, unknown>;
    const sha = "0123456789abcdef0123456789abcdef01234567";
    Object.assign(json, { root: "envs", changed_since: "origin/main", changed_since_commit: sha });
    expect(parsePlanJson(JSON.stringify(json))).toMatchObject({ root: "envs", changedSinceCommit: sha });
    expect(() => parsePlanJson(JSON.stringify({ ...json, root: "" }), "p.json")).toThrow(
      "p.json is malformed: /root must NOT have fewer than 1 characters",
    );
    expect(() =>
      parsePlanJson(JSON.stringify({ ...json, changed_since_commit: "--output=/tmp/x" }), "p.json"),
    ).toThrow(/p\.json is malformed: \/changed_since_commit must match pattern/);
  });

  it("rejects text that is not a plan, saying where it is wrong", () => {
    expect(() => parsePlanJson("{not json")).toThrow(/is not valid JSON/);
    expect(() => parsePlanJson("[1]")).toThrow(/expected a JSON object/);
    for (const notObject of ["null", '"plan"', "3"]) {
      expect(() => parsePlanJson(notObject)).toThrow(
        "The plan is not a forgeform plan: expected a JSON object. Make the plan again with `forgeform plan`.",
      );
    }
    expect(() => parsePlanJson("{}")).toThrow(expect.objectContaining({ name: "PlanFormatError" }));
    const noUrl = JSON.parse(renderPlanJson(plan)) as Record<string, unknown>;
    delete noUrl["url"];
    expect(() => parsePlanJson(JSON.stringify(noUrl), "p.json")).toThrow(
      "p.json is malformed: the top level must have required property 'url'",
    );
    const json = JSON.parse(renderPlanJson(plan)) as { changes: Record<string, unknown>[] };
    json.changes[2]!["action"] = "destroy";
    expect(() => parsePlanJson(JSON.stringify(json))).toThrow(
      /malformed: \/changes\/2\/action must be equal to one of the allowed values \(create, update/,
    );
    const drift = { format_version: 1, kind: "drift" };
    expect(() => parsePlanJson(JSON.stringify(drift))).toThrow('is a forgeform "drift" report, not a plan');
  });

  it("rejects a plan whose summary does not count its changes", () => {
    const json = JSON.parse(renderPlanJson(plan)) as { summary: Record<string, number> };
    json.summary["delete"] = 0;
    expect(() => parsePlanJson(JSON.stringify(json))).toThrow(
      /summary\.delete is 0 but the plan has 1 delete/,
    );
  });
});
