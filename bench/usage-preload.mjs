// Loaded with `node --import` into a process the benchmark measures: at exit, writes the process's own
// resource usage (CPU time, peak RSS) to the file named by FORGEFORM_BENCH_USAGE.
import { writeFileSync } from "node:fs";

const target = process.env.FORGEFORM_BENCH_USAGE;
if (target) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({ userMs: u.userCPUTime / 1000, systemMs: u.systemCPUTime / 1000, maxRssKb: u.maxRSS }),
    );
  });
}
