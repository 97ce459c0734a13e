/**
 * The pull request's comment as text (commentBody, commentMarker), in-process: the marker that finds it again, the
 * summary line above a report folded when long, a body that always fits GitHub's 65,536 characters, and no token in
 * it. test/action/comment.test.ts posts it through the bundle.
 */
import { describe, expect, it } from "vitest";
import {
  COMMENT_MAX,
  type CommentPlace,
  type CommentReport,
  commentBody,
  commentMarker,
  FOLD_LINES,
} from "../../src/action/comment.js";

const place: CommentPlace = { workflow: "forgeform plan", job: "plan", runUrl: "https://github.example/r/1" };
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");
const report = (text: string, extra: Partial<CommentReport> = {}): CommentReport => ({
  command: "plan",
  headline: "Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.",
  render: () => text,
  code: 2,
  hasChanges: true,
  ...extra,
});

describe("the comment's marker", () => {
  it("names the workflow, the job, the command and the shard, URL-encoded", () => {
    expect(commentMarker("plan", place)).toBe("<!-- forgeform:forgeform%20plan:plan:plan -->");
    expect(commentMarker("drift", { ...place, shard: "2/4" })).toBe(
      "<!-- forgeform:forgeform%20plan:plan:drift:2%2F4 -->",
    );
  });

  it("no name can end the HTML comment early or pass for another workflow's fields", () => {
    const tricky = commentMarker("plan", { workflow: "a --> b:c", job: "j" });
    expect(tricky.indexOf("-->")).toBe(tricky.length - 3);
    expect(tricky).not.toBe(commentMarker("plan", { workflow: "a --> b", job: "c:j" }));
  });
});

describe("the comment's body", () => {
  it("is the marker, the summary line, the report and where it comes from; a short report is not folded", () => {
    const body = commentBody(report(lines(FOLD_LINES)), place, []);
    expect(body).toBe(
      [
        "<!-- forgeform:forgeform%20plan:plan:plan -->",
        "**forgeform plan:** Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.",
        "",
        lines(FOLD_LINES),
        "",
        "<sub>forgeform plan in workflow `forgeform plan`, job `plan`: [this run](https://github.example/r/1). Each run updates this comment.</sub>",
        "",
      ].join("\n"),
    );
  });

  it("folds a long report under <details>, the summary line above it", () => {
    const body = commentBody(report(lines(FOLD_LINES + 1)), place, []);
    const [, headline, blank, details] = body.split("\n");
    expect(headline).toBe("**forgeform plan:** Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");
    expect(blank).toBe("");
    expect(details).toBe(`<details><summary>The full report (${FOLD_LINES + 1} lines)</summary>`);
    expect(body).toContain(`${lines(FOLD_LINES + 1)}\n\n</details>\n\n<sub>`);
  });

  it("says why the step failed under the summary line, escaped and cut at 1,000 characters", () => {
    const failure = `<img src=x> ${"y".repeat(2_000)}`;
    const body = commentBody(report("report", { failure, code: 1 }), place, []);
    const line = body.split("\n")[3]!;
    expect(line.startsWith("**The step failed:** &lt;img src=x&gt; yyy")).toBe(true);
    expect(line.endsWith("y... (see the log)")).toBe(true);
    expect(line.length).toBeLessThan(1_100);
  });

  it("renders the report to fit GitHub's limit with everything around it, however long the names", () => {
    const long = { ...place, workflow: "w".repeat(3_000), job: "j".repeat(500) };
    let room = 0;
    const body = commentBody(
      {
        ...report(""),
        render: (maxLength) => {
          room = maxLength;
          return `${"x".repeat(99)}\n`.repeat(Math.floor(maxLength / 100));
        },
      },
      long,
      [],
    );
    expect(room).toBeLessThan(65_536 - 2 * 3_500);
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX);
    expect(body.length).toBeGreaterThan(COMMENT_MAX - 200);
  });

  it("leaves a report that cannot be cut and is too long to the job summary", () => {
    const body = commentBody(report("z".repeat(70_000)), place, []);
    expect(body.length).toBeLessThanOrEqual(COMMENT_MAX);
    expect(body).not.toContain("zzz");
    expect(body).toContain(
      "The report is longer than a pull-request comment can hold: it is in the job summary of the run.",
    );
  });

  it("masks every token the Action holds", () => {
    const token = "ghs_secretJobToken123";
    const body = commentBody(
      report(`a report that quotes ${token}`, { failure: `failed with ${token}` }),
      place,
      [token],
    );
    // Not even escaped for Markdown (ghs\_secret...).
    expect(body).not.toContain("secretJobToken123");
    expect(body).toContain("a report that quotes [REDACTED]");
    expect(body).toContain("**The step failed:** failed with \\[REDACTED\\]");
  });
});
