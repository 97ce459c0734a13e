/** `--target` is a strict subtree, and a target that selects nothing is an error, never a green "no changes". */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { copyExamples, EXAMPLES_ENV, EXAMPLES_FIXTURE } from "./examples.js";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [
    { path: "payments", description: "old" },
    { path: "payments/core", description: "old" },
    { path: "payments/core/ledger", description: "old" },
    // Siblings whose names start with a target's letters: never in that target's subtree.
    { path: "payments-old", description: "old" },
    { path: "payments/core2", description: "old" },
  ],
};

interface ApiGroup {
  description: string;
}

describe("--target", () => {
  let bench: Bench;
  let manifest: string;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    manifest = bench.manifest(`version: 1
groups:
  payments: { description: P }
  payments/core: { description: C }
  payments/core/ledger: { description: L }
  payments/core/ledger/fresh: { description: N }
  payments-old: { description: O }
  payments/core2: { description: C2 }
  staging: {}
  staging/web: {}
`);
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("plans and applies only the subtree: ancestors are read, never changed", async () => {
    const plan = await bench.cli(["plan", "--target", "payments/core/ledger", manifest]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(plan.out).toContain('~ group["payments/core/ledger"] will be updated in place');
    expect(plan.out).toContain('+ group["payments/core/ledger/fresh"] will be created');
    expect(plan.out).not.toContain('group["payments"] ');
    expect(plan.out).not.toContain('group["payments/core"] ');
    expect(plan.out.trim().split("\n").at(-1)).toBe(
      "Plan: 1 to create, 1 to update, 0 to replace, 0 to delete.",
    );
    const apply = await bench.cli(["apply", "--yes", "--target", "payments/core/ledger", manifest]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect((await bench.get<ApiGroup>("/groups/payments")).description).toBe("old");
    expect((await bench.get<ApiGroup>("/groups/payments%2Fcore")).description).toBe("old");
    expect((await bench.get<ApiGroup>("/groups/payments%2Fcore%2Fledger")).description).toBe("L");
    expect((await bench.get<ApiGroup>("/groups/payments%2Fcore%2Fledger%2Ffresh")).description).toBe("N");
  });

  it("a target is whole path segments: payments/core leaves payments/core2 alone, payments leaves payments-old", async () => {
    const core = await bench.cli(["plan", "--format", "json", "--target", "payments/core", manifest]);
    expect(core.code, core.err).toBe(0);
    const addresses = (run: { out: string }) =>
      (JSON.parse(run.out) as { changes: { address: string }[] }).changes.map((c) => c.address);
    expect(addresses(core)).toContain('group["payments/core"]');
    expect(addresses(core).filter((a) => !a.startsWith('group["payments/core/'))).toEqual([
      'group["payments/core"]',
    ]);
    const payments = await bench.cli(["plan", "--format", "json", "--target", "payments", manifest]);
    expect(payments.code, payments.err).toBe(0);
    expect(addresses(payments)).toContain('group["payments/core2"]');
    expect(addresses(payments).filter((a) => a.includes("payments-old"))).toEqual([]);
    const pay = await bench.cli(["plan", "--target", "pay", manifest]);
    expect(pay.code).toBe(1);
    expect(pay.err).toContain('--target "pay" matches nothing the manifests declare');
  });

  it("a new group whose declared parent is outside the target and missing is a plan error saying what to add", async () => {
    const plan = await bench.cli(["plan", "--target", "staging/web", manifest]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\s+/g, " ")).toContain(
      "its parent group staging does not exist and is outside the plan's --target (or, under --changed-since, its entry did not change), so it is not created: add --target staging (or apply without --changed-since first)",
    );
  });

  for (const command of ["plan", "apply", "drift"]) {
    it(`${command}: a target that matches nothing declared is an error with a did-you-mean`, async () => {
      const run = await bench.cli([
        command,
        ...(command === "apply" ? ["--yes"] : []),
        "--target",
        "paymnts",
        manifest,
      ]);
      expect(run.code).toBe(1);
      expect(run.err).toContain(
        '--target "paymnts" matches nothing the manifests declare; did you mean "payments"?',
      );
      expect(run.out).toBe("");
    });
  }

  it("a target is the same path with or without slashes around it", async () => {
    // The ancestors still differ (the first test changed only the ledger's subtree).
    const drift = await bench.cli(["drift", "--target", "payments/", manifest]);
    expect(drift.code, drift.out + drift.err).toBe(2);
    expect(drift.out).toContain("Limited to targets: payments\n");
    expect(drift.out).toContain('group["payments/core"]');
    const plan = await bench.cli(["plan", "--format", "json", "--target", "/staging//", manifest]);
    expect(JSON.parse(plan.out).targets).toEqual(["staging"]);
    const typo = await bench.cli(["drift", "--target", "paymnts/", manifest]);
    expect(typo.code).toBe(1);
    expect(typo.err).toContain(
      '--target "paymnts" matches nothing the manifests declare; did you mean "payments"?',
    );
    const empty = await bench.cli(["plan", "--target", "/", manifest]);
    expect(empty.code).toBe(1);
    expect(empty.err).toContain('--target "/" is empty');
  });

  it("a target may be written as the plan names its group, and never names one object inside it", async () => {
    const plan = await bench.cli(["plan", "--format", "json", "--target", 'group["staging"]', manifest]);
    expect(plan.code, plan.out + plan.err).toBe(0);
    expect(JSON.parse(plan.out).targets).toEqual(["staging"]);
    const inside = await bench.cli(["plan", "--target", 'group["staging"].badge["docs"]', manifest]);
    expect(inside.code).toBe(1);
    expect(inside.out).toBe("");
    expect(inside.err).toContain("names one object; a target is a group or project path");
    expect(inside.err).toContain('use --target "staging"');
  });

  it("instance is a target only when the manifests declare instance objects", async () => {
    const run = await bench.cli(["plan", "--target", "instance", manifest]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('--target "instance" matches nothing the manifests declare');
  });
});

describe("--target below a pattern", () => {
  let bench: Bench;
  let manifests: string[];
  beforeAll(async () => {
    bench = await Bench.start({ fixture: EXAMPLES_FIXTURE, edition: "licensed" });
    manifests = copyExamples(bench.dir);
  });
  afterAll(async () => {
    await bench.stop();
  });

  for (const command of ["plan", "drift"]) {
    it(`${command}: a typo under a pattern's root is an error once the platform has said what the pattern matches`, async () => {
      const run = await bench.cli([command, "--target", "acme/platfrom/api", ...manifests], EXAMPLES_ENV);
      expect(run.code, run.out + run.err).toBe(1);
      expect(run.err).toContain(
        '--target "acme/platfrom/api" matches nothing the manifests declare, nor anything their patterns match on the platform; did you mean "acme/platform/api"?',
      );
      expect(run.out).toBe("");
    });
  }

  it("a project only a pattern matches is a target", async () => {
    const run = await bench.cli(
      ["plan", "--format", "json", "--target", "acme/platform/web", ...manifests],
      EXAMPLES_ENV,
    );
    expect(run.code, run.err).toBe(0);
    const plan = JSON.parse(run.out) as { changes: { address: string }[] };
    expect(plan.changes.length).toBeGreaterThan(0);
    expect(plan.changes.every((c) => c.address.startsWith('project["acme/platform/web"]'))).toBe(true);
  });
});
