/** The run's secret values, masked wherever they appear as text; and Secret itself, which never prints its value. */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../src/manifest/index.js";
import {
  containsSecret,
  deriveSecret,
  maskSecrets,
  revealSecrets,
  Secret,
  SecretValues,
  secretPairs,
  secretPairsOf,
  secretsOfState,
  shownText,
  textOf,
} from "../../src/manifest/secret.js";

// Built inside each test, not when the file is collected: mutation testing credits a test only with what runs in it.
const fields = () => ({
  title: new Secret("two words", "env:A", "(sensitive)"),
  nested: [{ key: new Secret("token-1234", "file:t", "t-(sensitive)") }],
  literal: new Secret("literal-value", "literal"),
  short: new Secret("abc", "env:B"),
  unresolved: new Secret("", "env:C", "(sensitive)", true),
});

describe("SecretValues", () => {
  const values = () => SecretValues.of(fields());

  it("collects resolved references, not literals, unresolved or very short values", () => {
    expect(values().list().sort()).toEqual(["token-1234", "two words"]);
  });

  it("collects each reference's value alone, not the text around it, derived forms too", () => {
    // `see ${env:S}`: the value of S may turn up anywhere (a live object named after it), not only after "see ".
    const sentence = new Secret(
      "see Zq7sekrit9 and T0ken-x",
      "env:S,env:T",
      "see (sensitive) and (sensitive)",
      false,
      ["Zq7sekrit9", "T0ken-x"],
    );
    const v = SecretValues.of({ content: sentence });
    expect(v.list().sort()).toEqual(["T0ken-x", "Zq7sekrit9"]);
    expect(v.text("ops-Zq7sekrit9")).toBe("ops-(sensitive)");
    // A slug made from a title with a secret in it: the secret's derived spelling is masked as well.
    const title = new Secret("ops two words", "env:W", "ops (sensitive)", false, ["two words"]);
    const slug = deriveSecret(title, (t) => t.replace(/ /g, "-")) as Secret;
    expect(slug.reveal()).toBe("ops-two-words");
    expect(SecretValues.of({ slug }).list().sort()).toEqual(["two words", "two-words"]);
  });

  it("masks a value as is, URL-encoded and form-encoded, in strings and keys", () => {
    const v = values();
    expect(v.text("GET /x/two%20words?q=two+words&r=two words")).toBe(
      "GET /x/(sensitive)?q=(sensitive)&r=(sensitive)",
    );
    expect(v.contains("a token-1234 b")).toBe(true);
    expect(v.contains("nothing here")).toBe(false);
    expect(v.value({ "token-1234": ["x two words y", 3] })).toEqual({
      "(sensitive)": ["x (sensitive) y", 3],
    });
  });

  it("masks values of four characters or more, each once however often it is referenced", () => {
    const v = new SecretValues(["abcd", "abc", "abcd"]);
    expect(v.list()).toEqual(["abcd"]);
    expect(v.text("abc abcd")).toBe("abc (sensitive)");
  });

  it("masks a value that holds another whole, leaving no part of it", () => {
    for (const order of [
      ["abcd", "abcdef"],
      ["abcdef", "abcd"],
    ]) {
      expect(new SecretValues(order).text("x abcdef y abcd")).toBe("x (sensitive) y (sensitive)");
    }
  });

  it("finds every value, however deep and however often an object is reached", () => {
    const shared = { token: new Secret("shared-token", "env:S") };
    const found = SecretValues.of({
      a: shared,
      b: [shared, null, 3, [{ c: new Secret("deep-value", "env:D") }]],
    });
    expect(found.list().sort()).toEqual(["deep-value", "shared-token"]);
  });

  it("leaves values alone when there is nothing to mask", () => {
    const value = { a: ["x"] };
    expect(new SecretValues([]).value(value)).toBe(value);
  });

  it("derives a secret from a secret, keeping it one", () => {
    const slug = deriveSecret(fields().title, (t) => t.replace(/ /g, "-"));
    expect(slug).toBeInstanceOf(Secret);
    expect((slug as Secret).reveal()).toBe("two-words");
    expect(String(slug)).toBe("(sensitive)");
    expect(deriveSecret("plain text", (t) => t.replace(/ /g, "-"))).toBe("plain-text");
    // Anything else is left as it is.
    expect(deriveSecret(42, (t) => t.toUpperCase())).toBe(42);
  });
});

