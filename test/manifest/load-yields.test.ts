// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the manifests hold reference syntax literally
/**
 * A load lets the event loop run between its pieces (src/manifest/index.ts, HOLD_MS): a plan in chunks loads the
 * next chunk while the requests of the one before are in flight, and their answers are handled only when the load
 * lets them. Made to let it run at every piece (`holdMs: 0`), a load must give the event loop many turns, from the
 * first file read to the last node built, and give exactly what a load that never lets it run gives.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../src/manifest/index.js";

const dir = mkdtempSync(join(tmpdir(), "ff-yield-"));
const FILES = 6;
for (let f = 0; f < FILES; f++) {
  const projects = Array.from(
    { length: 5 },
    (_, p) => `  g${f}/p${p}:
    extends: [base]
    description: project ${p} of g${f}
    variables:
      - { key: TOKEN, value: "\${env:TOKEN}" }
`,
  ).join("");
  writeFileSync(
    join(dir, `${f}.yaml`),
    `version: 1\n${f === 0 ? "templates:\n  base:\n    visibility: private\n" : ""}groups:\n  g${f}:\n    description: group ${f}\nprojects:\n${projects}`,
  );
}

const options = { secrets: true, env: { TOKEN: "s3cr3t" }, root: dir };

/** Loads the workspace, counting the event loop's turns (setImmediate callbacks) that ran before it ended. */
async function loadCountingTurns(holdMs?: number) {
  let turns = 0;
  let going = true;
  const tick = () => {
    if (!going) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await loadManifests([dir], { ...options, ...(holdMs === undefined ? {} : { holdMs }) });
  going = false;
  return { result, turns };
}

describe("a load and the event loop", () => {
  it("lets it run between every piece when told to: per file, document, entry and node built", async () => {
    const { result, turns } = await loadCountingTurns(0);
    expect(result.diagnostics).toEqual([]);
    // Each of the 6 files, 6 documents, 5 projects of each and their nodes: far more than the few turns a load
    // that never yields gives (its own awaits).
    expect(turns).toBeGreaterThan(FILES * 5 * 3);
  });

  it("gives what a load that does not let it run gives", async () => {
    const yielding = await loadCountingTurns(0);
    const holding = await loadCountingTurns(Number.POSITIVE_INFINITY);
    expect(holding.turns).toBeLessThan(FILES);
    expect(yielding.result).toEqual(holding.result);
  });
});
