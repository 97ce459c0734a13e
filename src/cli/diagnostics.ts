/**
 * Manifest diagnostics as the commands print them: one `file:line:col: path: message` line each (control
 * characters escaped: messages quote the manifests), then a count.
 */
import { type Diagnostic, formatDiagnostic } from "../manifest/index.js";
import { escapeText } from "../text/escape.js";

export function formatDiagnostics(diagnostics: Diagnostic[]): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  const lines = diagnostics.map((d) => escapeText(formatDiagnostic(d)));
  const counts = [
    errors ? `${errors} error${errors === 1 ? "" : "s"}` : "",
    warnings ? `${warnings} warning${warnings === 1 ? "" : "s"}` : "",
  ]
    .filter(Boolean)
    .join(", ");
  if (errors > 0) lines.push(`${counts}: nothing was sent to the platform.`);
  else if (warnings > 0) lines.push(counts);
  return lines.length > 0 ? `${lines.join("\n")}\n` : "";
}
