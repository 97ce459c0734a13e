/**
 * Planning: walks the desired graph, reads the live objects of each declared (or watched) collection through its
 * kind, matches them by identity, diffs the fields the manifest sets, and produces an ordered Plan plus the
 * internal steps apply needs (which hold the desired values, secrets included, and never leave the process).
 */
import { createHash } from "node:crypto";
import { ApiError } from "../api/index.js";
import type { FieldSpec } from "../kinds/fields.js";
import {
  addressOf,
  FieldError,
  type Fields,
  type Kind,
  type KindContext,
  type Live,
  type Parent,
} from "../kinds/kind.js";
import type { DesiredCollection, DesiredNode, DesiredState, SourceRef } from "../manifest/model.js";
import { isSecret, maskSecrets } from "../manifest/secret.js";
import {
  type Change,
  type FieldChange,
  PLAN_FORMAT_VERSION,
  type Plan,
  type PlanProblem,
  type RequestStats,
  summarize,
} from "../plan/model.js";
import { sameValue } from "./compare.js";
import type { KindRegistry } from "./registry.js";

/** One change with everything apply needs. Never serialised: `desired` may hold secrets. */
export interface Step {
  change: Change;
  kind: Kind;
  parent: Parent;
  /** This object as the parent of its children; apply fills `ref` when it creates the object. */
  self: Parent;
  desired?: Fields;
  live?: Live;
  changed: string[];
  /** Addresses of steps that must succeed first. */
  deps: string[];
  /** Nesting depth (0 for groups, projects and instance objects), to delete children before parents. */
  depth: number;
}

export interface PlanResult {
  plan: Plan;
  steps: Step[];
  /** Addresses of managed objects that were compared and found equal. */
  inSync: string[];
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
}

type Specs = Map<string, FieldSpec>;

const MASK = "(sensitive)";
const WRITE_ONLY = "(write-only)";
const INSTANCE: Parent = { address: "instance", collection: "instance", key: "instance", ref: "instance" };

/** A group or project path is in scope when it is a target, below one, or an ancestor needed to reach one. */
function inTargets(key: string, targets: string[]): boolean {
  if (targets.length === 0) return true;
  return targets.some((t) => key === t || key.startsWith(`${t}/`) || t.startsWith(`${key}/`));
}

class Planner {
  readonly problems: PlanProblem[] = [];
  readonly warnings: PlanProblem[] = [];
  readonly inSync: string[] = [];
  readonly liveSeen: [string, unknown][] = [];
  /** Projects found missing while reading their collections (reported once each). */
  private readonly missingProjects = new Set<string>();
  /** Where each declared object is, for problems found below it. */
  private readonly sources = new Map<string, SourceRef>();
  /** The action planned for each address, for dependency lookups. */
  private readonly actions = new Map<string, Change["action"]>();

  constructor(
    private readonly ctx: KindContext,
    private readonly registry: KindRegistry,
    private readonly targets: string[],
    private readonly replace: Set<string>,
  ) {}

