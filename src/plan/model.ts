/**
 * The Plan: an ordered list of changes from live state to desired state. The engine builds it; renderers
 * (src/report) turn it into text, JSON, Markdown and JUnit without ever calling the API; saved plans are its
 * versioned JSON form (src/plan/saved.ts).
 *
 * Values in a Plan are already masked: a sensitive value appears as the string "(sensitive)" and a write-only
 * value that will be sent appears as "(write-only)". Nothing in a Plan is secret, so any form of it may be printed.
 */
import type { SourceRef } from "../manifest/model.js";

export const PLAN_FORMAT_VERSION = 1;

/** What happens to one object. `unmanaged` marks a live object the manifests do not mention (prune policy warn). */
export type Action = "create" | "update" | "replace" | "delete" | "unmanaged";

export interface FieldChange {
  /** Field name as in the manifest (dotted for nested fields: `events.new_note`). */
  field: string;
  /** Live value (undefined when the object is created or the field is unset on the platform). */
  before?: unknown;
  /** Desired value (undefined when the object is deleted). */
  after?: unknown;
  /** The value is masked in every form. */
  sensitive?: boolean;
  /** The value is never read back from the platform, so it is sent on create/replace and never compared. */
  writeOnly?: boolean;
  /** Changing this field forces a replacement (delete then create). */
  forcesReplacement?: boolean;
  /** A note on this field, e.g. "needs a restart of the platform to take effect". */
  note?: string;
}

export interface Change {
  /** e.g. `project["acme/api"].pipeline_schedule["Nightly"].variable["DEPLOY_ENV"]` */
  address: string;
  /** The address of the parent object, when there is one (`project["acme/api"]`). */
  parent?: string;
  /** The manifest collection key of the object's kind, e.g. `pipeline_schedules`. */
  collection: string;
  /** The object's identity in its collection. */
  key: string;
  action: Action;
  /** Field-level differences; for create every desired field, for delete every live field. */
  fields: FieldChange[];
  /** Why this change is planned (e.g. "protected environments have no update call: replaced"). */
  reason?: string;
  /** Where the object is declared, when it is. */
  source?: SourceRef;
  /** The live object's platform id, when it exists. */
  liveId?: string | number;
  /**
   * For a delete the platform makes by itself: the address of the object whose deletion takes this one with it
   * (a group's subgroups and projects). Apply sends no request of its own for it; it counts as a delete everywhere.
   */
  deletedWith?: string;
  /** For a group delete: where apply saves the group's export archive before deleting it. */
  backup?: string;
}

/** A problem that stops part of the plan: the change for `address` cannot be planned or applied as declared. */
export interface PlanProblem {
  address: string;
  message: string;
  source?: SourceRef;
}

export interface PlanSummary {
  create: number;
  update: number;
  replace: number;
  delete: number;
  unmanaged: number;
}

export interface RequestStats {
  total: number;
  byEndpoint: Record<string, number>;
  retries: number;
}

export interface Plan {
  formatVersion: typeof PLAN_FORMAT_VERSION;
  /** When the plan was made (ISO 8601). */
  createdAt: string;
  /** The platform URL (no credentials). */
  url: string;
  /** Manifest files the desired state came from. */
  manifests: string[];
  /**
   * The manifest root the plan was made with (relative to the working directory when inside it): a saved plan is
   * made again with it, as its files (`${file:}` references, content files) and default backup folder are in it.
   */
  root?: string;
  /** `--target` paths the plan was limited to (empty: everything). */
  targets: string[];
  /** `--replace` addresses the plan replaces even if unchanged (a saved plan applies them again). */
  replace?: string[];
  /** `--changed-since REF`: the plan covers only what changed in the manifests since this git revision. */
  changedSince?: string;
  /** The commit `changedSince` named when the plan was made: `apply --plan` compares against it. */
  changedSinceCommit?: string;
  /** `--shard K/N`: this plan covers only the top-level targets (`units`) assigned to shard K of N. */
  shard?: { index: number; count: number; units: string[] };
  /** Changes in apply order: parents before children, deletes after creates and updates, children deleted first. */
  changes: Change[];
  /** Errors that prevent applying the affected addresses. */
  errors: PlanProblem[];
  /** Warnings that do not stop anything (deprecated settings, unmanaged objects left alone, ...). */
  warnings: PlanProblem[];
  summary: PlanSummary;
  /** Requests made to read live state. */
  requests: RequestStats;
  /** SHA-256 over the live state that was read; a saved plan is refused when it no longer matches. */
  liveDigest: string;
  /** The SHA-256 of each manifest file's text (references as written): a saved plan names the files that changed. */
  manifestDigests?: Record<string, string>;
  /**
   * A salted scrypt of the values of all the manifests' `${env:}`/`${file:}` references together (never of one
   * alone), when there are any: a saved plan is refused when they are not the values it was made with.
   */
  secretsFingerprint?: string;
  /** For each pattern entry (`projects: {"acme/**": ...}`), how many objects it matched. */
  selectors?: SelectorSummary[];
}

export interface SelectorSummary {
  collection: "groups" | "projects";
  pattern: string;
  matched: number;
  source: SourceRef;
}

export function summarize(changes: Change[]): PlanSummary {
  const summary: PlanSummary = { create: 0, update: 0, replace: 0, delete: 0, unmanaged: 0 };
  for (const change of changes) summary[change.action]++;
  return summary;
}

/** True when applying the plan would change anything on the platform. */
export function hasChanges(plan: Plan): boolean {
  const s = plan.summary;
  return s.create + s.update + s.replace + s.delete > 0;
}
