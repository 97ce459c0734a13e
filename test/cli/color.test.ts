/**
 * When the CLI colours its output: NO_COLOR turns colours off; FORCE_COLOR, as Node and chalk read it, forces them
 * on or off; otherwise a terminal gets colours. (output.test.ts checks the built CLI's output under each.)
 */
import { describe, expect, it } from "vitest";
import { wantsColor } from "../../src/cli/index.js";

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
