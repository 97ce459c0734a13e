import { describe, expect, it } from "vitest";
import {
  exceptProblem,
  excepts,
  hashedCron,
  hashedCronProblem,
  isPattern,
  matchesKey,
  specificity,
} from "../../src/manifest/selectors.js";

describe("patterns", () => {
  it("tell patterns from full paths, and what each matches", () => {
    expect(["acme/*", "acme/**", "*", "**"].every(isPattern)).toBe(true);
    expect(isPattern("acme/api")).toBe(false);
    expect(matchesKey("acme/*", "acme/api")).toBe(true);
    expect(matchesKey("acme/*", "acme/platform/api")).toBe(false);
    expect(matchesKey("acme/**", "acme/platform/api")).toBe(true);
    expect(matchesKey("acme/**", "acme")).toBe(false);
    expect(matchesKey("acme/**", "acmeco/api")).toBe(false);
    expect(matchesKey("ACME/**", "acme/Api")).toBe(true);
    expect(matchesKey("*", "acme")).toBe(true);
    expect(matchesKey("*", "acme/platform")).toBe(false);
  });

  it("leave out with except: a pattern what it matches, a full path everything at or below it", () => {
    expect(excepts("acme/legacy", "acme/legacy/monolith")).toBe(true);
    expect(excepts("acme/legacy", "acme/legacy")).toBe(true);
    expect(excepts("acme/legacy", "acme/legacyx/a")).toBe(false);
    expect(excepts("acme/legacy/*", "acme/legacy/a/b")).toBe(false);
    expect(exceptProblem("acme/**", "acme/legacy/**")).toBeUndefined();
    expect(exceptProblem("acme/**", "acme/*")).toBeUndefined();
    expect(exceptProblem("**", "legacy/**")).toBeUndefined();
    expect(exceptProblem("acme/**", "legacy/**")).toMatch(/not under acme.*did you mean acme\/legacy\/\*\*/);
    // A path that only begins with the root's characters is not under it.
    expect(exceptProblem("acme/**", "acme-legacy/**")).toMatch(/not under acme/);
    expect(exceptProblem("acme/**", "acmex")).toMatch(/not under acme/);
    expect(exceptProblem("acme/**", "acme")).toMatch(/leave out everything/);
  });

  it("rank a longer literal prefix above a shorter one, and a full path above all", () => {
    expect(specificity("**")).toBeLessThan(specificity("acme/**"));
    expect(specificity("acme/**")).toBe(specificity("acme/*"));
    expect(specificity("acme/**")).toBeLessThan(specificity("acme/platform/*"));
    expect(specificity("acme/platform/*")).toBeLessThan(specificity("acme/platform/api"));
  });
});

describe("H in crons", () => {
  it("is stable for a seed, differs across seeds, and stays within each field's range", () => {
    expect(hashedCron("H 2 * * *", "acme/a#nightly")).toBe(hashedCron("H 2 * * *", "acme/a#nightly"));
    const minutes = new Set(
      Array.from({ length: 200 }, (_, i) => hashedCron("H 2 * * *", `p${i}#nightly`).split(" ")[0]),
    );
    expect(minutes.size).toBeGreaterThan(30);
    for (let i = 0; i < 200; i++) {
      const [m, h, dom, mon, dow] = hashedCron("H H H H H", `p${i}`).split(" ").map(Number);
      expect(m).toBeGreaterThanOrEqual(0);
      expect(m).toBeLessThanOrEqual(59);
      expect(h).toBeLessThanOrEqual(23);
      expect(dom).toBeGreaterThanOrEqual(1);
      expect(dom).toBeLessThanOrEqual(28);
      expect(mon).toBeGreaterThanOrEqual(1);
      expect(mon).toBeLessThanOrEqual(12);
      expect(dow).toBeLessThanOrEqual(6);
      const ranged = Number(hashedCron("H(10-19) * * * *", `p${i}`).split(" ")[0]);
      expect(ranged).toBeGreaterThanOrEqual(10);
      expect(ranged).toBeLessThanOrEqual(19);
      expect(hashedCron("H/15 * * * *", `p${i}`)).toMatch(/^([0-9]|1[0-4])-59\/15 \* \* \* \*$/);
    }
    expect(hashedCron("0 2 * * *", "x")).toBe("0 2 * * *");
  });

  it("accepts every H form within its field's values, and nothing else", () => {
    for (const ok of ["H H H H H", "H(0-59)/60 H(0-23) H(1-31) H(1-12) H(0-7)", "H(5-5) * * * *"]) {
      expect(hashedCronProblem(ok), ok).toBeUndefined();
    }
    expect(hashedCronProblem("0 0 H(0-31) * *")).toMatch(/day of month range must be within 1-31/);
    expect(hashedCronProblem("0 0 * H(1-13) *")).toMatch(/month range must be within 1-12/);
    expect(hashedCronProblem("H(9-1) * * * *")).toMatch(/range 9-1 is empty/);
    expect(hashedCronProblem("H/61 * * * *")).toMatch(/step must be between 1 and 60/);
    expect(hashedCronProblem("H,5 * * * *")).toMatch(/not an H form/);
  });
});
