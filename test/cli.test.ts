import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

// Help, the version and bad usage in-process: test/cli/usage.test.ts.
describe("forgeform CLI", () => {
  it("the installed bin runs after the build", async () => {
    const { stdout } = await run(process.execPath, ["bin/forgeform.js", "--version"]);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
