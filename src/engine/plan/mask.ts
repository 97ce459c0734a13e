/**
 * Masking, in one place: what a plan may show of a value (access levels by name, write-only values as
 * `(write-only)`, sensitive fields, secrets, and the live side of a field whose desired value is a secret or whose
 * live values may be secrets (`x-sensitive-live`: hidesLive) as `(sensitive)`), how a live object whose
 * identity holds a secret is named, and the last pass that masks every value of the run's references wherever it
 * turned up in the plan.
 */
import { UNCHECKED } from "../../kinds/common.js";
import type { Fields, Kind, KindContext, Live } from "../../kinds/kind.js";
import { maskCredentials } from "../../manifest/credentials.js";
import type { DesiredNode } from "../../manifest/model.js";
import { displayValue } from "../../manifest/normalize.js";
import { containsSecret, isSecret, maskSecrets, Secret, type SecretValues } from "../../manifest/secret.js";
import type { Specs, Step } from "./types.js";

const MASK = "(sensitive)";
const WRITE_ONLY = "(write-only)";

/**
 * Whether the live value of `field` is masked: the manifest's value is a secret (its live side would give it away),
 * or the field's live values may be secrets the manifest does not know of (`x-sensitive-live`: a CI/CD variable's).
 */
export function hidesLive(specs: Specs, field: string, desired: unknown): boolean {
  return specs.get(field)?.liveSensitive === true || containsSecret(desired);
}

/** A value as plans may show it (see the top). */
export function mask(specs: Specs, field: string, value: unknown, hideLive = false): unknown {
  const spec = specs.get(field);
  if (value === undefined) return undefined;
  if (spec?.writeOnly) return WRITE_ONLY;
  if (spec?.sensitive || isSecret(value) || hideLive) return value === null || value === "" ? value : MASK;
  return maskSecrets(value);
}

/**
 * A value as the plan shows it: in the manifest's terms where the kind says how (ids as names), access levels by
 * name (the schema's `x-normalize: access-level`), then masked. `live`: the value is the platform's (the before of
 * a change), with `hidden` whether hidesLive() masks it whole.
 */
export async function shown(
  ctx: KindContext,
  kind: Kind,
  specs: Specs,
  field: string,
  value: unknown,
  live?: { hidden: boolean },
): Promise<unknown> {
  const named = kind.display && value !== undefined ? await kind.display(ctx, field, value) : value;
  const masked = mask(specs, field, displayValue(specs.get(field)?.normalize, named), live?.hidden ?? false);
  return withoutCredentials(masked, live !== undefined);
}

/**
 * A shown value with the credentials in its URLs masked (`https://h/x?token=(sensitive)`, `https://u:(sensitive)@h`):
 * a live URL may hold a secret no manifest names any more (a hook an earlier commit made with a token from
 * `${env:}`), and one written in the manifest is in git already. A live one is also masked where a part looks
 * random (`live`: see credentials.ts's looksRandom), since no name tells there.
 */
function withoutCredentials(value: unknown, live: boolean): unknown {
  const masked = (v: string) => maskCredentials(v, { guess: live });
  if (typeof value === "string") return masked(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? masked(v) : v));
  return value;
}

/**
 * Live fields as the plan's digest sees them: masked where the field, or the value the manifest wants, is secret.
 * Of the settings newer than the schema (`unchecked.<name>`), only those the object's own entry sets (`declared`;
 * none for an undeclared object): a read asks for those of every entry it reads for, which depends on what else
 * is planned with it (a plan in chunks reads a chunk's), and the digest must not.
 */
export function maskedFields(
  specs: Specs,
  fields: Fields,
  desired?: Fields,
  declared?: Fields,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([k]) => !k.startsWith(UNCHECKED) || (declared !== undefined && k in declared))
      .map(([k, v]) => [k, mask(specs, k, v, hidesLive(specs, k, desired?.[k]))]),
  );
}

/** A regular expression matching the values a masked label stands for (`https://h/?key=(sensitive)`). */
function labelPattern(label: string): RegExp {
  const parts = label.split(Secret.mask).map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join("[\\s\\S]*")}$`);
}

/** How an undeclared live object is shown: its label, and its id where the id may be shown. */
export interface ShownLive {
  label: string;
  id?: string | number;
}

/**
 * The names of the live objects the manifests do not declare. An undeclared live object is shown as it is (live
 * data, not a secret), unless its identity has the shape of a declared one with a secret in it (an old key in a
 * hook URL: `like` names that declaration, whose secret fields mask the live ones), holds a value of the run's
 * references, or holds a credential in a URL (a token in a hook's query, which no manifest may name any more, or a
 * part that looks random): then it is masked, and so is its id when the id is a name (a protected environment's, a
 * wiki page's slug). Masked ids are told apart by number. Masked names are masked in the requests --debug shows
 * too.
 */
export function undeclaredLabels(
  ctx: KindContext,
  secrets: SecretValues,
  lives: Live[],
  declared: ReadonlySet<string>,
  /** Declared items with a secret in their identity (their `label` is masked), and the labels already taken. */
  masked: DesiredNode[],
  taken: Set<string>,
): { shown: Map<Live, ShownLive>; like: (live: Live) => DesiredNode | undefined } {
  const shapes = masked.map((i) => ({ item: i, pattern: labelPattern(i.label!) }));
  const like = (live: Live) => shapes.find((s) => s.pattern.test(live.key))?.item;
  const shownLive = new Map<Live, ShownLive>();
  for (const live of lives) {
    if (declared.has(live.key) || live.readOnly) continue;
    const shape = like(live);
    const keyMasked = maskCredentials(live.key, { guess: true });
    const label = shape
      ? shape.label!
      : secrets.contains(live.key)
        ? maskCredentials(secrets.text(live.key))
        : keyMasked !== live.key
          ? keyMasked
          : undefined;
    let out: ShownLive;
    if (label === undefined) {
      out = { label: live.key, ...(live.id !== undefined ? { id: secrets.value(live.id) } : {}) };
    } else if (typeof live.id === "number") {
      out = { label: `${label} (id ${live.id})`, id: live.id };
    } else {
      let n = 1;
      while (taken.has(`${label} (#${n})`)) n++;
      out = { label: `${label} (#${n})` };
    }
    // Masked in the plan, so masked in the requests --debug shows too (a delete's path holds the name).
    if (label !== undefined) ctx.api.conceal([live.key, ...(typeof live.id === "string" ? [live.id] : [])]);
    taken.add(out.label);
    shownLive.set(live, out);
  }
  return { shown: shownLive, like };
}

/** Whatever a plan shows (live values, ids, the platform's messages) never holds a value of the run's references. */
export function maskSteps(steps: Step[], secrets: SecretValues): void {
  for (const step of steps) {
    step.change = secrets.value(step.change);
    step.deps = step.deps.map((d) => secrets.text(d));
  }
}
