/**
 * What one planning run keeps while it walks the manifests: its inputs (the context, the registry, the targets,
 * shards and change scope, the run's secret values) and what it has found so far (problems, warnings, objects in
 * sync, the live objects seen, the action planned at each address). Each phase reads and adds to it; none keeps
 * state of its own.
 */
import type { Fields, KindContext } from "../../kinds/kind.js";
import type { DesiredNode, SourceRef } from "../../manifest/model.js";
import type { SecretValues } from "../../manifest/secret.js";
import type { Change, PlanProblem } from "../../plan/model.js";
import { type ChangeScope, itemPath, touches } from "../changes.js";
import type { KindRegistry } from "../registry.js";
import { unitOf } from "../shard.js";
import { inTargets } from "../targets.js";
import { AddressList } from "./addresses.js";
import { LiveSeen } from "./digest.js";
import type { BackupOption, ChunkScope, Place, Step } from "./types.js";

/**
 * Top-level groups and projects planned at once, per request in flight: a project reads its collections together
 * (four lists in the benchmark), then its schedules' details; four projects per connection keep each one busy.
 */
const WINDOW_PER_CONNECTION = 4;

export interface PlanInputs {
  ctx: KindContext;
  registry: KindRegistry;
  /** `--target` paths (empty: everything). */
  targets: string[];
  /** `--replace` addresses not yet met (each is taken off when its object is planned). */
  replace: Set<string>;
  backup: BackupOption | undefined;
  /** The values of the run's references. */
  secrets: SecretValues;
  /** Groups and projects the manifests name by full path, lower-cased (the others are matched by patterns). */
  byPath: ReadonlySet<string>;
  changes: ChangeScope | undefined;
  /** `--shard`: the top-level units this shard plans. */
  shardUnits: Set<string> | undefined;
  /** A chunk of a plan made in chunks: its top-level units are `shardUnits`. */
  chunk?: ChunkScope | undefined;
}

export class PlanState implements PlanInputs {
  readonly ctx: KindContext;
  readonly registry: KindRegistry;
  readonly targets: string[];
  readonly replace: Set<string>;
  readonly backup: BackupOption | undefined;
  readonly secrets: SecretValues;
  readonly byPath: ReadonlySet<string>;
  readonly changes: ChangeScope | undefined;
  readonly shardUnits: Set<string> | undefined;
  readonly chunk: ChunkScope | undefined;

  readonly problems: PlanProblem[] = [];
  readonly warnings: PlanProblem[] = [];
  /** Addresses compared and found equal, as walked. */
  readonly inSync = new AddressList();
  /**
   * Every live object compared or reported, as its address and the SHA-256 of its masked fields (JSON): what the
   * plan's live digest is made of, kept as a digest rather than as the objects (released once planned).
   */
  readonly liveSeen = new LiveSeen();
  /** Projects found missing while reading their collections (each planned as a create, or reported once). */
  readonly missingProjects = new Set<string>();
  /** Where each declared group and project is, for problems found below it. */
  readonly sources = new Map<string, SourceRef>();
  /** Dependencies waited for only when the plan makes them (Kind.dependsOnCreate), by the waiting step's address. */
  readonly createOnly = new Map<string, ReadonlySet<string>>();
  /** The action planned for each address, for dependency lookups. */
  readonly actions = new Map<string, Change["action"]>();
  /** Addresses of objects the platform deletes along with another (a group's subgroups and projects). */
  readonly cascaded = new Map<string, string>();
  /** Top-level groups and projects the manifests declare present, by lower-cased path. */
  readonly declaredPresent = new Map<string, SourceRef>();
  /**
   * Projects the manifests mark absent that this plan plans (within the targets), by lower-cased path: each is
   * deleted on its own, with its backup, also inside a group the plan deletes.
   */
  readonly declaredAbsent = new Set<string>();
  /**
   * Objects whose children wait for their change (a project unarchived before anything in it changes): the
   * addresses, filled as their steps are planned.
   */
  readonly leading = new Set<string>();
  /** A delete that must be done before another (a project's, with its backup, before its group's): by lower-cased address. */
  readonly deleteBefore = new Map<string, string>();
  /** In a chunk of a plan made in chunks, where each step goes in the whole plan's walk (see Place). */
  readonly places = new Map<Step, Place>();
  /** The desired fields of the top-level groups and projects this plan manages, by lower-cased full path. */
  private readonly top: Record<"groups" | "projects", Map<string, Fields>> = {
    groups: new Map(),
    projects: new Map(),
  };
  /** Top-level groups and projects planned at once: four per request the client may have in flight. */
  readonly window: number;

