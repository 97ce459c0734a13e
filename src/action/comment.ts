/**
 * The report as a pull-request comment (the `comment` input): one comment per pull request, workflow, job and command
 * (and shard), found again by a hidden marker on its first line among the comments of the token's own identity,
 * created on the first run and updated in place after that. Nothing else is touched, nothing is deleted.
 *
 * `always` posts on every run; `on-change` only when the plan has changes, drift is found or the step fails, and
 * otherwise updates an earlier comment to the report that says there is nothing to do, so an old plan never stays
 * up; `never` (the default) does nothing. Only pull_request and pull_request_target events have a pull request.
 *
 * GitHub is reached with @octokit/core (REST, and GraphQL for the token's login, which REST gives only to user
 * tokens) at GITHUB_API_URL, through HTTPS_PROXY / HTTP_PROXY as the platform client is. Posting needs the
 * `pull-requests: write` permission. A comment that cannot be posted is a warning: the command's outcome stands.
 */
import { readFileSync } from "node:fs";
import * as core from "@actions/core";
import { Octokit } from "@octokit/core";
import { paginateRest } from "@octokit/plugin-paginate-rest";
import { EnvHttpProxyAgent, fetch as undiciFetch } from "undici";
import { Redactor } from "../api/index.js";
import { proxySettings } from "../api/proxy.js";
import { escapeMarkdown, inlineCode } from "../report/markdown.js";
import type { ActionCommand, CommentMode } from "./inputs.js";

/** GitHub refuses a comment longer than this many characters. */
export const COMMENT_MAX = 65_536;
/** A report longer than this many lines is folded under <details>; the summary line stays above it. */
export const FOLD_LINES = 40;
/** The events that have a pull request to comment on. */
const PULL_REQUEST_EVENTS = ["pull_request", "pull_request_target"];
/** The longest failure message shown in full in the comment (the log has all of it). */
const FAILURE_MAX = 1_000;

/** What a run has to say: its summary line, its Markdown report (if it made one) and its outcome. */
export interface CommentReport {
  command: ActionCommand;
  /** The summary line (`Plan: 1 to create, ...`), plain text: always visible at the top. */
  headline: string;
  /** The Markdown report, at most `maxLength` characters (the renderers cut it between whole changes). */
  render?: (maxLength: number) => string;
  /** Why the step fails, if it does. */
  failure?: string;
  /** The exit-code output: 2 for changes or drift, 1 for errors. */
  code: number;
  /** The plan has changes (or the drift report finds drift). */
  hasChanges: boolean;
}

/** Which comment is this run's: the workflow, the job and the shard, from the runner's variables and inputs. */
export interface CommentPlace {
  workflow: string;
  job: string;
  shard?: string;
  /** The run's page, linked from the comment. */
  runUrl?: string;
}

export function commentPlace(env: NodeJS.ProcessEnv, shard: string | undefined): CommentPlace {
  const place: CommentPlace = { workflow: env["GITHUB_WORKFLOW"] ?? "", job: env["GITHUB_JOB"] ?? "" };
  if (shard !== undefined) place.shard = shard;
  const server = env["GITHUB_SERVER_URL"];
  const repository = env["GITHUB_REPOSITORY"];
  const runId = env["GITHUB_RUN_ID"];
  if (server && repository && runId) place.runUrl = `${server}/${repository}/actions/runs/${runId}`;
  return place;
}

/**
 * The hidden first line that finds the comment again: `<!-- forgeform:<workflow>:<job>:<command>[:<shard>] -->`,
 * each name URL-encoded so that no name can close the HTML comment or shift the fields.
 */
export function commentMarker(command: ActionCommand, place: CommentPlace): string {
  const parts = [place.workflow, place.job, command, ...(place.shard ? [place.shard] : [])];
  return `<!-- forgeform:${parts.map((p) => encodeURIComponent(p)).join(":")} -->`;
}

/**
 * The comment: the marker, the summary line (and why the step failed), the report, folded under <details> when it
 * is longer than FOLD_LINES, and a line naming the workflow, the job and the run. The report is rendered to fit
 * GitHub's limit with all of that; a report that cannot be cut (validation's) and is still too long is left to the
 * job summary. Every token the Action holds is masked.
 */
