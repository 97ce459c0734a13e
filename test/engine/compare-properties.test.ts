/**
 * `sameValue` as properties: any value equals a copy of itself; a set equals itself in any order and nothing with
 * one entry more, less or changed; an ordered list cares about order; an object is compared on the keys the manifest
 * sets; line endings and blank values are the same. A comparison that says "same" too easily hides a change from
 * the plan; one that says "different" too easily plans a change on every run.
 */
import { describe, expect, it } from "vitest";
import { sameValue } from "../../src/engine/compare.js";
import { fc } from "../property.js";

/** Text that never reads as a datetime, so that two different texts are two different values. */
const text = fc.string({ maxLength: 8 }).map((s) => `t:${s}`);
const scalar = fc.oneof(text, fc.integer(), fc.boolean());
const json = fc.jsonValue({ maxDepth: 3 });

describe("sameValue", () => {
  it("a value equals a copy of itself, as a plain value and as a set", () => {
    fc.assert(
      fc.property(json, (v) => {
        expect(sameValue(v, structuredClone(v))).toBe(true);
        if (Array.isArray(v)) expect(sameValue(v, structuredClone(v), { set: true })).toBe(true);
      }),
    );
  });

  it("a set equals any order of itself, and not a list with an entry more, less or changed", () => {
    fc.assert(
      fc.property(fc.array(scalar, { minLength: 1, maxLength: 8 }), fc.nat(), text, (list, seed, extra) => {
        const shuffled = [...list].sort((a, b) => (String(a) + seed < String(b) + seed ? -1 : 1));
        expect(sameValue(list, shuffled, { set: true })).toBe(true);
        expect(sameValue(list, [...shuffled, extra], { set: true })).toBe(false);
        expect(sameValue(list, shuffled.slice(1), { set: true })).toBe(false);
        const changed = [...shuffled];
        changed[seed % changed.length] = `${extra}!`;
        expect(sameValue(list, changed, { set: true })).toBe(false);
      }),
    );
  });

  it("an ordered list equals another only entry by entry", () => {
    fc.assert(
      fc.property(fc.array(scalar, { maxLength: 6 }), fc.array(scalar, { maxLength: 6 }), (a, b) => {
        const same = a.length === b.length && a.every((x, i) => x === b[i]);
        expect(sameValue(a, b)).toBe(same || (a.length === 0 && b.length === 0));
        expect(sameValue(a, [...a].reverse())).toBe(a.every((x, i) => x === a[a.length - 1 - i]));
      }),
    );
  });

  it("an object compares on the keys the manifest sets, each of them", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z]{1,4}$/), scalar, { minKeys: 1, maxKeys: 5 }),
        fc.dictionary(fc.stringMatching(/^[A-Z]{1,4}$/), scalar, { maxKeys: 3 }),
        fc.nat(),
        (desired, more, pick) => {
          // The platform answers with more keys than the manifest sets: they do not count.
          const live = { ...more, ...desired };
          expect(sameValue(desired, live)).toBe(true);
          const keys = Object.keys(desired);
          const key = keys[pick % keys.length]!;
          expect(sameValue(desired, { ...live, [key]: `t:${String(desired[key])}!` })).toBe(false);
          const { [key]: _, ...without } = live;
          expect(sameValue(desired, without)).toBe(false);
        },
      ),
    );
  });

  it("CRLF and LF are the same line ending, on either side; other text is not the same", () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 4 }), text, (lines, other) => {
        const lf = lines.join("\n");
        expect(sameValue(lf, lines.join("\r\n"))).toBe(true);
        expect(sameValue(lines.join("\r\n"), lf)).toBe(true);
        if (other !== lf) expect(sameValue(lf, other)).toBe(false);
      }),
    );
  });

  it("blank values are one value, and an empty list is an unset one; nothing else is blank", () => {
    const blank = fc.constantFrom(null, undefined, "");
    fc.assert(
      fc.property(blank, blank, scalar, (a, b, v) => {
        expect(sameValue(a, b)).toBe(true);
        expect(sameValue(a, [])).toBe(true);
        expect(sameValue([], a)).toBe(true);
        expect(sameValue(a, v)).toBe(false);
        expect(sameValue(v, a)).toBe(false);
      }),
    );
  });
});
