/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`): the plan's versioned JSON form, which holds no secret.
 * Applying a saved plan re-reads the manifests (for the secret values) and the live state, and refuses when
 * either has changed since the plan was made, so what is applied is exactly what was reviewed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { writeFileSafely } from "../files/write.js";
import { parsePlanJson, renderPlanJson } from "../report/json.js";
import type { Plan } from "./model.js";

/** Writes the plan readable by its owner only, through an exclusive temporary file (see files/write.ts). */
export function writeSavedPlan(file: string, plan: Plan): void {
  writeFileSafely(file, renderPlanJson(plan), { mode: 0o600 });
}

export function readSavedPlan(file: string): Plan {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new Error(
      `cannot read the saved plan ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  return parsePlanJson(text, `The saved plan ${file}`);
}

/** A digest of what a plan would do (addresses, actions, field values), independent of when it was made. */
export function changesDigest(plan: Plan): string {
  const essence = plan.changes.map((c) => [
    c.address,
    c.action,
    c.fields.map((f) => [f.field, f.before ?? null, f.after ?? null]),
  ]);
  return createHash("sha256").update(JSON.stringify(essence)).digest("hex");
}

/** Why a saved plan may no longer be applied, or undefined when the fresh plan matches it exactly. */
export function stalenessOf(saved: Plan, fresh: Plan): string | undefined {
  if (saved.url !== fresh.url) {
    return `the saved plan was made against ${saved.url}, not ${fresh.url}`;
  }
  if (saved.liveDigest !== fresh.liveDigest) {
    return "the live state changed since the plan was made: run plan again and review the new plan";
  }
  if (changesDigest(saved) !== changesDigest(fresh)) {
    return "the manifests changed since the plan was made: run plan again and review the new plan";
  }
  return undefined;
}
