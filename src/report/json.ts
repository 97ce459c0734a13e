/** The outcome of apply as JSON: the plan's JSON form (src/plan/json.ts) with each change's outcome. */
import { type Json, renderPlanJson, stringify } from "../plan/json.js";
import type { Plan } from "../plan/model.js";

/**
 * The outcome of apply (`apply --format json`, the Action's apply report): the plan's JSON form with `kind`
 * "apply" and each change's outcome: `status` done, failed or skipped, a `message` for failures and skips, and
 * `recovered` for a create whose response was lost and whose object was found on re-reading.
 */
export function renderApplyJson(
  plan: Plan,
  outcomes: { address: string; action: string; status: string; message?: string; recovered?: boolean }[],
): string {
  const json = JSON.parse(renderPlanJson(plan)) as Record<string, Json>;
  json["kind"] = "apply";
  json["outcomes"] = outcomes.map((o) => ({
    address: o.address,
    action: o.action,
    status: o.status,
    message: o.message,
    recovered: o.recovered === true ? true : undefined,
  }));
  return stringify(json);
}