  constructor(inputs: PlanInputs, root: DesiredNode) {
    this.ctx = inputs.ctx;
    this.registry = inputs.registry;
    this.targets = inputs.targets;
    this.replace = inputs.replace;
    this.backup = inputs.backup;
    this.secrets = inputs.secrets;
    this.byPath = inputs.byPath;
    this.changes = inputs.changes;
    this.shardUnits = inputs.shardUnits;
    this.chunk = inputs.chunk;
    this.window = WINDOW_PER_CONNECTION * inputs.ctx.api.concurrency;
    for (const collection of ["groups", "projects"] as const) {
      for (const item of root.children[collection]?.items ?? []) {
        const key = item.key.toLowerCase();
        const planned =
          inTargets(item.key, this.targets) && (!this.shardUnits || this.shardUnits.has(unitOf(item.key)));
        if (item.state === "absent") {
          if (collection === "projects" && planned) this.declaredAbsent.add(key);
          continue;
        }
        this.declaredPresent.set(key, item.source);
        // With --changed-since, an entry the change does not touch is neither read nor created by this plan.
        if (planned && (!this.changes || touches(this.changes, itemPath(collection, item))))
          this.top[collection].set(key, item.fields);
      }
      // Those of the other chunks count as planned too (their fields are theirs: only what is below an object
      // looks them up, and it is in the object's chunk).
      for (const key of this.chunk?.present[collection] ?? [])
        if (!this.top[collection].has(key)) this.top[collection].set(key, {});
    }
  }

  /**
   * The desired fields of the top-level groups or projects this plan manages (present, within the targets and the
   * shard; with --changed-since, touched by the change).
   */
  plannedTop(collection: "groups" | "projects"): ReadonlyMap<string, Fields> {
    return this.top[collection];
  }

  /**
   * In a chunk of a plan made in chunks, places the steps of one of the root's collections in the whole plan's walk:
   * groups, then the instance's collections, then projects; each top-level object by its place in the manifests
   * (`key`), an undeclared one after them by its place in the read (`read`).
   */
  place(steps: readonly Step[], collection: string, key: string | undefined, read = 0): void {
    if (!this.chunk) return;
    const c = collection === "groups" ? 0 : collection === "projects" ? 2 : 1;
    const ranks = c === 1 ? undefined : this.chunk.rank[collection as "groups" | "projects"];
    const item = !ranks ? 0 : key === undefined ? ranks.size : (ranks.get(key.toLowerCase()) ?? ranks.size);
    for (const step of steps) this.places.set(step, [c, item, read]);
  }

  /** Records a planned step; what the live object's kind says of it (`live.note`) joins the change's reason. */
  push(out: Step[], step: Step): void {
    const note = step.live?.note;
    if (note) step.change.reason = step.change.reason ? `${step.change.reason}; ${note}` : note;
    out.push(step);
    this.actions.set(step.change.address, step.change.action);
  }

  problem(address: string, message: string, source?: SourceRef): void {
    this.problems.push(source ? { address, message, source } : { address, message });
  }

  /** Records a live object seen, by its address and its fields as the plan may show them (see mask.ts). */
  seen(address: string, masked: Record<string, unknown>): void {
    this.liveSeen.add(address, JSON.stringify(masked));
  }

  /** Whether instance-level collections are planned (no target but `instance`, and this shard holds them). */
  get instanceSelected(): boolean {
    return (
      (this.targets.length === 0 || this.targets.includes("instance")) &&
      (!this.shardUnits || this.shardUnits.has("instance"))
    );
  }
}
