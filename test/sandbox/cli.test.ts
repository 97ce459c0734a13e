/**
 * `forgeform sandbox` (src/cli/sandbox.ts), in-process: the listening line first, the tokens it made, its state,
 * edition and rate limit; stopped by SIGINT or SIGTERM (emitted on the process); --state, --max-body-mb and
 * --rate-limit as a client sees them; --fixture, --host and --base-url-host; its integer options' ranges; why it
 * cannot start. The built bin once.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/index.js";
import type { Io } from "../../src/cli/io.js";
import { registerSandbox } from "../../src/cli/sandbox.js";

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      out: (t: string) => void out.push(t),
      err: (t: string) => void err.push(t),
      color: false,
      interactive: false,
      prompt: async () => "",
    },
    out,
    err,
  };
}

describe("forgeform sandbox", () => {
  it("prints `listening http://HOST:PORT` first, serves until stopped, then prints generated tokens", async () => {
    const { io, out } = capture();
    let release: () => void = () => {};
    const stopped = new Promise<void>((r) => {
      release = r;
    });
    let code = -1;
    const program = new Command().exitOverride();
    let listening: (url: string) => void = () => {};
    const ready = new Promise<string>((r) => {
      listening = r;
    });
    const wrapped = {
      ...io,
      out: (t: string) => {
        io.out(t);
        if (t.startsWith("listening ")) listening(t.slice(10).trim());
      },
    };
    registerSandbox(
      program,
      wrapped as never,
      (c) => {
        code = c;
      },
      () => stopped,
    );
    const run = program.parseAsync([
      "node",
      "forgeform",
      "sandbox",
      "--port",
      "0",
      "--admin-token",
      "cli-admin",
    ]);
    const url = await ready;
    expect(out[0]).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\n$/);
    const r = await fetch(`${url}/api/v4/version`, { headers: { "PRIVATE-TOKEN": "cli-admin" } });
    expect(r.status).toBe(200);
    expect(out.join("")).toMatch(/user token \(sandbox-user\): sbx-user-/);
    expect(out.join("")).not.toContain("admin token");
    release();
    await run;
    expect(code).toBe(0);
  });

  it("reports a bad fault spec and exits 1 without listening", async () => {
    const { io, out, err } = capture();
    let code = -1;
    const program = new Command().exitOverride();
    registerSandbox(
      program,
      io as never,
      (c) => {
        code = c;
      },
      async () => {},
    );
    await program.parseAsync(["node", "forgeform", "sandbox", "--port", "0", "--faults", "418:1"]);
    expect(code).toBe(1);
    expect(out).toEqual([]);
    // The sandbox's own message, which says it is the sandbox's, once.
    expect(err.join("")).toBe(
      'sandbox: fault kind "418" is unknown; use one of 429, 500, 502, 503, reset, drop-after-commit\n',
    );
  });

  const unbuilt = !existsSync("lib/cli/sandbox.js");
  it.skipIf(unbuilt)(
    `the built bin prints the listening line first and stops on SIGTERM${unbuilt ? " (skipped: lib/ is not built; npm test builds it first)" : ""}`,
    async () => {
      const child = spawn(process.execPath, ["bin/forgeform.js", "sandbox", "--port", "0"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const first = await new Promise<string>((resolve, reject) => {
        let buf = "";
        child.stdout.on("data", (d: Buffer) => {
          buf += d.toString();
          const nl = buf.indexOf("\n");
          if (nl >= 0) resolve(buf.slice(0, nl));
        });
        child.on("exit", (c) => reject(new Error(`exited early with ${c}`)));
      });
      expect(first).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+$/);
      let stderr = "";
      child.stderr.on("data", (d: Buffer) => {
        stderr += d.toString();
      });
      const exited = new Promise<string>((r) =>
        child.on("exit", (c, sig) => r(`exit ${c} ${sig} ${stderr}`)),
      );
      child.kill("SIGTERM");
      expect(await exited).toBe("exit 0 null ");
    },
  );
});

describe("forgeform sandbox, run as the CLI runs it", () => {
  /**
   * Runs `forgeform sandbox ARGS` in-process through main(), its stop being the process's SIGINT or SIGTERM; `whileUp`
   * runs once the listening line is out, with the sandbox's URL, then `signal` is sent. Resolves to the exit code
   * and the output.
   */
  async function sandbox(
    args: string[],
    whileUp: (url: string) => Promise<void> = async () => {},
    signal: "SIGINT" | "SIGTERM" = "SIGTERM",
  ) {
    const out: string[] = [];
    const err: string[] = [];
    let up: (url: string) => void = () => {};
    const listening = new Promise<string>((r) => {
      up = r;
    });
    const io: Io = {
      out: (t) => {
        out.push(t);
        if (t.startsWith("listening ")) up(t.slice(10).trim());
      },
      err: (t) => void err.push(t),
      color: false,
      interactive: false,
    };
    const signals = [process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")];
    const running = main(["node", "forgeform", "sandbox", "--port", "0", ...args], io);
    const code = await Promise.race([
      running,
      listening.then(async (url) => {
        try {
          await whileUp(url);
        } finally {
          process.emit(signal, signal);
        }
        return running;
      }),
    ]);
    // The signal handlers are gone once the sandbox stopped.
    expect([process.listenerCount("SIGINT"), process.listenerCount("SIGTERM")]).toEqual(signals);
    return { code, out: out.join(""), err: err.join("") };
  }

  it("prints the tokens it made, not those given, and where its state is; stops on SIGTERM or SIGINT", async () => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      const run = await sandbox(["--user-token", "given-user"], async () => {}, signal);
      expect(run.code, signal).toBe(0);
      expect(run.err, signal).toBe("");
      expect(run.out, signal).toMatch(
        /^listening http:\/\/127\.0\.0\.1:\d+\nadmin token \(root\): sbx-admin-\S+\nedition: licensed, state in memory\n$/,
      );
    }
  });

  it("keeps its state in --state, says why a write it could not keep answered 500; --edition, --seed, --max-body-mb", async () => {
    const dir = mkdtempSync(join(tmpdir(), "forgeform-sandbox-cli-"));
    const state = join(dir, "state.json");
    try {
      const run = await sandbox(
        ["--state", state, "--admin-token", "a", "--user-token", "u", "--edition", "core"].concat([
          "--seed",
          "2147483647",
          "--max-body-mb",
          "1",
        ]),
        async (url) => {
          const post = (body: string) =>
            fetch(`${url}/api/v4/groups`, {
              method: "POST",
              headers: { "PRIVATE-TOKEN": "a", "Content-Type": "application/json" },
              body,
            });
          expect((await post('{"name":"kept","path":"kept"}')).status).toBe(201);
          expect(JSON.parse(readFileSync(state, "utf8"))).toBeTypeOf("object");
          // Over 1 MiB: refused unread.
          const big = await post(
            JSON.stringify({ name: "big", path: "big", description: "x".repeat(1_100_000) }),
          );
          expect([big.status, await big.json()]).toEqual([
            413,
            { message: "413 Request Entity Too Large: bodies may have at most 1 MiB" },
          ]);
          // The state file turned into a folder: the next write cannot be kept.
          rmSync(state);
          mkdirSync(join(state, "in-the-way"), { recursive: true });
          expect((await post('{"name":"lost","path":"lost"}')).status).toBe(500);
        },
      );
      expect(run.code).toBe(0);
      expect(run.out).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\nedition: core, state: (.+)\n$/);
      expect(run.out).toContain(`, state: ${state}\n`);
      expect(run.err).toMatch(/; POST \/api\/v4\/groups answered 500 and was undone\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("starts from --fixture, on --host, naming itself in URLs by --base-url-host", async () => {
    const dir = mkdtempSync(join(tmpdir(), "forgeform-sandbox-cli-"));
    const fixture = join(dir, "fixture.yaml");
    writeFileSync(fixture, "groups:\n  - path: seeded\n");
    try {
      const args = ["--fixture", fixture, "--host", "localhost", "--base-url-host", "forge.example:8443"];
      const run = await sandbox([...args, "--admin-token", "a"], async (url) => {
        expect(url).toMatch(/^http:\/\/localhost:\d+$/);
        const res = await fetch(`${url}/api/v4/groups/seeded`, { headers: { "PRIVATE-TOKEN": "a" } });
        expect(res.status).toBe(200);
        expect(((await res.json()) as { web_url: string }).web_url).toBe(
          "http://forge.example:8443/groups/seeded",
        );
      });
      expect(run.code).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("throttles each user past --rate-limit, and says so", async () => {
    const run = await sandbox(["--admin-token", "a", "--rate-limit", "1/min"], async (url) => {
      const get = () => fetch(`${url}/api/v4/version`, { headers: { "PRIVATE-TOKEN": "a" } });
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(429);
    });
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/\nedition: licensed, state in memory, API rate limit 1\/min per user\n$/);
  });

  it.each([
    ["--port", "65536", "--port <port>", "--port must be an integer from 0 to 65535"],
    ["--port", "x80", "--port <port>", "--port must be an integer from 0 to 65535"],
    ["--port", "80x", "--port <port>", "--port must be an integer from 0 to 65535"],
    ["--max-body-mb", "0", "--max-body-mb <n>", "--max-body-mb must be an integer from 1 to 4096"],
    ["--seed", "1.5", "--seed <n>", "--seed must be an integer from 0 to 2147483647"],
    ["--seed", "2147483648", "--seed <n>", "--seed must be an integer from 0 to 2147483647"],
  ])("refuses %s %s, saying the range", async (option, value, usage, why) => {
    expect(await sandbox([option, value])).toEqual({
      code: 1,
      out: "",
      err: `error: option '${usage}' argument '${value}' is invalid. ${why}\n(run with --help for usage)\n`,
    });
  });

  it("says why it cannot start, as the sandbox's, and exits 1 without listening", async () => {
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const port = (taken.address() as AddressInfo).port;
    try {
      expect(await sandbox(["--port", String(port)])).toEqual({
        code: 1,
        out: "",
        err: `sandbox: listen EADDRINUSE: address already in use 127.0.0.1:${port}\n`,
      });
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});
