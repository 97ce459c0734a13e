/**
 * `forgeform convert --from gitlabform|gitlabracadabra|terraform FILE... --out DIR`: another tool's configuration
 * as manifests, and a report of what could not be converted (each item with its place in the source and why),
 * the secrets made environment references, and the values to check. Never overwrites a file without `--force`;
 * checks what it wrote as `validate --no-secrets` would.
 */
import { readFileSync, realpathSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { type Command, Option } from "commander";
import {
  checkOutput,
  convert,
  renderReportJson,
  renderReportText,
  SourceError,
  type SourceFile,
  TOOLS,
  type Tool,
} from "../convert/index.js";
import { readTextFile } from "../files/read.js";
import { entryExists, writeFileSafely } from "../files/write.js";
import { escapeLine, escapeText } from "../text/escape.js";
import { schemaUrl } from "./export.js";
import type { Io } from "./io.js";

/** Largest source read: a Terraform state of a large instance is big, but not this big. */
const MAX_SOURCE_BYTES = 256 * 1024 * 1024;

function packageVersion(): string {
  return (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
}

export function registerConvert(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("convert")
    .summary("Write manifests from another tool's configuration.")
    .description(
      "Convert a GitLabForm config.yml, gitlabracadabra action files, or a Terraform state of the platform's provider " +
        "(terraform show -json) into forgeform manifests in --out, and report what could not be converted, each item " +
        "with its place in the source and why. Secrets become environment variable references, never written in clear.",
    )
    .addOption(
      new Option("--from <tool>", "the tool the files are written for")
        .choices([...TOOLS])
        .makeOptionMandatory(),
    )
    .argument(
      "<files...>",
      "the source files (GitLabForm: one config.yml; gitlabracadabra: action files; terraform: state JSON)",
    )
    .option("--out <dir>", "directory to write the manifests to (created if missing)", ".")
    .option("--force", "overwrite files that exist already (otherwise convert refuses, writing nothing)")
    .addOption(
      new Option("--format <format>", "how the report is printed").choices(["text", "json"]).default("text"),
    )
    .option(
      "--schema-ref <ref>",
      "the $schema each file names (default: the versioned schema URL on unpkg.com; a relative path works offline)",
    )
    .action(async (files: string[], opts: Record<string, unknown>) => {
      const from = opts["from"] as Tool;
      const outDir = resolve(String(opts["out"]));
      const read = (name: string): SourceFile => {
        try {
          return { name, text: readTextFile(name, { maxBytes: MAX_SOURCE_BYTES }) };
        } catch (error) {
          throw new Error(`cannot read ${name}: ${(error as Error).message}`);
        }
      };
      let result: ReturnType<typeof convert>;
      try {
        const sources = files.map(read);
        result = convert({
          from,
          sources,
          // gitlabracadabra's include: a file next to the including one (the converter refuses `..` and `/`).
          read: (name) => {
            try {
              return read(name);
            } catch {
              return undefined;
            }
          },
          schemaRef: (opts["schemaRef"] as string | undefined) ?? schemaUrl(),
          version: packageVersion(),
        });
      } catch (error) {
        const message = error instanceof SourceError ? error.message : (error as Error).message;
        io.err(`forgeform convert: ${escapeText(message)}\n`);
        setExit(1);
        return;
      }
      const targets = result.files.map((f) => join(outDir, f.name));
      const outside = targets.find((t) => relative(outDir, t).startsWith(".."));
      if (outside !== undefined) {
        io.err(`forgeform convert: ${escapeLine(outside)} would be outside --out: nothing was written\n`);
        setExit(1);
        return;
      }
      const existing = targets.filter((f) => entryExists(f));
      if (existing.length > 0 && opts["force"] !== true) {
        io.err(
          `forgeform convert: ${existing.map((f) => escapeLine(f)).join(", ")} ${existing.length === 1 ? "exists" : "exist"} already: nothing was written. Pass --force to overwrite, or --out another directory\n`,
        );
        setExit(1);
        return;
      }
      for (const [i, file] of result.files.entries()) {
        writeFileSafely(targets[i]!, file.text, { directoryMode: 0o777 });
        if (opts["format"] !== "json") io.err(`Wrote ${escapeLine(targets[i]!)}\n`);
      }
      // What was written is checked as plan would check it (without secrets): a value the source allowed and
      // forgeform does not is reported at its place in the output.
      // Nothing written (nothing could be converted): nothing to check, and --out was not made.
      const root = targets.length === 0 ? undefined : realpathSync(outDir);
      const valid =
        root === undefined
          ? true
          : await checkOutput(
              targets.map((t) => join(root, relative(outDir, t))),
              root,
              result.report,
            );
      const names = result.files.map((f) => ({
        name: relative(process.cwd(), join(outDir, f.name)) || f.name,
      }));
      io.out(
        opts["format"] === "json"
          ? renderReportJson(result.report, from, names)
          : renderReportText(result.report, from, names, escapeLine),
      );
      if (!valid)
        io.err(
          "forgeform convert: the written manifests do not validate: fix the places listed under To check (forgeform validate shows them too)\n",
        );
      setExit(valid ? 0 : 1);
    });
}
