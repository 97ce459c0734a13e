/**
 * Label colours as the platform reads them: `#` and 3 or 6 hex digits, kept as written, or a CSS colour name, which
 * the platform stores as its hex value (`red` -> `#FF0000`). The names are those of CSS 3, the list the platform
 * converts (13.12 has no `rebeccapurple`, a CSS 4 name), taken from the `color-name` package.
 */
import cssColors from "color-name";

/** Names the platform's list does not have (CSS 4). */
const NEWER_NAMES = new Set(["rebeccapurple"]);

const HEX = /^#(?:[0-9a-f]{3}){1,2}$/i;

/** The hex form (`#rrggbb`, lower case) of a CSS colour name the platform converts, or undefined. */
export function namedColor(name: string): string | undefined {
  const key = name.trim().toLowerCase();
  if (NEWER_NAMES.has(key) || !Object.hasOwn(cssColors, key)) return undefined;
  const rgb = cssColors[key]!;
  return `#${rgb.map((c) => c.toString(16).padStart(2, "0")).join("")}`;
}

/** Whether the platform takes `value` as a label colour. */
export function isLabelColor(value: string): boolean {
  return HEX.test(value.trim()) || namedColor(value) !== undefined;
}

/**
 * The colour a label value stands for, to compare two spellings: `#rrggbb` in lower case (`#FFF`, `#ffffff` and
 * `white` are the same colour); anything else as written, trimmed.
 */
export function canonicalColor(value: string): string {
  const v = value.trim();
  if (HEX.test(v)) {
    const digits = v.slice(1).toLowerCase();
    return `#${digits.length === 3 ? [...digits].map((d) => d + d).join("") : digits}`;
  }
  return namedColor(v) ?? v;
}
