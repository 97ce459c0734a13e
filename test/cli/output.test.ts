/**
 * Output on long runs and in pipes, with the built CLI in a child process (npm test builds lib/ first): progress
 * on stderr only, a quiet stop when the reader of stdout goes away, colours as NO_COLOR and FORCE_COLOR say,
 * versioned JSON from validate and apply. (Shell completion scripts: completion.test.ts, in-process.)
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { commandMissing, present } from "../required.js";

const ROOT = join(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/forgeform.js");
const TOKEN = "output-admin-token";

/** Runs the built CLI without blocking this process, which serves the sandbox it talks to. */
function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { PATH: process.env["PATH"] ?? "", ...env },
      cwd: ROOT,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    child.on("close", (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

describe("output", () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let manifest: string;
  beforeAll(async () => {
    if (!existsSync(join(ROOT, "lib/cli/index.js")))
      throw new Error("lib/ is not built: npm test builds it first");
    // 40 ms a request: long enough for a progress line at a short interval.
    sandbox = await startSandbox({
      adminToken: TOKEN,
      latencyMs: 40,
      fixture: { groups: [{ path: "out" }] },
    });
    dir = mkdtempSync(join(tmpdir(), "forgeform-output-"));
    manifest = join(dir, "m.yaml");
    writeFileSync(
      manifest,
      `version: 1\ngroups:\n${Array.from({ length: 12 }, (_, i) => `  out/g${i}: { description: d }\n`).join("")}`,
    );
  });
  afterAll(async () => {
    await sandbox.stop();
  });
  const env = () => ({ FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: TOKEN, NO_COLOR: "1" });

  it("shows progress on stderr while reading, never on stdout, and not with --no-progress", async () => {
    const run = await cli(["plan", "--format", "json", manifest], {
      ...env(),
      FORGEFORM_PROGRESS_INTERVAL_MS: "50",
    });
    const json = { out: run.stdout, err: run.stderr };
    expect(JSON.parse(json.out).kind).toBe("plan");
    expect(json.err).toMatch(/Reading live state: [\d,]+ objects read, [\d,]+ requests, \d+ s/);
    const quiet = await cli(["plan", "--no-progress", manifest], {
      ...env(),
      FORGEFORM_PROGRESS_INTERVAL_MS: "50",
    });
    expect(quiet.stderr).not.toContain("Reading live state");
  });

  it("stops quietly when the reader of stdout goes away (| head -2)", async () => {
    const piped = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      // Far more output than a pipe holds (64 KiB), so the writer meets the closed pipe.
      const big = join(dir, "big.yaml");
      writeFileSync(
        big,
        `version: 1\ngroups:\n${Array.from({ length: 300 }, (_, i) => `  out/new${i}: { description: "${"x".repeat(200)}" }\n`).join("")}`,
      );
      const child = spawn(
        "sh",
        ["-c", `"${process.execPath}" "${BIN}" plan --format json "${big}" | head -2`],
        {
          env: { PATH: process.env["PATH"] ?? "", ...env() },
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d));
      child.stderr.on("data", (d: Buffer) => (stderr += d));
      child.on("close", () => resolve({ stdout, stderr }));
    });
    expect(piped.stdout.split("\n").filter(Boolean)).toHaveLength(2);
    expect(piped.stderr).not.toMatch(/EPIPE|Error/);
  });

  it("keeps the exit code when the reader goes away, so set -o pipefail sees plan --detailed-exitcode's 2", async () => {
    const big = join(dir, "big-exit.yaml");
    writeFileSync(
      big,
      `version: 1\ngroups:\n${Array.from({ length: 300 }, (_, i) => `  out/exit${i}: { description: "${"x".repeat(200)}" }\n`).join("")}`,
    );
    const status = await new Promise<string>((resolve) => {
      const child = spawn(
        "bash",
        [
          "-c",
          `set -o pipefail; "${process.execPath}" "${BIN}" plan --detailed-exitcode --no-progress "${big}" | head -2 >/dev/null; echo "status=$?"`,
        ],
        { env: { PATH: process.env["PATH"] ?? "", ...env() } },
      );
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d));
      child.on("close", () => resolve(stdout.trim()));
    });
    expect(status).toBe("status=2");
  });

  it("colours as NO_COLOR and FORCE_COLOR say (the rule itself: color.test.ts)", async () => {
    const forced = await cli(["plan", manifest], { ...env(), NO_COLOR: "", FORCE_COLOR: "1" });
    expect(forced.stdout).toContain("\u001b[");
    expect((await cli(["plan", manifest], env())).stdout).not.toContain("\u001b[");
  });

  it("at a terminal, colours unless FORCE_COLOR=0", async () => {
    if (!present(commandMissing("script", "bsdutils"))) return; // util-linux's script gives the CLI a terminal
    const atTerminal = (force?: string) =>
      new Promise<string>((resolve) => {
        const command = `"${process.execPath}" "${BIN}" plan --no-progress "${manifest}"`;
        const child = spawn("script", ["-qec", command, "/dev/null"], {
          env: { ...env(), NO_COLOR: "", ...(force === undefined ? {} : { FORCE_COLOR: force }) },
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d));
        child.on("close", () => resolve(out));
      });
    // An SGR sequence (ESC [ n m), built from its code so the pattern holds no control character.
    const colour = new RegExp(`${String.fromCharCode(27)}\\[\\d+(;\\d+)*m`);
    expect(await atTerminal()).toMatch(colour);
    const plain = await atTerminal("0");
    expect(plain).toContain("to update");
    expect(plain).not.toMatch(colour);
  });

  it("validate --format json and apply --format json are versioned documents", async () => {
    const v = JSON.parse((await cli(["validate", "--format", "json", manifest])).stdout);
    expect(v).toMatchObject({ format_version: 1, kind: "validation", valid: true, files: [manifest] });
    // Invalid: every file read is listed, not only those with errors.
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "version: 1\ngroups:\n  out/bad: { visibility: secret }\n");
    const invalid = await cli(["validate", "--format", "json", manifest, bad]);
    expect(invalid.status).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ valid: false, errors: 1, files: [manifest, bad] });
    const refused = await cli(["apply", "--format", "json", manifest], env());
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain("apply --format json needs --yes");
    const applied = await cli(["apply", "--yes", "--format", "json", manifest], env());
    expect(applied.status, applied.stderr).toBe(0);
    const doc = JSON.parse(applied.stdout);
    expect(doc).toMatchObject({ format_version: 1, kind: "apply" });
    expect(doc.outcomes).toHaveLength(12);
    expect(doc.outcomes.every((o: { status: string }) => o.status === "done")).toBe(true);
  });
});
