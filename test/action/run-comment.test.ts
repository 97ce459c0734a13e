/**
 * The `comment` input in-process (src/action/run.ts and comment.ts through in-process.ts): planning against the
 * sandbox and commenting on the GitHub stand-in (github-stand-in.ts) over real HTTP. One comment per pull request,
 * workflow, job, command and shard, created then updated in place, found by its marker among the token's own
 * comments; on-change posts only for changes, drift or a failure; what GitHub refuses is a warning that says what to
 * do, and the command's outcome stands; no token in the log or the comment. comment.test.ts runs the bundle.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { type ConnectProxy, startConnectProxy } from "../connect-proxy.js";
import { type GitHubStandIn, startGitHubStandIn } from "./github-stand-in.js";
import { type ActionRun, tokenLeaks } from "./helpers.js";
import { runInProcess, workspaceWith } from "./in-process.js";

const TOKEN = "glpat-inproc-comment-0a1b2c3d4e";
const GH_TOKEN = "ghs_inprocCommentJobToken0123456789";
const READ_ONLY = "ghs_inprocCommentReadOnly987654321";
const OTHER_BOT = "ghs_inprocCommentOtherBot55555555";
const BOT = "github-actions[bot]";
const PULL = 7;

const CHANGED = "version: 1\ngroups:\n  tbl:\n    description: New\n";
const UNCHANGED = "version: 1\ngroups:\n  tbl:\n    description: Old\n";
const DRIFTED = "version: 1\ngroups:\n  tbl:\n    description: Drifted\n";

const marker = (command = "plan", shard?: string) =>
  `<!-- forgeform:forgeform%20plan:plan:${command}${shard ? `:${encodeURIComponent(shard)}` : ""} -->`;

describe("the comment input, in-process", () => {
  let sandbox: RunningSandbox;
  let github: GitHubStandIn;
  let workspace: string;
  let payload: string;
  beforeEach(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: { groups: [{ path: "tbl", description: "Old" }] },
    });
    github = await startGitHubStandIn({
      repository: "acme/infra",
      pulls: [PULL],
      tokens: {
        [GH_TOKEN]: { login: BOT, write: true },
        [READ_ONLY]: { login: BOT, write: false },
        [OTHER_BOT]: { login: "other[bot]", write: true },
      },
    });
    workspace = workspaceWith({});
    payload = join(mkdtempSync(join(tmpdir(), "forgeform-inproc-event-")), "event.json");
    writeFileSync(payload, JSON.stringify({ number: PULL, pull_request: { number: PULL } }));
  });
  afterEach(async () => {
    await sandbox.stop();
    await github.stop();
  });

  /** The stand-in again, with these pull requests. */
  const restartWith = async (pulls: number[]) => {
    await github.stop();
    return startGitHubStandIn({
      repository: "acme/infra",
      pulls,
      tokens: { [GH_TOKEN]: { login: BOT, write: true } },
    });
  };

  const runner = (event: string, env: Record<string, string | undefined> = {}) => ({
    GITHUB_EVENT_NAME: event,
    GITHUB_EVENT_PATH: payload,
    GITHUB_REPOSITORY: "acme/infra",
    GITHUB_API_URL: github.apiUrl,
    GITHUB_SERVER_URL: "https://github.example",
    GITHUB_RUN_ID: "4242",
    GITHUB_WORKFLOW: "forgeform plan",
    GITHUB_JOB: "plan",
    ...env,
  });

  async function step(
    manifest: string,
    inputs: Record<string, string>,
    options: { event?: string; env?: Record<string, string | undefined> } = {},
  ): Promise<ActionRun> {
    writeFileSync(join(workspace, "m.yaml"), manifest);
    const run = await runInProcess(
      {
        command: "plan",
        paths: "m.yaml",
        url: sandbox.url,
        token: TOKEN,
        "changed-since": "false",
        "github-token": GH_TOKEN,
        ...inputs,
      },
      { workspace, env: runner(options.event ?? "pull_request", options.env) },
    );
    expect(run.stderr).toBe("");
    for (const token of [TOKEN, GH_TOKEN, READ_ONLY, OTHER_BOT]) {
      expect(tokenLeaks(run, token)).toEqual([]);
      for (const c of github.comments(PULL)) expect(c.body).not.toContain(token);
    }
    return run;
  }
  const ours = (m = marker()) =>
    github.comments(PULL).filter((c) => c.user.login === BOT && c.body.split("\n")[0] === m);
  const writes = () => github.requests.filter((r) => r.method !== "GET" && !r.url.endsWith("graphql"));

  it("always: creates the comment, then updates that one, with the job's token", async () => {
    const first = await step(CHANGED, { comment: "always" });
    expect(first.status, first.stdout).toBe(0);
    expect(first.outputs["exit-code"]).toBe("2");
    const [created, ...others] = ours();
    expect(others).toEqual([]);
    expect(created!.body.split("\n").slice(0, 3)).toEqual([
      marker(),
      "**forgeform plan:** Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.",
      "",
    ]);
    expect(created!.body).toContain('+     description: "New"');
    expect(created!.body).toContain(
      "<sub>forgeform plan in workflow `forgeform plan`, job `plan`: [this run](https://github.example/acme/infra/actions/runs/4242). Each run updates this comment.</sub>",
    );
    expect(first.stdout).toContain(`Commented on pull request #${PULL}: ${created!.html_url}`);
    const second = await step(UNCHANGED, { comment: "always" });
    expect(second.outputs["exit-code"]).toBe("0");
    const [updated, ...more] = ours();
    expect(more).toEqual([]);
    expect(updated!.id).toBe(created!.id);
    expect(updated!.body).toContain("**No changes.** The live state matches the manifests.");
    expect(second.stdout).toContain(`Updated the comment on pull request #${PULL}: ${created!.html_url}`);
    for (const r of github.requests) {
      expect(r.authorization).toBe(`token ${GH_TOKEN}`);
      expect(r.userAgent).toMatch(/^forgeform-action /);
    }
    expect(github.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "POST /graphql",
      `GET /repos/acme/infra/issues/${PULL}/comments?per_page=100`,
      `POST /repos/acme/infra/issues/${PULL}/comments`,
      "POST /graphql",
      `GET /repos/acme/infra/issues/${PULL}/comments?per_page=100`,
      `PATCH /repos/acme/infra/issues/comments/${created!.id}`,
    ]);
  });

  it("never (the default) does not call GitHub, on a pull request too", async () => {
    for (const comment of ["never", ""]) {
      const run = await step(CHANGED, { comment });
      expect(run.status, run.stdout).toBe(0);
      const said = run.stdout.split("\n").filter((line) => !line.startsWith("::add-mask::"));
      expect(said.filter((line) => /comment/i.test(line))).toEqual([]);
    }
    expect(github.requests).toEqual([]);
  });

  it("on-change: nothing while nothing changes; a comment on changes; then it says there are none", async () => {
    const quiet = await step(UNCHANGED, { comment: "on-change" });
    expect(quiet.outputs["exit-code"]).toBe("0");
    expect(quiet.stdout).toContain(
      `No changes: no comment on pull request #${PULL} (comment is on-change: it comments on changes, drift or errors).`,
    );
    expect(writes()).toEqual([]);
    await step(CHANGED, { comment: "on-change" });
    const [posted] = ours();
    expect(posted!.body).toContain('description: "New"');
    await step(UNCHANGED, { comment: "on-change" });
    const [updated, ...more] = ours();
    expect(more).toEqual([]);
    expect(updated!.id).toBe(posted!.id);
    expect(updated!.body.split("\n")[1]).toBe(
      "**forgeform plan:** Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.",
    );
  });

  it("on-change: drift is a change, and the comment is the drift report, its marker naming the command", async () => {
    await fetch(`${sandbox.url}/api/v4/groups/tbl`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ description: "Changed by hand" }),
    });
    const none = await step(
      "version: 1\ngroups:\n  tbl:\n    description: Changed by hand\n",
      { command: "drift", comment: "on-change" },
      { event: "pull_request_target" },
    );
    expect(none.outputs["exit-code"]).toBe("0");
    expect(writes()).toEqual([]);
    const drift = await step(DRIFTED, { command: "drift", comment: "on-change" });
    expect(drift.outputs["exit-code"]).toBe("2");
    const [comment, ...more] = ours(marker("drift"));
    expect(more).toEqual([]);
    expect(comment!.body.split("\n")[1]).toBe(
      "**forgeform drift:** Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.",
    );
  });

  it("on-change: a failed step is commented, with why (pull_request_target too)", async () => {
    const run = await step(
      CHANGED,
      { comment: "on-change", token: "glpat-not-a-token-of-this-platform" },
      { event: "pull_request_target" },
    );
    expect(run.status).toBe(1);
    const [comment] = ours();
    const lines = comment!.body.split("\n");
    expect(lines[1]).toBe("**forgeform plan:** the step failed before it made a report.");
    expect(lines[2]).toBe("");
    expect(lines[3]).toMatch(/^\*\*The step failed:\*\* forgeform: .*401.*the token input/);
    expect(lines[5]).toMatch(/^<sub>forgeform plan in workflow/);
    // Invalid manifests: the validation report, and the failure.
    await step("version: 1\ngroups:\n  tbl:\n    visibility: nope\n", { comment: "on-change" });
    const [again] = ours();
    expect(again!.id).toBe(comment!.id);
    expect(again!.body.split("\n")[1]).toBe(
      "**forgeform plan:** The manifests are invalid: 1 error; nothing was sent to the platform.",
    );
    expect(again!.body).toContain(
      "**The step failed:** forgeform plan: the manifests have an error (see the annotations); nothing was sent to the platform",
    );
    expect(again!.body).toContain("## forgeform validate");
  });

  it("comments on pull request #1", async () => {
    github = await restartWith([1]);
    writeFileSync(payload, JSON.stringify({ pull_request: { number: 1 } }));
    const run = await step(CHANGED, { comment: "always" });
    expect(warned(run)).toEqual([]);
    expect(github.comments(1)).toHaveLength(1);
  });

  it("a long plan is cut to fit the comment, under its summary line", async () => {
    const long = "x".repeat(250);
    const groups = Array.from({ length: 300 }, (_, i) => `  big-${i}:\n    description: ${long}\n`).join("");
    const run = await step(`${CHANGED}${groups}`, { comment: "always" });
    expect(run.status, run.stdout).toBe(0);
    const [comment] = ours();
    expect(comment!.body.length).toBeLessThanOrEqual(65_536);
    expect(comment!.body.split("\n")[1]).toBe(
      "**forgeform plan:** Plan: 300 to create, 1 to update, 0 to replace, 0 to delete.",
    );
    expect(comment!.body).toContain("## forgeform plan");
    expect(comment!.body).toContain("This report was cut to stay under");
    expect(comment!.body).not.toContain("The report is longer than a pull-request comment can hold");
  });

  it("a long plan is cut to leave room for a long workflow name", async () => {
    const long = "x".repeat(250);
    const groups = Array.from({ length: 300 }, (_, i) => `  big-${i}:\n    description: ${long}\n`).join("");
    const workflow = "w".repeat(2_000);
    await step(`${CHANGED}${groups}`, { comment: "always" }, { env: { GITHUB_WORKFLOW: workflow } });
    const [comment] = github.comments(PULL);
    expect(comment!.body.length).toBeLessThanOrEqual(65_536);
    expect(comment!.body).toContain("This report was cut to stay under");
  });

  it("apply: a failed apply's summary line counts what failed and was skipped", async () => {
    const faulty = await startSandbox({ adminToken: TOKEN, faults: "500:1@POST/api/v4/groups" });
    try {
      const run = await step("version: 1\ngroups:\n  duo: {}\n  duo/one: {}\n", {
        command: "apply",
        comment: "on-change",
        url: faulty.url,
      });
      expect(run.status).toBe(1);
      const [comment] = ours(marker("apply"));
      expect(comment!.body.split("\n")[1]).toBe(
        "**forgeform apply:** Apply incomplete: 0 done, 1 failed, 1 skipped.",
      );
    } finally {
      await faulty.stop();
    }
  });

  it("the shard has a comment of its own", async () => {
    await step(CHANGED, { comment: "always", shard: "1/2" });
    await step(CHANGED, { comment: "always", shard: "2/2" });
    expect(ours(marker("plan", "1/2"))).toHaveLength(1);
    expect(ours(marker("plan", "2/2"))).toHaveLength(1);
    expect(ours(marker("plan", "2/2"))[0]!.body).toContain("shard `2/2`");
  });

  it("another identity's comment with the marker is left alone", async () => {
    const theirs = github.seed(PULL, "other[bot]", `${marker()}\nan impostor`);
    await step(CHANGED, { comment: "always" });
    expect(github.comments(PULL).find((c) => c.id === theirs.id)).toEqual(theirs);
    expect(ours()).toHaveLength(1);
    // Posted with another bot's token, the comment is that bot's, and ours is untouched.
    await step(CHANGED, { comment: "always", "github-token": OTHER_BOT });
    expect(github.comments(PULL)).toHaveLength(2);
    expect(github.comments(PULL).find((c) => c.id === theirs.id)!.body).toContain('description: "New"');
  });

  it("finds its comment on a later page", async () => {
    for (let i = 0; i < 120; i++) github.seed(PULL, `reviewer-${i % 7}`, `comment ${i}`);
    const previous = github.seed(PULL, BOT, `${marker()}\r\nan older plan`);
    const run = await step(CHANGED, { comment: "always" });
    expect(run.status, run.stdout).toBe(0);
    expect(ours().map((c) => c.id)).toEqual([previous.id]);
    expect(writes().map((r) => r.method)).toEqual(["PATCH"]);
  });

  it("stops reading pages once it found its comment on the first", async () => {
    const previous = github.seed(PULL, BOT, `${marker()}\nan older plan`);
    for (let i = 0; i < 120; i++) github.seed(PULL, `reviewer-${i % 7}`, `comment ${i}`);
    await step(CHANGED, { comment: "always" });
    expect(ours().map((c) => c.id)).toEqual([previous.id]);
    expect(github.requests.filter((r) => r.method === "GET")).toHaveLength(1);
    expect(writes().map((r) => r.method)).toEqual(["PATCH"]);
  });

  it("validate: the summary line says how many files are valid, and with how many warnings", async () => {
    const warning = "version: 1\ntemplates:\n  unused:\n    description: x\ngroups:\n  tbl: {}\n";
    await step(warning, { command: "validate", comment: "always" });
    const [comment] = ours(marker("validate"));
    expect(comment!.body.split("\n")[1]).toBe(
      "**forgeform validate:** 1 manifest file valid with 1 warning.",
    );
    await step(UNCHANGED, { command: "validate", comment: "always" });
    expect(ours(marker("validate"))[0]!.body.split("\n")[1]).toBe(
      "**forgeform validate:** 1 manifest file valid.",
    );
  });

  it("apply: the summary line is the apply's outcome", async () => {
    await step(CHANGED, { command: "apply", comment: "on-change" });
    const [comment] = ours(marker("apply"));
    expect(comment!.body.split("\n")[1]).toBe(
      "**forgeform apply:** Apply complete: 1 done, 0 failed, 0 skipped.",
    );
    expect(comment!.body).toContain("## forgeform apply");
    await step(CHANGED, { command: "apply", comment: "on-change" });
    expect(ours(marker("apply"))[0]!.body.split("\n")[1]).toBe(
      "**forgeform apply:** Nothing to apply: the platform matches the manifests.",
    );
    await step("version: 1\ngroups:\n  tbl:\n    state: absent\n", {
      command: "apply",
      comment: "on-change",
      "max-deletes": "0",
    });
    expect(ours(marker("apply"))[0]!.body.split("\n")[1]).toBe(
      "**forgeform apply:** Nothing was applied. Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.",
    );
  });

  describe("behind a proxy", () => {
    let proxy: ConnectProxy;
    beforeEach(async () => {
      proxy = await startConnectProxy();
    });
    afterEach(async () => {
      await proxy.stop();
    });
    const githubHost = () => new URL(github.apiUrl).host;

    it("reaches GitHub through HTTP_PROXY", async () => {
      const run = await step(CHANGED, { comment: "always" }, { env: { HTTP_PROXY: proxy.url } });
      expect(run.status, run.stdout).toBe(0);
      expect(ours()).toHaveLength(1);
      expect(proxy.tunnels).toContain(githubHost());
    });

    it("not for a host in NO_PROXY", async () => {
      const run = await step(
        CHANGED,
        { comment: "always" },
        { env: { HTTP_PROXY: proxy.url, NO_PROXY: githubHost() } },
      );
      expect(ours()).toHaveLength(1);
      expect(proxy.tunnels).not.toContain(githubHost());
      expect(run.status).toBe(0);
    });
  });

  const warned = (run: ActionRun) => run.stdout.split("\n").filter((l) => l.startsWith("::warning::"));

  it("a 403 is a warning naming the permission; the plan's outcome stands", async () => {
    const run = await step(CHANGED, { comment: "always", "github-token": READ_ONLY });
    expect(run.status, run.stdout).toBe(0);
    expect(run.outputs["exit-code"]).toBe("2");
    expect(warned(run)).toEqual([
      `::warning::forgeform plan: no comment on pull request #${PULL}: GitHub answered 403 (Resource not accessible by integration) to POST ${github.apiUrl}/repos/acme/infra/issues/${PULL}/comments: the token lacks the pull-requests: write permission. Add \`pull-requests: write\` under \`permissions:\` in the workflow or the job (a pull request from a fork gets a read-only token: its report is in the job summary). The plan itself is not affected.`,
    ]);
    expect(run.summary).toContain("## forgeform plan");
  });

  it("a 401 says the github-token was refused", async () => {
    const run = await step(CHANGED, { comment: "always", "github-token": "ghs_unknownToken" });
    expect(run.status, run.stdout).toBe(0);
    expect(warned(run)).toEqual([
      `::warning::forgeform plan: no comment on pull request #${PULL}: GitHub answered 401 (Bad credentials) to POST ${github.apiUrl}/graphql: the github-token input was refused. Leave it out to use the job's token, or pass a valid one. The plan itself is not affected.`,
    ]);
  });

  it("a 404 says the token cannot see the pull request", async () => {
    writeFileSync(payload, JSON.stringify({ pull_request: { number: 99 } }));
    const run = await step(CHANGED, { comment: "always" });
    expect(warned(run)).toEqual([
      `::warning::forgeform plan: no comment on pull request #99: GitHub answered 404 (Not Found) to GET ${github.apiUrl}/repos/acme/infra/issues/99/comments?per_page=100: the token cannot see this pull request (does it have access to the repository?). The plan itself is not affected.`,
    ]);
  });

  it("a payload without a pull request number, or no payload, or no repository, is a warning", async () => {
    writeFileSync(payload, JSON.stringify({ pull_request: { number: 0 } }));
    const zero = await step(CHANGED, { comment: "always" });
    expect(warned(zero)).toEqual([
      `::warning::forgeform plan: no comment on the pull request: GitHub's API at ${github.apiUrl} could not be reached: the event's payload (${payload}) names no pull request number. The plan itself is not affected.`,
    ]);
    writeFileSync(payload, JSON.stringify({ number: 1.5 }));
    expect(warned(await step(CHANGED, { comment: "always" }))[0]).toContain("names no pull request number");
    writeFileSync(payload, JSON.stringify({ number: "7" }));
    expect(warned(await step(CHANGED, { comment: "always" }))[0]).toContain("names no pull request number");
    const none = await step(CHANGED, { comment: "always" }, { env: { GITHUB_EVENT_PATH: "" } });
    expect(warned(none)[0]).toContain(
      "GITHUB_EVENT_PATH is not set: the runner names the event's payload there",
    );
    writeFileSync(payload, JSON.stringify({ number: PULL }));
    for (const name of ["acme/infra/x", "x/acme/infra", "acme/in fra"]) {
      const wrong = await step(CHANGED, { comment: "always" }, { env: { GITHUB_REPOSITORY: name } });
      expect(warned(wrong)[0]).toContain(`GITHUB_REPOSITORY is ${JSON.stringify(name)}, not owner/name`);
    }
    const unset = await step(CHANGED, { comment: "always" }, { env: { GITHUB_REPOSITORY: undefined } });
    expect(warned(unset)[0]).toContain('GITHUB_REPOSITORY is "", not owner/name: the runner sets it');
    const repo = await step(CHANGED, { comment: "always" }, { env: { GITHUB_REPOSITORY: "acme" } });
    expect(warned(repo)).toEqual([
      `::warning::forgeform plan: no comment on pull request #${PULL}: GitHub's API at ${github.apiUrl} could not be reached: GITHUB_REPOSITORY is "acme", not owner/name: the runner sets it. The plan itself is not affected.`,
    ]);
    expect(github.requests).toEqual([]);
  });

  it("GitHub's API unreachable is a warning naming the request; the plan's outcome stands", async () => {
    const closed = createServer();
    await new Promise<void>((done) => closed.listen(0, "127.0.0.1", done));
    const api = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((done) => closed.close(done));
    const run = await step(CHANGED, { comment: "always" }, { env: { GITHUB_API_URL: api } });
    expect(run.status).toBe(0);
    expect(run.outputs["exit-code"]).toBe("2");
    expect(warned(run)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^::warning::forgeform plan: no comment on pull request #7: GitHub answered 500 \\(.+\\) to POST ${api.replace(/\./g, "\\.")}/graphql\\. The plan itself is not affected\\.$`,
        ),
      ),
    ]);
  });

  it("the comment and the warnings never hold the token, even quoted back", async () => {
    // The workflow's name quotes the job's token: the marker and the footer are masked.
    const run = await step(CHANGED, { comment: "always" }, { env: { GITHUB_WORKFLOW: `wf ${GH_TOKEN}` } });
    expect(run.status).toBe(0);
    const [comment] = github.comments(PULL);
    expect(comment!.body).toContain("[REDACTED]");
  });
});
