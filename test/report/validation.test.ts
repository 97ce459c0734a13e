/** The JSON form of `validate`, whole: counts, validity, files, whether secrets were resolved, and escaping. */
import { describe, expect, it } from "vitest";
import { renderValidationJson } from "../../src/report/validation.js";

describe("renderValidationJson", () => {
  it("counts errors and warnings, and is valid only without errors", () => {
    const error = {
      severity: "error",
      file: "m.yaml",
      line: 3,
      col: 5,
      path: "groups.acme",
      message: "bad\u202e",
    } as const;
    const warning = { ...error, severity: "warning", message: "unused" } as const;
    const text = renderValidationJson([error, warning, warning], ["m.yaml"], false);
    expect(text.endsWith("}\n")).toBe(true);
    // A bidirectional override from a manifest reaches the terminal escaped; the JSON value is the same.
    expect(text).toContain('"message": "bad\\u202e"');
    expect(JSON.parse(text)).toEqual({
      format_version: 1,
      kind: "validation",
      valid: false,
      files: ["m.yaml"],
      errors: 1,
      warnings: 2,
      secretsResolved: false,
      diagnostics: [error, warning, warning],
    });
    expect(JSON.parse(renderValidationJson([warning], [], true))).toMatchObject({
      valid: true,
      errors: 0,
      warnings: 1,
      secretsResolved: true,
    });
  });
});
