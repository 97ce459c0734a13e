/**
 * Selectors as units, against a scripted platform over HTTP: which listings a run reads (each once, through the
 * broadest that covers it), which patterns a `--target` concerns, what each pattern matched and the warnings it
 * earns, and how a `--changed-since` run applies unchanged patterns to what it plans anyway.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import type { ChangeScope } from "../../src/engine/changes.js";
import { createContext } from "../../src/engine/context.js";
import { expandSelectors } from "../../src/engine/select.js";
import { readProject } from "../../src/kinds/project.js";
import { loadManifests } from "../../src/manifest/index.js";
import type { DesiredNode } from "../../src/manifest/model.js";
import { json, type Seen, startServer, type TestServer } from "../api/server.js";

const GROUPS = ["acme", "acme/platform", "acme/platform/infra", "acme/tools", "other", "empty"];
const PROJECTS: { path: string; archived: boolean }[] = [
  { path: "acme/readme", archived: false },
  { path: "acme/platform/api", archived: false },
  { path: "acme/platform/web", archived: false },
  { path: "acme/platform/old", archived: true },
  { path: "acme/platform/infra/tf", archived: false },
  { path: "acme/tools/cli", archived: false },
  { path: "other/x", archived: false },
];

const parentOf = (p: string) => p.slice(0, Math.max(0, p.lastIndexOf("/")));
const below = (p: string, root: string) => p.startsWith(`${root}/`);
const group = (fullPath: string, i: number) => ({
  id: i + 1,
  full_path: fullPath,
  path: fullPath.split("/").pop(),
  name: fullPath.split("/").pop(),
  visibility: "private",
});

/** The platform's listings, with their filters, over the estate above. */
function platform(req: Seen, res: Parameters<typeof json>[0]) {
  const q = req.query;
  if (req.path === "/api/v4/version") return json(res, 200, { version: "17.5.0", revision: "x" });
  const archived = (p: { archived: boolean }) =>
    !q.has("archived") || String(p.archived) === q.get("archived");
  if (req.path === "/api/v4/projects") {
    return json(
      res,
      200,
      PROJECTS.filter(archived).map((p, i) => ({ id: i + 1, path_with_namespace: p.path })),
    );
  }
  const one = /^\/api\/v4\/projects\/([^/]+)$/.exec(req.path);
  if (one) {
    const i = PROJECTS.findIndex((p) => p.path === decodeURIComponent(one[1]!));
    if (i < 0) return json(res, 404, { message: "404 Project Not Found" });
    return json(res, 200, {
      id: i + 1,
      path_with_namespace: PROJECTS[i]!.path,
      archived: PROJECTS[i]!.archived,
    });
  }
  if (req.path === "/api/v4/groups") {
    const top = q.get("top_level_only") === "true";
    return json(res, 200, GROUPS.filter((g) => !top || !g.includes("/")).map(group));
  }
  const m = /^\/api\/v4\/groups\/([^/]+)\/(projects|descendant_groups|subgroups)$/.exec(req.path);
  const root = m ? decodeURIComponent(m[1]!) : "";
  if (!m || !GROUPS.includes(root)) return json(res, 404, { message: "404 Group Not Found" });
  if (m[2] === "projects") {
    const subtree = q.get("include_subgroups") === "true";
    const held = PROJECTS.filter(
      (p) => archived(p) && (subtree ? below(p.path, root) : parentOf(p.path) === root),
    );
    return json(
      res,
      200,
      held.map((p, i) => ({ id: i + 1, path_with_namespace: p.path })),
    );
  }
  const groups = GROUPS.filter((g) => (m[2] === "subgroups" ? parentOf(g) === root : below(g, root)));
  return json(res, 200, groups.map(group));
}

