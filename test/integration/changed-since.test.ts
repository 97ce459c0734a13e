/**
 * `--changed-since REF`: a pull request's plan reads and shows only what its change touches.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const PROJECTS = Array.from({ length: 12 }, (_, i) => `fleet/p${i + 1}`);
const fixture = {
  groups: [{ path: "fleet" }, { path: "other" }],
  projects: [...PROJECTS.map((path) => ({ path })), { path: "other/x" }],
};

function manifest(
  options: { cron?: string; templateCron?: string; badgePolicy?: string; extraBadge?: boolean } = {},
) {
  const project = (p: string, i: number) => `  ${p}:
    ${i < 5 ? "extends: [scheduled]" : ""}
${p === "fleet/p7" ? "    description: seventh\n" : ""}    pipeline_schedules:
      - { description: nightly, ref: main, cron: "${p === "fleet/p7" ? (options.cron ?? "0 2 * * *") : "0 2 * * *"}" }
      - { description: weekly, ref: main, cron: "0 6 * * 1" }
    badges:
      - { name: coverage, link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/c.svg" }
${options.extraBadge && p === "fleet/p9" ? '      - { name: extra, link_url: "https://x.example", image_url: "https://x.example/i.svg" }\n' : ""}${options.badgePolicy && p === "fleet/p9" ? `    unmanaged: { badges: ${options.badgePolicy} }\n` : ""}`;
  return `version: 1
templates:
  scheduled:
    milestones:
      - { title: "${options.templateCron ?? "v1"}" }
projects:
${PROJECTS.map(project).join("")}`;
}

type JsonPlan = PlanV1;

/** Runs git in `repo` (committing as a test user). */
const gitIn = (repo: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
    cwd: repo,
    encoding: "utf8",
  });

/** A new git repository whose first commit holds `text` as `name`; returns the file's path. */
function committed(name: string, text: string): string {
  const repo = mkdtempSync(join(tmpdir(), "forgeform-repo-"));
  const file = join(repo, name);
  gitIn(repo, "init", "-q");
  writeFileSync(file, text);
  gitIn(repo, "add", "-A");
  gitIn(repo, "commit", "-q", "-m", "base");
  return file;
}

