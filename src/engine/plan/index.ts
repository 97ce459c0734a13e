/**
 * Planning, as its phases in order (each a module of this folder, with unit tests of its own):
 *
 * 1. select: patterns expanded against the platform, targets and shards (../select.ts, ../targets.ts, ../shard.ts)
 * 2. walk (walk.ts), for each collection: read its live objects (read.ts), match them with the declared ones by
 *    identity (match.ts), plan each declared object (item.ts: diff.ts compares, delete.ts deletes), then the
 *    live objects the manifests do not mention (unmanaged.ts)
 * 3. order (order.ts): apply order, dependencies, problems by place
 * 4. mask (mask.ts): the run's secret values out of everything the plan shows
 * 5. the plan model (../../plan/model.ts), with the live digest (digest.ts) and the fingerprints a saved plan keeps
 *
 * Phases 1 and 2 are `walkPlan`, 3 to 5 `finishPlan`: `makePlan` is one after the other. A plan made in chunks of
 * top-level trees (chunks.ts, driven by src/cli/chunks.ts) walks each chunk on its own, merges the walks into the
 * order of one walk, and finishes them once: the same plan as one walk of everything.
 *
 * Renderers (src/report) take the plan from there. The steps returned hold the desired values, secrets included,
 * for apply; they never leave the process.
 */
import type { KindContext } from "../../kinds/kind.js";
import { didYouMean } from "../../manifest/diagnostics.js";
import type { DesiredState } from "../../manifest/model.js";
import { fingerprintOf, SecretValues, secretPairsOf } from "../../manifest/secret.js";
import { addressedOwner, targetOf } from "../../plan/address.js";
import { PLAN_FORMAT_VERSION, type Plan, type PlanProblem, summarize } from "../../plan/model.js";
import type { KindRegistry } from "../registry.js";
import { expandSelectors } from "../select.js";
import { shardUnits } from "../shard.js";
import { checkTargetsSelected } from "../targets.js";
import { maskSteps } from "./mask.js";
import { byPlace, linkDependencies, order } from "./order.js";
import { PlanState } from "./state.js";
import { INSTANCE, type PlanOptions, type PlanResult, type Step, type Walked } from "./types.js";
import { walkNode } from "./walk.js";

export { mergeWalks } from "./chunks.js";
export { LiveSeen } from "./digest.js";
export type { BackupOption, ChunkScope, PlanOptions, PlanResult, Step, Walked } from "./types.js";

/** Reads live state for everything the desired state declares or watches, and plans the changes. */
export async function makePlan(
  desired: DesiredState,
  ctx: KindContext,
  registry: KindRegistry,
  options: PlanOptions,
): Promise<PlanResult> {
  const walked = await walkPlan(desired, ctx, registry, options);
  return finishPlan(walked, desired, options);
}

/** Phases 1 and 2: selects what the plan covers, reads the live state and plans each object. */
export async function walkPlan(
  desired: DesiredState,
  ctx: KindContext,
  registry: KindRegistry,
  options: PlanOptions,
): Promise<Walked> {
  const expanded = await expandSelectors(desired, ctx, options.targets, options.changes);
  const given = desired.selectors.length === 0 ? options.secrets : undefined;
  const secrets = given?.values ?? SecretValues.ofState(expanded.state);
  // A target below a pattern's root selects what the platform holds there: it must select something.
  const top = ["groups", "projects"].flatMap((c) => expanded.state.root.children[c]?.items ?? []);
  checkTargetsSelected(
    options.targets,
    options.declared ?? top.map((i) => i.key),
    expanded.listed,
    expanded.unknowable,
  );
  const units = options.shardUnits
    ? new Set(options.shardUnits)
    : options.shard
      ? shardUnits(expanded.state.root, options.shard)
      : undefined;
  const state = new PlanState(
    {
      ctx,
      registry,
      targets: options.targets,
      replace: new Set(options.replace),
      backup: options.backup,
      secrets,
      byPath: new Set(
        ["groups", "projects"].flatMap((c) =>
          (desired.root.children[c]?.items ?? []).map((i) => i.key.toLowerCase()),
        ),
      ),
      changes: options.changes,
      shardUnits: units,
      chunk: options.chunk,
    },
    expanded.state.root,
  );
  state.warnings.push(...expanded.warnings);
  const steps: Step[] = [];
  await walkNode(state, expanded.state.root, INSTANCE, true, 0, steps);
  return {
    steps,
    places: state.places,
    problems: state.problems,
    warnings: state.warnings,
    inSync: state.inSync,
    liveSeen: state.liveSeen,
    createOnly: state.createOnly,
    secrets,
    secretPairs: given?.pairs ?? secretPairsOf(desired.root),
    replaceLeft: state.replace,
    summaries: expanded.summaries,
    ...(units ? { units } : {}),
  };
}

