import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apply, expectChanges, FIXTURE, lifecycle, planJson } from "./cycle.js";
import { ADMIN_TOKEN, Bench } from "./helpers.js";

interface Badge {
  link_url: string;
  image_url: string;
}

function manifest(owner: "groups" | "projects", path: string, b: Badge | undefined, policy?: string): string {
  // Only badges are under test: the group's undeclared subgroups are not reported.
  return `version: 1
instance:
  unmanaged:
    groups: ignore
${owner}:
  ${path}:
    badges:${b ? "" : " []"}
${b ? `      - name: coverage\n        link_url: "${b.link_url}"\n        image_url: "${b.image_url}"\n` : ""}${
  policy ? `    unmanaged:\n      badges: ${policy}\n` : ""
}`;
}

describe("badges", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: FIXTURE });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const base: Badge = {
    link_url: "https://ci.example.com/%{project_path}",
    image_url: "https://ci.example.com/%{project_path}/badge.svg",
  };

  it("project badges go through the whole lifecycle, field by field", async () => {
    await lifecycle({
      bench,
      address: 'project["acme/platform/api"].badge["coverage"]',
      render: (v, policy) => manifest("projects", "acme/platform/api", v, policy),
      base,
      edits: [
        { values: { ...base, link_url: "https://ci.example.com/x/%{default_branch}" }, fields: ["link_url"] },
        {
          values: {
            link_url: "https://ci.example.com/x/%{default_branch}",
            image_url: "https://img.example.com/b.svg",
          },
          fields: ["image_url"],
        },
      ],
      without: (policy) => manifest("projects", "acme/platform/api", undefined, policy),
      read: async () =>
        (await bench.get<Record<string, unknown>[]>("/projects/acme%2Fplatform%2Fapi/badges")).filter(
          (b) => b["name"] === "coverage" && b["kind"] === "project",
        ),
      expected: (v) => ({ link_url: v.link_url, image_url: v.image_url }),
    });
  });

  it("group badges go through the whole lifecycle", async () => {
    await lifecycle({
      bench,
      address: 'group["acme"].badge["coverage"]',
      render: (v, policy) => manifest("groups", "acme", v, policy),
      base,
      edits: [{ values: { ...base, image_url: "https://img.example.com/g.svg" }, fields: ["image_url"] }],
      without: (policy) => manifest("groups", "acme", undefined, policy),
      read: async () =>
        (await bench.get<Record<string, unknown>[]>("/groups/acme/badges")).filter(
          (b) => b["name"] === "coverage",
        ),
      expected: (v) => ({ link_url: v.link_url, image_url: v.image_url }),
    });
  });

  it("never changes or deletes a group's badge through a project", async () => {
    await apply(bench, bench.manifest(manifest("groups", "acme", base)));
    // The project's list now holds the group badge (kind: group); a delete policy must leave it alone.
    const listed = await bench.get<{ kind: string; name: string }[]>(
      "/projects/acme%2Fplatform%2Fapi/badges",
    );
    expect(listed.some((b) => b.kind === "group")).toBe(true);
    const pruneProject = bench.manifest(manifest("projects", "acme/platform/api", undefined, "delete"));
    expectChanges(await planJson(bench, pruneProject), []);
    // Declaring a badge of the same name on the project is an error, not an edit of the group's badge.
    const clash = bench.manifest(
      manifest("projects", "acme/platform/api", { ...base, image_url: "https://x.example/y.svg" }),
    );
    const r = await bench.cli(["plan", clash]);
    expect(r.code).toBe(1);
    expect(r.out.replace(/\s+/g, " ")).toContain("a group badge inherited by the project");
    const res = await fetch(`${bench.sandbox.url}/api/v4/groups/acme/badges`, {
      headers: { "PRIVATE-TOKEN": ADMIN_TOKEN },
    });
    const groupBadges = (await res.json()) as { image_url: string }[];
    expect(groupBadges.map((b) => b.image_url)).toEqual([base.image_url]);
  });

  it("knows a badge made before badges had names by its two URLs, and prunes it by them", async () => {
    const api = "acme/platform/api";
    const nameless = [
      { link_url: "https://old.example.com/a", image_url: "https://old.example.com/a.svg" },
      { link_url: "https://old.example.com/b", image_url: "https://old.example.com/b.svg" },
    ];
    const own = await Bench.start({
      fixture: { ...FIXTURE, badges: nameless.map((b) => ({ project: api, ...b })) },
    });
    try {
      const file = own.manifest(manifest("projects", api, base, "delete"));
      const address = (b: Badge) => `project["${api}"].badge["${b.link_url} ${b.image_url}"]`;
      expectChanges(await planJson(own, file), [
        { address: `project["${api}"].badge["coverage"]`, action: "create" },
        ...nameless.map((b) => ({ address: address(b), action: "delete" })),
      ]);
      await apply(own, file);
      const listed = await own.get<{ name: string | null; kind: string }[]>(
        `/projects/${encodeURIComponent(api)}/badges`,
      );
      expect(listed.filter((b) => b.kind === "project").map((b) => b.name)).toEqual(["coverage"]);
      expectChanges(await planJson(own, file), []);
    } finally {
      await own.stop();
    }
  });
});
