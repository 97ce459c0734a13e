/**
 * The planner's phases as units, each with a made-up kind and live objects (no platform): matching by identity and
 * naming what the manifests do not declare (match.ts, mask.ts), the diff of one object (diff.ts), the order and the
 * dependencies of the steps (order.ts), the live digest (digest.ts), and a read that fails (read.ts).
 */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/api/index.js";
import {
  createdFields,
  deletedFields,
  fieldChanges,
  writeOnlyChanges,
} from "../../../src/engine/plan/diff.js";
import { LiveSeen } from "../../../src/engine/plan/digest.js";
import { mask, maskedFields } from "../../../src/engine/plan/mask.js";
import { match } from "../../../src/engine/plan/match.js";
import { byPlace, linkDependencies, order } from "../../../src/engine/plan/order.js";
import { readCollection } from "../../../src/engine/plan/read.js";
import { PlanState } from "../../../src/engine/plan/state.js";
import type { Step } from "../../../src/engine/plan/types.js";
import { planUndeclared } from "../../../src/engine/plan/unmanaged.js";
import { fieldSpecsFromSchema } from "../../../src/kinds/fields.js";
import type { Kind, KindContext, Live, Parent } from "../../../src/kinds/kind.js";
import type { DesiredCollection, DesiredNode } from "../../../src/manifest/model.js";
import { Secret, SecretValues } from "../../../src/manifest/secret.js";
import type { PlanProblem } from "../../../src/plan/model.js";

/** A kind's fields as its schema would declare them. */
const specs = fieldSpecsFromSchema({
  type: "object",
  properties: {
    name: { type: "string" },
    color: { type: "string", "x-normalize": "lowercase" },
    tags: { type: "array", uniqueItems: true },
    api_key: { type: "string", "x-sensitive": true },
    token: { type: "string", writeOnly: true },
    interval: { type: "string", "x-replace": true },
    level: { enum: [30, 40, "developer", "maintainer"], "x-normalize": "access-level" },
    members: { type: "array" },
  },
});

function context(): { ctx: KindContext; concealed: string[] } {
  const concealed: string[] = [];
  const api = {
    concurrency: 8,
    conceal: (values: string[]) => concealed.push(...values),
  };
  return { ctx: { api, memo: new Map(), edition: "licensed" } as unknown as KindContext, concealed };
}

const kind = (extra: Partial<Kind> = {}): Kind => ({
  collection: "widgets",
  segment: "widget",
  parents: ["projects"],
  updateMode: "update",
  read: async () => [],
  ...extra,
});

const node = (
  key: string,
  fields: Record<string, unknown> = {},
  more: Partial<DesiredNode> = {},
): DesiredNode =>
  ({
    key,
    fields,
    fieldSources: {},
    children: {},
    source: { file: "m.yaml", line: 1, col: 1 },
    ...more,
  }) as DesiredNode;

function state(secrets: string[] = []): { state: PlanState; concealed: string[] } {
  const { ctx, concealed } = context();
  const registry = { kind: () => undefined, fields: () => specs };
  return {
    state: new PlanState(
      {
        ctx,
        registry,
        targets: [],
        replace: new Set(),
        backup: undefined,
        secrets: new SecretValues(secrets),
        byPath: new Set(),
        changes: undefined,
        shardUnits: undefined,
      },
      node("instance"),
    ),
    concealed,
  };
}

