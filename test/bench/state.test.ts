/**
 * The benchmark's state and what is derived from it, without the CLI: the state builder's counts and edits, the
 * fixture the sandbox takes (and the same state seeded over HTTP), the manifests forgeform validates, and the
 * peer's action file.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  AREAS,
  type Area,
  availableAreas,
  benchKinds,
  buildFixture,
  declarableKinds,
  seedOverHttp,
  writeForgeformManifests,
  writePeerActionFile,
} from "../../bench/artifacts.js";
import { repoRoot } from "../../bench/measure.js";
import {
  BASE_SHAPE,
  type BenchState,
  buildState,
  CHANGE_EVERY,
  COMMON_KINDS,
  changedCounts,
  KINDS,
  type ObjectKind,
  objectCounts,
  PROJECT_SETTINGS,
  type Shape,
} from "../../bench/state.js";
import { formatDiagnostic, loadManifests } from "../../src/manifest/index.js";
import { createSandboxApp, type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";

/** 21 projects: kinds of 1 object a project have 3 edited (indices 0, 10, 20), of 5 a project 11. */
const SMALL: Shape = { ...BASE_SHAPE, groups: 4, projects: 21, systemHooks: 3, broadcastMessages: 2 };

/**
 * Every object of the state by kind, keyed by an identity of its own (independent of the builder's counters):
 * what the counts and the edits are checked against.
 */
function objectsByKind(state: BenchState): Record<ObjectKind, Map<string, string>> {
  const out = Object.fromEntries(KINDS.map((k) => [k, new Map<string, string>()])) as Record<
    ObjectKind,
    Map<string, string>
  >;
  const put = (kind: ObjectKind, id: string, value: unknown) => out[kind].set(id, JSON.stringify(value));
  for (const g of state.groups) {
    put("group", g.path, g.description);
    for (const v of g.variables) put("group_variable", `${g.path} ${v.key}`, v);
  }
  for (const p of state.projects) {
    for (const s of p.schedules) {
      const { variables, ...fields } = s;
      put("pipeline_schedule", `${p.fullPath} ${s.description}`, fields);
      for (const v of variables) put("schedule_variable", `${p.fullPath} ${s.description} ${v.key}`, v);
    }
    for (const b of p.badges) put("badge", `${p.fullPath} ${b.name}`, b);
    for (const e of p.environments) put("protected_environment", `${p.fullPath} ${e.name}`, e);
    for (const m of p.milestones) put("milestone", `${p.fullPath} ${m.title}`, m);
    for (const v of p.variables) put("project_variable", `${p.fullPath} ${v.key}`, v);
    put("project_settings", p.fullPath, p.settings);
    for (const m of p.members) put("project_member", `${p.fullPath} ${m.user}`, m);
    for (const l of p.labels) put("label", `${p.fullPath} ${l.name}`, l);
    for (const b of p.protectedBranches) put("protected_branch", `${p.fullPath} ${b.name}`, b);
    for (const h of p.hooks) put("project_hook", `${p.fullPath} ${h.url}`, h);
  }
  put("application_settings", "instance", state.settings);
  for (const h of state.hooks) put("system_hook", h.url, h);
  for (const b of state.broadcasts) put("broadcast_message", b.message, b);
  return out;
}

describe("the benchmark's state", () => {
  it("holds, per kind, as many distinct objects as objectCounts says, in both variants", () => {
    for (const variant of ["seed", "changed"] as const) {
      const objects = objectsByKind(buildState(SMALL, variant));
      const counts = objectCounts(SMALL);
      for (const kind of KINDS) expect(objects[kind].size, `${variant} ${kind}`).toBe(counts[kind]);
    }
    const counts = objectCounts(SMALL);
    expect(counts.group_variable).toBe(4 * 5);
    expect(counts.project_variable).toBe(21 * 5);
    expect(counts.project_settings).toBe(21);
    expect(counts.project_member).toBe(21 * 2);
    expect([counts.label, counts.protected_branch, counts.project_hook]).toEqual([42, 21, 21]);
  });

  it("edits every 10th object of each kind in the changed variant, and nothing else", () => {
    const seed = objectsByKind(buildState(SMALL, "seed"));
    const changed = objectsByKind(buildState(SMALL, "changed"));
    const edited = changedCounts(SMALL);
    for (const kind of KINDS) {
      const differing = [...seed[kind]].filter(([id, value]) => changed[kind].get(id) !== value).length;
      expect(differing, kind).toBe(edited[kind]);
      expect(edited[kind]).toBe(Math.ceil(objectCounts(SMALL)[kind] / CHANGE_EVERY));
    }
    // The new kinds at the edge: 21 settings objects -> 3 edited; 105 project variables -> 11.
    expect([edited.project_settings, edited.project_variable, edited.project_member]).toEqual([3, 11, 5]);
  });

  it("gives every project the same settings, members, labels, branches and hooks but for the edited ones", () => {
    const seed = buildState(SMALL, "seed");
    for (const p of seed.projects) {
      expect(p.settings).toEqual(PROJECT_SETTINGS);
      expect(p.members).toEqual(seed.projects[0]!.members);
      expect(p.labels).toEqual(seed.projects[0]!.labels);
      expect(p.variables).toEqual(seed.projects[0]!.variables);
    }
    // A dozen settings: booleans, enums, a string and an integer.
    const values = Object.values(PROJECT_SETTINGS);
    expect(values).toHaveLength(12);
    for (const type of ["boolean", "string", "number"])
      expect(values.some((v) => typeof v === type)).toBe(true);
    // Members are users the fixture creates.
    expect(new Set(seed.projects.flatMap((p) => p.members.map((m) => m.user)))).toEqual(new Set(seed.users));
  });
});

