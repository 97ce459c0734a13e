/**
 * A file read in part (a pull request's plan, a shard: see outline.ts's keepEntries) reads only the entries it
 * keeps, and says where a problem is in the file's own lines and columns.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../src/manifest/index.js";

const TEXT = `version: 1
projects:
  a/left-out:
    visibility: nonsense
  b/kept:
    description: fine
    visibilty: private
`;

describe("a file read in part", () => {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-partial-read-"));
  const file = join(dir, "projects.yaml");
  writeFileSync(file, TEXT);
  const load = (keep: string[]) =>
    loadManifests([dir], {
      secrets: false,
      only: new Set([file]),
      partial: new Map([[file, new Set(keep)]]),
    });

  it("reports a problem of a kept entry at the file's line and column, and nothing of the others", async () => {
    const { diagnostics } = await load(["projects:b/kept"]);
    const errors = diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => [d.line, d.col])).toEqual([[7, 5]]);
    expect(errors[0]!.message).toContain("visibilty");
    expect(errors[0]!.file).toContain("projects.yaml");
  });

  it("reads the left-out entry's problem when it is kept", async () => {
    const { diagnostics } = await load(["projects:a/left-out"]);
    const errors = diagnostics.filter((d) => d.severity === "error");
    expect(errors.map((d) => d.line)).toEqual([4]);
  });

  it("holds only the kept entries, each at its line", async () => {
    const keys = async (keep: string[]) => {
      const { state } = await load(keep);
      return (state?.root.children["projects"]?.items ?? []).map((i) => [i.key, i.source.line]);
    };
    const none = await load([]);
    expect(none.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(none.state?.root.children["projects"]?.items ?? []).toEqual([]);
    writeFileSync(file, TEXT.replace("visibilty", "visibility").replace("nonsense", "internal"));
    expect(await keys(["projects:b/kept"])).toEqual([["b/kept", 5]]);
    expect(await keys(["projects:a/left-out", "projects:b/kept"])).toEqual([
      ["a/left-out", 3],
      ["b/kept", 5],
    ]);
    writeFileSync(file, TEXT);
  });
});