describe("match: identities and the names of undeclared live objects", () => {
  it("pairs each declared object with the live one of its identity, and lists the rest in order read", () => {
    const { state: s } = state();
    const items = [node("a"), node("b")];
    const lives: Live[] = [
      { key: "c", id: 3, fields: {} },
      { key: "a", id: 1, fields: {} },
      { key: "x", id: 9, fields: {}, readOnly: "inherited" },
      { key: "d", id: 4, fields: {} },
    ];
    const m = match(s, kind(), { policy: "warn", items } as DesiredCollection, items, lives);
    expect(m.liveOf(items[0]!)?.id).toBe(1);
    expect(m.liveOf(items[1]!)).toBeUndefined();
    // Read-only objects (a group's badge in a project's list) are never unmanaged here.
    expect(m.undeclared.map((l) => l.key)).toEqual(["c", "d"]);
    expect(m.shownOf(m.undeclared[0]!)).toEqual({ label: "c", id: 3 });
    expect([...m.scope.declared]).toEqual(["a", "b"]);
    expect(m.scope.policy).toBe("warn");
  });

  it("tells the kinds which identities the plan deletes and which it keeps", () => {
    const { state: s } = state();
    const items = [node("a"), node("b", {}, { state: "absent" })];
    const m = match(s, kind(), { policy: "delete", items } as DesiredCollection, items, []);
    expect([...m.scope.planned.keys()]).toEqual(["a"]);
    expect([...m.scope.absent]).toEqual(["b"]);
    expect(m.scope.policy).toBe("delete");
  });

  it("masks an undeclared object named after a secret of the run, its id when the id is a name, and in --debug", () => {
    const { state: s, concealed } = state(["Zq7sekrit9"]);
    const items: DesiredNode[] = [];
    const lives: Live[] = [
      { key: "page-Zq7sekrit9", id: "page-Zq7sekrit9", fields: {} },
      { key: "hook Zq7sekrit9", id: 12, fields: {} },
      { key: "other-Zq7sekrit9", id: "other-Zq7sekrit9", fields: {} },
    ];
    const m = match(s, kind(), { policy: "warn", items } as DesiredCollection, items, lives);
    expect(lives.map((l) => m.shownOf(l))).toEqual([
      { label: "page-(sensitive) (#1)" },
      { label: "hook (sensitive) (id 12)", id: 12 },
      { label: "other-(sensitive) (#1)" },
    ]);
    expect(concealed).toEqual([
      "page-Zq7sekrit9",
      "page-Zq7sekrit9",
      "hook Zq7sekrit9",
      "other-Zq7sekrit9",
      "other-Zq7sekrit9",
    ]);
  });

  it("shows an old value of a declared secret identity (a rotated hook key) in the declaration's masked shape", () => {
    const { state: s } = state(["new-key-value"]);
    const declared = node(
      "https://h.example/?key=new-key-value",
      {},
      { label: "https://h.example/?key=(sensitive)" },
    );
    const old: Live = { key: "https://h.example/?key=old-key-value", id: 7, fields: {} };
    const m = match(s, kind(), { policy: "warn", items: [declared] } as DesiredCollection, [declared], [old]);
    expect(m.shownOf(old)).toEqual({ label: "https://h.example/?key=(sensitive) (id 7)", id: 7 });
    expect(m.like(old)).toBe(declared);
    // Only that shape: another hook, or one that differs where the declaration has a dot, is not taken for it; its
    // key's credential is masked all the same (a secret no manifest names any more).
    const others: Live[] = [
      { key: "https://other.example/hook", id: 8, fields: {} },
      { key: "https://hXexample/?key=old-key-value", id: 9, fields: {} },
    ];
    const n = match(
      s,
      kind(),
      { policy: "warn", items: [declared] } as DesiredCollection,
      [declared],
      others,
    );
    expect(others.map((l) => n.shownOf(l))).toEqual([
      { label: "https://other.example/hook", id: 8 },
      { label: "https://hXexample/?key=(sensitive) (id 9)", id: 9 },
    ]);
    expect(n.like(others[0]!)).toBeUndefined();
    expect(n.like(others[1]!)).toBeUndefined();
  });

  it("tells apart undeclared objects whose names mask alike", () => {
    const { state: s } = state(["Zq7sekrit9", "Xy8other77"]);
    const lives: Live[] = [
      { key: "page-Zq7sekrit9", id: "page-Zq7sekrit9", fields: {} },
      { key: "page-Xy8other77", id: "page-Xy8other77", fields: {} },
    ];
    const m = match(s, kind(), { policy: "warn", items: [] } as DesiredCollection, [], lives);
    expect(lives.map((l) => m.shownOf(l))).toEqual([
      { label: "page-(sensitive) (#1)" },
      { label: "page-(sensitive) (#2)" },
    ]);
  });
});

