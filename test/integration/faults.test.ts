import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const GROUPS = [
  "north",
  "north/a",
  "north/b",
  "north/c",
  "south",
  "south/a",
  "south/b",
  "south/c",
  "east",
  "west",
];
const MANIFEST = `version: 1
groups:
${GROUPS.map((g) => `  ${g}:\n    description: Group ${g}\n`).join("")}`;

describe("apply under injected faults", () => {
  const benches: Bench[] = [];
  afterAll(async () => {
    for (const b of benches) await b.stop().catch(() => undefined);
  });

  it("recovers lost creates by re-reading, retries throttled reads, and converges with no duplicates", async () => {
    // A state file lets a calm sandbox continue from what the faulty run left.
    const statePath = join(mkdtempSync(join(tmpdir(), "forgeform-faults-")), "state.json");
    const faulty = await Bench.start({
      statePath,
      faults: "drop-after-commit:0.4@POST/api/v4/groups,reset:0.1@POST,429:0.2@GET,503:0.1@GET,502:0.05@GET",
      seed: 11,
      retryAfterSeconds: 0,
    });
    benches.push(faulty);
    const file = faulty.manifest(MANIFEST);
    const applied = await faulty.cli(["apply", "--yes", "--max-attempts", "6", file]);
    expect(applied.out).toContain("its response was lost; found on re-reading");
    expect(applied.code).toBe(0);
    expect(applied.out).toContain("Apply complete: 10 done, 0 failed, 0 skipped.");
    await faulty.stop();

    const calm = await Bench.start({ statePath });
    benches.push(calm);
    const again = await calm.cli(["apply", "--yes", file]);
    expect(again.code).toBe(0);
    const plan = await calm.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(0);
    expect(plan.out).toContain("No changes.");
    const all = await calm.get<{ full_path: string }[]>("/groups?per_page=100&all_available=true");
    const paths = all.map((g) => g.full_path).sort();
    expect(paths).toEqual([...GROUPS].sort());
  });
});
