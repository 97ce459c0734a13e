import type { IncomingHttpHeaders } from "node:http";
import { paramError } from "./errors.js";

/** A file from a multipart body. */
export interface UploadedFile {
  readonly kind: "file";
  filename: string;
  type: string;
  data: Buffer;
}

/** A parameter value as the platform's request layer sees it before coercion. */
export type ParamValue = string | number | boolean | null | UploadedFile | ParamValue[] | ParamHash;
export interface ParamHash {
  [key: string]: ParamValue;
}

export function isUploadedFile(v: unknown): v is UploadedFile {
  return typeof v === "object" && v !== null && (v as { kind?: unknown }).kind === "file";
}

function isHash(v: unknown): v is ParamHash {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !isUploadedFile(v);
}

/**
 * Names that must never become keys of a parsed object: they would reach (and could change) an object's prototype.
 * A request that uses one is refused with 400, whatever its path (query, form, JSON, multipart, nested keys).
 */
const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** How deep `a[b][c]...` parameter names may nest (Rack allows 32 by default too). */
export const MAX_PARAM_DEPTH = 32;

/** Most parameters one query string, form or multipart body may carry (Rack's `params_limit`). */
export const MAX_PARAMS = 4096;

/** How deep a JSON body may nest (the JSON parser's `max_nesting` on the platform). */
export const MAX_JSON_DEPTH = 100;

function tooManyParams(): never {
  throw paramError(`a request may carry at most ${MAX_PARAMS} parameters`);
}

/** Whether JSON text nests arrays and objects deeper than `max`, found in one pass before anything parses it. */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quoted) {
      if (c === 0x5c) i++;
      else if (c === 0x22) quoted = false;
    } else if (c === 0x22) quoted = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** A hash for parsed parameters: no prototype, so no key can reach one. */
export function paramHash(): ParamHash {
  return Object.create(null) as ParamHash;
}

function refuseKey(key: string): void {
  if (UNSAFE_KEYS.has(key)) {
    throw paramError(`parameter names may not use ${JSON.stringify(key)}`);
  }
}

/**
 * Rack's `normalize_params`: `a[]=1&a[]=2` gives an array, `h[x]=y` a hash, `l[][k]=v` an array of hashes.
 * Plain keys repeated without brackets keep the last value, as Rack does. Hashes have no prototype; `__proto__`,
 * `constructor` and `prototype` are refused, and so is nesting deeper than {@link MAX_PARAM_DEPTH}.
 */
export function normalizeParam(target: ParamHash, name: string, value: ParamValue, depth = 0): void {
  if (depth > MAX_PARAM_DEPTH) {
    throw paramError(`parameter names may nest at most ${MAX_PARAM_DEPTH} levels deep`);
  }
  const m = /^[[\]]*([^[\]]+)\]*/.exec(name);
  const key = m?.[1] ?? "";
  if (!key) return;
  refuseKey(key);
  const after = name.slice(m?.[0].length ?? 0);
  if (after === "") {
    target[key] = value;
  } else if (after === "[") {
    refuseKey(name);
    target[name] = value;
  } else if (after === "[]") {
    const list = Array.isArray(target[key]) ? (target[key] as ParamValue[]) : [];
    list.push(value);
    target[key] = list;
  } else if (after.startsWith("[]")) {
    const childMatch = /^\[\]\[([^[\]]+)\]$/.exec(after) ?? /^\[\](.+)$/.exec(after);
    const childKey = childMatch?.[1] ?? "";
    const list = Array.isArray(target[key]) ? (target[key] as ParamValue[]) : [];
    target[key] = list;
    const last = list[list.length - 1];
    if (isHash(last) && !hashHasKey(last, childKey)) {
      normalizeParam(last, childKey, value, depth + 1);
    } else {
      const fresh = paramHash();
      normalizeParam(fresh, childKey, value, depth + 1);
      list.push(fresh);
    }
  } else {
    const child = isHash(target[key]) ? (target[key] as ParamHash) : paramHash();
    target[key] = child;
    normalizeParam(child, after, value, depth + 1);
  }
}

