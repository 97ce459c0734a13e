import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

describe("groups: plan and apply against the sandbox", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start();
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("creates parents before children, then plans nothing", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme/platform:
    description: Platform team
  acme:
    name: ACME
    visibility: private
    description: The ACME company
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.err).toBe("");
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ group["acme"]');
    expect(plan.out).toContain('+ group["acme/platform"]');
    expect(plan.out.indexOf('group["acme"]')).toBeLessThan(plan.out.indexOf('group["acme/platform"]'));
    expect(plan.out.trim().split("\n").at(-1)).toBe(
      "Plan: 2 to create, 0 to update, 0 to replace, 0 to delete.",
    );

    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(0);
    expect(apply.out).toContain("Apply complete: 2 done, 0 failed, 0 skipped.");
    const sub = await bench.get<{ parent_id: number; description: string; full_path: string }>(
      "/groups/acme%2Fplatform",
    );
    const top = await bench.get<{ id: number; name: string }>("/groups/acme");
    expect(sub.parent_id).toBe(top.id);
    expect(top.name).toBe("ACME");

    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code).toBe(0);
    expect(again.out).toContain("No changes.");
  });

  it("updates exactly the changed field", async () => {
    const file = bench.manifest(`version: 1
groups:
  acme:
    name: ACME
    visibility: private
    description: The ACME company, reorganised
  acme/platform:
    description: Platform team
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('~ group["acme"]');
    expect(plan.out).toContain("description");
    expect(plan.out).not.toContain('group["acme/platform"]');
    expect(plan.out.trim().split("\n").at(-1)).toBe(
      "Plan: 0 to create, 1 to update, 0 to replace, 0 to delete.",
    );
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("refuses to apply without --yes when not at a terminal", async () => {
    const file = bench.manifest(`version: 1
groups:
  other:
    description: x
`);
    const apply = await bench.cli(["apply", file]);
    expect(apply.code).toBe(1);
    expect(apply.err).toContain("needs --yes");
    await expect(bench.get("/groups/other")).rejects.toThrow(/404/);
  });

  it("refuses a group move, which the API cannot do without losing the group's projects", async () => {
    const before = bench.manifest(`version: 1
groups:
  corp: {}
  corp/west: {}
  corp/east: {}
  corp/west/team:
    description: The team
`);
    const first = await bench.cli(["apply", "--yes", before]);
    expect(first.out + first.err).toContain("Apply complete");
    const moved = bench.manifest(`version: 1
groups:
  corp: {}
  corp/west: {}
  corp/east: {}
  corp/east/team:
    description: The team
`);
    const plan = await bench.cli(["plan", moved]);
    expect(plan.code).toBe(1);
    expect(plan.out).toContain('group["corp/east/team"]');
    const text = plan.out.replace(/\s+/g, " ");
    expect(text).toContain(
      "corp/west/team (inside corp/west, which the manifests manage) is no longer declared: this looks like a move",
    );
    expect(text).toContain("the API cannot change a group's parent");
    // It says how to proceed either way.
    expect(text).toContain("move corp/west/team to corp/east/team in the platform, then plan again");
    expect(text).toContain(
      'declare corp/west/team in the manifests too (or mark it "state: absent" to delete it)',
    );
    const apply = await bench.cli(["apply", "--yes", moved]);
    expect(apply.code).toBe(1);
    await expect(bench.get("/groups/corp%2Feast%2Fteam")).rejects.toThrow(/404/);
  });

  it("takes a new group for a move only from a group of the very same name that is no longer declared", async () => {
    const before = bench.manifest(`version: 1
groups:
  firm: {}
  firm/west: {}
  firm/west/team: {}
  firm/west/teamwork: {}
`);
    expect((await bench.cli(["apply", "--yes", before])).code).toBe(0);
    // firm/west/team stays declared; firm/west/teamwork is left undeclared but only shares the start of the name.
    const both = bench.manifest(`version: 1
groups:
  firm: {}
  firm/west: {}
  firm/west/team: {}
  firm/east: {}
  firm/east/team: {}
`);
    const plan = await bench.cli(["plan", "--format", "json", both]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect((JSON.parse(plan.out) as { errors: unknown[] }).errors).toEqual([]);
  });

  it("names a new group after its path when no name is declared, and never renames an existing one", async () => {
    const named = bench.manifest(`version: 1
groups:
  labs:
    name: Research Labs
`);
    expect((await bench.cli(["apply", "--yes", named])).code).toBe(0);
    const unnamed = bench.manifest(`version: 1
groups:
  labs:
    description: Research
  labs/robots: {}
`);
    const plan = await bench.cli(["plan", unnamed]);
    expect(plan.out).not.toContain("name:");
    expect((await bench.cli(["apply", "--yes", unnamed])).code).toBe(0);
    expect((await bench.get<{ name: string }>("/groups/labs")).name).toBe("Research Labs");
    expect((await bench.get<{ name: string }>("/groups/labs%2Frobots")).name).toBe("robots");
  });

  it("reports undeclared subgroups of declared groups as unmanaged (never other top-level groups), unless ignored", async () => {
    const setup = bench.manifest(`version: 1
groups:
  zoo: {}
  zoo/lions: {}
  zoo/tigers: {}
  elsewhere: {}
`);
    expect((await bench.cli(["apply", "--yes", setup])).code).toBe(0);
    const partial = bench.manifest(`version: 1
groups:
  zoo:
    description: The zoo
`);
    const plan = JSON.parse((await bench.cli(["plan", "--format", "json", partial])).out) as {
      changes: { address: string; action: string }[];
    };
    expect(
      plan.changes
        .filter((c) => c.action === "unmanaged")
        .map((c) => c.address)
        .sort(),
    ).toEqual(['group["zoo/lions"]', 'group["zoo/tigers"]']);
    const ignored = bench.manifest(`version: 1
instance:
  unmanaged:
    groups: ignore
groups:
  zoo:
    description: The zoo
`);
    const quiet = JSON.parse((await bench.cli(["plan", "--format", "json", ignored])).out) as {
      changes: { action: string }[];
      requests: { by_endpoint: Record<string, number> };
    };
    expect(quiet.changes.filter((c) => c.action === "unmanaged")).toEqual([]);
    expect(quiet.requests.by_endpoint["GET /groups/:id/subgroups"]).toBeUndefined();
    // A delete policy never deletes groups: they stay reported, and apply leaves them.
    const pruning = bench.manifest(`version: 1
instance:
  unmanaged:
    groups: delete
groups:
  zoo: {}
`);
    const reported = JSON.parse((await bench.cli(["plan", "--format", "json", pruning])).out) as {
      changes: { action: string; address: string; reason?: string }[];
    };
    const reason = 'not in the manifests; groups are deleted only when marked "state: absent"';
    expect(reported.changes.filter((c) => c.action === "unmanaged")).toEqual([
      expect.objectContaining({ address: 'group["zoo/lions"]', reason }),
      expect.objectContaining({ address: 'group["zoo/tigers"]', reason }),
    ]);
    const pruned = await bench.cli(["apply", "--yes", pruning]);
    expect(pruned.code).toBe(0);
    await bench.get("/groups/zoo%2Flions");
  });
});

describe("a group's visibility and its subgroup's, changed together", () => {
  it("raises the group before its subgroup, and lowers the subgroup before the group", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [
          { path: "acme", visibility: "internal" },
          { path: "acme/platform", visibility: "internal" },
        ],
      },
    });
    try {
      const both = (visibility: string) =>
        bench.manifest(`version: 1
groups:
  acme:
    visibility: ${visibility}
  acme/platform:
    visibility: ${visibility}
`);
      const visibility = async (path: string) =>
        (await bench.get<{ visibility: string }>(`/groups/${encodeURIComponent(path)}`)).visibility;
      // The platform refuses a subgroup more visible than its group at any moment: each order is the only one.
      const raised = await bench.cli(["apply", "--yes", both("public")]);
      expect(raised.code, raised.out + raised.err).toBe(0);
      expect([await visibility("acme"), await visibility("acme/platform")]).toEqual(["public", "public"]);
      const lowered = await bench.cli(["apply", "--yes", both("private")]);
      expect(lowered.code, lowered.out + lowered.err).toBe(0);
      expect([await visibility("acme"), await visibility("acme/platform")]).toEqual(["private", "private"]);
    } finally {
      await bench.stop();
    }
  });

  it("lowers a group to the visibility of its subgroup, which is no more visible than it then", async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [
          { path: "acme", visibility: "public" },
          { path: "acme/platform", visibility: "internal" },
        ],
      },
    });
    try {
      const file = bench.manifest("version: 1\ngroups:\n  acme:\n    visibility: internal\n");
      const applied = await bench.cli(["apply", "--yes", file]);
      expect(applied.code, applied.out + applied.err).toBe(0);
      expect((await bench.get<{ visibility: string }>("/groups/acme")).visibility).toBe("internal");
    } finally {
      await bench.stop();
    }
  });
});
