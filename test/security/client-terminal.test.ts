/**
 * Hostile-server probes: text from the server or from manifests never reaches the terminal raw. Control characters
 * (ESC, BEL, CR, C1) and bidirectional overrides are shown as visible escapes in every output and format.
 */
import { describe, expect, it } from "vitest";
import { json } from "../api/server.js";
import { runCli } from "../integration/helpers.js";
import { errorSaying, manifest, probes, TRIGGER_MANIFEST } from "./hostile-server.js";

const TRIGGERS = "GET /projects/acme/api/triggers";
/** Sets the terminal's title, rings the bell, turns the text red, clears the screen (C1 CSI). */
const ATTACK = "\u001b]0;pwned\u0007\u001b[31mred\u009b2J";
const ATTACK_SHOWN = "\\x1b]0;pwned\\x07\\x1b[31mred\\x9b2J";
/** `deploy` + RIGHT-TO-LEFT OVERRIDE: `txt.exe` shows as `exe.txt`. */
const BIDI = "deploy\u202eexe.txt";
const BIDI_SHOWN = "deploy\\u202eexe.txt";

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding raw control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const { start } = probes();

describe("terminal safety", () => {
  it("escapes a hostile error message in the CLI's error output", async () => {
    const p = await start({ "GET /version": errorSaying(ATTACK) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.err).not.toMatch(RAW);
    expect(result.err).toContain(ATTACK_SHOWN);
  });

  it("escapes a hostile error message in the plan's errors", async () => {
    const p = await start({ [TRIGGERS]: errorSaying(ATTACK, 403) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.out).not.toMatch(RAW);
    expect(result.out).toContain(ATTACK_SHOWN);
  });

  it("escapes a hostile failure in apply's outcome lines", async () => {
    const p = await start({
      [TRIGGERS]: (_req, res) => json(res, 200, []),
      "POST /projects/acme/api/triggers": errorSaying(ATTACK),
    });
    const result = await p.cli(["apply", "--yes", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.out + result.err).not.toMatch(RAW);
    expect(result.out).toContain(ATTACK_SHOWN);
  });

  it("shows a bidirectional override in a server's name escaped, in text, Markdown and JSON plans", async () => {
    const p = await start({
      [TRIGGERS]: (_req, res) =>
        json(res, 200, [
          { id: 1, description: "deploy", token: "abcd" },
          { id: 2, description: BIDI, token: "efgh" },
        ]),
    });
    const file = manifest(TRIGGER_MANIFEST);
    for (const format of ["text", "markdown", "json"]) {
      const result = await p.cli(["plan", "--format", format, file]);
      expect(result.code, result.err).toBe(0);
      expect(result.out).not.toMatch(RAW);
      expect(result.out).toContain(BIDI_SHOWN);
    }
  });

  it("escapes control characters from a manifest in validation errors", async () => {
    // The key also holds a carriage return, which would send the cursor back over the line.
    const file = manifest(`version: 1\ngroups:\n  acme:\n    "\\e]0;pwned\\a\\rok": x\n`);
    const result = await runCli(["validate", file], {});
    expect(result.code).toBe(1);
    expect(result.out).not.toMatch(RAW);
    expect(result.out).toContain("\\x1b]0;pwned\\x07\\x0dok");
  });
});
