/**
 * What `--changed-since` plans, as units: the scope between two versions of the manifests (the base revision's
 * and the working tree's), loaded as a user writes them. Each kind of edit puts exactly its objects in scope, and
 * nothing else; the integration side (git, requests, plans) is test/integration/changed-since.test.ts.
 */
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type ChangeScope, changeScope, touches, wholeUnder } from "../../src/engine/changes.js";
import { loadManifests } from "../../src/manifest/index.js";
import type { DesiredState } from "../../src/manifest/model.js";

const dir = mkdtempSync(join(tmpdir(), "ff-changes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function state(text: string, env: Record<string, string> = {}): Promise<DesiredState> {
  const file = join(dir, `m${++n}.yaml`);
  writeFileSync(file, text);
  const loaded = await loadManifests([file], { secrets: true, env, root: dir });
  expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return loaded.state!;
}

/** The scope's sets of manifest paths as sorted lists, for whole comparisons (the other parts: below). */
const lists = (s: ChangeScope) =>
  Object.fromEntries(
    (["nodes", "whole", "collections", "selectors", "ancestors"] as const).map((k) => [k, [...s[k]].sort()]),
  );

const NONE = { nodes: [], whole: [], collections: [], selectors: [], ancestors: [] };

const BASE = `version: 1
projects:
  acme/api:
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: TIER, value: gold }
          - { key: ZONE, value: eu }
    badges:
      - { name: docs, link_url: "https://d.example/%{project_path}", image_url: "https://d.example/b.svg" }
  acme/web:
    badges:
      - { name: docs, link_url: "https://d.example/%{project_path}", image_url: "https://d.example/b.svg" }
`;

const scopeOf = async (base: string, head: string, env?: Record<string, string>) =>
  changeScope(await state(base, env), await state(head, env));

describe("changeScope", () => {
  it("is empty for the same manifests", async () => {
    const scope = await scopeOf(BASE, BASE);
    expect(lists(scope)).toEqual(NONE);
  });

  it("a changed field puts its node in scope, and its ancestors as ancestors only", async () => {
    const scope = await scopeOf(BASE, BASE.replace("value: gold", "value: silver"));
    const variable = 'projects["acme/api"].pipeline_schedules["Nightly"].variables["TIER"]';
    expect(lists(scope)).toEqual({
      ...NONE,
      nodes: [variable],
      ancestors: ["", 'projects["acme/api"]', 'projects["acme/api"].pipeline_schedules["Nightly"]', variable],
    });
  });

  it("a new item is planned whole; a removed one reads its collection in full", async () => {
    const added = await scopeOf(
      BASE,
      BASE.replace(
        "          - { key: ZONE, value: eu }\n",
        "          - { key: ZONE, value: eu }\n          - { key: REGION, value: north }\n",
      ),
    );
    expect(lists(added)).toEqual({
      ...NONE,
      whole: ['projects["acme/api"].pipeline_schedules["Nightly"].variables["REGION"]'],
      ancestors: ["", 'projects["acme/api"]', 'projects["acme/api"].pipeline_schedules["Nightly"]'],
    });
    const removed = await scopeOf(BASE, BASE.replace("          - { key: ZONE, value: eu }\n", ""));
    expect(lists(removed)).toEqual({
      ...NONE,
      collections: ['projects["acme/api"].pipeline_schedules["Nightly"].variables'],
      ancestors: ["", 'projects["acme/api"]', 'projects["acme/api"].pipeline_schedules["Nightly"]'],
    });
  });

  it("a collection newly mentioned is read in full; one no longer mentioned is left alone", async () => {
    const head = BASE.replace("  acme/web:\n", "  acme/web:\n    milestones:\n      - { title: v1 }\n");
    expect(lists(await scopeOf(BASE, head))).toEqual({
      ...NONE,
      whole: ['projects["acme/web"].milestones["v1"]'],
      collections: ['projects["acme/web"].milestones'],
      ancestors: ["", 'projects["acme/web"]'],
    });
    expect(lists(await scopeOf(head, BASE))).toEqual(NONE);
  });

  it("under a pattern, what an entry no longer declares is compared: the pattern may declare it", async () => {
    const patterned = `${BASE}  acme/*:\n    badges:\n      - { name: docs, link_url: "https://d.example/p", image_url: "https://d.example/p.svg" }\n`;
    // The badge gone from acme/web's entry: the collection read in full, the pattern's badge compared.
    const item = await scopeOf(
      patterned,
      patterned.replace(/ {2}acme\/web:\n {4}badges:\n.*\n/, "  acme/web: {}\n"),
    );
    const badges = 'projects["acme/web"].badges';
    expect(lists(item)).toMatchObject({ whole: [`${badges}["docs"]`], collections: [badges] });
    expect(item.ancestors).toContain('projects["acme/web"]');
    // A schedule's variable gone below acme/api: the same, for the item of the schedule.
    const nested = await scopeOf(patterned, patterned.replace("          - { key: ZONE, value: eu }\n", ""));
    const variables = 'projects["acme/api"].pipeline_schedules["Nightly"].variables';
    expect(lists(nested)).toMatchObject({ whole: [`${variables}["ZONE"]`], collections: [variables] });
    // Without a pattern over the project, a collection no longer mentioned is left alone, and an item removed is
    // undeclared: its collection read in full, nothing compared.
    const alone = await scopeOf(BASE, BASE.replace("          - { key: ZONE, value: eu }\n", ""));
    expect(lists(alone)).toMatchObject({ whole: [], collections: [variables] });
  });

  it("a changed policy for undeclared objects reads the collection in full and changes its owner", async () => {
    const head = BASE.replace("  acme/web:\n", "  acme/web:\n    unmanaged:\n      badges: delete\n");
    expect(lists(await scopeOf(BASE, head))).toEqual({
      ...NONE,
      nodes: ['projects["acme/web"]'],
      collections: ['projects["acme/web"].badges'],
      ancestors: ["", 'projects["acme/web"]'],
    });
  });

  it("a secret compares by its reference, never by its value", async () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's reference syntax, written literally
    const base = BASE.replace("value: gold", 'value: "${env:TIER}"');
    expect(lists(await scopeOf(base, base, { TIER: "a", OTHER: "a" }))).toEqual(NONE);
    const first = await state(base, { TIER: "a" });
    const second = await state(base, { TIER: "b" });
    expect(lists(changeScope(first, second))).toEqual(NONE);
    const moved = await scopeOf(base, base.replace("env:TIER", "env:OTHER"), { TIER: "a", OTHER: "a" });
    expect(moved.nodes).toEqual(
      new Set(['projects["acme/api"].pipeline_schedules["Nightly"].variables["TIER"]']),
    );
  });

  describe("undeclared subgroups and objects left to patterns", () => {
    const GROUPS = `version: 1
groups:
  acme: { description: the company }
  acme/web: { description: web }
  other: { description: other }
projects:
  acme/**: { description: from the pattern }
  acme/web/site: { description: its own }
`;
    it("reports below a group newly declared and above one no longer declared, reading that one for it", async () => {
      const scope = await scopeOf(
        GROUPS,
        GROUPS.replace("  acme/web: { description: web }\n", "").replace(
          "  other:",
          "  other/added: {}\n  other:",
        ),
      );
      expect([...scope.subgroupsOf!].sort()).toEqual(["acme", "other/added"]);
      expect(lists(scope).ancestors).toContain('groups["acme"]');
      expect(lists(scope).nodes).toEqual([]);
    });

    it("reports below every group when the policy over them changed", async () => {
      const scope = await scopeOf(GROUPS, `${GROUPS}instance:\n  unmanaged: { groups: ignore }\n`);
      expect(scope.subgroupsOf).toBeUndefined();
    });

    it("releases an object whose entry is removed to a pattern that still applies, not one no pattern covers", async () => {
      const scope = await scopeOf(
        `${GROUPS}  other/api: { description: alone }\n`,
        GROUPS.replace("  acme/web/site: { description: its own }\n", ""),
      );
      expect(scope.released).toEqual({ groups: [], projects: ["acme/web/site"] });
    });
  });

  describe("patterns", () => {
    const PATTERNS = `version: 1
projects:
  acme/**:
    except: [acme/legacy]
    badges:
      - { name: ci, link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/b.svg" }
  other/*:
    badges: []
`;
    it("an unchanged pattern is not in scope, nor one removed (what it matched goes to a pattern over it)", async () => {
      expect(lists(await scopeOf(PATTERNS, PATTERNS))).toEqual(NONE);
      const removed = PATTERNS.replace("  other/*:\n    badges: []\n", "");
      const scope = await scopeOf(PATTERNS, removed);
      expect(lists(scope)).toEqual(NONE);
      // No pattern left over other/*: what it matched is left as it is, unread.
      expect(scope.removedPatterns).toBeUndefined();
      const nested = `${PATTERNS}  acme/web/*:\n    badges: []\n`;
      const under = await scopeOf(nested, PATTERNS);
      expect(under.removedPatterns?.map((s) => s.pattern)).toEqual(["acme/web/*"]);
    });

    it("a new pattern, a changed body, except or include_archived puts just that pattern in scope", async () => {
      const edits = [
        PATTERNS.replace("  other/*:", "  more/**:\n    badges: []\n  other/*:"),
        PATTERNS.replace("ci.example/b.svg", "ci.example/c.svg"),
        PATTERNS.replace("except: [acme/legacy]", "except: [acme/legacy, acme/old]"),
        PATTERNS.replace("except: [acme/legacy]", "include_archived: true\n    except: [acme/legacy]"),
        PATTERNS.replace(
          "    badges: []\n",
          "    badges:\n      - { name: x, link_url: https://x.example, image_url: https://x.example/i.svg }\n",
        ),
        PATTERNS.replace("    badges: []\n", "    unmanaged:\n      badges: delete\n    badges: []\n"),
      ];
      const expected = [
        'projects["more/**"]',
        'projects["acme/**"]',
        'projects["acme/**"]',
        'projects["acme/**"]',
        'projects["other/*"]',
        'projects["other/*"]',
      ];
      for (const [i, edit] of edits.entries()) {
        const scope = await scopeOf(PATTERNS, edit);
        expect({ edit: i, ...lists(scope) }).toEqual({ edit: i, ...NONE, selectors: [expected[i]] });
      }
    });
  });
});