/** JSON.parse, refusing nesting deeper than {@link MAX_JSON_DEPTH} and keys that would reach a prototype (400). */
function parseJsonBody(text: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw paramError(`the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return JSON.parse(text, (key, value: unknown) => {
    refuseKey(key);
    return value;
  });
}

function hashHasKey(hash: ParamHash, key: string): boolean {
  if (/\[\]/.test(key)) return false;
  const parts = key.split(/[[\]]+/).filter(Boolean);
  let cur: ParamValue = hash;
  for (const part of parts) {
    if (!isHash(cur) || !(part in cur)) return false;
    cur = cur[part] as ParamValue;
  }
  return true;
}

function decodeFormComponent(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s.replace(/\+/g, " ");
  }
}

/** Parses a query string or form-encoded body the way Rack does, at most {@link MAX_PARAMS} parameters. */
export function parseQuery(qs: string): ParamHash {
  const out = paramHash();
  let count = 0;
  // One pair at a time: a huge body is refused at its 4097th pair, never split whole.
  for (const [pair] of qs.matchAll(/[^&;]+/g)) {
    if (++count > MAX_PARAMS) tooManyParams();
    const eq = pair.indexOf("=");
    const name = decodeFormComponent(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : decodeFormComponent(pair.slice(eq + 1));
    normalizeParam(out, name, value);
  }
  return out;
}

/** Rails `to_query`: nested keys in bracket form, pairs sorted, CGI-escaped. Used by pagination links. */
export function toQuery(params: Record<string, unknown>, namespace?: string): string {
  const pairs: string[] = [];
  const walk = (value: unknown, key: string): void => {
    if (Array.isArray(value)) {
      if (value.length === 0) pairs.push(`${cgiEscape(`${key}[]`)}=`);
      for (const item of value) walk(item, `${key}[]`);
    } else if (isHash(value)) {
      for (const [k, v] of Object.entries(value)) walk(v, `${key}[${k}]`);
    } else if (isUploadedFile(value)) {
      // files never appear in links
    } else {
      pairs.push(
        `${cgiEscape(key)}=${cgiEscape(value === null || value === undefined ? "" : String(value))}`,
      );
    }
  };
  for (const [k, v] of Object.entries(params)) walk(v, namespace ? `${namespace}[${k}]` : k);
  return pairs.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join("&");
}

/** Ruby `CGI.escape`: space as `+`; only alphanumerics and `_.-~` left bare. */
export function cgiEscape(s: string): string {
  return encodeURIComponent(s)
    .replace(/%20/g, "+")
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** An incoming request, parsed once. */
export interface SandboxRequest {
  method: string;
  /** The raw (still percent-encoded) path, without the query string. */
  path: string;
  rawQuery: string;
  query: ParamHash;
  /** Parameters from the body (JSON object, form fields or multipart fields). */
  body: ParamHash;
  /** The parsed JSON body of any shape, when the body was JSON. */
  json: unknown;
  rawBody: Buffer;
  headers: IncomingHttpHeaders;
  header(name: string): string | undefined;
}

/** Parses the body by its Content-Type. Throws a 400 for JSON that does not parse. */
export async function parseBody(
  headers: IncomingHttpHeaders,
  raw: Buffer,
): Promise<{ body: ParamHash; json: unknown }> {
  const ct = String(headers["content-type"] ?? "").toLowerCase();
  if (raw.length === 0) return { body: paramHash(), json: undefined };
  if (ct.includes("json")) {
    const text = raw.toString("utf8");
    if (text.trim() === "") return { body: paramHash(), json: undefined };
    let json: unknown;
    try {
      json = parseJsonBody(text);
    } catch (error) {
      if ((error as { status?: number }).status === 400) throw error;
      throw paramError("message body does not match declared format");
    }
    return { body: isHash(json) ? (json as ParamHash) : paramHash(), json };
  }
  if (ct.startsWith("multipart/form-data")) {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(raw), {
        headers: { "content-type": String(headers["content-type"]) },
      }).formData();
    } catch {
      throw paramError("message body does not match declared format");
    }
    const body = paramHash();
    let count = 0;
    for (const [name, value] of form.entries()) {
      if (++count > MAX_PARAMS) tooManyParams();
      if (typeof value === "string") {
        normalizeParam(body, name, value);
      } else {
        const file: UploadedFile = {
          kind: "file",
          filename: value.name,
          type: value.type || "application/octet-stream",
          data: Buffer.from(await value.arrayBuffer()),
        };
        normalizeParam(body, name, file);
      }
    }
    return { body, json: undefined };
  }
  // Form-encoded, and bodies without a type (curl -d defaults to form encoding).
  return { body: parseQuery(raw.toString("utf8")), json: undefined };
}
