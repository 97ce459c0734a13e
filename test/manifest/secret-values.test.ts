/** The run's secret values, masked wherever they appear as text. */
import { describe, expect, it } from "vitest";
import { deriveSecret, Secret, SecretValues } from "../../src/manifest/secret.js";

describe("SecretValues", () => {
  const fields = {
    title: new Secret("two words", "env:A", "(sensitive)"),
    nested: [{ key: new Secret("token-1234", "file:t", "t-(sensitive)") }],
    literal: new Secret("literal-value", "literal"),
    short: new Secret("abc", "env:B"),
    unresolved: new Secret("", "env:C", "(sensitive)", true),
  };
  const values = SecretValues.of(fields);

  it("collects resolved references, not literals, unresolved or very short values", () => {
    expect(values.list().sort()).toEqual(["token-1234", "two words"]);
  });

  it("masks a value as is, URL-encoded and form-encoded, in strings and keys", () => {
    expect(values.text("GET /x/two%20words?q=two+words&r=two words")).toBe(
      "GET /x/(sensitive)?q=(sensitive)&r=(sensitive)",
    );
    expect(values.contains("a token-1234 b")).toBe(true);
    expect(values.contains("nothing here")).toBe(false);
    expect(values.value({ "token-1234": ["x two words y", 3] })).toEqual({
      "(sensitive)": ["x (sensitive) y", 3],
    });
  });

  it("derives a secret from a secret, keeping it one", () => {
    const slug = deriveSecret(fields.title, (t) => t.replace(/ /g, "-"));
    expect(slug).toBeInstanceOf(Secret);
    expect((slug as Secret).reveal()).toBe("two-words");
    expect(String(slug)).toBe("(sensitive)");
    expect(deriveSecret("plain text", (t) => t.replace(/ /g, "-"))).toBe("plain-text");
  });
});
