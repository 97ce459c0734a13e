/** The connection flags every command that talks to the platform shares, and how they become ClientOptions. */
import { type Command, InvalidArgumentError } from "commander";
import { type ClientOptions, OPTION_MAXIMUMS } from "../api/index.js";
import { FileReadError, readTextFile } from "../files/read.js";

/** The options commander collects from `addConnectionOptions`. */
export interface ConnectionFlags {
  url?: string;
  token?: string;
  tokenFile?: string;
  caFile?: string;
  insecureHttp?: boolean;
  timeout?: number | string;
  concurrency?: number | string;
  maxAttempts?: number | string;
  maxResponseMb?: number | string;
  maxListMb?: number | string;
  /** `--max-rate N/min` (also N/s, N/h; a bare N is per minute): requests a minute, evenly spaced. */
  maxRate?: number | string;
  debug?: boolean;
  /** False with --no-progress: no progress line on stderr. */
  progress?: boolean;
}

const RATE_UNITS: Record<string, number> = { s: 60, sec: 60, min: 1, h: 1 / 60, hour: 1 / 60 };

/** `600/min`, `10/s`, `7200/h` or a bare `600` (a minute): requests a minute. */
export function parseRate(flag: string) {
  return (value: string): number => {
    const m = /^(\d+(?:\.\d+)?)\s*(?:\/\s*(s|sec|min|h|hour))?$/.exec(value.trim());
    const perMinute = Number(m?.[1]) * (RATE_UNITS[m?.[2] ?? "min"] ?? 0);
    if (!m || !(perMinute > 0) || !Number.isFinite(perMinute)) {
      throw new InvalidArgumentError(
        `${flag} needs requests per minute, second or hour above 0, e.g. 600/min, 10/s or 7200/h; got "${value}"`,
      );
    }
    return perMinute;
  };
}

const MiB = 1024 * 1024;

/** The numeric flags, the client option each sets, and how many bytes one unit of the flag is (MiB flags). */
const NUMERIC = {
  "--timeout": { option: "timeoutMs", unit: 1 },
  "--concurrency": { option: "concurrency", unit: 1 },
  "--max-attempts": { option: "maxAttempts", unit: 1 },
  "--max-response-mb": { option: "maxResponseBytes", unit: MiB },
  "--max-list-mb": { option: "maxListBytes", unit: MiB },
} as const;
type NumericFlag = keyof typeof NUMERIC;

/** A whole number from 1 to the client's maximum for the option (in the flag's unit). */
function positiveInteger(flag: NumericFlag) {
  const { option, unit } = NUMERIC[flag];
  const max = Math.floor(OPTION_MAXIMUMS[option] / unit);
  return (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
      throw new InvalidArgumentError(`${flag} needs a whole number from 1 to ${max}, got "${value}"`);
    }
    return n;
  };
}

/**
 * Adds --url, --token, --token-file, --ca-file, --insecure-http, --timeout, --concurrency, --max-attempts,
 * --max-rate, --max-response-mb, --max-list-mb, --debug, --no-progress.
 */
export function addConnectionOptions(cmd: Command): Command {
  return cmd
    .option("--no-progress", "no progress line on stderr while reading and applying")
    .option("--url <url>", "platform base URL, e.g. https://gitlab.example.com (env FORGEFORM_URL)")
    .option(
      "--token <token>",
      "access token (env FORGEFORM_TOKEN; prefer the variable or --token-file: a flag shows in the process list)",
    )
    .option("--token-file <file>", "read the access token from this file")
    .option("--ca-file <file>", "PEM file with the CA that signed the platform's TLS certificate")
    .option(
      "--insecure-http",
      "allow plain http:// to a host that is not loopback (sends the token unencrypted)",
    )
    .option(
      "--timeout <ms>",
      "per-request timeout in milliseconds, the whole response included (default 30000)",
      positiveInteger("--timeout"),
    )
    .option("--concurrency <n>", "requests in flight at once (default 8)", positiveInteger("--concurrency"))
    .option(
      "--max-attempts <n>",
      "attempts per request when retrying rate limits and transient failures (default 8)",
      positiveInteger("--max-attempts"),
    )
    .option(
      "--max-response-mb <n>",
      "largest response body read, in MiB (default 64)",
      positiveInteger("--max-response-mb"),
    )
    .option(
      "--max-rate <n/min>",
      "at most this many requests a minute (also n/s, n/h), evenly spaced: for an instance whose rate limit is known (without it, forgeform slows down when the platform answers 429)",
      parseRate("--max-rate"),
    )
    .option(
      "--max-list-mb <n>",
      "most MiB of answers kept of one list, all its pages together (default 1024)",
      positiveInteger("--max-list-mb"),
    )
    .option("--debug", "print one line per API request and response (tokens redacted)");
}

