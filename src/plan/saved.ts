/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`): the plan's versioned JSON form, which holds no secret.
 * Applying a saved plan re-reads the manifests (for the secret values) and the live state, and refuses when
 * either has changed since the plan was made, a secret's value included, so what is applied is exactly what was
 * reviewed.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { writeFileSafely } from "../files/write.js";
import { parsePlanJson, renderPlanJson } from "./json.js";
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

/** The manifest files whose text differs between two plans' digests, in words (`a.yaml changed, b.yaml added`). */
function changedFiles(saved: Record<string, string>, fresh: Record<string, string>): string | undefined {
  const words = [
    ...Object.keys(fresh)
      .filter((f) => saved[f] !== fresh[f])
      .map((f) => `${f} ${f in saved ? "changed" : "added"}`),
    ...Object.keys(saved)
      .filter((f) => !(f in fresh))
      .map((f) => `${f} no longer read`),
  ];
  if (words.length === 0) return undefined;
  const shown = words.slice(0, 5).join(", ");
  return words.length > 5 ? `${shown} and ${words.length - 5} more` : shown;
}

const AGAIN = "run plan again and review the new plan";

/**
 * Why a saved plan may no longer be applied, or undefined when the fresh plan matches it exactly. Each reason is
 * told apart: another platform, manifest files whose text changed (named), a value read through `${env:}` or
 * `${file:}` that is not the one the plan was made with (the plan keeps a fingerprint of them all, not the values),
 * the live state, and lastly a plan that differs for none of those reasons.
 */
export function stalenessOf(saved: Plan, fresh: Plan): string | undefined {
  if (saved.url !== fresh.url) {
    return `the saved plan was made against ${saved.url}, not ${fresh.url}`;
  }
  if (saved.manifestDigests && fresh.manifestDigests) {
    const files = changedFiles(saved.manifestDigests, fresh.manifestDigests);
    if (files) return `the manifests changed since the plan was made (${files}): ${AGAIN}`;
  }
  if (saved.secretsFingerprint !== fresh.secretsFingerprint) {
    return `a value the manifests read through \${env:} or \${file:} is not the one the plan was made with (a secret was rotated, or another value is set where apply runs): what apply would send is not what the plan showed. Run plan again with the values apply will use and review the new plan`;
  }
  if (saved.liveDigest !== fresh.liveDigest) {
    return `the live state changed since the plan was made: ${AGAIN}`;
  }
  if (changesDigest(saved) !== changesDigest(fresh)) {
    // A plan made before the manifests' digests were kept cannot say more.
    return `${saved.manifestDigests ? "the plan now differs from the saved one, though neither the manifests nor the live state it read changed" : "the manifests changed since the plan was made"}: ${AGAIN}`;
  }
  return undefined;
}
