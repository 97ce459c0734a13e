/**
 * A pull request's plan reads each manifest it selects at REF once: the look for the files they name (a wiki
 * page's content_file) keeps the texts it read, and the load uses them. Files are counted where every read goes
 * (src/files/read.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const reads = vi.hoisted(() => [] as string[]);
vi.mock("../../src/files/read.js", async (original) => {
  const real = await original<typeof import("../../src/files/read.js")>();
  return {
    ...real,
    readTextFile: (file: string, options: { maxBytes: number }) => {
      reads.push(file);
      return real.readTextFile(file, options);
    },
  };
});

const { selectSince } = await import("../../src/cli/changed-since.js");

describe("a pull request's plan reads the manifests at REF", () => {
  let dir: string;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
  const write = (name: string, text: string) => {
    mkdirSync(join(dir, "manifests", name, ".."), { recursive: true });
    writeFileSync(join(dir, "manifests", name), text);
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "forgeform-reads-"));
    git("init", "-q", "-b", "main");
    write("templates.yaml", "version: 1\ntemplates:\n  t:\n    milestones:\n      - { title: m1 }\n");
    write("a.yaml", "version: 1\nprojects:\n  g/a:\n    extends: [t]\n");
    write("b.yaml", "version: 1\nprojects:\n  g/b:\n    extends: [t]\n");
    write("c.yaml", "version: 1\nprojects:\n  g/c:\n    badges: []\n");
    // Files that are not manifests, below the root: the manifests selected are searched for their names.
    write("README.md", "the platform's manifests\n");
    write("pages/home.md", "# Home\n");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    reads.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("once each, where a changed template selects the files that use it", async () => {
    write("templates.yaml", "version: 1\ntemplates:\n  t:\n    milestones:\n      - { title: m2 }\n");
    const selection = await selectSince("HEAD", [join(dir, "manifests")]);
    expect([...(selection.only ?? [])].map((f) => basename(f)).sort()).toEqual([
      "a.yaml",
      "b.yaml",
      "templates.yaml",
    ]);
    // The manifests at REF, as they were: the template's milestone m1 in both projects.
    const projects = selection.before?.root.children.projects?.items ?? [];
    expect(projects.map((p) => [p.key, p.children.milestones?.items.map((m) => m.fields.title)])).toEqual([
      ["g/a", ["m1"]],
      ["g/b", ["m1"]],
    ]);
    const atRef = reads.filter((f) => f.includes("forgeform-base-"));
    expect(atRef.map((f) => basename(f)).sort()).toEqual(["a.yaml", "b.yaml", "templates.yaml"]);
  });

  it("once each, where a page a manifest names changed (and the page at REF is read)", async () => {
    write(
      "c.yaml",
      "version: 1\nprojects:\n  g/c:\n    wiki_pages:\n      - { title: Home, content_file: pages/home.md }\n",
    );
    git("commit", "-qam", "a page");
    write("pages/home.md", "# Home, again\n");
    reads.length = 0;
    const selection = await selectSince("HEAD", [join(dir, "manifests")]);
    expect([...(selection.only ?? [])].map((f) => basename(f))).toEqual(["c.yaml"]);
    const atRef = reads.filter((f) => f.includes("forgeform-base-"));
    expect(atRef.map((f) => basename(f)).sort()).toEqual(["c.yaml", "home.md"]);
  });
});