const dir = mkdtempSync(join(tmpdir(), "ff-select-"));
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Loads a manifest (as a user writes it) and expands its patterns against the platform above. */
async function expand(
  manifest: string,
  targets: string[] = [],
  changes?: ChangeScope,
  serve: typeof platform = platform,
) {
  const file = join(dir, `m${++n}.yaml`);
  writeFileSync(file, manifest);
  const loaded = await loadManifests([file], { secrets: false, root: dir });
  expect(loaded.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  server = await startServer(serve);
  const ctx = await createContext(new ApiClient({ url: server.url, token: "t", maxAttempts: 1 }));
  const expanded = await expandSelectors(loaded.state!, ctx, targets, changes);
  const listings = server.seen
    .filter((r) => r.path !== "/api/v4/version")
    .map((r) => {
      // Pagination is the client's (tested in test/api); what is asked for is the selector's.
      const query = new URLSearchParams([...r.query].filter(([k]) => k !== "page" && k !== "per_page"));
      return `${decodeURIComponent(r.path.replace("/api/v4", ""))}?${query.toString()}`;
    });
  const matched = Object.fromEntries(
    expanded.summaries.map((s) => [`${s.collection}[${s.pattern}]`, s.matched]),
  );
  const items = (c: string) => expanded.state.root.children[c]?.items ?? [];
  return { expanded, listings, matched, items, file, ctx };
}

/** A --changed-since scope in which only these patterns changed. */
const scope = (selectors: string[] = []): ChangeScope => ({
  nodes: new Set(),
  whole: new Set(),
  collections: new Set(),
  selectors: new Set(selectors),
  ancestors: new Set(),
});
const keys = (items: DesiredNode[]) => items.map((i) => i.key).sort();
const BADGE = (name: string) =>
  `badges: [{ name: ${name}, link_url: "https://ci.example/%{project_path}", image_url: "https://ci.example/b.svg" }]`;

describe("expandSelectors: listings", () => {
  it("reads one project listing for patterns inside another's subtree, and filters it per pattern", async () => {
    const { listings, matched, items } = await expand(`version: 1
projects:
  acme/platform/*:
    ${BADGE("direct")}
  acme/**:
    ${BADGE("all")}
  acme/platform/**:
    ${BADGE("deep")}
`);
    expect(listings).toEqual([
      "/groups/acme/projects?simple=true&archived=false&with_shared=false&include_subgroups=true",
    ]);
    expect(matched).toEqual({
      "projects[acme/platform/*]": 2,
      "projects[acme/**]": 5,
      "projects[acme/platform/**]": 3,
    });
    expect(keys(items("projects"))).toEqual([
      "acme/platform/api",
      "acme/platform/infra/tf",
      "acme/platform/web",
      "acme/readme",
      "acme/tools/cli",
    ]);
    const web = items("projects").find((i) => i.key === "acme/platform/web")!;
    expect(web.fromPattern).toBe(true);
    expect(web.children["badges"]!.items.map((b) => b.key).sort()).toEqual(["all", "deep", "direct"]);
    const tf = items("projects").find((i) => i.key === "acme/platform/infra/tf")!;
    expect(tf.children["badges"]!.items.map((b) => b.key).sort()).toEqual(["all", "deep"]);
  });

  it("reads direct children on their own, and archived projects only for a pattern that asks for them", async () => {
    const { listings, matched } = await expand(`version: 1
projects:
  acme/platform/*:
    include_archived: true
    ${BADGE("direct")}
  acme/*:
    ${BADGE("top")}
  acme/platform/infra/*:
    ${BADGE("infra")}
`);
    expect(listings.sort()).toEqual([
      "/groups/acme/platform/infra/projects?simple=true&archived=false&with_shared=false",
      "/groups/acme/platform/projects?simple=true&with_shared=false",
      "/groups/acme/projects?simple=true&archived=false&with_shared=false",
    ]);
    expect(matched).toEqual({
      "projects[acme/platform/*]": 3,
      "projects[acme/*]": 1,
      "projects[acme/platform/infra/*]": 1,
    });
  });

  it("reads the instance's project listing once for every pattern, whatever its depth", async () => {
    const { listings, matched } = await expand(`version: 1
projects:
  "**":
    ${BADGE("all")}
  acme/tools/*:
    ${BADGE("tools")}
  other/**:
    ${BADGE("other")}
`);
    expect(listings).toEqual(["/projects?simple=true&archived=false"]);
    expect(matched).toEqual({ "projects[**]": 6, "projects[acme/tools/*]": 1, "projects[other/**]": 1 });
  });

  it("reads the instance's listing for a pattern of a group's subtree declared before the pattern of everything", async () => {
    // The broadest listing is found whatever the manifests' order: acme/** is not listed on its own first.
    for (const collection of ["projects", "groups"]) {
      const { listings, matched } = await expand(`version: 1
${collection}:
  acme/**:
    ${BADGE("acme")}
  "**":
    ${BADGE("all")}
`);
      expect(listings).toEqual([
        collection === "projects" ? "/projects?simple=true&archived=false" : "/groups?all_available=true",
      ]);
      expect(matched[`${collection}[acme/**]`]).toBe(collection === "projects" ? 5 : 3);
      await server?.close();
      server = undefined;
    }
  });

  it("reads groups through the broadest listing, and a root missing from it matches nothing with no request", async () => {
    const { listings, matched, expanded } = await expand(`version: 1
groups:
  acme/*:
    description: child
  acme/**:
    visibility: private
  acme/platform/*:
    description: platform child
  acme/nope/*:
    description: none
`);
    expect(listings).toEqual(["/groups/acme/descendant_groups?all_available=true"]);
    expect(matched).toEqual({
      "groups[acme/*]": 2,
      "groups[acme/**]": 3,
      "groups[acme/platform/*]": 1,
      "groups[acme/nope/*]": 0,
    });
    expect(expanded.warnings.map((w) => [w.address, w.message])).toEqual([
      [
        'groups["acme/nope/*"]',
        "the pattern matches nothing: group acme/nope does not exist or is not visible to this token's user",
      ],
    ]);
  });

  it("reads direct subgroups of two roots separately, and the instance's groups once for * and **", async () => {
    const children = await expand(`version: 1
groups:
  acme/*:
    description: a
  acme/platform/*:
    description: b
`);
    expect(children.listings.sort()).toEqual([
      "/groups/acme/platform/subgroups?all_available=true",
      "/groups/acme/subgroups?all_available=true",
    ]);
    const top = await expand(`version: 1
groups:
  "*":
    description: top
`);
    expect(top.listings).toEqual(["/groups?all_available=true&top_level_only=true"]);
    expect(top.matched).toEqual({ "groups[*]": 3 });
    const both = await expand(`version: 1
groups:
  "*":
    description: top
  "**":
    visibility: private
`);
    expect(both.listings).toEqual(["/groups?all_available=true"]);
    expect(both.matched).toEqual({ "groups[*]": 3, "groups[**]": 6 });
  });

  it("a pattern under a group that does not exist warns, and its listing's 404 is not an error", async () => {
    const { expanded, matched } = await expand(`version: 1
projects:
  ghost/**:
    ${BADGE("g")}
`);
    expect(matched).toEqual({ "projects[ghost/**]": 0 });
    // Nothing is listed there, so a --target's did-you-mean has nothing to suggest from it.
    expect(expanded.listed).toEqual([]);
    expect(expanded.warnings).toHaveLength(1);
    expect(expanded.warnings[0]!.message).toBe(
      "the pattern matches nothing: group ghost does not exist or is not visible to this token's user",
    );
  });
});

describe("expandSelectors: warnings", () => {
  it("says when a pattern matches nothing, noting archived projects for project patterns only", async () => {
    const { expanded, file } = await expand(`version: 1
projects:
  empty/**:
    ${BADGE("n")}
groups:
  acme/tools/*:
    description: none
`);
    expect(expanded.warnings.map((w) => [w.address, w.message, w.source?.line])).toEqual([
      ['groups["acme/tools/*"]', "the pattern matches no existing groups", 6],
      [
        'projects["empty/**"]',
        "the pattern matches no existing projects (archived projects are left out unless include_archived: true)",
        3,
      ],
    ]);
    expect(expanded.warnings[1]!.source?.file).toContain(file.split("/").pop()!);
  });

  it("says which except entry leaves out nothing, where it is written, and not of one that does", async () => {
    const { expanded, matched } = await expand(`version: 1
projects:
  acme/platform/*:
    except:
      - acme/platform/web
      - acme/platform/olde
    ${BADGE("p")}
groups:
  acme/**:
    except: [acme/platfrom]
    description: d
`);
    expect(matched).toEqual({ "projects[acme/platform/*]": 1, "groups[acme/**]": 3 });
    expect(expanded.warnings.map((w) => [w.address, w.message, w.source?.line])).toEqual([
      [
        'groups["acme/**"].except[0]',
        'except entry "acme/platfrom" leaves out nothing: no group the pattern matches on the platform is at or below it',
        10,
      ],
      [
        'projects["acme/platform/*"].except[1]',
        'except entry "acme/platform/olde" leaves out nothing: no project the pattern matches on the platform is at or below it (archived projects are left out unless include_archived: true)',
        6,
      ],
    ]);
  });
});

describe("expandSelectors: --target", () => {
  const manifest = `version: 1
projects:
  acme/**:
    ${BADGE("a")}
  acme/*:
    ${BADGE("top")}
  acme/tools/*:
    ${BADGE("t")}
  other/*:
    ${BADGE("o")}
  "**":
    ${BADGE("all")}
`;

  it("reads only the patterns whose root is inside a target or holds one, and counts what is in scope", async () => {
    const { listings, matched, items, expanded } = await expand(manifest, ["ACME/Platform/api"]);
    expect(listings).toEqual(["/projects?simple=true&archived=false"]);
    // acme/* matches acme/readme only, outside the target: it says nothing.
    expect(matched).toEqual({ "projects[acme/**]": 1, "projects[**]": 1 });
    expect(keys(items("projects"))).toEqual(["acme/platform/api"]);
    expect(expanded.warnings).toEqual([]);
    expect(expanded.unknowable("acme/platform/api")).toBe(false);
  });

  it("reads a pattern below the target, and nothing for a target of instance settings only", async () => {
    const below = await expand(manifest.replace(/ {2}"\*\*":\n.*\n/, ""), ["acme/tools"]);
    expect(below.listings).toEqual([
      "/groups/acme/projects?simple=true&archived=false&with_shared=false&include_subgroups=true",
    ]);
    expect(below.matched).toEqual({ "projects[acme/**]": 1, "projects[acme/tools/*]": 1 });
    const instance = await expand(manifest, ["instance"]);
    expect(instance.listings).toEqual([]);
    expect(instance.items("projects")).toEqual([]);
  });
});

describe("expandSelectors: --changed-since", () => {
  it("applies an unchanged pattern to the projects declared by path, learning which are archived from one listing", async () => {
    const changes = scope();
    const { listings, items, expanded } = await expand(
      `version: 1
projects:
  acme/platform/*:
    ${BADGE("p")}
  acme/platform/api:
    ${BADGE("own")}
  acme/platform/old:
    ${BADGE("own")}
  acme/tools/cli:
    ${BADGE("own")}
`,
      [],
      changes,
    );
    expect(listings).toEqual(["/groups/acme/platform/projects?simple=true&archived=true&with_shared=false"]);
    // What an unchanged pattern matches is not planned whole: only the changes to those projects are.
    expect([...changes.whole]).toEqual([]);
    const badges = (k: string) =>
      items("projects")
        .find((i) => i.key === k)!
        .children["badges"]!.items.map((b) => b.key)
        .sort();
    expect(badges("acme/platform/api")).toEqual(["own", "p"]);
    expect(badges("acme/platform/old")).toEqual(["own"]);
    expect(badges("acme/tools/cli")).toEqual(["own"]);
    expect(expanded.summaries).toEqual([]);
    expect(expanded.unknowable("acme/platform/web")).toBe(true);
    expect(expanded.unknowable("acme/tools")).toBe(false);
  });

  it("lists a changed pattern and plans whole what it matches; an unchanged one reuses that listing", async () => {
    const changes = scope(['projects["acme/**"]']);
    const { listings, items, matched } = await expand(
      `version: 1
projects:
  acme/**:
    ${BADGE("a")}
  acme/platform/*:
    ${BADGE("p")}
  acme/platform/api:
    ${BADGE("own")}
`,
      [],
      changes,
    );
    expect(listings).toEqual([
      "/groups/acme/projects?simple=true&archived=false&with_shared=false&include_subgroups=true",
    ]);
    expect(matched).toEqual({ "projects[acme/**]": 5 });
    expect([...changes.whole].sort()).toEqual([
      'projects["acme/platform/api"]',
      'projects["acme/platform/infra/tf"]',
      'projects["acme/platform/web"]',
      'projects["acme/readme"]',
      'projects["acme/tools/cli"]',
    ]);
    const web = items("projects").find((i) => i.key === "acme/platform/web")!;
    expect(web.children["badges"]!.items.map((b) => b.key).sort()).toEqual(["a", "p"]);
  });

  it("an unchanged group pattern applies to groups declared by path and to groups other listings hold", async () => {
    const { listings, items } = await expand(
      `version: 1
groups:
  acme/*:
    description: child
  acme/tools:
    visibility: private
  other:
    visibility: private
`,
      [],
      scope(),
    );
    expect(listings).toEqual([]);
    const tools = items("groups").find((i) => i.key === "acme/tools")!;
    expect(tools.fields).toMatchObject({ description: "child", visibility: "private" });
    expect(items("groups").find((i) => i.key === "other")!.fields["description"]).toBeUndefined();
  });
});

describe("expandSelectors: --changed-since, unchanged patterns", () => {
  const badges = (items: DesiredNode[], k: string) =>
    items
      .find((i) => i.key === k)!
      .children["badges"]!.items.map((b) => b.key)
      .sort();

  it("an unchanged group pattern applies to the groups a changed one lists", async () => {
    const { listings, items } = await expand(
      `version: 1
groups:
  acme/**:
    visibility: private
  acme/*:
    description: child
`,
      [],
      scope(['groups["acme/**"]']),
    );
    expect(listings).toEqual(["/groups/acme/descendant_groups?all_available=true"]);
    expect(items("groups").map((g) => [g.key, g.fields["description"]])).toEqual([
      ["acme/platform", "child"],
      ["acme/platform/infra", undefined],
      ["acme/tools", "child"],
    ]);
  });

  it("an unchanged pattern that wants archived projects applies to an archived one declared by path; one that does not, does not", async () => {
    const { listings, items } = await expand(
      `version: 1
projects:
  acme/platform/*:
    ${BADGE("live")}
  acme/platform/**:
    include_archived: true
    ${BADGE("any")}
  acme/platform/old:
    ${BADGE("own")}
`,
      [],
      scope(),
    );
    expect(listings).toEqual(["/groups/acme/platform/projects?simple=true&archived=true&with_shared=false"]);
    expect(badges(items("projects"), "acme/platform/old")).toEqual(["any", "own"]);
  });

  it("checks which declared projects are archived only for unchanged project patterns that leave them out", async () => {
    // A changed pattern lists its projects; the archived one declared by path is read on its own.
    const changed = await expand(
      `version: 1
projects:
  acme/**:
    ${BADGE("a")}
  acme/platform/old:
    ${BADGE("own")}
`,
      [],
      scope(['projects["acme/**"]']),
    );
    expect(changed.listings).toEqual([
      "/groups/acme/projects?simple=true&archived=false&with_shared=false&include_subgroups=true",
      "/projects/acme/platform/old?",
    ]);
    expect(badges(changed.items("projects"), "acme/platform/old")).toEqual(["own"]);
    // A group pattern says nothing about projects.
    const groups = await expand(
      `version: 1
groups:
  acme/**:
    description: d
projects:
  acme/tools/cli:
    ${BADGE("own")}
`,
      [],
      scope(),
    );
    expect(groups.listings).toEqual([]);
  });
});

describe("expandSelectors: the state it returns", () => {
  it("gives matched groups and projects a collection with the default policies when none is declared", async () => {
    const { expanded } = await expand(`version: 1
groups:
  acme/tools/*:
    description: nothing here
projects:
  acme/tools/*:
    ${BADGE("t")}
`);
    expect(expanded.state.selectors).toEqual([]);
    expect(expanded.state.root.children["projects"]!.policy).toBe("ignore");
    const groups = await expand(`version: 1
groups:
  acme/*:
    description: d
`);
    expect(groups.expanded.state.root.children["groups"]!.policy).toBe("warn");
    expect(groups.expanded.listed.sort()).toEqual(["acme/platform", "acme/tools"]);
  });

  it("keeps an absent entry as written, and the exact entry's spelling of a path the listing spells otherwise", async () => {
    const { items } = await expand(`version: 1
groups:
  acme/*:
    description: from the pattern
  ACME/Tools:
    visibility: private
  acme/platform:
    state: absent
`);
    const list = items("groups");
    expect(list.map((i) => [i.key, i.state])).toEqual([
      ["ACME/Tools", "present"],
      ["acme/platform", "absent"],
    ]);
    expect(list[0]!.fields).toEqual({ description: "from the pattern", visibility: "private" });
    expect(list[1]!.fields).toEqual({});
  });
});

describe("expandSelectors: which listing stands in for which", () => {
  it("never reads a project pattern through a group listing, nor one that wants archived projects through one that leaves them out", async () => {
    const kinds = await expand(`version: 1
groups:
  "**":
    description: every group
projects:
  acme/**:
    include_archived: true
    ${BADGE("all")}
`);
    expect(kinds.listings.sort()).toEqual([
      "/groups/acme/projects?simple=true&with_shared=false&include_subgroups=true",
      "/groups?all_available=true",
    ]);
    expect(kinds.matched).toEqual({ "groups[**]": 6, "projects[acme/**]": 6 });
    expect(keys(kinds.items("projects"))).toContain("acme/platform/old");

    const archived = await expand(`version: 1
projects:
  acme/**:
    ${BADGE("all")}
  acme/platform/*:
    include_archived: true
    ${BADGE("direct")}
`);
    expect(archived.listings.sort()).toEqual([
      "/groups/acme/platform/projects?simple=true&with_shared=false",
      "/groups/acme/projects?simple=true&archived=false&with_shared=false&include_subgroups=true",
    ]);
    expect(archived.matched).toEqual({ "projects[acme/**]": 5, "projects[acme/platform/*]": 3 });
  });

  it("reads the instance's group listing for a pattern of one group's children, and its project listing for a top-level pattern", async () => {
    const groups = await expand(`version: 1
groups:
  "**":
    visibility: private
  acme/*:
    description: child
`);
    expect(groups.listings).toEqual(["/groups?all_available=true"]);
    expect(groups.matched).toEqual({ "groups[**]": 6, "groups[acme/*]": 2 });

    // A project pattern at the top of the instance matches every project, as "**" does: one listing serves both.
    const projects = await expand(`version: 1
projects:
  "*":
    ${BADGE("top")}
  acme/**:
    ${BADGE("all")}
`);
    expect(projects.listings).toEqual(["/projects?simple=true&archived=false"]);
    expect(projects.matched).toEqual({ "projects[*]": 6, "projects[acme/**]": 5 });
  });

  it("an except entry that only a broader pattern's listing holds still leaves out nothing", async () => {
    const { expanded, listings } = await expand(`version: 1
projects:
  acme/**:
    ${BADGE("all")}
  acme/platform/*:
    except: [acme/platform/infra/tf]
    ${BADGE("direct")}
`);
    expect(listings).toHaveLength(1);
    expect(expanded.warnings.map((w) => w.address)).toEqual(['projects["acme/platform/*"].except[0]']);
  });

  it("reads project listings in full when a pattern sets project settings, and not for group settings", async () => {
    const settings = await expand(`version: 1
projects:
  acme/tools/*:
    description: a tool
`);
    expect(settings.listings).toEqual(["/groups/acme/tools/projects?archived=false&with_shared=false"]);
    // The settings of the projects it holds come with it: reading them costs no request of their own.
    const seen = server!.seen.length;
    expect(await readProject(settings.ctx, "acme/tools/cli")).toMatchObject({
      path_with_namespace: "acme/tools/cli",
    });
    expect(server!.seen.length).toBe(seen);
    const groupOnly = await expand(`version: 1
groups:
  acme/*:
    description: a group
projects:
  acme/tools/*:
    ${BADGE("t")}
`);
    expect(groupOnly.listings.sort()).toEqual([
      "/groups/acme/subgroups?all_available=true",
      "/groups/acme/tools/projects?simple=true&archived=false&with_shared=false",
    ]);
  });
});

describe("expandSelectors: projects declared by path that no listing holds", () => {
  it("matches a project to be created, not an archived one the pattern leaves out, nor one declared absent", async () => {
    const { listings, matched, items } = await expand(`version: 1
projects:
  acme/platform/*:
    ${BADGE("p")}
  acme/platform/fresh:
    ${BADGE("own")}
  acme/platform/old:
    ${BADGE("own")}
  acme/platform/gone:
    state: absent
    description: settings of a project to delete are no settings to read
`);
    expect(listings.sort()).toEqual([
      "/groups/acme/platform/projects?simple=true&archived=false&with_shared=false",
      "/projects/acme/platform/fresh?",
      "/projects/acme/platform/old?",
    ]);
    expect(matched).toEqual({ "projects[acme/platform/*]": 3 });
    const badges = (k: string) =>
      items("projects")
        .find((i) => i.key === k)!
        .children["badges"]?.items.map((b) => b.key)
        .sort();
    expect(badges("acme/platform/fresh")).toEqual(["own", "p"]);
    expect(badges("acme/platform/web")).toEqual(["p"]);
    expect(badges("acme/platform/old")).toEqual(["own"]);
    expect(items("projects").find((i) => i.key === "acme/platform/gone")!.state).toBe("absent");
  });

  it("reads no declared project to decide what a group pattern matches", async () => {
    const { listings } = await expand(`version: 1
groups:
  acme/**:
    description: d
projects:
  acme/tools/cli:
    ${BADGE("own")}
  acme/tools/fresh:
    ${BADGE("own")}
`);
    expect(listings).toEqual(["/groups/acme/descendant_groups?all_available=true"]);
  });
});

describe("expandSelectors: what the platform answers", () => {
  const refusing =
    (status: number, path: string): typeof platform =>
    (req, res) =>
      req.path === path ? json(res, status, { message: `${status} Forbidden` }) : platform(req, res);

  it("fails on a listing the platform refuses other than with 404, instead of matching nothing", async () => {
    await expect(
      expand(
        `version: 1
projects:
  acme/**:
    ${BADGE("a")}
`,
        [],
        undefined,
        refusing(403, "/api/v4/groups/acme/projects"),
      ),
    ).rejects.toMatchObject({ status: 403 });
  });

  it("fails on a listing whose items lack their path, instead of matching an empty path", async () => {
    const pathless =
      (field: string): typeof platform =>
      (req, res) =>
        req.path === "/api/v4/projects" || req.path === "/api/v4/groups"
          ? json(res, 200, [
              { id: 1, [field === "full_path" ? "path_with_namespace" : "full_path"]: "acme/x" },
            ])
          : platform(req, res);
    await expect(
      expand(
        `version: 1\nprojects:\n  "**":\n    ${BADGE("a")}\n`,
        [],
        undefined,
        pathless("path_with_namespace"),
      ),
    ).rejects.toThrow(/path_with_namespace/);
    await expect(
      expand(`version: 1\ngroups:\n  "**":\n    description: d\n`, [], undefined, pathless("full_path")),
    ).rejects.toThrow(/full_path/);
  });
});