  /** Plans the deletion of a live object, listing its fields as they are. */
  private async pushDelete(
    out: Step[],
    p: {
      base: Omit<Change, "action" | "fields">;
      kind: Kind;
      specs: Specs;
      parent: Parent;
      self: Parent;
      live: Live;
      depth: number;
      deps: string[];
    },
    reason: string,
  ): Promise<void> {
    const fields = await Promise.all(
      this.ownFields(p.specs, p.live.fields).map(async ([field, v]) => ({
        field,
        before: await this.shown(p.kind, p.specs, field, v),
      })),
    );
    this.push(out, {
      change: {
        ...p.base,
        action: "delete",
        fields,
        reason,
      },
      kind: p.kind,
      parent: p.parent,
      self: p.self,
      live: p.live,
      changed: [],
      deps: p.deps,
      depth: p.depth,
    });
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

  private mask(specs: Specs, field: string, value: unknown): unknown {
    const spec = specs.get(field);
    if (value === undefined) return undefined;
    if (spec?.writeOnly) return WRITE_ONLY;
    if (spec?.sensitive || isSecret(value)) return value === null || value === "" ? value : MASK;
    return maskSecrets(value);
  }

  /** A value as the plan shows it: in the manifest's terms where the kind says how, then masked. */
  private async shown(kind: Kind, specs: Specs, field: string, value: unknown): Promise<unknown> {
    if (!kind.display || value === undefined) return this.mask(specs, field, value);
    return this.mask(specs, field, await kind.display(this.ctx, field, value));
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
    const instanceSelected = this.targets.length === 0 || this.targets.includes("instance");
    const entries = Object.entries(node.children).filter(
      ([collection]) => depth > 0 || collection === "groups" || collection === "projects" || instanceSelected,
    );
    // Groups first (projects and their collections may depend on groups created in this plan), then the other
    // collections together; each collection's steps are kept together, in the manifest's order.
    const groups = entries.find(([c]) => c === "groups");
    if (groups) await this.walkCollection(groups[0], groups[1], self, exists, depth, out);
    const rest = entries.filter(([c]) => c !== "groups");
    const perCollection = await Promise.all(
      rest.map(async ([c, coll]) => {
        const mine: Step[] = [];
        await this.walkCollection(c, coll, self, exists, depth, mine);
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
  ): Promise<void> {
    const topLevel = collection === "groups" || collection === "projects";
    const parentAddress = topLevel ? "" : parent.address;
    const items = topLevel ? coll.items.filter((item) => inTargets(item.key, this.targets)) : coll.items;
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
          addressOf(parentAddress, { segment: collection }, item.key),
          `"${collection}" is not managed by this version of forgeform`,
          item.source,
        );
      }
      return;
    }

    let lives: Live[] = [];
    if (parentExists) {
      try {
        lives = await kind.read(
          this.ctx,
          parent,
          items.map((i) => i.key),
          { undeclared: coll.policy !== "ignore" && items.length === coll.items.length },
        );
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
            this.problem(
              parent.address,
              `project ${JSON.stringify(parent.key)} does not exist or is not visible to this token's user, and forgeform does not create projects: create it first, or check the path`,
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
    const declaredKeys: ReadonlySet<string> = new Set(
      coll.items.map((i) => (kind.identity ? kind.identity(i.fields) : i.key)),
    );
    // Parents before children: sort top-level paths by depth.
    const ordered = topLevel
      ? [...items].sort((a, b) => a.key.split("/").length - b.key.split("/").length)
      : items;

    // Items are planned concurrently (their reads go through the client's concurrency limit); their steps are
    // kept in the manifest's order.
    const perItem = await Promise.all(
      ordered.map(async (item) => {
        const key = kind.identity ? kind.identity(item.fields) : item.key;
        const address = addressOf(parentAddress, kind, key);
        const live = liveByKey.get(key);
        if (live) this.liveSeen.push([address, this.maskedFields(specs, live.fields)]);
        const mine: Step[] = [];
        await this.planItem(kind, item, key, address, parentAddress, parent, live, depth, declaredKeys, mine);
        return mine;
      }),
    );
    for (const steps of perItem) for (const step of steps) out.push(step);

    if (coll.policy === "ignore" || items.length !== coll.items.length) return;
    for (const live of lives) {
      if (declaredKeys.has(live.key) || live.readOnly) continue;
      const address = addressOf(parentAddress, kind, live.key);
      this.liveSeen.push([address, this.maskedFields(specs, live.fields)]);
      const self: Parent = { address, collection, key: live.key, ref: live.id, live, parent };
      const base = {
        address,
        collection,
        key: live.key,
        liveId: live.id,
        ...(parentAddress ? { parent: parentAddress } : {}),
      };
      if (coll.policy === "delete" && !kind.explicitDeleteOnly && kind.remove) {
        const refusals = (await kind.checkDelete?.(this.ctx, parent, live, undefined)) ?? [];
        for (const p of refusals) this.problem(address, p.message);
        if (refusals.length > 0) continue;
        await this.pushDelete(
          out,
          { base, kind, specs, parent, self, live, depth, deps: [] },
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
                : `not in the manifests (prune policy warn: left alone; set unmanaged.${collection} to delete or ignore)`,
          },
          kind,
          parent,
          self,
          live,
          changed: [],
          deps: [],
          depth,
        });
      }
    }
  }

  private maskedFields(specs: Specs, fields: Fields): Record<string, unknown> {
    return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, this.mask(specs, k, v)]));
  }

  private async planItem(
    kind: Kind,
    item: DesiredNode,
    key: string,
    address: string,
    parentAddress: string,
    parent: Parent,
    live: Live | undefined,
    depth: number,
    declared: ReadonlySet<string>,
    out: Step[],
  ): Promise<void> {
    const specs = this.registry.fields(parent.collection, kind.collection);
    this.sources.set(address, item.source);
    const self: Parent = { address, collection: kind.collection, key, ref: live?.id, live, parent };
    const deps: string[] = [];
    const parentAction = this.actions.get(parent.address);
    if (parentAction === "create" || parentAction === "replace") deps.push(parent.address);
    const base = {
      address,
      collection: kind.collection,
      key,
      source: item.source,
      ...(parentAddress !== "" && parentAddress !== "instance" ? { parent: parentAddress } : {}),
      ...(live?.id !== undefined ? { liveId: live.id } : {}),
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
        { base, kind, specs, parent, self, live, depth, deps },
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
    for (const p of kind.check?.(this.ctx, parent, desired, live) ?? []) {
      this.problem(
        p.field ? `${address}.${p.field}` : address,
        p.message,
        (p.field && item.fieldSources[p.field]) || item.source,
      );
    }
    if (kind.dependsOn) deps.push(...kind.dependsOn(parent, key, desired));

    if (live?.readOnly) {
      this.problem(address, `cannot manage this object here: ${live.readOnly}`, item.source);
      return;
    }
    if (!live) {
      for (const p of (await kind.checkCreate?.(this.ctx, parent, key, desired, declared)) ?? []) {
        this.problem(p.field ? `${address}.${p.field}` : address, p.message, item.source);
      }
      if (!kind.create) {
        this.problem(
          address,
          `${kind.collection === "projects" ? "project" : kind.segment} ${JSON.stringify(key)} does not exist, and forgeform does not create ${kind.collection}: create it first`,
          item.source,
        );
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
              ...(specs.get(field)?.sensitive ? { sensitive: true } : {}),
              ...(specs.get(field)?.writeOnly ? { writeOnly: true } : {}),
            })),
          ),
        },
        kind,
        parent,
        self,
        desired,
        changed: this.ownFields(specs, desired).map(([f]) => f),
        deps,
        depth,
      });
      await this.walkNode(item, self, false, depth + 1, out);
      return;
    }

    const fieldChanges: FieldChange[] = [];
    for (const [field, value] of this.ownFields(specs, desired)) {
      const spec = specs.get(field);
      if (spec?.writeOnly) continue;
      if (sameValue(value, live.fields[field], { set: spec?.set ?? false })) continue;
      const note = this.fieldNote(specs, field);
      fieldChanges.push({
        field,
        before: await this.shown(kind, specs, field, live.fields[field]),
        after: await this.shown(kind, specs, field, value),
        ...(spec?.sensitive ? { sensitive: true } : {}),
        ...(spec?.replace ? { forcesReplacement: true } : {}),
        ...(note ? { note } : {}),
      });
    }
    const forced = this.replace.has(address);
    if (forced) {
      this.replace.delete(address);
      if (kind.singleton || !kind.remove || !kind.create) {
        for (const [field, value] of this.ownFields(specs, desired)) {
          if (specs.get(field)?.writeOnly && !fieldChanges.some((f) => f.field === field)) {
            fieldChanges.push({
              field,
              after: this.mask(specs, field, value),
              writeOnly: true,
              sensitive: true,
            });
          }
        }
      }
    }
    if (fieldChanges.length === 0 && !forced) {
      this.inSync.push(address);
    } else if (fieldChanges.length === 0 && (kind.singleton || !kind.remove || !kind.create)) {
      this.problem(address, "--replace: nothing to send (no write-only fields are declared)", item.source);
    } else {
      const replaceByRequest =
        forced && !kind.singleton && kind.remove !== undefined && kind.create !== undefined;
      const replace =
        replaceByRequest || kind.updateMode === "replace" || fieldChanges.some((f) => f.forcesReplacement);
      if (replaceByRequest) {
        for (const [field, value] of this.ownFields(specs, desired)) {
          if (specs.get(field)?.writeOnly) {
            fieldChanges.push({
              field,
              after: this.mask(specs, field, value),
              writeOnly: true,
              sensitive: true,
            });
          }
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
        parent,
        self,
        desired,
        live,
        changed: fieldChanges.map((f) => f.field),
        deps,
        depth,
      });
    }
    await this.walkNode(item, self, true, depth + 1, out);
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

