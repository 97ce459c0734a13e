/**
 * Runs a client conformance script against a fresh in-process sandbox: python-gitlab scripts
 * (test/conformance/python/*.py, see harness.py) through {@link pythonCase}, any other client's through
 * {@link clientCase}. Debian's python3-gitlab is installed for /usr/bin/python3, not for the python3 on PATH.
 * A case is skipped, with the reason in its name, only when the interpreter or the client library is missing (a
 * failure instead under FORGEFORM_REQUIRE_CLIENTS=1, as .ci/run runs it: see test/required.ts).
 */
import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect } from "vitest";
import { type SandboxOptions, startSandbox } from "../../src/sandbox/server.js";
import { itNeeding } from "../required.js";

export const PYTHON = "/usr/bin/python3";

export interface ClientCase {
  /** The test's name. */
  title: string;
  /** The interpreter, and its arguments (the script's path first). */
  command: string;
  args: string[];
  /** Arguments that exit 0 only when the client library loads (`["-e", 'require "gitlab"']`). */
  probe: string[];
  /** The library's name, for the skip reason. */
  library: string;
  /** The Debian package that installs it, for the skip reason. */
  debian: string;
  sandbox?: SandboxOptions;
  /** Extra environment for the script (tokens of fixture users, ...). */
  env?: Record<string, string>;
}

const probes = new Map<string, string | undefined>();

/** Why the case cannot run here (interpreter or library missing), or `undefined`. */
function missing(command: string, probe: string[], library: string, debian: string): string | undefined {
  const key = JSON.stringify([command, probe]);
  if (!probes.has(key)) {
    const r = spawnSync(command, probe, { encoding: "utf8" });
    probes.set(
      key,
      r.error
        ? `${command} is not installed (Debian package ${debian})`
        : r.status !== 0
          ? `${library} is not installed for ${command} (Debian package ${debian})`
          : undefined,
    );
  }
  return probes.get(key);
}

/** Registers one vitest case that runs the script and expects its closing `OK <n> checks` line and exit 0. */
export function clientCase({
  title,
  command,
  args,
  probe,
  library,
  debian,
  sandbox = {},
  env = {},
}: ClientCase): void {
  const reason = missing(command, probe, library, debian);
  itNeeding(reason)(title, async () => {
    const sb = await startSandbox({
      adminToken: "conformance-admin",
      userToken: "conformance-user",
      ...sandbox,
    });
    try {
      const result = await new Promise<{ code: number; out: string }>((resolve) => {
        execFile(
          command,
          args,
          {
            env: {
              ...process.env,
              SANDBOX_URL: sb.url,
              ADMIN_TOKEN: sb.adminToken,
              USER_TOKEN: sb.userToken,
              // no __pycache__ files from the scripts' runs
              PYTHONDONTWRITEBYTECODE: "1",
              ...env,
            },
            timeout: 25_000,
          },
          (error, stdout, stderr) =>
            resolve({
              code: error ? ((error as { code?: number }).code ?? 1) : 0,
              out: `${stdout}${stderr}`,
            }),
        );
      });
      expect(result.out, result.out).toMatch(/^OK \d+ checks$/m);
      expect(result.code, result.out).toBe(0);
    } finally {
      await sb.stop();
    }
  });
}

export interface PythonCase {
  /** The test's name. */
  title: string;
  /** The script's file name in test/conformance/python/. */
  script: string;
  sandbox?: SandboxOptions;
  /** Extra environment for the script (tokens of fixture users, ...). */
  env?: Record<string, string>;
}

/** A python-gitlab script of test/conformance/python/ as a {@link clientCase}. */
export function pythonCase({ title, script, sandbox, env }: PythonCase): void {
  clientCase({
    title,
    command: PYTHON,
    args: [fileURLToPath(new URL(`python/${script}`, import.meta.url))],
    probe: ["-c", "import gitlab"],
    library: "python-gitlab",
    debian: "python3-gitlab",
    sandbox,
    env,
  });
}

/** A script of test/conformance/ run by another client library: the ruby gem (`.rb`) or GitLab::API::v4 (`.pl`). */
export function scriptCase({ title, script, sandbox, env }: PythonCase): void {
  const ruby = script.endsWith(".rb");
  clientCase({
    title,
    command: ruby ? "ruby" : "perl",
    args: [fileURLToPath(new URL(script, import.meta.url))],
    probe: ruby ? ["-e", 'require "gitlab"'] : ["-MGitLab::API::v4", "-MTry::Tiny", "-e", "1"],
    library: ruby ? "the ruby gitlab gem" : "GitLab::API::v4",
    debian: ruby ? "ruby-gitlab" : "libgitlab-api-v4-perl",
    sandbox,
    env,
  });
}