describe("wholeUnder and touches", () => {
  const scope: ChangeScope = {
    nodes: new Set(['projects["acme/web"].badges["docs"]']),
    whole: new Set(['projects["acme/api"]']),
    collections: new Set(['groups["acme"].milestones']),
    selectors: new Set(),
    ancestors: new Set(['projects["acme/web"]']),
  };

  it("compares the files manifests name (token_file, attachments) by their place below each version's root", async () => {
    const text = (file: string) => `version: 1
groups:
  acme:
    deploy_tokens:
      - { name: pull, scopes: [read_registry], token_file: ${file} }
projects:
  acme/api:
    wiki_pages:
      - { title: Guide, content: inline, attachments: [logo.svg] }
`;
    // The same manifest in two folders, as a pull request's plan reads REF's in a folder of its own.
    const other = mkdtempSync(join(tmpdir(), "ff-changes-ref-"));
    try {
      for (const root of [dir, other]) writeFileSync(join(root, "logo.svg"), "<svg/>\n");
      const load = async (root: string, body: string) => {
        writeFileSync(join(root, "m.yaml"), body);
        const loaded = await loadManifests([join(root, "m.yaml")], { secrets: true, root });
        expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
        return loaded.state!;
      };
      const base = await load(other, text("pull.token"));
      const same = await load(dir, text("pull.token"));
      const roots = { base: realpathSync(other), head: realpathSync(dir) };
      expect(lists(changeScope(base, same, roots))).toEqual(NONE);
      // Without the roots, the absolute paths differ: both nodes would be planned.
      expect(lists(changeScope(base, same)).nodes).toEqual([
        'groups["acme"].deploy_tokens["pull"]',
        'projects["acme/api"].wiki_pages["Guide"]',
      ]);
      // Another file is a change.
      const moved = await load(dir, text("other.token"));
      expect(lists(changeScope(base, moved, roots)).nodes).toEqual(['groups["acme"].deploy_tokens["pull"]']);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("a node planned whole covers everything below it, and only that", () => {
    expect(wholeUnder(scope, 'projects["acme/api"]')).toBe(true);
    expect(wholeUnder(scope, 'projects["acme/api"].badges["docs"]')).toBe(true);
    expect(wholeUnder(scope, 'projects["acme/api2"]')).toBe(false);
    expect(wholeUnder(scope, 'x.projects["acme/api"]')).toBe(false);
    expect(wholeUnder(scope, 'projects["acme/web"]')).toBe(false);
  });

  it("touches a path with anything in scope at or below it", () => {
    expect(touches(scope, 'projects["acme/api"].badges')).toBe(true);
    expect(touches(scope, 'projects["acme/web"].badges["docs"]')).toBe(true);
    expect(touches(scope, 'projects["acme/web"]')).toBe(true);
    expect(touches(scope, 'groups["acme"]')).toBe(true);
    expect(touches(scope, 'groups["acme"].milestones')).toBe(true);
    expect(touches(scope, 'groups["acme"].badges')).toBe(false);
    expect(touches(scope, 'groups["acme/x"]')).toBe(false);
    expect(touches(scope, 'groups["acme"].milestones["v1"]')).toBe(false);
    expect(touches(scope, 'projects["acme/other"]')).toBe(false);
  });
});
