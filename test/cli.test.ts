import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../src/cli/index.js";

const run = promisify(execFile);

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

describe("forgeform CLI", () => {
  it("prints help listing the program name", async () => {
    const { io, out } = capture();
    const code = await main(["node", "forgeform", "--help"], io);
    expect(code).toBe(0);
    expect(out.join("")).toContain("Usage: forgeform");
  });

  it("rejects bad usage with exit code 1 and a hint", async () => {
    const { io, err } = capture();
    const code = await main(["node", "forgeform", "frobnicate"], io);
    expect(code).toBe(1);
    expect(err.join("")).toMatch(/^error: /);
    expect(err.join("")).toContain("run with --help for usage");
  });

  it("the installed bin runs after the build", async () => {
    const { stdout } = await run(process.execPath, ["bin/forgeform.js", "--version"]);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
