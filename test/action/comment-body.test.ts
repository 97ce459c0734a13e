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
  commentPlace,
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

describe("the comment's place", () => {
  it("is the workflow and the job from the runner's variables, with the shard and the run's page", () => {
    expect(
      commentPlace(
        {
          GITHUB_WORKFLOW: "wf",
          GITHUB_JOB: "job",
          GITHUB_SERVER_URL: "https://github.example",
          GITHUB_REPOSITORY: "acme/infra",
          GITHUB_RUN_ID: "42",
        },
        "1/2",
      ),
    ).toStrictEqual({
      workflow: "wf",
      job: "job",
      shard: "1/2",
      runUrl: "https://github.example/acme/infra/actions/runs/42",
    });
  });

  it("has empty names without the variables, no shard without one, and no run page without all three parts", () => {
    expect(commentPlace({}, undefined)).toStrictEqual({ workflow: "", job: "" });
    const parts = { GITHUB_SERVER_URL: "https://s", GITHUB_REPOSITORY: "a/b", GITHUB_RUN_ID: "1" };
    for (const left of Object.keys(parts)) {
      const env: Record<string, string> = { ...parts };
      delete env[left];
      expect(commentPlace(env, undefined), left).toStrictEqual({ workflow: "", job: "" });
    }
  });
});

describe("the comment's body, at its limits", () => {
  it("without the run's page says `this run`", () => {
    const body = commentBody(report("r"), { workflow: "w", job: "j" }, []);
    expect(
      body.endsWith(
        "<sub>forgeform plan in workflow `w`, job `j`: this run. Each run updates this comment.</sub>\n",
      ),
    ).toBe(true);
  });

  it("shows a failure of exactly 1,000 characters in full", () => {
    const failure = "f".repeat(1_000);
    const body = commentBody(report("r", { failure, code: 1 }), place, []);
    expect(body.split("\n")[3]).toBe(`**The step failed:** ${failure}`);
  });

  it("drops the report's trailing blank lines", () => {
    expect(commentBody(report("a report\n\n\n"), place, [])).toBe(commentBody(report("a report"), place, []));
  });

  it("keeps a report that makes the body exactly 65,536 characters", () => {
    const base = commentBody(report(""), place, []).length;
    const exact = commentBody(report("x".repeat(COMMENT_MAX - base)), place, []);
    expect(exact.length).toBe(COMMENT_MAX);
    expect(exact).toContain("xxx");
  });
});
