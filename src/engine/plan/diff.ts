/**
 * The diff of one object: the fields the manifest sets, compared with the live ones in the terms the schema
 * declares (normalised values, lists as sets), each change shown masked. Write-only fields are never compared;
 * they are sent when the object is created, replaced, or rotated with `--replace`.
 */
import type { Fields, Kind, KindContext, Live } from "../../kinds/kind.js";
import { containsSecret } from "../../manifest/secret.js";
import type { FieldChange } from "../../plan/model.js";
import { sameValue } from "../compare.js";
import { hidesLive, mask, shown } from "./mask.js";
import type { Specs } from "./types.js";

/** The fields that describe the object itself: not child collections, not manifest-only instructions. */
export function ownFields(specs: Specs, fields: Fields): [string, unknown][] {
  return Object.entries(fields).filter(([name]) => !specs.get(name)?.child && !specs.get(name)?.local);
}

/** A note on a changed field that the plan shows with it. */
function fieldNote(specs: Specs, field: string): string | undefined {
  return specs.get(field)?.restart ? "takes effect after the platform is restarted" : undefined;
}

/** The fields of `desired` that differ from `live`, each with its before and after as the plan shows them. */
export async function fieldChanges(
  ctx: KindContext,
  kind: Kind,
  specs: Specs,
  desired: Fields,
  live: Live,
): Promise<FieldChange[]> {
  const changes: FieldChange[] = [];
  for (const [field, value] of ownFields(specs, desired)) {
    const spec = specs.get(field);
    if (spec?.writeOnly) continue;
    const options = { set: spec?.set ?? false, ...(spec?.normalize ? { normalize: spec.normalize } : {}) };
    if (sameValue(value, live.fields[field], options)) continue;
    const note = fieldNote(specs, field);
    const secret = containsSecret(value);
    changes.push({
      field,
      before: await shown(ctx, kind, specs, field, live.fields[field], {
        hidden: hidesLive(specs, field, value),
      }),
      after: await shown(ctx, kind, specs, field, value),
      ...(spec?.sensitive || secret ? { sensitive: true } : {}),
      ...(spec?.replace ? { forcesReplacement: true } : {}),
      ...(note ? { note } : {}),
    });
  }
  return changes;
}

/** The write-only fields `desired` declares that are not among `changes`: what a rotation sends. */
export function writeOnlyChanges(specs: Specs, desired: Fields, changes: FieldChange[]): FieldChange[] {
  return ownFields(specs, desired)
    .filter(([field]) => specs.get(field)?.writeOnly && !changes.some((f) => f.field === field))
    .map(([field, value]) => ({ field, after: mask(specs, field, value), writeOnly: true, sensitive: true }));
}

/** Every field of a new object, as the plan shows it; one left empty (null, an empty list) is not listed. */
export function createdFields(
  ctx: KindContext,
  kind: Kind,
  specs: Specs,
  desired: Fields,
): Promise<FieldChange[]> {
  const empty = (v: unknown) => v === null || (Array.isArray(v) && v.length === 0);
  return Promise.all(
    ownFields(specs, desired)
      .filter(([, v]) => !empty(v))
      .map(async ([field, v]) => ({
        field,
        after: await shown(ctx, kind, specs, field, v),
        ...(specs.get(field)?.sensitive || containsSecret(v) ? { sensitive: true } : {}),
        ...(specs.get(field)?.writeOnly ? { writeOnly: true } : {}),
      })),
  );
}

/**
 * The fields of a deleted object as they are (every one, or those its kind names), masked where the entry marked
 * absent (`desired`) holds a secret.
 */
export function deletedFields(
  ctx: KindContext,
  kind: Kind,
  specs: Specs,
  live: Live,
  desired: Fields | undefined,
): Promise<FieldChange[]> {
  const listed = kind.shownOnDelete;
  return Promise.all(
    ownFields(specs, live.fields)
      .filter(([field]) => !listed || listed.includes(field))
      .map(async ([field, v]) => ({
        field,
        before: await shown(ctx, kind, specs, field, v, {
          hidden: hidesLive(specs, field, desired?.[field]),
        }),
      })),
  );
}
