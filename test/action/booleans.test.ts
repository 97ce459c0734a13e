/**
 * The Action's boolean inputs take exactly the spellings YAML 1.2's core schema allows (what @actions/core's
 * getBooleanInput takes): true, True, TRUE, false, False, FALSE. Everything else (`yes`, `on`, `1`, `tRuE`) is an
 * error naming the input and those spellings, for every boolean input, never a silent false. In-process, through
 * readInputs as the bundle calls it (test/action/input-table.test.ts runs the bundle itself with one of each).
 */
import * as core from "@actions/core";
import { afterEach, describe, expect, it } from "vitest";
import { readInputs } from "../../src/action/inputs.js";
import { inputVariable } from "./helpers.js";

const BOOLEANS = {
  "fail-on-drift": "failOnDrift",
  "fail-on-unmanaged": "failOnUnmanaged",
  "no-secrets": "noSecrets",
  "insecure-http": "insecureHttp",
  "no-backup": "noBackup",
} as const;

const set: string[] = [];
function input(name: string, value: string): void {
  process.env[inputVariable(name)] = value;
  set.push(inputVariable(name));
}
afterEach(() => {
  for (const name of set.splice(0)) delete process.env[name];
});

describe("boolean inputs", () => {
  const accepted: [string, boolean][] = [
    ["true", true],
    ["True", true],
    ["TRUE", true],
    ["false", false],
    ["False", false],
    ["FALSE", false],
    ["", false],
    [" true ", true],
  ];
  const refused = ["yes", "no", "on", "off", "y", "n", "1", "0", "tRuE", "fALSE", "truee", "t", "enabled"];

  for (const [name, key] of Object.entries(BOOLEANS)) {
    it(`${name} takes ${accepted.map(([v]) => JSON.stringify(v)).join(", ")}`, () => {
      for (const [value, expected] of accepted) {
        input("command", "validate");
        input(name, value);
        expect(readInputs()[key], `${name}: ${JSON.stringify(value)}`).toBe(expected);
      }
    });

    it(`${name} refuses ${refused.join(", ")}, naming the input and the spellings it takes`, () => {
      for (const value of refused) {
        input("command", "validate");
        input(name, value);
        expect(() => readInputs(), `${name}: ${JSON.stringify(value)}`).toThrow(
          `input ${name} must be true or false (written true, True, TRUE, false, False, FALSE), not "${value}"`,
        );
      }
    });
  }

  it("agrees with @actions/core's getBooleanInput on every spelling it takes or refuses", () => {
    for (const value of [...accepted.map(([v]) => v).filter((v) => v !== ""), ...refused]) {
      input("command", "validate");
      input("no-backup", value);
      let theirs: boolean | "refused";
      try {
        theirs = core.getBooleanInput("no-backup");
      } catch {
        theirs = "refused";
      }
      let ours: boolean | "refused";
      try {
        ours = readInputs().noBackup;
      } catch {
        ours = "refused";
      }
      expect(ours, JSON.stringify(value)).toBe(theirs);
    }
  });
});
