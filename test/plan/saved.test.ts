/** Saved plans as units: what a reader is told when the file cannot be used, and what makes two plans differ. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { changesDigest, readSavedPlan, writeSavedPlan } from "../../src/plan/saved.js";
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
});
