/**
 * Normalisation round trips as properties: a value written in a manifest compares equal to what the platform
 * reads back for it (the sandbox's own printer and parser stand for the platform's), and values that differ still
 * differ. A normaliser that equated too much would hide a real change; one that equated too little would show a
 * change on every plan.
 */
import { describe, expect, it } from "vitest";
import { sameValue } from "../../src/engine/compare.js";
import { RAILS_TIME_ZONES } from "../../src/manifest/index.js";
import {
  canonicalTimeZone,
  durationSeconds,
  instantOf,
  normalizeValue,
} from "../../src/manifest/normalize.js";
import { formatDuration, parseDuration } from "../../src/sandbox/routes/application-settings.js";
import { ianaTimeZone } from "../../src/sandbox/routes/pipeline-schedules.js";
import { fc } from "../property.js";

const UNITS: [number, string[]][] = [
  [1, ["s", "sec", "secs", "second", "seconds"]],
  [60, ["m", "min", "mins", "minute", "minutes"]],
  [3_600, ["h", "hr", "hrs", "hour", "hours"]],
  [86_400, ["d", "day", "days"]],
  [604_800, ["w", "wk", "wks", "week", "weeks"]],
  [2_592_000, ["mo", "mos", "mon", "month", "months"]],
  [31_557_600, ["y", "yr", "yrs", "year", "years"]],
];

/** A duration as a person writes it: `1 month, 2 weeks and 3d`, with its length in seconds. */
const written = fc
  .array(
    fc.tuple(
      fc.integer({ min: 0, max: 40 }),
      fc.integer({ min: 0, max: UNITS.length - 1 }),
      fc.nat(),
      fc.constantFrom("", " "),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .chain((terms) =>
    fc.constantFrom(" ", ", ", " and ").map((joiner) => ({
      text: terms
        .map(([n, u, spelling, space]) => {
          const [, names] = UNITS[u]!;
          return `${n}${space}${names[spelling % names.length]}`;
        })
        .join(joiner),
      seconds: terms.reduce((sum, [n, u]) => sum + n * UNITS[u]![0], 0),
    })),
  );

const duration = { normalize: "duration" as const };

describe("durations", () => {
  it("reads a written duration as its seconds, in any spelling of the units", () => {
    fc.assert(
      fc.property(written, ({ text, seconds }) => {
        expect(durationSeconds(text)).toBe(seconds);
        expect(durationSeconds(text.toUpperCase())).toBe(seconds);
      }),
    );
  });

  it("equals what the platform prints back for it, and differs from any other length", () => {
    fc.assert(
      fc.property(written, fc.integer({ min: 1, max: 10 * 31_557_600 }), ({ text, seconds }, other) => {
        fc.pre(seconds > 0);
        const printed = formatDuration(parseDuration(text)!);
        expect(sameValue(text, printed, duration)).toBe(true);
        expect(durationSeconds(printed)).toBe(seconds);
        if (other !== seconds) expect(sameValue(text, formatDuration(other), duration)).toBe(false);
      }),
    );
  });

  it("round-trips every whole number of seconds through the platform's printer", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 200 * 31_557_600 }), (seconds) => {
        expect(durationSeconds(formatDuration(seconds))).toBe(seconds);
      }),
    );
  });

  it.each(["", "soon", "3 fortnights", "day", "-1 day"])(
    "reads %j as no duration, compared as written",
    (text) => {
      expect(durationSeconds(text)).toBeUndefined();
      expect(normalizeValue("duration", ` ${text} `)).toBe(text.trim());
    },
  );
});

describe("time zones", () => {
  const friendly = Object.keys(RAILS_TIME_ZONES);

  it("a friendly Rails name equals its IANA name and whatever the platform stores for either", () => {
    fc.assert(
      fc.property(fc.constantFrom(...friendly), (name) => {
        const iana = RAILS_TIME_ZONES[name]!;
        expect(sameValue(name, iana, { normalize: "timezone" })).toBe(true);
        expect(sameValue(name, ianaTimeZone(name)!, { normalize: "timezone" })).toBe(true);
        expect(canonicalTimeZone(canonicalTimeZone(name))).toBe(canonicalTimeZone(name));
      }),
      { numRuns: friendly.length },
    );
  });

  it("two names that compare equal keep the same clock at every instant", () => {
    const zones = [...friendly, ...Intl.supportedValuesOf("timeZone").slice(0, 120), "UTC", "Etc/UTC"];
    const offset = (zone: string, at: number) =>
      new Intl.DateTimeFormat("en-GB", {
        timeZone: RAILS_TIME_ZONES[zone] ?? zone,
        hour: "2-digit",
        minute: "2-digit",
        day: "2-digit",
      }).format(at);
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...zones),
        fc.integer({ min: 0, max: 2_000_000_000 }),
        (a, b, seconds) => {
          if (sameValue(a, b, { normalize: "timezone" })) {
            expect(offset(a, seconds * 1000)).toBe(offset(b, seconds * 1000));
          }
        },
      ),
    );
  });
});

describe("colours", () => {
  const hex = fc.stringMatching(/^#[0-9a-fA-F]{6}$/);

  it("a colour equals itself in any case, and no other colour, even one digit away", () => {
    fc.assert(
      fc.property(hex, fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 15 }), (a, at, by) => {
        const mixed = [...a].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join("");
        expect(sameValue(a, mixed, { normalize: "lowercase" })).toBe(true);
        const digit = (Number.parseInt(a[at]!, 16) + by) % 16;
        const other = a.slice(0, at) + digit.toString(16) + a.slice(at + 1);
        expect(sameValue(a, other, { normalize: "lowercase" })).toBe(false);
      }),
    );
  });
});

describe("instants", () => {
  const instant = fc.integer({ min: 0, max: 4_102_444_800 }).map((s) => s * 1000);
  const offsetMinutes = fc.integer({ min: -12 * 60, max: 14 * 60 }).filter((m) => m % 15 === 0);

  /** The instant written in ISO 8601 at a UTC offset: `2026-11-24T10:00:00+05:30`. */
  function isoAt(ms: number, minutes: number): string {
    const local = new Date(ms + minutes * 60_000).toISOString().slice(0, 19);
    const sign = minutes < 0 ? "-" : "+";
    const abs = Math.abs(minutes);
    const hh = String(Math.floor(abs / 60)).padStart(2, "0");
    const mm = String(abs % 60).padStart(2, "0");
    return `${local}${sign}${hh}:${mm}`;
  }

  it("the same instant at any offset is equal; one second later is not", () => {
    fc.assert(
      fc.property(instant, offsetMinutes, offsetMinutes, (ms, a, b) => {
        expect(instantOf(isoAt(ms, a))).toBe(ms);
        expect(sameValue(isoAt(ms, a), isoAt(ms, b))).toBe(true);
        expect(sameValue(isoAt(ms, a), new Date(ms).toISOString(), { normalize: "instant" })).toBe(true);
        expect(sameValue(new Date(ms), isoAt(ms, b))).toBe(true);
        expect(sameValue(isoAt(ms, a), isoAt(ms + 1000, b))).toBe(false);
      }),
    );
  });
});
