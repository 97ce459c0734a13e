/**
 * Planning: walks the desired graph, reads the live objects of each declared (or watched) collection through its
 * kind, matches them by identity, diffs the fields the manifest sets, and produces an ordered Plan plus the
 * internal steps apply needs (which hold the desired values, secrets included, and never leave the process).
 */
import { createHash } from "node:crypto";
import { join, relative } from "node:path";
import pLimit from "p-limit";
import { ApiError, apiPath } from "../api/index.js";
import { freeName } from "../files/write.js";
import type { FieldSpec } from "../kinds/fields.js";
import { listSubgroups } from "../kinds/group.js";
import {
  addressOf,
  type CascadedObject,
  type CollectionScope,
  FieldError,
  type Fields,
  type Kind,
  type KindContext,
  type Live,
  type Parent,
} from "../kinds/kind.js";
import { didYouMean } from "../manifest/diagnostics.js";
import type { DesiredCollection, DesiredNode, DesiredState, SourceRef } from "../manifest/model.js";
import {
  containsSecret,
  isSecret,
  maskSecrets,
  Secret,
  SecretValues,
  secretsFingerprint,
} from "../manifest/secret.js";
import {
  type Change,
  type FieldChange,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlanProblem,
  type RequestStats,
  summarize,
} from "../plan/model.js";
import { type ChangeScope, collectionPath, itemPath, touches, wholeUnder } from "./changes.js";
import { sameValue } from "./compare.js";
import type { KindRegistry } from "./registry.js";
import { expandSelectors } from "./select.js";
import { type Shard, shardUnits, unitOf } from "./shard.js";
import { checkTargetsSelected, inTargets } from "./targets.js";

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
  /** Addresses of managed objects that were compared and found equal. */
  inSync: string[];
  /** The values of the run's references, to mask in anything else shown about this plan (apply's failures). */
  secrets: SecretValues;
}

export interface PlanOptions {
  url: string;
  /** Limit to these group or project paths (and their subtrees); `instance` selects instance-level objects. */
  targets?: string[];
  /**
   * Addresses to replace even when nothing differs (`--replace`): how write-only values (a hook's token, secret
   * settings) are rotated. A singleton is updated with its write-only fields instead.
   */
  replace?: string[];
  /** Snapshot of the client's request counters, taken when reading is done. */
  requestStats: () => RequestStats;
  /**
   * Where apply saves a group's export archive before deleting it (absolute), and how the plan shows that folder;
   * undefined: no backup (`--no-backup`).
   */
  backup?: {
    dir: string;
    shown: string;
    /** The manifest root the default folder must stay inside (an explicit --backup-dir is the user's choice). */
    root?: string;
    /** Why the folder cannot be used (it leads outside the root through a symbolic link): a plan error on deletes. */
    problem?: string;
  };
  /** `--changed-since`: plan only what differs from the manifests at a base revision. */
  changes?: ChangeScope;
  /** The revision `changes` was computed against, for the plan to say. */
  changedSince?: string;
  /** `--shard K/N`: plan only this shard's top-level targets. */
  shard?: Shard;
  /** The salt of a saved plan's secrets fingerprint, so that this plan's fingerprint can be compared with it. */
  fingerprintSalt?: string;
}

type Specs = Map<string, FieldSpec>;

/**
 * Top-level groups and projects planned at once, per request in flight: a project reads its collections together
 * (four lists in the benchmark), then its schedules' details; four projects per connection keep each one busy.
 */
const WINDOW_PER_CONNECTION = 4;
const MASK = "(sensitive)";
const WRITE_ONLY = "(write-only)";
const INSTANCE: Parent = { address: "instance", collection: "instance", key: "instance", ref: "instance" };

