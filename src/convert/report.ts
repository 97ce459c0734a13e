/**
 * What a conversion could not carry over, the secrets it turned into environment references, and the values a
 * person should look at: each item with its place in the source and why. Never a secret's value.
 */
import { maskCredentials } from "../manifest/credentials.js";
import { type Place, placeText } from "./source.js";

export type ItemType = "not-converted" | "secret" | "check";

export interface ReportItem {
  type: ItemType;
  /** Where the source wrote it. */
  at: Place;
  /** What it is, in the source's own terms (`projects_and_groups["acme/*"].integrations`). */
  source: string;
  /** Why it was not converted, what the reference stands for, or what to check. */
  message: string;
  /** For a secret: the environment variable the manifests read it from. */
  env?: string;
}

export interface ReportFile {
  /** The file's name in the output directory. */
  name: string;
}

/** The items of one conversion, in the order the sources wrote them. */
export class Report {
  readonly items: ReportItem[] = [];

  readonly #seen = new Set<string>();

  notConverted(at: Place, source: string, message: string): void {
    this.add({ type: "not-converted", at, source, message });
  }

  check(at: Place, source: string, message: string): void {
    this.add({ type: "check", at, source, message });
  }

  secret(at: Place, source: string, env: string, message: string): void {
    this.add({ type: "secret", at, source, message, env });
  }

  /** One item once: a source value written into two entries (a group and its subgroups) is reported once. */
  private add(raw: ReportItem): void {
    // A source's path may hold a credential (GitLabForm keys hooks by their URL, `?key=...`): never shown.
    const item = { ...raw, source: maskCredentials(raw.source), message: maskCredentials(raw.message) };
    const key = JSON.stringify([
      item.type,
      item.at.file,
      item.at.line,
      item.at.col,
      item.source,
      item.message,
    ]);
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    this.items.push(item);
  }

  /**
   * Leaves out the items about what lies under a path that was not converted as a whole (a level written
   * differently inside a collection this version cannot take): only the collection is reported.
   */
  dropUnder(sources: readonly string[]): void {
    const under = (s: string) => sources.some((p) => s.startsWith(`${p}.`) || s.startsWith(`${p}[`));
    for (let i = this.items.length - 1; i >= 0; i--)
      if (this.items[i]!.type === "check" && under(this.items[i]!.source)) this.items.splice(i, 1);
  }

  /** Items in source order (file, line, column), each kind of item together. */
  sorted(): ReportItem[] {
    const rank: Record<ItemType, number> = { "not-converted": 0, secret: 1, check: 2 };
    return [...this.items].sort(
      (a, b) =>
        rank[a.type] - rank[b.type] ||
        a.at.file.localeCompare(b.at.file) ||
        a.at.line - b.at.line ||
        a.at.col - b.at.col,
    );
  }
}

const HEADINGS: Record<ItemType, (n: number) => string> = {
  "not-converted": (n) => `Not converted (${n}):`,
  secret: (n) =>
    `Secrets (${n}), read from environment variables: set ${n === 1 ? "it" : "them"} before planning:`,
  check: (n) => `To check (${n}):`,
};

/** The report as text: one heading per kind of item, one line per item (`file:line:col  source: message`). */
export function renderReportText(
  report: Report,
  from: string,
  files: readonly ReportFile[],
  shown: (text: string) => string,
): string {
  const lines: string[] = [];
  const items = report.sorted();
  for (const type of ["not-converted", "secret", "check"] as const) {
    const of = items.filter((i) => i.type === type);
    if (of.length === 0) continue;
    if (lines.length > 0) lines.push("");
    lines.push(HEADINGS[type](of.length));
    for (const i of of) {
      const where = shown(placeText(i.at));
      lines.push(
        type === "secret"
          ? `  ${shown(i.env ?? "")}  ${where}  ${shown(i.source)}: ${shown(i.message)}`
          : `  ${where}  ${shown(i.source)}: ${shown(i.message)}`,
      );
    }
  }
  const counts = (["not-converted", "secret", "check"] as const).map(
    (t) => items.filter((i) => i.type === t).length,
  );
  if (lines.length > 0) lines.push("");
  lines.push(
    `Converted from ${from} into ${files.length} file${files.length === 1 ? "" : "s"}: ${counts[0]} not converted, ${counts[1]} secret${counts[1] === 1 ? "" : "s"} as environment variables, ${counts[2]} to check.`,
  );
  return `${lines.join("\n")}\n`;
}

/** The report as JSON, versioned like the other machine forms. */
export function renderReportJson(report: Report, from: string, files: readonly ReportFile[]): string {
  return `${JSON.stringify(
    {
      format_version: 1,
      from,
      files: files.map((f) => f.name),
      items: report.sorted().map((i) => ({
        type: i.type,
        file: i.at.file,
        line: i.at.line,
        col: i.at.col,
        ...(i.at.pointer !== undefined ? { pointer: i.at.pointer } : {}),
        source: i.source,
        message: i.message,
        ...(i.env !== undefined ? { env: i.env } : {}),
      })),
    },
    null,
    2,
  )}\n`;
}
