/**
 * Deleting a group deletes its subgroups and projects on the platform: the plan names each of them, every report
 * counts them, --max-deletes counts them, and apply saves the group's export archive before deleting it.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [
    { path: "lowtest", visibility: "private" },
    { path: "lowtest/sub", visibility: "private" },
    { path: "lowtest/sub/deeper", visibility: "private" },
    { path: "keep" },
  ],
  projects: [
    { path: "lowtest/p1" },
    { path: "lowtest/sub/p2" },
    { path: "lowtest/sub/deeper/p3" },
    { path: "keep/p" },
  ],
};

const TAKEN = [
  'group["lowtest/sub"]',
  'group["lowtest/sub/deeper"]',
  'project["lowtest/p1"]',
  'project["lowtest/sub/deeper/p3"]',
  'project["lowtest/sub/p2"]',
];

describe("deleting a group", () => {
  let bench: Bench;
  let manifest: string;
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
    manifest = bench.manifest("version: 1\ngroups:\n  lowtest:\n    state: absent\n  keep: {}\n");
  });
  afterEach(async () => {
    await bench.stop();
  });

  it("plans every subgroup and project that goes with it, in every format", async () => {
    const plan = await bench.cli(["plan", manifest]);
    expect(plan.code, plan.err).toBe(0);
    for (const address of TAKEN) {
      expect(plan.out).toContain(`- ${address} will be deleted`);
    }
    const text = plan.out.replace(/\n\s*#\s*/g, " ");
    expect(text).toContain('deleted with group["lowtest"]');
    expect(text).toContain("the platform deletes its 2 subgroups and 3 projects with it");
    expect(text).toMatch(
      /apply first saves its export archive to \S*\.forgeform\/backups\/\d{4}-\d{2}-\d{2}\/group-lowtest\.tar\.gz/,
    );
    // Not listed as unmanaged and left alone: it goes with its parent.
    expect(plan.out).not.toContain("unmanaged");
    expect(plan.out.trim().split("\n").at(-1)).toBe(
      "Plan: 0 to create, 0 to update, 0 to replace, 6 to delete.",
    );

    const json = JSON.parse((await bench.cli(["plan", "--format", "json", manifest])).out) as {
      summary: { delete: number };
      changes: {
        address: string;
        action: string;
        collection: string;
        deleted_with?: string;
        fields: unknown[];
      }[];
    };
    expect(json.summary.delete).toBe(6);
    // Listed as deletes are, the deepest first: what goes with the group, then the group.
    const last = json.changes.map((c) => c.address).slice(-6);
    expect(last.at(-1)).toBe('group["lowtest"]');
    expect(last.slice(0, 5).sort()).toEqual([...TAKEN].sort());
    for (const address of TAKEN) {
      expect(json.changes.find((c) => c.address === address)).toMatchObject({
        action: "delete",
        collection: address.startsWith("group") ? "groups" : "projects",
        deleted_with: 'group["lowtest"]',
        // What each was: a subgroup's visibility; a project's, and whether it was archived.
        fields: address.startsWith("group")
          ? [{ field: "visibility", before: "private" }]
          : [
              { field: "visibility", before: "private" },
              { field: "archived", before: false },
            ],
      });
    }
    const markdown = (await bench.cli(["plan", "--format", "markdown", manifest])).out;
    expect(markdown).toMatch(/delet/i);
    expect(markdown).toContain("lowtest/sub/deeper/p3");
    const drift = await bench.cli(["drift", "--format", "junit", manifest]);
    expect(drift.code).toBe(2);
    for (const address of TAKEN) expect(drift.out).toContain(address.replace(/"/g, "&quot;"));
    // Each says why: taken with its group, or marked absent; none is "not in the manifests".
    expect(drift.out).not.toContain("prune policy delete");
    expect(drift.out.match(/applying would delete it with group\[&quot;lowtest&quot;\]/g)).toHaveLength(5);
    expect(drift.out).toMatch(
      /marked &quot;state: absent&quot; in the manifests at \S+:3:3: applying would delete it/,
    );
  });

  it("warns in a text plan, after the changes, of everything a group delete takes", async () => {
    for (const command of ["plan", "drift"]) {
      const run = await bench.cli([command, manifest]);
      const banner = run.out.slice(run.out.indexOf("WARNING:"));
      expect(banner.replace(/\s+/g, " ")).toContain(
        'WARNING: deleting group["lowtest"] also deletes 5 subgroups and projects the platform removes with it:',
      );
      for (const address of TAKEN) expect(banner).toContain(`  - ${address}\n`);
      expect(banner).toContain("Each is counted by --max-deletes.");
    }
  });

  it("names the archive from the working directory when it is below it, by its full path otherwise", async () => {
    const archive = (out: string) =>
      /apply first saves its export archive to (\S+)\/\d{4}-\d{2}-\d{2}\/group-lowtest\.tar\.gz/.exec(
        out.replace(/\n\s*#\s*/g, " "),
      )?.[1];
    // The test's working directory is not above the bench's.
    expect(archive((await bench.cli(["plan", manifest])).out)).toBe(join(bench.dir, ".forgeform", "backups"));
    const cwd = vi.spyOn(process, "cwd").mockReturnValue(bench.dir);
    try {
      expect(archive((await bench.cli(["plan", manifest])).out)).toBe(".forgeform/backups");
    } finally {
      cwd.mockRestore();
    }
  });

  it("counts each of them against --max-deletes, and applies nothing when over", async () => {
    const refused = await bench.cli(["apply", "--yes", "--max-deletes", "1", manifest]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("deletes or replaces 6 objects, more than --max-deletes 1");
    expect(await bench.get("/groups/lowtest%2Fsub")).toMatchObject({ full_path: "lowtest/sub" });
    expect(await bench.get("/projects/lowtest%2Fp1")).toMatchObject({ path_with_namespace: "lowtest/p1" });
  });

  it("saves the export archive first, then deletes the whole tree", async () => {
    const backups = join(bench.dir, "saved");
    const apply = await bench.cli([
      "apply",
      "--yes",
      "--max-deletes",
      "6",
      "--backup-dir",
      backups,
      manifest,
    ]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(readdirSync(backups)).toEqual(["group-lowtest.tar.gz"]);
    // The platform's archive: a tar (ustar header) of the group tree, the bytes as downloaded.
    const tar = gunzipSync(readFileSync(join(backups, "group-lowtest.tar.gz")));
    expect(tar.subarray(257, 262).toString("latin1")).toBe("ustar");
    expect(tar.toString("latin1")).toContain("./tree/groups/_all.ndjson");
    for (const path of ["/groups/lowtest", "/groups/lowtest%2Fsub", "/projects/lowtest%2Fsub%2Fp2"]) {
      await expect(bench.get(path)).rejects.toThrow(/404/);
    }
    expect(await bench.get("/projects/keep%2Fp")).toMatchObject({ path_with_namespace: "keep/p" });
    const again = await bench.cli(["plan", "--detailed-exitcode", manifest]);
    expect(again.code).toBe(0);
  });

  it("reports each object the platform deleted with the group as applied, and the whole tree is gone", async () => {
    const apply = await bench.cli(["apply", "--yes", "--no-backup", "--format", "json", manifest]);
    expect(apply.code, apply.err).toBe(0);
    const report = JSON.parse(apply.out) as {
      outcomes: { address: string; action: string; status: string; message?: string }[];
    };
    const byAddress = (a: { address: string }, b: { address: string }) => a.address.localeCompare(b.address);
    expect(report.outcomes.sort(byAddress)).toEqual(
      ['group["lowtest"]', ...TAKEN]
        .map((address) => ({ address, action: "delete", status: "done" }))
        .sort(byAddress),
    );
    // One DELETE took the tree: a DELETE sent for a member after it would have failed with 404.
    for (const path of [
      "/groups/lowtest",
      "/groups/lowtest%2Fsub%2Fdeeper",
      "/projects/lowtest%2Fsub%2Fdeeper%2Fp3",
    ]) {
      await expect(bench.get(path)).rejects.toThrow(/404/);
    }
  });

  it("--no-backup deletes without an archive, and the plan says nothing of one", async () => {
    const plan = await bench.cli(["plan", "--no-backup", manifest]);
    expect(plan.out).not.toContain("export archive");
    const apply = await bench.cli(["apply", "--yes", "--no-backup", manifest]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(existsSync(join(bench.dir, ".forgeform"))).toBe(false);
    await expect(bench.get("/groups/lowtest")).rejects.toThrow(/404/);
  });

  it("refuses to delete a group whose subgroup or project is still declared", async () => {
    const conflicting = bench.manifest(
      "version: 1\ngroups:\n  lowtest:\n    state: absent\n  lowtest/sub: {}\nprojects:\n  lowtest/p1:\n    badges: []\n",
      "conflict.yaml",
    );
    const plan = await bench.cli(["plan", conflicting]);
    expect(plan.code).toBe(1);
    const text = plan.out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");
    // What to do, for each: a project marked absent too goes first, after its own backup; a subgroup with the group.
    expect(text).toContain(
      'group["lowtest"] is marked "state: absent", but group lowtest/sub inside it is declared: the platform deletes a group\'s subgroups and projects with it. Remove lowtest/sub from the manifests (or mark it absent too), or keep lowtest',
    );
    expect(text).toContain(
      'group["lowtest"] is marked "state: absent", but project lowtest/p1 inside it is declared: the platform deletes a group\'s subgroups and projects with it. Remove lowtest/p1 from the manifests (or mark it absent too: it is then deleted first, after its own backup), or keep lowtest',
    );
    expect(text).toContain("(2 of them are still in the manifests: see the errors)");
    const apply = await bench.cli(["apply", "--yes", conflicting]);
    expect(apply.code).toBe(1);
    expect(await bench.get("/groups/lowtest")).toMatchObject({ full_path: "lowtest" });
  });

  it("a pattern matching projects inside a group being deleted: the error says how to leave them out", async () => {
    const patterned = bench.manifest(
      "version: 1\ngroups:\n  lowtest:\n    state: absent\nprojects:\n  lowtest/**:\n    badges: []\n",
      "pattern.yaml",
    );
    const plan = await bench.cli(["plan", patterned]);
    expect(plan.code).toBe(1);
    const text = plan.out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");
    expect(text).toContain(
      "project lowtest/p1 inside it is matched by a pattern of the manifests (at the place shown): the platform deletes a group's subgroups and projects with it. Leave the group out of that pattern with except: [lowtest/**], or keep lowtest",
    );
    expect(text).not.toContain("mark it absent too");
    expect(text).toContain(
      "the platform deletes its 2 subgroups and 3 projects with it (3 of them are still in the manifests",
    );
  });

  it("a group and its subgroup both marked absent: each object inside is deleted once", async () => {
    const both = bench.manifest(
      "version: 1\ngroups:\n  lowtest:\n    state: absent\n  lowtest/sub:\n    state: absent\n  keep: {}\n",
    );
    const run = await bench.cli(["plan", "--format", "json", both]);
    expect(run.code, run.err).toBe(0);
    const plan = JSON.parse(run.out) as {
      changes: { address: string; action: string }[];
      summary: { delete: number };
    };
    const deletes = plan.changes.filter((c) => c.action === "delete").map((c) => c.address);
    expect(deletes.sort()).toEqual(['group["lowtest"]', ...TAKEN].sort());
    expect(plan.summary.delete).toBe(6);
  });

  it("an undeclared subgroup is reported with what deletes a group: state: absent", async () => {
    const plan = await bench.cli([
      "plan",
      bench.manifest("version: 1\ngroups:\n  lowtest: {}\n", "keep.yaml"),
    ]);
    const text = plan.out.replace(/\n\s*#\s*/g, " ");
    expect(text).toContain('! group["lowtest/sub"] unmanaged');
    expect(text).toContain('groups are deleted only when declared with "state: absent"');
    expect(text).not.toContain("set unmanaged.groups to delete");
  });
});

describe("deleting a group, when the platform refuses", () => {
  let bench: Bench;
  beforeEach(async () => {
    bench = await Bench.start({ fixture, faults: "500:1@DELETE/api/v4/groups/" });
  });
  afterEach(async () => {
    await bench.stop();
  });

  it("reports the group failed and everything it would have taken skipped, and deletes nothing", async () => {
    const manifest = bench.manifest("version: 1\ngroups:\n  lowtest:\n    state: absent\n  keep: {}\n");
    const apply = await bench.cli(["apply", "--yes", "--no-backup", "--format", "json", manifest]);
    expect(apply.code).toBe(1);
    const report = JSON.parse(apply.out) as {
      outcomes: { address: string; action: string; status: string; message?: string }[];
    };
    const group = report.outcomes.find((o) => o.address === 'group["lowtest"]');
    expect(group).toMatchObject({ status: "failed", message: expect.stringContaining("500") });
    expect(
      report.outcomes.filter((o) => o !== group).sort((a, b) => a.address.localeCompare(b.address)),
    ).toEqual(
      TAKEN.map((address) => ({
        address,
        action: "delete",
        status: "skipped",
        message: 'skipped because group["lowtest"] was not applied',
      })),
    );
    expect(await bench.get("/groups/lowtest%2Fsub%2Fdeeper")).toMatchObject({
      full_path: "lowtest/sub/deeper",
    });
    expect(await bench.get("/projects/lowtest%2Fp1")).toMatchObject({ path_with_namespace: "lowtest/p1" });
  });
});
