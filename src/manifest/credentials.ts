/**
 * Credentials inside URLs, which export must not write into files meant for git, and a plan must not show of a
 * live object (a hook's URL that an earlier commit gave a token from `${env:}`, or one set by hand): the password
 * of `user:pass@`, and the values of query parameters whose names say they are secret (`key`, `token`, `secret`,
 * `password`, `signature`, `X-Amz-Credential`...); and, for a live value no manifest names, also what looks random
 * whatever it is named (`guess`: a path segment such as a Slack hook's secret). Live values are ordinary text on
 * the platform, so this is the only way to tell.
 */

/** Where a credential sits in a text: `text.slice(start, end)` is its value as written (still URL-encoded). */
export interface Credential {
  start: number;
  end: number;
  /** What it is, for a variable name: `password`, `user`, `secret` (a path segment) or the parameter's name. */
  label: string;
  /** Where it is: the password or the user name of `user:pass@`, a path segment, a query parameter's value. */
  place: "password" | "user" | "path" | "query";
}

/** Where a credential is, in words (`the password in the URL`, `the URL's query parameter key`). */
export function credentialPlace(c: Credential): string {
  if (c.place === "query") return `the URL's query parameter ${c.label}`;
  return c.place === "path" ? "a segment of the URL's path" : `the ${c.place} in the URL`;
}

const URL_IN_TEXT = /[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const SECRET_WORD =
  /(?:^|[^a-z])(?:key|keys|token|secret|password|passwd|pwd|pass|auth|sig|signature|credentials?|apikey|session|jwt)(?:[^a-z]|$)/;
const SECRET_PART = /token|secret|passw|apikey|credential/;

/** A part of a URL decoded, or as written when an escape in it is malformed. */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Whether a query parameter's name says that its value is a secret. */
export function isSecretParameter(name: string): boolean {
  const lower = decoded(name).toLowerCase();
  return SECRET_WORD.test(lower) || SECRET_PART.test(lower);
}

/**
 * Whether a variable's or setting's name says that its value is a secret (`DEPLOY_TOKEN`, `DB_PASSWORD`,
 * `external_auth_client_key`): the same words as for query parameters.
 */
export function isSecretName(name: string): boolean {
  return isSecretParameter(name);
}

/**
 * Formats of well-known credentials, recognised by their value whatever they are named: the platform's own tokens,
 * GitHub's, Slack's, Stripe's, AWS access key ids, private keys in PEM, JSON web tokens.
 */
const TOKEN_FORMATS =
  /\b(?:gl(?:pat|dt|ptt|rt|cbt|imt|agent|oas)-[\w-]{8,}|gh[pousr]_\w{20,}|github_pat_\w{20,}|xox[abposr]-[\w-]{8,}|[sr]k_live_\w{8,}|AKIA[0-9A-Z]{16}|eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]+)|-----BEGIN [A-Z ]*PRIVATE KEY-----/;

/** Whether a value is a credential in a well-known format (`glpat-...`, `ghp_...`, a PEM private key). */
export function looksLikeCredential(value: string): boolean {
  return TOKEN_FORMATS.test(value);
}

/** A UUID, which services hand out as a hook's secret (`https://webhook.example/<uuid>`). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Shannon entropy of a text, in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / text.length) * Math.log2(n / text.length);
  return bits;
}

/**
 * Whether a part of a URL (a path segment, a query value, a user name), as written, looks like a secret whatever it
 * is named: a well-known format, a UUID, or a run of 16 or more letters and digits, both mixed in (2 of each at
 * least) and varied (3 bits per character or more): Slack's `hooks.slack.com/services/T../B../<secret>`, a
 * Mattermost hook's id, Discord's token, a hex digest. Words, dates and version numbers are not.
 */
export function looksRandom(part: string): boolean {
  const text = decoded(part);
  if (looksLikeCredential(text) || UUID.test(text)) return true;
  for (const run of text.match(/[A-Za-z0-9]{16,}/g) ?? []) {
    const digits = run.replace(/[^0-9]/g, "").length;
    if (digits >= 2 && run.length - digits >= 2 && entropy(run) >= 3) return true;
  }
  return false;
}

export interface FindOptions {
  /**
   * Also the parts that look random whatever they are named ({@link looksRandom}): path segments, query values,
   * a user name. For live values no manifest names (a hook made by hand, or by an earlier commit), where a name is
   * all there is to go by otherwise.
   */
  guess?: boolean;
}

/** Every credential in the URLs of a text, in order. */
export function findCredentials(text: string, options: FindOptions = {}): Credential[] {
  const guess = options.guess === true;
  const found: Credential[] = [];
  for (const match of text.matchAll(URL_IN_TEXT)) {
    const url = match[0];
    const at = match.index;
    const authorityStart = url.indexOf("://") + 3;
    const authorityEnd = (() => {
      const m = /[/?#]/.exec(url.slice(authorityStart));
      return m ? authorityStart + m.index : url.length;
    })();
    const authority = url.slice(authorityStart, authorityEnd);
    const atSign = authority.lastIndexOf("@");
    if (atSign >= 0) {
      const colon = authority.slice(0, atSign).indexOf(":");
      if (colon >= 0 && colon + 1 < atSign) {
        found.push({
          start: at + authorityStart + colon + 1,
          end: at + authorityStart + atSign,
          label: "password",
          place: "password",
        });
      } else if (colon < 0 && guess && looksRandom(authority.slice(0, atSign))) {
        // A token given as the user name (`https://<token>@host`).
        found.push({
          start: at + authorityStart,
          end: at + authorityStart + atSign,
          label: "user",
          place: "user",
        });
      }
    }
    const queryAt = url.indexOf("?", authorityEnd);
    const hashAt = url.indexOf("#", authorityEnd);
    const pathEnd = Math.min(queryAt < 0 ? url.length : queryAt, hashAt < 0 ? url.length : hashAt);
    if (guess) {
      let offset = authorityEnd;
      for (const segment of url.slice(authorityEnd, pathEnd).split("/")) {
        if (segment !== "" && looksRandom(segment))
          found.push({
            start: at + offset,
            end: at + offset + segment.length,
            label: "secret",
            place: "path",
          });
        offset += segment.length + 1;
      }
    }
    // A `?` in the fragment starts no query.
    if (queryAt < 0 || (hashAt >= 0 && hashAt < queryAt)) continue;
    let offset = queryAt + 1;
    for (const pair of url.slice(queryAt + 1, hashAt < 0 ? url.length : hashAt).split("&")) {
      const eq = pair.indexOf("=");
      if (
        eq > 0 &&
        eq + 1 < pair.length &&
        (isSecretParameter(pair.slice(0, eq)) || (guess && looksRandom(pair.slice(eq + 1))))
      ) {
        found.push({
          start: at + offset + eq + 1,
          end: at + offset + pair.length,
          label: pair.slice(0, eq),
          place: "query",
        });
      }
      offset += pair.length + 1;
    }
  }
  return found;
}

/** The text with each credential replaced by what `replace` gives for it. */
export function replaceCredentials(
  text: string,
  replace: (credential: Credential, value: string) => string,
  options: FindOptions = {},
): string {
  let out = "";
  let from = 0;
  for (const c of findCredentials(text, options)) {
    out += text.slice(from, c.start) + replace(c, text.slice(c.start, c.end));
    from = c.end;
  }
  return out + text.slice(from);
}

/** The text with each credential masked, as it may be shown. */
export function maskCredentials(text: string, options: FindOptions = {}): string {
  return replaceCredentials(text, () => "(sensitive)", options);
}
