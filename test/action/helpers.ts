/**
 * Runs the bundled Action (dist/index.js) the way the runner does: a child process with INPUT_* variables and
 * GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, against a sandbox started in the test process.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
export const BUNDLE = join(ROOT, "dist/index.js");
/**
 * Node 24, installed outside the dependencies by scripts/ensure-node24.mjs (`npm test` runs it first), or where
 * FORGEFORM_NODE24 says (`npm run mutation` runs the tests from a copy of the tree that has no .cache).
 */
export const NODE24 =
  process.env["FORGEFORM_NODE24"] ?? join(ROOT, ".cache/node24/node_modules/node/bin/node");

function versionOf(binary: string): string | undefined {
  try {
    return execFileSync(binary, ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

/** A Node 20 binary: this process's when it is Node 20, else the first Node 20 on PATH, else FORGEFORM_NODE20. */
function node20(): string {
  if (process.versions.node.startsWith("20.")) return process.execPath;
  const candidates = [
    process.env["FORGEFORM_NODE20"],
    ...(process.env["PATH"] ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "" && !dir.split(/[\\/]/).includes("node_modules"))
      .map((dir) => join(dir, "node")),
  ];
  for (const candidate of candidates) {
    if (candidate && existsSync(candidate) && versionOf(candidate)?.startsWith("v20.")) return candidate;
  }
  throw new Error("no Node 20 binary found on PATH: set FORGEFORM_NODE20 to one");
}

/** The Node binaries the Action must run on: Node 20 and the npm package node@24's binary. */
export function nodes(): [string, string][] {
  if (!existsSync(NODE24)) {
    throw new Error(`${NODE24} is missing: run node scripts/ensure-node24.mjs (npm test does)`);
  }
  const twenty = node20();
  return [
    [`node ${versionOf(twenty)}`, twenty],
    [`node ${versionOf(NODE24)}`, NODE24],
  ];
}

export interface ActionRun {
  /** The process exit code: 1 when the step failed (core.setFailed), else 0. */
  status: number;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  /** The workspace directory (GITHUB_WORKSPACE and working directory of the run). */
  workspace: string;
}

/** Parses a GITHUB_OUTPUT file: `name<<DELIMITER` / value lines / `DELIMITER`, or `name=value`. */
export function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]!);
      outputs[name!] = value.join("\n");
    } else if (line.includes("=")) {
      const eq = line.indexOf("=");
      outputs[line.slice(0, eq)] = line.slice(eq + 1);
    }
  }
  return outputs;
}

/** The runner's name for an input's variable: INPUT_ + the name uppercased, spaces as `_`, dashes kept. */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

/**
 * Runs `node dist/index.js` with the given inputs in `workspace` (a new temporary directory by default). Only
 * PATH and the runner's variables are passed: nothing leaks in from the test process's environment.
 */
export async function runAction(
  node: string,
  inputs: Record<string, string>,
  options: { workspace?: string; env?: Record<string, string> } = {},
): Promise<ActionRun> {
  const workspace = options.workspace ?? mkdtempSync(join(tmpdir(), "forgeform-action-ws-"));
  const runner = mkdtempSync(join(tmpdir(), "forgeform-action-runner-"));
  const outputFile = join(runner, "output");
  const summaryFile = join(runner, "summary.md");
  writeFileSync(outputFile, "");
  writeFileSync(summaryFile, "");
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runner,
    ...options.env,
  };
  for (const [name, value] of Object.entries(inputs)) env[inputVariable(name)] = value;
  const child = spawn(node, [BUNDLE], { cwd: workspace, env, stdio: ["ignore", "pipe", "pipe"] });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  const status = await new Promise<number>((done, fail) => {
    child.on("error", fail);
    child.on("close", (code) => done(code ?? -1));
  });
  return {
    status,
    stdout: Buffer.concat(stdout).toString("utf8"),
    stderr: Buffer.concat(stderr).toString("utf8"),
    outputs: parseOutputs(readFileSync(outputFile, "utf8")),
    summary: readFileSync(summaryFile, "utf8"),
    workspace,
  };
}

/**
 * Asserts nothing printed the token except the runner's `::add-mask::` command (which the runner consumes and
 * never shows), and that the mask is set before any other line.
 */
export function tokenLeaks(run: ActionRun, token: string): string[] {
  const lines = `${run.stdout}\n${run.stderr}`.split("\n");
  const leaks = lines.filter((line) => line.includes(token) && line !== `::add-mask::${token}`);
  for (const [name, value] of Object.entries(run.outputs)) {
    if (value.includes(token)) leaks.push(`output ${name}`);
  }
  if (run.summary.includes(token)) leaks.push("job summary");
  return leaks;
}
