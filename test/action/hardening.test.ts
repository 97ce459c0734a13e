/**
 * The bundled Action (dist/index.js, as the runner runs it) reads only regular manifest files inside the workspace:
 * what a `paths` glob matches may be a planted link to /dev/zero or to a file outside the checkout, a path may name a
 * FIFO, and each is refused with an annotation instead of being read. Counts in its messages are worded for one or
 * many.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { nodes, runAction } from "./helpers.js";

const TOKEN = "glpat-action-hardening-1a2b3c";

describe.each(nodes())("the bundled Action on %s", (_name, node) => {
  it("validate: refuses what a glob matches that is not a regular file inside the workspace", async () => {
    const outside = mkdtempSync(join(tmpdir(), "forgeform-outside-"));
    writeFileSync(join(outside, "elsewhere.yaml"), "version: 1\ngroups:\n  elsewhere: {}\n");
    const workspace = mkdtempSync(join(tmpdir(), "forgeform-action-ws-"));
    mkdirSync(join(workspace, "manifests"));
    writeFileSync(join(workspace, "manifests/groups.yaml"), "version: 1\ngroups:\n  acme: {}\n");
    symlinkSync("/dev/zero", join(workspace, "manifests/evil.yaml"));
    symlinkSync(join(outside, "elsewhere.yaml"), join(workspace, "manifests/outside.yaml"));
    execFileSync("mkfifo", [join(workspace, "manifests/pipe.yaml")]);
    // A glob does not match a FIFO; one named on its own is refused too.
    const run = await runAction(
      node,
      { command: "validate", paths: "manifests/*.yaml\nmanifests/pipe.yaml" },
      { workspace },
    );
    expect(run.status).toBe(1);
    expect(run.outputs["exit-code"]).toBe("1");
    expect(run.stdout).toContain(
      "::error title=forgeform validate,file=manifests/evil.yaml,line=1,col=1::the file leads outside the manifest root manifests (to /dev/zero) through a symbolic link: forgeform reads manifests only inside it",
    );
    expect(run.stdout).toContain(
      `::error title=forgeform validate,file=manifests/outside.yaml,line=1,col=1::the file leads outside the manifest root manifests (to ${join(outside, "elsewhere.yaml")}) through a symbolic link: forgeform reads manifests only inside it`,
    );
    expect(run.stdout).toContain(
      "::error title=forgeform validate,file=manifests/pipe.yaml,line=1,col=1::the file is a FIFO (named pipe), not a regular file: manifests are read from regular files only",
    );
    expect(run.stdout).toContain("::error::forgeform validate: the manifests have 3 errors");
  });

  describe("against a platform", () => {
    let sandbox: RunningSandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({
        adminToken: TOKEN,
        fixture: { groups: [{ path: "acme" }, { path: "acme/old" }] },
      });
    });
    afterAll(async () => {
      await sandbox.stop();
    });

    it("apply: max-deletes counts one deleted object as one object", async () => {
      const workspace = mkdtempSync(join(tmpdir(), "forgeform-action-ws-"));
      writeFileSync(join(workspace, "prune.yaml"), "version: 1\ngroups:\n  acme/old:\n    state: absent\n");
      const run = await runAction(
        node,
        { command: "apply", url: sandbox.url, token: TOKEN, paths: "prune.yaml", "max-deletes": "0" },
        { workspace },
      );
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(
        "::error::forgeform apply: refusing to apply: the plan deletes or replaces 1 object, more than max-deletes 0; nothing was applied",
      );
    });
  });
});
