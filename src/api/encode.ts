/** Query strings, form bodies and JSON bodies, with `Secret` values revealed only into the wire format. */

import { isSecret, type Secret } from "../manifest/secret.js";

type Scalar = string | number | boolean | Secret;

/**
 * A query or form value. Arrays are sent as `k[]=v`, one level of object as `k[sub]=v` (trigger variables);
 * `undefined` and `null` are left out. `Secret` values are revealed into the request only.
 */
export type QueryValue =
  | Scalar
  | null
  | undefined
  | readonly Scalar[]
  | { readonly [key: string]: Scalar | null | undefined };

function scalar(value: Scalar, revealed: string[]): string {
  if (isSecret(value)) {
    const plain = value.reveal();
    revealed.push(plain);
    return plain;
  }
  return String(value);
}

/**
 * URL-encodes parameters (`application/x-www-form-urlencoded`, also used for query strings). Secret values
 * revealed on the way are pushed onto `revealed`, so error text echoing them can be masked.
 */
export function encodeParams(params: Record<string, QueryValue>, revealed: string[] = []): string {
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value as readonly Scalar[]) out.append(`${key}[]`, scalar(item, revealed));
    } else if (typeof value === "object" && !isSecret(value)) {
      for (const [sub, item] of Object.entries(value as Record<string, Scalar | null | undefined>)) {
        if (item !== undefined && item !== null) out.append(`${key}[${sub}]`, scalar(item, revealed));
      }
    } else {
      out.append(key, scalar(value as Scalar, revealed));
    }
  }
  return out.toString();
}

/** JSON text of a request body, `Secret` values revealed (their `toJSON` would otherwise mask them). */
export function encodeJson(body: unknown, revealed: string[] = []): string {
  const reveal = (value: unknown): unknown => {
    if (isSecret(value)) {
      const plain = value.reveal();
      revealed.push(plain);
      return plain;
    }
    if (Array.isArray(value)) return value.map(reveal);
    if (value !== null && typeof value === "object" && !(value instanceof Date)) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, reveal(v)]));
    }
    return value;
  };
  return JSON.stringify(reveal(body));
}
