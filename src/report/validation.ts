/** The JSON form of `validate` (format_version 1, kind "validation"), shared by the CLI and the Action. */
import type { Diagnostic } from "../manifest/index.js";
import { PLAN_FORMAT_VERSION } from "../plan/model.js";
import { escapeJson } from "../text/escape.js";

export function renderValidationJson(
  diagnostics: Diagnostic[],
  files: string[],
  secretsResolved: boolean,
): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const report = {
    format_version: PLAN_FORMAT_VERSION,
    kind: "validation",
    valid: errors === 0,
    files,
    errors,
    warnings: diagnostics.length - errors,
    secretsResolved,
    diagnostics,
  };
  return `${escapeJson(JSON.stringify(report, null, 2))}\n`;
}
