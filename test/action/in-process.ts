/**
 * Runs the Action in this process: src/action/run.ts's run(), as dist/index.js calls it, with the runner's
 * interface as @actions/core reads and writes it (INPUT_* variables, the GITHUB_OUTPUT and GITHUB_STEP_SUMMARY
 * files, workflow commands on stdout, process.exitCode 1 for a failed step). The tests that use it see src/action
 * itself, so mutation testing measures it; helpers.ts's runAction runs the bundle as the runner does.
 *
 * The working directory is the workspace as far as the Action can tell: process.cwd() answers it and
 * process.chdir() (the working-directory input; worker threads, where Stryker runs the tests, have none) moves it.
 * Paths the code resolves itself (manifests, globs, annotations, the plan-file's folder) follow it; a path handed
 * to the file system as it is (a plan file read or written, a CA file, a backup folder) is given absolute.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import * as core from "@actions/core";
import { vi } from "vitest";
import { run } from "../../src/action/run.js";
import { type ActionRun, inputVariable, parseOutputs } from "./helpers.js";

/**
 * @actions/core keeps the first GITHUB_STEP_SUMMARY it sees for the life of the module: one file for every run,
 * emptied before each.
 */
const SUMMARY = join(mkdtempSync(join(tmpdir(), "forgeform-inproc-summary-")), "summary.md");

/** A fresh workspace holding `files` (name -> text, folders made as needed). */
export function workspaceWith(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-inproc-ws-"));
  for (const [name, text] of Object.entries(files)) {
    const file = join(dir, name);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, text);
  }
  return dir;
}

/**
 * Runs the Action with the given inputs in `workspace` (a new empty one by default). Only PATH and the runner's
 * variables are in its environment, as in helpers.ts's runAction; `env` adds to them (undefined: leaves one out).
 */
export async function runInProcess(
  inputs: Record<string, string>,
  options: { workspace?: string; env?: Record<string, string | undefined> } = {},
): Promise<ActionRun> {
  const workspace = options.workspace ?? workspaceWith({});
  const runner = mkdtempSync(join(tmpdir(), "forgeform-inproc-runner-"));
  const outputFile = join(runner, "output");
  writeFileSync(outputFile, "");
  writeFileSync(SUMMARY, "");
  core.summary.emptyBuffer();
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    GITHUB_ACTIONS: "true",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: SUMMARY,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: runner,
  };
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  for (const [name, value] of Object.entries(inputs)) env[inputVariable(name)] = value;
  // @actions/core reads inputs, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and RUNNER_DEBUG from process.env.
  const saved = { ...process.env };
  for (const key of Object.keys(process.env)) {
    if (key.startsWith("INPUT_") || key.startsWith("GITHUB_") || key === "RUNNER_DEBUG")
      delete process.env[key];
  }
  Object.assign(process.env, env);
  let cwd = workspace;
  const cwdSpy = vi.spyOn(process, "cwd").mockImplementation(() => cwd);
  const chdirSpy = vi.spyOn(process, "chdir").mockImplementation((dir: string) => {
    cwd = resolve(cwd, dir);
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const outSpy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(String(chunk));
    return true;
  });
  const errSpy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr.push(String(chunk));
    return true;
  });
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  let status: number;
  try {
    await run(env);
    status = Number(process.exitCode ?? 0);
  } finally {
    process.exitCode = exitCode;
    outSpy.mockRestore();
    errSpy.mockRestore();
    cwdSpy.mockRestore();
    chdirSpy.mockRestore();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
  return {
    status,
    stdout: stdout.join(""),
    stderr: stderr.join(""),
    outputs: parseOutputs(readFileSync(outputFile, "utf8")),
    summary: readFileSync(SUMMARY, "utf8"),
    workspace,
  };
}
