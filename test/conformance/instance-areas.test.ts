import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";

/**
 * python-gitlab's own managers against the sandbox for the instance-level areas: system hooks (`gl.hooks`), broadcast
 * messages (`gl.broadcastmessages`), application settings (`gl.settings`), deploy keys (`project.keys`,
 * `gl.deploykeys`) and SSH key lookup (`gl.keys`). Each script runs against a fresh in-process sandbox. Skipped, with
 * the reason in the test name, only when Debian's python-gitlab is not installed for /usr/bin/python3.
 */
const PYTHON = "/usr/bin/python3";
const script = (name: string) => fileURLToPath(new URL(`python/${name}`, import.meta.url));

function missing(): string | undefined {
  const r = spawnSync(PYTHON, ["-c", "import gitlab"], { encoding: "utf8" });
  if (r.error) return `${PYTHON} is not installed`;
  if (r.status !== 0) return `python-gitlab is not installed for ${PYTHON}`;
  return undefined;
}

const scripts = [
  { name: "system_hooks.py", edition: "licensed" as const },
  { name: "broadcast_messages.py", edition: "licensed" as const },
  { name: "application_settings.py", edition: "licensed" as const },
  { name: "application_settings.py", edition: "core" as const },
  { name: "deploy_keys.py", edition: "licensed" as const },
];

describe("python-gitlab conformance: instance areas", () => {
  const reason = missing();
  for (const s of scripts) {
    it.skipIf(reason !== undefined)(
      `${s.name} (${s.edition} edition)${reason ? ` (skipped: ${reason})` : ""}`,
      async () => {
        const sb = await startSandbox({
          adminToken: "conformance-admin",
          userToken: "conformance-user",
          edition: s.edition,
        });
        try {
          const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
            execFile(
              PYTHON,
              [script(s.name)],
              {
                env: {
                  ...process.env,
                  SANDBOX_URL: sb.url,
                  ADMIN_TOKEN: sb.adminToken,
                  USER_TOKEN: sb.userToken,
                },
                timeout: 25_000,
              },
              (error, stdout, stderr) => {
                resolve({
                  code: error ? ((error as { code?: number }).code ?? 1) : 0,
                  out: `${stdout}${stderr}`,
                });
              },
            );
          });
          expect(result.out, result.out).toMatch(/^OK \d+ checks$/m);
          expect(result.code, result.out).toBe(0);
        } finally {
          await sb.stop();
        }
      },
    );
  }
});
