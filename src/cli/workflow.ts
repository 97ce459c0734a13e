/**
 * The work shared by the CLI commands and the GitHub Action: load and validate manifests, connect, read live
 * state and plan; apply a plan. Nothing here prints: callers choose the renderers.
 */
import { ApiClient, type ClientOptions } from "../api/index.js";
import { type ApplyOptions, applySteps, type Outcome } from "../engine/apply.js";
import { createContext } from "../engine/context.js";
import { makePlan, type PlanResult } from "../engine/plan.js";
import { createRegistry } from "../engine/registry.js";
import { kinds } from "../kinds/index.js";
import type { KindContext } from "../kinds/kind.js";
import { fieldSpecs } from "../kinds/schemas.js";
import { type Diagnostic, loadManifests } from "../manifest/index.js";

export interface PlanRequest {
  paths: string[];
  connection: ClientOptions;
  targets?: string[];
  replace?: string[];
  env?: NodeJS.ProcessEnv;
}

export interface PlanOutcome {
  /** Validation diagnostics (errors stop before any request is made). */
  diagnostics: Diagnostic[];
  result?: PlanResult;
  ctx?: KindContext;
  api?: ApiClient;
}

/** The platform URL without credentials, for plans and reports. */
export function displayUrl(url: string): string {
  const u = new URL(url);
  u.username = "";
  u.password = "";
  u.search = "";
  return u.toString().replace(/\/$/, "");
}

/** Loads the manifests; when they are valid, reads the live state and plans. The caller closes `api`. */
export async function planFromManifests(request: PlanRequest): Promise<PlanOutcome> {
  const loaded = await loadManifests(request.paths.length > 0 ? request.paths : ["."], {
    secrets: true,
    ...(request.env ? { env: request.env } : {}),
  });
  const diagnostics = loaded.diagnostics;
  if (!loaded.state || diagnostics.some((d) => d.severity === "error")) return { diagnostics };
  const api = new ApiClient(request.connection);
  try {
    const ctx = await createContext(api);
    const registry = createRegistry(kinds, fieldSpecs);
    const result = await makePlan(loaded.state, ctx, registry, {
      url: displayUrl(request.connection.url),
      targets: request.targets ?? [],
      replace: request.replace ?? [],
      requestStats: () => {
        const m = api.metrics.snapshot();
        return { total: m.total, byEndpoint: m.byEndpoint, retries: m.retries };
      },
    });
    return { diagnostics, result, ctx, api };
  } catch (error) {
    await api.close();
    throw error;
  }
}

export async function applyPlanResult(
  ctx: KindContext,
  result: PlanResult,
  options: ApplyOptions,
): Promise<Outcome[]> {
  return applySteps(ctx, result.steps, options);
}
