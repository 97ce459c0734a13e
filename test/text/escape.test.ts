import { describe, expect, it } from "vitest";
import { escapeJson, escapeLine, escapeText } from "../../src/text/escape.js";

describe("terminal escaping", () => {
  it("shows C0, DEL and C1 controls and bidirectional characters as visible escapes", () => {
    expect(escapeLine("a\u001b[31mb\u0007c\u007fd\u0085e\u009bf\u202eg\u2066h\u200fi")).toBe(
      "a\\x1b[31mb\\x07c\\x7fd\\x85e\\x9bf\\u202eg\\u2066h\\u200fi",
    );
  });

  it("escapes newlines, tabs and carriage returns in a single line, keeps newlines and tabs in text", () => {
    expect(escapeLine("a\nb\tc\rd")).toBe("a\\x0ab\\x09c\\x0dd");
    expect(escapeText("a\nb\tc\rd")).toBe("a\nb\tc\\x0dd");
  });

  it("leaves ordinary text, accents, emoji and right-to-left scripts alone", () => {
    const text = "Grüße, 東京, 🚀, שלום, مرحبا";
    expect(escapeLine(text)).toBe(text);
  });

  it("escapes JSON text without changing the value it stands for", () => {
    const value = { name: "x\u202ey\u0085z\u2028", plain: "ok" };
    const json = escapeJson(JSON.stringify(value));
    expect(json).toBe('{"name":"x\\u202ey\\u0085z\\u2028","plain":"ok"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