/** A numeric flag's value (commander's number, or a string from the Action), checked the same way. */
function numberFlag(flag: NumericFlag, value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return rethrown(() => positiveInteger(flag)(String(value)));
}

/** The result of `parse`, its InvalidArgumentError made a plain Error (as the other flags' errors are). */
function rethrown<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new Error((error as Error).message);
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** Largest token file read: a token is a few dozen characters. */
const MAX_TOKEN_FILE_BYTES = 64 * 1024;

function readTokenFile(file: string): string {
  let text: string;
  try {
    text = readTextFile(file, { maxBytes: MAX_TOKEN_FILE_BYTES });
  } catch (error) {
    if (!(error instanceof FileReadError)) throw error;
    if (error.code !== undefined) {
      throw new Error(`cannot read --token-file ${file} (${error.code}): check the path and its permissions`);
    }
    throw new Error(`--token-file ${file} ${error.reason}: it should be a file holding the access token`);
  }
  const token = text.trim();
  if (!token) throw new Error(`--token-file ${file} is empty: it should hold the access token`);
  return token;
}

/**
 * Why a token cannot be sent in a header, without showing it: a token is one line of visible ASCII characters (the
 * platform's are letters, digits, `-` and `_`). Checked before any request, so a token pasted with a line break
 * fails at once rather than after a request was attempted.
 */
function tokenProblem(token: string): string | undefined {
  if (/[\r\n]/.test(token)) return "holds a line break (more than one line)";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  if (/[\x00-\x1f\x7f]/.test(token)) return "holds a control character";
  if (/[^\x21-\x7e]/.test(token)) return "holds a space or a character that is not ASCII";
  return undefined;
}

function checkToken(token: string, source: string): string {
  const problem = tokenProblem(token);
  if (problem) {
    throw new Error(
      `the token from ${source} ${problem}: a token is one line of visible ASCII characters; check how it was stored or pasted`,
    );
  }
  return token;
}

/**
 * Turns the flags and environment into client options. Flags override `FORGEFORM_URL`, `FORGEFORM_TOKEN` and
 * `FORGEFORM_SCIM_TOKEN`; `--token-file` is read and trimmed. With --debug, lines go to `debugSink` (stderr by default).
 */
export function resolveConnection(
  opts: ConnectionFlags,
  env: NodeJS.ProcessEnv = process.env,
  debugSink: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): ClientOptions {
  const url = nonEmpty(opts.url) ?? nonEmpty(env["FORGEFORM_URL"]);
  if (url === undefined) {
    throw new Error(
      "no platform URL: pass --url <url> or set FORGEFORM_URL (e.g. https://gitlab.example.com)",
    );
  }
  if (opts.token !== undefined && opts.tokenFile !== undefined) {
    throw new Error("--token and --token-file both given: pass only one of them");
  }
  const [token, source] =
    opts.tokenFile !== undefined
      ? [readTokenFile(opts.tokenFile), `--token-file ${opts.tokenFile}`]
      : nonEmpty(opts.token) !== undefined
        ? [nonEmpty(opts.token), "--token"]
        : [nonEmpty(env["FORGEFORM_TOKEN"]), "FORGEFORM_TOKEN"];
  if (token === undefined) {
    throw new Error("no access token: pass --token-file <file> or --token <token>, or set FORGEFORM_TOKEN");
  }
  const options: ClientOptions = { url, token: checkToken(token, source) };
  const scimToken = nonEmpty(env["FORGEFORM_SCIM_TOKEN"]);
  if (scimToken !== undefined) options.scimToken = checkToken(scimToken, "FORGEFORM_SCIM_TOKEN");
  if (opts.caFile !== undefined) options.caFile = opts.caFile;
  if (opts.insecureHttp) options.insecureHttp = true;
  const given: Record<NumericFlag, number | string | undefined> = {
    "--timeout": opts.timeout,
    "--concurrency": opts.concurrency,
    "--max-attempts": opts.maxAttempts,
    "--max-response-mb": opts.maxResponseMb,
    "--max-list-mb": opts.maxListMb,
  };
  for (const [flag, value] of Object.entries(given) as [NumericFlag, number | string | undefined][]) {
    const n = numberFlag(flag, value);
    if (n !== undefined) options[NUMERIC[flag].option] = n * NUMERIC[flag].unit;
  }
  if (opts.maxRate !== undefined) {
    options.maxRatePerMinute =
      typeof opts.maxRate === "number"
        ? opts.maxRate
        : rethrown(() => parseRate("--max-rate")(String(opts.maxRate)));
  }
  if (opts.debug) options.debug = debugSink;
  return options;
}
