/**
 * `forgeform report merge`: the drift reports of the shards of one run (`drift --shard K/N --format json`) read back
 * and combined into the report an unsharded run makes: the same items, errors, warnings, objects in sync and
 * summary, with the requests added up. Every shard must be there exactly once, and all must describe one platform.
 */
import { createHash } from "node:crypto";
import { Ajv } from "ajv";
import { nestsTooDeep } from "../api/shape.js";
import type { SourceRef } from "../manifest/model.js";
import { MAX_DEPTH } from "../manifest/yaml.js";
import { type Change, PLAN_FORMAT_VERSION, type Plan, type PlanProblem, summarize } from "../plan/model.js";
import { PlanFormatError, problemSchema, sourceSchema } from "./json.js";

export interface DriftReport {
  plan: Plan;
  inSync: string[];
}

const source = sourceSchema;
const problem = problemSchema;
const schema = {
  type: "object",
  required: [
    "format_version",
    "kind",
    "url",
    "manifests",
    "targets",
    "items",
    "errors",
    "warnings",
    "requests",
  ],
  properties: {
    format_version: { const: PLAN_FORMAT_VERSION },
    kind: { const: "drift" },
    created_at: { type: "string" },
    url: { type: "string" },
    manifests: { type: "array", items: { type: "string" } },
    targets: { type: "array", items: { type: "string" } },
    shard: {
      type: "object",
      required: ["index", "count"],
      properties: { index: { type: "integer", minimum: 1 }, count: { type: "integer", minimum: 1 } },
    },
    items: {
      type: "array",
      items: {
        type: "object",
        required: ["address", "action", "collection", "key", "fields"],
        properties: {
          address: { type: "string" },
          action: { enum: ["create", "update", "replace", "delete", "unmanaged"] },
          collection: { type: "string" },
          key: { type: "string" },
          parent: { type: "string" },
          reason: { type: "string" },
          deleted_with: { type: "string" },
          backup: { type: "string" },
          source,
          fields: {
            type: "array",
            items: { type: "object", required: ["field"], properties: { field: { type: "string" } } },
          },
        },
      },
    },
    errors: { type: "array", items: problem },
    warnings: { type: "array", items: problem },
    in_sync: { type: "array", items: { type: "string" } },
    requests: {
      type: "object",
      required: ["total", "retries", "by_endpoint"],
      properties: {
        total: { type: "integer", minimum: 0 },
        retries: { type: "integer", minimum: 0 },
        by_endpoint: { type: "object", additionalProperties: { type: "integer", minimum: 0 } },
      },
    },
  },
};

let validate: ReturnType<Ajv["compile"]> | undefined;

type Obj = Record<string, unknown>;

function src(s: unknown): SourceRef | undefined {
  const o = s as Obj | undefined;
  return o ? { file: String(o["file"]), line: Number(o["line"]), col: Number(o["col"]) } : undefined;
}

function toProblem(p: Obj): PlanProblem {
  const at = src(p["source"]);
  return { address: String(p["address"]), message: String(p["message"]), ...(at ? { source: at } : {}) };
}

/**
 * The deepest a drift report forgeform writes nests: a field's value (from the platform, which forgeform refuses
 * past 100 levels, or from a manifest, at most MAX_DEPTH levels) a few levels into the report. Deeper text is
 * refused before it is parsed: rendering it would run out of stack.
 */
export const MAX_REPORT_DEPTH = MAX_DEPTH + 16;

