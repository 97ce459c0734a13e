/**
 * The `comment` input, as the runner runs it: the bundle (dist/index.js) in a child process with the runner's
 * GITHUB_* variables and an event payload file, planning against the sandbox and commenting on a local stand-in of
 * GitHub's API (github-stand-in.ts). One comment per pull request, workflow, job and command: created on the first
 * run, updated in place after, found among the token's own comments by its marker even on a later page; other
 * comments untouched; nothing on a push event or with `never`; a long report folded under its summary line; a 403
 * is a warning that names the permission, and the plan's outcome stands; no token ever in the log or the comment.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { type GitHubStandIn, type StandInComment, startGitHubStandIn } from "./github-stand-in.js";
import { type ActionRun, NODE24, nodes, runAction, tokenLeaks } from "./helpers.js";

const TOKEN = "glpat-comment-test-0a1b2c3d4e";
/** The job's token (github.token): what the comment is posted with. */
const GH_TOKEN = "ghs_commentTestJobToken0123456789";
/** A token of the same bot without pull-requests: write. */
const READ_ONLY = "ghs_commentTestReadOnly9876543210";
const BOT = "github-actions[bot]";
const PULL = 7;

const CHANGED = "version: 1\ngroups:\n  tbl:\n    description: New\n";
const CHANGED_AGAIN = "version: 1\ngroups:\n  tbl:\n    description: Newer\n  more: {}\n";
const UNCHANGED = "version: 1\ngroups:\n  tbl:\n    description: Old\n";

interface Context {
  node: string;
  sandbox: RunningSandbox;
  github: GitHubStandIn;
  workspace: string;
}

/** The marker of a workflow's plan job: `<!-- forgeform:<workflow>:<job>:<command> -->`, names URL-encoded. */
const marker = (workflow: string, job = "plan", command = "plan") =>
  `<!-- forgeform:${encodeURIComponent(workflow)}:${job}:${command} -->`;

async function setUp(node: string, prefix: "" | "/api/v3" = ""): Promise<Context> {
  const sandbox = await startSandbox({
    adminToken: TOKEN,
    fixture: { groups: [{ path: "tbl", description: "Old" }] },
  });
  const github = await startGitHubStandIn({
    repository: "acme/infra",
    pulls: [PULL],
    tokens: { [GH_TOKEN]: { login: BOT, write: true }, [READ_ONLY]: { login: BOT, write: false } },
    prefix,
  });
  const workspace = mkdtempSync(join(tmpdir(), "forgeform-comment-ws-"));
  return { node, sandbox, github, workspace };
}

/** Runs the plan step of workflow `workflow` on the pull request's `event`, with the given manifest and inputs. */
async function plan(
  ctx: Context,
  manifest: string,
  inputs: Record<string, string>,
  options: { workflow?: string; event?: string; platformToken?: string } = {},
): Promise<ActionRun> {
  writeFileSync(join(ctx.workspace, "m.yaml"), manifest);
  const payload = join(ctx.workspace, "..", `event-${Math.random().toString(36).slice(2)}.json`);
  const event = options.event ?? "pull_request";
  writeFileSync(
    payload,
    JSON.stringify(
      event === "push"
        ? { ref: "refs/heads/main" }
        : {
            action: "synchronize",
            number: PULL,
            pull_request: { number: PULL, base: { sha: "0".repeat(40) } },
          },
    ),
  );
  const run = await runAction(
    ctx.node,
    {
      command: "plan",
      paths: "m.yaml",
      url: ctx.sandbox.url,
      token: options.platformToken ?? TOKEN,
      "changed-since": "false",
      "github-token": GH_TOKEN,
      ...inputs,
    },
    {
      workspace: ctx.workspace,
      env: {
        GITHUB_EVENT_NAME: event,
        GITHUB_EVENT_PATH: payload,
        GITHUB_REPOSITORY: "acme/infra",
        GITHUB_API_URL: ctx.github.apiUrl,
        GITHUB_SERVER_URL: "https://github.example",
        GITHUB_RUN_ID: "4242",
        GITHUB_WORKFLOW: options.workflow ?? "forgeform plan",
        GITHUB_JOB: "plan",
      },
    },
  );
  // Nothing on stderr (the client logs through the runner's commands, as warnings or debug lines).
  expect(run.stderr).toBe("");
  // No token in the log, the outputs or the job summary, whatever the run did; none in a comment either.
  for (const token of [TOKEN, GH_TOKEN, READ_ONLY]) expect(tokenLeaks(run, token)).toEqual([]);
  for (const c of ctx.github.comments(PULL)) {
    for (const token of [TOKEN, GH_TOKEN, READ_ONLY]) expect(c.body).not.toContain(token);
  }
  return run;
}

