import { describe, expect, it } from "vitest";
import { sameValue } from "../../src/engine/compare.js";
import { Secret } from "../../src/manifest/secret.js";

describe("sameValue: normalisations that prevent perpetual diffs", () => {
  it("treats null, empty string and unset as the same", () => {
    expect(sameValue(null, "")).toBe(true);
    expect(sameValue("", undefined)).toBe(true);
    expect(sameValue(null, [])).toBe(true);
    expect(sameValue("x", null)).toBe(false);
  });

  it("treats CRLF and LF line endings as the same", () => {
    expect(sameValue("a\r\nb\r\n", "a\nb\n")).toBe(true);
    expect(sameValue("a\nb", "a\nc")).toBe(false);
  });

  it("compares datetimes as instants", () => {
    expect(sameValue("2026-12-01T10:00:00Z", "2026-12-01T10:00:00.000Z")).toBe(true);
    expect(sameValue("2026-12-01T12:00:00+02:00", "2026-12-01T10:00:00.000Z")).toBe(true);
    expect(sameValue("2026-12-01T10:00:01Z", "2026-12-01T10:00:00.000Z")).toBe(false);
  });

  it("compares lists in order unless they are sets", () => {
    expect(sameValue([1, 2], [2, 1])).toBe(false);
    expect(sameValue([1, 2], [2, 1], { set: true })).toBe(true);
    expect(sameValue([{ a: 1 }, { b: 2 }], [{ b: 2 }, { a: 1 }], { set: true })).toBe(true);
    expect(sameValue([1, 1], [1, 2], { set: true })).toBe(false);
  });

  it("compares only the keys the manifest sets in an object", () => {
    expect(sameValue({ level: "custom" }, { level: "custom", events: {} })).toBe(true);
    expect(sameValue({ level: "watch" }, { level: "custom" })).toBe(false);
  });

  it("compares a secret by its value without revealing it", () => {
    expect(sameValue(new Secret("s3cret", "env:X"), "s3cret")).toBe(true);
    expect(sameValue(new Secret("s3cret", "env:X"), "other")).toBe(false);
  });

  it("keeps types apart: the number 1 is not the string '1'", () => {
    expect(sameValue(1, "1")).toBe(false);
    expect(sameValue(true, true)).toBe(true);
  });
});
