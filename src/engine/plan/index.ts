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
 * Renderers (src/report) take the plan from there. The steps returned hold the desired values, secrets included,
 * for apply; they never leave the process.
 */
import type { KindContext } from "../../kinds/kind.js";
import type { DesiredState } from "../../manifest/model.js";
import { SecretValues, secretsFingerprint } from "../../manifest/secret.js";
import { PLAN_FORMAT_VERSION, type Plan, summarize } from "../../plan/model.js";
import type { KindRegistry } from "../registry.js";
import { expandSelectors } from "../select.js";
import { shardUnits } from "../shard.js";
import { checkTargetsSelected } from "../targets.js";
import { digestLive } from "./digest.js";
import { maskSteps } from "./mask.js";
import { byPlace, linkDependencies, order } from "./order.js";
import { PlanState } from "./state.js";
import { INSTANCE, type PlanOptions, type PlanResult, type Step } from "./types.js";
import { walkNode } from "./walk.js";

export { digestLive } from "./digest.js";
export type { BackupOption, PlanOptions, PlanResult, Step } from "./types.js";

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
      targets: options.targets ?? [],
      replace: new Set(options.replace ?? []),
      backup: options.backup,
      secrets,
      byPath: new Set(
        ["groups", "projects"].flatMap((c) =>
          (desired.root.children[c]?.items ?? []).map((i) => i.key.toLowerCase()),
        ),
      ),
      changes: options.changes,
      shardUnits: units,
    },
    expanded.state.root,
  );
  state.warnings.push(...expanded.warnings);
  const walked: Step[] = [];
  await walkNode(state, expanded.state.root, INSTANCE, true, 0, walked);
  for (const address of state.replace) {
    state.problems.push({ address, message: "--replace: no such managed object in the plan's scope" });
  }
  const steps = order(walked);
  linkDependencies(steps, state.createOnly);
  maskSteps(steps, secrets);
  const changes = steps.map((s) => s.change);
  const fingerprint = secretsFingerprint(desired.root, options.fingerprintSalt);
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
    errors: secrets.value(byPlace(state.problems)),
    warnings: secrets.value(byPlace(state.warnings)),
    summary: summarize(changes),
    requests: options.requestStats(),
    liveDigest: digestLive(state.liveSeen),
    ...(desired.digests ? { manifestDigests: desired.digests } : {}),
    ...(fingerprint !== undefined ? { secretsFingerprint: fingerprint } : {}),
    ...(expanded.summaries.length > 0 ? { selectors: expanded.summaries } : {}),
  };
  return { plan, steps, inSync: state.inSync.map((a) => secrets.text(a)).sort(), secrets };
}
