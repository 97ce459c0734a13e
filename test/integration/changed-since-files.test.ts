/**
 * A pull request's plan (`--changed-since`) and the files manifests name: a wiki page's `content_file` and
 * `attachments`, a deploy token's `token_file`. The manifests at REF are read from a folder of their own, so:
 * - the files they name must be there as they were at REF, or the version at REF does not load (the plan fell back
 *   to a full one, saying the manifests "had errors then");
 * - a path to such a file compares by its place below the manifests' root, not as an absolute path (a token that is
 *   declared and missing, untouched by the change, was planned as created);
 * - a change to a named file alone (the page's text in wiki/home.md) is a change of the manifests that name it
 *   (it was not planned at all).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const SITE = (description: string, tokens: string) => `version: 1
groups:
  docs:
    deploy_tokens:
      - { name: pull, scopes: [read_registry], token_file: secrets/pull.token }${tokens}
projects:
  docs/site:
    description: ${description}
    wiki_pages:
      - { title: Home, content_file: wiki/home.md }
      - { title: Guide, content: inline, attachments: [wiki/logo.svg] }
`;
/** A second token, declared after the apply: missing on the platform, which a full plan would create. */
const PUSH = "\n      - { name: push, scopes: [read_registry], token_file: secrets/push.token }";

describe("plan --changed-since and the files manifests name", () => {
  let bench: Bench;
  let dir: string;
  const write = (name: string, text: string) => writeFileSync(join(dir, "manifests", name), text);
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
  const planSince = async () => {
    const run = await bench.cli([
      "plan",
      "--format",
      "json",
      "--changed-since",
      "HEAD",
      join(dir, "manifests"),
    ]);
    expect(run.code, run.out + run.err).toBe(0);
    // A plan of what changed, not the full one it falls back to (with a warning) when REF does not load.
    expect(run.err).toBe("");
    return (JSON.parse(run.out) as PlanV1).changes.map((c) => `${c.action} ${c.address}`);
  };

  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "docs" }], projects: [{ path: "docs/site" }] } });
    dir = mkdtempSync(join(tmpdir(), "forgeform-since-files-"));
    mkdirSync(join(dir, "manifests", "wiki"), { recursive: true });
    write("wiki/home.md", "# Home\n");
    write("wiki/logo.svg", "<svg/>\n");
    write("site.yaml", SITE("one", ""));
    write(".gitignore", "secrets/\n");
    const applied = await bench.cli(["apply", "--yes", join(dir, "manifests")]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    write("site.yaml", SITE("one", PUSH));
    write("README.md", "How the docs group is managed.\n");
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    const full = await bench.cli(["plan", "--format", "json", join(dir, "manifests")]);
    expect((JSON.parse(full.out) as PlanV1).changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'create group["docs"].deploy_token["push"]',
    ]);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("a changed entry beside a page's content file and a token file: that change only", async () => {
    write("site.yaml", SITE("two", PUSH));
    try {
      expect(await planSince()).toEqual(['update project["docs/site"]']);
    } finally {
      write("site.yaml", SITE("one", PUSH));
    }
  });

  it("a changed content file: the page that reads it", async () => {
    write("wiki/home.md", "# Home\n\nNew text.\n");
    try {
      expect(await planSince()).toEqual(['update project["docs/site"].wiki_page["Home"]']);
    } finally {
      write("wiki/home.md", "# Home\n");
    }
  });

  it("a changed file no manifest names: nothing", async () => {
    write("README.md", "How the docs group is managed, and by whom.\n");
    try {
      expect(await planSince()).toEqual([]);
    } finally {
      write("README.md", "How the docs group is managed.\n");
    }
  });
});
