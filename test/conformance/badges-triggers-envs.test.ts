import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type SandboxOptions, startSandbox } from "../../src/sandbox/server.js";

/** python-gitlab's trigger, badge and protected-environment managers, each against a fresh in-process sandbox. */
const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

function missing(): string | undefined {
  const r = spawnSync("/usr/bin/python3", ["-c", "import gitlab"], { encoding: "utf8" });
  if (r.error) return "/usr/bin/python3 is not installed";
  if (r.status !== 0) return "python-gitlab is not installed for /usr/bin/python3";
  return undefined;
}

const reason = missing();

const scripts: { name: string; file: string; options?: SandboxOptions }[] = [
  { name: "pipeline triggers", file: "python/triggers.py" },
  { name: "project and group badges", file: "python/badges.py" },
  {
    name: "protected environments (licensed)",
    file: "python/protected_environments.py",
    options: { edition: "licensed" },
  },
];

describe("conformance: python-gitlab triggers, badges, protected environments", () => {
  for (const s of scripts) {
    it.skipIf(reason !== undefined)(`${s.name}${reason ? ` (skipped: ${reason})` : ""}`, async () => {
      const sb = await startSandbox({
        adminToken: "conformance-admin",
        userToken: "conformance-user",
        ...s.options,
      });
      try {
        const result = await new Promise<{ code: number; out: string }>((resolve) => {
          execFile(
            "/usr/bin/python3",
            [here(s.file)],
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
    });
  }
});
