/**
 * Terminal safety, in one place. Names, descriptions, addresses and error messages come from manifests and from
 * the platform, and either may be hostile: an error text holding `ESC]0;title BEL` retitles the terminal,
 * `ESC[2J` clears it, a carriage return overwrites the line before it, and a right-to-left override (U+202E) makes
 * `txt.exe` read as `exe.txt`. Every renderer and every line the CLI prints passes such text through these
 * functions, which write those characters out as visible escapes (`\x1b`, `\u202e`) instead.
 *
 * What is escaped: C0 control characters (U+0000-U+001F; newline and tab are kept in multi-line text), DEL
 * (U+007F), C1 control characters (U+0080-U+009F, which some terminals read as ESC sequences), and the
 * bidirectional formatting characters (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
 */

/** The bidirectional formatting characters, as a regular-expression class body. */
const BIDI = "\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069";

/** Characters a terminal acts on or that reorder text; `\n` and `\t` are matched too (single-line text). */
const UNSAFE_IN_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI}]`, "g");

/** The same, but newline and tab are kept (multi-line text: messages, reasons). */
const UNSAFE_IN_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${BIDI}]`, "g");

/** Characters JSON.stringify leaves as they are but a terminal or an editor should not see raw. */
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${BIDI}\\u2028\\u2029]`, "g");

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** Text for one line of output: every control and bidirectional character escaped, newlines and tabs included. */
export function escapeLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, visible);
}

/** Multi-line text (messages, reasons): like escapeLine, but newlines and tabs stay as they are. */
export function escapeText(text: string): string {
  return text.replace(UNSAFE_IN_TEXT, visible);
}

/**
 * JSON text with the characters JSON.stringify leaves raw (DEL, C1 controls, bidirectional formatting, line and
 * paragraph separators) written as `\uXXXX` escapes: the same JSON value, safe to print.
 */
export function escapeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
