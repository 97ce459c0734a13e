/**
 * The order apply carries steps out in, with a made-up kind that records each call (no platform): creates and
 * updates first, each after what it depends on; then deletes, deepest first, each after the deletes it waits for
 * (a project's own delete, with its backup, before its group's); then the creates and updates that wait for a
 * delete (a project archived once what is inside it, deletes included, is done); a failed step skips what waits
 * for it.
 */
import { describe, expect, it } from "vitest";
import { OutcomeUnknownError } from "../../src/api/index.js";
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
  action: "create" | "update" | "delete" | "replace",
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

describe("apply: creates whose outcome is unknown, and replaces", () => {
  /** What the made-up kinds below declare of themselves: a collection of things under the instance. */
  const THING = {
    collection: "things",
    segment: "thing",
    parents: ["instance"],
    updateMode: "update",
  } as const;
  /** A kind whose creates are lost (the platform made nothing) the first `lost` times; `others` are always there. */
  function losing(lost: number, others: string[] = []) {
    const calls: string[] = [];
    const made = new Map<string, number>();
    const kind: Kind = {
      ...THING,
      read: async (_ctx, _parent, wanted) => {
        calls.push(`read ${wanted.join(",")}`);
        return [
          ...others.map((key, i) => ({ key, id: 100 + i, fields: {} })),
          ...[...made].map(([key, id]) => ({ key, id, fields: {} })),
        ];
      },
      async create(_ctx, _parent, _desired, key) {
        calls.push(`create ${key}`);
        if (lost-- > 0) throw new OutcomeUnknownError("POST", "/things", new Error("socket hang up"));
        made.set(key, 7);
        return { key, id: 7, fields: {} };
      },
      async remove(_ctx, _parent, live) {
        calls.push(`delete ${live.key}`);
      },
    };
    return { calls, kind };
  }
  const api = (maxAttempts: number) =>
    ({
      api: { maxAttempts, metrics: { countReread() {} }, pause: async () => {} },
    }) as unknown as KindContext;

  it("sends a lost create again when re-reading finds only other objects", async () => {
    const { calls, kind } = losing(1, ["neighbour"]);
    const made = step(kind, "x", "create");
    const outcomes = await applySteps(api(3), [made], { concurrency: 1 });
    expect(outcomes).toEqual([{ address: "x", action: "create", status: "done" }]);
    expect(calls).toEqual(["create x", "read x", "create x"]);
    expect(made.self.ref).toBe(7);
  });

  it("gives up after the client's attempts, saying how often and why, and that nothing was created", async () => {
    const twice = losing(5);
    expect(await applySteps(api(2), [step(twice.kind, "x", "create")], { concurrency: 1 })).toEqual([
      {
        address: "x",
        action: "create",
        status: "failed",
        message:
          "POST /things: the outcome was unknown 2 times (last: socket hang up), and re-reading found nothing after each, so it was not created; apply again once the platform answers normally",
      },
    ]);
    expect(twice.calls).toEqual(["create x", "read x", "create x", "read x"]);
    const once = losing(5);
    const [outcome] = await applySteps(api(1), [step(once.kind, "x", "create")], { concurrency: 1 });
    expect(outcome!.message).toMatch(/^POST \/things: the outcome was unknown once \(last: socket hang up\)/);
    expect(once.calls).toEqual(["create x", "read x"]);
  });

  /**
   * A kind whose create is two requests (the object, then its finish, as a project's archive): the create is carried
   * out and its answer lost; the finish's answer is lost the first `lost` times, each after it was carried out.
   */
  function finishing(lost: number) {
    const calls: string[] = [];
    const pauses: number[] = [];
    let finished: boolean | undefined;
    const kind: Kind = {
      ...THING,
      read: async (_ctx, _parent, wanted) => {
        calls.push(`read ${wanted.join(",")}`);
        return finished === undefined ? [] : [{ key: "x", id: 7, fields: { finished } }];
      },
      async create(_ctx, _parent, _desired, key) {
        calls.push(`create ${key}`);
        finished = false;
        throw new OutcomeUnknownError("POST", "/things", new Error("socket hang up"));
      },
      async finishCreate(_ctx, _parent, found) {
        calls.push(`finish ${found.key} (finished: ${String(found.fields["finished"])})`);
        if (found.fields["finished"] === true) return found;
        finished = true;
        if (lost-- > 0)
          throw new OutcomeUnknownError("POST", "/things/7/finish", new Error("socket hang up"));
        return { ...found, fields: { finished } };
      },
    };
    const ctx = (maxAttempts: number) =>
      ({
        api: {
          maxAttempts,
          metrics: { countReread() {} },
          pause: async (round: number) => void pauses.push(round),
        },
      }) as unknown as KindContext;
    return { calls, pauses, kind, ctx };
  }

  it("finishes a create found on re-reading at once, and re-reads again when the finish's answer is lost", async () => {
    const { calls, pauses, kind, ctx } = finishing(1);
    const made = step(kind, "x", "create");
    expect(await applySteps(ctx(3), [made], { concurrency: 1 })).toEqual([
      { address: "x", action: "create", status: "done", recovered: true },
    ]);
    // The finish seen done on re-reading is not sent again; a pause only before what is sent again.
    expect(calls).toEqual([
      "create x",
      "read x",
      "finish x (finished: false)",
      "read x",
      "finish x (finished: true)",
    ]);
    expect(pauses).toEqual([2]);
    expect(made.self.ref).toBe(7);
    expect(made.self.live?.fields).toEqual({ finished: true });
  });

  it("finishes a create found on re-reading even when the client has one attempt, which the create used", async () => {
    const { calls, pauses, kind, ctx } = finishing(0);
    expect(await applySteps(ctx(1), [step(kind, "x", "create")], { concurrency: 1 })).toEqual([
      { address: "x", action: "create", status: "done", recovered: true },
    ]);
    expect(calls).toEqual(["create x", "read x", "finish x (finished: false)"]);
    expect(pauses).toEqual([]);
  });

  it("gives up finishing after the client's attempts, saying the object was made", async () => {
    const { kind, ctx } = finishing(5);
    // A finish whose answer is always lost, and that is never seen done.
    kind.finishCreate = async (_ctx, _parent, found) => {
      throw new OutcomeUnknownError(
        "POST",
        `/things/${String(found.id)}/finish`,
        new Error("socket hang up"),
      );
    };
    expect(await applySteps(ctx(2), [step(kind, "x", "create")], { concurrency: 1 })).toEqual([
      {
        address: "x",
        action: "create",
        status: "failed",
        message:
          "POST /things/7/finish: the outcome was unknown 2 times (last: socket hang up); the object was created, but what its create does after that may not be done: apply again once the platform answers normally",
      },
    ]);
  });

  it("replaces an object by deleting it, then creating it", async () => {
    const { calls, kind } = losing(0);
    const replaced = step(kind, "x", "replace");
    expect(await applySteps(api(1), [replaced], { concurrency: 1 })).toEqual([
      { address: "x", action: "replace", status: "done" },
    ]);
    expect(calls).toEqual(["delete x", "create x"]);
    expect(replaced.self.ref).toBe(7);
    // Without the live object there is nothing to delete, so nothing is created either.
    const unread = step(kind, "y", "replace");
    delete unread.live;
    expect(await applySteps(api(1), [unread], { concurrency: 1 })).toEqual([
      { address: "y", action: "replace", status: "failed", message: "this kind cannot be deleted" },
    ]);
    expect(calls).toEqual(["delete x", "create x"]);
  });

  it("fails a step whose parent has no id (it was never made), naming the parent", async () => {
    const { calls, kind } = losing(0);
    const orphan = step(kind, "x", "create");
    orphan.parent = { address: 'group["gone"]', collection: "groups", key: "gone" };
    expect(await applySteps(api(1), [orphan], { concurrency: 1 })).toEqual([
      {
        address: "x",
        action: "create",
        status: "failed",
        message: 'its parent group["gone"] does not exist',
      },
    ]);
    expect(calls).toEqual([]);
  });
});
