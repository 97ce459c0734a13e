import { type Command, Option } from "commander";
import { type Diagnostic, formatDiagnostic, loadManifests } from "../manifest/index.js";
import { plural } from "../report/common.js";
import { renderValidationJson } from "../report/validation.js";
import { escapeText } from "../text/escape.js";
import type { Io } from "./io.js";
import { rootOption } from "./plan.js";

interface ValidateOptions {
  format: "text" | "json";
  secrets: boolean;
  root?: string;
}

/** Text form: one `file:line:col: path: message` line per finding (control characters escaped), then a summary line. */
export function renderValidateText(diagnostics: Diagnostic[], files: number, secrets: boolean): string {
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.length - errors;
  const lines = diagnostics.map((d) => escapeText(formatDiagnostic(d)));
  const note = secrets ? "" : " (secret references not resolved: --no-secrets)";
  if (errors > 0) {
    lines.push(
      `${plural(errors, "error")}${warnings ? `, ${plural(warnings, "warning")}` : ""}: the manifests are invalid`,
    );
  } else {
    lines.push(
      `${plural(files, "file")} valid${warnings ? ` with ${plural(warnings, "warning")}` : ""}${note}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `forgeform validate [paths...]`: checks manifests without contacting the platform. */
export function registerValidate(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("validate")
    .summary("Check manifests without contacting the platform.")
    .description(
      "Check manifests (files or directories; *.yaml/*.yml with a top-level `version` key) without contacting " +
        "the platform. Exit 0 when valid (warnings are printed), 1 when not.",
    )
    .argument("[paths...]", "manifest files or directories", ["."])
    .addOption(new Option("--format <format>", "output format").choices(["text", "json"]).default("text"))
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the help text shows the reference syntax
    .option("--no-secrets", "do not resolve ${env:} and ${file:} references; check everything else")
    .addOption(rootOption())
    .action(async (paths: string[], options: ValidateOptions) => {
      const result = await loadManifests(paths, {
        secrets: options.secrets,
        ...(options.root ? { root: options.root } : {}),
      });
      const errors = result.diagnostics.filter((d) => d.severity === "error").length;
      const files = result.files;
      if (options.format === "json") {
        io.out(renderValidationJson(result.diagnostics, files, options.secrets));
      } else {
        io.out(renderValidateText(result.diagnostics, files.length, options.secrets));
      }
      setExit(errors > 0 ? 1 : 0);
    });
}
