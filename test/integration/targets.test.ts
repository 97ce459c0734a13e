/** `--target` is a strict subtree, and a target that selects nothing is an error, never a green "no changes". */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [
    { path: "payments", description: "old" },
    { path: "payments/core", description: "old" },
    { path: "payments/core/ledger", description: "old" },
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

  it("a new group whose declared parent is outside the target and missing is a plan error saying what to add", async () => {
    const plan = await bench.cli(["plan", "--target", "staging/web", manifest]);
    expect(plan.code).toBe(1);
    expect(plan.out.replace(/\s+/g, " ")).toContain(
      "its parent group staging does not exist and is outside the plan's --target, so it is not created: add --target staging",
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

  it("instance is a target only when the manifests declare instance objects", async () => {
    const run = await bench.cli(["plan", "--target", "instance", manifest]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('--target "instance" matches nothing the manifests declare');
  });
});
