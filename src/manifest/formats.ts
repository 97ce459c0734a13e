import { Cron } from "croner";
import { isLabelColor } from "./colors.js";
import { didYouMean } from "./diagnostics.js";
import { durationSeconds } from "./normalize.js";
import { cronForValidation, hashedCronProblem, isHashedCron } from "./selectors.js";
import { allTimeZoneNames, isValidTimeZone } from "./timezones.js";

/** Whether a string holds a `${env:...}` or `${file:...}` reference; such values are checked after resolution only. */
export function hasReference(value: string): boolean {
  return /(?<!\$)\$\{(env|file):/.test(value);
}

/** Placeholders the platform replaces in badge URLs. */
export const BADGE_PLACEHOLDERS = ["%{project_path}", "%{project_id}", "%{default_branch}", "%{commit_sha}"];

const SSH_KEY_TYPES = [
  "ssh-rsa",
  "ssh-ed25519",
  "ssh-dss",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
];

function checkCron(written: string): string | undefined {
  // `H` fields (a hashed value per project) are checked for every value they can take, then the rest of the cron
  // with stand-in values.
  const hashed = isHashedCron(written) ? hashedCronProblem(written) : undefined;
  if (hashed) return `"${written}" is not a valid cron expression: ${hashed}`;
  const value = isHashedCron(written) ? cronForValidation(written) : written;
  const fields = value.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5) {
    return `"${written}" is not a 5-field cron expression (minute hour day-of-month month day-of-week); it has ${fields.length} field${fields.length === 1 ? "" : "s"}`;
  }
  try {
    const job = new Cron(fields.join(" "), { paused: true });
    job.stop();
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^CronPattern: /, "") : String(error);
    return `"${written}" is not a valid cron expression: ${why}`;
  }
  return undefined;
}

function checkTimeZone(value: string): string | undefined {
  if (isValidTimeZone(value)) return undefined;
  const hint = didYouMean(value, allTimeZoneNames());
  return `unknown time zone "${value}": use an IANA name such as "Europe/Berlin" or a platform name such as "Pacific Time (US & Canada)"${hint ? `; did you mean "${hint}"?` : ""}`;
}

function checkHttpUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value}" is not a URL; write a full http:// or https:// URL`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `"${value}" must be an http:// or https:// URL, not ${url.protocol.slice(0, -1)}:`;
  }
  if (!url.hostname) return `"${value}" has no host name`;
  return undefined;
}

function checkBadgeUrl(value: string): string | undefined {
  const unknown = [...value.matchAll(/%\{[^}]*\}/g)]
    .map((m) => m[0])
    .filter((p) => !BADGE_PLACEHOLDERS.includes(p));
  if (unknown.length > 0) {
    return `unknown placeholder ${unknown.join(", ")}; only ${BADGE_PLACEHOLDERS.join(", ")} are replaced`;
  }
  let filled = value;
  for (const p of BADGE_PLACEHOLDERS) filled = filled.split(p).join("x");
  return checkHttpUrl(filled) === undefined ? undefined : checkHttpUrl(value);
}

function checkHexColor(value: string): string | undefined {
  return /^#(?:[0-9a-fA-F]{3}){1,2}$/.test(value)
    ? undefined
    : `"${value}" is not a hex colour; write it as #RGB or #RRGGBB, e.g. "#E75E40"`;
}

function checkLabelColor(value: string): string | undefined {
  return isLabelColor(value)
    ? undefined
    : `"${value}" is not a colour: write it as #RGB or #RRGGBB (e.g. "#E75E40") or as a CSS colour name such as "red"`;
}

const DATE_OR_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function checkDateOrTime(value: string): string | undefined {
  const v = value.trim();
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  // A day that does not exist (2027-02-30) reads as another one: refused too.
  const sameDay = !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === v.slice(0, 10);
  return DATE_OR_TIME.test(v) && (sameDay || v.length > 10)
    ? Number.isNaN(ms)
      ? `"${value}" is not a date or a date and time`
      : undefined
    : `"${value}" is not a date or a date and time: write YYYY-MM-DD ("2027-06-30") or ISO 8601 ("2027-06-30T12:00:00Z")`;
}

