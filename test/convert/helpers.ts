/** Converting inline sources in tests: the written files parsed back, and the report's items. */
import { parse } from "yaml";
import { convert, type ReportItem, type Tool } from "../../src/convert/index.js";

export interface Converted {
  /** Each written file's manifest, parsed (references as written: `${env:NAME}`). */
  files: Record<string, Record<string, unknown>>;
  /** Each written file's text. */
  texts: Record<string, string>;
  items: ReportItem[];
  /** Items of one type, as `line: source: message` for readable assertions. */
  of: (type: ReportItem["type"]) => ReportItem[];
}

/**
 * Converts sources given as `{name: text}`, the first being the file named on the command line. `fit: false`:
 * the converter's own output, in the language of forgeform with every kind (not held against this version's
 * schemas), which is what the converters' tests look at.
 */
export function convertText(
  from: Tool,
  sources: Record<string, string>,
  options: { first?: string; fit?: boolean } = {},
): Converted {
  const first = options.first;
  const names = first ? [first] : Object.keys(sources).slice(0, from === "gitlabracadabra" ? 1 : undefined);
  const result = convert({
    from,
    sources: names.map((name) => ({ name, text: sources[name]! })),
    read: (name) => (sources[name] === undefined ? undefined : { name, text: sources[name] }),
    schemaRef: "schema.json",
    version: "9.9.9",
    fit: options.fit ?? false,
  });
  const files: Record<string, Record<string, unknown>> = {};
  const texts: Record<string, string> = {};
  for (const f of result.files) {
    texts[f.name] = f.text;
    files[f.name] = parse(f.text) as Record<string, unknown>;
  }
  const items = result.report.sorted();
  return { files, texts, items, of: (type) => items.filter((i) => i.type === type) };
}

/** The value at a path of a parsed manifest. */
export function at(manifest: Record<string, unknown> | undefined, ...path: (string | number)[]): unknown {
  let v: unknown = manifest;
  for (const p of path) v = (v as Record<string | number, unknown> | undefined)?.[p];
  return v;
}
