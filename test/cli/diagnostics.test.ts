/**
 * How validate, plan and apply print manifest problems: one `file:line:col: path: message` line each, control
 * characters escaped, then how many there were, and with any error that nothing was sent.
 */
import { describe, expect, it } from "vitest";
import { formatDiagnostics } from "../../src/cli/diagnostics.js";
import type { Diagnostic } from "../../src/manifest/index.js";

const at = (severity: Diagnostic["severity"], message: string, path = "groups.acme"): Diagnostic => ({
  severity,
  file: "m.yaml",
  line: 3,
  col: 5,
  path,
  message,
});

describe("printed diagnostics", () => {
  it("say nothing when there is nothing", () => {
    expect(formatDiagnostics([])).toBe("");
  });

  it("count errors and warnings, singular and plural, and say nothing was sent when there is an error", () => {
    const e = at("error", "bad");
    const w = at("warning", "odd", "");
    const cases: [Diagnostic[], string][] = [
      [[e], "1 error: nothing was sent to the platform."],
      [[e, e], "2 errors: nothing was sent to the platform."],
      [[w], "1 warning"],
      [[w, w], "2 warnings"],
      [[e, w], "1 error, 1 warning: nothing was sent to the platform."],
      [[w, e, e, w, w], "2 errors, 3 warnings: nothing was sent to the platform."],
    ];
    for (const [list, last] of cases) {
      const lines = formatDiagnostics(list).split("\n");
      expect(lines.at(-1), last).toBe("");
      expect(lines.at(-2), last).toBe(last);
      expect(lines, last).toHaveLength(list.length + 2);
    }
  });

  it("print each problem where it is, in the order given, with terminal escapes made visible (line breaks stay)", () => {
    expect(formatDiagnostics([at("warning", "odd", ""), at("error", "bad\u001b[31m\nvalue")])).toBe(
      "m.yaml:3:5: warning: odd\nm.yaml:3:5: groups.acme: bad\\x1b[31m\nvalue\n1 error, 1 warning: nothing was sent to the platform.\n",
    );
  });
});