/** Reads a drift report written by `forgeform drift --format json`. */
export function parseDriftJson(text: string, label: string): DriftReport {
  if (nestsTooDeep(text, MAX_REPORT_DEPTH)) {
    throw new PlanFormatError(
      `${label} nests deeper than ${MAX_REPORT_DEPTH} levels, which no drift report forgeform writes does: it is not one (drift --format json)`,
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new PlanFormatError(`${label} is not valid JSON (${(error as Error).message})`);
  }
  validate ??= new Ajv({ allErrors: false, strict: false }).compile(schema);
  if (!validate(data)) {
    const [first] = validate.errors ?? [];
    throw new PlanFormatError(
      `${label} is not a forgeform drift report (drift --format json): ${first ? `${first.instancePath || "the top level"} ${first.message}` : "unexpected shape"}`,
    );
  }
  const d = data as Obj;
  const changes: Change[] = (d["items"] as Obj[]).map((item) => {
    const at = src(item["source"]);
    const change: Change = {
      address: String(item["address"]),
      collection: String(item["collection"]),
      key: String(item["key"]),
      action: item["action"] as Change["action"],
      fields: (item["fields"] as Obj[]).map((f) => ({
        field: String(f["field"]),
        ...(f["live"] !== undefined ? { before: f["live"] } : {}),
        ...(f["declared"] !== undefined ? { after: f["declared"] } : {}),
        ...(f["sensitive"] === true ? { sensitive: true } : {}),
        ...(f["write_only"] === true ? { writeOnly: true } : {}),
        ...(f["forces_replacement"] === true ? { forcesReplacement: true } : {}),
        ...(typeof f["note"] === "string" ? { note: f["note"] } : {}),
      })),
    };
    if (typeof item["parent"] === "string") change.parent = item["parent"];
    if (typeof item["reason"] === "string") change.reason = item["reason"];
    if (at) change.source = at;
    if (item["live_id"] !== undefined) change.liveId = item["live_id"] as string | number;
    if (typeof item["deleted_with"] === "string") change.deletedWith = item["deleted_with"];
    if (typeof item["backup"] === "string") change.backup = item["backup"];
    return change;
  });
  const requests = d["requests"] as { total: number; retries: number; by_endpoint: Record<string, number> };
  const shard = d["shard"] as { index: number; count: number; units?: string[] } | undefined;
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: String(d["created_at"] ?? ""),
    url: String(d["url"]),
    manifests: (d["manifests"] as string[]).map(String),
    targets: (d["targets"] as string[]).map(String),
    changes,
    errors: (d["errors"] as Obj[]).map(toProblem),
    warnings: (d["warnings"] as Obj[]).map(toProblem),
    summary: summarize(changes),
    requests: { total: requests.total, retries: requests.retries, byEndpoint: { ...requests.by_endpoint } },
    liveDigest: String(d["live_digest"] ?? ""),
    ...(shard ? { shard: { index: shard.index, count: shard.count, units: shard.units ?? [] } } : {}),
  };
  return { plan, inSync: ((d["in_sync"] as string[] | undefined) ?? []).map(String) };
}

/** Combines the drift reports of all the shards of one run into one report. */
export function mergeDriftReports(reports: { report: DriftReport; label: string }[]): DriftReport {
  if (reports.length === 0) throw new Error("report merge needs the drift reports of every shard");
  const first = reports[0]!.report.plan;
  const count = first.shard?.count ?? 1;
  const seen = new Map<number, string>();
  for (const { report, label } of reports) {
    const p = report.plan;
    if (p.url !== first.url) {
      throw new Error(
        `${label} describes ${p.url}, but ${reports[0]!.label} describes ${first.url}: merge the reports of one run`,
      );
    }
    const index = p.shard?.index ?? 1;
    if ((p.shard?.count ?? 1) !== count) {
      throw new Error(
        `${label} is shard ${index}/${p.shard?.count ?? 1}, but ${reports[0]!.label} is one of ${count} shards`,
      );
    }
    const twice = seen.get(index);
    if (twice) throw new Error(`${label} and ${twice} are both shard ${index}/${count}`);
    seen.set(index, label);
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !seen.has(i));
  if (missing.length > 0) {
    throw new Error(
      `missing ${missing.map((i) => `shard ${i}/${count}`).join(", ")}: give every shard's drift report`,
    );
  }
  const ordered = [...reports].sort(
    (a, b) => (a.report.plan.shard?.index ?? 1) - (b.report.plan.shard?.index ?? 1),
  );
  const plans = ordered.map((r) => r.report.plan);
  const byEndpoint: Record<string, number> = {};
  for (const p of plans) {
    for (const [endpoint, n] of Object.entries(p.requests.byEndpoint))
      byEndpoint[endpoint] = (byEndpoint[endpoint] ?? 0) + n;
  }
  const changes = plans.flatMap((p) => p.changes);
  const unique = <T>(items: T[], key: (t: T) => string) => [
    ...new Map(items.map((i) => [key(i), i])).values(),
  ];
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: plans.map((p) => p.createdAt).sort()[0] ?? first.createdAt,
    url: first.url,
    manifests: [...new Set(plans.flatMap((p) => p.manifests))],
    targets: first.targets,
    changes,
    errors: unique(
      plans.flatMap((p) => p.errors),
      (e) => `${e.address}\u0000${e.message}`,
    ),
    warnings: unique(
      plans.flatMap((p) => p.warnings),
      (e) => `${e.address}\u0000${e.message}`,
    ),
    summary: summarize(changes),
    requests: {
      total: plans.reduce((n, p) => n + p.requests.total, 0),
      retries: plans.reduce((n, p) => n + p.requests.retries, 0),
      byEndpoint,
    },
    liveDigest: createHash("sha256")
      .update(JSON.stringify(plans.map((p) => p.liveDigest)))
      .digest("hex"),
  };
  return { plan, inSync: [...new Set(ordered.flatMap((r) => r.report.inSync))].sort() };
}
