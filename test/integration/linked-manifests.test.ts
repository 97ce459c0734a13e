/**
 * A checkout that shares manifests between environments through symbolic links: a templates file linked into each
 * environment's folder, a folder of teams linked in. A folder's walk skipped every link: the template was unknown
 * and the linked folder's groups were not planned (with `unmanaged: delete` above them, what they declare would
 * have been deleted). Links are followed inside the manifest root, by a plan, by each shard and by a plan in chunks.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

describe("manifests linked into the folder planned", () => {
  let bench: Bench;
  let dir: string;
  const prod = () => join(dir, "envs/prod");
  const addresses = (out: string) =>
    (JSON.parse(out) as PlanV1).changes
      .filter((c) => c.action !== "unmanaged")
      .map((c) => `${c.action} ${c.address}`)
      .sort();
  const plan = async (args: string[], env: Record<string, string> = {}) => {
    // The shared file named too: the manifest root is then the checkout, which the links stay inside.
    const run = await bench.cli(
      ["plan", "--format", "json", ...args, prod(), join(dir, "common/templates.yaml")],
      env,
    );
    expect(run.code, run.out + run.err).toBe(0);
    return addresses(run.out);
  };

  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "prod" }, { path: "teams" }] } });
    dir = mkdtempSync(join(tmpdir(), "forgeform-linked-"));
    const write = (name: string, text: string) => {
      mkdirSync(join(dir, name, ".."), { recursive: true });
      writeFileSync(join(dir, name), text);
    };
    write(
      "common/templates.yaml",
      "version: 1\ntemplates:\n  base:\n    description: from the shared template\n",
    );
    write(
      "common/teams/teams.yaml",
      "version: 1\ngroups:\n  teams:\n    description: the teams, linked in\n",
    );
    write("envs/prod/prod.yaml", "version: 1\ngroups:\n  prod:\n    extends: [base]\n");
    symlinkSync("../../common/templates.yaml", join(prod(), "templates.yaml"));
    symlinkSync("../../common/teams", join(prod(), "teams"));
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("plans what the links hold, in one run, in shards and in chunks", async () => {
    const whole = await plan([]);
    expect(whole).toEqual(['update group["prod"]', 'update group["teams"]']);
    const shards = [...(await plan(["--shard", "1/2"])), ...(await plan(["--shard", "2/2"]))];
    expect(shards.sort()).toEqual(whole);
    expect(await plan([], { FORGEFORM_CHUNK_UNITS: "1" })).toEqual(whole);
  });

  it("refuses the links when the root is the environment's folder alone, which they leave", async () => {
    const run = await bench.cli(["plan", prod()]);
    expect(run.code).toBe(1);
    expect(run.out + run.err).toContain("teams:1:1: the folder leads outside the manifest root");
    expect(run.out + run.err).toContain("templates.yaml:1:1: the file leads outside the manifest root");
    // And what to do about it: a root that holds the shared folder too, which then plans what the links hold.
    expect(run.out + run.err).toContain("to read it, give --root a folder that holds it too");
    const rooted = await bench.cli(["plan", "--format", "json", "--root", dir, prod()]);
    expect(rooted.code, rooted.err).toBe(0);
    expect(addresses(rooted.out)).toEqual(['update group["prod"]', 'update group["teams"]']);
  });
});
