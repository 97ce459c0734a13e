import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, FIXTURE, planJson } from "./cycle.js";
import { ADMIN_TOKEN, Bench } from "./helpers.js";

const manifest = (description: string, extra = "") => `version: 1
groups:
  acme:
    description: ${description}
  teams: {}
  teams/red: {}
${extra}`;

describe("plan and apply options", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("applies a saved plan, which holds no secret", async () => {
    const file = bench.manifest(manifest("Saved plans"));
    const out = join(bench.dir, "plan.json");
    const plan = await bench.cli(["plan", "--out", out, file]);
    expect(plan.code).toBe(0);
    expect(plan.err).toContain(`forgeform apply --plan ${out}`);
    const applied = await bench.cli(["apply", "--yes", "--plan", out]);
    expect(applied.code).toBe(0);
    expect(applied.out).toContain("Apply complete: 3 done");
    expect((await bench.get<{ description: string }>("/groups/acme")).description).toBe("Saved plans");
  });

  it("refuses a saved plan when the live state changed since it was made", async () => {
    const file = bench.manifest(manifest("Reviewed"));
    const out = join(bench.dir, "stale.json");
    expect((await bench.cli(["plan", "--out", out, file])).code).toBe(0);
    // Someone changes the group in the platform after the plan was reviewed.
    const res = await fetch(`${bench.sandbox.url}/api/v4/groups/acme`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ description: "Changed by hand" }),
    });
    expect(res.status).toBe(200);
    const applied = await bench.cli(["apply", "--yes", "--plan", out]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain("the live state changed since the plan was made");
    expect((await bench.get<{ description: string }>("/groups/acme")).description).toBe("Changed by hand");
  });

  it("refuses a saved plan when the manifests changed since it was made", async () => {
    const file = bench.manifest(manifest("First version"));
    const out = join(bench.dir, "edited.json");
    expect((await bench.cli(["plan", "--out", out, file])).code).toBe(0);
    bench.manifest(manifest("Second version"));
    const applied = await bench.cli(["apply", "--yes", "--plan", out]);
    expect(applied.code).toBe(1);
    expect(applied.err).toContain("the manifests changed since the plan was made");
  });

  it("--max-deletes stops a plan that deletes more, and applies nothing", async () => {
    const file = bench.manifest(manifest("Deletes", "  teams/blue: {}\n  teams/green: {}\n"));
    await apply(bench, file);
    const doomed = bench.manifest(
      manifest("Deletes", "  teams/blue:\n    state: absent\n  teams/green:\n    state: absent\n"),
    );
    const refused = await bench.cli(["apply", "--yes", "--max-deletes", "1", doomed]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(
      "deletes or replaces 2 objects, more than --max-deletes 1. Nothing was applied.",
    );
    await bench.get("/groups/teams%2Fblue");
    const allowed = await bench.cli(["apply", "--yes", "--max-deletes", "2", doomed]);
    expect(allowed.code).toBe(0);
    await expect(bench.get("/groups/teams%2Fblue")).rejects.toThrow(/404/);
  });

  it("--target limits the plan to a subtree, reporting what is unmanaged inside it as a full plan would", async () => {
    const file = bench.manifest(
      manifest("Targets", "  teams/red:\n    description: Red team\n").replace("  teams/red: {}\n", ""),
    );
    const scoped = await planJson(bench, file, ["--target", "teams/red"]);
    expectChanges(scoped, [{ address: 'group["teams/red"]', action: "update", fields: ["description"] }]);
    const other = await planJson(bench, file, ["--target", "acme"]);
    expectChanges(other, [
      { address: 'group["acme"]', action: "update", fields: ["description"] },
      { address: 'group["acme/platform"]', action: "unmanaged" },
    ]);
    const full = await planJson(bench, file, []);
    expect(full.changes.map((c: { address: string }) => c.address)).toContain('group["acme/platform"]');
  });

  it("addresses projects by path with no lookup of their own, and plans a missing one's create once, where declared", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/platform/api:
    badges: []
  acme/nowhere:
    badges: []
    pipeline_schedules: []
    milestones: []
`);
    const r = await bench.cli(["plan", "--format", "json", file]);
    expect(r.code, r.out + r.err).toBe(0);
    const plan = JSON.parse(r.out) as {
      changes: { address: string; action: string; source?: { line: number } }[];
      requests: { by_endpoint: Record<string, number> };
    };
    expect(plan.changes.filter((c) => c.action === "create").map((c) => [c.address, c.source?.line])).toEqual(
      [['project["acme/nowhere"]', 5]],
    );
    expect(Object.keys(plan.requests.by_endpoint).filter((e) => e === "GET /projects/:id")).toEqual([]);
  });
});
