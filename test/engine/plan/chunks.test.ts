/**
 * A plan made in chunks merges its chunks' walks into one walk's order (src/engine/plan/chunks.ts): the root's
 * groups, then the instance's collections, then projects; top-level objects by their place in the manifests, each
 * with its steps together; undeclared objects after the declared, by their place in the read.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { AddressList } from "../../../src/engine/plan/addresses.js";
import type { Walked } from "../../../src/engine/plan/index.js";
import { LiveSeen, mergeWalks } from "../../../src/engine/plan/index.js";
import type { Place, Step } from "../../../src/engine/plan/types.js";
import { SecretValues } from "../../../src/manifest/secret.js";

function step(address: string): Step {
  return {
    change: { address, collection: "x", key: address, action: "update", fields: [] },
  } as unknown as Step;
}

/** A LiveSeen of these objects (address, fields as JSON). */
function seen(...objects: [string, string][]): LiveSeen {
  const s = new LiveSeen();
  for (const [address, fields] of objects) s.add(address, fields);
  return s;
}
const sha = (text: string) => createHash("sha256").update(text).digest("base64");

function walk(placed: [string, Place][], more: Partial<Walked> = {}): Walked {
  const steps = placed.map(([a]) => step(a));
  return {
    steps,
    places: new Map(steps.map((s, i) => [s, placed[i]![1]])),
    problems: [],
    warnings: [],
    inSync: new AddressList(),
    liveSeen: new LiveSeen(),
    createOnly: new Map(),
    secrets: new SecretValues([]),
    secretPairs: new Set(),
    replaceLeft: new Set(),
    summaries: [],
    ...more,
  };
}

describe("merging the walks of a plan's chunks", () => {
  it("puts the steps in one walk's order, each top-level object's steps together in its chunk's order", () => {
    const first = walk([
      ["group b", [0, 1, 0]],
      ["group b child", [0, 1, 0]],
      ["group b/undeclared", [0, 9, 3_000_000]],
      ["project b/p", [2, 0, 0]],
      ["instance hook", [1, 0, 0]],
      ["instance setting", [1, 0, 0]],
    ]);
    const second = walk([
      ["group a", [0, 0, 0]],
      ["group a/undeclared-2", [0, 9, 1]],
      ["group a/undeclared-1", [0, 9, 0]],
      ["group c/sub", [0, 2, 0]],
      ["project c/p", [2, 1, 0]],
    ]);
    expect(mergeWalks([first, second]).steps.map((s) => s.change.address)).toEqual([
      "group a",
      "group b",
      "group b child",
      "group c/sub",
      "group a/undeclared-1",
      "group a/undeclared-2",
      "group b/undeclared",
      "instance hook",
      "instance setting",
      "project b/p",
      "project c/p",
    ]);
  });

  it("refuses a step without a place rather than guess one", () => {
    const w = walk([["group a", [0, 0, 0]]]);
    w.steps.push(step("group lost"));
    expect(() => mergeWalks([w])).toThrow(/group lost has no place/);
  });

  it("keeps what every chunk found: problems, sync, live objects, secrets; --replace addresses no chunk met", () => {
    const merged = mergeWalks([
      walk([], {
        inSync: AddressList.from(["a"]),
        liveSeen: seen(["a", "{}"]),
        secrets: new SecretValues(["first-secret"]),
        secretPairs: new Set(["p1"]),
        replaceLeft: new Set(["x", "y"]),
        problems: [{ address: "a", message: "m1" }],
        createOnly: new Map([["s1", new Set(["d1"])]]),
      }),
      walk([], {
        inSync: AddressList.from(["b"]),
        liveSeen: seen(["b", "{}"], ["a", '{"x":1}']),
        secrets: new SecretValues(["second-secret"]),
        secretPairs: new Set(["p1", "p2"]),
        replaceLeft: new Set(["y", "z"]),
        warnings: [{ address: "b", message: "w1" }],
        createOnly: new Map([["s2", new Set(["d2"])]]),
      }),
    ]);
    expect(merged.inSync.toArray()).toEqual(["a", "b"]);
    expect(merged.liveSeen.entries()).toEqual([
      ["a", sha("{}")],
      ["b", sha("{}")],
      ["a", sha('{"x":1}')],
    ]);
    expect(merged.secrets.text("first-secret second-secret")).not.toMatch(/first-secret|second-secret/);
    expect([...merged.secretPairs]).toEqual(["p1", "p2"]);
    expect([...merged.replaceLeft]).toEqual(["y"]);
    expect(merged.problems.map((p) => p.message)).toEqual(["m1"]);
    expect(merged.warnings.map((p) => p.message)).toEqual(["w1"]);
    expect([...merged.createOnly.keys()]).toEqual(["s1", "s2"]);
  });
});
