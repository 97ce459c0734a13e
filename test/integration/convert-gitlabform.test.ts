/**
 * `forgeform convert --from gitlabform` on the sandbox: the groups and projects a GitLabForm configuration is
 * written for, the conversion applied, then what GitLabForm's levels mean checked on the platform ("*" for every
 * group and project, group/* for the group, its subgroups and every project below, a project's own entry over both,
 * skip_groups and skip_projects left alone), and a second plan with no changes.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Conversion, convertInto, expectSecrets } from "./convert.js";
import { Bench } from "./helpers.js";

const CONFIG = fileURLToPath(new URL("../fixtures/convert/gitlabform/config.yml", import.meta.url));

/** The secrets of the configuration, by the variables the conversion names them with. */
const ENV: Record<string, string> = {
  NIGHTLY_BUILD_BUILD_FLAVOUR: "full",
  ACME_REGISTRY_PASSWORD: "s3cr3t-registry-pass",
  ACME_DEPLOY_REGION_PRODUCTION: "eu-west-1",
  ACME_CHAT_ACME_EXAMPLE_URL_KEY: "chatKEY12345",
  ACME_CHAT_ACME_EXAMPLE_TOKEN: "group-hook-token-never-printed",
  ACME_SHARED_SETTING: "on",
  ACME_CI_ACME_EXAMPLE_TOKEN: "project-hook-token-never-printed",
  PLATFORM_SHARED_SETTING: "platform-value",
  API_DEPLOY_TOKEN: "api-deploy-token-value",
};

/** The instance GitLabForm's configuration is written for: its groups and projects exist. */
const fixture = {
  users: [{ username: "alice" }, { username: "bob" }, { username: "carol" }],
  groups: [
    { path: "acme", visibility: "internal" },
    { path: "acme/platform", visibility: "internal" },
    { path: "acme/attic", visibility: "internal", description: "Old things" },
    { path: "auditors" },
    { path: "other" },
  ],
  projects: [
    { path: "acme/web", default_branch: "main" },
    { path: "acme/platform/api", default_branch: "main" },
    { path: "acme/platform/web", default_branch: "main" },
    { path: "acme/platform/scratch", default_branch: "main", description: "Scratch" },
    { path: "acme/attic/old", default_branch: "main" },
    { path: "other/tool", default_branch: "main" },
  ],
};

const enc = (path: string) => encodeURIComponent(path);

