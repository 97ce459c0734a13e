import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatDiagnostic, loadManifests } from "../../src/manifest/index.js";

// Each NN-name.yaml in the corpus has a sibling NN-name.expected holding the exact diagnostics, one per line.
const dir = "test/fixtures/bad-manifests";
const cases = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort();

describe("bad manifest corpus", () => {
  it("has at least 40 cases, each with its expected output, nearly all of them errors", async () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    const withErrors = cases.filter((c) =>
      readFileSync(`${dir}/${c.replace(/\.yaml$/, ".expected")}`, "utf8")
        .split("\n")
        .some((l) => l !== "" && !l.includes(": warning: ")),
    );
    expect(withErrors.length).toBeGreaterThanOrEqual(40);
    for (const c of cases) expect(readdirSync(dir)).toContain(c.replace(/\.yaml$/, ".expected"));
  });

  it.each(cases)("%s reports exactly the expected diagnostics", async (name) => {
    const expected = readFileSync(`${dir}/${name.replace(/\.yaml$/, ".expected")}`, "utf8")
      .trimEnd()
      .split("\n");
    const result = await loadManifests([`${dir}/${name}`], { secrets: true, env: {} });
    expect(result.diagnostics.map(formatDiagnostic)).toEqual(expected);
    // A manifest with errors yields no desired state (so nothing can reach the platform); warnings alone do not block.
    const hasErrors = result.diagnostics.some((d) => d.severity === "error");
    expect(result.state === undefined).toBe(hasErrors);
  });
});