export function digestLive(entries: [string, unknown][]): string {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHash("sha256").update(JSON.stringify(sorted)).digest("hex");
}

/** Reads live state for everything the desired state declares or watches, and plans the changes. */
export async function makePlan(
  desired: DesiredState,
  ctx: KindContext,
  registry: KindRegistry,
  options: PlanOptions,
): Promise<PlanResult> {
  const planner = new Planner(ctx, registry, options.targets ?? [], new Set(options.replace ?? []));
  const walked: Step[] = [];
  await planner.walkNode(desired.root, INSTANCE, true, 0, walked);
  for (const address of planner.pendingReplacements()) {
    planner.problems.push({ address, message: "--replace: no such managed object in the plan's scope" });
  }
  const steps = order(walked);
  const known = new Set(steps.map((s) => s.change.address));
  for (const step of steps) step.deps = step.deps.filter((d) => known.has(d));
  const changes = steps.map((s) => s.change);
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    url: options.url,
    manifests: desired.files,
    targets: options.targets ?? [],
    changes,
    errors: byPlace(planner.problems),
    warnings: byPlace(planner.warnings),
    summary: summarize(changes),
    requests: options.requestStats(),
    liveDigest: digestLive(planner.liveSeen),
  };
  return { plan, steps, inSync: [...planner.inSync].sort() };
}