describe("convert --from gitlabform: applied to the sandbox, it means what GitLabForm's levels mean", () => {
  let bench: Bench;
  let out: string;
  let converted: Conversion;
  let applied: { code: number; out: string; err: string };

  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    out = join(bench.dir, "converted");
    converted = await convertInto(bench, "gitlabform", CONFIG, out);
    applied = await bench.cli(["apply", out, "--yes"], ENV);
  }, 60_000);
  afterAll(async () => {
    await bench?.stop();
  });

  it('writes one file per top-level group, the patterns of "*" and the instance, naming every secret', () => {
    expect(converted.names).toEqual(["acme.yaml", "all.yaml", "instance.yaml"]);
    expectSecrets(converted, ENV, ["glpat-never-printed-anywhere"]);
  });

  it("applies", () => {
    expect(applied.code, applied.out + applied.err).toBe(0);
  });

  it('gives each group what its levels say: "*", then group/*, then the subgroup\'s own', async () => {
    const acme = await bench.get<Record<string, unknown>>("/groups/acme");
    expect(acme).toMatchObject({
      description: "Everything ACME builds",
      visibility: "internal",
      project_creation_level: "maintainer",
      subgroup_creation_level: "owner",
      two_factor_grace_period: 24,
      request_access_enabled: false,
    });
    const platform = await bench.get<Record<string, unknown>>(`/groups/${enc("acme/platform")}`);
    expect(platform).toMatchObject({
      description: "The platform team",
      project_creation_level: "maintainer",
      request_access_enabled: false,
    });
    const other = await bench.get<Record<string, unknown>>("/groups/other");
    expect(other).toMatchObject({ request_access_enabled: false });
    // skip_groups: acme/attic/* is left alone, "*" included.
    const attic = await bench.get<Record<string, unknown>>(`/groups/${enc("acme/attic")}`);
    expect(attic).toMatchObject({ description: "Old things", request_access_enabled: true });

    const variables = await bench.get<Record<string, unknown>[]>("/groups/acme/variables");
    expect(
      variables
        .map((v) => [v["key"], v["value"], v["protected"], v["masked"], v["environment_scope"]])
        .sort(),
    ).toEqual([
      ["DEPLOY_REGION", "eu-west-1", false, false, "production"],
      ["REGISTRY_PASSWORD", "s3cr3t-registry-pass", true, true, "*"],
    ]);
    const members = async (path: string) =>
      (await bench.get<Record<string, unknown>[]>(`/groups/${enc(path)}/members`))
        .filter((m) => m["username"] !== "root")
        .map((m) => [m["username"], m["access_level"], m["expires_at"]])
        .sort();
    expect(await members("acme")).toEqual([
      ["alice", 50, null],
      ["bob", 30, "2027-12-31"],
    ]);
    // group/* applies to the subgroups too, as GitLabForm applies it.
    expect(await members("acme/platform")).toEqual(await members("acme"));
    const shares = (await bench.get<{ shared_with_groups: Record<string, unknown>[] }>("/groups/acme"))
      .shared_with_groups;
    expect(shares.map((g) => [g["group_full_path"], g["group_access_level"]])).toEqual([["auditors", 20]]);
    const labels = await bench.get<Record<string, unknown>[]>("/groups/acme/labels");
    expect(labels.map((l) => [l["name"], l["color"]])).toEqual([["priority::high", "#FF0000"]]);
    const badges = await bench.get<Record<string, unknown>[]>(`/groups/${enc("acme/platform")}/badges`);
    expect(badges.filter((b) => b["kind"] === "group").map((b) => b["name"])).toEqual(["docs"]);
  });

  it("gives each project what its levels say, a project's own entry last, and leaves skipped ones alone", async () => {
    const project = (path: string) => bench.get<Record<string, unknown>>(`/projects/${enc(path)}`);
    const api = await project("acme/platform/api");
    expect(api).toMatchObject({
      description: "The public API",
      build_timeout: 7200,
      emails_disabled: true,
      visibility: "internal",
      merge_method: "ff",
      public_jobs: false,
    });
    const web = await project("acme/web");
    expect(web).toMatchObject({ visibility: "internal", merge_method: "ff", topics: ["acme"] });

    const vars = async (path: string) =>
      (await bench.get<Record<string, unknown>[]>(`/projects/${enc(path)}/variables`))
        .map((v) => [v["key"], v["value"], v["masked"]])
        .sort();
    expect(await vars("acme/platform/api")).toEqual([
      ["DEPLOY_TOKEN", "api-deploy-token-value", true],
      ["SHARED_SETTING", "platform-value", false],
    ]);
    expect(await vars("acme/web")).toEqual([["SHARED_SETTING", "on", false]]);

    const schedules = async (path: string) =>
      bench.get<Record<string, unknown>[]>(`/projects/${enc(path)}/pipeline_schedules`);
    const webNightly = (await schedules("acme/web")).find((s) => s["description"] === "Nightly build")!;
    expect(webNightly).toMatchObject({ ref: "main", cron: "0 2 * * *", cron_timezone: "Europe/Berlin" });
    // acme/platform/* changes the cron of "*"'s schedule (H: a stable hour-3 minute) and adds one.
    const apiSchedules = await schedules("acme/platform/api");
    expect(apiSchedules.map((s) => s["description"]).sort()).toEqual(["Nightly build", "Weekly cleanup"]);
    expect(apiSchedules.find((s) => s["description"] === "Nightly build")!["cron"]).toMatch(
      /^\d+ 3 \* \* \*$/,
    );

    const badgeNames = async (path: string) =>
      (await bench.get<Record<string, unknown>[]>(`/projects/${enc(path)}/badges`))
        .filter((b) => b["kind"] === "project")
        .map((b) => b["name"]);
    expect(await badgeNames("other/tool")).toEqual(["coverage"]);
    expect(await badgeNames("acme/web")).toEqual(["coverage"]);
    // delete: true on the project's own entry.
    expect(await badgeNames("acme/platform/api")).toEqual([]);
    // skip_projects and skip_groups.
    expect(await badgeNames("acme/platform/scratch")).toEqual([]);
    expect(await badgeNames("acme/attic/old")).toEqual([]);
    expect(await project("acme/platform/scratch")).toMatchObject({ description: "Scratch" });

    const hooks = await bench.get<Record<string, unknown>[]>(`/projects/${enc("acme/platform/web")}/hooks`);
    expect(hooks.map((h) => [h["url"], h["push_events"], h["tag_push_events"]])).toEqual([
      ["https://ci.acme.example/hook", true, true],
    ]);
    type Level = { access_level: number };
    const branches = await bench.get<
      { name: string; push_access_levels: Level[]; merge_access_levels: Level[] }[]
    >(`/projects/${enc("acme/web")}/protected_branches`);
    expect(
      branches.map((b) => [
        b.name,
        b.push_access_levels[0]!.access_level,
        b.merge_access_levels[0]!.access_level,
      ]),
    ).toEqual([
      ["main", 0, 30],
      ["release/*", 40, 40],
    ]);
    const tags = await bench.get<{ name: string; create_access_levels: Level[] }[]>(
      `/projects/${enc("acme/web")}/protected_tags`,
    );
    expect(tags.map((t) => [t.name, t.create_access_levels[0]!.access_level])).toEqual([["v*", 40]]);
    const projectMembers = await bench.get<Record<string, unknown>[]>(`/projects/${enc("acme/web")}/members`);
    expect(projectMembers.map((m) => [m["username"], m["access_level"]])).toEqual([["carol", 40]]);
    const labels = await bench.get<Record<string, unknown>[]>(`/projects/${enc("acme/web")}/labels`);
    expect(labels.filter((l) => l["is_project_label"]).map((l) => l["name"])).toEqual(["bug"]);
  });

  it("reports what GitLabForm's configuration holds and forgeform does not take, at its line", () => {
    const lines = readFileSync(CONFIG, "utf8").split("\n");
    const at = (text: string) => lines.findIndex((l) => l.includes(text)) + 1;
    const notConverted = converted.report.items.filter((i) => i.type === "not-converted");
    expect(notConverted).toContainEqual(
      expect.objectContaining({
        line: at("inherit: false"),
        message: expect.stringMatching(/no equivalent/),
      }),
    );
    expect(notConverted).toContainEqual(
      expect.objectContaining({
        line: at("integrations:"),
        message: "forgeform does not manage integrations",
      }),
    );
    expect(notConverted).toContainEqual(expect.objectContaining({ line: at("gitlab:"), source: "gitlab" }));
  });

  it("plans no changes once applied", async () => {
    const plan = await bench.cli(["plan", out, "--detailed-exitcode"], ENV);
    expect(plan.code, plan.out + plan.err).toBe(0);
  });
});
