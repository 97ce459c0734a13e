import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { itNeeding } from "../required.js";

/**
 * The python-gitlab command-line client (Debian's gitlab-cli installs it as /usr/bin/python-gitlab) against a fresh
 * in-process sandbox, with a configuration file naming the sandbox and a token. Skipped, with the reason in the name,
 * when the command is not installed (a failure under FORGEFORM_REQUIRE_CLIENTS=1, as .ci/run runs it).
 */

const CLI = "/usr/bin/python-gitlab";
const reason = existsSync(CLI) ? undefined : `${CLI} is not installed (Debian package gitlab-cli)`;

type Json = Record<string, unknown>;

describe("conformance with the python-gitlab command line", () => {
  let sb: RunningSandbox;
  let dir: string;

  /** Runs `python-gitlab -c <config> [-g user] -o json <args>`; the JSON printed, or the exit code and output. */
  const cli = (args: string[], as: "admin" | "user" = "admin") =>
    new Promise<{ code: number; out: string; json: unknown }>((resolve) => {
      execFile(
        CLI,
        ["-c", join(dir, "python-gitlab.cfg"), "-g", as, "-o", "json", ...args],
        { cwd: dir, timeout: 20_000, env: { ...process.env, HOME: dir } },
        (error, stdout, stderr) => {
          let json: unknown;
          try {
            json = JSON.parse(stdout);
          } catch {
            json = undefined;
          }
          resolve({
            code: error ? ((error as { code?: number }).code ?? 1) : 0,
            out: `${stdout}${stderr}`,
            json,
          });
        },
      );
    });
  const ok = async (args: string[], as: "admin" | "user" = "admin") => {
    const r = await cli(args, as);
    expect(r.code, r.out).toBe(0);
    return r.json;
  };

  beforeAll(async () => {
    if (reason) return;
    sb = await startSandbox({ adminToken: "cli-admin", userToken: "cli-user" });
    dir = mkdtempSync(join(tmpdir(), "python-gitlab-cli-"));
    writeFileSync(
      join(dir, "python-gitlab.cfg"),
      [
        "[global]",
        "default = admin",
        "timeout = 10",
        "",
        "[admin]",
        `url = ${sb.url}`,
        `private_token = ${sb.adminToken}`,
        "api_version = 4",
        "",
        "[user]",
        `url = ${sb.url}`,
        `private_token = ${sb.userToken}`,
        "api_version = 4",
        "",
      ].join("\n"),
    );
  });
  afterAll(async () => {
    if (reason) return;
    await sb.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  itNeeding(reason)("creates a group and a project, and reads them back page by page", async () => {
    const g = (await ok([
      "group",
      "create",
      "--name",
      "CLI",
      "--path",
      "cli",
      "--visibility",
      "internal",
    ])) as Json;
    expect(g).toMatchObject({ full_path: "cli", visibility: "internal", parent_id: null });
    await ok(["group", "create", "--name", "Alpha", "--path", "alpha"]);
    const p = (await ok([
      "project",
      "create",
      "--name",
      "App",
      "--path",
      "app",
      "--namespace-id",
      String(g["id"]),
      "--default-branch",
      "main",
    ])) as Json;
    expect(p).toMatchObject({ path_with_namespace: "cli/app", default_branch: "main" });
    const page2 = (await ok(["group", "list", "--per-page", "1", "--page", "2"])) as Json[];
    expect(page2.map((x) => x["full_path"])).toEqual(["cli"]);
    // A signed-in user sees the internal group, but may not change it.
    expect(await ok(["group", "get", "--id", "cli"], "user")).toMatchObject({ full_path: "cli" });
    const denied = await cli(["group", "update", "--id", "cli", "--description", "x"], "user");
    expect([denied.code, denied.out]).toEqual([1, expect.stringContaining("403: 403 Forbidden")]);
    const missing = await cli(["group", "get", "--id", "nope"]);
    expect([missing.code, missing.out]).toEqual([1, expect.stringContaining("404: 404 Group Not Found")]);
  });

  itNeeding(reason)("schedules with variables, badges, milestones and wikis of the project", async () => {
    const s = (await ok([
      "project-pipeline-schedule",
      "create",
      "--project-id",
      "cli/app",
      "--description",
      "nightly",
      "--ref",
      "main",
      "--cron",
      "0 2 * * *",
    ])) as Json;
    expect(s).toMatchObject({
      cron: "0 2 * * *",
      cron_timezone: "UTC",
      active: true,
      owner: { username: "root" },
    });
    const schedule = ["--project-id", "cli/app", "--pipeline-schedule-id", String(s["id"])];
    const v = await ok([
      "project-pipeline-schedule-variable",
      "create",
      ...schedule,
      "--key",
      "DEPLOY",
      "--value",
      "prod",
    ]);
    expect(v).toEqual({ variable_type: "env_var", key: "DEPLOY", value: "prod" });
    const bad = await cli([
      "project-pipeline-schedule-variable",
      "create",
      ...schedule,
      "--key",
      "BAD-KEY",
      "--value",
      "x",
    ]);
    expect([bad.code, bad.out]).toEqual([
      1,
      expect.stringContaining("can contain only letters, digits and '_'."),
    ]);
    const full = (await ok([
      "project-pipeline-schedule",
      "get",
      "--project-id",
      "cli/app",
      "--id",
      String(s["id"]),
    ])) as Json;
    expect(full["variables"]).toEqual([{ variable_type: "env_var", key: "DEPLOY", value: "prod" }]);

    const badge = await ok([
      "project-badge",
      "create",
      "--project-id",
      "cli/app",
      "--link-url",
      "https://ci.example/%{project_path}",
      "--image-url",
      "https://ci.example/b.svg",
    ]);
    expect(badge).toMatchObject({ kind: "project", rendered_link_url: "https://ci.example/cli/app" });
    expect(await ok(["group-milestone", "create", "--group-id", "cli", "--title", "Q1"])).toMatchObject({
      iid: 1,
      title: "Q1",
      state: "active",
    });
    const titles = (await ok(["group-milestone", "list", "--group-id", "cli"])) as Json[];
    expect(titles.map((m) => m["title"])).toEqual(["Q1"]);
    await ok(["project-wiki", "create", "--project-id", "cli/app", "--title", "Home", "--content", "hi"]);
    expect(await ok(["project-wiki", "get", "--project-id", "cli/app", "--slug", "Home"])).toEqual({
      format: "markdown",
      slug: "Home",
      title: "Home",
      content: "hi",
    });
  });

  itNeeding(reason)("broadcast messages, system hooks and application settings", async () => {
    expect(await ok(["broadcast-message", "create", "--message", "hello"])).toMatchObject({
      message: "hello",
      color: "#E75E40",
      font: "#FFFFFF",
      active: true,
      broadcast_type: "banner",
    });
    const color = await cli(["broadcast-message", "create", "--message", "x", "--color", "purple"]);
    expect([color.code, color.out]).toEqual([1, expect.stringContaining("must be a valid color code")]);
    const mine = await cli(["broadcast-message", "create", "--message", "x"], "user");
    expect([mine.code, mine.out]).toEqual([1, expect.stringContaining("403: 403 Forbidden")]);
    expect(await ok(["hook", "create", "--url", "https://hooks.example/in"])).toMatchObject({
      url: "https://hooks.example/in",
      push_events: false,
      repository_update_events: true,
    });
    expect(((await ok(["hook", "list"])) as Json[]).map((h) => h["url"])).toEqual([
      "https://hooks.example/in",
    ]);
    await ok(["application-settings", "update", "--default-projects-limit", "7"]);
    expect(await ok(["application-settings", "get"])).toMatchObject({ default_projects_limit: 7 });
  });
});
