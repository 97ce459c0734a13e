import { describe, expect, it } from "vitest";
import { sameValue } from "../../src/engine/compare.js";
import { sentValue } from "../../src/manifest/normalize.js";
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

  it("treats an empty list and an unset one as the same, on either side", () => {
    expect(sameValue([], null)).toBe(true);
    expect(sameValue(undefined, [])).toBe(true);
    expect(sameValue(["a"], null)).toBe(false);
  });

  it("normalises line endings on the live side too (the platform may answer with CRLF)", () => {
    expect(sameValue("a\nb", "a\r\nb")).toBe(true);
  });

  it("never matches text with a number or a number with text", () => {
    expect(sameValue("1", 1)).toBe(false);
    expect(sameValue("90", 90, { normalize: "duration" })).toBe(false);
  });

  it("compares access levels as numbers, whether written by name or number", () => {
    expect(sameValue("developer", 30, { normalize: "access-level" })).toBe(true);
    expect(sameValue(30, 30, { normalize: "access-level" })).toBe(true);
    expect(sameValue("no_access", 0, { normalize: "access-level" })).toBe(true);
    expect(sameValue(new Secret("maintainer", "env:L"), 40, { normalize: "access-level" })).toBe(true);
    expect(sameValue("developer", 40, { normalize: "access-level" })).toBe(false);
    expect(sameValue(40, 30, { normalize: "access-level" })).toBe(false);
    // Only access levels cross from text to numbers.
    expect(sameValue("developer", 30)).toBe(false);
    expect(sentValue("access-level", "maintainer")).toBe(40);
  });

  it("compares a duration in seconds with the number the platform keeps, whichever side is text", () => {
    const options = { normalize: "duration-seconds" as const };
    expect(sameValue("1h", 3600, options)).toBe(true);
    expect(sameValue("90 minutes", 5400, options)).toBe(true);
    expect(sameValue("1h 30m", 5400, options)).toBe(true);
    expect(sameValue(5400, 5400, options)).toBe(true);
    expect(sameValue("5400", 5400, options)).toBe(true);
    expect(sameValue("1h", 3601, options)).toBe(false);
    expect(sameValue(3600, 7200, options)).toBe(false);
    // Text that is no duration is not a number of seconds.
    expect(sameValue("an hour", 3600, options)).toBe(false);
    expect(sameValue(new Secret("2h", "env:T"), 7200, options)).toBe(true);
  });

  it("sends a duration in the seconds the platform takes, and anything else as written", () => {
    expect(sentValue("duration-seconds", "90 minutes")).toBe(5400);
    expect(sentValue("duration-seconds", 600)).toBe(600);
    expect(sentValue("duration-seconds", "soon")).toBe("soon");
    // What is sent for other normalisers is what the manifest says.
    expect(sentValue("duration", "90 days")).toBe("90 days");
    expect(sentValue(undefined, "1h")).toBe("1h");
  });

  it("compares a Date with the same instant written as text", () => {
    expect(sameValue(new Date("2026-12-01T10:00:00Z"), "2026-12-01T12:00:00+02:00")).toBe(true);
    expect(sameValue("2026-12-01T10:00:00Z", new Date("2026-12-01T10:00:00Z"))).toBe(true);
    expect(sameValue(new Date("2026-12-01T10:00:00Z"), "2026-12-01T10:00:01Z")).toBe(false);
    // An invalid Date is no instant: equal to nothing, not even to text that is none either.
    expect(sameValue(new Date("not a date"), "soon")).toBe(false);
    expect(sameValue("soon", new Date("not a date"))).toBe(false);
  });

  it("compares every entry of an ordered list, and its length", () => {
    expect(sameValue([1, 2], [1, 3])).toBe(false);
    expect(sameValue([1, 2], [1, 2, 3])).toBe(false);
    expect(sameValue([1], [1, 2], { set: true })).toBe(false);
    // A list is not the text of its only entry.
    expect(sameValue(["a"], "a")).toBe(false);
  });

  it("compares label colours as the colours they are, as the platform stores them", () => {
    // A CSS name is stored as its upper-case hex; hex is kept as written, in either case and length.
    expect(sameValue("red", "#FF0000", { normalize: "color" })).toBe(true);
    expect(sameValue("Red", "#ff0000", { normalize: "color" })).toBe(true);
    expect(sameValue("#fff", "#FFFFFF", { normalize: "color" })).toBe(true);
    expect(sameValue("white", "#fff", { normalize: "color" })).toBe(true);
    expect(sameValue("maroon", "#FF0000", { normalize: "color" })).toBe(false);
    expect(sameValue("#abc", "#abd", { normalize: "color" })).toBe(false);
    // CSS 4's rebeccapurple is not a name the platform (13.12) converts: kept as written.
    expect(sameValue("rebeccapurple", "#663399", { normalize: "color" })).toBe(false);
  });

  it("reads a bare date as midnight UTC where the field is an instant (a deploy token's expires_at)", () => {
    expect(sameValue("2027-06-30", "2027-06-30T00:00:00.000Z", { normalize: "instant" })).toBe(true);
    expect(sameValue("2027-06-30", "2027-06-30T00:00:00+02:00", { normalize: "instant" })).toBe(false);
    expect(sameValue("2027-06-30", "2027-06-29T00:00:00.000Z", { normalize: "instant" })).toBe(false);
  });

  it("applies the field's normaliser to each entry of a list", () => {
    expect(sameValue(["refs/heads/main"], ["main"], { normalize: "ref" })).toBe(true);
    expect(sameValue(["refs/heads/main"], ["dev"], { normalize: "ref" })).toBe(false);
  });

  it("compares set entries in the same terms as single values", () => {
    // A secret entry equals the live text it resolves to.
    expect(sameValue([new Secret("s3cret", "env:X"), "b"], ["b", "s3cret"], { set: true })).toBe(true);
    expect(sameValue([new Secret("s3cret", "env:X")], ["other"], { set: true })).toBe(false);
    // Line endings, the order of an object's keys and its blank keys do not make another entry.
    expect(sameValue(["a\r\nb"], ["a\nb"], { set: true })).toBe(true);
    expect(sameValue([{ b: 2, a: 1, c: null }], [{ a: 1, b: 2 }], { set: true })).toBe(true);
    expect(sameValue([{ a: 1, b: 2 }], [{ a: 1, b: 3 }], { set: true })).toBe(false);
    // Nested lists too.
    expect(sameValue([[{ b: 2, a: 1 }]], [[{ a: 1, b: 2 }]], { set: true })).toBe(true);
    expect(sameValue([["x"]], [["y"]], { set: true })).toBe(false);
    // The entries of a nested list stay apart: [1, 2] is not [12].
    expect(sameValue([[1, 2]], [[12]], { set: true })).toBe(false);
  });

  it("treats blank as blank whatever the field's normaliser", () => {
    expect(sameValue("", null, { normalize: "duration-seconds" })).toBe(true);
    expect(sameValue(null, "", { normalize: "access-level" })).toBe(true);
    expect(sameValue(undefined, null, { normalize: "duration-seconds" })).toBe(true);
    expect(sameValue("", 3600, { normalize: "duration-seconds" })).toBe(false);
  });

  it("compares a list of access levels entry by entry in the normaliser's terms", () => {
    expect(sameValue(["developer", "maintainer"], [30, 40], { normalize: "access-level" })).toBe(true);
    expect(sameValue(["developer", "maintainer"], [30, 30], { normalize: "access-level" })).toBe(false);
  });

  it("never matches an object with a list or a scalar, nor a scalar with an object", () => {
    expect(sameValue({}, "text")).toBe(false);
    expect(sameValue({ 0: "a" }, ["a"])).toBe(false);
    expect(sameValue(1, { a: 1 })).toBe(false);
  });
});
