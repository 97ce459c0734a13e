/**
 * Runs a python-gitlab conformance script (test/conformance/python/*.py, see harness.py) against a fresh
 * in-process sandbox. Debian's python3-gitlab is installed for /usr/bin/python3, not for the python3 on PATH.
 * A case is skipped, with the reason in its name, only when that interpreter or module is missing.
 */
import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { type SandboxOptions, startSandbox } from "../../src/sandbox/server.js";

export const PYTHON = "/usr/bin/python3";

function missing(): string | undefined {
  const r = spawnSync(PYTHON, ["-c", "import gitlab"], { encoding: "utf8" });
  if (r.error) return `${PYTHON} is not installed`;
  if (r.status !== 0) return `python-gitlab is not installed for ${PYTHON}`;
  return undefined;
}

const reason = missing();

export interface PythonCase {
  /** The test's name. */
  title: string;
  /** The script's file name in test/conformance/python/. */
  script: string;
  sandbox?: SandboxOptions;
  /** Extra environment for the script (tokens of fixture users, ...). */
  env?: Record<string, string>;
}

/** Registers one vitest case that runs the script and expects its closing `OK <n> checks` line and exit 0. */
export function pythonCase({ title, script, sandbox = {}, env = {} }: PythonCase): void {
  it.skipIf(reason !== undefined)(`${title}${reason ? ` (skipped: ${reason})` : ""}`, async () => {
    const sb = await startSandbox({
      adminToken: "conformance-admin",
      userToken: "conformance-user",
      ...sandbox,
    });
    try {
      const path = fileURLToPath(new URL(`python/${script}`, import.meta.url));
      const result = await new Promise<{ code: number; out: string }>((resolve) => {
        execFile(
          PYTHON,
          [path],
          {
            env: {
              ...process.env,
              SANDBOX_URL: sb.url,
              ADMIN_TOKEN: sb.adminToken,
              USER_TOKEN: sb.userToken,
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