export function commentBody(report: CommentReport, place: CommentPlace, secrets: string[]): string {
  // Masked before anything is escaped: `ghs_x` escaped for Markdown is `ghs\_x`, which a mask would miss.
  const redactor = new Redactor(secrets);
  const command = report.command;
  const headline = escapeMarkdown(redactor.text(report.headline));
  const head = [commentMarker(command, place), `**forgeform ${command}:** ${headline}`];
  if (report.failure) {
    const failure =
      report.failure.length > FAILURE_MAX
        ? `${report.failure.slice(0, FAILURE_MAX)}... (see the log)`
        : report.failure;
    head.push("", `**The step failed:** ${escapeMarkdown(redactor.text(failure))}`);
  }
  const where = [
    `workflow ${inlineCode(place.workflow)}`,
    `job ${inlineCode(place.job)}`,
    ...(place.shard ? [`shard ${inlineCode(place.shard)}`] : []),
  ].join(", ");
  const run = place.runUrl ? `[this run](${place.runUrl})` : "this run";
  const foot = `<sub>forgeform ${command} in ${where}: ${run}. Each run updates this comment.</sub>`;
  const top = `${head.join("\n")}\n\n`;
  const bottom = `\n\n${foot}\n`;
  const fold = (text: string) =>
    `<details><summary>The full report (${text.split("\n").length} lines)</summary>\n\n${text}\n\n</details>`;
  const assemble = (middle: string) => redactor.text(`${top}${middle}${bottom}`);
  // A step that failed before it made a report: the summary line and the failure say it all.
  if (!report.render) return redactor.text(`${top.trimEnd()}${bottom}`);
  // Room for the report: what the rest takes, with a fold's wrapper (whose line count has at most 6 digits).
  const room = COMMENT_MAX - (top.length + bottom.length + fold("9".repeat(6)).length);
  const text = redactor.text(report.render(room).trimEnd());
  const body = assemble(text.split("\n").length > FOLD_LINES ? fold(text) : text);
  if (body.length <= COMMENT_MAX) return body;
  return assemble(
    "The report is longer than a pull-request comment can hold: it is in the job summary of the run.",
  );
}

/** The pull request's number, from the event's payload (GITHUB_EVENT_PATH). */
function pullRequestNumber(env: NodeJS.ProcessEnv): number {
  const path = env["GITHUB_EVENT_PATH"];
  if (!path) throw new Error("GITHUB_EVENT_PATH is not set: the runner names the event's payload there");
  const payload = JSON.parse(readFileSync(path, "utf8")) as {
    pull_request?: { number?: unknown };
    number?: unknown;
  };
  const number = payload.pull_request?.number ?? payload.number;
  if (typeof number !== "number" || !Number.isSafeInteger(number) || number < 1) {
    throw new Error(`the event's payload (${path}) names no pull request number`);
  }
  return number;
}

function repository(env: NodeJS.ProcessEnv): { owner: string; repo: string } {
  const match = /^([^/\s]+)\/([^/\s]+)$/.exec(env["GITHUB_REPOSITORY"] ?? "");
  if (!match) {
    throw new Error(
      `GITHUB_REPOSITORY is ${JSON.stringify(env["GITHUB_REPOSITORY"] ?? "")}, not owner/name: the runner sets it`,
    );
  }
  return { owner: match[1]!, repo: match[2]! };
}

const GitHub = Octokit.plugin(paginateRest);
type GitHubClient = InstanceType<typeof GitHub>;

/** A client of GitHub's API (GITHUB_API_URL: GitHub Enterprise Server's too), through the environment's proxy. */
function gitHubClient(token: string, apiUrl: string, env: NodeJS.ProcessEnv): GitHubClient {
  const { httpProxy, httpsProxy, noProxy } = proxySettings(env);
  const dispatcher =
    httpProxy || httpsProxy
      ? new EnvHttpProxyAgent({
          ...(httpProxy ? { httpProxy } : {}),
          ...(httpsProxy ? { httpsProxy } : {}),
          ...(noProxy ? { noProxy } : {}),
        })
      : undefined;
  return new GitHub({
    auth: token,
    baseUrl: apiUrl,
    userAgent: "forgeform-action",
    request: {
      fetch: ((url: string, init: Parameters<typeof undiciFetch>[1]) =>
        undiciFetch(url, dispatcher ? { ...init, dispatcher } : init)) as unknown as typeof fetch,
    },
    log: {
      debug: (message: string) => core.debug(message),
      info: (message: string) => core.debug(message),
      warn: (message: string) => core.info(message),
      error: (message: string) => core.info(message),
    },
  });
}

