/**
 * The order apply carries steps out in, with a made-up kind that records each call (no platform): creates and
 * updates first, each after what it depends on; then deletes, deepest first, each after the deletes it waits for
 * (a project's own delete, with its backup, before its group's); then the creates and updates that wait for a
 * delete (a project archived once what is inside it, deletes included, is done); a failed step skips what waits
 * for it.
 */
import { describe, expect, it } from "vitest";
import { applySteps } from "../../src/engine/apply.js";
import type { Step } from "../../src/engine/plan/types.js";
import type { Kind, KindContext } from "../../src/kinds/kind.js";

function recorder(fail: ReadonlySet<string> = new Set()) {
  const calls: string[] = [];
  const record = async (what: string, key: string) => {
    // Let other steps run in between, so that an order that is not enforced shows.
    await new Promise((resolve) => setTimeout(resolve, key.length % 3));
    if (fail.has(key)) throw new Error(`${key} failed`);
    calls.push(`${what} ${key}`);
  };
  const kind: Kind = {
    collection: "things",
    segment: "thing",
    parents: ["instance"],
    updateMode: "update",
    read: async () => [],
    async create(_ctx, _parent, _desired, key) {
      await record("create", key);
      return { key, id: key, fields: {} };
    },
    async update(_ctx, _parent, live) {
      await record("update", live.key);
      return undefined;
    },
    async remove(_ctx, _parent, live) {
      await record("delete", live.key);
    },
  };
  return { calls, kind };
}

const INSTANCE = { address: "instance", collection: "instance", key: "instance", ref: "instance" };

function step(
  kind: Kind,
  key: string,
  action: "create" | "update" | "delete",
  deps: string[] = [],
  depth = 0,
): Step {
  return {
    change: { address: key, collection: "things", key, action, fields: [] },
    kind,
    parent: INSTANCE,
    self: { address: key, collection: "things", key },
    key,
    ...(action === "create" ? { desired: {} } : { desired: {}, live: { key, id: key, fields: {} } }),
    changed: [],
    deps,
    depth,
  };
}

const ctx = { api: { maxAttempts: 1 } } as unknown as KindContext;

describe("the order of apply", () => {
  it("runs an update that waits for a delete after the deletes, and what waits for that update after it", async () => {
    const { calls, kind } = recorder();
    const steps = [
      step(kind, "archive project", "update", ["delete badge"]),
      step(kind, "after archive", "update", ["archive project"]),
      step(kind, "new badge", "create"),
      step(kind, "delete badge", "delete", [], 1),
    ];
    const outcomes = await applySteps(ctx, steps, { concurrency: 4 });
    expect(outcomes.filter((o) => o.status !== "done")).toEqual([]);
    expect(calls.indexOf("update archive project")).toBeGreaterThan(calls.indexOf("delete delete badge"));
    expect(calls.indexOf("update after archive")).toBeGreaterThan(calls.indexOf("update archive project"));
    expect(calls.indexOf("create new badge")).toBeLessThan(calls.indexOf("delete delete badge"));
  });

  it("runs a delete after the deletes of its depth it waits for, whatever their order in the plan", async () => {
    for (const order of [
      ["group", "project"],
      ["project", "group"],
    ]) {
      const { calls, kind } = recorder();
      const made = {
        group: step(kind, "group", "delete", ["project"]),
        project: step(kind, "project", "delete"),
      };
      await applySteps(
        ctx,
        order.map((k) => made[k as keyof typeof made]),
        { concurrency: 4 },
      );
      expect(calls).toEqual(["delete project", "delete group"]);
    }
  });

  it("skips a delete whose prerequisite delete failed, and a late update whose delete failed", async () => {
    const { calls, kind } = recorder(new Set(["project"]));
    const outcomes = await applySteps(
      ctx,
      [
        step(kind, "group", "delete", ["project"]),
        step(kind, "project", "delete"),
        step(kind, "archive", "update", ["project"]),
      ],
      { concurrency: 4 },
    );
    expect(Object.fromEntries(outcomes.map((o) => [o.address, o.status]))).toEqual({
      group: "skipped",
      project: "failed",
      archive: "skipped",
    });
    expect(calls).toEqual([]);
  });
});

describe("apply: order and outcomes, further", () => {
  it("runs what waits for a late update after it, wherever it stands in the plan", async () => {
    const { calls, kind } = recorder();
    const steps = [
      step(kind, "after archive", "update", ["archive project"]),
      step(kind, "archive project", "update", ["delete badge"]),
      step(kind, "delete badge", "delete", [], 1),
    ];
    const outcomes = await applySteps(ctx, steps, { concurrency: 4 });
    expect(outcomes.map((o) => o.status)).toEqual(["done", "done", "done"]);
    expect(calls).toEqual(["delete delete badge", "update archive project", "update after archive"]);
  });

  it("deletes one depth at a time, deepest first, even with nothing to wait for", async () => {
    const { calls, kind } = recorder();
    // The group's delete would finish first if both started together.
    await applySteps(ctx, [step(kind, "grp", "delete", [], 0), step(kind, "proj1", "delete", [], 1)], {
      concurrency: 4,
    });
    expect(calls).toEqual(["delete proj1", "delete grp"]);
  });

  it("sends nothing for a delete the platform makes along with another, and shares its outcome", async () => {
    const { calls, kind } = recorder();
    const sub = step(kind, "sub", "delete", [], 1);
    sub.change.deletedWith = "grp";
    const outcomes = await applySteps(ctx, [sub, step(kind, "grp", "delete", [], 0)], { concurrency: 4 });
    expect(calls).toEqual(["delete grp"]);
    // A delete is never "recovered": only a create whose outcome was unknown is.
    expect(outcomes).toEqual([
      { address: "sub", action: "delete", status: "done" },
      { address: "grp", action: "delete", status: "done" },
    ]);
  });

  it("fails a delete that has no live object to delete, saying so, and sends nothing", async () => {
    const { calls, kind } = recorder();
    const unread = step(kind, "ghost", "delete");
    delete unread.live;
    const outcomes = await applySteps(ctx, [unread], { concurrency: 4 });
    expect(outcomes).toEqual([
      { address: "ghost", action: "delete", status: "failed", message: "this kind cannot be deleted" },
    ]);
    expect(calls).toEqual([]);
  });
});
