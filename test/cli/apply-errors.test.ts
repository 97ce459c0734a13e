/**
 * `forgeform apply` refusing or failing (src/cli/apply.ts), in-process against a sandbox that answers every group
 * create with a 500 (and, for a plan with errors, one that answers): the message, the exit code, and that nothing
 * was applied.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "../integration/helpers.js";

let bench: Bench;
let manifest: string;
let saved: string;
beforeAll(async () => {
  bench = await Bench.start({ faults: "500:1@POST/api/v4/groups" });
  manifest = bench.manifest("version: 1\ngroups:\n  acme: {}\n  acme/sub: {}\n");
  saved = join(bench.dir, "plan.json");
  expect((await bench.cli(["plan", "--out", saved, manifest])).code).toBe(0);
});
afterAll(async () => {
  await bench.stop();
});

const SAVED_PLAN_FLAGS =
  "forgeform: --target, --replace, --changed-since and --root are part of a saved plan: give them to `forgeform plan --out`, not to `apply --plan`\n";

describe("apply --plan refuses", () => {
  it.each([
    {
      name: "manifest paths too",
      args: () => [manifest],
      err: "forgeform: give either manifest paths or --plan, not both\n",
    },
    { name: "--target", args: () => ["--target", "acme"], err: SAVED_PLAN_FLAGS },
    { name: "--replace", args: () => ["--replace", 'group["acme"]'], err: SAVED_PLAN_FLAGS },
    { name: "--changed-since", args: () => ["--changed-since", "HEAD"], err: SAVED_PLAN_FLAGS },
    { name: "--root", args: () => ["--root", bench.dir], err: SAVED_PLAN_FLAGS },
  ])("$name", async ({ args, err }) => {
    const run = await bench.cli(["apply", "--yes", "--plan", saved, ...args()]);
    expect(run).toEqual({ code: 1, out: "", err });
  });

  it("a plan whose manifests changed since it was made", async () => {
    const changing = bench.manifest("version: 1\ngroups:\n  beta: {}\n", "changing.yaml");
    const plan = join(bench.dir, "changing.json");
    expect((await bench.cli(["plan", "--out", plan, changing])).code).toBe(0);
    writeFileSync(changing, "version: 1\ngroups:\n  gamma: {}\n");
    const run = await bench.cli(["apply", "--yes", "--plan", plan]);
    expect(run).toEqual({
      code: 1,
      out: "",
      err: `forgeform: refusing to apply ${plan}: the manifests changed since the plan was made (${changing} changed): run plan again and review the new plan.\n`,
    });
  });
});

describe("apply refuses", () => {
  it("manifests that do not load, printing why", async () => {
    const bad = bench.manifest("version: 1\ngroups:\n  acme:\n    bogus: 1\n", "bad.yaml");
    expect(await bench.cli(["apply", "--yes", bad])).toEqual({
      code: 1,
      out: "",
      err:
        `${bad}:4:5: groups.acme.bogus: unknown key "bogus": it is none of the 31 keys Group allows (see schemas/); a setting newer than this version of forgeform goes under unchecked: (sent and compared as written)\n` +
        "1 error: nothing was sent to the platform.\n",
    });
  });

  it.each(["-1", "1.5", "two", "", " ", " 3", "1e2", "0x10", "99999999999999999"])(
    "--max-deletes %j: a count is a whole number, 0 or more, in digits",
    async (value) => {
      expect(await bench.cli(["apply", "--yes", "--max-deletes", value, manifest])).toEqual({
        code: 1,
        out: "",
        err: `forgeform: --max-deletes must be a whole number, not ${JSON.stringify(value)}\n`,
      });
    },
  );

  it("--changed-since outside a git checkout", async () => {
    expect(await bench.cli(["apply", "--yes", "--changed-since", "HEAD", manifest])).toEqual({
      code: 1,
      out: "",
      err: `forgeform: --changed-since needs a git checkout, and ${bench.dir} is not inside one\n`,
    });
  });

  it("--format json without --yes: the plan, with no outcomes, on stdout", async () => {
    const run = await bench.cli(["apply", "--format", "json", manifest]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      "forgeform: apply --format json needs --yes (there is no confirmation to answer). Nothing was applied.\n",
    );
    const doc = JSON.parse(run.out) as { kind: string; summary: { create: number }; outcomes: unknown[] };
    expect(doc).toMatchObject({ kind: "apply", summary: { create: 2 }, outcomes: [] });
    expect(await bench.get("/groups")).toEqual([]);
  });
});

describe("apply that fails part way", () => {
  it("lists each change's outcome, then says what to do, and exits 1", async () => {
    const run = await bench.cli(["apply", "--yes", manifest]);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      '+ group["acme"]: failed: POST /groups -> 500 Internal Server Error: 500 Internal Server Error\n' +
        '+ group["acme/sub"]: skipped: skipped because group["acme"] was not applied\n' +
        "\nApply incomplete: 0 done, 1 failed, 1 skipped.\n",
    );
    expect(run.err).toBe(
      "forgeform: some changes were not applied (above). Fix the cause and run apply again: it picks up where this left off.\n",
    );
    expect(await bench.get("/groups")).toEqual([]);
  });
});

describe("apply with plan errors", () => {
  it("applies none of the plan's changes, and says why", async () => {
    const sound = await Bench.start({
      fixture: { groups: [{ path: "corp" }, { path: "corp/west" }, { path: "corp/west/team" }] },
    });
    try {
      // corp/west/team declared under corp/east: a group is not moved (a plan error); corp's update is sound.
      const moved = sound.manifest(
        "version: 1\ngroups:\n  corp:\n    description: changed\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n",
      );
      const run = await sound.cli(["apply", "--yes", moved]);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/\nErrors \(\d+\):\n/);
      expect(run.err).toBe(
        "forgeform: the plan has errors (above); nothing was applied. Fix them and run again.\n",
      );
      expect((await sound.get<{ description: string }>("/groups/corp")).description).toBe("");
    } finally {
      await sound.stop();
    }
  });
});
