/**
 * Probes of hostile manifests: a huge map still gets its duplicate keys reported at `file:line:col` (found in linear
 * time), alias bombs are refused by what they expand to, and `${file:}` references cannot leave the manifest root.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../integration/helpers.js";
import { manifest } from "./hostile-server.js";

describe("hostile manifests", () => {
  it("reports a duplicate key at file:line:col in a map of 100,000 keys", async () => {
    // One map of 100,000 group paths (about 2 MB), the last key a repeat of the first. The YAML library's own
    // duplicate check compares every key with every other: over a minute for this file.
    const lines = ["version: 1", "groups:"];
    for (let i = 0; i < 100_000; i++) lines.push(`  g${i}: {}`);
    lines.push("  g0: {}");
    const file = manifest(`${lines.join("\n")}\n`);
    const result = await runCli(["validate", file], {});
    expect(result.code).toBe(1);
    expect(result.out).toBe(
      `${file}:100003:3: duplicate key: a key may appear only once in a map\n1 error: the manifests are invalid\n`,
    );
  });

  it("refuses an alias bomb (billion laughs) without expanding it", async () => {
    const levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 9; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      levels.push(
        `${name}: &${name} [*${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}, *${prev}]`,
      );
    }
    const file = manifest(`version: 1\n${levels.join("\n")}\n`);
    const result = await runCli(["validate", file], {});
    expect(result.code).toBe(1);
    // Counted, never expanded: the error is at the alias that takes the expansions past the bound (g's second *f).
    expect(result.out).toBe(
      `${file}:8:12: *f stands for 365,129 values, and with it aliases add more than 1,000,000 values to this document (keys, scalars, maps and lists, every expansion counted), the most forgeform reads: share what repeats with a template (extends:) or a pattern entry instead\n1 error: the manifests are invalid\n`,
    );
  });

  it("refuses a file reference that climbs out of the manifest root", async () => {
    const file = manifest(
      `version: 1\ninstance:\n  system_hooks:\n    - url: https://hooks.example.com/a\n      token: "\${file:../../../../etc/passwd}"\n`,
    );
    const result = await runCli(["validate", file], {});
    expect(result.code).toBe(1);
    expect(result.out).toContain('"../../../../etc/passwd" is outside the manifest root');
    expect(result.out).not.toContain("root:");
  });

  it("refuses a file reference that leaves the manifest root through a symbolic link", async () => {
    const outside = mkdtempSync(join(tmpdir(), "forgeform-outside-"));
    writeFileSync(join(outside, "secret.txt"), "outside secret\n");
    const file = manifest(
      `version: 1\ninstance:\n  system_hooks:\n    - url: https://hooks.example.com/a\n      token: "\${file:linked/secret.txt}"\n`,
    );
    const dir = join(file, "..");
    symlinkSync(outside, join(dir, "linked"));
    const result = await runCli(["validate", file], {});
    expect(result.code).toBe(1);
    expect(result.out).toContain('"linked/secret.txt" leads outside the manifest root');
    expect(result.out).not.toContain("outside secret");
  });
});
