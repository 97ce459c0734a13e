/**
 * Values the platform rewrites. A field declares its kind of value once, in its schema (`x-normalize`), and every
 * comparison (plans, drift, duplicate identities) goes through the normaliser named there: a duration `90 days`
 * that reads back as `3 months`, a time zone `UTC` that is also `Etc/UTC`, a ref `refs/heads/main` shown as `main`,
 * a job timeout written `1h` that the platform keeps as 3600 seconds, an access level `developer` that the platform
 * gives as 30. Normalising is for comparing only: what is sent is what the manifest says (but for numeric normalisers,
 * whose values the platform takes as numbers only: sentValue), and what is shown or exported is what each side wrote
 * (access levels by name: displayValue). The sandbox rewrites values from its own code; the two never share this
 * module.
 */
import { canonicalColor } from "./colors.js";
import { RAILS_TIME_ZONES } from "./timezones.js";

export type NormalizerName =
  | "duration"
  | "duration-seconds"
  | "timezone"
  | "ref"
  | "instant"
  | "lowercase"
  | "whitespace"
  | "ssh-key"
  | "color"
  | "access-level";

/**
 * The platform's access levels by the names manifests may write them with; the platform takes and gives numbers.
 * Which of them a field takes is its schema's (`common.schema.json`: members, shares, protected refs).
 */
export const ACCESS_LEVELS: Readonly<Record<string, number>> = {
  no_access: 0,
  minimal_access: 5,
  guest: 10,
  reporter: 20,
  developer: 30,
  maintainer: 40,
  owner: 50,
  admin: 60,
};

const LEVEL_NAMES = new Map(Object.entries(ACCESS_LEVELS).map(([name, n]) => [n, name]));

/** The number of an access level written by name or number (`developer`, 30); undefined for anything else. */
export function accessLevelNumber(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isInteger(value) ? value : undefined;
  if (typeof value !== "string") return undefined;
  const text = value.trim();
  return Object.hasOwn(ACCESS_LEVELS, text) ? ACCESS_LEVELS[text] : undefined;
}

/** An access level as plans show it: by name (`developer`); a number without a name stays a number. */
export function accessLevelName(value: unknown): unknown {
  const n = accessLevelNumber(value);
  return n === undefined ? value : (LEVEL_NAMES.get(n) ?? n);
}

/** An access level in words for messages: `developer (30)`. */
export function accessLevelWords(value: unknown): string {
  const n = accessLevelNumber(value);
  const name = n === undefined ? undefined : LEVEL_NAMES.get(n);
  return name === undefined ? JSON.stringify(value) : `${name} (${n})`;
}

// ChronicDuration (the platform's duration parser and printer): a month is 30 days and a year 365.25 days.
const UNIT_SECONDS: [RegExp, number][] = [
  [/^(s|secs?|seconds?)$/, 1],
  [/^(m|mins?|minutes?)$/, 60],
  [/^(h|hrs?|hours?)$/, 3_600],
  [/^(d|days?)$/, 86_400],
  [/^(w|wks?|weeks?)$/, 604_800],
  [/^(mos?|mons?|months?)$/, 2_592_000],
  [/^(y|yrs?|years?)$/, 31_557_600],
];

/** Seconds of a human duration (`90 days`, `3 months`, `1 month 2 weeks`, `36h`); undefined when unreadable. */
export function durationSeconds(text: string): number | undefined {
  const s = text
    .trim()
    .toLowerCase()
    .replace(/,|\band\b/g, " ");
  if (s.length > 200) return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Math.round(Number(s));
  let total = 0;
  let consumed = "";
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/g)) {
    const unit = UNIT_SECONDS.find(([r]) => r.test(m[2] ?? ""));
    if (!unit) return undefined;
    total += Number(m[1]) * unit[1];
    consumed += m[0];
  }
  if (consumed === "" || consumed.replace(/\s/g, "") !== s.replace(/\s/g, "")) return undefined;
  return Math.round(total);
}

