/**
 * Runs gitlabracadabra (Debian's, for /usr/bin/python3) with an action file against a running sandbox, as its
 * administrator, in a fresh working directory with a python-gitlab configuration pointing at the sandbox.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RunningSandbox } from "../../src/sandbox/server.js";
import { PYTHON } from "./python-gitlab.js";

/** Why gitlabracadabra cannot run here, or `undefined` when it can. */
export function racadabraMissing(): string | undefined {
  const probe = spawnSync(PYTHON, ["-c", "import gitlabracadabra"], { encoding: "utf8" });
  return probe.error || probe.status !== 0
    ? `gitlabracadabra is not installed for ${PYTHON} (Debian package gitlabracadabra)`
    : undefined;
}

/**
 * A runner of the action file `actionFile` against `sb`: each call is one `gitlabracadabra -v` run, in `cwd` when
 * given (gitlabracadabra reads an action file's `include:` from its working directory).
 */
export function racadabraRunner(
  sb: RunningSandbox,
  actionFile: string,
  cwd?: string,
): () => Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), "racadabra-"));
  const config = join(dir, "python-gitlab.cfg");
  writeFileSync(
    config,
    `[global]\ndefault = sandbox\ntimeout = 10\n\n[sandbox]\nurl = ${sb.url}\nprivate_token = ${sb.adminToken}\napi_version = 4\n`,
  );
  return () =>
    new Promise((resolve) => {
      execFile(
        PYTHON,
        ["-m", "gitlabracadabra.cli", "-c", config, "-v", actionFile],
        { cwd: cwd ?? dir, timeout: 25_000, env: { ...process.env, HOME: dir } },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
    });
}
