import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";

/** python-gitlab's pipeline schedule managers against an in-process sandbox. */
const script = fileURLToPath(new URL("python/pipeline_schedules.py", import.meta.url));

function missing(): string | undefined {
  const r = spawnSync("/usr/bin/python3", ["-c", "import gitlab"], { encoding: "utf8" });
  if (r.error) return "/usr/bin/python3 is not installed";
  if (r.status !== 0) return "python-gitlab is not installed for /usr/bin/python3";
  return undefined;
}

const reason = missing();

describe("conformance: python-gitlab pipeline schedules", () => {
  it.skipIf(reason !== undefined)(
    `CRUD, variables, play, take_ownership${reason ? ` (skipped: ${reason})` : ""}`,
    async () => {
      const sb = await startSandbox({ adminToken: "conformance-admin", userToken: "conformance-user" });
      try {
        const result = await new Promise<{ code: number; out: string }>((resolve) => {
          execFile(
            "/usr/bin/python3",
            [script],
            {
              env: {
                ...process.env,
                SANDBOX_URL: sb.url,
                ADMIN_TOKEN: sb.adminToken,
                USER_TOKEN: sb.userToken,
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
    },
  );
});
