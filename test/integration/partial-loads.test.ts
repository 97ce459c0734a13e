/**
 * A pull request's plan (`--changed-since`) and a shard (`--shard K/N`) read only the files their work can touch:
 * a changed template plans exactly the objects that use it, a changed pattern exactly the objects it matches, and
 * neither a pull request's plan nor a shard parses a file outside its share, nor, of a file it reads, an entry
 * outside it. The proof that a file or an entry is not parsed: it cannot be (a string left open), and the run
 * succeeds.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [{ path: "alpha" }, { path: "beta" }, { path: "gamma" }],
  projects: [
    { path: "alpha/a1" },
    { path: "alpha/a2" },
    { path: "beta/b1" },
    { path: "beta/b2" },
    { path: "beta/b3" },
    { path: "gamma/g1" },
    { path: "gamma/g2" },
  ],
};

const templates = (cron: string) => `version: 1
templates:
  nightly:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "${cron}" }
`;
const pattern = (title: string) => `version: 1
projects:
  "alpha/*":
    milestones:
      - { title: "${title}" }
`;
const FILES: Record<string, string> = {
  "templates.yaml": templates("0 2 * * *"),
  "pattern.yaml": pattern("m1"),
  "alpha.yaml": "version: 1\nprojects:\n  alpha/a1:\n    extends: [nightly]\n  alpha/a2:\n    badges: []\n",
  "beta.yaml": "version: 1\nprojects:\n  beta/b1:\n    extends: [nightly]\n",
  // One file, two top-level groups: beta's entry uses the template, gamma's is made unreadable below.
  "mixed.yaml": "version: 1\nprojects:\n  beta/b2:\n    extends: [nightly]\n  gamma/g2:\n    badges: []\n",
};
/** A string left open weighs the most, so that gamma is a shard of its own. */
const OPEN = `"https://x.example/${"never-closed/".repeat(40)}`;
/** A file no parse can read: a string left open. */
const BROKEN = `version: 1
projects:
  gamma/g1:
    badges:
      - name: broken
        link_url: ${OPEN}
`;
/** mixed.yaml with gamma's entry unreadable, beta's as it was. */
const MIXED_BROKEN = `version: 1
projects:
  beta/b2:
    extends: [nightly]
  gamma/g2:
    badges:
      - name: broken
        link_url: ${OPEN}
`;

type JsonPlan = PlanV1;

describe("reading only what the work can touch", () => {
  let bench: Bench;
  let dir: string;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
  const write = (name: string, text: string) => writeFileSync(join(dir, "manifests", name), text);

  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    dir = mkdtempSync(join(tmpdir(), "forgeform-partial-"));
    mkdirSync(join(dir, "manifests"));
    for (const [name, text] of Object.entries(FILES)) write(name, text);
    const applied = await bench.cli(["apply", "--yes", join(dir, "manifests")]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    write("gamma.yaml", BROKEN);
    write("mixed.yaml", MIXED_BROKEN);
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
  });
  afterAll(async () => {
    await bench.stop();
  });

  const remove = (name: string) => rmSync(join(dir, "manifests", name));
  /** The pull request's plan: its changes, and with `unmanaged` also what it lists as unmanaged. */
  const planSince = async (unmanaged = false) => {
    const run = await bench.cli([
      "plan",
      "--format",
      "json",
      "--changed-since",
      "HEAD",
      join(dir, "manifests"),
    ]);
    expect(run.code, run.out + run.err).toBe(0);
    return (JSON.parse(run.out) as JsonPlan).changes.filter((c) => unmanaged || c.action !== "unmanaged");
  };

  it("a whole load cannot read the broken files (so the runs below do not read them)", async () => {
    const run = await bench.cli(["plan", join(dir, "manifests")]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain("gamma.yaml");
    expect(run.out + run.err).toContain("mixed.yaml");
  });

  it("a changed template plans exactly the objects that use it", async () => {
    write("templates.yaml", templates("0 5 * * *"));
    try {
      const changes = await planSince();
      expect(changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
        'update project["alpha/a1"].pipeline_schedule["nightly"]',
        'update project["beta/b1"].pipeline_schedule["nightly"]',
        // From mixed.yaml, whose other entry (gamma/g2) no parse can read: it was left out.
        'update project["beta/b2"].pipeline_schedule["nightly"]',
      ]);
    } finally {
      write("templates.yaml", FILES["templates.yaml"]!);
    }
  });

  it("a changed pattern plans exactly the objects it matches", async () => {
    write("pattern.yaml", pattern("m2"));
    try {
      const changes = await planSince();
      expect(changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
        'create project["alpha/a1"].milestone["m2"]',
        'create project["alpha/a2"].milestone["m2"]',
      ]);
    } finally {
      write("pattern.yaml", FILES["pattern.yaml"]!);
    }
  });

  it("a file the pull request adds plans its entries; one it removes plans nothing of what it no longer manages", async () => {
    write("added.yaml", "version: 1\nprojects:\n  beta/b3:\n    milestones:\n      - { title: added }\n");
    try {
      expect((await planSince()).map((c) => `${c.action} ${c.address}`)).toEqual([
        'create project["beta/b3"].milestone["added"]',
      ]);
    } finally {
      remove("added.yaml");
    }
    remove("beta.yaml");
    try {
      const changes = await planSince(true);
      // beta/b1's entry is gone: the project is no longer managed, and projects are never listed as unmanaged
      // (docs/manifests.md), so the plan is empty, as a full plan of the same manifests would be.
      expect(changes.filter((c) => c.action !== "unmanaged")).toEqual([]);
      expect(JSON.stringify(changes)).not.toContain("alpha");
    } finally {
      write("beta.yaml", FILES["beta.yaml"]!);
    }
  });

  it("a shard parses only its share: the shard that owns gamma fails on it, the other plans its own, also of a file they share", async () => {
    const runs = await Promise.all(
      [1, 2].map((k) =>
        bench.cli(["drift", "--format", "json", "--shard", `${k}/2`, join(dir, "manifests")]),
      ),
    );
    const failed = runs.filter((r) => r.code === 1);
    const planned = runs.filter((r) => r.code !== 1);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.out + failed[0]!.err).toContain("gamma.yaml");
    expect(planned).toHaveLength(1);
    const report = JSON.parse(planned[0]!.out) as { shard: { units: string[] }; manifests: string[] };
    // It owns beta, so it read beta's entry of mixed.yaml, and not gamma's beside it.
    expect(report.shard.units).toContain("beta");
    // Every file is still named (a saved plan checks them all), but nothing of gamma is planned or reported.
    expect(report.manifests.some((m) => m.endsWith("gamma.yaml"))).toBe(true);
    const { manifests: _named, ...rest } = report;
    expect(JSON.stringify(rest)).not.toContain("gamma");
  });
});
