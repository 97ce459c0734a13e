import { describe, expect, it } from "vitest";
import {
  ACCESS_LEVELS,
  accessLevelName,
  accessLevelNumber,
  accessLevelWords,
  displayValue,
  normalizeValue,
} from "../../src/manifest/normalize.js";

describe("access levels by name", () => {
  it("has the platform's eight levels, by the names the manifests use", () => {
    expect(ACCESS_LEVELS).toEqual({
      no_access: 0,
      minimal_access: 5,
      guest: 10,
      reporter: 20,
      developer: 30,
      maintainer: 40,
      owner: 50,
      admin: 60,
    });
  });

  it("reads a level written by name or number, and nothing else", () => {
    expect(accessLevelNumber("developer")).toBe(30);
    expect(accessLevelNumber(" maintainer ")).toBe(40);
    expect(accessLevelNumber(0)).toBe(0);
    expect(accessLevelNumber(35)).toBe(35);
    expect(accessLevelNumber("Developer")).toBeUndefined();
    expect(accessLevelNumber("30")).toBeUndefined();
    expect(accessLevelNumber(30.5)).toBeUndefined();
    expect(accessLevelNumber(null)).toBeUndefined();
  });

  it("shows a level by name, a number without a name as it is", () => {
    expect(accessLevelName(50)).toBe("owner");
    expect(accessLevelName("guest")).toBe("guest");
    expect(accessLevelName(35)).toBe(35);
    expect(accessLevelName(null)).toBeNull();
    expect(accessLevelWords(60)).toBe("admin (60)");
    expect(accessLevelWords("x")).toBe('"x"');
  });

  it("normalises for comparing, and displays by name, only where the field says so", () => {
    expect(normalizeValue("access-level", "reporter")).toBe(20);
    expect(normalizeValue("access-level", 20)).toBe(20);
    expect(displayValue("access-level", 20)).toBe("reporter");
    expect(displayValue(undefined, 20)).toBe(20);
    expect(displayValue("lowercase", 20)).toBe(20);
  });
});
