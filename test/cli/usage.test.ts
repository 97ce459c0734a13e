/**
 * The CLI's usage, in-process (src/cli/index.ts): help and the version on stdout with exit 0, bad usage said once
 * on stderr with a hint and exit 1; every command's help explains it, its arguments and its options.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/index.js";
import { runCli } from "../integration/helpers.js";

const VERSION = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

describe("forgeform's usage", () => {
  it("prints help listing the program name and its commands, exit 0", async () => {
    const run = await runCli(["--help"], {});
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
    expect(run.out).toMatch(/^Usage: forgeform \[options\] \[command\]\n/);
    // Each command with its summary (wrapped to the width: compared with the line breaks taken out).
    const commands = run.out.slice(run.out.indexOf("Commands:")).replace(/\s+/g, " ");
    expect(commands).toBe(
      "Commands: " +
        "validate [options] [paths...] Check manifests without contacting the platform. " +
        "plan [options] [paths...] Show the changes apply would make. Changes nothing. " +
        "apply [options] [paths...] Make the changes (from manifests or a saved plan). " +
        "sandbox [options] Run the built-in local platform (for trying manifests, tests and demos). " +
        "drift [options] [paths...] Report drift from the manifests. Changes nothing. " +
        "export [options] Write manifests that describe the live state. " +
        "convert [options] <files...> Write manifests from another tool's configuration. " +
        "explain [options] <path> [paths...] Show the effective configuration of one group or project, and where each part comes from. " +
        "report Work with reports (merge the drift reports of shards). " +
        "completion <shell> Print a shell completion script (bash, zsh or fish). " +
        "help [command] display help for command ",
    );
  });

  it("prints a command's help, exit 0", async () => {
    const run = await runCli(["apply", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
    expect(run.out).toMatch(/^Usage: forgeform apply \[options\] \[paths\.\.\.\]\n\n/);
    // Its description, wrapped to the width.
    expect(run.out.split("\n\n")[1]?.replace(/\s+/g, " ")).toBe(
      "Make the changes a plan shows: from manifests, or from a plan saved with `plan --out`.",
    );
  });

  it("prints the help of a command that only groups others, with its description", async () => {
    const run = await runCli(["report", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^Usage: forgeform report \[options\] \[command\]\n\n/);
    expect(run.out.split("\n\n")[1]?.replace(/\s+/g, " ")).toBe(
      "Work with the reports plan and drift write: `forgeform report merge` makes one drift report of the reports of a run's shards (drift --shard K/N).",
    );
  });

  it("prints the package's version, exit 0", async () => {
    expect(await runCli(["--version"], {})).toEqual({ code: 0, out: `${VERSION}\n`, err: "" });
  });

  it.each([
    { args: ["frobnicate"], error: "error: unknown command 'frobnicate'" },
    { args: ["plan", "--bogus"], error: "error: unknown option '--bogus'" },
    { args: ["explain"], error: "error: missing required argument 'path'" },
  ])("says once what is wrong with $args, with a hint, exit 1", async ({ args, error }) => {
    expect(await runCli(args, {})).toEqual({
      code: 1,
      out: "",
      err: `${error}\n(run with --help for usage)\n`,
    });
  });

  it("explains, in each command's help, the command, each of its arguments and each of its options", async () => {
    // The commands that run something (report only groups report merge).
    const commands: { path: string[]; cmd: Command }[] = [];
    const walk = (parent: Command, path: string[]) => {
      for (const cmd of parent.commands) {
        if (cmd.commands.length === 0) commands.push({ path: [...path, cmd.name()], cmd });
        walk(cmd, [...path, cmd.name()]);
      }
    };
    walk(
      buildProgram({ out: () => undefined, err: () => undefined }, () => undefined),
      [],
    );
    expect(commands.map((c) => c.path)).toContainEqual(["report", "merge"]);
    for (const { path, cmd } of commands) {
      const name = path.join(" ");
      const run = await runCli([...path, "--help"], {});
      expect(run.code, name).toBe(0);
      const [usage, description, ...sections] = run.out.trimEnd().split("\n\n");
      expect(usage, name).toMatch(new RegExp(`^Usage: forgeform ${name} `));
      // The description, then the arguments and options, each with its own words (not only its default).
      expect(description, name).toMatch(/^[A-Z]/);
      expect(description, name).not.toMatch(/^(Arguments|Options|Commands):\n/);
      const items = (title: string) =>
        sections
          .find((s) => s.startsWith(`${title}:\n`))
          ?.split(/\n(?= {2}\S)/)
          .slice(1) ?? [];
      expect(items("Arguments"), name).toHaveLength(cmd.registeredArguments.length);
      expect(items("Options"), name).toHaveLength(cmd.options.length + 1);
      for (const item of [...items("Arguments"), ...items("Options")]) {
        const explained = /^ {2}\S.*?\s{2,}(\S[\s\S]*)$/.exec(item)?.[1];
        expect(explained, `${name}: ${item}`).toMatch(/^[^(\s]/);
      }
    }
  });
});
