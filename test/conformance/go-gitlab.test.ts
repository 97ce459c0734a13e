import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { startSandbox } from "../../src/sandbox/server.js";
import { itNeeding } from "../required.js";

/**
 * go-gitlab (Debian's golang-github-xanzy-go-gitlab-dev, the client library of the platform's Terraform provider)
 * as a judge: test/conformance/go/gogitlab is built with Debian's Go in GOPATH mode, without network, and run against
 * a fresh in-process sandbox. Skipped, with the reason in the test's name, when Go or the library is not installed
 * (a failure under FORGEFORM_REQUIRE_CLIENTS=1, as .ci/run runs it: see test/required.ts).
 * GO_JUDGE_LOG=1 prints the program's check-by-check output.
 */

const GO = "/usr/bin/go";
const GOPATH = "/usr/share/gocode";
const LIBRARY = join(GOPATH, "src/github.com/xanzy/go-gitlab");
const PROGRAM = fileURLToPath(new URL("go/gogitlab", import.meta.url));

function missing(): string | undefined {
  if (!existsSync(GO)) return `${GO} is not installed (Debian package golang-go)`;
  if (!existsSync(LIBRARY))
    return `${LIBRARY} is not installed (Debian package golang-github-xanzy-go-gitlab-dev)`;
  return undefined;
}

const reason = missing();

/** What the Go program finds already there: a CI-made deployment and the merge requests it shipped. */
const fixture = {
  users: [{ username: "alice", name: "Alice Example" }],
  groups: [{ path: "seeded", visibility: "private", members: { alice: "developer" } }],
  projects: [{ path: "seeded/api", visibility: "private" }],
  jobs: [
    {
      project: "seeded/api",
      pipelines: [
        { ref: "main", user: "alice", jobs: [{ name: "deploy", stage: "deploy", status: "success" }] },
      ],
    },
  ],
  deployments: [
    {
      project: "seeded/api",
      environment: "production",
      external_url: "https://api.seeded.example",
      job: "deploy",
      created_at: "2023-05-01T09:03:00Z",
      merge_requests: [
        { title: "Add login", author: "alice", labels: ["feature"], created_at: "2023-04-20T10:00:00Z" },
        { title: "Fix typo", author: "alice", created_at: "2023-04-21T10:00:00Z" },
      ],
    },
  ],
};

function run(
  command: string,
  args: string[],
  options: { cwd?: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(command, args, options, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

describe("conformance with go-gitlab (the Terraform provider's client library)", () => {
  itNeeding(reason)(
    `builds offline and drives groups, projects, pagination, export/import, schedules, triggers, badges, protected environments, deploy keys, milestones, wikis, system hooks, broadcast messages, settings, deployments, templates, project and group hooks, protected branches and tags, deploy tokens, members, shares and labels`,
    async () => {
      const dir = mkdtempSync(join(tmpdir(), "go-gitlab-"));
      const binary = join(dir, "gogitlab");
      try {
        const build = await run(GO, ["build", "-o", binary, "."], {
          cwd: PROGRAM,
          env: {
            PATH: process.env["PATH"],
            HOME: dir,
            GO111MODULE: "off",
            GOPATH,
            GOCACHE: join(dir, "cache"),
            GOFLAGS: "",
            GOPROXY: "off",
            // Without a C compiler the standard library is rebuilt without cgo (slower, but it builds).
            CGO_ENABLED: existsSync("/usr/bin/gcc") ? "1" : "0",
          },
          timeout: 120_000,
        });
        expect(build.code, build.out).toBe(0);
        const sb = await startSandbox({ adminToken: "go-admin", userToken: "go-user", fixture });
        try {
          const result = await run(binary, [], {
            env: { SANDBOX_URL: sb.url, ADMIN_TOKEN: sb.adminToken, USER_TOKEN: sb.userToken, HOME: dir },
            timeout: 60_000,
          });
          if (process.env["GO_JUDGE_LOG"]) console.log(result.out);
          expect(result.out, result.out).toMatch(/^OK \d+ checks$/m);
          expect(result.code, result.out).toBe(0);
        } finally {
          await sb.stop();
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    180_000,
  );
});
