/**
 * Field comparison with the normalisations that keep plans free of perpetual diffs: `null`, `""` and unset are
 * the same; CRLF equals LF; two datetimes are equal when they are the same instant; lists declared as sets
 * (`uniqueItems`) compare without order; objects compare only the keys the manifest sets; a secret on either side
 * compares by its value; and a field whose schema names a normaliser (`x-normalize`: durations, time zones,
 * refs, access levels...) compares in that normaliser's terms (an access level `developer` equals the platform's 30).
 */
import {
  instantOf,
  isNumericNormalizer,
  type NormalizerName,
  normalizeValue,
} from "../manifest/normalize.js";
import { isSecret } from "../manifest/secret.js";

export interface CompareOptions {
  /** Compare arrays without regard to order. */
  set?: boolean;
  /** The field's normaliser (its schema's `x-normalize`), applied to both sides of every scalar. */
  normalize?: NormalizerName;
}

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

const asInstant = instantOf;

/**
 * Canonical text of a scalar for set membership (never shown). A secret stands for its value: a list entry from
 * `${env:}` equals the live string it resolves to.
 */
function canonical(value: unknown): string {
  if (isSecret(value)) return canonical(value.reveal());
  if (typeof value === "string") return JSON.stringify(value.replace(/\r\n/g, "\n"));
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => !isBlank(v))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  return JSON.stringify(value ?? null);
}

/** True when the live value already satisfies the desired value. */
export function sameValue(desired: unknown, live: unknown, options: CompareOptions = {}): boolean {
  // A live secret (a masked variable's value, as its kind reads it) compares by its value.
  if (isSecret(live)) return sameValue(desired, live.reveal(), options);
  const { normalize } = options;
  if (normalize && isNumericNormalizer(normalize)) {
    // Seconds written as text (`1h`) or as a number: both sides in the normaliser's terms.
    const plain = isSecret(desired) ? desired.reveal() : desired;
    const scalar = (v: unknown) => typeof v === "string" || typeof v === "number";
    if (scalar(plain) && scalar(live))
      return normalizeValue(normalize, plain) === normalizeValue(normalize, live);
  }
  if (normalize && (typeof desired === "string" || isSecret(desired)) && typeof live === "string") {
    const mine = normalizeValue(normalize, isSecret(desired) ? desired.reveal() : desired);
    return mine === normalizeValue(normalize, live) || sameValue(desired, live, { set: options.set });
  }
  if (isSecret(desired)) return desired.equals(live);
  if (isBlank(desired) && isBlank(live)) return true;
  if (isBlank(desired) !== isBlank(live)) {
    // An empty list and an unset list mean the same to the platform.
    const emptyList = (v: unknown) => Array.isArray(v) && v.length === 0;
    return (isBlank(desired) && emptyList(live)) || (isBlank(live) && emptyList(desired));
  }
  if (typeof desired === "string" && typeof live === "string") {
    if (desired.replace(/\r\n/g, "\n") === live.replace(/\r\n/g, "\n")) return true;
    const a = asInstant(desired);
    const b = asInstant(live);
    return a !== undefined && a === b;
  }
  // One side is a Date, whose instant is a number (NaN when invalid, equal to nothing): the other is equal when it
  // is the same instant.
  if (desired instanceof Date || live instanceof Date) return asInstant(desired) === asInstant(live);
  if (Array.isArray(desired)) {
    if (!Array.isArray(live) || desired.length !== live.length) return false;
    if (options.set) {
      const counts = new Map<string, number>();
      for (const item of live) counts.set(canonical(item), (counts.get(canonical(item)) ?? 0) + 1);
      for (const item of desired) {
        const c = counts.get(canonical(item));
        if (!c) return false;
        counts.set(canonical(item), c - 1);
      }
      return true;
    }
    return desired.every((item, i) => sameValue(item, live[i], { ...(normalize ? { normalize } : {}) }));
  }
  if (desired !== null && typeof desired === "object") {
    if (live === null || typeof live !== "object" || Array.isArray(live)) return false;
    const liveObj = live as Record<string, unknown>;
    return Object.entries(desired as Record<string, unknown>).every(([k, v]) => sameValue(v, liveObj[k]));
  }
  return desired === live;
}