/** The comments this bot wrote with the given marker on its first line. */
const ours = (ctx: Context, workflow = "forgeform plan") =>
  ctx.github.comments(PULL).filter((c) => c.user.login === BOT && c.body.split("\n")[0] === marker(workflow));

const writes = (ctx: Context) =>
  ctx.github.requests.filter((r) => r.method !== "GET" && !r.url.endsWith("graphql"));

describe.each(nodes())("the comment input, the bundle on %s", (_name, node) => {
  let ctx: Context;
  beforeEach(async () => {
    // As on GitHub Enterprise Server: REST under /api/v3, GraphQL at /api/graphql.
    ctx = await setUp(node, "/api/v3");
  });
  afterEach(async () => {
    await ctx.sandbox.stop();
    await ctx.github.stop();
  });

  it("creates the comment on the first run and updates that one comment on the next, with the job's token only", async () => {
    const first = await plan(ctx, CHANGED, { comment: "always" });
    expect(first.status, first.stdout).toBe(0);
    expect(first.outputs["exit-code"]).toBe("2");
    const [created, ...others] = ours(ctx);
    expect(others).toEqual([]);
    const lines = created!.body.split("\n");
    expect(lines[1]).toBe("**forgeform plan:** Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.");
    expect(created!.body).toContain("## forgeform plan");
    expect(created!.body).toContain('+     description: "New"');
    // A short report is shown as it is, not folded.
    expect(created!.body).not.toContain("<details><summary>The full report");
    expect(created!.body).toContain(
      "<sub>forgeform plan in workflow `forgeform plan`, job `plan`: [this run](https://github.example/acme/infra/actions/runs/4242). Each run updates this comment.</sub>",
    );
    expect(first.stdout).toContain(`Commented on pull request #${PULL}: ${created!.html_url}`);

    const second = await plan(ctx, CHANGED_AGAIN, { comment: "always" });
    expect(second.status, second.stdout).toBe(0);
    const [updated, ...more] = ours(ctx);
    expect(more).toEqual([]);
    expect(updated!.id).toBe(created!.id);
    expect(updated!.body.split("\n")[1]).toBe(
      "**forgeform plan:** Plan: 1 to create, 1 to update, 0 to replace, 0 to delete.",
    );
    expect(updated!.body).toContain('+     description: "Newer"');
    expect(second.stdout).toContain(`Updated the comment on pull request #${PULL}: ${created!.html_url}`);

    // Every request went to GitHub with the github-token input; the platform's token never left for GitHub.
    expect(ctx.github.requests.length).toBeGreaterThan(0);
    for (const r of ctx.github.requests) {
      expect(r.authorization).toBe(`token ${GH_TOKEN}`);
      expect(r.body).not.toContain(TOKEN);
    }
    // GitHub Enterprise Server's paths: the login from /api/graphql, the comments under /api/v3.
    expect(ctx.github.requests.map((r) => `${r.method} ${r.url.replace(/\?.*/, "")}`)).toEqual([
      "POST /api/graphql",
      `GET /api/v3/repos/acme/infra/issues/${PULL}/comments`,
      `POST /api/v3/repos/acme/infra/issues/${PULL}/comments`,
      "POST /api/graphql",
      `GET /api/v3/repos/acme/infra/issues/${PULL}/comments`,
      `PATCH /api/v3/repos/acme/infra/issues/comments/${created!.id}`,
    ]);
  });

  it("a 403 (no pull-requests: write) is a warning naming the permission; the plan's outcome stands", async () => {
    const run = await plan(ctx, CHANGED, { comment: "always", "github-token": READ_ONLY });
    expect(run.status, run.stdout).toBe(0);
    expect(run.outputs["exit-code"]).toBe("2");
    expect(run.outputs["has-changes"]).toBe("true");
    expect(run.stdout).not.toContain("::error");
    expect(run.stdout).toContain(
      `::warning::forgeform plan: no comment on pull request #${PULL}: GitHub answered 403 (Resource not accessible by integration) to POST ${ctx.github.apiUrl}/repos/acme/infra/issues/${PULL}/comments: the token lacks the pull-requests: write permission. Add \`pull-requests: write\` under \`permissions:\` in the workflow or the job`,
    );
    expect(run.stdout).toContain("The plan itself is not affected.");
    expect(ctx.github.comments(PULL)).toEqual([]);
    // The job summary still has the plan.
    expect(run.summary).toContain("## forgeform plan");
  });
});

