import type { SourceRef } from "./model.js";

/** One finding about the manifests. `path` is the dotted path of the field (`groups["acme"].visibility`). */
export interface Diagnostic {
  severity: "error" | "warning";
  file: string;
  line: number;
  col: number;
  path: string;
  message: string;
}

/** `file:line:col: path.to.field: message` (warnings add `warning: ` before the message). */
export function formatDiagnostic(d: Diagnostic): string {
  const where = `${d.file}:${d.line}:${d.col}`;
  const what = d.severity === "warning" ? `warning: ${d.message}` : d.message;
  return d.path ? `${where}: ${d.path}: ${what}` : `${where}: ${what}`;
}

/** Formats a source reference as `file:line:col`. */
export function formatRef(ref: SourceRef): string {
  return `${ref.file}:${ref.line}:${ref.col}`;
}

/**
 * Collects diagnostics, dropping repeats of the same message at the same place (a template's error found again
 * where the template is applied).
 */
export class Diagnostics {
  readonly #items: Diagnostic[] = [];
  readonly #seen = new Set<string>();

  add(severity: Diagnostic["severity"], at: SourceRef, path: string, message: string): void {
    const d: Diagnostic = { severity, file: at.file, line: at.line, col: at.col, path, message };
    const id = `${d.severity}\u0000${d.file}:${d.line}:${d.col}\u0000${d.message}`;
    if (this.#seen.has(id)) return;
    this.#seen.add(id);
    this.#items.push(d);
  }

  error(at: SourceRef, path: string, message: string): void {
    this.add("error", at, path, message);
  }

  warning(at: SourceRef, path: string, message: string): void {
    this.add("warning", at, path, message);
  }

  /** Whether an error was reported at this very place (file, line and column). */
  hasErrorAt(at: SourceRef): boolean {
    return this.#items.some(
      (d) => d.severity === "error" && d.file === at.file && d.line === at.line && d.col === at.col,
    );
  }

  get hasErrors(): boolean {
    return this.#items.some((d) => d.severity === "error");
  }

  /** All diagnostics in file order (the order files were read), then line and column. */
  sorted(fileOrder: string[]): Diagnostic[] {
    return sortDiagnostics(this.#items, fileOrder);
  }
}

/** Diagnostics by file (in `fileOrder`), line and column; those at one place in the order they were found. */
export function sortDiagnostics(items: readonly Diagnostic[], fileOrder: readonly string[]): Diagnostic[] {
  const rank = (file: string) => {
    const i = fileOrder.indexOf(file);
    return i === -1 ? fileOrder.length : i;
  };
  return [...items].sort(
    (a, b) => rank(a.file) - rank(b.file) || a.file.localeCompare(b.file) || a.line - b.line || a.col - b.col,
  );
}

/** Diagnostics found in several loads (a plan's chunks read one file's head each), each once, in the order met. */
export function distinctDiagnostics(items: Iterable<Diagnostic>): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const d of items) {
    const id = `${d.severity}\u0000${d.file}:${d.line}:${d.col}\u0000${d.message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(d);
  }
  return out;
}

/** Renders a path of keys and indexes: identifiers join with dots, other keys are quoted in brackets. */
export function renderPath(path: ReadonlyArray<string | number>): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Damerau-free Levenshtein distance, for did-you-mean suggestions. */
function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The closest candidate to `word`, if one is close enough to be a likely typo: within a third of the longer's length
 * (at least 2 edits), or within `limit` edits when given.
 */
export function didYouMean(word: string, candidates: Iterable<string>, limit?: number): string | undefined {
  let best: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  const lower = word.toLowerCase();
  for (const c of candidates) {
    const score = distance(lower, c.toLowerCase());
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  if (best === undefined) return undefined;
  const most = limit ?? Math.max(2, Math.floor(Math.max(word.length, best.length) / 3));
  return bestScore <= most ? best : undefined;
}
