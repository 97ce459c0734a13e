/**
 * Who may do what, end to end over HTTP: one manifest manages group and project members (one with an expiry), a
 * group share and a project share, two protected branches (a wildcard, and one with no_access) and a protected tag.
 * It applies, then plans no changes; every object reads back as declared through the API directly; changes made by
 * hand show in drift in every format with its exit code (a member promoted, a branch unprotected: 2; a member added:
 * 0, unmanaged); export plans back to zero changes. Then the same kinds through the depth features: a pattern policy
 * with `except:`, `explain`, `--target`, `--changed-since` and `--shard`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JsonPlan, planJson } from "./cycle.js";
import { Bench } from "./helpers.js";

const fixture = {
  users: [
    { username: "alice", name: "Alice Example", email: "alice@example.com" },
    { username: "bob", name: "Bob Example", email: "bob@example.com" },
    { username: "carol", name: "Carol Example", email: "carol@example.com" },
    { username: "dave", name: "Dave Example", email: "dave@example.com" },
  ],
  groups: [
    { path: "acme", members: { alice: "owner" } },
    { path: "acme/platform" },
    { path: "partners" },
    { path: "corp" },
    { path: "corp/legacy" },
  ],
  projects: [
    { path: "acme/platform/api", default_branch: "main" },
    { path: "corp/a", default_branch: "main" },
    { path: "corp/b", default_branch: "main" },
    { path: "corp/legacy/c", default_branch: "main" },
  ],
};

const MANIFEST = `version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  acme:
    members:
      - { user: alice, access_level: owner }
      - { user: bob, access_level: developer, expires_at: "2031-12-31" }
    shared_with_groups:
      - { group: partners, group_access: reporter }
projects:
  acme/platform/api:
    members:
      - { user: carol, access_level: maintainer }
    shared_with_groups:
      - { group: partners, group_access: developer }
    protected_branches:
      - name: main
        push_access_level: maintainer
        merge_access_level: developer
      - name: "release/*"
        push_access_level: no_access
        merge_access_level: maintainer
    protected_tags:
      - name: "v*"
        create_access_level: maintainer
`;

const API = "/projects/acme%2Fplatform%2Fapi";

interface DriftJson {
  drift: boolean;
  summary: { drifted: number; missing: number; unmanaged: number; would_delete: number };
  items: {
    address: string;
    status: string;
    fields: { field: string; live?: unknown; declared?: unknown }[];
  }[];
}

describe("members, shares and protected refs, end to end", () => {
  let bench: Bench;
  let file: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
    file = bench.manifest(MANIFEST, "access.yaml");
  });
  afterAll(async () => {
    await bench.stop();
  });

  /** Every format of drift, each with the exit code, and the JSON report. */
  async function drift(extra: string[] = []) {
    const runs = await Promise.all(
      ["text", "json", "markdown", "junit"].map((format) =>
        bench.cli(["drift", "--format", format, ...extra, file]),
      ),
    );
    const [text, json, markdown, junit] = runs as [
      Awaited<ReturnType<Bench["cli"]>>,
      Awaited<ReturnType<Bench["cli"]>>,
      Awaited<ReturnType<Bench["cli"]>>,
      Awaited<ReturnType<Bench["cli"]>>,
    ];
    const codes = runs.map((r) => r.code);
    expect(new Set(codes).size, runs.map((r) => r.out + r.err).join("\n")).toBe(1);
    return {
      code: codes[0]!,
      text: text.out,
      report: JSON.parse(json.out) as DriftJson,
      markdown: markdown.out,
      junit: junit.out,
    };
  }

  it("applies, then plans no changes", async () => {
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(applied.out).toContain("Apply complete: 7 done, 0 failed, 0 skipped.");
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("left every object as declared, read through the API directly", async () => {
    const members = async (path: string) =>
      (
        await bench.get<{ username: string; access_level: number; expires_at: string | null }[]>(
          `${path}/members`,
        )
      ).map((m) => [m.username, m.access_level, m.expires_at]);
    expect(await members("/groups/acme")).toEqual([
      ["alice", 50, null],
      ["bob", 30, "2031-12-31"],
    ]);
    expect(await members(API)).toEqual([["carol", 40, null]]);
    const shares = async (path: string) =>
      (
        await bench.get<{ shared_with_groups: { group_full_path: string; group_access_level: number }[] }>(
          path,
        )
      ).shared_with_groups.map((s) => [s.group_full_path, s.group_access_level]);
    expect(await shares("/groups/acme")).toEqual([["partners", 20]]);
    expect(await shares(API)).toEqual([["partners", 30]]);
    const levels = (l: { access_level: number }[]) => l.map((x) => x.access_level);
    const branches = await bench.get<
      {
        name: string;
        push_access_levels: { access_level: number }[];
        merge_access_levels: { access_level: number }[];
      }[]
    >(`${API}/protected_branches`);
    expect(
      branches.map((b) => [b.name, levels(b.push_access_levels), levels(b.merge_access_levels)]),
    ).toEqual([
      ["main", [40], [30]],
      ["release/*", [0], [40]],
    ]);
    const tags = await bench.get<{ name: string; create_access_levels: { access_level: number }[] }[]>(
      `${API}/protected_tags`,
    );
    expect(tags.map((t) => [t.name, levels(t.create_access_levels)])).toEqual([["v*", [40]]]);
  });

  it("shows a member promoted by hand as drift in every format, exit 2", async () => {
    const [bob] = await bench.get<{ id: number }[]>("/users?username=bob");
    await bench.send("PUT", `/groups/acme/members/${bob!.id}`, { access_level: 40 });
    const d = await drift();
    expect(d.code).toBe(2);
    expect(d.report.drift).toBe(true);
    expect(d.report.items).toMatchObject([
      {
        address: 'group["acme"].member["bob"]',
        status: "drifted",
        fields: [{ field: "access_level", live: "maintainer", declared: "developer" }],
      },
    ]);
    expect(d.text).toContain('~ group["acme"].member["bob"]');
    expect(d.text).toContain('~ access_level: "maintainer" -> "developer"');
    expect(d.markdown).toContain('group["acme"].member["bob"]');
    expect(d.junit).toMatch(
      /<testcase [^>]*name="group\[&quot;acme&quot;\]\.member\[&quot;bob&quot;\]"[^>]*>\s*<failure/,
    );
    await bench.cli(["apply", "--yes", file]);
    expect((await drift()).code).toBe(0);
  });

  it("shows a branch unprotected by hand as drift in every format, exit 2", async () => {
    await bench.send("DELETE", `${API}/protected_branches/release%2F*`);
    const d = await drift();
    expect(d.code).toBe(2);
    expect(d.report.items).toMatchObject([
      { address: 'project["acme/platform/api"].protected_branch["release/*"]', status: "missing" },
    ]);
    expect(d.text).toContain('project["acme/platform/api"].protected_branch["release/*"]');
    expect(d.markdown).toContain('protected_branch["release/*"]');
    expect(d.junit).toMatch(/release\/\*[^>]*>\s*<failure/);
    await bench.cli(["apply", "--yes", file]);
    expect((await drift()).code).toBe(0);
  });

  it("shows a member added by hand as unmanaged: exit 0, and 2 with --fail-on-unmanaged", async () => {
    const [dave] = await bench.get<{ id: number }[]>("/users?username=dave");
    await bench.send("POST", `${API}/members`, { user_id: dave!.id, access_level: 30 });
    const d = await drift();
    expect(d.code).toBe(0);
    expect(d.report).toMatchObject({ drift: false, summary: { unmanaged: 1, drifted: 0, missing: 0 } });
    expect(d.report.items).toMatchObject([
      { address: 'project["acme/platform/api"].member["dave"]', status: "unmanaged" },
    ]);
    expect(d.text).toContain('project["acme/platform/api"].member["dave"]');
    expect(d.junit).not.toContain("<failure");
    expect((await drift(["--fail-on-unmanaged"])).code).toBe(2);
  });

  it("exports manifests that plan back to zero changes", async () => {
    const out = join(bench.dir, "exported");
    const exported = await bench.cli(["export", "--group", "acme", "--out", out]);
    expect(exported.code, exported.err).toBe(0);
    expect(readdirSync(out)).toEqual(["acme.yaml"]);
    const plan = await bench.cli(["plan", "--detailed-exitcode", out]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    // The member added by hand is exported too; levels by name, allowances and defaults as the platform has them.
    const text = execFileSync("cat", [join(out, "acme.yaml")], { encoding: "utf8" });
    expect(text).toContain("user: dave");
    expect(text).toContain("access_level: developer");
    expect(text).toContain("push_access_level: no_access");
    expect(text).toContain("expires_at: 2031-12-31");
  });
});

describe("members, shares and protected refs through patterns, explain, targets, changed-since and shards", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const POLICY = `version: 1
projects:
  corp/**:
    except: [corp/legacy/**]
    protected_branches:
      - name: main
        push_access_level: maintainer
    members:
      - { user: dave, access_level: reporter }
`;

  const protectedIn = async (project: string) =>
    (await bench.get<{ name: string }[]>(`/projects/${encodeURIComponent(project)}/protected_branches`)).map(
      (b) => b.name,
    );

  it("a policy protects main in every project under corp/** but those except: leaves out", async () => {
    const file = bench.manifest(POLICY, "policy.yaml");
    const plan = await planJson(bench, file);
    expect(plan.changes.map((c) => `${c.action} ${c.address}`).sort()).toEqual([
      'create project["corp/a"].member["dave"]',
      'create project["corp/a"].protected_branch["main"]',
      'create project["corp/b"].member["dave"]',
      'create project["corp/b"].protected_branch["main"]',
    ]);
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(await protectedIn("corp/a")).toEqual(["main"]);
    expect(await protectedIn("corp/b")).toEqual(["main"]);
    expect(await protectedIn("corp/legacy/c")).toEqual([]);
    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code, again.out).toBe(0);
  });

  it("explain names the pattern entry each member and branch comes from", async () => {
    const file = bench.manifest(POLICY, "policy.yaml");
    const explained = await bench.cli(["explain", "corp/a", file]);
    expect(explained.code, explained.err).toBe(0);
    expect(explained.out).toMatch(/protected_branches:\n {2}- main +# projects\["corp\/\*\*"\]/);
    expect(explained.out).toMatch(/members:\n {2}- dave +# projects\["corp\/\*\*"\]/);
    expect(explained.out).toMatch(/access_level: "reporter" +# projects\["corp\/\*\*"\]/);
    const left = await bench.cli(["explain", "corp/legacy/c", file]);
    expect(left.out + left.err).toContain('projects["corp/**"] leaves it out (except: corp/legacy/**');
  });

  it("--target plans one project's members and branches only", async () => {
    const file = bench.manifest(
      POLICY.replace("access_level: reporter", "access_level: developer"),
      "policy.yaml",
    );
    const plan = await planJson(bench, file, ["--target", "corp/b"]);
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'update project["corp/b"].member["dave"]',
    ]);
  });

  it("--shard plans them in exactly one shard", async () => {
    const file = bench.manifest(
      POLICY.replace("access_level: reporter", "access_level: developer"),
      "policy.yaml",
    );
    const shards = await Promise.all([1, 2].map((k) => planJson(bench, file, ["--shard", `${k}/2`])));
    const addresses = shards.flatMap((p) => p.changes.map((c) => c.address));
    // Each project is planned by one shard: together they are the whole plan, none twice.
    expect(addresses.sort()).toEqual([
      'project["corp/a"].member["dave"]',
      'project["corp/b"].member["dave"]',
    ]);
    const units = shards.map((p) => (p as JsonPlan & { shard?: { units: string[] } }).shard?.units ?? []);
    // Shards split by top-level group: corp goes to one of them, whole.
    expect(units.flat()).toEqual(["corp"]);
  });

  it("--changed-since reads and plans only the branch the change touches", async () => {
    const repo = mkdtempSync(join(tmpdir(), "forgeform-repo-"));
    const file = join(repo, "policy.yaml");
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
        cwd: dirname(file),
        encoding: "utf8",
      });
    const both = `version: 1
projects:
  corp/a:
    protected_branches: [{ name: main, push_access_level: maintainer }]
    members: [{ user: dave, access_level: reporter }]
  corp/b:
    protected_branches: [{ name: main, push_access_level: maintainer }]
    members: [{ user: dave, access_level: reporter }]
`;
    git("init", "-q");
    writeFileSync(file, both);
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    const applied = await bench.cli(["apply", "--yes", file]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    writeFileSync(
      file,
      both.replace(
        /(corp\/b:\n {4}protected_branches: \[\{ name: main, push_access_level:) maintainer/,
        "$1 no_access",
      ),
    );
    const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", file]);
    expect(run.code, run.err).toBe(0);
    const plan = JSON.parse(run.out) as JsonPlan & { requests: { by_endpoint: Record<string, number> } };
    expect(plan.changes.map((c) => `${c.action} ${c.address}`)).toEqual([
      'replace project["corp/b"].protected_branch["main"]',
    ]);
    // Only corp/b's branches were read: not its members, nor anything of corp/a.
    const read = Object.keys(plan.requests.by_endpoint).join(" ");
    expect(read).not.toMatch(/members/);
    expect(read).toMatch(/protected_branches/);
  });
});
