/**
 * The engine's expansion of patterns against a platform, as a property: over random estates and random pattern
 * entries (with `except:` and an exact entry), the groups and projects a plan covers are those some entry selects,
 * and each gets the fields of the most specific entry that applies, the same as `forgeform explain` shows (which
 * test/manifest/selector-rules.test.ts checks against a model). Listings share one listing where one covers
 * another, so a rule that compares prefixes without the `/` shows up here as a wrong set of objects.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { createContext } from "../../src/engine/context.js";
import { expandSelectors } from "../../src/engine/select.js";
import type { DesiredNode, DesiredState, Selector, SourceRef } from "../../src/manifest/model.js";
import { explain, parsePattern, selects } from "../../src/manifest/selectors.js";
import { json, type Seen, startServer, type TestServer } from "../api/server.js";
import { fc } from "../property.js";

const at: SourceRef = { file: "m.yaml", line: 1, col: 1 };
const node = (collection: string, key: string, fields: Record<string, unknown>): DesiredNode => ({
  collection,
  key,
  state: "present",
  fields,
  source: at,
  fieldSources: {},
  children: {},
});

/** Groups are paths of segments that share letters; each group holds a project `p`. */
const seg = fc.constantFrom("a", "ab", "b");
const groupPath = fc.array(seg, { minLength: 1, maxLength: 3 }).map((p) => p.join("/"));
const estate = fc.uniqueArray(groupPath, { minLength: 1, maxLength: 8 }).map((leaves) => {
  const groups = new Set<string>();
  for (const leaf of leaves) {
    const parts = leaf.split("/");
    for (let i = 1; i <= parts.length; i++) groups.add(parts.slice(0, i).join("/"));
  }
  return { groups: [...groups], projects: leaves.map((g) => `${g}/p`) };
});
/** Pattern roots from segments that are prefixes of each other, at most two deep. */
const pattern = fc
  .tuple(fc.array(fc.constantFrom("a", "ab"), { maxLength: 2 }), fc.constantFrom("*", "**"))
  .map(([p, star]) => [...p, star].join("/"));
const exceptEntry = fc.oneof(
  groupPath,
  groupPath.map((g) => `${g}/p`),
  pattern,
);
/** Entries of both collections, several each, so that listings of one collection meet. */
const entriesOf = (collection: "groups" | "projects") =>
  fc.uniqueArray(
    fc.record({
      collection: fc.constant(collection),
      pattern,
      except: fc.array(exceptEntry, { maxLength: 2 }),
    }),
    { maxLength: 3, selector: (e) => e.pattern },
  );
const entries = fc
  .tuple(entriesOf("groups"), entriesOf("projects"))
  .map(([groups, projects]) => [...groups, ...projects])
  .filter((all) => all.length > 0);

/** `--target`, segment by segment: a target holds itself and what is below it. */
const inScope = (p: string, targets: string[]) =>
  targets.length === 0 || targets.some((t) => p === t || p.startsWith(`${t}/`));

let current = { groups: [] as string[], projects: [] as string[] };
const parentOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf("/")));
const below = (p: string, root: string) => p.startsWith(`${root}/`);

/** The platform's listings over the current estate. */
function platform(req: Seen, res: Parameters<typeof json>[0]) {
  const q = req.query;
  const { groups, projects } = current;
  if (req.path === "/api/v4/version") return json(res, 200, { version: "17.5.0", revision: "x" });
  const project = (p: string, i: number) => ({ id: i + 1, path_with_namespace: p, archived: false });
  const group = (g: string, i: number) => {
    const name = g.split("/").pop();
    return { id: i + 1, full_path: g, path: name, name, visibility: "private" };
  };
  if (req.path === "/api/v4/projects") return json(res, 200, projects.map(project));
  if (req.path === "/api/v4/groups") {
    const top = q.get("top_level_only") === "true";
    return json(res, 200, groups.filter((g) => !top || !g.includes("/")).map(group));
  }
  const m = /^\/api\/v4\/groups\/([^/]+)\/(projects|descendant_groups|subgroups)$/.exec(req.path);
  const root = m ? decodeURIComponent(m[1]!) : "";
  if (!m || !groups.includes(root)) return json(res, 404, { message: "404 Group Not Found" });
  if (m[2] === "projects") {
    const subtree = q.get("include_subgroups") === "true";
    return json(
      res,
      200,
      projects.filter((p) => (subtree ? below(p, root) : parentOf(p) === root)).map(project),
    );
  }
  const found = groups.filter((g) => (m[2] === "subgroups" ? parentOf(g) === root : below(g, root)));
  return json(res, 200, found.map(group));
}

let server: TestServer;
beforeAll(async () => {
  server = await startServer(platform);
});
afterAll(async () => {
  await server.close();
});

describe("expandSelectors over random estates", () => {
  it("covers what some entry selects within the targets, each object with the fields explain gives it", async () => {
    await fc.assert(
      fc.asyncProperty(
        estate,
        entries,
        fc.option(groupPath, { nil: undefined }),
        fc.array(groupPath, { maxLength: 2 }),
        async (e, written, exact, targets) => {
          current = e;
          const selectors: Selector[] = written.map((w) => ({
            ...w,
            ...parsePattern(w.pattern),
            includeArchived: false,
            node: node(w.collection, w.pattern, { description: `${w.collection} ${w.pattern}` }),
          }));
          const exactItems = exact === undefined ? [] : [node("groups", exact, { visibility: "private" })];
          const state: DesiredState = {
            root: { ...node("root", "", {}), children: { groups: { policy: "warn", items: exactItems } } },
            files: ["m.yaml"],
            selectors,
          };
          const api = new ApiClient({ url: server.url, token: "t", maxAttempts: 1 });
          try {
            const ctx = await createContext(api);
            const expanded = await expandSelectors(state, ctx, targets);
            for (const collection of ["groups", "projects"] as const) {
              const onPlatform = collection === "groups" ? e.groups : e.projects;
              const mine = selectors.filter((s) => s.collection === collection);
              const expected = new Set(
                onPlatform.filter((p) => mine.some((s) => selects(s, p)) && inScope(p, targets)),
              );
              if (collection === "groups") for (const x of exactItems) expected.add(x.key);
              const items = expanded.state.root.children[collection]?.items ?? [];
              expect(items.map((i) => i.key).sort()).toEqual([...expected].sort());
              // Outside the targets nothing is planned: an exact entry there is left as written.
              for (const item of items.filter((i) => inScope(i.key, targets))) {
                expect(item.fields, `${collection} ${item.key}`).toEqual(
                  explain(state, collection, item.key)?.node.fields,
                );
              }
            }
          } finally {
            await api.close();
          }
        },
      ),
      {
        numRuns: 100,
        // A listing of a/** must not stand in for ab/*: roots that share letters, not a segment.
        examples: [
          [
            { groups: ["ab", "a"], projects: ["ab/p", "a/p"] },
            [
              { collection: "projects", pattern: "ab/*", except: [] },
              { collection: "projects", pattern: "a/**", except: [] },
            ],
            undefined,
            [],
          ],
        ],
      },
    );
  });
});