describe("--changed-since", () => {
  let bench: Bench;
  let file: string;
  const commit = (text: string, message: string) => {
    writeFileSync(file, text);
    gitIn(dirname(file), "add", "-A");
    gitIn(dirname(file), "commit", "-q", "-m", message);
  };
  const plan = async (args: string[] = []) => {
    const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", ...args, file]);
    expect(run.code, run.err).toBe(0);
    return JSON.parse(run.out) as JsonPlan;
  };

  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    file = committed("fleet.yaml", manifest());
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("plans nothing, with almost no request, when nothing changed", async () => {
    const p = await plan();
    expect(p.changes).toEqual([]);
    expect(p.changed_since).toBe("HEAD");
    expect(p.requests.total).toBeLessThanOrEqual(1);
  });

  it("a change to one schedule's cron reads that schedule's project and shows exactly that change", async () => {
    writeFileSync(file, manifest({ cron: "30 4 * * *" }));
    const p = await plan();
    expect(p.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update project["fleet/p7"].pipeline_schedule["nightly"]',
    ]);
    expect(p.requests.total).toBeLessThanOrEqual(4);
    const full = JSON.parse((await bench.cli(["plan", "--format", "json", file])).out) as JsonPlan;
    expect(full.requests.total).toBeGreaterThan(30);
    const text = await bench.cli(["plan", "--changed-since", "HEAD", file]);
    expect(text.out).toContain("Limited to what the manifests changed since HEAD");
  });

  it("compares only what changed: drift on an unchanged object above the change is not planned", async () => {
    await bench.send("PUT", `/projects/${encodeURIComponent("fleet/p7")}`, {
      description: "changed by hand",
    });
    try {
      writeFileSync(file, manifest({ cron: "30 4 * * *" }));
      const p = await plan();
      expect(p.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
        'update project["fleet/p7"].pipeline_schedule["nightly"]',
      ]);
      // A full plan shows that drift.
      const full = JSON.parse((await bench.cli(["plan", "--format", "json", file])).out) as JsonPlan;
      expect(full.changes.map((c) => `${c.action} ${c.address}`)).toContain('update project["fleet/p7"]');
    } finally {
      await bench.send("PUT", `/projects/${encodeURIComponent("fleet/p7")}`, { description: "seventh" });
    }
  });

  it("a template change reads the projects that use it and no others", async () => {
    writeFileSync(file, manifest({ templateCron: "v2" }));
    // The projects are walked through, not compared: drift does not count them in sync.
    const drift = await bench.cli(["drift", "--format", "json", "--changed-since", "HEAD", file]);
    expect(drift.code, drift.err).toBe(2);
    expect((JSON.parse(drift.out) as { in_sync: string[] }).in_sync).toEqual([]);
    const p = await plan();
    const touched = [...new Set(p.changes.map((c) => c.address.split("]")[0]))].sort();
    expect(touched).toEqual(
      PROJECTS.slice(0, 5)
        .map((x) => `project["${x}"`)
        .sort(),
    );
    const milestoneReads = Object.entries(p.requests.by_endpoint)
      .filter(([endpoint]) => endpoint.includes("milestones"))
      .reduce((n, [, c]) => n + c, 0);
    expect(milestoneReads).toBe(5);
    expect(Object.keys(p.requests.by_endpoint).some((e) => e.includes("badges"))).toBe(false);
  });

  it("a removed entry and a changed prune policy read the whole collection", async () => {
    commit(manifest({ extraBadge: true }), "extra badge");
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    writeFileSync(file, manifest());
    const removed = await plan();
    expect(removed.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'unmanaged project["fleet/p9"].badge["extra"]',
    ]);
    writeFileSync(file, manifest({ badgePolicy: "delete" }));
    const pruned = await plan();
    expect(pruned.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'delete project["fleet/p9"].badge["extra"]',
    ]);
  });

  it("plans an entry marked absent when that mark is the change, not when only something listed inside it changes", async () => {
    const entry = (state: string, badge: string) =>
      `version: 1\nprojects:\n  other/x:\n    ${state}badges:\n      - { name: ${badge}, link_url: "https://x.example", image_url: "https://x.example/i.svg" }\n`;
    const other = committed("other.yaml", entry("", "a"));
    const changes = async (text: string) => {
      writeFileSync(other, text);
      const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", other]);
      expect(run.code, run.err).toBe(0);
      return (JSON.parse(run.out) as JsonPlan).changes.map((c) => `${c.action} ${c.address}`);
    };
    expect(await changes(entry("state: absent\n    ", "a"))).toEqual(['delete project["other/x"]']);
    writeFileSync(other, entry("state: absent\n    ", "a"));
    gitIn(dirname(other), "commit", "-q", "-am", "marked absent");
    // Marked absent at the base too: a change inside it is not a change of the mark, and plans nothing.
    expect(await changes(entry("state: absent\n    ", "b"))).toEqual([]);
    expect(await bench.get("/projects/other%2Fx")).toMatchObject({ path_with_namespace: "other/x" });
  });

  it("a saved plan applies after its pull request is merged: it is made again against the commit REF named then", async () => {
    const pr = committed("pr.yaml", manifest());
    const repo = dirname(pr);
    const base = gitIn(repo, "rev-parse", "HEAD").trim();
    writeFileSync(pr, manifest({ cron: "15 3 * * *" }));
    const saved = join(repo, "..", `${repo.split("/").pop()}-plan.json`);
    const plan = await bench.cli(["plan", "--out", saved, "--format", "json", "--changed-since", "HEAD", pr]);
    expect(plan.code, plan.err).toBe(0);
    expect(JSON.parse(plan.out)).toMatchObject({ changed_since: "HEAD", changed_since_commit: base });
    // Merged: HEAD now holds the change. Against HEAD as it is now, nothing would differ.
    gitIn(repo, "commit", "-q", "-am", "the pull request, merged");
    const apply = await bench.cli(["apply", "--yes", "--plan", saved]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain('~ project["fleet/p7"].pipeline_schedule["nightly"]: done');
    // A commit id that is not one is refused when the plan is read, before git is asked anything.
    const forged = join(repo, "..", `${repo.split("/").pop()}-forged.json`);
    const text = readFileSync(saved, "utf8").replace(base, "--output=/tmp/x");
    writeFileSync(forged, text);
    const refused = await bench.cli(["apply", "--yes", "--plan", forged]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("changed_since_commit");
  });

  it("refuses an unknown revision and a folder outside git, clearly", async () => {
    const unknown = await bench.cli(["plan", "--changed-since", "no-such-ref", file]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('unknown git revision "no-such-ref"');
    const outside = bench.manifest(manifest());
    const notGit = await bench.cli(["plan", "--changed-since", "HEAD", outside]);
    expect(notGit.code).toBe(1);
    expect(notGit.err).toContain("--changed-since needs a git checkout");
  });
});

describe("--changed-since with pattern entries", () => {
  let bench: Bench;
  let file: string;
  const policy = (options: { image?: string; except?: string; p3Cron?: string } = {}) => `version: 1
projects:
  "fleet/**":
${options.except ? `    except: ["${options.except}"]\n` : ""}    badges:
      - { name: policy, link_url: "https://ci.example/%{project_path}", image_url: "${options.image ?? "https://ci.example/v1.svg"}" }
  fleet/p3:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "${options.p3Cron ?? "0 2 * * *"}" }
`;
  const plan = async () => {
    const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", file]);
    expect(run.code, run.err).toBe(0);
    const p = JSON.parse(run.out) as JsonPlan;
    return { p, changes: p.changes.map((c) => `${c.action} ${c.address}`).sort() };
  };

  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    file = committed("policy.yaml", policy());
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code, apply.out + apply.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("a change to the pattern's item plans it in every project the pattern matches, and nowhere else", async () => {
    writeFileSync(file, policy({ image: "https://ci.example/v2.svg" }));
    const { p, changes } = await plan();
    expect(changes).toEqual(PROJECTS.map((x) => `update project["${x}"].badge["policy"]`).sort());
    // fleet/p3 merges the pattern with its own entry: its schedules are read with it, nobody else's.
    expect(p.requests.by_endpoint["GET /projects/:id/pipeline_schedules"]).toBe(1);
    expect(p.requests.by_endpoint["GET /projects/:id/badges"]).toBe(PROJECTS.length);
  });

  it("a change beside an unchanged pattern reads neither the pattern's listing nor its projects", async () => {
    writeFileSync(file, policy({ p3Cron: "0 4 * * *" }));
    const { p, changes } = await plan();
    expect(changes).toEqual(['update project["fleet/p3"].pipeline_schedule["nightly"]']);
    expect(Object.keys(p.requests.by_endpoint).some((e) => e.includes("badges"))).toBe(false);
  });

  it("a changed except lists the pattern's projects again, and plans what a full plan plans", async () => {
    writeFileSync(file, policy({ except: "fleet/p12", image: "https://ci.example/v3.svg" }));
    const { p, changes } = await plan();
    // fleet/p12 is no longer declared by any entry: it is left alone, its badges unread.
    expect(changes).toEqual(
      PROJECTS.filter((x) => x !== "fleet/p12")
        .map((x) => `update project["${x}"].badge["policy"]`)
        .sort(),
    );
    expect(p.requests.by_endpoint["GET /groups/:id/projects"]).toBe(1);
    const full = await bench.cli(["plan", "--format", "json", file]);
    expect((JSON.parse(full.out) as JsonPlan).changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual(
      changes,
    );
  });
});

describe("--changed-since with secrets", () => {
  let bench: Bench;
  let file: string;
  const ENV = { TOKEN_A: "token-a-0123456789", TOKEN_B: "token-b-9876543210" };
  const ref = (name: string) => `\${env:${name}}`;
  const manifest = (token = ref("TOKEN_A"), level = "gold") => `version: 1
projects:
  fleet/p1:
    pipeline_schedules:
      - description: nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: TOKEN, value: "${token}" }
          - { key: LEVEL, value: ${level} }
`;
  const plan = async (env: Record<string, string> = ENV) => {
    const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", file], env);
    expect(run.code, run.err).toBe(0);
    expect(run.out + run.err).not.toContain("token-");
    return (JSON.parse(run.out) as JsonPlan).changes.map((c) => `${c.action} ${c.address}`);
  };

  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "fleet" }], projects: [{ path: "fleet/p1" }] } });
    file = committed("fleet.yaml", manifest());
    const apply = await bench.cli(["apply", "--yes", file], ENV);
    expect(apply.code, apply.out + apply.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  const variable = (key: string) =>
    `update project["fleet/p1"].pipeline_schedule["nightly"].variable["${key}"]`;

  it("plans a sensitive value changed in the manifest, and a reference pointed elsewhere", async () => {
    writeFileSync(file, manifest(undefined, "silver"));
    expect(await plan()).toEqual([variable("LEVEL")]);
    writeFileSync(file, manifest(ref("TOKEN_B")));
    expect(await plan()).toEqual([variable("TOKEN")]);
  });

  it("does not plan a new value of the same reference: that is not a change of the manifests", async () => {
    writeFileSync(file, manifest());
    expect(await plan({ ...ENV, TOKEN_A: "token-a-changed-000" })).toEqual([]);
  });
});