function checkSshKey(value: string): string | undefined {
  const parts = value.trim().split(/\s+/);
  const [type, blob] = parts;
  if (!type || !SSH_KEY_TYPES.includes(type)) {
    return `not an SSH public key: it must start with one of ${SSH_KEY_TYPES.join(", ")}`;
  }
  if (!blob || !/^[A-Za-z0-9+/]+={0,2}$/.test(blob) || blob.length % 4 !== 0) {
    return `the ${type} key data is not valid base64`;
  }
  const bytes = Buffer.from(blob, "base64");
  if (bytes.length < 4) return `the ${type} key data is too short`;
  const n = bytes.readUInt32BE(0);
  const inner = bytes.subarray(4, 4 + n).toString("latin1");
  if (inner !== type) return `the key data is for "${inner.slice(0, 40)}", not ${type}`;
  // The rest is a sequence of length-prefixed fields (exponent and modulus, curve and point, ...).
  let offset = 4 + n;
  let fields = 0;
  while (offset < bytes.length) {
    if (offset + 4 > bytes.length) return `the ${type} key data is truncated`;
    offset += 4 + bytes.readUInt32BE(offset);
    fields++;
  }
  if (offset !== bytes.length || fields === 0) return `the ${type} key data is truncated`;
  return undefined;
}

const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  sec: 1,
  s: 1,
  minute: 60,
  min: 60,
  m: 60,
  hour: 3600,
  hr: 3600,
  h: 3600,
  day: 86400,
  d: 86400,
  week: 604800,
  wk: 604800,
  w: 604800,
  month: 2629746,
  mo: 2629746,
  year: 31556952,
  yr: 31556952,
  y: 31556952,
};

/** Parses a human duration such as `15 days`, `1 month 2 weeks`; undefined when unreadable. */
export function parseHumanDuration(value: string): number | undefined {
  const text = value
    .trim()
    .toLowerCase()
    .replace(/,|\band\b/g, " ");
  const re = /(\d+(?:\.\d+)?)\s*([a-z]+)/g;
  let total = 0;
  let consumed = "";
  for (const m of text.matchAll(re)) {
    const unit = m[2]!.replace(/s$/, "");
    const seconds = UNIT_SECONDS[unit] ?? UNIT_SECONDS[m[2]!];
    if (seconds === undefined) return undefined;
    total += Number(m[1]) * seconds;
    consumed += m[0];
  }
  if (consumed.replace(/\s+/g, "") !== text.replace(/\s+/g, "") || consumed === "") return undefined;
  return total;
}

function checkArchiveAge(value: string): string | undefined {
  if (value.trim() === "") return undefined;
  const seconds = parseHumanDuration(value);
  if (seconds === undefined) {
    return `"${value}" is not a duration; write e.g. "15 days", "1 month" or "2 years" (empty means never)`;
  }
  if (seconds < 86400) return `"${value}" is too short: jobs can be archived after 1 day at the earliest`;
  return undefined;
}

/** The bounds of a job timeout (`build_timeout`): from 10 minutes to under ActiveSupport's month (30.436875 days). */
export const JOB_TIMEOUT_SECONDS = { min: 600, maxExclusive: 2_629_746 };

function checkJobTimeout(value: string): string | undefined {
  const seconds = durationSeconds(value);
  if (seconds === undefined) {
    return `"${value}" is not a duration; write e.g. "1h", "90 minutes", "1h 30m" or a number of seconds`;
  }
  if (seconds < JOB_TIMEOUT_SECONDS.min || seconds >= JOB_TIMEOUT_SECONDS.maxExclusive) {
    return `"${value}" is ${seconds} seconds: a job timeout is from 10 minutes to under a month`;
  }
  return undefined;
}

/** Custom string formats used by the schemas, each returning an error message or undefined. */
export const FORMAT_CHECKS: Record<string, (value: string) => string | undefined> = {
  cron: checkCron,
  timezone: checkTimeZone,
  "http-url": checkHttpUrl,
  "badge-url": checkBadgeUrl,
  "hex-color": checkHexColor,
  "label-color": checkLabelColor,
  "date-or-date-time": checkDateOrTime,
  "ssh-public-key": checkSshKey,
  "archive-age": checkArchiveAge,
  "job-timeout": checkJobTimeout,
};

/** Messages for the standard formats from ajv-formats. */
export function standardFormatMessage(format: string, value: unknown): string {
  const v = JSON.stringify(value);
  switch (format) {
    case "date":
      return `${v} is not a date; write YYYY-MM-DD, e.g. "2026-03-31"`;
    case "date-time":
      return `${v} is not an ISO 8601 date and time; write e.g. "2026-01-05T08:00:00Z"`;
    case "email":
      return `${v} is not an e-mail address`;
    default:
      return `${v} is not a valid ${format}`;
  }
}
