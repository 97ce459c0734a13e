import { inspect } from "node:util";

const MASK = "(sensitive)";

/**
 * A value that must never be printed: resolved `${env:}` / `${file:}` references, tokens, write-only settings.
 * Every textual form (String(), JSON.stringify, util.inspect, template literals) yields a mask; only `reveal()`
 * gives the value, and only the API request body should call it.
 */
export class Secret {
  readonly #value: string;
  /** Where the value came from, safe to print: `env:HOOK_TOKEN`, `file:secrets/token.txt`, or `literal`. */
  readonly origin: string;
  /**
   * The value as it may be shown: the manifest's text with each reference masked
   * (`https://h/?key=(sensitive)`), or just the mask when the whole value is secret.
   */
  readonly shown: string;
  /** The value was not resolved (`validate --no-secrets`): it is unknown, not empty. */
  readonly unresolved: boolean;

  constructor(value: string, origin: string, shown: string = MASK, unresolved = false) {
    this.#value = value;
    this.origin = origin;
    this.shown = shown;
    this.unresolved = unresolved;
  }

  reveal(): string {
    return this.#value;
  }

  /** Compares two secrets (or a secret and a plain string) without revealing either. */
  equals(other: unknown): boolean {
    if (other instanceof Secret) return other.#value === this.#value;
    return typeof other === "string" && other === this.#value;
  }

  toString(): string {
    return MASK;
  }

  toJSON(): string {
    return MASK;
  }

  [inspect.custom](): string {
    return MASK;
  }

  static readonly mask = MASK;
}

export function isSecret(value: unknown): value is Secret {
  return value instanceof Secret;
}

/** True when a Secret sits anywhere inside the value. */
export function containsSecret(value: unknown): boolean {
  if (value instanceof Secret) return true;
  if (Array.isArray(value)) return value.some(containsSecret);
  if (value !== null && typeof value === "object") return Object.values(value).some(containsSecret);
  return false;
}

/** Replaces every Secret inside a value with its mask (for plan files, reports and logs). */
export function maskSecrets(value: unknown): unknown {
  if (value instanceof Secret) return MASK;
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskSecrets(v)]));
  }
  return value;
}

/** Replaces every Secret inside a value with its real value (for API request bodies only). */
export function revealSecrets(value: unknown): unknown {
  if (value instanceof Secret) return value.reveal();
  if (Array.isArray(value)) return value.map(revealSecrets);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revealSecrets(v)]));
  }
  return value;
}