describe("mask: what a plan may show of a value", () => {
  it("masks write-only, sensitive and secret values, and the live side of a secret declaration", () => {
    expect(mask(specs, "token", "t")).toBe("(write-only)");
    expect(mask(specs, "api_key", "k")).toBe("(sensitive)");
    expect(mask(specs, "api_key", "")).toBe("");
    expect(mask(specs, "api_key", null)).toBeNull();
    expect(mask(specs, "name", new Secret("v", "env:V"))).toBe("(sensitive)");
    expect(mask(specs, "name", "live", true)).toBe("(sensitive)");
    expect(mask(specs, "name", ["a", new Secret("v", "env:V")])).toEqual(["a", "(sensitive)"]);
    expect(mask(specs, "name", "plain")).toBe("plain");
    expect(mask(specs, "name", undefined)).toBeUndefined();
    expect(maskedFields(specs, { name: "live", api_key: "k" }, { name: new Secret("x", "env:X") })).toEqual({
      name: "(sensitive)",
      api_key: "(sensitive)",
    });
  });
});

describe("diff: one object's changes", () => {
  const { ctx } = context();
  const live: Live = {
    key: "w",
    id: 1,
    fields: { name: "w", color: "RED", tags: ["a", "b"], api_key: "old" },
  };

  it("compares only the fields declared, in the schema's terms, never write-only ones", async () => {
    const changes = await fieldChanges(
      ctx,
      kind(),
      specs,
      { color: "red", tags: ["b", "a"], token: "t" },
      live,
    );
    expect(changes).toEqual([]);
    const changed = await fieldChanges(
      ctx,
      kind(),
      specs,
      { name: "v", api_key: "new", interval: "1h" },
      live,
    );
    expect(changed).toEqual([
      { field: "name", before: "w", after: "v" },
      { field: "api_key", before: "(sensitive)", after: "(sensitive)", sensitive: true },
      { field: "interval", after: "1h", forcesReplacement: true },
    ]);
  });

  it("masks the credentials of URLs on both sides, in lists too, and guesses only on the platform's side", async () => {
    const SLACK = "https://hooks.slack.com/services/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";
    const was: Live = {
      key: "w",
      id: 1,
      fields: { name: `${SLACK}?token=t1`, tags: ["https://u:p@h.example/", SLACK, "plain"] },
    };
    const changes = await fieldChanges(
      ctx,
      kind(),
      specs,
      { name: `${SLACK}?token=t2`, tags: ["https://u:q@h.example/", SLACK] },
      was,
    );
    const masked = "https://hooks.slack.com/services/T0123ABCD/B0456EFGH/(sensitive)";
    expect(changes).toEqual([
      // The manifest's side: what names say is masked (a token in git is one still), what only looks random is not.
      { field: "name", before: `${masked}?token=(sensitive)`, after: `${SLACK}?token=(sensitive)` },
      {
        field: "tags",
        before: ["https://u:(sensitive)@h.example/", masked, "plain"],
        after: ["https://u:(sensitive)@h.example/", SLACK],
      },
    ]);
    expect(await deletedFields(ctx, kind(), specs, was, undefined)).toEqual([
      { field: "name", before: `${masked}?token=(sensitive)` },
      { field: "tags", before: ["https://u:(sensitive)@h.example/", masked, "plain"] },
    ]);
  });

  it("compares access levels as numbers and shows them by name", async () => {
    const at30: Live = { key: "w", id: 1, fields: { level: 30 } };
    expect(await fieldChanges(ctx, kind(), specs, { level: "developer" }, at30)).toEqual([]);
    expect(await fieldChanges(ctx, kind(), specs, { level: 40 }, at30)).toEqual([
      { field: "level", before: "developer", after: "maintainer" },
    ]);
  });

  it("lists a new object's fields but those left empty", async () => {
    expect(
      await createdFields(ctx, kind(), specs, { name: "w", level: 40, members: [], color: null }),
    ).toEqual([
      { field: "name", after: "w" },
      { field: "level", after: "maintainer" },
    ]);
    // A list with entries and an empty text are values; sensitive, secret and write-only values say so.
    expect(
      await createdFields(ctx, kind(), specs, {
        tags: ["a"],
        interval: "",
        api_key: "k",
        name: new Secret("s3cret", "env:NAME"),
        token: "t",
      }),
    ).toEqual([
      { field: "tags", after: ["a"] },
      { field: "interval", after: "" },
      { field: "api_key", after: "(sensitive)", sensitive: true },
      { field: "name", after: "(sensitive)", sensitive: true },
      { field: "token", after: "(write-only)", sensitive: true, writeOnly: true },
    ]);
  });

  it("sends write-only fields on rotation, once each", () => {
    const already = [{ field: "name", before: "w", after: "v" }];
    expect(writeOnlyChanges(specs, { name: "v", token: "t" }, already)).toEqual([
      { field: "token", after: "(write-only)", writeOnly: true, sensitive: true },
    ]);
    expect(writeOnlyChanges(specs, { token: "t" }, [{ field: "token" }])).toEqual([]);
    // With nothing else to change, or with the field among other changes.
    expect(writeOnlyChanges(specs, { name: "v", token: "t" }, [])).toEqual([
      { field: "token", after: "(write-only)", writeOnly: true, sensitive: true },
    ]);
    expect(writeOnlyChanges(specs, { token: "t" }, [{ field: "name" }, { field: "token" }])).toEqual([]);
  });
});

