/** Saved plans as units: what a reader is told when the file cannot be used, and what makes two plans differ. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { savedPlanRequest } from "../../src/cli/workflow.js";
import { Secret, secretsFingerprint } from "../../src/manifest/secret.js";
import { changesDigest, readSavedPlan, stalenessOf, writeSavedPlan } from "../../src/plan/saved.js";
import { makePlan, updateVariable } from "../report/fixtures.js";

describe("saved plans", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ff-saved-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("names the file and the reason when it cannot be read", () => {
    const missing = join(dir, "nope.json");
    expect(() => readSavedPlan(missing)).toThrow(new Error(`cannot read the saved plan ${missing}: ENOENT`));
    expect(() => readSavedPlan(dir)).toThrow(new Error(`cannot read the saved plan ${dir}: EISDIR`));
  });

  it("names the file when it is not a plan", () => {
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{not json");
    expect(() => readSavedPlan(bad)).toThrow(`The saved plan ${bad} is not valid JSON`);
  });

  it("reads back what it wrote", () => {
    const file = join(dir, "p.json");
    const plan = makePlan([updateVariable]);
    writeSavedPlan(file, plan);
    expect(readSavedPlan(file)).toStrictEqual(plan);
  });

  it("digests the values before and after, so a plan showing other values differs", () => {
    const plan = makePlan([updateVariable]);
    const [field, ...rest] = updateVariable.fields;
    const otherBefore = makePlan([{ ...updateVariable, fields: [{ ...field!, before: "qa" }, ...rest] }]);
    const otherAfter = makePlan([{ ...updateVariable, fields: [{ ...field!, after: "qa" }, ...rest] }]);
    expect(changesDigest(plan)).toBe(changesDigest(makePlan([updateVariable])));
    expect(changesDigest(otherBefore)).not.toBe(changesDigest(plan));
    expect(changesDigest(otherAfter)).not.toBe(changesDigest(plan));
  });

  it("tells each reason apart, in order: platform, files (named), secret values, live state, anything else", () => {
    const base = {
      ...makePlan([updateVariable]),
      manifestDigests: { "a.yaml": "1", "b.yaml": "2" },
      secretsFingerprint: "scrypt:c2FsdA==:aGFzaA==",
    };
    expect(stalenessOf(base, { ...base })).toBeUndefined();
    expect(stalenessOf(base, { ...base, url: "https://other.example" })).toContain("was made against");
    const files = stalenessOf(base, {
      ...base,
      manifestDigests: { "a.yaml": "9", "c.yaml": "3" },
      secretsFingerprint: "other",
      liveDigest: "other",
    });
    expect(files).toContain(
      "the manifests changed since the plan was made (a.yaml changed, c.yaml added, b.yaml no longer read)",
    );
    const secret = stalenessOf(base, { ...base, secretsFingerprint: "other", liveDigest: "other" });
    expect(secret).toContain("is not the one the plan was made with");
    // A fingerprint missing on one side (no reference left, say) is told the same way.
    expect(stalenessOf(base, { ...base, secretsFingerprint: undefined } as never)).toContain(
      "is not the one",
    );
    expect(stalenessOf(base, { ...base, liveDigest: "other" })).toContain("the live state changed");
    expect(stalenessOf(base, { ...base, changes: [], summary: makePlan([]).summary })).toContain(
      "neither the manifests nor the live state it read changed",
    );
  });

  it("names at most five changed files, then how many more", () => {
    const many = Object.fromEntries([1, 2, 3, 4, 5, 6, 7].map((n) => [`m${n}.yaml`, "x"]));
    const base = { ...makePlan([]), manifestDigests: {} };
    expect(stalenessOf(base, { ...base, manifestDigests: many })).toContain("m5.yaml added and 2 more");
  });

  it("fingerprints the values of every reference together, salted, and the same values with the same salt alike", () => {
    const state = (v: string) => ({
      a: new Secret(v, "env:A"),
      b: [new Secret("two", "file:b")],
      c: new Secret("lit", "literal"),
    });
    const first = secretsFingerprint(state("one"))!;
    expect(first).toMatch(/^scrypt:[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    const salt = first.split(":")[1];
    expect(secretsFingerprint(state("one"), salt)).toBe(first);
    expect(secretsFingerprint(state("uno"), salt)).not.toBe(first);
    // A fresh salt each time: two plans of the same values do not carry the same string.
    expect(secretsFingerprint(state("one"))).not.toBe(first);
    // Literal values are in the manifest files (and their digests); no reference, no fingerprint.
    expect(secretsFingerprint({ c: new Secret("lit", "literal") })).toBeUndefined();
    expect(first).not.toContain("one");
  });

  it("makes a saved plan again as it was made: manifests, targets, replace, shard, changed-since, salt", () => {
    const plan = {
      ...makePlan([]),
      manifests: ["m.yaml"],
      targets: ["acme"],
      replace: ['group["acme"]'],
      shard: { index: 2, count: 4, units: ["acme"] },
      changedSince: "origin/main",
      secretsFingerprint: "scrypt:c2FsdA==:aGFzaA==",
    };
    expect(savedPlanRequest(plan)).toEqual({
      paths: ["m.yaml"],
      targets: ["acme"],
      replace: ['group["acme"]'],
      shard: { index: 2, count: 4 },
      changedSince: "origin/main",
      fingerprintSalt: "c2FsdA==",
    });
  });
});
