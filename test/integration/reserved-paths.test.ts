/**
 * Paths the platform reserves for its own routes: forgeform refuses to plan a group or project it would refuse to
 * create, before any request, and the sandbox (which keeps its own list, as the platform does) refuses the same paths.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reservedWord } from "../../src/manifest/reserved.js";
import { ADMIN_TOKEN, Bench } from "./helpers.js";

const fixture = {
  groups: [{ path: "acme" }, { path: "acme/info" }, { path: "acme/info/lfs" }, { path: "acme/environments" }],
};

describe("reserved paths", () => {
  let bench: Bench;
  const requests: string[] = [];
  beforeAll(async () => {
    bench = await Bench.start({
      fixture,
      onRequest: (method, path) => void requests.push(`${method} ${path.split("?")[0]}`),
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("plan refuses a reserved group or project path at its place in the manifest, and sends nothing", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  acme/Edit: { description: x }\n  acme/info/lfs/objects: {}\nprojects:\n  acme/new: { description: y }\n",
      "reserved.yaml",
    );
    requests.length = 0;
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    const out = (plan.out + plan.err).replace(/\s+/g, " ");
    expect(out).toContain(
      'reserved.yaml:3:3: groups["acme/Edit"]: "acme/Edit" is a path the platform reserves: "edit" is a word of its own routes (compared in any case), refused as a subgroup\'s path, so creating the subgroup fails; choose another path (one that merely contains the word, such as "edit-app", is allowed)',
    );
    expect(out).toContain(
      'reserved.yaml:4:3: groups["acme/info/lfs/objects"]: "acme/info/lfs/objects" is a path the platform reserves',
    );
    expect(out).toContain(
      'reserved.yaml:6:3: projects["acme/new"]: "acme/new" is a path the platform reserves: "new" is a word of its own routes',
    );
    expect(out).not.toContain("will be created");
    // An invalid manifest makes no request at all, so certainly no write.
    expect(requests).toEqual([]);
    expect((await bench.get<{ path: string }[]>("/groups/acme/projects")).map((p) => p.path)).not.toContain(
      "new",
    );

    const validate = await bench.cli(["validate", m]);
    expect(validate.code).toBe(1);
    expect(validate.out).toContain('reserved.yaml:6:3: projects["acme/new"]');
  });

  it("plans and creates a path that merely contains a reserved word, or is reserved only elsewhere", async () => {
    const m = bench.manifest(
      "version: 1\ngroups:\n  acme/editor: {}\n  acme/admin: {}\n  edit: {}\nprojects:\n  acme/new-api: { description: contains new }\n  acme/snippets: { description: reserved at the top only }\n",
      "allowed.yaml",
    );
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    for (const path of ["acme/editor", "acme/admin", "edit"]) {
      expect((await bench.get<{ full_path: string }>(`/groups/${encodeURIComponent(path)}`)).full_path).toBe(
        path,
      );
    }
    for (const path of ["acme/new-api", "acme/snippets"]) {
      const p = await bench.get<{ path_with_namespace: string }>(`/projects/${encodeURIComponent(path)}`);
      expect(p.path_with_namespace).toBe(path);
    }
    expect((await bench.cli(["plan", "--detailed-exitcode", m])).code).toBe(0);
  });

  /** What the sandbox answers to creating a group or project at `parent/path`. */
  async function create(kind: "group" | "project", parent: string | null, path: string, n: number) {
    const post = async (route: string, body: Record<string, unknown>) => {
      const res = await fetch(`${bench.sandbox.url}/api/v4${route}`, {
        method: "POST",
        headers: { "PRIVATE-TOKEN": ADMIN_TOKEN, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    };
    const parentId = parent
      ? (await bench.get<{ id: number }>(`/groups/${encodeURIComponent(parent)}`)).id
      : undefined;
    if (kind === "project") return post("/projects", { name: `Project ${n}`, path, namespace_id: parentId });
    return post("/groups", { name: `Group ${n}`, path, ...(parentId ? { parent_id: parentId } : {}) });
  }

  // Each path at the edge of the rule, with what the platform (13.12) does: refuse it (true) or create it (false).
  const cases: [kind: "group" | "project", parent: string | null, path: string, reserved: boolean][] = [
    ["project", "acme", "new", true],
    ["project", "acme", "TREE", true],
    ["project", "acme", "create_dir", true],
    ["project", "acme", "new-api2", false],
    ["project", "acme", "renew", false],
    ["project", "acme", "ne", false],
    ["project", "acme", "admin", false],
    ["project", "acme", "environments", false],
    ["project", "acme", "info", false],
    ["project", "acme", "gitlab-lfs", false],
    ["project", "acme", "merge_requests", false],
    ["project", "acme", "logs_tree", false],
    ["group", null, "admin", true],
    ["group", null, "Api", true],
    ["group", null, "sitemap.xml", true],
    ["group", null, "s", true],
    ["group", null, "admin-tools", false],
    ["group", null, "new", false],
    ["group", null, "abuse_reports", false],
    ["group", null, "autocomplete", false],
    ["group", null, "invites", false],
    ["group", null, "sent_notifications", false],
    ["group", "acme", "Blob", true],
    ["group", "acme", "raw", true],
    ["group", "acme", "help", false],
    ["group", "acme", "rawdata", false],
    ["group", "acme/info/lfs", "objects", true],
    ["group", "acme/info/lfs", "objects2", false],
    ["group", "acme/environments", "folders", true],
    ["group", "acme", "folders", false],
    ["group", "acme", "gitlab-lfs", false],
    ["group", "acme/gitlab-lfs", "Objects", true],
  ];

  it("the sandbox refuses exactly the paths forgeform refuses, as the platform does", async () => {
    for (const [i, [kind, parent, path, reserved]] of cases.entries()) {
      const full = parent ? `${parent}/${path}` : path;
      const label = `${kind} ${full}`;
      expect(reservedWord(full, kind === "group" ? "groups" : "projects") !== undefined, label).toBe(
        reserved,
      );
      const answer = await create(kind, parent, path, i);
      if (reserved) {
        expect(answer.status, label).toBe(400);
        expect(answer.text, label).toContain(`${path} is a reserved name`);
      } else {
        expect(answer.status, `${label}: ${answer.text}`).toBe(201);
      }
    }
  });
});
