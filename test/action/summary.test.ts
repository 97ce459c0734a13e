/**
 * The Markdown the Action adds to the job summary (src/action/summary.ts): the validation result with every error
 * and warning at file:line:col, lists capped at 100 with a count of the rest, and the head of an apply's summary
 * (its verdict, then each failed and skipped change). run.test.ts checks them in whole runs.
 */
import { describe, expect, it } from "vitest";
import {
  renderApplyMarkdown,
  renderApplyRefusedMarkdown,
  renderValidationMarkdown,
} from "../../src/action/summary.js";
import type { Outcome } from "../../src/engine/apply.js";
import type { Diagnostic } from "../../src/manifest/index.js";

const diag = (severity: Diagnostic["severity"], n: number, path = "groups.a"): Diagnostic => ({
  severity,
  file: "m.yaml",
  line: n,
  col: 3,
  path,
  message: `problem <${n}>`,
});

describe("the validation summary", () => {
  it("valid: the count of files, one or many", () => {
    expect(renderValidationMarkdown([], 1)).toBe("## forgeform validate\n\n**1 manifest file valid**.\n");
    expect(renderValidationMarkdown([], 3)).toBe("## forgeform validate\n\n**3 manifest files valid**.\n");
  });

  it("valid with warnings: counted, then listed at file:line:col with the path, escaped", () => {
    expect(renderValidationMarkdown([diag("warning", 4), diag("warning", 5, "")], 2)).toBe(
      [
        "## forgeform validate",
        "",
        "**2 manifest files valid** with 2 warnings.",
        "",
        "### Warnings",
        "",
        "- `m.yaml:4:3` `groups.a`: problem &lt;4&gt;",
        "- `m.yaml:5:3` problem &lt;5&gt;",
        "",
      ].join("\n"),
    );
  });

  it("invalid: errors and warnings counted, errors listed first", () => {
    expect(renderValidationMarkdown([diag("warning", 1), diag("error", 2)], 1)).toBe(
      [
        "## forgeform validate",
        "",
        "**The manifests are invalid:** 1 error, 1 warning. Nothing was sent to the platform.",
        "",
        "### Errors",
        "",
        "- `m.yaml:2:3` `groups.a`: problem &lt;2&gt;",
        "",
        "### Warnings",
        "",
        "- `m.yaml:1:3` `groups.a`: problem &lt;1&gt;",
        "",
      ].join("\n"),
    );
    expect(renderValidationMarkdown([diag("error", 1), diag("error", 2)], 1)).toContain(
      "**The manifests are invalid:** 2 errors. Nothing was sent to the platform.",
    );
  });

  it("lists at most 100 of each, then says how many more", () => {
    const errors = Array.from({ length: 102 }, (_, i) => diag("error", i + 1));
    const text = renderValidationMarkdown(errors, 1);
    expect(text).toContain("- `m.yaml:100:3`");
    expect(text).not.toContain("- `m.yaml:101:3`");
    expect(text).toContain("- ...and 2 errors more (see the step log).");
    const hundred = renderValidationMarkdown(errors.slice(0, 100), 1);
    expect(hundred).toContain("- `m.yaml:100:3`");
    expect(hundred).not.toContain("more (see the step log)");
    expect(renderValidationMarkdown(errors.slice(0, 101), 1)).toContain(
      "- ...and 1 error more (see the step log).",
    );
    const warnings = Array.from({ length: 101 }, (_, i) => diag("warning", i + 1));
    expect(
      renderValidationMarkdown(
        Array.from({ length: 102 }, (_, i) => diag("warning", i + 1)),
        1,
      ),
    ).toContain("- ...and 2 warnings more (see the step log).");
    expect(renderValidationMarkdown(warnings, 1)).toContain("- ...and 1 warning more (see the step log).");
  });
});

describe("the apply summary's head", () => {
  const outcome = (address: string, status: Outcome["status"], extra: Partial<Outcome> = {}): Outcome => ({
    address,
    action: "create",
    status,
    ...extra,
  });

  it("complete: the counts, then the plan that was applied", () => {
    expect(renderApplyMarkdown([outcome("a", "done"), outcome("b", "done", { recovered: true })])).toBe(
      "## forgeform apply\n\n**Apply complete:** 2 done, 0 failed, 0 skipped.\n\nThe plan that was applied:\n\n",
    );
  });

  it("incomplete: the counts, each failed then skipped change with its message, what to do, then the plan", () => {
    expect(
      renderApplyMarkdown([
        outcome('group["s"]', "skipped", { message: "depends on a failed change" }),
        outcome('group["d"]', "done"),
        outcome('group["f"]', "failed", { action: "delete", message: "the platform said <no>" }),
        outcome('group["q"]', "failed"),
      ]),
    ).toBe(
      [
        "## forgeform apply",
        "",
        "**Apply incomplete:** 1 done, 2 failed, 1 skipped.",
        "",
        '- `-` `group["f"]`: **failed**: the platform said &lt;no&gt;',
        '- `+` `group["q"]`: **failed**',
        '- `+` `group["s"]`: **skipped**: depends on a failed change',
        "",
        "Fix the cause and run apply again: it picks up where this run left off.",
        "",
        "The plan:",
        "",
        "",
      ].join("\n"),
    );
  });

  it("lists at most 100 failed and skipped changes", () => {
    const many = Array.from({ length: 103 }, (_, i) => outcome(`g${i}`, "failed"));
    const text = renderApplyMarkdown(many);
    expect(text).toContain("- `+` `g99`: **failed**");
    expect(text).not.toContain("`g100`");
    expect(text).toContain("- ...and 3 changes more (see the step log).");
    expect(renderApplyMarkdown(many.slice(0, 101))).toContain("- ...and 1 change more (see the step log).");
  });

  it("refused: why, escaped, then the plan", () => {
    expect(renderApplyRefusedMarkdown("refusing to apply <x>")).toBe(
      "## forgeform apply\n\n**Nothing was applied:** refusing to apply &lt;x&gt;.\n\nThe plan:\n\n",
    );
  });
});