/** A regular expression matching the values a masked label stands for (`https://h/?key=(sensitive)`). */
function labelPattern(label: string): RegExp {
  const parts = label.split(Secret.mask).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`);
}

class Planner {
  readonly problems: PlanProblem[] = [];
  readonly warnings: PlanProblem[] = [];
  readonly inSync: string[] = [];
  /**
   * Every live object compared or reported, as its address and the SHA-256 of its masked fields (JSON): what the
   * plan's live digest is made of, kept as a digest rather than as the objects (released once planned).
   */
  readonly liveSeen: [string, string][] = [];
  /** Projects found missing while reading their collections (reported once each). */
  private readonly missingProjects = new Set<string>();
  /** Where each declared object is, for problems found below it. */
  private readonly sources = new Map<string, SourceRef>();
  /** The action planned for each address, for dependency lookups. */
  private readonly actions = new Map<string, Change["action"]>();
  /** Addresses of objects the platform deletes along with another (a group's subgroups and projects). */
  readonly cascaded = new Map<string, string>();
  /** Where each desired node sits in the manifests (`projects["acme/api"].badges["coverage"]`), for --changed-since. */
  private readonly npaths = new WeakMap<DesiredNode, string>();
  /** Top-level groups and projects the manifests declare present, by lower-cased path. */
  private readonly declaredPresent = new Map<string, SourceRef>();
  /** Top-level groups and projects planned at once: four per request the client may have in flight. */
  private readonly window: number;

  constructor(
    private readonly ctx: KindContext,
    private readonly registry: KindRegistry,
    private readonly targets: string[],
    private readonly replace: Set<string>,
    private readonly backup: PlanOptions["backup"],
    root: DesiredNode,
    private readonly secrets: SecretValues,
    /** Groups and projects the manifests name by full path (the others in `root` are matched by patterns). */
    private readonly byPath: ReadonlySet<string>,
    private readonly changes?: ChangeScope,
    private readonly shardUnits?: Set<string>,
  ) {
    this.window = WINDOW_PER_CONNECTION * Math.max(1, ctx.api.concurrency || 8);
    for (const collection of ["groups", "projects"]) {
      for (const item of root.children[collection]?.items ?? []) {
        if (item.state !== "absent") this.declaredPresent.set(item.key.toLowerCase(), item.source);
      }
    }
  }

  /** Plans the deletion of a live object, listing its fields as they are. */
  private async pushDelete(
    out: Step[],
    p: {
      base: Omit<Change, "action" | "fields">;
      kind: Kind;
      specs: Specs;
      parent: Parent;
      self: Parent;
      key: string;
      live: Live;
      depth: number;
      deps: string[];
      /** The entry marked absent, whose secret values mask the live ones. */
      desired?: Fields;
    },
    reason: string,
  ): Promise<void> {
    const fields = await Promise.all(
      this.ownFields(p.specs, p.live.fields).map(async ([field, v]) => ({
        field,
        before: await this.shown(p.kind, p.specs, field, v, containsSecret(p.desired?.[field])),
      })),
    );
    // The archive's name is chosen now, where nothing is yet, and apply writes exactly there or fails.
    const backupFile =
      this.backup && p.kind.backup
        ? freeName(join(this.backup.dir, `${p.kind.segment}-${encodeURIComponent(p.key)}.tar.gz`), ".tar.gz")
        : undefined;
    if (backupFile && this.backup?.problem) this.problem(p.base.address, this.backup.problem, p.base.source);
    const step: Step = {
      change: {
        ...p.base,
        action: "delete",
        fields,
        reason,
        ...(backupFile && this.backup
          ? { backup: join(this.backup.shown, relative(this.backup.dir, backupFile)) }
          : {}),
      },
      kind: p.kind,
      parent: p.parent,
      self: p.self,
      key: p.key,
      live: p.live,
      changed: [],
      deps: p.deps,
      depth: p.depth,
      ...(backupFile ? { backupFile, ...(this.backup?.root ? { backupRoot: this.backup.root } : {}) } : {}),
    };
    this.push(out, step);
    const notes = [reason];
    if (step.change.backup && p.kind.backup)
      notes.push(
        `apply first saves its export archive to ${step.change.backup} (it holds ${p.kind.backup.holds}) and deletes nothing unless that archive checks out`,
      );
    if (p.kind.cascade) {
      const { taken, blocked } = await this.pushCascade(out, step);
      const all = [...taken, ...blocked];
      if (all.length > 0) {
        const count = (segment: string, word: string) => {
          const n = all.filter((t) => t.segment === segment).length;
          return n === 0 ? [] : [`${n} ${word}${n === 1 ? "" : "s"}`];
        };
        notes.push(
          `the platform deletes its ${[...count("group", "subgroup"), ...count("project", "project")].join(" and ")} with it (${
            blocked.length === 0
              ? "each listed as deleted"
              : `${blocked.length} of them ${blocked.length === 1 ? "is" : "are"} still in the manifests: see the errors`
          })`,
        );
      }
    }
    step.change.reason = notes.join("; ");
  }

  /**
   * Lists what the platform deletes along with a deleted object (a group's subgroups and projects): each is a
   * delete in the plan, counted and shown like any other, which apply does not send itself. A declared object
   * among them is a plan error: deleting the group would take it too.
   */
  private async pushCascade(
    out: Step[],
    owner: Step,
  ): Promise<{ taken: CascadedObject[]; blocked: CascadedObject[] }> {
    let objects: CascadedObject[];
    try {
      objects = await owner.kind.cascade!(this.ctx, owner.parent, owner.live!);
    } catch (error) {
      this.problem(
        owner.change.address,
        `cannot list what would be deleted with it: ${(error as Error).message}`,
        owner.change.source,
      );
      return { taken: [], blocked: [] };
    }
    const taken: CascadedObject[] = [];
    const blocked: CascadedObject[] = [];
    for (const o of objects) {
      const address = addressOf("", { segment: o.segment }, o.key);
      if (this.actions.has(address) || this.cascaded.has(address)) continue;
      const declaredAt = this.declaredPresent.get(o.key.toLowerCase());
      if (declaredAt) {
        blocked.push(o);
        const group = owner.change.key;
        this.problem(
          owner.change.address,
          this.byPath.has(o.key.toLowerCase())
            ? `${owner.change.address} is marked "state: absent", but ${o.segment} ${o.key} inside it is declared: the platform deletes a group's subgroups and projects with it. Remove ${o.key} from the manifests (or mark it absent too), or keep ${group}`
            : `${owner.change.address} is marked "state: absent", but ${o.segment} ${o.key} inside it is matched by a pattern of the manifests (at the place shown): the platform deletes a group's subgroups and projects with it. Leave the group out of that pattern with except: [${group}/**], or keep ${group}`,
          declaredAt,
        );
        continue;
      }
      this.cascaded.set(address, owner.change.address);
      taken.push(o);
      const kind = this.registry.kind("instance", o.collection) ?? owner.kind;
      const self: Parent = { address, collection: o.collection, key: o.key, ref: o.id };
      out.push({
        change: {
          address,
          collection: o.collection,
          key: o.key,
          action: "delete",
          ...(o.id !== undefined ? { liveId: o.id } : {}),
          fields: Object.entries(o.fields).map(([field, before]) => ({ field, before })),
          reason: `deleted with ${owner.change.address}: the platform deletes a group's subgroups and projects with it`,
          deletedWith: owner.change.address,
        },
        kind,
        parent: INSTANCE,
        self,
        key: o.key,
        live: { key: o.key, ...(o.id !== undefined ? { id: o.id } : {}), fields: o.fields },
        changed: [],
        deps: [],
        depth: owner.depth + 1,
      });
    }
    return { taken, blocked };
  }

  /** `--replace` addresses that matched no existing managed object. */
  pendingReplacements(): string[] {
    return [...this.replace];
  }

  private push(out: Step[], step: Step): void {
    out.push(step);
    this.actions.set(step.change.address, step.change.action);
  }

  private problem(address: string, message: string, source?: SourceRef): void {
    this.problems.push(source ? { address, message, source } : { address, message });
  }

  /**
   * A value as plans may show it: write-only values as `(write-only)`; sensitive fields, secrets, and the live side
   * of a field whose desired value is a secret (`secretDesired`) as `(sensitive)`.
   */
  private mask(specs: Specs, field: string, value: unknown, secretDesired = false): unknown {
    const spec = specs.get(field);
    if (value === undefined) return undefined;
    if (spec?.writeOnly) return WRITE_ONLY;
    if (spec?.sensitive || isSecret(value) || secretDesired)
      return value === null || value === "" ? value : MASK;
    return maskSecrets(value);
  }

  /** A value as the plan shows it: in the manifest's terms where the kind says how, then masked. */
  private async shown(
    kind: Kind,
    specs: Specs,
    field: string,
    value: unknown,
    secretDesired = false,
  ): Promise<unknown> {
    if (!kind.display || value === undefined) return this.mask(specs, field, value, secretDesired);
    return this.mask(specs, field, await kind.display(this.ctx, field, value), secretDesired);
  }

  /** The fields that describe the object itself: not child collections, not manifest-only instructions. */
  private ownFields(specs: Specs, fields: Fields): [string, unknown][] {
    return Object.entries(fields).filter(([name]) => !specs.get(name)?.child && !specs.get(name)?.local);
  }

  private fieldNote(specs: Specs, field: string): string | undefined {
    const spec = specs.get(field);
    if (spec?.restart) return "takes effect after the platform is restarted";
    return undefined;
  }

  async walkNode(
    node: DesiredNode,
    self: Parent,
    exists: boolean,
    depth: number,
    out: Step[],
  ): Promise<void> {
    const instanceSelected =
      (this.targets.length === 0 || this.targets.includes("instance")) &&
      (!this.shardUnits || this.shardUnits.has("instance"));
    const entries = Object.entries(node.children).filter(
      ([collection]) => depth > 0 || collection === "groups" || collection === "projects" || instanceSelected,
    );
    // Groups first (projects and their collections may depend on groups created in this plan), then the other
    // collections together; each collection's steps are kept together, in the manifest's order.
    const npath = this.npaths.get(node) ?? "";
    const groups = entries.find(([c]) => c === "groups");
    if (groups) await this.walkCollection(groups[0], groups[1], self, exists, depth, out, npath);
    const rest = entries.filter(([c]) => c !== "groups");
    const perCollection = await Promise.all(
      rest.map(async ([c, coll]) => {
        const mine: Step[] = [];
        await this.walkCollection(c, coll, self, exists, depth, mine, npath);
        return mine;
      }),
    );
    for (const steps of perCollection) for (const step of steps) out.push(step);
  }

  async walkCollection(
    collection: string,
    coll: DesiredCollection,
    parent: Parent,
    parentExists: boolean,
    depth: number,
    out: Step[],
    npath = "",
  ): Promise<void> {
    const topLevel = collection === "groups" || collection === "projects";
    const parentAddress = topLevel ? "" : parent.address;
    const targeted = topLevel
      ? coll.items.filter(
          (item) =>
            inTargets(item.key, this.targets) && (!this.shardUnits || this.shardUnits.has(unitOf(item.key))),
        )
      : coll.items;
    // With --changed-since, only what changed (and what leads to it) is read and compared.
    const cpath = collectionPath(npath, collection);
    const changes = this.changes;
    // Paths are needed (and kept) only to look changes up: without --changed-since, every item is compared.
    if (changes) for (const item of targeted) this.npaths.set(item, itemPath(cpath, item));
    const inWhole = !changes || wholeUnder(changes, npath);
    const fullRead = inWhole || changes.collections.has(cpath);
    const items = inWhole ? targeted : targeted.filter((i) => touches(changes, this.npaths.get(i)!));
    if (!fullRead && items.length === 0) return;
    const compared = (item: DesiredNode) => {
      const at = this.npaths.get(item)!;
      return inWhole || changes.nodes.has(at) || wholeUnder(changes, at);
    };
    const licensedOnly = this.registry
      .fields(parent.parent?.collection ?? "", parent.collection)
      .get(collection)?.licensed;
    if (licensedOnly && this.ctx.edition === "core" && coll.items.length > 0) {
      this.problem(
        parentAddress ? `${parentAddress}.${collection}` : collection,
        `${collection} exist only on the licensed edition, and this platform is the core edition: remove them from the manifest`,
        coll.items[0]?.source,
      );
      return;
    }
    const kind = this.registry.kind(parent.collection, collection);
    const specs = this.registry.fields(parent.collection, collection);
    if (!kind) {
      for (const item of items) {
        this.problem(
          addressOf(parentAddress, { segment: collection }, item.label ?? item.key),
          `"${collection}" is not managed by this version of forgeform`,
          item.source,
        );
      }
      return;
    }

    const keyOf = (item: DesiredNode) => (kind.identity ? kind.identity(item.fields) : item.key);
    // How each object is shown: a kind's own identity (a fingerprint) is made to be shown; a manifest identity
    // with a secret in it is shown masked.
    const labelOf = (item: DesiredNode) => (kind.identity ? keyOf(item) : (item.label ?? item.key));
    let lives: Live[] = [];
    if (parentExists) {
      try {
        // A kind that reads only the wanted objects (groups) also reads the undeclared ones below them only.
        lives = await kind.read(this.ctx, parent, items.map(keyOf), {
          undeclared: coll.policy !== "ignore" && fullRead,
          ...(items.some((i) => i.fromPattern)
            ? { reportBelow: items.filter((i) => !i.fromPattern).map(keyOf) }
            : {}),
        });
      } catch (error) {
        if (
          parent.collection === "projects" &&
          error instanceof ApiError &&
          error.status === 404 &&
          /Project Not Found/i.test(error.platformMessage)
        ) {
          // Projects are addressed by path without a lookup of their own: this is where a missing one shows.
          if (!this.missingProjects.has(parent.address)) {
            this.missingProjects.add(parent.address);
            const hint = await missingProjectHint(this.ctx, parent.key);
            this.problem(
              parent.address,
              `project ${JSON.stringify(parent.key)} does not exist or is not visible to this token's user, and forgeform does not create projects: create it first, or check the path${hint}`,
              this.sources.get(parent.address),
            );
          }
          return;
        }
        this.problem(
          parentAddress ? `${parentAddress}.${collection}` : collection,
          `could not read ${collection}: ${(error as Error).message}`,
        );
        return;
      }
    }
    const liveByKey = new Map(lives.map((l) => [l.key, l]));
    const scope: CollectionScope = {
      declared: new Set(coll.items.map(keyOf)),
      planned: new Map(items.filter((i) => i.state !== "absent").map((i) => [keyOf(i), i.fields])),
    };
    // Live objects whose identity has the shape of a declared one with a secret in it are shown masked too (an
    // old key in a hook URL): their address, and the fields that are secret in that declaration.
    const shapes = items
      .filter((i) => !kind.identity && i.label !== undefined)
      .map((i) => ({ item: i, pattern: labelPattern(i.label!) }));
    const shapeOf = (live: Live) => shapes.find((s) => s.pattern.test(live.key))?.item;
    // An undeclared live object is shown as it is (live data, not a secret), unless its identity has the shape of
    // a declared one with a secret in it (an old value) or holds a value of this run's references: then it is
    // masked, and so is its id when the id is a name (a protected environment's, a wiki page's slug). Masked ids
    // are told apart by number.
    const taken = new Set(items.map(labelOf));
    const shownLive = new Map<Live, { label: string; id?: string | number }>();
    for (const live of lives) {
      if (scope.declared.has(live.key) || live.readOnly) continue;
      const like = shapeOf(live);
      const masked = like
        ? like.label!
        : this.secrets.contains(live.key)
          ? this.secrets.text(live.key)
          : undefined;
      let shown: { label: string; id?: string | number };
      if (masked === undefined) {
        shown = { label: live.key, ...(live.id !== undefined ? { id: this.secrets.value(live.id) } : {}) };
      } else if (typeof live.id === "number") {
        shown = { label: `${masked} (id ${live.id})`, id: live.id };
      } else {
        let n = 1;
        while (taken.has(`${masked} (#${n})`)) n++;
        shown = { label: `${masked} (#${n})` };
      }
      // Masked in the plan, so masked in the requests --debug shows too (a delete's path holds the name).
      if (masked !== undefined)
        this.ctx.api.conceal([live.key, ...(typeof live.id === "string" ? [live.id] : [])]);
      taken.add(shown.label);
      shownLive.set(live, shown);
    }
    const liveLabel = (live: Live) => shownLive.get(live)?.label ?? live.key;
    // Parents before children: sort top-level paths by depth.
    const ordered = topLevel
      ? [...items].sort((a, b) => a.key.split("/").length - b.key.split("/").length)
      : items;

    // Items are planned concurrently (their reads go through the client's concurrency limit); their steps are
    // kept in the manifest's order. Top-level groups and projects are planned a window at a time: enough of them
    // to keep every connection busy, few enough that a project's dependent reads (a schedule's detail after the
    // list) follow its lists at once, and that what a project holds while planned is released before the
    // thousandth starts. Their children are planned together, as before.
    const planOne = async (item: DesiredNode): Promise<Step[]> => {
      const key = keyOf(item);
      const label = labelOf(item);
      const address = addressOf(parentAddress, kind, label);
      const live = liveByKey.get(key);
      if (live) this.seen(address, this.maskedFields(specs, live.fields, item.fields));
      const mine: Step[] = [];
      await this.planItem(
        kind,
        item,
        { key, label, address },
        parentAddress,
        parent,
        live,
        parentExists,
        depth,
        scope,
        mine,
        compared(item),
      );
      return mine;
    };
    const window = topLevel ? pLimit(this.window) : undefined;
    const perItem = await Promise.all(
      ordered.map((item) => (window ? window(() => planOne(item)) : planOne(item))),
    );
    for (const steps of perItem) for (const step of steps) out.push(step);

    if (coll.policy === "ignore" || !fullRead) return;
    for (const live of lives) {
      if (scope.declared.has(live.key) || live.readOnly) continue;
      const address = addressOf(parentAddress, kind, liveLabel(live));
      // A subgroup of a group being deleted goes with it: it is listed as such, not as unmanaged.
      if (this.cascaded.has(address)) continue;
      const like = shapeOf(live)?.fields;
      this.seen(address, this.maskedFields(specs, live.fields, like));
      const self: Parent = { address, collection, key: live.key, ref: live.id, live, parent };
      const base = {
        address,
        collection,
        key: liveLabel(live),
        ...(shownLive.get(live)?.id !== undefined ? { liveId: shownLive.get(live)!.id! } : {}),
        ...(parentAddress ? { parent: parentAddress } : {}),
      };
      if (coll.policy === "delete" && !kind.explicitDeleteOnly && kind.remove) {
        const refusals = (await kind.checkDelete?.(this.ctx, parent, live, undefined)) ?? [];
        for (const p of refusals) this.problem(address, p.message);
        if (refusals.length > 0) continue;
        await this.pushDelete(
          out,
          {
            base,
            kind,
            specs,
            parent,
            self,
            key: live.key,
            live,
            depth,
            deps: [],
            ...(like ? { desired: like } : {}),
          },
          `not in the manifests, and the ${collection} prune policy is delete`,
        );
      } else {
        this.push(out, {
          change: {
            ...base,
            action: "unmanaged",
            fields: [],
            reason:
              coll.policy === "delete"
                ? `not in the manifests; ${collection} are deleted only when marked "state: absent"`
                : kind.explicitDeleteOnly
                  ? `not in the manifests (prune policy warn: left alone; ${collection} are deleted only when declared with "state: absent", and unmanaged.${collection}: ignore stops this report)`
                  : `not in the manifests (prune policy warn: left alone; set unmanaged.${collection} to delete or ignore)`,
          },
          kind,
          parent,
          self,
          key: live.key,
          live,
          changed: [],
          deps: [],
          depth,
        });
      }
    }
  }

  private seen(address: string, masked: Record<string, unknown>): void {
    this.liveSeen.push([address, createHash("sha256").update(JSON.stringify(masked)).digest("base64")]);
  }

  /** Live fields as the plan's digest sees them: masked where the field, or the value the manifest wants, is secret. */
  private maskedFields(specs: Specs, fields: Fields, desired?: Fields): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(fields).map(([k, v]) => [k, this.mask(specs, k, v, containsSecret(desired?.[k]))]),
    );
  }

  private async planItem(
    kind: Kind,
    item: DesiredNode,
    { key, label, address }: { key: string; label: string; address: string },
    parentAddress: string,
    parent: Parent,
    live: Live | undefined,
    parentExists: boolean,
    depth: number,
    scope: CollectionScope,
    out: Step[],
    compare = true,
  ): Promise<void> {
    const specs = this.registry.fields(parent.collection, kind.collection);
    // Kept for groups and projects only: problems found reading their collections point at them.
    if (depth === 0) this.sources.set(address, item.source);
    if (item.state !== "absent" && item.needs && item.needs.length > 0) {
      // The entry left these to a pattern entry that did not apply to this object (except:, archived, not matched).
      this.problem(
        address,
        `missing required ${item.needs.length === 1 ? "key" : "keys"} ${item.needs.map((k) => `"${k}"`).join(", ")}: this entry leaves ${item.needs.length === 1 ? "it" : "them"} to a pattern entry declaring the same item, and none applies to ${parent.key}: declare ${item.needs.length === 1 ? "it" : "them"} here`,
        item.source,
      );
      return;
    }
    const self: Parent = { address, collection: kind.collection, key, ref: live?.id, live, parent };
    if (!compare && item.state !== "absent") {
      if (live) {
        // Unchanged, but something below it changed: read for its id, not compared.
        await this.walkNode(item, self, true, depth + 1, out);
        return;
      }
      // Missing on the platform: it is planned as declared, with everything below it.
      this.changes?.whole.add(this.npaths.get(item) ?? "");
    } else if (!compare) return;
    const deps: string[] = [];
    const parentAction = this.actions.get(parent.address);
    if (parentAction === "create" || parentAction === "replace") deps.push(parent.address);
    const base = {
      address,
      collection: kind.collection,
      key: label,
      source: item.source,
      ...(parentAddress !== "" && parentAddress !== "instance" ? { parent: parentAddress } : {}),
      // An id that is a name holds the identity: with a secret in it, it is not shown.
      ...(live?.id !== undefined && (typeof live.id === "number" || label === key)
        ? { liveId: live.id }
        : {}),
    };

    if (item.state === "absent") {
      if (!live) return;
      if (live.readOnly) {
        this.problem(address, `cannot delete: ${live.readOnly}`, item.source);
        return;
      }
      if (!kind.remove) {
        this.problem(address, `${kind.collection} cannot be deleted through the API`, item.source);
        return;
      }
      const refusals = (await kind.checkDelete?.(this.ctx, parent, live, item.fields)) ?? [];
      for (const p of refusals) this.problem(address, p.message, item.source);
      if (refusals.length > 0) return;
      await this.pushDelete(
        out,
        { base, kind, specs, parent, self, key, live, depth, deps, desired: item.fields },
        'marked "state: absent" in the manifest',
      );
      return;
    }

    let desired: Fields;
    try {
      desired = kind.prepare ? await kind.prepare(this.ctx, parent, item.fields) : item.fields;
    } catch (error) {
      if (error instanceof FieldError) {
        this.problem(
          `${address}.${error.field}`,
          error.message,
          item.fieldSources[error.field] ?? item.source,
        );
      } else {
        this.problem(address, (error as Error).message, item.source);
      }
      return;
    }
    for (const [field] of this.ownFields(specs, desired)) {
      const spec = specs.get(field);
      if (spec?.deprecatedBy) {
        this.warnings.push({
          address: `${address}.${field}`,
          message: `${field} is deprecated: use ${spec.deprecatedBy}`,
          source: item.fieldSources[field] ?? item.source,
        });
      }
      if (spec?.licensed && this.ctx.edition === "core") {
        this.problem(
          `${address}.${field}`,
          `${field} exists only on the licensed edition, and this platform is the core edition: remove it from the manifest`,
          item.fieldSources[field] ?? item.source,
        );
        delete desired[field];
      }
    }
    const kindProblem = (p: { field?: string; message: string }) =>
      this.problem(
        p.field ? `${address}.${p.field}` : address,
        p.message,
        (p.field && item.fieldSources[p.field]) || item.source,
      );
    for (const p of kind.check?.(this.ctx, parent, desired, live) ?? []) kindProblem(p);
    if (kind.dependsOn) deps.push(...kind.dependsOn(parent, key, desired, live));
    const before = kind.before?.(parent, key, desired, live) ?? [];

    if (live?.readOnly) {
      this.problem(address, `cannot manage this object here: ${live.readOnly}`, item.source);
      return;
    }
    if (!live && kind.singleton && !parentExists) {
      // Settings of an object this plan creates: applied right after the create, as an update of the defaults.
      await this.pushUpdate(out, {
        base: { ...base, reason: `applied right after ${parent.address} is created` },
        kind,
        specs,
        parent,
        self,
        key,
        desired,
        live: { key, id: key, fields: {} },
        deps,
        before,
        depth,
        forced: false,
      });
      return;
    }
    if (!live) {
      const refusals = (await kind.checkCreate?.(this.ctx, parent, key, desired, scope)) ?? [];
      for (const p of refusals) kindProblem(p);
      if (!kind.create) {
        if (refusals.length === 0) {
          this.problem(
            address,
            kind.collection === "projects"
              ? `project ${JSON.stringify(key)} does not exist, and forgeform does not create projects: create it first`
              : `${kind.singleton ? kind.segment : `${kind.segment} ${JSON.stringify(base.key)}`} does not exist on ${parent.address}, and forgeform cannot create it: set it up on the platform first`,
            item.source,
          );
        }
        return;
      }
      const createReason = await kind.createReason?.(this.ctx, parent, desired, key);
      this.push(out, {
        change: {
          ...base,
          action: "create",
          ...(createReason ? { reason: createReason } : {}),
          fields: await Promise.all(
            this.ownFields(specs, desired).map(async ([field, v]) => ({
              field,
              after: await this.shown(kind, specs, field, v),
              ...(specs.get(field)?.sensitive || containsSecret(v) ? { sensitive: true } : {}),
              ...(specs.get(field)?.writeOnly ? { writeOnly: true } : {}),
            })),
          ),
        },
        kind,
        parent,
        self,
        key,
        desired,
        changed: this.ownFields(specs, desired).map(([f]) => f),
        deps,
        depth,
        ...(before.length > 0 ? { before } : {}),
      });
      await this.walkNode(item, self, false, depth + 1, out);
      return;
    }

    const forced = this.replace.has(address);
    if (forced) this.replace.delete(address);
    const planned = await this.pushUpdate(out, {
      base,
      kind,
      specs,
      parent,
      self,
      key,
      desired,
      live,
      deps,
      before,
      depth,
      forced,
      item,
      scope,
    });
    if (!planned && !forced) this.inSync.push(address);
    await this.walkNode(item, self, true, depth + 1, out);
  }

  /** Compares an existing object with its desired fields and plans the update or replacement; false when equal. */
  private async pushUpdate(
    out: Step[],
    p: {
      base: Omit<Change, "action" | "fields">;
      kind: Kind;
      specs: Specs;
      parent: Parent;
      self: Parent;
      key: string;
      desired: Fields;
      live: Live;
      deps: string[];
      before: string[];
      depth: number;
      forced: boolean;
      item?: DesiredNode;
      scope?: CollectionScope;
    },
  ): Promise<boolean> {
    const { kind, specs, desired, live, forced, base } = p;
    const address = base.address;
    const fieldChanges: FieldChange[] = [];
    for (const [field, value] of this.ownFields(specs, desired)) {
      const spec = specs.get(field);
      if (spec?.writeOnly) continue;
      const options = { set: spec?.set ?? false, ...(spec?.normalize ? { normalize: spec.normalize } : {}) };
      if (sameValue(value, live.fields[field], options)) continue;
      const note = this.fieldNote(specs, field);
      const secret = containsSecret(value);
      fieldChanges.push({
        field,
        before: await this.shown(kind, specs, field, live.fields[field], secret),
        after: await this.shown(kind, specs, field, value),
        ...(spec?.sensitive || secret ? { sensitive: true } : {}),
        ...(spec?.replace ? { forcesReplacement: true } : {}),
        ...(note ? { note } : {}),
      });
    }
    const writeOnlyChanges = () =>
      this.ownFields(specs, desired)
        .filter(([field]) => specs.get(field)?.writeOnly && !fieldChanges.some((f) => f.field === field))
        .map(([field, value]) => ({
          field,
          after: this.mask(specs, field, value),
          writeOnly: true,
          sensitive: true,
        }));
    const updatable = kind.singleton || !kind.remove || !kind.create;
    if (forced && updatable) fieldChanges.push(...writeOnlyChanges());
    if (fieldChanges.length === 0 && !forced) return false;
    if (fieldChanges.length === 0 && updatable) {
      this.problem(address, "--replace: nothing to send (no write-only fields are declared)", base.source);
      return false;
    }
    const replaceByRequest = forced && !updatable;
    const replace =
      replaceByRequest || kind.updateMode === "replace" || fieldChanges.some((f) => f.forcesReplacement);
    if (replaceByRequest) fieldChanges.push(...writeOnlyChanges());
    const changed = fieldChanges.map((f) => f.field);
    if (!replace && kind.checkUpdate && p.scope) {
      const problems = await kind.checkUpdate(this.ctx, p.parent, live, desired, changed, p.scope);
      for (const problem of problems) {
        this.problem(
          problem.field ? `${address}.${problem.field}` : address,
          problem.message,
          (problem.field && p.item?.fieldSources[problem.field]) || base.source,
        );
      }
    }
    this.push(out, {
      change: {
        ...base,
        action: replace ? "replace" : "update",
        fields: fieldChanges,
        ...(replace
          ? {
              reason: replaceByRequest
                ? "replacement requested with --replace"
                : (kind.replaceReason ?? "a changed field cannot be updated in place"),
            }
          : {}),
      },
      kind,
      parent: p.parent,
      self: p.self,
      key: p.key,
      desired,
      live,
      changed,
      deps: p.deps,
      depth: p.depth,
      ...(p.before.length > 0 ? { before: p.before } : {}),
    });
    return true;
  }
}

