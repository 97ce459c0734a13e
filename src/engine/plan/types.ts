/** What the planner takes and gives: its options, the steps apply carries out, and the result. */
import type { FieldSpec } from "../../kinds/fields.js";
import type { Fields, Kind, Live, Parent } from "../../kinds/kind.js";
import type { SecretValues, StateSecrets } from "../../manifest/secret.js";
import type { Change, Plan, PlanProblem, RequestStats, SelectorSummary } from "../../plan/model.js";
import type { ChangeScope } from "../changes.js";
import type { Shard } from "../shard.js";
import type { AddressList } from "./addresses.js";
import type { LiveSeen } from "./digest.js";

/** One change with everything apply needs. Never serialised: `desired` may hold secrets. */
export interface Step {
  change: Change;
  kind: Kind;
  parent: Parent;
  /** The object's identity, from resolved values (`change.key` is how it is shown, secrets masked). */
  key: string;
  /** This object as the parent of its children; apply fills `ref` when it creates the object. */
  self: Parent;
  desired?: Fields;
  live?: Live;
  changed: string[];
  /** Addresses of steps that must succeed first. */
  deps: string[];
  /** Nesting depth (0 for groups, projects and instance objects), to delete children before parents. */
  depth: number;
  /** Steps that must wait for this one (filled from the kind's `before`). */
  before?: string[];
  /** Where apply saves a restorable copy of the object before deleting it. */
  backupFile?: string;
  /** The folder `backupFile` must stay inside, symbolic links resolved (the manifest root, for the default folder). */
  backupRoot?: string;
}

export interface PlanResult {
  plan: Plan;
  steps: Step[];
  /** Addresses of managed objects that were compared and found equal, masked and sorted (made when first read). */
  readonly inSync: string[];
  /** The values of the run's references, to mask in anything else shown about this plan (apply's failures). */
  secrets: SecretValues;
}

/** Where apply saves an object's export archive before deleting it. */
export interface BackupOption {
  /** The folder (absolute). */
  dir: string;
  /** The folder as the plan shows it. */
  shown: string;
  /** The manifest root the default folder must stay inside (an explicit --backup-dir is the user's choice). */
  root?: string;
  /** Why the folder cannot be used (it leads outside the root through a symbolic link): a plan error on deletes. */
  problem?: string;
}

export interface PlanOptions {
  url: string;
  /** The manifest root, as the plan shows it (Plan.root). */
  root?: string;
  /** Limit to these group or project paths (and their subtrees); `instance` selects instance-level objects. */
  targets: string[];
  /**
   * Addresses to replace even when nothing differs (`--replace`): how write-only values (a hook's token, secret
   * settings) are rotated. A singleton is updated with its write-only fields instead.
   */
  replace: string[];
  /** Snapshot of the client's request counters, taken when reading is done. */
  requestStats: () => RequestStats;
  /** Where apply saves a group's export archive before deleting it; undefined: no backup (`--no-backup`). */
  backup?: BackupOption;
  /** `--changed-since`: plan only what differs from the manifests at a base revision. */
  changes?: ChangeScope;
  /** The revision `changes` was computed against, for the plan to say. */
  changedSince?: string;
  /** The commit it named then. */
  changedSinceCommit?: string;
  /** `--shard K/N`: plan only this shard's top-level targets. */
  shard?: Shard;
  /** This shard's top-level targets, when the caller worked them out (from the files, to read only its share). */
  shardUnits?: ReadonlySet<string>;
  /** The salt of a saved plan's secrets fingerprint, so that this plan's fingerprint can be compared with it. */
  fingerprintSalt?: string;
  /**
   * Every group and project path the manifests declare, when the desired state holds only some of them (a pull
   * request's plan loads what its change touches): a target is checked against all of them.
   */
  declared?: string[];
  /** This plan is one chunk of a plan made in chunks (chunks.ts): what its walk must know of the whole plan. */
  chunk?: ChunkScope;
  /**
   * secretsOfState of the desired state, when the caller found them already (a chunk's, to mask them in the
   * client before its walk). Only for a state without patterns: its expansion then holds the same secrets.
   */
  secrets?: StateSecrets;
}

/**
 * A plan made in chunks of top-level targets (chunks.ts): what each chunk's walk must know of the whole plan, so
 * that it plans its part as the whole plan would.
 */
export interface ChunkScope {
  /** Every group and project path the manifests declare, as written, in the walk's order. */
  order: Record<"groups" | "projects", readonly string[]>;
  /** The place of each of them in `order`, by lower-cased path. */
  rank: Record<"groups" | "projects", ReadonlyMap<string, number>>;
  /** Those not marked absent, lower-cased: what every chunk counts as planned (a share naming a group). */
  present: Record<"groups" | "projects", ReadonlySet<string>>;
}

/**
 * Where a step of a chunk goes in the whole plan's walk: its root collection (groups, the instance's collections,
 * projects), the place of its top-level object in that collection (the undeclared ones after the declared), and
 * an undeclared object's place in the read (see Live.order).
 */
export type Place = readonly [collection: number, item: number, read: number];

/** A kind's field declarations, by field name. */
export type Specs = Map<string, FieldSpec>;

/** The owner of instance-level collections, and the parent of groups and projects. */
export const INSTANCE: Parent = {
  address: "instance",
  collection: "instance",
  key: "instance",
  ref: "instance",
};

/** What a change shares before its action and fields are known. */
export type ChangeBase = Omit<Change, "action" | "fields">;

/** What the walk of a plan (or of one chunk of a plan made in chunks) found: phases 1 and 2. */
export interface Walked {
  /** The steps in the walk's order. */
  steps: Step[];
  /** Where each step goes in the whole plan's walk, for a chunk (see Place). */
  places: ReadonlyMap<Step, Place>;
  problems: PlanProblem[];
  warnings: PlanProblem[];
  /** Addresses compared and found equal, as walked (not masked, not sorted). */
  inSync: AddressList;
  /** The live objects seen (see PlanState.liveSeen). */
  liveSeen: LiveSeen;
  createOnly: ReadonlyMap<string, ReadonlySet<string>>;
  /** The values of the references of the desired state walked. */
  secrets: SecretValues;
  /** What the secrets fingerprint is made of (see secretPairs). */
  secretPairs: ReadonlySet<string>;
  /** The `--replace` addresses no object walked was. */
  replaceLeft: Set<string>;
  summaries: SelectorSummary[];
  /** `--shard`: the top-level units planned. */
  units?: ReadonlySet<string>;
}
