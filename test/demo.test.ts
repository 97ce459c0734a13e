import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("npm run demo", () => {
  it("plans the example manifests against the sandbox, showing every kind of change", async () => {
    const { stdout, stderr } = await run(process.execPath, ["scripts/demo.mjs"], {
      env: { ...process.env, NO_COLOR: "1" },
    });
    expect(stderr).toMatch(/^Sandbox platform listening at http:\/\/127\.0\.0\.1:\d+/);
    expect(stdout).toMatch(/^ {4}\+ .* will be created$/m);
    expect(stdout).toMatch(/^ {4}~ .* will be updated in place$/m);
    expect(stdout).toMatch(/^ {2}-\/\+ .* will be replaced/m);
    expect(stdout).toMatch(/^ {4}- .* will be deleted$/m);
    expect(stdout).toMatch(/^ {4}! .* unmanaged/m);
    expect(stdout).not.toContain("Errors (");
    expect(stdout.trim().split("\n").at(-1)).toMatch(
      /^Plan: \d+ to create, \d+ to update, \d+ to replace, \d+ to delete\.$/,
    );
    // The stand-in secrets never show, nor a masked variable's value on the platform.
    for (const secret of [
      "demo-deploy-token",
      "demo-npm-token",
      "demo-renovate-token",
      "legacy-deploy-password",
    ])
      expect(stdout + stderr).not.toContain(secret);
    expect(stdout).toContain('! project["acme/platform/api"].variable["LEGACY_DEPLOY_PASSWORD#*"] unmanaged');
  });
});
