/**
 * What the plan says of a replacement when the kind gives no reason of its own (src/engine/plan/item.ts), with
 * made-up kinds and live objects (no platform), as test/engine/plan/phases.test.ts does: every kind shipped today
 * that may be replaced names its reason (`noUpdate` or `replaceReason`), so this default is what a kind added
 * later without one shows. docs/engine-sample-survivors.txt lists the mutants these tests were written for.
 */
import { describe, expect, it } from "vitest";
import { PlanState } from "../../src/engine/plan/state.js";
import { INSTANCE, type Step } from "../../src/engine/plan/types.js";
import { walkNode } from "../../src/engine/plan/walk.js";
import { fieldSpecsFromSchema } from "../../src/kinds/fields.js";
import type { Kind, KindContext, Live } from "../../src/kinds/kind.js";
import type { DesiredNode } from "../../src/manifest/model.js";
import { SecretValues } from "../../src/manifest/secret.js";

/** A widget's fields: `interval` cannot change in place (x-replace), `name` can. */
const specs = fieldSpecsFromSchema({
  type: "object",
  properties: {
    name: { type: "string" },
    interval: { type: "string", "x-replace": true },
  },
});

const node = (key: string, fields: Record<string, unknown>, children: DesiredNode["children"] = {}) =>
  ({
    key,
    fields,
    fieldSources: {},
    children,
    source: { file: "m.yaml", line: 4, col: 5 },
  }) as DesiredNode;

/** A kind of the instance that reads `live`, creates, updates and deletes (so that it may be replaced). */
const widgets = (live: Live[], extra: Partial<Kind> = {}): Kind => ({
  collection: "widgets",
  segment: "widget",
  parents: ["instance"],
  updateMode: "update",
  read: async () => live,
  create: async (_ctx, _parent, _desired, key) => ({ key, id: key, fields: {} }),
  update: async () => undefined,
  remove: async () => undefined,
  ...extra,
});

/** Plans one declared widget against one live widget and returns the steps and problems. */
async function plan(kind: Kind, declared: Record<string, unknown>) {
  const ctx = { api: { concurrency: 4, conceal: () => {} }, memo: new Map(), edition: "licensed" };
  const registry = {
    kind: (parent: string, collection: string) =>
      parent === "instance" && collection === "widgets" ? kind : undefined,
    fields: () => specs,
  };
  const root = node("instance", {}, { widgets: { policy: "ignore", items: [node("w1", declared)] } });
  const state = new PlanState(
    {
      ctx: ctx as unknown as KindContext,
      registry,
      targets: [],
      replace: new Set(),
      backup: undefined,
      secrets: new SecretValues([]),
      byPath: new Set(),
      changes: undefined,
      shardUnits: undefined,
    },
    root,
  );
  const steps: Step[] = [];
  await walkNode(state, root, INSTANCE, true, 0, steps);
  return { steps: steps.map((s) => s.change), problems: state.problems };
}

const live: Live[] = [{ key: "w1", id: 1, fields: { name: "w1", interval: "1h" } }];

describe("a replacement's reason when the kind gives none", () => {
  it("says a changed field cannot be updated in place, for a field that forces replacement", async () => {
    const { steps, problems } = await plan(widgets(live), { name: "w1", interval: "2h" });
    expect(problems).toEqual([]);
    expect(steps).toEqual([
      expect.objectContaining({
        address: 'instance.widget["w1"]',
        action: "replace",
        reason: "a changed field cannot be updated in place",
        fields: [
          expect.objectContaining({ field: "interval", before: "1h", after: "2h", forcesReplacement: true }),
        ],
      }),
    ]);
  });

  it("says the same of a kind that is always replaced, and the kind's own reason when it has one", async () => {
    const always = await plan(widgets(live, { updateMode: "replace" }), { name: "w2", interval: "1h" });
    expect(always.steps.map((s) => [s.action, s.reason])).toEqual([
      ["replace", "a changed field cannot be updated in place"],
    ]);
    const own = await plan(
      widgets(live, { updateMode: "replace", replaceReason: "widgets have no update call in the API" }),
      { name: "w2", interval: "1h" },
    );
    expect(own.steps.map((s) => [s.action, s.reason])).toEqual([
      ["replace", "widgets have no update call in the API"],
    ]);
    // A change in place has no reason to give.
    const inPlace = await plan(widgets(live), { name: "w2", interval: "1h" });
    expect(inPlace.steps.map((s) => [s.action, s.reason])).toEqual([["update", undefined]]);
  });
});
