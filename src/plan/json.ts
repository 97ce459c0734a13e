/**
 * The plan's versioned machine form (docs/plan-format.md): snake_case keys in a fixed order, pretty-printed, and
 * its reader, which saved plans reuse. Optional fields are left out when absent, so `null` always means a real null.
 */
import { Ajv, type ErrorObject } from "ajv";
import type { SourceRef } from "../manifest/model.js";
import { escapeJson } from "../text/escape.js";
import {
  type Change,
  type FieldChange,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlanProblem,
  type PlanSummary,
  summarize,
} from "./model.js";

/** A saved plan or plan JSON that cannot be read: what is wrong, where, and what to do. */
export class PlanFormatError extends Error {
  override name = "PlanFormatError";
}

/** A JSON value; object keys whose value is undefined are left out when written. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json | undefined };

export function sourceJson(source: SourceRef): Json {
  return { file: source.file, line: source.line, col: source.col };
}

export function fieldJson(field: FieldChange): Json {
  return {
    field: field.field,
    before: field.before as Json | undefined,
    after: field.after as Json | undefined,
    sensitive: field.sensitive,
    write_only: field.writeOnly,
    forces_replacement: field.forcesReplacement,
    note: field.note,
  };
}

function changeJson(change: Change): Json {
  return {
    address: change.address,
    action: change.action,
    parent: change.parent,
    collection: change.collection,
    key: change.key,
    live_id: change.liveId,
    reason: change.reason,
    source: change.source && sourceJson(change.source),
    deleted_with: change.deletedWith,
    backup: change.backup,
    fields: change.fields.map(fieldJson),
  };
}

export function problemJson(problem: PlanProblem): Json {
  return {
    address: problem.address,
    message: problem.message,
    source: problem.source && sourceJson(problem.source),
  };
}

export function summaryJson(summary: PlanSummary): Json {
  return {
    create: summary.create,
    update: summary.update,
    replace: summary.replace,
    delete: summary.delete,
    unmanaged: summary.unmanaged,
  };
}

export function requestsJson(plan: Plan): Json {
  const byEndpoint: Record<string, Json> = {};
  for (const endpoint of Object.keys(plan.requests.byEndpoint).sort()) {
    byEndpoint[endpoint] = plan.requests.byEndpoint[endpoint] ?? 0;
  }
  return { total: plan.requests.total, retries: plan.requests.retries, by_endpoint: byEndpoint };
}

/** Pretty-printed JSON with a final newline; keys whose value is undefined are left out. */
export function stringify(value: Json): string {
  return `${escapeJson(JSON.stringify(value, null, 2))}\n`;
}

/** The plan as versioned JSON (`format_version` 1), described in docs/plan-format.md. */
export function renderPlanJson(plan: Plan): string {
  return stringify({
    format_version: PLAN_FORMAT_VERSION,
    kind: "plan",
    created_at: plan.createdAt,
    url: plan.url,
    manifests: plan.manifests,
    root: plan.root,
    targets: plan.targets,
    replace: plan.replace,
    changed_since: plan.changedSince,
    changed_since_commit: plan.changedSinceCommit,
    shard: plan.shard && { index: plan.shard.index, count: plan.shard.count, units: plan.shard.units },
    summary: summaryJson(plan.summary),
    changes: plan.changes.map(changeJson),
    errors: plan.errors.map(problemJson),
    warnings: plan.warnings.map(problemJson),
    requests: requestsJson(plan),
    live_digest: plan.liveDigest,
    manifest_digests: plan.manifestDigests,
    secrets_fingerprint: plan.secretsFingerprint,
    selectors: plan.selectors?.map((sel) => ({
      collection: sel.collection,
      pattern: sel.pattern,
      matched: sel.matched,
      source: sourceJson(sel.source),
    })),
  });
}

const count = { type: "integer", minimum: 0 };
/** JSON Schema pieces shared by the readers of forgeform's JSON reports. */
export const sourceSchema = {
  type: "object",
  required: ["file", "line", "col"],
  properties: { file: { type: "string" }, line: { type: "integer" }, col: { type: "integer" } },
};
const source = sourceSchema;
export const problemSchema = {
  type: "object",
  required: ["address", "message"],
  properties: { address: { type: "string" }, message: { type: "string" }, source },
};
const problem = problemSchema;

