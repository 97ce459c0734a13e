/** Runs a command as a child process and measures its wall time, CPU time and peak memory. */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Measured {
  code: number;
  stdout: string;
  stderr: string;
  wallMs: number;
  cpuMs: number;
  maxRssMb: number;
}

/**
 * The repository root: the nearest directory above this module with forgeform's package.json. Found by walking up,
 * because this module runs both from bench/ (vitest) and bundled into .cache/bench/ (`npm run bench`).
 */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "forgeform")
      return dir;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error("bench: cannot find forgeform's package.json above the benchmark's module");
    dir = parent;
  }
}

const ROOT = repoRoot();
const PRELOAD = join(ROOT, "bench/usage-preload.mjs");

function collect(child: ReturnType<typeof spawn>): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on("data", (c: Buffer) => out.push(c));
  child.stderr?.on("data", (c: Buffer) => err.push(c));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code: code ?? 1,
        stdout: Buffer.concat(out).toString(),
        stderr: Buffer.concat(err).toString(),
      }),
    );
  });
}

/**
 * Runs `forgeform ...args` (the built CLI) in a child Node process (with `nodeArgs`, e.g. `--cpu-prof`); `root` is
 * the checkout whose CLI runs (this one by default; bench/profile.ts's `--compare-with` gives another).
 */
export async function measureForgeform(
  args: string[],
  env: Record<string, string>,
  nodeArgs: readonly string[] = [],
  root: string = ROOT,
): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-bench-"));
  const usageFile = join(dir, "usage.json");
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [...nodeArgs, "--import", PRELOAD, join(root, "bin/forgeform.js"), ...args],
    {
      env: { ...process.env, ...env, FORGEFORM_BENCH_USAGE: usageFile, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const result = await collect(child);
  const wallMs = performance.now() - started;
  if (!existsSync(usageFile)) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(
      `bench: forgeform ${args[0] ?? ""} ended without reporting its resource usage (exit ${result.code}): ${result.stderr.slice(0, 2000)}`,
    );
  }
  const usage = JSON.parse(readFileSync(usageFile, "utf8")) as {
    userMs: number;
    systemMs: number;
    maxRssKb: number;
  };
  rmSync(dir, { recursive: true, force: true });
  keep(args, result.stdout);
  return { ...result, wallMs, cpuMs: usage.userMs + usage.systemMs, maxRssMb: usage.maxRssKb / 1024 };
}

let kept = 0;

/**
 * With FORGEFORM_BENCH_KEEP=DIR, each run's standard output is kept in DIR, numbered in run order, with what varies
 * from one run to the next (when a plan was made, the salt of its secrets fingerprint, temporary paths) written
 * out (and the live digest: the seeded state holds the time it was made), so that two benchmark runs, before and after
 * a change that should change nothing, compare byte for byte.
 */
function keep(args: string[], stdout: string): void {
  const dir = process.env["FORGEFORM_BENCH_KEEP"];
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  kept += 1;
  const name = `${String(kept).padStart(3, "0")}-${args
    .filter((a) => !a.startsWith("/"))
    .join("_")
    .replace(/[^A-Za-z0-9_.-]+/g, "-")
    .slice(0, 60)}.out`;
  const stable = stdout
    .replace(/"(created_at|generated_at)": "[^"]*"/g, '"$1": "(time)"')
    .replace(/"secrets_fingerprint": "[^"]*"/g, '"secrets_fingerprint": "(fingerprint)"')
    .replace(/\/tmp\/[A-Za-z0-9._-]+/g, "/tmp/(dir)")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:(port)")
    // The live state itself differs from one seeding to the next (a broadcast message starts when it is made).
    .replace(/"live_digest": "[^"]*"/g, '"live_digest": "(this run\'s live state)"');
  writeFileSync(join(dir, name), stable);
}

/**
 * Runs any other command and measures it from outside: wall time, and CPU time and peak RSS of the child from
 * GNU time's format when /usr/bin/time exists (else CPU and memory are reported as unknown).
 */
export async function measureCommand(
  command: string,
  args: string[],
  env: Record<string, string>,
): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-bench-"));
  const timeFile = join(dir, "time.txt");
  const useTime = existsSync("/usr/bin/time");
  const started = performance.now();
  const child = useTime
    ? spawn("/usr/bin/time", ["-f", "%U %S %M", "-o", timeFile, command, ...args], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      })
    : spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const result = await collect(child);
  const wallMs = performance.now() - started;
  let cpuMs = Number.NaN;
  let maxRssMb = Number.NaN;
  if (useTime && existsSync(timeFile)) {
    const [user, system, rss] = readFileSync(timeFile, "utf8").trim().split(/\s+/).slice(-3).map(Number);
    cpuMs = ((user ?? 0) + (system ?? 0)) * 1000;
    maxRssMb = (rss ?? 0) / 1024;
  }
  rmSync(dir, { recursive: true, force: true });
  return { ...result, wallMs, cpuMs, maxRssMb };
}
