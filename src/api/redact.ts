/** Keeps tokens and other secret values out of every line and error the client produces. */

import { spellings } from "../manifest/secret.js";

export const REDACTED = "[REDACTED]";

/** Query parameters that carry credentials on the platform (`?private_token=`, `?access_token=`, `?job_token=`). */
const CREDENTIAL_PARAM = /([?&;](?:private_token|access_token|job_token|token)=)[^&#\s"'<>]*/gi;

export class Redactor {
  readonly #secrets = new Set<string>();
  /** Every spelling of every secret (as is, URL- and form-encoded), longest first, matched whatever the case: built on first use. */
  #pattern: RegExp | null | undefined;

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) this.add(secret);
  }

  /** Adds a value that must never be printed. Very short values are ignored: masking them would mangle text. */
  add(secret: string | undefined): void {
    if (secret !== undefined && secret.length >= 4) {
      this.#secrets.add(secret);
      this.#pattern = undefined;
    }
  }

  /** A redactor that also masks `extra` (values revealed into one request body). */
  with(extra: Iterable<string>): Redactor {
    const copy = new Redactor(this.#secrets);
    for (const secret of extra) copy.add(secret);
    return copy;
  }

  /**
   * The text with every secret masked: as it is, URL- or form-encoded, and in any mix of upper and lower case (a server
   * that echoes a token upper-cased still shows it), and every credential parameter of a URL.
   */
  text(value: string): string {
    if (this.#pattern === undefined) {
      const forms = [...this.#secrets].flatMap(spellings);
      // Longest first, so a secret containing another one is masked whole.
      const alternatives = [...new Set(forms)]
        .sort((a, b) => b.length - a.length)
        .map((form) => form.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&"));
      this.#pattern = alternatives.length > 0 ? new RegExp(alternatives.join("|"), "gi") : null;
    }
    const out = value.replace(CREDENTIAL_PARAM, `$1${REDACTED}`);
    return this.#pattern ? out.replace(this.#pattern, REDACTED) : out;
  }

  /** Redacts every string inside a JSON-like value (keys included). */
  value(value: unknown): unknown {
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [this.text(k), this.value(v)]));
    }
    return value;
  }
}
