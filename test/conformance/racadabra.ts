import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * gitlabracadabra (Debian's, for /usr/bin/python3) applying an action file to a running sandbox. `missing` says why
 * it cannot run here (it is not installed), or is `undefined`.
 */
const probe = spawnSync("/usr/bin/python3", ["-c", "import gitlabracadabra"], { encoding: "utf8" });
export const missing =
  probe.error || probe.status !== 0 ? "gitlabracadabra is not installed for /usr/bin/python3" : undefined;

/** Returns a function that applies `actionFile` to the sandbox at `url` with `token`, as a verbose run. */
export function racadabra(
  url: string,
  token: string,
  actionFile: string,
): () => Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), "racadabra-"));
  const config = join(dir, "python-gitlab.cfg");
  writeFileSync(
    config,
    `[global]\ndefault = sandbox\ntimeout = 10\n\n[sandbox]\nurl = ${url}\nprivate_token = ${token}\napi_version = 4\n`,
  );
  return () =>
    new Promise((resolve) => {
      execFile(
        "/usr/bin/python3",
        ["-m", "gitlabracadabra.cli", "-c", config, "-v", actionFile],
        { cwd: dir, timeout: 25_000, env: { ...process.env, HOME: dir } },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
      );
    });
}