describe("what the benchmark derives from the state", () => {
  const dirs: string[] = [];
  const sandboxes: RunningSandbox[] = [];
  const tmp = () => {
    const dir = mkdtempSync(join(tmpdir(), "forgeform-bench-state-"));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    await Promise.all(sandboxes.map((s) => s.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const hookKeys = () => new Set(createSandboxApp().app.fixtureHooks.keys());
  const NEW_AREAS: Area[] = [
    "ci_variables",
    "project_settings",
    "members",
    "labels",
    "protected_branches",
    "project_hooks",
  ];

  it("seeds the new kinds through the sandbox's fixture, which takes it, and the sandbox serves them", async () => {
    const state = buildState(SMALL, "seed");
    const { fixture, seeded } = buildFixture(state, AREAS, hookKeys());
    expect(seeded).toEqual(expect.arrayContaining(NEW_AREAS));
    const sandbox = await startSandbox({ fixture });
    sandboxes.push(sandbox);
    expect(await availableAreas(sandbox.url, sandbox.adminToken, state.projects[0]!)).toEqual(
      expect.arrayContaining(NEW_AREAS),
    );
    const get = async (path: string) =>
      (await (
        await fetch(`${sandbox.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": sandbox.adminToken } })
      ).json()) as Record<string, unknown>[] & Record<string, unknown>;
    const p = state.projects[7]!;
    const base = `/projects/${encodeURIComponent(p.fullPath)}`;
    expect((await get(`${base}/variables`)).map((v) => [v["key"], v["value"], v["protected"]])).toEqual(
      p.variables.map((v) => [v.key, v.value, v.protected]),
    );
    expect((await get(`${base}/members`)).map((m) => [m["username"], m["access_level"]])).toEqual(
      p.members.map((m) => [m.user, m.access_level]),
    );
    expect((await get(`${base}/labels`)).map((l) => l["name"])).toEqual(p.labels.map((l) => l.name));
    expect((await get(`${base}/protected_branches`)).map((b) => b["name"])).toEqual(["main"]);
    expect((await get(`${base}/hooks`)).map((h) => h["url"])).toEqual(p.hooks.map((h) => h.url));
    const project = await get(base);
    for (const [name, value] of Object.entries(PROJECT_SETTINGS)) expect(project[name], name).toEqual(value);
    const g = state.groups[1]!;
    expect((await get(`/groups/${g.path}/variables`)).map((v) => v["key"])).toEqual(
      g.variables.map((v) => v.key),
    );
  });

  it("seeds the same state over HTTP where the fixture does not", async () => {
    const state = buildState({ ...SMALL, projects: 5, groups: 2 }, "seed");
    const keys = hookKeys();
    const byFixture = await startSandbox({ fixture: buildFixture(state, NEW_AREAS, keys).fixture });
    const byHttp = await startSandbox({ fixture: buildFixture(state, [], keys).fixture });
    sandboxes.push(byFixture, byHttp);
    await seedOverHttp(byHttp.url, byHttp.adminToken, state, NEW_AREAS, 4);
    /** What a list shows, without what differs from one seeding to the next (ids, times). */
    const read = async (sandbox: RunningSandbox, path: string) => {
      const res = await fetch(`${sandbox.url}/api/v4${path}`, {
        headers: { "PRIVATE-TOKEN": sandbox.adminToken },
      });
      expect(res.status, path).toBe(200);
      return JSON.stringify(await res.json(), (key, value) =>
        ["id", "created_at", "updated_at", "last_activity_at"].includes(key) ? undefined : value,
      ).replaceAll(sandbox.url, "(sandbox)");
    };
    const paths = [
      ...state.groups.map((g) => `/groups/${g.path}/variables`),
      ...state.projects.flatMap((p) =>
        ["", "/variables", "/members", "/labels", "/protected_branches", "/hooks"].map(
          (suffix) => `/projects/${encodeURIComponent(p.fullPath)}${suffix}`,
        ),
      ),
    ];
    for (const path of paths) {
      const shown = await read(byFixture, path);
      expect(shown.length, path).toBeGreaterThan(2);
      expect(await read(byHttp, path), path).toBe(shown);
    }
  });

  it("writes manifests of every kind forgeform declares that validate without a finding, by path and by pattern", async () => {
    const declarable = declarableKinds(repoRoot());
    const kinds = benchKinds(AREAS, declarable);
    // What this branch's schemas declare of this round's kinds.
    for (const k of [
      "group_variable",
      "project_variable",
      "project_settings",
      "label",
      "project_hook",
    ] as const)
      expect(declarable.has(k), k).toBe(true);
    for (const variant of ["seed", "changed"] as const) {
      const state = buildState(SMALL, variant);
      const policy = buildState(SMALL, "seed").projects[0]!;
      for (const declared of [{ by: "paths" } as const, { by: "patterns", policy } as const]) {
        const dir = writeForgeformManifests(state, kinds, tmp(), declared);
        const result = await loadManifests([dir], { secrets: true, env: {} });
        expect(result.diagnostics.map(formatDiagnostic), `${variant} by ${declared.by}`).toEqual([]);
        expect(result.state).toBeDefined();
        const text = readdirSync(dir)
          .map((f) => readFileSync(join(dir, f), "utf8"))
          .join("\n");
        for (const key of ["variables:", "merge_method:", "labels:", "hooks:", "build_timeout:"])
          expect(text, key).toContain(key);
        if (declarable.has("project_member")) expect(text).toContain("members:");
        if (declarable.has("protected_branch")) expect(text).toContain("protected_branches:");
      }
    }
  });

  it("declares in the pattern's overrides only what a project's edits change", () => {
    const seed = buildState(SMALL, "seed");
    const changed = buildState(SMALL, "changed");
    const kinds = new Set<ObjectKind>(KINDS);
    const dir = writeForgeformManifests(changed, kinds, tmp(), { by: "patterns", policy: seed.projects[0]! });
    const projects = (
      parse(readFileSync(join(dir, "projects.yaml"), "utf8")) as {
        projects: Record<string, Record<string, unknown> | undefined>;
      }
    ).projects;
    // Project 0 holds the first object of every kind: its settings override is the edited build_timeout alone.
    const first = projects[changed.projects[0]!.fullPath] ?? {};
    expect(first["build_timeout"]).toBe(10800);
    expect(first["merge_method"]).toBeUndefined();
    expect(first["variables"]).toEqual([changed.projects[0]!.variables[0]]);
    expect(first["members"]).toEqual([{ user: "bench-user-0", access_level: 40 }]);
    expect(first["protected_branches"]).toEqual([
      { name: "main", push_access_level: 30, merge_access_level: 40 },
    ]);
    expect(first["hooks"]).toEqual([{ ...changed.projects[0]!.hooks[0], pipeline_events: true }]);
    // A project with no edited object has no entry of its own.
    const untouched = changed.projects.filter((p) => !projects[p.fullPath]);
    expect(untouched.length).toBeGreaterThan(0);
    for (const p of untouched)
      expect(JSON.stringify(p)).toBe(JSON.stringify(seed.projects[changed.projects.indexOf(p)]));
  });

  it("writes the peer's action file in gitlabracadabra's format for the common kinds", () => {
    const state = buildState(SMALL, "changed");
    const file = writePeerActionFile(state, COMMON_KINDS, join(tmp(), "action.yml"));
    const actions = JSON.parse(readFileSync(file, "utf8")) as Record<string, Record<string, unknown>>;
    const p = actions[state.projects[0]!.fullPath]!;
    expect(p["type"]).toBe("project");
    expect(p["build_timeout"]).toBe(10800);
    expect(p["members"]).toEqual({ "bench-user-0": "maintainer", "bench-user-1": "reporter" });
    expect(p["protected_branches"]).toEqual({
      main: { push_access_level: "developer", merge_access_level: "maintainer" },
    });
    expect(p["labels"]).toEqual(state.projects[0]!.labels);
    expect(p["variables"]).toEqual(state.projects[0]!.variables);
    expect(p["webhooks"]).toEqual(state.projects[0]!.hooks);
    expect(actions[`${state.groups[0]!.path}/`]!["variables"]).toEqual(state.groups[0]!.variables);
    // Kinds the peer does not manage stay out of its file.
    expect(p["badges"]).toBeUndefined();
    expect(p["protected_environments"]).toBeUndefined();
  });
});