/** The shape of format_version 1. Unknown keys are allowed: later releases may add optional ones. */
const planSchemaV1 = {
  type: "object",
  required: [
    "format_version",
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
  ],
  properties: {
    format_version: { const: 1 },
    kind: { const: "plan" },
    created_at: { type: "string" },
    url: { type: "string" },
    manifests: { type: "array", items: { type: "string" } },
    root: { type: "string", minLength: 1 },
    // A commit's full id (SHA-1 or SHA-256), given to git as it is.
    changed_since_commit: { type: "string", pattern: "^([0-9a-f]{40}|[0-9a-f]{64})$" },
    targets: { type: "array", items: { type: "string" } },
    shard: {
      type: "object",
      required: ["index", "count", "units"],
      properties: {
        index: { type: "integer", minimum: 1 },
        count: { type: "integer", minimum: 1 },
        units: { type: "array", items: { type: "string" } },
      },
    },
    summary: {
      type: "object",
      required: ["create", "update", "replace", "delete", "unmanaged"],
      properties: { create: count, update: count, replace: count, delete: count, unmanaged: count },
    },
    changes: {
      type: "array",
      items: {
        type: "object",
        required: ["address", "action", "collection", "key", "fields"],
        properties: {
          address: { type: "string" },
          action: { enum: ["create", "update", "replace", "delete", "unmanaged"] },
          parent: { type: "string" },
          collection: { type: "string" },
          key: { type: "string" },
          live_id: { type: ["string", "integer"] },
          deleted_with: { type: "string" },
          backup: { type: "string" },
          reason: { type: "string" },
          source,
          fields: {
            type: "array",
            items: {
              type: "object",
              required: ["field"],
              properties: {
                field: { type: "string" },
                sensitive: { type: "boolean" },
                write_only: { type: "boolean" },
                forces_replacement: { type: "boolean" },
                note: { type: "string" },
              },
            },
          },
        },
      },
    },
    errors: { type: "array", items: problem },
    warnings: { type: "array", items: problem },
    requests: {
      type: "object",
      required: ["total", "retries", "by_endpoint"],
      properties: {
        total: count,
        retries: count,
        by_endpoint: { type: "object", additionalProperties: count },
      },
    },
    live_digest: { type: "string" },
    manifest_digests: { type: "object", additionalProperties: { type: "string" } },
    secrets_fingerprint: { type: "string" },
  },
} as const;

let validatePlanV1: ReturnType<Ajv["compile"]> | undefined;

function describeError(error: ErrorObject): string {
  const where = error.instancePath === "" ? "the top level" : error.instancePath;
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  return `${where} ${error.message ?? "is invalid"}${allowed ? ` (${allowed.join(", ")})` : ""}`;
}

const REMAKE = "Make the plan again with `forgeform plan`.";

/** Parses the JSON object's version first, so an unknown version gets its own message rather than shape errors. */
function checkVersion(data: unknown, label: string): void {
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new PlanFormatError(`${label} is not a forgeform plan: expected a JSON object. ${REMAKE}`);
  }
  const record = data as Record<string, unknown>;
  if (record["kind"] !== undefined && record["kind"] !== "plan") {
    throw new PlanFormatError(
      `${label} is a forgeform ${JSON.stringify(record["kind"])} report, not a plan. ${REMAKE}`,
    );
  }
  const version = record["format_version"];
  if (version === undefined) {
    throw new PlanFormatError(`${label} is not a forgeform plan: it has no format_version. ${REMAKE}`);
  }
  if (version !== PLAN_FORMAT_VERSION) {
    throw new PlanFormatError(
      `${label} has format_version ${JSON.stringify(version)}, but this forgeform reads format_version ` +
        `${PLAN_FORMAT_VERSION} only. ${REMAKE}`,
    );
  }
}

/** The plan file's records as written (format_version 1, docs/plan-format.md): the one source of their types. */
export interface SourceV1 {
  file: string;
  line: number;
  col: number;
}
export interface FieldV1 {
  field: string;
  before?: unknown;
  after?: unknown;
  sensitive?: boolean;
  write_only?: boolean;
  forces_replacement?: boolean;
  note?: string;
}
export interface ChangeV1 {
  address: string;
  action: Change["action"];
  parent?: string;
  collection: string;
  key: string;
  live_id?: string | number;
  reason?: string;
  source?: SourceV1;
  deleted_with?: string;
  backup?: string;
  fields: FieldV1[];
}
export interface ProblemV1 {
  address: string;
  message: string;
  source?: SourceV1;
}
export interface PlanV1 {
  created_at: string;
  url: string;
  manifests: string[];
  root?: string;
  targets: string[];
  replace?: string[];
  changed_since?: string;
  changed_since_commit?: string;
  shard?: { index: number; count: number; units: string[] };
  summary: PlanSummary;
  changes: ChangeV1[];
  errors: ProblemV1[];
  warnings: ProblemV1[];
  requests: { total: number; retries: number; by_endpoint: Record<string, number> };
  live_digest: string;
  manifest_digests?: Record<string, string>;
  secrets_fingerprint?: string;
  selectors?: { collection: "groups" | "projects"; pattern: string; matched: number; source: SourceV1 }[];
}

