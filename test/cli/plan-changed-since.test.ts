/**
 * `plan --changed-since REF` in a git checkout (src/cli/changed-since.ts, workflow.ts), in-process against the
 * sandbox: what is planned when the manifests are new since REF, broken at REF, or changed in a template, a file
 * that became a manifest, or instance settings; without paths, the working directory as when given it.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { Bench } from "../integration/helpers.js";

let bench: Bench;
let repo: string;
let manifests: string;
const LIMITED = "Limited to what the manifests changed since HEAD\n";

function gitIn(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    cwd,
    stdio: "ignore",
  });
}
const git = (...args: string[]) => gitIn(repo, ...args);
function write(name: string, text: string): string {
  const path = join(manifests, name);
  writeFileSync(path, text);
  return path;
}
function commit(message: string): void {
  git("add", "-A");
  git("commit", "-qm", message);
}
const plan = () => bench.cli(["plan", "--changed-since", "HEAD", manifests]);

beforeAll(async () => {
  bench = await Bench.start();
  repo = join(bench.dir, "repo");
  manifests = join(repo, "manifests");
  mkdirSync(manifests, { recursive: true });
  git("init", "-q", "-b", "main");
  writeFileSync(join(repo, "README"), "no manifests yet\n");
  commit("no manifests");
});
afterAll(async () => {
  await bench.stop();
});

describe("plan --changed-since", () => {
  it("plans every manifest when their folder is not in REF", async () => {
    write("a.yaml", "version: 1\ngroups:\n  acme: {}\n");
    const run = await plan();
    expect(run.code, run.err).toBe(0);
    expect(run.err).toBe("");
    expect(run.out.startsWith(LIMITED)).toBe(true);
    expect(run.out).toContain('+ group["acme"] will be created\n');
    commit("acme");
  });

  it("plans everything, with a warning, when the manifests at REF do not load", async () => {
    const file = write("a.yaml", "version: 1\ngroups:\n  acme:\n    bogus: 1\n");
    commit("broken");
    write("a.yaml", "version: 1\ngroups:\n  acme: {}\n");
    const run = await plan();
    expect(run.code).toBe(0);
    // With the first error at REF, named by its place in the checkout.
    const warning = `${file}:1:1: warning: --changed-since HEAD: the manifests at HEAD do not load (they had errors then: manifests/a.yaml:4:5: unknown key "bogus": `;
    expect(run.err.startsWith(warning), run.err).toBe(true);
    expect(run.err.endsWith("), so everything is planned\n1 warning\n"), run.err).toBe(true);
    expect(run.out).not.toContain(LIMITED);
    expect(run.out).toContain('+ group["acme"] will be created\n');
    commit("fixed");
  });

  it("plans what a changed template reaches in another file, and a file that became a manifest, nothing else", async () => {
    write("t.yaml", "version: 1\ntemplates:\n  base:\n    description: one\n");
    write("b.yaml", "version: 1\ngroups:\n  beta:\n    extends: [base]\n");
    write("later.yaml", "groups: {}\n");
    commit("template");
    expect(
      (await bench.cli(["apply", "--yes", join(manifests, "b.yaml"), join(manifests, "t.yaml")])).code,
    ).toBe(0);
    write("t.yaml", "version: 1\ntemplates:\n  base:\n    description: two\n");
    write("later.yaml", "version: 1\ngroups:\n  gamma: {}\n");
    const run = await plan();
    expect(run.code, run.err).toBe(0);
    expect(run.err).toBe("");
    expect(run.out.startsWith(LIMITED)).toBe(true);
    const actions = run.out
      .slice(run.out.indexOf("forgeform will perform these actions:"))
      .split("\n")
      .filter((line) => /^ {4}[-+~] /.test(line));
    expect(actions).toEqual([
      '    ~ group["beta"] will be updated in place',
      '    + group["gamma"] will be created',
    ]);
    expect(run.out).toContain('      ~ description: "one" -> "two"\n');
    // acme (unchanged, and missing on the platform) is left out.
    expect(run.out).not.toContain("acme");
    commit("template changed");
  });

  it("reads the templates of the entries a change selects, not those of the other entries of their file", async () => {
    write("used.yaml", "version: 1\ntemplates:\n  used:\n    description: one\n");
    // No parse can read this file (a string left open): a plan that reads it fails.
    write("unused.yaml", 'version: 1\ntemplates:\n  unused:\n    description: "never closed\n');
    write("users.yaml", "version: 1\ngroups:\n  uno:\n    extends: [used]\n  dos:\n    extends: [unused]\n");
    commit("users");
    try {
      write("used.yaml", "version: 1\ntemplates:\n  used:\n    description: two\n");
      const run = await plan();
      expect(run.code, run.err).toBe(0);
      expect(run.out).toContain('+ group["uno"] will be created\n');
      expect(run.out).not.toContain("dos");
    } finally {
      for (const name of ["used.yaml", "unused.yaml", "users.yaml"]) rmSync(join(manifests, name));
      commit("users gone");
    }
  });

  it("plans instance settings a changed file adds", async () => {
    write(
      "a.yaml",
      "version: 1\ngroups:\n  acme: {}\ninstance:\n  application_settings:\n    signup_enabled: false\n",
    );
    const run = await plan();
    expect(run.code, run.err).toBe(0);
    expect(run.out).toContain(
      "    ~ instance.application_settings will be updated in place\n      ~ signup_enabled: true -> false\n",
    );
    expect(run.out).not.toContain("acme");
  });

  it("reads the group above a group a changed file adds, to check their visibilities together", async () => {
    write("corp.yaml", "version: 1\ngroups:\n  corp:\n    visibility: private\n");
    commit("corp");
    expect((await bench.cli(["apply", "--yes", join(manifests, "corp.yaml")])).code).toBe(0);
    const team = write("team.yaml", "version: 1\ngroups:\n  corp/team:\n    visibility: public\n");
    expect(await plan()).toEqual({
      code: 1,
      out: "",
      err: `${team}:4:17: groups["corp/team"].visibility: public is not allowed since the parent group corp is private; use private or less\n1 error: nothing was sent to the platform.\n`,
    });
  });
});

describe("plan --changed-since without manifest paths", () => {
  it("plans the working directory, as when given it", async () => {
    const here = join(bench.dir, "here");
    mkdirSync(here);
    gitIn(here, "init", "-q", "-b", "main");
    writeFileSync(join(here, "quiet.yaml"), "version: 1\ngroups:\n  quiet: {}\n");
    const loud = "version: 1\ngroups:\n  loud: {}\n";
    writeFileSync(join(here, "loud.yaml"), `${loud}  loud/sub: {}\n`);
    gitIn(here, "add", "-A");
    gitIn(here, "commit", "-qm", "quiet and loud");
    expect((await bench.cli(["apply", "--yes", join(here, "loud.yaml")])).code).toBe(0);
    // Changed since HEAD: loud/sub left the manifests. quiet, unchanged (and missing on the platform), is not planned.
    writeFileSync(join(here, "loud.yaml"), loud);
    const given = await bench.cli(["plan", "--changed-since", "HEAD", here]);
    expect(given.code, given.err).toBe(0);
    expect(given.out.startsWith(LIMITED)).toBe(true);
    expect(given.out).not.toContain("quiet");
    const cwd = vi.spyOn(process, "cwd").mockReturnValue(here);
    try {
      expect(await bench.cli(["plan", "--changed-since", "HEAD"])).toEqual(given);
    } finally {
      cwd.mockRestore();
    }
  });
});