/**
 * The managed object's address closest to a `--replace` that named none (a typo in a name, a kind's singular):
 * among those of the same group or project (or of the instance), so that the search stays small on a large estate.
 */
function nearestAddress(address: string, walked: Walked): string | undefined {
  const owner = targetOf(address);
  if (owner !== "instance" && !addressedOwner(address)) return undefined;
  const candidates = [...walked.steps.map((s) => s.change.address), ...walked.inSync].filter(
    (a) => a !== address && a.startsWith(owner),
  );
  return didYouMean(address, candidates);
}

/**
 * The objects that would write the same local file (a token file a template or a pattern gives several objects):
 * a problem at each, naming the others.
 */
function sharedLocalFiles(steps: readonly Step[]): PlanProblem[] {
  const byFile = new Map<string, { field: string; step: Step }[]>();
  for (const step of steps) {
    if (step.change.action !== "create" && step.change.action !== "replace") continue;
    const file = step.desired && step.kind.localFile?.(step.desired);
    if (file === undefined) continue;
    const sharing = byFile.get(file.path);
    if (sharing) sharing.push({ field: file.field, step });
    else byFile.set(file.path, [{ field: file.field, step }]);
  }
  const problems: PlanProblem[] = [];
  for (const [file, sharing] of byFile) {
    if (sharing.length < 2) continue;
    const addresses = sharing.map((s) => s.step.change.address).sort();
    for (const { field, step } of sharing) {
      const others = addresses.filter((a) => a !== step.change.address);
      problems.push({
        address: `${step.change.address}.${field}`,
        message: `${file} is the ${field} of ${others.join(", ")} too: what one object writes there would take the place of what another did (a token shown once, lost); name a file of its own for each (a template or a pattern gives every object it reaches the same one)`,
        ...(step.change.source ? { source: step.change.source } : {}),
      });
    }
  }
  return problems;
}

/** Phases 3 to 5: orders and links the steps walked, masks them, and makes the plan. */
export function finishPlan(
  walked: Walked,
  desired: Pick<DesiredState, "files" | "digests">,
  options: PlanOptions,
): PlanResult {
  const { secrets } = walked;
  const problems = [...walked.problems];
  for (const address of walked.replaceLeft) {
    const near = nearestAddress(address, walked);
    problems.push({
      address,
      message: `--replace: no such managed object in the plan's scope${near ? `; did you mean ${near}?` : ""}`,
    });
  }
  problems.push(...sharedLocalFiles(walked.steps));
  const steps = order(walked.steps);
  linkDependencies(steps, walked.createOnly);
  maskSteps(steps, secrets);
  const changes = steps.map((s) => s.change);
  const fingerprint = fingerprintOf(walked.secretPairs, options.fingerprintSalt);
  const units = walked.units;
  const plan: Plan = {
    formatVersion: PLAN_FORMAT_VERSION,
    createdAt: new Date().toISOString(),
    url: options.url,
    manifests: desired.files,
    ...(options.root !== undefined ? { root: options.root } : {}),
    targets: options.targets,
    ...(options.replace.length > 0 ? { replace: [...options.replace] } : {}),
    ...(options.changedSince !== undefined ? { changedSince: options.changedSince } : {}),
    ...(options.changedSinceCommit !== undefined ? { changedSinceCommit: options.changedSinceCommit } : {}),
    ...(options.shard && units ? { shard: { ...options.shard, units: [...units].sort() } } : {}),
    changes,
    errors: secrets.value(byPlace(problems)),
    warnings: secrets.value(byPlace(walked.warnings)),
    summary: summarize(changes),
    requests: options.requestStats(),
    liveDigest: walked.liveSeen.digest(),
    ...(desired.digests ? { manifestDigests: desired.digests } : {}),
    ...(fingerprint !== undefined ? { secretsFingerprint: fingerprint } : {}),
    ...(walked.summaries.length > 0 ? { selectors: walked.summaries } : {}),
  };
  let inSync: string[] | undefined;
  return {
    plan,
    steps,
    secrets,
    // Listed only in drift reports: a plan or an apply of 59,000 objects does not make the list at its end.
    get inSync() {
      inSync ??= walked.inSync
        .toArray()
        .map((a) => secrets.text(a))
        .sort();
      return inSync;
    },
  };
}