function toSource(s: SourceV1): SourceRef {
  return { file: s.file, line: s.line, col: s.col };
}

function toField(f: FieldV1): FieldChange {
  const field: FieldChange = { field: f.field };
  if ("before" in f) field.before = f.before;
  if ("after" in f) field.after = f.after;
  if (f.sensitive !== undefined) field.sensitive = f.sensitive;
  if (f.write_only !== undefined) field.writeOnly = f.write_only;
  if (f.forces_replacement !== undefined) field.forcesReplacement = f.forces_replacement;
  if (f.note !== undefined) field.note = f.note;
  return field;
}

function toChange(c: ChangeV1): Change {
  const change: Change = {
    address: c.address,
    collection: c.collection,
    key: c.key,
    action: c.action,
    fields: c.fields.map(toField),
  };
  if (c.parent !== undefined) change.parent = c.parent;
  if (c.reason !== undefined) change.reason = c.reason;
  if (c.source !== undefined) change.source = toSource(c.source);
  if (c.live_id !== undefined) change.liveId = c.live_id;
  if (c.deleted_with !== undefined) change.deletedWith = c.deleted_with;
  if (c.backup !== undefined) change.backup = c.backup;
  return change;
}

function toProblem(p: ProblemV1): PlanProblem {
  const problem: PlanProblem = { address: p.address, message: p.message };
  if (p.source !== undefined) problem.source = toSource(p.source);
  return problem;
}

/**
 * Reads plan JSON written by `renderPlanJson`. Throws a PlanFormatError saying what is wrong and where when the
 * text is not JSON, has another format_version, does not have the documented shape, or its summary does not count
 * its changes. `label` names the input in messages (a file name; default "The plan").
 */
export function parsePlanJson(text: string, label = "The plan"): Plan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new PlanFormatError(`${label} is not valid JSON (${(error as Error).message}). ${REMAKE}`);
  }
  checkVersion(data, label);
  validatePlanV1 ??= new Ajv({ allErrors: false, strict: false }).compile(planSchemaV1);
  if (!validatePlanV1(data)) {
    const [first] = validatePlanV1.errors ?? [];
    const detail = first ? describeError(first) : "does not have the documented shape";
    throw new PlanFormatError(`${label} is malformed: ${detail}. See docs/plan-format.md. ${REMAKE}`);
  }
  const v1 = data as PlanV1;
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: v1.created_at,
    url: v1.url,
    manifests: [...v1.manifests],
    ...(v1.root !== undefined ? { root: v1.root } : {}),
    targets: [...v1.targets],
    ...(Array.isArray(v1.replace) ? { replace: v1.replace.map(String) } : {}),
    ...(v1.changed_since !== undefined ? { changedSince: v1.changed_since } : {}),
    ...(v1.changed_since_commit !== undefined ? { changedSinceCommit: v1.changed_since_commit } : {}),
    ...(v1.shard
      ? { shard: { index: v1.shard.index, count: v1.shard.count, units: [...v1.shard.units] } }
      : {}),
    changes: v1.changes.map(toChange),
    errors: v1.errors.map(toProblem),
    warnings: v1.warnings.map(toProblem),
    summary: pickSummary(v1.summary),
    requests: {
      total: v1.requests.total,
      byEndpoint: { ...v1.requests.by_endpoint },
      retries: v1.requests.retries,
    },
    liveDigest: v1.live_digest,
    ...(v1.manifest_digests ? { manifestDigests: { ...v1.manifest_digests } } : {}),
    ...(v1.secrets_fingerprint !== undefined ? { secretsFingerprint: v1.secrets_fingerprint } : {}),
    ...(v1.selectors
      ? {
          selectors: v1.selectors.map((sel) => ({
            collection: sel.collection,
            pattern: sel.pattern,
            matched: sel.matched,
            source: toSource(sel.source),
          })),
        }
      : {}),
  };
  const counted = summarize(plan.changes);
  for (const action of Object.keys(counted) as (keyof PlanSummary)[]) {
    if (counted[action] !== plan.summary[action]) {
      throw new PlanFormatError(
        `${label} is inconsistent: summary.${action} is ${plan.summary[action]} but the plan has ` +
          `${counted[action]} ${action} changes; the file was edited or damaged. ${REMAKE}`,
      );
    }
  }
  return plan;
}

function pickSummary(s: PlanSummary): PlanSummary {
  return { create: s.create, update: s.update, replace: s.replace, delete: s.delete, unmanaged: s.unmanaged };
}