/** Canonical names found so far: an Intl.DateTimeFormat costs about 10 µs, and a plan compares thousands. */
const canonicalZones = new Map<string, string>();

/** The canonical IANA name of a time zone written as an IANA name, an alias or a Rails friendly name. */
export function canonicalTimeZone(name: string): string {
  const known = canonicalZones.get(name);
  if (known !== undefined) return known;
  const trimmed = name.trim();
  const iana = RAILS_TIME_ZONES[trimmed] ?? trimmed;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat("en", { timeZone: iana }).resolvedOptions().timeZone;
  } catch {
    canonical = trimmed;
  }
  // Names come from manifests and the platform: a few distinct ones per run, bounded all the same.
  if (canonicalZones.size < 10_000) canonicalZones.set(name, canonical);
  return canonical;
}

const ISO_DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** Milliseconds since the epoch of an ISO 8601 datetime; undefined for anything else. */
export function instantOf(value: unknown): number | undefined {
  if (value instanceof Date) return value.getTime();
  if (typeof value === "string" && ISO_DATETIME.test(value.trim())) {
    const ms = Date.parse(value.trim());
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * An instant written as a date and time, or as a bare date: midnight UTC of that day, as the platform reads a date
 * given for a datetime parameter (a deploy token's `expires_at: 2027-06-30`).
 */
function instantOrDay(value: string): unknown {
  const at = instantOf(value);
  if (at !== undefined) return at;
  const day = value.trim();
  if (!ISO_DATE.test(day)) return value;
  const ms = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(ms) ? value : ms;
}

/** `type blob` of an OpenSSH public key: the comment and spacing do not make another key. */
export function canonicalSshKey(text: string): string {
  const [type, blob] = text.trim().split(/\s+/);
  return blob ? `${type} ${blob}` : text.trim();
}

const NORMALIZERS: Record<NormalizerName, (value: string) => unknown> = {
  duration: (v) => durationSeconds(v) ?? v.trim(),
  "duration-seconds": (v) => durationSeconds(v) ?? v.trim(),
  timezone: canonicalTimeZone,
  ref: (v) => v.trim().replace(/^refs\/(heads|tags)\//, ""),
  instant: instantOrDay,
  lowercase: (v) => v.trim().toLowerCase(),
  whitespace: (v) => v.trim().replace(/\s+/g, " "),
  "ssh-key": canonicalSshKey,
  color: canonicalColor,
  "access-level": (v) => accessLevelNumber(v) ?? v.trim(),
};

/**
 * Normalisers whose canonical form is a number, which the platform keeps (seconds, access levels): a value written as
 * text and one written as that number are the same value.
 */
const NUMERIC: ReadonlySet<NormalizerName> = new Set(["duration-seconds", "access-level"]);

/** Whether the normaliser's canonical form is a number (so text and numbers compare in its terms). */
export function isNumericNormalizer(name: NormalizerName): boolean {
  return NUMERIC.has(name);
}

/**
 * The value the platform takes for a field whose normaliser is numeric (`1h` sent as 3600); any other value as it is.
 * What is sent for other normalisers is what the manifest says.
 */
export function sentValue(name: NormalizerName | undefined, value: unknown): unknown {
  if (name === undefined || !NUMERIC.has(name) || typeof value !== "string") return value;
  const n = normalizeValue(name, value);
  return typeof n === "number" ? n : value;
}

export function isNormalizerName(name: unknown): name is NormalizerName {
  return typeof name === "string" && Object.hasOwn(NORMALIZERS, name);
}

/** The value in its canonical form for comparison; values that are not text are returned as they are. */
export function normalizeValue(name: NormalizerName, value: unknown): unknown {
  if (value instanceof Date && name === "instant") return value.getTime();
  return typeof value === "string" ? NORMALIZERS[name](value) : value;
}

/** A value as plans and exports show it: access levels by name, anything else as it is. */
export function displayValue(name: NormalizerName | undefined, value: unknown): unknown {
  return name === "access-level" ? accessLevelName(value) : value;
}