describe("the comment input, the bundle on Node 24", () => {
  let ctx: Context;
  beforeEach(async () => {
    ctx = await setUp(NODE24);
  });
  afterEach(async () => {
    await ctx.sandbox.stop();
    await ctx.github.stop();
  });

  it("never (the default) calls GitHub not at all, on a pull request too", async () => {
    const explicit = await plan(ctx, CHANGED, { comment: "never" });
    const left = await plan(ctx, CHANGED, { comment: "" });
    for (const run of [explicit, left]) {
      expect(run.status, run.stdout).toBe(0);
      const said = run.stdout.split("\n").filter((line) => !line.startsWith("::add-mask::"));
      expect(said.filter((line) => /comment/i.test(line))).toEqual([]);
    }
    expect(ctx.github.requests).toEqual([]);
  });

  it("does nothing on a push event, and says so", async () => {
    for (const comment of ["always", "on-change"]) {
      const run = await plan(ctx, CHANGED, { comment }, { event: "push" });
      expect(run.status, run.stdout).toBe(0);
      expect(run.stdout).toContain(
        `comment is ${comment}, but this run is for a push event, not a pull request: no comment was posted (comments go on pull_request and pull_request_target events).`,
      );
    }
    expect(ctx.github.requests).toEqual([]);
  });

  it("the marker keeps two workflows' comments apart, and no other comment is touched", async () => {
    const person = ctx.github.seed(PULL, "octocat", "Looks good to me.");
    // Someone else's comment that carries the marker is not this identity's: it is left alone.
    const impostor = ctx.github.seed(PULL, "mallory", `${marker("forgeform plan")}\nfake plan`);
    const otherBot = ctx.github.seed(PULL, BOT, "<!-- another-tool -->\nCoverage: 91%");
    await plan(ctx, CHANGED, { comment: "always" }, { workflow: "forgeform plan" });
    await plan(ctx, CHANGED, { comment: "always" }, { workflow: "forgeform plan (staging)" });
    const [a] = ours(ctx, "forgeform plan");
    const [b] = ours(ctx, "forgeform plan (staging)");
    expect(a).toBeDefined();
    expect(b).toBeDefined();
    expect(a!.id).not.toBe(b!.id);

    await plan(ctx, CHANGED_AGAIN, { comment: "always" }, { workflow: "forgeform plan" });
    const after = ctx.github.comments(PULL);
    expect(after).toHaveLength(5);
    expect(after.find((c) => c.id === a!.id)!.body).toContain('description: "Newer"');
    // The other workflow's comment, the person's, the impostor's and the other bot's are as they were.
    const unchanged = (c: StandInComment) => expect(after.find((x) => x.id === c.id)).toEqual(c);
    for (const c of [b!, person, impostor, otherBot]) unchanged(c);
    expect(writes(ctx).map((r) => r.method)).toEqual(["POST", "POST", "PATCH"]);
    expect(writes(ctx)[2]!.url).toBe(`/repos/acme/infra/issues/comments/${a!.id}`);
  });

  it("finds its comment on a later page of the pull request's comments", async () => {
    for (let i = 0; i < 120; i++) ctx.github.seed(PULL, `reviewer-${i % 7}`, `comment ${i}`);
    const previous = ctx.github.seed(PULL, BOT, `${marker("forgeform plan")}\nan older plan`);
    for (let i = 0; i < 20; i++) ctx.github.seed(PULL, "octocat", `later ${i}`);
    const run = await plan(ctx, CHANGED, { comment: "always" });
    expect(run.status, run.stdout).toBe(0);
    expect(ctx.github.comments(PULL)).toHaveLength(141);
    expect(ours(ctx).map((c) => c.id)).toEqual([previous.id]);
    expect(ours(ctx)[0]!.body).toContain('description: "New"');
    expect(ctx.github.requests.filter((r) => r.method === "GET").map((r) => r.url)).toEqual([
      `/repos/acme/infra/issues/${PULL}/comments?per_page=100`,
      `/repos/acme/infra/issues/${PULL}/comments?per_page=100&page=2`,
    ]);
  });

  it("on-change: no comment while nothing changes; then one; then it says no changes, so the old plan does not stay up", async () => {
    const quiet = await plan(ctx, UNCHANGED, { comment: "on-change" });
    expect(quiet.status, quiet.stdout).toBe(0);
    expect(quiet.outputs["exit-code"]).toBe("0");
    expect(quiet.stdout).toContain(`No changes: no comment on pull request #${PULL} (comment is on-change`);
    expect(writes(ctx)).toEqual([]);

    await plan(ctx, CHANGED, { comment: "on-change" });
    const [posted] = ours(ctx);
    expect(posted!.body).toContain('description: "New"');

    const back = await plan(ctx, UNCHANGED, { comment: "on-change" });
    expect(back.outputs["exit-code"]).toBe("0");
    const [updated, ...more] = ours(ctx);
    expect(more).toEqual([]);
    expect(updated!.id).toBe(posted!.id);
    expect(updated!.body.split("\n")[1]).toBe(
      "**forgeform plan:** Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.",
    );
    expect(updated!.body).toContain("**No changes.** The live state matches the manifests.");
    expect(updated!.body).not.toContain('description: "New"');
  });

  it("a long plan is folded under its summary line, and cut to fit a comment", async () => {
    const long = "x".repeat(250);
    const groups = Array.from({ length: 400 }, (_, i) => `  big-${i}:\n    description: ${long}\n`).join("");
    const run = await plan(ctx, `${CHANGED}${groups}`, { comment: "always" });
    expect(run.status, run.stdout).toBe(0);
    const [comment] = ours(ctx);
    const body = comment!.body;
    expect(body.length).toBeLessThanOrEqual(65_536);
    const lines = body.split("\n");
    expect(lines[1]).toBe("**forgeform plan:** Plan: 400 to create, 1 to update, 0 to replace, 0 to delete.");
    expect(lines[2]).toBe("");
    expect(lines[3]).toMatch(/^<details><summary>The full report \(\d+ lines\)<\/summary>$/);
    expect(body).toContain("## forgeform plan");
    expect(body).toContain("This report was cut to stay under");
    expect(body.indexOf("</details>\n\n<sub>forgeform plan")).toBeGreaterThan(0);
  });

  it("a step that fails says so in the comment (pull_request_target too), with on-change", async () => {
    const run = await plan(
      ctx,
      CHANGED,
      { comment: "on-change" },
      { event: "pull_request_target", platformToken: "glpat-not-a-token-of-this-platform" },
    );
    expect(run.status).toBe(1);
    const [comment] = ours(ctx);
    const lines = comment!.body.split("\n");
    expect(lines[1]).toBe("**forgeform plan:** the step failed before it made a report.");
    expect(lines[2]).toBe("");
    expect(lines[3]).toMatch(/^\*\*The step failed:\*\* forgeform: .*401.*the token input/);
    expect(lines[4]).toBe("");
    expect(lines[5]).toMatch(/^<sub>forgeform plan in workflow/);
  });
});
