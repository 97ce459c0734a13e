import { execFile, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";

/**
 * Real third-party clients against the sandbox, each in a fresh in-process sandbox on a free port.
 * A language is skipped (with the reason in the test name) only when its interpreter or client library is absent.
 */
const here = (name: string) => fileURLToPath(new URL(name, import.meta.url));

interface ClientScript {
  name: string;
  command: string;
  args: string[];
  probe: string[];
}

const clients: ClientScript[] = [
  // Debian's python-gitlab lives in the system interpreter, not in whatever python3 is first on PATH.
  {
    name: "python-gitlab",
    command: "/usr/bin/python3",
    args: [here("python_gitlab.py")],
    probe: ["-c", "import gitlab"],
  },
  {
    name: "ruby gitlab gem",
    command: "ruby",
    args: [here("ruby_gitlab.rb")],
    probe: ["-e", 'require "gitlab"'],
  },
  {
    name: "Perl GitLab::API::v4",
    command: "perl",
    args: [here("perl_gitlab.pl")],
    probe: ["-MGitLab::API::v4", "-MTry::Tiny", "-e", "1"],
  },
];

function available(c: ClientScript): string | undefined {
  const r = spawnSync(c.command, c.probe, { encoding: "utf8" });
  if (r.error) return `${c.command} is not installed`;
  if (r.status !== 0) return `${c.name} is not installed for ${c.command}`;
  return undefined;
}

describe("conformance with real clients", () => {
  for (const c of clients) {
    const missing = available(c);
    it.skipIf(missing !== undefined)(`${c.name}${missing ? ` (skipped: ${missing})` : ""}`, async () => {
      const sb = await startSandbox({ adminToken: "conformance-admin", userToken: "conformance-user" });
      try {
        const result = await new Promise<{ code: number | null; out: string }>((resolve) => {
          execFile(
            c.command,
            c.args,
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
    });
  }
});
