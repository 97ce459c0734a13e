// Loaded with `node --import` into a process the benchmark measures: at exit, writes the process's own
// resource usage (CPU time, peak RSS) to the file named by FORGEFORM_BENCH_USAGE.
import { readFileSync, writeFileSync } from "node:fs";

/**
 * The process's peak resident memory since it started, in KiB: VmHWM in /proc/self/status on Linux. getrusage's
 * maxRSS is not that there: Node starts a child with vfork, and Linux credits the child with the peak its parent's
 * memory had reached when the child replaced it, so a run smaller than the benchmark's own process (the sandbox
 * and its state, a few hundred MB at 16x) was reported at the benchmark's size. Elsewhere, maxRSS.
 */
function peakRssKb(usage) {
  try {
    const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]);
  } catch {
    // Not Linux: getrusage's figure.
  }
  return usage.maxRSS;
}

const target = process.env.FORGEFORM_BENCH_USAGE;
if (target) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({
        userMs: u.userCPUTime / 1000,
        systemMs: u.systemCPUTime / 1000,
        maxRssKb: peakRssKb(u),
      }),
    );
  });
}