/** Orders steps for apply and display: creates/updates/replaces in walk order, then deletes deepest first. */
function order(steps: Step[]): Step[] {
  const forward = steps.filter((s) => s.change.action !== "delete" && s.change.action !== "unmanaged");
  const deletes = steps
    .map((s, i) => [s, i] as const)
    .filter(([s]) => s.change.action === "delete")
    .sort(([a, ai], [b, bi]) => b.depth - a.depth || bi - ai)
    .map(([s]) => s);
  const unmanaged = steps.filter((s) => s.change.action === "unmanaged");
  return [...forward, ...deletes, ...unmanaged];
}

/** Problems in a stable order (reads finish in any order): by file, line and column, then address. */
function byPlace(problems: PlanProblem[]): PlanProblem[] {
  const key = (p: PlanProblem) =>
    [
      p.source?.file ?? "\uffff",
      String(p.source?.line ?? 0).padStart(8, "0"),
      String(p.source?.col ?? 0).padStart(6, "0"),
      p.address,
    ].join("\u0000");
  return [...problems].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * For a declared project the platform does not know: the closest path among its group's projects (a typo in its
 * name), or that the group is unknown too, with the closest of its parent's subgroups (a typo above it). One
 * listing per group, read only on this error.
 */
async function missingProjectHint(ctx: KindContext, path: string): Promise<string> {
  const slash = path.lastIndexOf("/");
  if (slash < 0) return "";
  const group = path.slice(0, slash);
  const key = `missing-project:${group.toLowerCase()}`;
  let listing = ctx.memo.get(key) as Promise<string[] | undefined> | undefined;
  if (!listing) {
    listing = ctx.api
      .list<{ path_with_namespace: string }>(apiPath`/groups/${group}/projects`, {
        query: { simple: true, with_shared: false },
        shape: { path_with_namespace: "string" },
      })
      .then(
        (projects) => projects.map((p) => p.path_with_namespace),
        // Any other failure gives no hint: the missing project is reported all the same.
        (error: unknown) => (error instanceof ApiError && error.status === 404 ? undefined : []),
      );
    ctx.memo.set(key, listing);
  }
  const paths = await listing;
  if (paths === undefined) {
    const above = group.lastIndexOf("/");
    const siblings =
      above < 0 ? [] : ((await listSubgroups(ctx, group.slice(0, above)).catch(() => [])) ?? []);
    const nearGroup = didYouMean(
      group,
      siblings.map((g) => g.full_path),
    );
    return `; ${JSON.stringify(group)} is not a group this token's user can see either${nearGroup ? `: did you mean group ${JSON.stringify(nearGroup)}?` : ""}`;
  }
  const near = didYouMean(path, paths);
  return near ? `; did you mean ${JSON.stringify(near)}?` : "";
}