describe("Secret", () => {
  const secret = () => new Secret("hunter22", "env:PASSWORD");

  it("prints as the mask in every textual form", () => {
    const s = secret();
    expect(String(s)).toBe("(sensitive)");
    expect(`${s}`).toBe("(sensitive)");
    expect(JSON.stringify({ s })).toBe('{"s":"(sensitive)"}');
    expect(inspect(s)).toBe("(sensitive)");
    expect(inspect({ nested: [s] })).not.toContain("hunter22");
  });

  it("compares with another secret or a string by value, without revealing it", () => {
    const s = secret();
    expect(s.equals(new Secret("hunter22", "file:p"))).toBe(true);
    expect(s.equals(new Secret("other-value", "env:PASSWORD"))).toBe(false);
    expect(s.equals("hunter22")).toBe(true);
    expect(s.equals("hunter2")).toBe(false);
  });

  it("is found, masked and revealed anywhere inside a value", () => {
    const s = secret();
    expect(containsSecret(s)).toBe(true);
    expect(containsSecret([1, [s]])).toBe(true);
    expect(containsSecret({ a: 1, b: { c: s } })).toBe(true);
    expect(containsSecret({ a: 1, b: ["x"] })).toBe(false);
    expect(containsSecret("hunter22")).toBe(false);

    const value = { url: "https://h", list: [s, 2], deep: { token: s } };
    expect(maskSecrets(s)).toBe("(sensitive)");
    expect(maskSecrets(value)).toEqual({
      url: "https://h",
      list: ["(sensitive)", 2],
      deep: { token: "(sensitive)" },
    });
    expect(revealSecrets(value)).toEqual({
      url: "https://h",
      list: ["hunter22", 2],
      deep: { token: "hunter22" },
    });
    expect(revealSecrets(null)).toBe(null);
  });

  it("gives its text for lookups and its masked form for output", () => {
    const s = new Secret("hunter22", "env:P", "https://h/?key=(sensitive)");
    expect(textOf(s)).toBe("hunter22");
    expect(textOf("plain")).toBe("plain");
    expect(textOf(3)).toBeUndefined();
    expect(shownText(s)).toBe("https://h/?key=(sensitive)");
    expect(shownText(3)).toBe("3");
  });
});

describe("the secrets of a desired state", () => {
  const manifest = `version: 1
instance:
  system_hooks:
    - url: https://hooks.example/\${env:HOOK_PATH}
      token: \${env:HOOK_TOKEN}
groups:
  acme:
    description: see \${env:GROUP_WORD}
    variables:
      - key: GROUP_VAR
        value: \${env:GROUP_VALUE}
projects:
  acme/api:
    pipeline_schedules:
      - description: Nightly \${env:SCHEDULE_WORD}
        ref: main
        cron: "0 2 * * *"
        variables:
          - key: TOKEN
            value: \${env:SCHEDULE_VALUE}
    variables:
      - key: SAME
        value: \${env:GROUP_VALUE}
      - key: WRITTEN
        value: written-in-clear
  "acme/**":
    variables:
      - key: FROM_PATTERN
        value: \${env:PATTERN_VALUE}
`;
  const env = {
    HOOK_PATH: "hook-path-1",
    HOOK_TOKEN: "hook-token-22",
    GROUP_WORD: "group-word-333",
    GROUP_VALUE: "group-value-4444",
    SCHEDULE_WORD: "schedule-word-55555",
    SCHEDULE_VALUE: "schedule-value-666666",
    PATTERN_VALUE: "pattern-value-7777777",
  };

  it("are found without walking positions, in the order and number a walk of everything finds them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ff-secrets-"));
    try {
      writeFileSync(join(dir, "m.yaml"), manifest);
      const { state, diagnostics } = await loadManifests([dir], { secrets: true, env, root: dir });
      expect(diagnostics).toEqual([]);
      const all = SecretValues.of(state).list();
      expect(SecretValues.ofState(state!).list()).toEqual(all);
      expect(all).toEqual(expect.arrayContaining(Object.values(env)));
      expect([...secretPairsOf(state!.root)]).toEqual([...secretPairs(state!.root)]);
      expect(secretPairsOf(state!.root).size).toBe(6);
      // A node whose children come before its fields (nodes are rebuilt by spreading): still the same order.
      const group = state!.root.children["groups"]!.items[0]!;
      const { fields, ...rest } = group;
      state!.root.children["groups"]!.items[0] = { ...rest, fields };
      expect(SecretValues.ofState(state!).list()).toEqual(SecretValues.of(state).list());
      expect(SecretValues.ofState(state!).list()).not.toEqual(all);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("are found in one walk for a plan: every value to mask, and the pairs of the root only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ff-secrets-"));
    try {
      writeFileSync(join(dir, "m.yaml"), manifest);
      const { state } = await loadManifests([dir], { secrets: true, env, root: dir });
      const found = secretsOfState(state!);
      expect(found.values.list()).toEqual(SecretValues.ofState(state!).list());
      expect([...found.pairs]).toEqual([...secretPairsOf(state!.root)]);
      // The pattern's value is masked, and is not in the pairs of the root (where the pattern's body is not).
      expect(found.values.list()).toContain(env.PATTERN_VALUE);
      expect([...found.pairs].some((p) => p.includes(env.PATTERN_VALUE))).toBe(false);
      // A secret the root shares with a pattern is one of the root's pairs, whichever is met first.
      const shared = state!.root.children["projects"]!.items[0]!;
      state!.selectors[0]!.node = shared;
      expect([...secretsOfState(state!).pairs]).toEqual([...secretPairsOf(state!.root)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
