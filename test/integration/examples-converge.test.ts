/**
 * The examples are the first thing a user applies: every file of examples/ applies to the demo fixture, and the
 * next plan shows nothing. Checked by forgeform's own plan and by independent reads of the sandbox.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXAMPLE_MANIFESTS, EXAMPLES, EXAMPLES_ENV } from "./examples.js";
import { Bench } from "./helpers.js";

const manifests = EXAMPLE_MANIFESTS;
const env = EXAMPLES_ENV;

describe("examples/ on the demo fixture", () => {
  let bench: Bench;
  let backups: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: join(EXAMPLES, "sandbox-fixture.yaml"), edition: "licensed" });
    backups = join(bench.dir, "backups");
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("applies in one run, then plans no changes", async () => {
    expect(manifests.length).toBeGreaterThanOrEqual(4);
    const apply = await bench.cli(["apply", "--yes", "--backup-dir", backups, ...manifests], env);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("0 failed, 0 skipped");
    const plan = await bench.cli(["plan", "--detailed-exitcode", ...manifests], env);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.");
  });

  it("left the platform as declared, read independently", async () => {
    const platform = await bench.get<{ visibility: string; description: string }>("/groups/acme%2Fplatform");
    expect(platform).toMatchObject({ visibility: "internal", description: "Shared services" });
    const settings = await bench.get<Record<string, unknown>>("/application/settings");
    // Written "90 days", kept by the platform in its own words.
    expect(settings["archive_builds_in_human_readable"]).toBe("3 months");
    const keys = await bench.get<{ title: string; key: string }[]>(
      "/projects/acme%2Fplatform%2Fapi/deploy_keys",
    );
    expect(keys.map((k) => k.title).sort()).toEqual(["mirror", "release bot"]);
    // Members and protected branches by name (examples/access.yaml), and the acme/** policy's main.
    const members = await bench.get<{ username: string; access_level: number }[]>(
      "/groups/opensource/members",
    );
    expect(members.map((m) => [m.username, m.access_level])).toEqual([
      ["alice", 50],
      ["bob", 40],
      ["release-bot", 20],
    ]);
    const branches = await bench.get<{ name: string; push_access_levels: { access_level: number }[] }[]>(
      "/projects/opensource%2Ftoolkit/protected_branches",
    );
    expect(branches.map((b) => [b.name, b.push_access_levels.map((l) => l.access_level)])).toEqual([
      ["main", [40]],
      ["release/*", [0, null]],
    ]);
    for (const project of ["acme%2Fplatform%2Fapi", "acme%2Fplatform%2Fweb"])
      expect(
        (await bench.get<{ name: string }[]>(`/projects/${project}/protected_branches`)).map((b) => b.name),
      ).toEqual(["main"]);
    await expect(bench.get("/groups/acme%2Flegacy")).rejects.toThrow(/404/);
    await expect(bench.get("/projects/acme%2Flegacy%2Fmonolith")).rejects.toThrow(/404/);
    // The deleted group's export archive was saved first.
    const saved = readdirSync(backups);
    expect(saved).toEqual(["group-acme%2Flegacy.tar.gz"]);
    const archive = gunzipSync(readFileSync(join(backups, saved[0]!)));
    expect(archive.length).toBeGreaterThan(0);
  });
});