/**
 * The digest of the live objects a plan saw: the SHA-256 of each object's address and the SHA-256 of its masked
 * fields, in address order (see Planner.liveSeen).
 */
export function digestLive(entries: [string, string][]): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash("sha256");
  for (const [address, fields] of sorted) hash.update(address).update("\u0000").update(fields).update("\n");
  return hash.digest("hex");
}

function withFingerprint(fingerprint: string | undefined): { secretsFingerprint?: string } {
  return fingerprint === undefined ? {} : { secretsFingerprint: fingerprint };
}

/** Reads live state for everything the desired state declares or watches, and plans the changes. */
export async function makePlan(
  desired: DesiredState,
  ctx: KindContext,
  registry: KindRegistry,
  options: PlanOptions,
): Promise<PlanResult> {
  const expanded = await expandSelectors(desired, ctx, options.targets ?? [], options.changes);
  const secrets = SecretValues.of(expanded.state);
  // A target below a pattern's root selects what the platform holds there: it must select something.
  const top = ["groups", "projects"].flatMap((c) => expanded.state.root.children[c]?.items ?? []);
  checkTargetsSelected(
    options.targets ?? [],
    top.map((i) => i.key),
    expanded.listed,
    expanded.unknowable,
  );
  const units = options.shard ? shardUnits(expanded.state.root, options.shard) : undefined;
  const planner = new Planner(
    ctx,
    registry,
    options.targets ?? [],
    new Set(options.replace ?? []),
    options.backup,
    expanded.state.root,
    secrets,
    new Set(
      ["groups", "projects"].flatMap((c) =>
        (desired.root.children[c]?.items ?? []).map((i) => i.key.toLowerCase()),
      ),
    ),
    options.changes,
    units,
  );
  planner.warnings.push(...expanded.warnings);
  const walked: Step[] = [];
  await planner.walkNode(expanded.state.root, INSTANCE, true, 0, walked);
  for (const address of planner.pendingReplacements()) {
    planner.problems.push({ address, message: "--replace: no such managed object in the plan's scope" });
  }
  const steps = order(walked);
  const byAddress = new Map(steps.map((s) => [s.change.address, s]));
  // A group or project is one path in any case: a dependency named in another case than its declaration (the
  // parent `ACME` of `acme/sub`) is that step.
  const topLevel = /^(group|project)\["[^"]*"\]$/;
  const byPath = new Map(
    steps.filter((s) => topLevel.test(s.change.address)).map((s) => [s.change.address.toLowerCase(), s]),
  );
  const stepAt = (address: string) =>
    byAddress.get(address) ?? (topLevel.test(address) ? byPath.get(address.toLowerCase()) : undefined);
  for (const step of steps) {
    for (const later of step.before ?? []) {
      const waiting = stepAt(later);
      if (waiting && !waiting.deps.includes(step.change.address)) waiting.deps.push(step.change.address);
    }
  }
  for (const step of steps) {
    step.deps = step.deps.flatMap((d) => {
      const found = stepAt(d);
      return found ? [found.change.address] : [];
    });
  }
  // Whatever a plan shows (live values, ids, the platform's messages) never holds a value of the run's references.
  for (const step of steps) {
    step.change = secrets.value(step.change);
    step.deps = step.deps.map((d) => secrets.text(d));
  }
  const changes = steps.map((s) => s.change);
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    url: options.url,
    manifests: desired.files,
    targets: options.targets ?? [],
    ...((options.replace ?? []).length > 0 ? { replace: [...(options.replace ?? [])] } : {}),
    ...(options.changedSince !== undefined ? { changedSince: options.changedSince } : {}),
    ...(options.shard && units ? { shard: { ...options.shard, units: [...units].sort() } } : {}),
    changes,
    errors: secrets.value(byPlace(planner.problems)),
    warnings: secrets.value(byPlace(planner.warnings)),
    summary: summarize(changes),
    requests: options.requestStats(),
    liveDigest: digestLive(planner.liveSeen),
    ...(desired.digests ? { manifestDigests: desired.digests } : {}),
    ...withFingerprint(secretsFingerprint(desired.root, options.fingerprintSalt)),
    ...(expanded.summaries.length > 0 ? { selectors: expanded.summaries } : {}),
  };
  return { plan, steps, inSync: planner.inSync.map((a) => secrets.text(a)).sort(), secrets };
}
