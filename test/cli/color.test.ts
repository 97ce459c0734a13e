/**
 * When the CLI colours its output: NO_COLOR turns colours off; FORCE_COLOR, as Node and chalk read it, forces them
 * on or off; otherwise a terminal gets colours. (output.test.ts checks the built CLI's output under each.) And
 * --no-color turns plan's, drift's and apply's colours off at a terminal that wants them (in-process, sandbox).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wantsColor } from "../../src/cli/index.js";
import { ADMIN_TOKEN, Bench, runCli } from "../integration/helpers.js";

describe("colours", () => {
  it("follow the terminal when nothing is set", () => {
    expect(wantsColor({}, true)).toBe(true);
    expect(wantsColor({}, false)).toBe(false);
    // An empty NO_COLOR is not set (no-color.org).
    expect(wantsColor({ NO_COLOR: "" }, true)).toBe(true);
  });

  it("are forced on by FORCE_COLOR, empty or any level, and off by 0 or false in any case", () => {
    for (const on of ["", "1", "2", "3", "true"])
      expect(wantsColor({ FORCE_COLOR: on }, false), on).toBe(true);
    for (const off of ["0", "false", "FALSE", "False"]) {
      expect(wantsColor({ FORCE_COLOR: off }, true), off).toBe(false);
      expect(wantsColor({ FORCE_COLOR: off }, false), off).toBe(false);
    }
  });

  it("are off with NO_COLOR, whatever FORCE_COLOR says", () => {
    expect(wantsColor({ NO_COLOR: "1", FORCE_COLOR: "1" }, true)).toBe(false);
    expect(wantsColor({ NO_COLOR: "1" }, true)).toBe(false);
  });
});

describe("--no-color", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "g" }] } });
  });
  afterAll(async () => {
    await bench.stop();
  });
  /** The command at a terminal that wants colours, with and without --no-color. */
  const inColour = (args: string[]) =>
    runCli(args, { FORGEFORM_URL: bench.sandbox.url, FORGEFORM_TOKEN: ADMIN_TOKEN }, { color: true });
  const ESC = "\u001b[";

  it("turns plan's, drift's and apply's colours off at a terminal that wants them", async () => {
    const manifest = (group: string) =>
      bench.manifest(`version: 1\ngroups:\n  ${group}: {}\n`, `${group}.yaml`);
    const h = manifest("h");
    for (const command of ["plan", "drift"]) {
      const coloured = await inColour([command, h]);
      const plain = await inColour([command, "--no-color", h]);
      expect(coloured.out, command).toContain(ESC);
      expect(plain.out, command).not.toContain(ESC);
      expect(plain.out, command).toContain('group["h"]');
    }
    // Apply changes something each time: h in colour, then i without.
    const coloured = await inColour(["apply", "--yes", h]);
    expect(coloured.code).toBe(0);
    expect(coloured.out).toContain(ESC);
    const plain = await inColour(["apply", "--yes", "--no-color", manifest("i")]);
    expect(plain.code).toBe(0);
    expect(plain.out).toContain('group["i"]');
    expect(plain.out).not.toContain(ESC);
  });
});
