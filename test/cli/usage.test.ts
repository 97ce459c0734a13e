/**
 * The CLI's usage, in-process (src/cli/index.ts): help and the version on stdout with exit 0, bad usage said once
 * on stderr with a hint and exit 1.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
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
    expect(run.out).toMatch(/^ {2}apply \[options\] \[paths\.\.\.\] +Make the changes/m);
  });

  it("prints a command's help, exit 0", async () => {
    const run = await runCli(["drift", "--help"], {});
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
    expect(run.out).toMatch(/^Usage: forgeform drift \[options\] \[paths\.\.\.\]\n/);
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
});
