/** `forgeform validate`: the summary line in each case, --root and --format json (src/cli/validate.ts), run in-process. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../integration/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "forgeform-validate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A manifest file in the test's directory, by name. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const unknownKey = (path: string, line: number, key: string) =>
  `${path}:${line}:5: groups.acme.${key}: unknown key "${key}": it is none of the 31 keys Group allows (see schemas/); a setting newer than this version of forgeform goes under unchecked: (sent and compared as written)`;
const unusedTemplate = (path: string, line: number, name: string) =>
  `${path}:${line}:3: templates.${name}: warning: template "${name}" is not used by any extends`;

const ok = file("ok.yaml", "version: 1\ngroups:\n  acme: {}\n");
const oneWarning = file("one-warning.yaml", "version: 1\ntemplates:\n  t1: {}\ngroups:\n  acme: {}\n");
const twoWarnings = file(
  "two-warnings.yaml",
  "version: 1\ntemplates:\n  t1: {}\n  t2: {}\ngroups:\n  beta: {}\n",
);
const oneError = file("one-error.yaml", "version: 1\ngroups:\n  acme:\n    bogus: 1\n");
const twoErrors = file("two-errors.yaml", "version: 1\ngroups:\n  acme:\n    bogus: 1\n    other: 2\n");
const errorAndWarning = file(
  "error-and-warning.yaml",
  "version: 1\ntemplates:\n  t1: {}\ngroups:\n  acme:\n    bogus: 1\n",
);

describe("validate", () => {
  it.each([
    { name: "valid", paths: [ok], code: 0, lines: ["1 file valid"] },
    {
      name: "two valid files",
      paths: [ok, twoWarnings],
      code: 0,
      lines: [
        unusedTemplate(twoWarnings, 3, "t1"),
        unusedTemplate(twoWarnings, 4, "t2"),
        "2 files valid with 2 warnings",
      ],
    },
    {
      name: "1 warning",
      paths: [oneWarning],
      code: 0,
      lines: [unusedTemplate(oneWarning, 3, "t1"), "1 file valid with 1 warning"],
    },
    {
      name: "1 error",
      paths: [oneError],
      code: 1,
      lines: [unknownKey(oneError, 4, "bogus"), "1 error: the manifests are invalid"],
    },
    {
      name: "2 errors",
      paths: [twoErrors],
      code: 1,
      lines: [
        unknownKey(twoErrors, 4, "bogus"),
        unknownKey(twoErrors, 5, "other"),
        "2 errors: the manifests are invalid",
      ],
    },
    {
      name: "1 error and 1 warning",
      paths: [errorAndWarning],
      code: 1,
      lines: [
        unusedTemplate(errorAndWarning, 3, "t1"),
        unknownKey(errorAndWarning, 6, "bogus"),
        "1 error, 1 warning: the manifests are invalid",
      ],
    },
  ])("$name: each finding, then the summary; exit $code", async ({ paths, code, lines }) => {
    const run = await runCli(["validate", ...paths], {});
    expect(run).toEqual({ code, out: `${lines.join("\n")}\n`, err: "" });
  });

  it("says when secret references were left unresolved (--no-secrets)", async () => {
    const run = await runCli(["validate", "--no-secrets", oneWarning], {});
    expect(run).toEqual({
      code: 0,
      out: `${unusedTemplate(oneWarning, 3, "t1")}\n1 file valid with 1 warning (secret references not resolved: --no-secrets)\n`,
      err: "",
    });
  });

  it("lets file references reach up to --root, and no further without it", async () => {
    mkdirSync(join(dir, "root", "manifests"), { recursive: true });
    writeFileSync(join(dir, "root", "token.txt"), "s3cret-value-1234\n");
    const manifest = file(
      "root/manifests/vars.yaml",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest's reference syntax
      "version: 1\ngroups:\n  acme:\n    variables:\n      - key: TOKEN\n        value: ${file:../token.txt}\n",
    );
    const withRoot = await runCli(["validate", "--root", join(dir, "root"), manifest], {});
    expect(withRoot).toEqual({ code: 0, out: "1 file valid\n", err: "" });
    const without = await runCli(["validate", manifest], {});
    expect(without).toEqual({
      code: 1,
      out: `${manifest}:6:16: groups.acme.variables[0].value: \${file:../token.txt}: "../token.txt" is outside the manifest root ${join(dir, "root", "manifests")}; keep referenced files inside it, or give --root a folder that holds both\n1 error: the manifests are invalid\n`,
      err: "",
    });
    expect(without.out).not.toContain("s3cret");
  });

  it("--format json: one document with the findings, and the same exit code", async () => {
    const invalid = await runCli(["validate", "--format", "json", errorAndWarning], {});
    expect(invalid.code).toBe(1);
    expect(invalid.err).toBe("");
    expect(JSON.parse(invalid.out)).toEqual({
      format_version: 1,
      kind: "validation",
      valid: false,
      files: [errorAndWarning],
      errors: 1,
      warnings: 1,
      secretsResolved: true,
      diagnostics: [
        expect.objectContaining({
          severity: "warning",
          file: errorAndWarning,
          line: 3,
          path: "templates.t1",
        }),
        expect.objectContaining({
          severity: "error",
          file: errorAndWarning,
          line: 6,
          path: "groups.acme.bogus",
        }),
      ],
    });
    const valid = await runCli(["validate", "--format", "json", "--no-secrets", ok], {});
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.out)).toMatchObject({
      valid: true,
      files: [ok],
      errors: 0,
      secretsResolved: false,
    });
  });
});
