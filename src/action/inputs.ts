/**
 * The Action's inputs, read the way the runner passes them (`INPUT_<NAME>` environment variables, through
 * @actions/core), checked, and turned into the options the CLI's functions take.
 */
import * as core from "@actions/core";

export const COMMANDS = ["validate", "plan", "apply", "drift"] as const;
export type ActionCommand = (typeof COMMANDS)[number];

export type LogFormat = "text" | "json" | "markdown" | "junit";

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
}

/**
 * Masks the token before anything else can print it: the `token` input and the FORGEFORM_TOKEN and
 * FORGEFORM_SCIM_TOKEN variables a workflow may set instead.
 */
export function maskSecrets(env: NodeJS.ProcessEnv = process.env): void {
  const values = [core.getInput("token"), env["FORGEFORM_TOKEN"], env["FORGEFORM_SCIM_TOKEN"]];
  for (const value of values) {
    const trimmed = value?.trim();
    if (trimmed) core.setSecret(trimmed);
  }
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

function booleanInput(name: string): boolean {
  const value = core.getInput(name).toLowerCase();
  if (value === "" || value === "false") return false;
  if (value === "true") return true;
  throw new Error(`input ${name} must be true or false, not ${JSON.stringify(core.getInput(name))}`);
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
  };
  const url = optional("url");
  if (url !== undefined) inputs.url = url;
  const token = optional("token");
  if (token !== undefined) inputs.token = token.trim();
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
