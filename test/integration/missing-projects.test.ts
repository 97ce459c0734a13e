/**
 * A project path with a typo (forgeform never creates projects): the plan names each missing project at its place
 * in the manifest, once, however many of its collections were to be read, with the path or group it probably
 * meant, and apply sends nothing at all.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const fixture = {
  groups: [{ path: "acme" }, { path: "acme/platform" }],
  projects: [{ path: "acme/platform/api" }, { path: "acme/platform/web" }],
};

const MANIFEST = `version: 1
projects:
  acme/platfrom/api:
    badges:
      - { name: docs, link_url: "https://d.example/x", image_url: "https://d.example/b.svg" }
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 2 * * *" }
  acme/platform/ap:
    pipeline_schedules:
      - { description: nightly, ref: main, cron: "0 2 * * *" }
  acme/platform/web:
    badges:
      - { name: docs, link_url: "https://d.example/x", image_url: "https://d.example/b.svg" }
`;

describe("a declared project that does not exist", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("is a plan error at its place, once per project, with the closest existing path or group", async () => {
    const file = bench.manifest(MANIFEST, "typo.yaml");
    const plan = await bench.cli(["plan", "--format", "json", file]);
    expect(plan.code).toBe(1);
    const json = JSON.parse(plan.out) as {
      errors: { address: string; message: string; source?: { line: number; col: number } }[];
    };
    const missing = (path: string, hint: string) =>
      `project "${path}" does not exist or is not visible to this token's user, and forgeform does not create projects: create it first, or check the path; ${hint}`;
    expect(json.errors.map((e) => [e.address, e.message, e.source?.line, e.source?.col])).toEqual([
      [
        'project["acme/platfrom/api"]',
        missing(
          "acme/platfrom/api",
          `"acme/platfrom" is not a group this token's user can see either: did you mean group "acme/platform"?`,
        ),
        3,
        3,
      ],
      ['project["acme/platform/ap"]', missing("acme/platform/ap", 'did you mean "acme/platform/api"?'), 8, 3],
    ]);
  });

  it("stops apply before anything is sent, the existing project's change included", async () => {
    const apply = await bench.cli(["apply", "--yes", bench.manifest(MANIFEST, "typo.yaml")]);
    expect(apply.code).toBe(1);
    expect(apply.out + apply.err).toContain("nothing was applied");
    expect(await bench.get<unknown[]>("/projects/acme%2Fplatform%2Fweb/badges")).toEqual([]);
  });
});
