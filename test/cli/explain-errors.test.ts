/**
 * `forgeform explain` (src/cli/explain.ts), in-process: invalid manifests, a path nothing matches and why, a path
 * both kinds of pattern match (each shown, a blank line between), the working directory by default, references
 * neither resolved nor shown.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { runCli } from "../integration/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "forgeform-explain-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Patterns of groups and of projects under acme, each leaving some paths out. */
const patterns = join(dir, "patterns.yaml");
writeFileSync(
  patterns,
  "version: 1\ngroups:\n  acme/**:\n    except: [acme/legacy/**]\n    description: G\n" +
    "projects:\n  acme/**:\n    except: [acme/legacy/**, acme/old]\n    description: P\n  acme/declared: {}\n",
);

describe("explain", () => {
  it("prints the manifests' errors and exits 1 when they do not load", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "version: 1\ngroups:\n  acme:\n    bogus: 1\n");
    expect(await runCli(["explain", "acme", bad], {})).toEqual({
      code: 1,
      out: "",
      err:
        `${bad}:4:5: groups.acme.bogus: unknown key "bogus": it is none of the 31 keys Group allows (see schemas/); a setting newer than this version of forgeform goes under unchecked: (sent and compared as written)\n` +
        "1 error: nothing was sent to the platform.\n",
    });
  });

  it("says that no entry matches a path outside every pattern", async () => {
    expect(await runCli(["explain", "other/web", patterns], {})).toEqual({
      code: 1,
      out: "",
      err: 'forgeform: no group or project entry of the manifests matches "other/web"\n',
    });
  });

  it("names each except: that leaves the path out", async () => {
    expect(await runCli(["explain", "acme/legacy/x", patterns], {})).toEqual({
      code: 1,
      out: "",
      err: `forgeform: no group or project entry of the manifests matches "acme/legacy/x": groups["acme/**"] leaves it out (except: acme/legacy/** at ${patterns}:4:14); projects["acme/**"] leaves it out (except: acme/legacy/** at ${patterns}:8:14)\n`,
    });
  });

  it("shows a path both kinds of pattern match as either, saying so first", async () => {
    const run = await runCli(["explain", "acme/web", patterns], {});
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
    expect(run.out).toMatch(
      /^"acme\/web" is not declared by full path, and patterns of both groups: and projects: match it: shown as either\n\ngroup "acme\/web"\n[\s\S]*\n\nproject "acme\/web"\n/,
    );
  });

  it("takes a group or project as a plan names it, and shows it as that kind alone", async () => {
    for (const kind of ["group", "project"]) {
      const run = await runCli(["explain", `${kind}["acme/web"]`, patterns], {});
      expect(run.code, run.err).toBe(0);
      expect(run.out.split("\n")[0]).toBe(`${kind} "acme/web"`);
      expect(run.out).not.toContain("shown as either");
    }
    // An address inside one is no path: nothing matches it.
    const inside = await runCli(["explain", 'project["acme/web"].badge["x"]', patterns], {});
    expect(inside.code).toBe(1);
  });

  it("shows a path that only one kind matches, or that is declared, as that kind alone", async () => {
    for (const [path, kind] of [
      ["acme/old", "group"],
      ["acme/declared", "project"],
    ]) {
      const run = await runCli(["explain", path!, patterns], {});
      expect(run.code).toBe(0);
      expect(run.out.split("\n")[0]).toBe(`${kind} "${path}"`);
      expect(run.out).not.toContain("shown as either");
    }
  });

  it("reads the manifests in the working directory when given none", async () => {
    const here = join(dir, "here");
    mkdirSync(here);
    writeFileSync(join(here, "forgeform.yaml"), readFileSync(patterns));
    const cwd = vi.spyOn(process, "cwd").mockReturnValue(here);
    try {
      const run = await runCli(["explain", "acme/declared"], {});
      expect(run.code).toBe(0);
      expect(run.out.split("\n").slice(0, 2)).toEqual([
        'project "acme/declared"',
        'Entries that apply, from the least to the most specific: projects["acme/**"] (forgeform.yaml:7:3), projects["acme/declared"] (forgeform.yaml:10:3)',
      ]);
    } finally {
      cwd.mockRestore();
    }
  });

  it("neither needs nor shows the values of references", async () => {
    const secret = join(dir, "secret.yaml");
    writeFileSync(
      secret,
      "version: 1\nprojects:\n  acme/web:\n    variables:\n" +
        `      - { key: A, value: "\${env:FORGEFORM_TEST_UNSET}" }\n` +
        `      - { key: B, value: "\${env:FORGEFORM_TEST_SET}" }\n`,
    );
    const run = await runCli(["explain", "acme/web", secret], { FORGEFORM_TEST_SET: "s3cr3t-value" });
    expect(run.code).toBe(0);
    expect(run.err).toBe("");
    expect(run.out.match(/^ {6}value: \(sensitive\) /gm)).toHaveLength(2);
    expect(run.out).not.toContain("s3cr3t-value");
  });
});