describe("unmanaged: what a prune policy does with undeclared objects", () => {
  const prune = async (policy: "warn" | "delete", checkDelete?: Kind["checkDelete"], note?: string) => {
    const { state: s } = state();
    const lives: Live[] = [{ key: "me", id: 1, fields: { name: "me" }, ...(note ? { note } : {}) }];
    const coll = { policy, items: [] } as unknown as DesiredCollection;
    const k = kind({ remove: async () => undefined, ...(checkDelete ? { checkDelete } : {}) });
    const matched = match(s, k, coll, [], lives);
    const out: Step[] = [];
    const parent: Parent = { address: 'project["p"]', collection: "projects", key: "p", ref: "p" };
    await planUndeclared(s, out, {
      kind: k,
      specs,
      coll,
      collection: "widgets",
      parent,
      parentAddress: parent.address,
      depth: 1,
      matched,
    });
    return { changes: out.map((o) => o.change), problems: s.problems };
  };

  it("deletes under delete, and tells the kind the collection's policy", async () => {
    let seen: string | undefined;
    const { changes } = await prune("delete", async (_c, _p, _l, _d, scope) => {
      seen = scope.policy;
      return [];
    });
    expect(changes.map((c) => c.action)).toEqual(["delete"]);
    expect(seen).toBe("delete");
    expect(changes[0]).toMatchObject({
      address: 'project["p"].widget["me"]',
      parent: 'project["p"]',
      reason: "not in the manifests, and the widgets prune policy is delete",
    });
  });

  it("leaves alone, and says why, an object the kind keeps (the token's own membership)", async () => {
    const { changes, problems } = await prune("delete", async () => [
      { message: "me is the token's own user", keep: true },
      { message: "me owns the group", keep: true },
    ]);
    expect(problems).toEqual([]);
    expect(changes.map((c) => [c.action, c.reason, c.parent])).toEqual([
      [
        "unmanaged",
        "not in the manifests, and left alone although the widgets prune policy is delete: me is the token's own user; me owns the group",
        'project["p"]',
      ],
    ]);
  });

  it("makes any other refusal an error, and deletes nothing", async () => {
    const { changes, problems } = await prune("delete", async () => [{ message: "still in use" }]);
    expect(changes).toEqual([]);
    expect(problems.map((p) => p.message)).toEqual(["still in use"]);
  });

  it("adds what the kind says of the live object to the reason (a blocked user)", async () => {
    const { changes } = await prune("warn", undefined, "me is blocked");
    expect(changes[0]?.reason).toMatch(/^not in the manifests \(prune policy warn.*; me is blocked$/);
  });
});

describe("order: apply order and dependencies", () => {
  const step = (
    address: string,
    action: Step["change"]["action"],
    depth: number,
    extra: Partial<Step> = {},
  ) =>
    ({
      change: { address, action, collection: "c", key: address, fields: [] },
      depth,
      deps: [],
      ...extra,
    }) as Step;

  it("keeps creates and updates in walk order, deletes deepest first (later first among equals), unmanaged last", () => {
    const steps = [
      step("a", "create", 0),
      step("d1", "delete", 0),
      step("u", "unmanaged", 1),
      step("d2", "delete", 2),
      step("b", "update", 1),
      step("d3", "delete", 2),
    ];
    expect(order(steps).map((s) => s.change.address)).toEqual(["a", "b", "d3", "d2", "d1", "u"]);
  });

  it("links a kind's `before` as the later step's dependency, groups and projects in any case, and drops the rest", () => {
    const parent = step('group["ACME"]', "update", 0, { before: ['group["acme/sub"]'] });
    const child = step('group["acme/sub"]', "update", 0, { deps: ['group["acme"]', 'group["gone"]'] });
    linkDependencies([parent, child]);
    expect(child.deps).toEqual(['group["ACME"]']);
  });

  it("makes a step wait for each step whose kind names it in `before`, once, and ignores a name not in the plan", () => {
    const hook = step('project["p"].hooks["h"]', "create", 1);
    const first = step('project["p"].variables["A"]', "update", 1, {
      before: ['project["p"].hooks["h"]', 'project["p"].hooks["gone"]'],
    });
    const second = step('project["p"].variables["B"]', "create", 1, {
      before: ['project["p"].hooks["h"]', 'project["p"].hooks["h"]'],
    });
    linkDependencies([first, second, hook]);
    expect(hook.deps).toEqual(['project["p"].variables["A"]', 'project["p"].variables["B"]']);
    expect(first.deps).toEqual([]);
  });

  it("keeps a create-only dependency on a step that makes its object, and drops it on an update", () => {
    const share = (g: string) => `project["p"].share["${g}"]`;
    const steps = [
      step('group["made"]', "create", 0),
      step('group["remade"]', "replace", 0),
      step('group["changed"]', "update", 0),
      ...["made", "remade", "changed"].map((g) =>
        step(share(g), "create", 1, { deps: [`group["${g}"]`, 'project["p"]'] }),
      ),
      step('project["p"]', "update", 0),
    ];
    const createOnly = new Map(
      ["made", "remade", "changed"].map((g) => [share(g), new Set([`group["${g}"]`])] as const),
    );
    linkDependencies(steps, createOnly);
    expect(steps.slice(3, 6).map((s) => s.deps)).toEqual([
      ['group["made"]', 'project["p"]'],
      ['group["remade"]', 'project["p"]'],
      ['project["p"]'],
    ]);
  });

  it("sorts problems by file, line, column, then address; problems without a place last", () => {
    const p = (address: string, file?: string, line = 0): PlanProblem =>
      file ? { address, message: "m", source: { file, line, col: 1 } } : { address, message: "m" };
    expect(
      byPlace([p("z"), p("b", "b.yaml", 2), p("a", "b.yaml", 10), p("c", "a.yaml", 99)]).map(
        (x) => x.address,
      ),
    ).toEqual(["c", "b", "a", "z"]);
    const at = (address: string, col: number): PlanProblem => ({
      address,
      message: "m",
      source: { file: "m.yaml", line: 3, col },
    });
    expect(byPlace([at("x", 10), at("y", 9), at("z", 2)]).map((x) => x.address)).toEqual(["z", "y", "x"]);
  });
});

describe("digest and read", () => {
  it("digests live objects independently of the order they were seen", () => {
    const seen = (...objects: [string, string][]) => {
      const s = new LiveSeen();
      for (const [address, fields] of objects) s.add(address, fields);
      return s.digest();
    };
    expect(seen(["b", "2"], ["a", "1"])).toBe(seen(["a", "1"], ["b", "2"]));
    expect(seen(["b", "2"], ["a", "1"])).not.toBe(seen(["a", "1"], ["b", "3"]));
  });

  it("reports a read that fails on the collection, and notes a missing project once, for its item to plan", async () => {
    const { state: s } = state();
    const parent: Parent = { address: 'project["p/q"]', collection: "projects", key: "p/q", ref: "p/q" };
    const failing = (status: number, message: string) =>
      kind({
        read: async () => {
          throw new ApiError({ status, method: "GET", path: "/projects/p%2Fq/widgets", body: { message } });
        },
      });
    expect(
      await readCollection(s, failing(500, "boom"), parent, [], {}, 'project["p/q"].widgets'),
    ).toBeUndefined();
    expect(s.problems[0]).toMatchObject({ address: 'project["p/q"].widgets' });
    expect(s.problems[0]!.message).toMatch(/^could not read widgets: GET \/projects\/p%2Fq\/widgets -> 500/);
    const missing = failing(404, "404 Project Not Found");
    // Addressed without a read: noted, and left to the project's item (which plans its create).
    const unread: Parent = { ...parent, live: { key: "p/q", id: "p/q", fields: {}, unverified: true } };
    for (const collection of ["widgets", "gadgets"])
      expect(
        await readCollection(s, missing, unread, [], {}, `project["p/q"].${collection}`),
      ).toBeUndefined();
    expect(s.missingProjects).toEqual(new Set(['project["p/q"]']));
    expect(s.problems).toHaveLength(1);
    // Only a project's 404 "Project Not Found" means the project is missing: under a group, or with another
    // status, it is a failed read of the collection.
    const { state: g } = state();
    const group: Parent = { address: 'group["p"]', collection: "groups", key: "p", ref: "p" };
    expect(await readCollection(g, missing, group, [], {}, 'group["p"].widgets')).toBeUndefined();
    expect(
      await readCollection(g, failing(500, "Project Not Found"), parent, [], {}, 'project["p/q"].widgets'),
    ).toBeUndefined();
    expect(g.missingProjects).toEqual(new Set());
    expect(g.problems.map((p) => p.address)).toEqual(['group["p"].widgets', 'project["p/q"].widgets']);
    // A project the plan did not read at all (no live object) is noted missing too.
    const { state: u } = state();
    expect(await readCollection(u, missing, parent, [], {}, 'project["p/q"].widgets')).toBeUndefined();
    expect(u.missingProjects).toEqual(new Set(['project["p/q"]']));
    // Read earlier in the plan, then gone: a problem, once.
    const { state: t } = state();
    const read: Parent = { ...parent, live: { key: "p/q", id: 7, fields: {} } };
    for (const collection of ["widgets", "gadgets"])
      await readCollection(t, missing, read, [], {}, `project["p/q"].${collection}`);
    expect(t.problems).toEqual([
      {
        address: 'project["p/q"]',
        message:
          'project "p/q" no longer exists or is no longer visible to this token\'s user (it was read earlier in this plan): plan again',
      },
    ]);
  });
});