/** An answer of GitHub's other than 2xx, as @octokit/request throws it. */
interface GitHubError {
  status: number;
  message: string;
  request?: { method?: string; url?: string };
  response?: { data?: unknown };
}

function isGitHubError(error: unknown): error is GitHubError {
  return error instanceof Error && typeof (error as Partial<GitHubError>).status === "number";
}

/** Why the comment could not be posted, and what to do about it. */
function problem(error: unknown, apiUrl: string): string {
  if (!isGitHubError(error)) {
    return `GitHub's API at ${apiUrl} could not be reached: ${error instanceof Error ? error.message : String(error)}`;
  }
  const data = error.response?.data as { message?: unknown } | undefined;
  const said = typeof data?.message === "string" ? data.message : error.message;
  const request = `${error.request?.method ?? "a request"} ${error.request?.url ?? ""}`.trim();
  const answer = `GitHub answered ${error.status} (${said}) to ${request}`;
  if (error.status === 401) {
    return `${answer}: the github-token input was refused. Leave it out to use the job's token, or pass a valid one`;
  }
  if (error.status === 403 && !/rate limit/i.test(said)) {
    return (
      `${answer}: the token lacks the pull-requests: write permission. Add \`pull-requests: write\` under ` +
      "`permissions:` in the workflow or the job (a pull request from a fork gets a read-only token: " +
      "its report is in the job summary)"
    );
  }
  if (error.status === 404) {
    return `${answer}: the token cannot see this pull request (does it have access to the repository?)`;
  }
  return answer;
}

/**
 * Posts or updates this run's comment on the pull request, as `mode` says. Never throws and never fails the step:
 * what went wrong is a warning in the log.
 */
export async function commentOnPullRequest(options: {
  mode: CommentMode;
  token: string | undefined;
  report: CommentReport;
  place: CommentPlace;
  env: NodeJS.ProcessEnv;
  secrets: string[];
}): Promise<void> {
  const { mode, report, env } = options;
  if (mode === "never") return;
  const event = env["GITHUB_EVENT_NAME"] ?? "";
  if (!PULL_REQUEST_EVENTS.includes(event)) {
    core.info(
      `comment is ${mode}, but this run is for ${event ? `a ${event} event` : "no event"}, not a pull request: no comment was posted (comments go on pull_request and pull_request_target events).`,
    );
    return;
  }
  const apiUrl = env["GITHUB_API_URL"] || "https://api.github.com";
  let number: number | undefined;
  try {
    // readInputs refuses an empty github-token when comment is set; a token is there.
    const token = options.token!;
    number = pullRequestNumber(env);
    const { owner, repo } = repository(env);
    const github = gitHubClient(token, apiUrl, env);
    const { viewer } = await github.graphql<{ viewer: { login: string } }>("query { viewer { login } }");
    const marker = commentMarker(report.command, options.place);
    let previous: { id: number | bigint } | undefined;
    const pages = github.paginate.iterator("GET /repos/{owner}/{repo}/issues/{issue_number}/comments", {
      owner,
      repo,
      issue_number: number,
      per_page: 100,
    });
    for await (const page of pages) {
      previous = page.data.find(
        (c) => c.user?.login === viewer.login && (c.body ?? "").split(/\r?\n/, 1)[0] === marker,
      );
      if (previous) break;
    }
    const wanted = mode === "always" || report.hasChanges || report.code !== 0;
    if (!wanted && !previous) {
      core.info(
        `No changes: no comment on pull request #${number} (comment is on-change: it comments on changes, drift or errors).`,
      );
      return;
    }
    const body = commentBody(report, options.place, options.secrets);
    if (previous) {
      const { data } = await github.request("PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}", {
        owner,
        repo,
        comment_id: previous.id,
        body,
      });
      core.info(`Updated the comment on pull request #${number}: ${data.html_url}`);
    } else {
      const { data } = await github.request("POST /repos/{owner}/{repo}/issues/{issue_number}/comments", {
        owner,
        repo,
        issue_number: number,
        body,
      });
      core.info(`Commented on pull request #${number}: ${data.html_url}`);
    }
  } catch (error) {
    const where = number === undefined ? "the pull request" : `pull request #${number}`;
    core.warning(
      new Redactor(options.secrets).text(
        `forgeform ${report.command}: no comment on ${where}: ${problem(error, apiUrl)}. The ${report.command} itself is not affected.`,
      ),
    );
  }
}
