/**
 * A file the outline scanner gives up on (an anchor, an alias, a flow section: only a parse can tell what it holds)
 * is read whole by a shard or a pull request's plan that needs one of its entries. Its other entries are then read
 * too, and each needs what it would need if it were selected itself: its templates and the patterns over it. Found by
 * planning the examples in 3 shards: the shard that read projects.yaml for one project failed on another project of
 * the same file, which extends a template of templates.yaml ("unknown template"); a pull request's plan failed the
 * same way.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [{ path: "alpha" }, { path: "delta" }],
  projects: [{ path: "alpha/a1" }, { path: "delta/d1" }],
};

const templates = (cron: string) => `version: 1
templates:
  nightly:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "${cron}" }
`;
const FILES: Record<string, string> = {
  "templates.yaml": templates("0 2 * * *"),
  // Over delta/d1 only: a run that plans d1 without it would delete the milestone it adds.
  "pattern.yaml": 'version: 1\nprojects:\n  "delta/*":\n    milestones:\n      - { title: shared }\n',
  // The anchor makes the scanner give up: the file is outlined from a parse and read whole.
  "shared.yaml": `version: 1
projects:
  alpha/a1:
    extends: [nightly]
  delta/d1: &d1
    extends: [weekly]
    unmanaged: { milestones: delete }
    milestones:
      - { title: own }
`,
  "weekly.yaml": "version: 1\ntemplates:\n  weekly:\n    description: from the weekly template\n",
  // Weighs alpha, so that the two top-level groups go to different shards.
  "alpha.yaml": `version: 1\nprojects:\n  alpha/a2:\n    description: "${"a".repeat(400)}"\n`,
};

describe("a file only a parse can outline, read by a shard or a pull request's plan", () => {
  let bench: Bench;
  let dir: string;
  const manifests = () => join(dir, "manifests");
  const write = (name: string, text: string) => writeFileSync(join(manifests(), name), text);
  const addresses = (out: string) =>
    (JSON.parse(out) as PlanV1).changes.map((c) => `${c.action} ${c.address}`).sort();

  beforeAll(async () => {
    bench = await Bench.start({
      fixture: { ...fixture, projects: [...fixture.projects, { path: "alpha/a2" }] },
    });
    dir = mkdtempSync(join(tmpdir(), "forgeform-parsed-"));
    mkdirSync(manifests());
    for (const [name, text] of Object.entries(FILES)) write(name, text);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("each shard plans its own share, and the shards together plan what one run does", async () => {
    const whole = await bench.cli(["plan", "--format", "json", manifests()]);
    expect(whole.code, whole.out + whole.err).toBe(0);
    expect(addresses(whole.out)).toEqual([
      'create project["alpha/a1"].pipeline_schedule["nightly"]',
      'create project["delta/d1"].milestone["own"]',
      'create project["delta/d1"].milestone["shared"]',
      'update project["alpha/a2"]',
      'update project["delta/d1"]',
    ]);
    const shards = await Promise.all(
      [1, 2].map((k) => bench.cli(["plan", "--format", "json", "--shard", `${k}/2`, manifests()])),
    );
    for (const s of shards) expect(s.code, s.out + s.err).toBe(0);
    const [first, second] = shards.map((s) => addresses(s.out));
    // alpha is the heavier: shard 1 owns it, shard 2 delta (whose file holds alpha/a1 and its template's user).
    expect(first).toEqual([
      'create project["alpha/a1"].pipeline_schedule["nightly"]',
      'update project["alpha/a2"]',
    ]);
    expect(second).toEqual([
      'create project["delta/d1"].milestone["own"]',
      'create project["delta/d1"].milestone["shared"]',
      'update project["delta/d1"]',
    ]);
  });

  it("a file no shard owns a part of (no parse reads it, or it holds no entries) is reported by every shard and chunked plan", async () => {
    // Which top-level groups it holds is unknown: a shard that left it out would plan its share as if it were fine,
    // where one run fails on it. Here an unclosed flow list after an anchor, and an alias bomb.
    const other = mkdtempSync(join(tmpdir(), "forgeform-unreadable-"));
    writeFileSync(join(other, "fine.yaml"), "version: 1\ngroups:\n  alpha: {}\n  delta: {}\n");
    writeFileSync(
      join(other, "broken.yaml"),
      "version: 1\ngroups:\n  beta: &x\n    description: [unclosed\n",
    );
    let bomb = "version: 1\ngroups:\n  gamma:\n    topics: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
    for (let i = 1; i <= 7; i++)
      bomb += `    x${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]\n`;
    writeFileSync(join(other, "bomb.yaml"), bomb);
    // No parse problem, but nothing any shard owns either: an invalid template no entry uses, an unknown key.
    writeFileSync(join(other, "unused.yaml"), "version: 1\ntemplates:\n  unused:\n    bogus_key: 1\n");
    writeFileSync(join(other, "nothing.yaml"), "version: 1\nbogus_top: 1\n");
    const whole = await bench.cli(["plan", other]);
    expect(whole.code).toBe(1);
    // A plan made in chunks (as of a large estate): every chunk's load reads it, the first reports it.
    const chunked = await bench.cli(["plan", other], { FORGEFORM_CHUNK_UNITS: "1" });
    expect(chunked.code, chunked.out + chunked.err).toBe(1);
    expect(chunked.err).toContain("broken.yaml:5:1: YAML:");
    expect(chunked.out).toBe("");
    for (const k of [1, 2, 3]) {
      const run = await bench.cli(["plan", "--shard", `${k}/3`, other]);
      expect(run.code, `shard ${k}: ${run.out}${run.err}`).toBe(1);
      expect(run.err).toContain("broken.yaml:5:1: YAML:");
      expect(run.err).toContain("bomb.yaml:");
      expect(run.err).toContain('unused.yaml:4:5: templates.unused.bogus_key: unknown key "bogus_key"');
      expect(run.err).toContain('nothing.yaml:2:1: bogus_top: unknown key "bogus_top"');
      expect(run.out).toBe("");
    }
  });

  it("a changed template plans its users, and reads the other entries of their file with their templates", async () => {
    const applied = await bench.cli(["apply", "--yes", manifests()]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    write("templates.yaml", templates("0 5 * * *"));
    const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", manifests()]);
    expect(run.code, run.out + run.err).toBe(0);
    // Not the full plan it falls back to, with a warning, when the selection does not load.
    expect(run.err).toBe("");
    // delta/d1 is read with alpha/a1's file, and validated: without weekly.yaml, "unknown template". It is not
    // planned (the change does not touch it), so nothing of it is listed, not even as unmanaged.
    expect(addresses(run.out)).toEqual(['update project["alpha/a1"].pipeline_schedule["nightly"]']);
  });
});
