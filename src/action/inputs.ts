/**
 * The Action's inputs, read the way the runner passes them (`INPUT_<NAME>` environment variables, through
 * @actions/core), checked, and turned into the options the CLI's functions take.
 */
import * as core from "@actions/core";

export const COMMANDS = ["validate", "plan", "apply", "drift"] as const;
export type ActionCommand = (typeof COMMANDS)[number];

export type LogFormat = "text" | "json" | "markdown" | "junit";

/** When the report goes to the pull request as a comment (see comment.ts). */
export const COMMENT_MODES = ["on-change", "always", "never"] as const;
export type CommentMode = (typeof COMMENT_MODES)[number];

export interface ActionInputs {
  command: ActionCommand;
  paths: string[];
  url?: string;
  token?: string;
  /** What the step prints to its log: the report in this format. */
  format: LogFormat;
  targets: string[];
  maxDeletes?: number;
  /** plan: save the plan here; apply: apply this saved plan. */
  planFile?: string;
  failOnDrift: boolean;
  failOnUnmanaged: boolean;
  /** validate: check without resolving `${env:}`/`${file:}` (pull requests from forks have no secrets). */
  noSecrets: boolean;
  caFile?: string;
  timeout?: string;
  concurrency?: string;
  maxAttempts?: string;
  /** `600/min`: requests a minute, evenly spaced (`--max-rate`). */
  maxRate?: string;
  maxResponseMb?: string;
  maxListMb?: string;
  insecureHttp: boolean;
  replace: string[];
  /** Where the manifests' paths are relative to (default: the workspace). */
  workingDirectory?: string;
  /** The manifest root (`--root`), relative to the working directory. */
  root?: string;
  /** `auto` (the pull request's base on pull_request events, else everything), `false`, or a git revision. */
  changedSince: string;
  shard?: string;
  backupDir?: string;
  noBackup: boolean;
  /** On pull_request events: post or update the pull request's comment with the report (`never`: no comment). */
  comment: CommentMode;
  /** The token the comment is posted with (the job's `github.token` by default, from action.yml). */
  githubToken?: string;
}

/**
 * The tokens the Action holds: the `token` input, the FORGEFORM_TOKEN and FORGEFORM_SCIM_TOKEN variables a workflow
 * may set instead, and the `github-token` input the pull request's comment is posted with.
 */
export function secretValues(env: NodeJS.ProcessEnv = process.env): string[] {
  const values = [
    core.getInput("token"),
    env["FORGEFORM_TOKEN"],
    env["FORGEFORM_SCIM_TOKEN"],
    core.getInput("github-token"),
  ];
  return values.map((value) => value?.trim() ?? "").filter((value) => value !== "");
}

/** Masks the tokens (secretValues) before anything else can print them. */
export function maskSecrets(env: NodeJS.ProcessEnv = process.env): void {
  for (const value of secretValues(env)) core.setSecret(value);
}

/** A list input: one item per line or separated by spaces; blank items are dropped. */
function listInput(name: string): string[] {
  return core
    .getInput(name)
    .split(/\s+/)
    .filter((item) => item !== "");
}

function optional(name: string): string | undefined {
  const value = core.getInput(name);
  return value === "" ? undefined : value;
}

/**
 * The spellings of a boolean that YAML 1.2's core schema allows, and so @actions/core's getBooleanInput: anything
 * else (`yes`, `on`, `1`, `tRuE`) is an error, never a silent false. Empty is the input's default, false.
 */
const TRUE = ["true", "True", "TRUE"];
const FALSE = ["false", "False", "FALSE"];

function booleanInput(name: string): boolean {
  const value = core.getInput(name);
  if (value === "" || FALSE.includes(value)) return false;
  if (TRUE.includes(value)) return true;
  throw new Error(
    `input ${name} must be true or false (written ${[...TRUE, ...FALSE].join(", ")}), not ${JSON.stringify(value)}`,
  );
}

/** The comment input: on-change, always or never (the default), in any case like command and format. */
function commentInput(): CommentMode {
  const value = core.getInput("comment");
  const mode = (value || "never").toLowerCase();
  if (!(COMMENT_MODES as readonly string[]).includes(mode)) {
    throw new Error(`input comment must be on-change, always or never, not ${JSON.stringify(value)}`);
  }
  return mode as CommentMode;
}

/**
 * The command line the Action's run stands for, as the CLI's V8 settings read one (src/cli/runtime.ts's
 * tuneProcess): its command. Read before the inputs are checked; a wrong command is refused by readInputs.
 */
export function tuningArgv(): string[] {
  return ["node", "forgeform-action", core.getInput("command").trim().toLowerCase()];
}

