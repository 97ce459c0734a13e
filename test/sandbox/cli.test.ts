import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { Command } from "commander";
import { describe, expect, it } from "vitest";
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
    expect(err.join("")).toContain('sandbox: fault kind "418" is unknown');
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
