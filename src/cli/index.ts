import { readFileSync } from "node:fs";
import { Command, CommanderError } from "commander";
import { escapeText } from "../text/escape.js";
import { registerApply } from "./apply.js";
import { registerCompletion } from "./completion.js";
import { registerConvert } from "./convert.js";
import { registerDrift } from "./drift.js";
import { registerExplain } from "./explain.js";
import { registerExport } from "./export.js";
import { type Io, processIo } from "./io.js";
import { registerPlan } from "./plan.js";
import { registerReport } from "./report.js";
import { registerSandbox } from "./sandbox.js";
import { registerValidate } from "./validate.js";

export { type Io, processIo, wantsColor } from "./io.js";

/** The package version, read from package.json next to the build output. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/**
 * Builds the command tree. Each command lives in its own file in src/cli/ and registers itself here;
 * a command's action returns its exit code through `setExit`.
 */
export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const program = new Command("forgeform")
    .description(
      "Configuration as code for your code-hosting and software-delivery platform:\n" +
        "validate manifests, plan and apply changes, report drift.",
    )
    .version(packageVersion(), "-V, --version")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride();
  registerValidate(program, io, setExit);
  registerPlan(program, io, setExit);
  registerApply(program, io, setExit);
  registerSandbox(program, io, setExit);
  registerDrift(program, io, setExit);
  registerExport(program, io, setExit);
  registerConvert(program, io, setExit);
  registerExplain(program, io, setExit);
  registerReport(program, io, setExit);
  registerCompletion(program, io, setExit);
  void setExit;
  return program;
}

/** Runs the CLI and resolves to the process exit code. Never throws. */
export async function main(argv: string[], io: Io = processIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? 0 : error.exitCode === 1 ? 1 : error.exitCode;
    }
    // The message may quote the platform or a manifest: control characters are shown escaped.
    io.err(`forgeform: ${escapeText(error instanceof Error ? error.message : String(error))}\n`);
    return 1;
  }
  return code;
}