/** Reads and checks every input; throws an Error that names the input and its allowed values. */
export function readInputs(): ActionInputs {
  const command = core.getInput("command").toLowerCase();
  if (!(COMMANDS as readonly string[]).includes(command)) {
    throw new Error(
      command === ""
        ? "input command is required: validate, plan, apply or drift"
        : `input command must be validate, plan, apply or drift, not ${JSON.stringify(command)}`,
    );
  }
  const format = (core.getInput("format") || "text").toLowerCase();
  const formats: Record<ActionCommand, readonly string[]> = {
    validate: ["text", "json"],
    plan: ["text", "json", "markdown"],
    apply: ["text", "json", "markdown"],
    drift: ["text", "json", "markdown", "junit"],
  };
  const allowed = formats[command as ActionCommand];
  if (!allowed.includes(format)) {
    throw new Error(
      `input format must be ${allowed.join(", ")} for ${command}, not ${JSON.stringify(core.getInput("format"))}`,
    );
  }
  const inputs: ActionInputs = {
    command: command as ActionCommand,
    paths: listInput("paths"),
    format: format as LogFormat,
    targets: listInput("targets"),
    failOnDrift: booleanInput("fail-on-drift"),
    failOnUnmanaged: booleanInput("fail-on-unmanaged"),
    noSecrets: booleanInput("no-secrets"),
    insecureHttp: booleanInput("insecure-http"),
    replace: core
      .getInput("replace")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== ""),
    changedSince: (optional("changed-since") ?? "auto").trim(),
    noBackup: booleanInput("no-backup"),
    comment: commentInput(),
  };
  for (const [key, name] of [
    ["caFile", "ca-file"],
    ["timeout", "timeout"],
    ["concurrency", "concurrency"],
    ["maxAttempts", "max-attempts"],
    ["maxRate", "max-rate"],
    ["maxResponseMb", "max-response-mb"],
    ["maxListMb", "max-list-mb"],
    ["workingDirectory", "working-directory"],
    ["root", "root"],
    ["shard", "shard"],
    ["backupDir", "backup-dir"],
  ] as const) {
    const value = optional(name);
    if (value !== undefined) inputs[key] = value.trim();
  }
  if (inputs.noSecrets && inputs.command !== "validate") {
    throw new Error("input no-secrets is for validate only: plan, apply and drift need the secrets' values");
  }
  const url = optional("url");
  if (url !== undefined) inputs.url = url;
  const token = optional("token");
  if (token !== undefined) inputs.token = token.trim();
  const githubToken = core.getInput("github-token").trim();
  if (/\s/.test(githubToken)) {
    throw new Error("input github-token must be one token, without spaces or line breaks");
  }
  if (githubToken !== "") inputs.githubToken = githubToken;
  else if (inputs.comment !== "never") {
    throw new Error(
      `input github-token is empty, and the comment input (${inputs.comment}) posts with it: leave github-token out to use the job's token, or set comment to never`,
    );
  }
  const planFile = optional("plan-file");
  if (planFile !== undefined) inputs.planFile = planFile;
  const maxDeletes = optional("max-deletes");
  if (maxDeletes !== undefined) {
    const n = Number(maxDeletes);
    if (!/^\d+$/.test(maxDeletes.trim()) || !Number.isSafeInteger(n)) {
      throw new Error(
        `input max-deletes must be a whole number (0 or more), not ${JSON.stringify(maxDeletes)}`,
      );
    }
    inputs.maxDeletes = n;
  }
  return inputs;
}

/** Flags in a message, said in terms of the Action's inputs (`--ca-file` is the ca-file input). */
const FLAG_INPUTS: Record<string, string> = {
  url: "url",
  token: "token",
  "token-file": "token",
  target: "targets",
  "ca-file": "ca-file",
  "insecure-http": "insecure-http",
  timeout: "timeout",
  concurrency: "concurrency",
  "max-attempts": "max-attempts",
  "max-rate": "max-rate",
  "max-response-mb": "max-response-mb",
  "max-list-mb": "max-list-mb",
  "max-deletes": "max-deletes",
  replace: "replace",
  "no-secrets": "no-secrets",
  "changed-since": "changed-since",
  shard: "shard",
  "backup-dir": "backup-dir",
  "no-backup": "no-backup",
  root: "root",
  "fail-on-unmanaged": "fail-on-unmanaged",
  plan: "plan-file",
  out: "plan-file",
};

/**
 * A message from the CLI's code, worded for an Action user: `--url / FORGEFORM_URL` becomes `the url input (or
 * FORGEFORM_URL)`, `run validate with --no-secrets` becomes `set the no-secrets input`, option names disappear.
 */
export function inActionTerms(message: string): string {
  return message
    .replace(/ \(insecureHttp: true\)/g, "")
    .replace(/run validate with --no-secrets/g, "set the no-secrets input")
    .replace(
      /\(secret references not resolved: --no-secrets\)/g,
      "(secret references not resolved: no-secrets is true)",
    )
    .replace(/apply with --no-backup/g, "set the no-backup input")
    .replace(/outside the plan's --target/g, "outside the targets input")
    .replace(/add --target (\S+)/g, "add $1 to the targets input")
    .replace(
      /use --target ("[^"]*") \(and --replace ADDRESS to replace one object\)/g,
      "put $1 in the targets input (and the address in the replace input to replace one object)",
    )
    .replace(/raise the limit with --(max-response-mb|max-list-mb)/g, "raise the limit with the $1 input")
    .replace(
      /Make the plan again with `forgeform plan`\./g,
      "Make the plan again (command plan with the plan-file input).",
    )
    .replace(
      /Apply it from the folder the plan was made in/g,
      "Set the working-directory input to the folder the plan was made in",
    )
    .replace(/pass --token-file <file> or --token <token>/g, "set the token input")
    .replace(/pass --url <url> or set FORGEFORM_URL/g, "set the url input (or FORGEFORM_URL)")
    .replace(
      /--([a-z][a-z-]*)(?: <[a-z]+>)?(?: \/ (FORGEFORM_[A-Z_]+))?/g,
      (whole, flag: string, env?: string) => {
        const input = FLAG_INPUTS[flag];
        if (!input) return whole;
        return `the ${input} input${env ? ` (or ${env})` : ""}`;
      },
    )
    .replace(/(FORGEFORM_[A-Z_]+) \/ the (\S+) input/g, "the $2 input (or $1)");
}
