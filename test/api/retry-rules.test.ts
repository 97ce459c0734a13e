/**
 * The retry rules as units: which errors are transient and how they are described, and how long the server asks
 * to wait (Retry-After in seconds or as a date, else RateLimit-Reset).
 */
import { describe, expect, it } from "vitest";
import { backoffMs, classifyError, serverDelayMs } from "../../src/api/retry.js";

const coded = (code: unknown, message = "failed") => Object.assign(new Error(message), { code });

describe("classifyError", () => {
  it("finds the code of an error, or of the error it wraps", () => {
    expect(classifyError(coded("ECONNRESET"))).toMatchObject({
      code: "ECONNRESET",
      description: "connection reset by the server (ECONNRESET)",
      transient: true,
      notSent: false,
    });
    // fetch's "fetch failed" wraps the socket error; a code that is not text is no code.
    const wrapped = new Error("fetch failed", { cause: coded(42, "x") });
    (wrapped.cause as { cause?: unknown }).cause = coded("UND_ERR_CONNECT_TIMEOUT");
    expect(classifyError(wrapped)).toMatchObject({
      code: "UND_ERR_CONNECT_TIMEOUT",
      transient: true,
      notSent: true,
    });
  });

  it("ends at an error that is its own cause, and at values that are not errors", () => {
    const loop = new Error("loop");
    (loop as { cause?: unknown }).cause = loop;
    expect(classifyError(loop)).toMatchObject({ code: "UNKNOWN", description: "loop", transient: false });
    expect(classifyError(null)).toMatchObject({ code: "UNKNOWN", description: "null", transient: false });
    expect(classifyError("boom")).toMatchObject({ code: "UNKNOWN", description: "boom" });
    expect(classifyError(undefined)).toMatchObject({ code: "UNKNOWN", description: "undefined" });
  });

  it("treats a connection the server closed as transient, whatever its code", () => {
    expect(classifyError(new Error("socket hang up"))).toEqual({
      code: "UNKNOWN",
      description: "connection closed by the server (UNKNOWN)",
      transient: true,
      notSent: false,
    });
    expect(classifyError(coded("UND_ERR_SOCKET", "other side closed")).description).toBe(
      "connection closed by the server (UND_ERR_SOCKET)",
    );
  });
});

describe("serverDelayMs", () => {
  const now = Date.parse("2026-11-24T08:00:00Z");

  it("reads Retry-After as seconds, fractions included", () => {
    expect(serverDelayMs({ "retry-after": "5" }, now)).toBe(5000);
    expect(serverDelayMs({ "retry-after": " 1.25 " }, now)).toBe(1250);
    expect(serverDelayMs({ "retry-after": "1.5" }, now)).toBe(1500);
  });

  it("reads Retry-After as an HTTP date, never as a wait before now", () => {
    expect(serverDelayMs({ "retry-after": "Tue, 24 Nov 2026 08:00:30 GMT" }, now)).toBe(30_000);
    expect(serverDelayMs({ "retry-after": "Tue, 24 Nov 2026 07:00:00 GMT" }, now)).toBe(0);
  });

  it("falls back to RateLimit-Reset (unix seconds) when Retry-After is missing or unreadable", () => {
    const reset = String(now / 1000 + 40);
    expect(serverDelayMs({ "ratelimit-reset": reset }, now)).toBe(40_000);
    for (const bad of ["soon", "x5", "5x"]) {
      expect(serverDelayMs({ "retry-after": bad, "ratelimit-reset": reset }, now), bad).toBe(40_000);
    }
  });

  it("is unknown when neither header is usable", () => {
    for (const bad of ["", "12abc", "abc12", "-5", "1e3"]) {
      expect(serverDelayMs({ "retry-after": "soon", "ratelimit-reset": bad }, now), bad).toBeUndefined();
    }
    expect(serverDelayMs({}, now)).toBeUndefined();
  });
});

describe("backoffMs", () => {
  it("doubles the ceiling each retry up to the cap, with full jitter below it", () => {
    const opts = { baseMs: 500, capMs: 3000, random: () => 0.999 };
    expect([1, 2, 3, 4, 5].map((r) => backoffMs(r, opts))).toEqual([499, 999, 1998, 2997, 2997]);
    expect(backoffMs(0, opts)).toBe(499);
    expect(backoffMs(3, { ...opts, random: () => 0 })).toBe(0);
  });
});
