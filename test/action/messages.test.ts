/**
 * Every message the Action's shared code can print is worded for the Action: no command-line flag survives
 * inActionTerms. The messages are read from the sources the bundle shares with the CLI (the client, the engine, the
 * kinds, the manifest loader, and the CLI modules the Action calls), so a new message naming a flag that has no
 * input, or no wording for the Action, fails here.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { inActionTerms } from "../../src/action/inputs.js";
import { ROOT } from "./helpers.js";

const SHARED = [
  "src/api",
  "src/engine",
  "src/kinds",
  "src/manifest",
  "src/plan",
  "src/files",
  "src/report",
  "src/cli/connection.ts",
  "src/cli/workflow.ts",
  "src/cli/changed-since.ts",
  "src/cli/validate.ts",
];

/** Lines that hold a flag but are not a message the Action prints. */
const NOT_MESSAGES = [
  /^\s*(\*|\/\/|\/\*)/, // comments
  /\.(option|addOption|requiredOption)\(/, // commander's option definitions (the CLI's --help)
  /^\s*"--[a-z-]+(?: <[^>]+>)?",$/, // the flag of a definition spread over lines
  /\bgit(Bytes)?\(|execFileSync\("git"/, // git's own arguments
  /drift --format json/, // `forgeform report merge` reading its input files: CLI only
];

function sources(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full).isDirectory()) return [full];
  return readdirSync(full).flatMap((entry) => sources(join(path, entry)));
}

describe("messages in the Action", () => {
  const lines = SHARED.flatMap(sources)
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".gen.ts"))
    .flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((text, i) => ({ where: `${relative(ROOT, file)}:${i + 1}`, text })),
    )
    .filter(({ text }) => /["`'][^"`']*--[a-z]/.test(text) && !NOT_MESSAGES.some((re) => re.test(text)));

  it("finds the messages that name flags", () => {
    expect(lines.length).toBeGreaterThan(20);
  });

  it("words every one of them without a command-line flag", () => {
    const leaks = lines
      .map(({ where, text }) => ({ where, said: inActionTerms(text.trim()) }))
      .filter(({ said }) => /--[a-z]/.test(said))
      .map(({ where, said }) => `${where}: ${said}`);
    expect(leaks).toEqual([]);
  });

  it("says what to do in the Action's terms", () => {
    expect(
      inActionTerms(
        'names one object; a target is a group or project path with everything below it, or "instance": use --target "acme/api" (and --replace ADDRESS to replace one object)',
      ),
    ).toBe(
      'names one object; a target is a group or project path with everything below it, or "instance": put "acme/api" in the targets input (and the address in the replace input to replace one object)',
    );
    expect(inActionTerms("raise the limit with --max-list-mb")).toBe(
      "raise the limit with the max-list-mb input",
    );
    expect(inActionTerms("raise the limit with --max-response-mb")).toBe(
      "raise the limit with the max-response-mb input",
    );
    expect(inActionTerms("3 files valid (secret references not resolved: --no-secrets)")).toBe(
      "3 files valid (secret references not resolved: no-secrets is true)",
    );
    expect(
      inActionTerms(
        "its parent group acme does not exist and is outside the plan's --target, so it is not created: add --target acme",
      ),
    ).toBe(
      "its parent group acme does not exist and is outside the targets input, so it is not created: add acme to the targets input",
    );
    expect(
      inActionTerms("fix that and apply again, or apply with --no-backup to delete it without one"),
    ).toBe("fix that and apply again, or set the no-backup input to delete it without one");
  });
});
