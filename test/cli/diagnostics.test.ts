/** How plan, apply, drift and explain print manifest diagnostics: one line each, then the count (src/cli/diagnostics.ts). */
import { describe, expect, it } from "vitest";
import { formatDiagnostics } from "../../src/cli/diagnostics.js";
import type { Diagnostic } from "../../src/manifest/index.js";

const error = (line: number): Diagnostic => ({
  severity: "error",
  file: "m.yaml",
  line,
  col: 3,
  path: "groups.acme",
  message: `bad ${line}`,
});
const warning = (line: number): Diagnostic => ({
  ...error(line),
  severity: "warning",
  message: `odd ${line}`,
});

describe("formatDiagnostics", () => {
  it("prints nothing at all when there is nothing to say", () => {
    expect(formatDiagnostics([])).toBe("");
  });

  // Each count at 1 and 2 (singular and plural), errors and warnings alone and together.
  it.each([
    { name: "1 error", given: [error(1)], last: "1 error: nothing was sent to the platform." },
    { name: "2 errors", given: [error(1), error(2)], last: "2 errors: nothing was sent to the platform." },
    { name: "1 warning", given: [warning(1)], last: "1 warning" },
    { name: "2 warnings", given: [warning(1), warning(2)], last: "2 warnings" },
    {
      name: "1 error and 1 warning",
      given: [warning(1), error(2)],
      last: "1 error, 1 warning: nothing was sent to the platform.",
    },
    {
      name: "2 errors and 2 warnings",
      given: [error(1), warning(2), error(3), warning(4)],
      last: "2 errors, 2 warnings: nothing was sent to the platform.",
    },
  ])("$name: one line each, in order, then the count", ({ given, last }) => {
    const lines = given.map((d) =>
      d.severity === "error"
        ? `m.yaml:${d.line}:3: groups.acme: ${d.message}`
        : `m.yaml:${d.line}:3: groups.acme: warning: ${d.message}`,
    );
    expect(formatDiagnostics(given)).toBe(`${[...lines, last].join("\n")}\n`);
  });

  it("escapes control characters a message quotes from a manifest", () => {
    expect(formatDiagnostics([{ ...error(1), message: 'key "a\u001b[31mb"' }])).toBe(
      'm.yaml:1:3: groups.acme: key "a\\x1b[31mb"\n1 error: nothing was sent to the platform.\n',
    );
  });
});
