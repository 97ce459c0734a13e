/**
 * `--root` for plan, apply and drift, over HTTP. A checkout keeps one folder per environment and the files they
 * share (a token, a templates file linked in) beside them: planning `envs/prod` alone made its folder the manifest
 * root, which the shared files leave. And a plan saved from a folder whose manifests all sat in a subfolder was
 * made again, by `apply --plan`, with that subfolder as the root: a `${file:../..}` reference the plan had read
 * was refused, and the plan could not be applied.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";

const TOKEN = "shared-registry-token-4711";

const PROD = (description: string) => `version: 1
groups:
  rprod:
    extends: [base]
    description: ${description}
    variables:
      - key: REGISTRY_TOKEN
        value: \${file:../../secrets/registry.token}
        masked: true
  rgone:
    state: absent
`;

describe("--root: the manifest root of plan, apply and drift", () => {
  let bench: Bench;
  let dir: string;
  const prod = () => join(dir, "envs/prod");
  const write = (name: string, text: string) => {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  };
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: dir });
  const addresses = (out: string) =>
    (JSON.parse(out) as PlanV1).changes
      .filter((c) => c.action !== "unmanaged")
      .map((c) => `${c.action} ${c.address}`)
      .sort();

  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "rgone" }] } });
    dir = mkdtempSync(join(tmpdir(), "forgeform-root-"));
    write("secrets/registry.token", `${TOKEN}\n`);
    write("common/templates.yaml", "version: 1\ntemplates:\n  base:\n    visibility: private\n");
    write("envs/prod/groups.yaml", PROD("production"));
    symlinkSync("../../common/templates.yaml", join(prod(), "templates.yaml"));
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("without it, the environment's folder is the root, and both ways out are refused with what to do", async () => {
    const run = await bench.cli(["plan", prod()]);
    expect(run.code).toBe(1);
    expect(run.err).toContain(
      `"../../secrets/registry.token" is outside the manifest root ${prod()}; keep referenced files inside it, or give --root a folder that holds both`,
    );
    expect(run.err).toContain("templates.yaml:1:1: the file leads outside the manifest root");
    expect(run.err).toContain("to read it, give --root a folder that holds it too");
    expect(run.out + run.err).not.toContain(TOKEN);
  });

  it("explain reads the linked templates with it, and refuses them without", async () => {
    const rooted = await bench.cli(["explain", "--root", dir, "rprod", prod()]);
    expect(rooted.code, rooted.err).toBe(0);
    expect(rooted.out).toMatch(/^visibility: "private" +# groups\["rprod"\] \S*templates\.yaml:4:17$/m);
    const narrow = await bench.cli(["explain", "rprod", prod()]);
    expect(narrow.code).toBe(1);
    expect(narrow.err).toContain("to read it, give --root a folder that holds it too");
  });

  it("a saved plan keeps its root: apply --plan applies it, reading the file the plan read", async () => {
    const saved = join(dir, "plan.json");
    const plan = await bench.cli(["plan", "--root", dir, "--out", saved, prod()]);
    expect(plan.code, plan.err).toBe(0);
    expect(plan.out.replace(/\n\s*#\s*/g, " ")).toContain(
      `saves its export archive to ${join(dir, ".forgeform", "backups")}`,
    );
    const written = JSON.parse(readFileSync(saved, "utf8")) as PlanV1 & { root: string };
    expect(written.root).toBe(dir);
    expect(written.manifests).toEqual([join(prod(), "groups.yaml"), join(prod(), "templates.yaml")]);
    const apply = await bench.cli(["apply", "--yes", "--plan", saved]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out + apply.err + readFileSync(saved, "utf8")).not.toContain(TOKEN);
    const group = await bench.get<{ id: number; visibility: string }>("/groups/rprod");
    expect(group.visibility).toBe("private");
    const variable = await bench.get<{ value: string }>(`/groups/${group.id}/variables/REGISTRY_TOKEN`);
    expect(variable.value).toBe(TOKEN);
    // The group deleted was saved in the root the plan named, not in the environment's folder.
    const backups = join(dir, ".forgeform", "backups");
    expect(readdirSync(backups, { recursive: true }).map(String)).toContainEqual(
      expect.stringMatching(/^\d{4}-\d{2}-\d{2}\/group-rgone\.tar\.gz$/),
    );
    expect(existsSync(join(prod(), ".forgeform"))).toBe(false);
  });

  it("then plans nothing, whole, in shards, in chunks, and drift finds none", async () => {
    const plan = (args: string[], env: Record<string, string> = {}) =>
      bench.cli(["plan", "--format", "json", "--detailed-exitcode", "--root", dir, ...args, prod()], env);
    for (const run of [
      await plan([]),
      await plan(["--shard", "1/2"]),
      await plan(["--shard", "2/2"]),
      await plan([], { FORGEFORM_CHUNK_UNITS: "1" }),
    ]) {
      expect(run.code, run.err).toBe(0);
      expect(addresses(run.out)).toEqual([]);
    }
    const drift = await bench.cli(["drift", "--root", dir, prod()]);
    expect(drift.code, drift.out + drift.err).toBe(0);
  });

  it("a pull request's plan compares the manifests at REF read with the same root, and its saved plan applies", async () => {
    git("init", "-q");
    git("add", ".");
    git("commit", "-qm", "prod");
    write("envs/prod/groups.yaml", PROD("production, changed"));
    const saved = join(dir, "since.json");
    const plan = await bench.cli([
      "plan",
      "--format",
      "json",
      "--changed-since",
      "HEAD",
      "--root",
      dir,
      "--out",
      saved,
      prod(),
    ]);
    expect(plan.code, plan.err).toBe(0);
    expect(addresses(plan.out)).toEqual(['update group["rprod"]']);
    const apply = await bench.cli(["apply", "--yes", "--plan", saved]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect((await bench.get<{ description: string }>("/groups/rprod")).description).toBe(
      "production, changed",
    );
  });

  it("a pull request's plan with a root narrower than the paths compares the paths outside it too", async () => {
    const repo = mkdtempSync(join(tmpdir(), "forgeform-root-narrow-"));
    const put = (name: string, text: string) => {
      mkdirSync(dirname(join(repo, name)), { recursive: true });
      writeFileSync(join(repo, name), text);
    };
    const at = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], { cwd: repo });
    put("envs/prod/g.yaml", "version: 1\ngroups:\n  nprod:\n    description: prod\n");
    put("shared/teams.yaml", "version: 1\ngroups:\n  nteams:\n    description: teams\n");
    at("init", "-q");
    at("add", ".");
    at("commit", "-qm", "both");
    const paths = ["--root", join(repo, "envs/prod"), join(repo, "envs/prod"), join(repo, "shared")];
    expect((await bench.cli(["apply", "--yes", ...paths])).code).toBe(0);
    const since = async () => {
      const run = await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", ...paths]);
      expect(run.code, run.err).toBe(0);
      return JSON.parse(run.out) as PlanV1;
    };
    // Nothing changed: the files outside the root are not taken for new ones, read and planned each time.
    const unchanged = await since();
    expect(unchanged.changes).toEqual([]);
    const alone = await bench.cli([
      "plan",
      "--format",
      "json",
      "--changed-since",
      "HEAD",
      join(repo, "envs/prod"),
    ]);
    expect(unchanged.requests.total).toBe((JSON.parse(alone.out) as PlanV1).requests.total);
    put("shared/teams.yaml", "version: 1\ngroups:\n  nteams:\n    description: teams, changed\n");
    expect(
      addresses((await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", ...paths])).out),
    ).toEqual(['update group["nteams"]']);
    // A path outside the checkout cannot be compared at REF: said, not planned as new.
    const elsewhere = mkdtempSync(join(tmpdir(), "forgeform-root-elsewhere-"));
    writeFileSync(join(elsewhere, "e.yaml"), "version: 1\ngroups:\n  nteams: {}\n");
    const outside = await bench.cli([
      "plan",
      "--changed-since",
      "HEAD",
      "--root",
      join(repo, "envs/prod"),
      join(repo, "envs/prod"),
      elsewhere,
    ]);
    expect(outside.code).toBe(1);
    expect(outside.err).toContain(
      `--changed-since compares the manifests with the git checkout ${repo} at HEAD, and ${elsewhere} is outside it: plan those manifests on their own`,
    );
  });

  it("a plan saved of a folder whose manifests are all in a subfolder applies with that folder as root", async () => {
    const other = mkdtempSync(join(tmpdir(), "forgeform-root-sub-"));
    writeFileSync(join(other, "registry.token"), `${TOKEN}\n`);
    mkdirSync(join(other, "manifests"));
    writeFileSync(
      join(other, "manifests/groups.yaml"),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest's file reference
      "version: 1\ngroups:\n  rsub:\n    variables:\n      - { key: T, value: '${file:../registry.token}', masked: true }\n",
    );
    const saved = join(other, "plan.json");
    const plan = await bench.cli(["plan", "--out", saved, other]);
    expect(plan.code, plan.err).toBe(0);
    const apply = await bench.cli(["apply", "--yes", "--plan", saved]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(apply.out).toContain("Apply complete: 2 done, 0 failed, 0 skipped.");
  });

  it("refuses a root that is not a folder, and a pull request's plan whose root is outside the checkout", async () => {
    for (const command of ["plan", "apply", "drift", "validate"]) {
      const missing = await bench.cli([command, "--root", join(dir, "nowhere"), prod()]);
      expect(missing).toMatchObject({ code: 1, out: "" });
      expect(missing.err).toBe(`forgeform: --root ${JSON.stringify(join(dir, "nowhere"))}: no such folder\n`);
      const file = join(dir, "secrets/registry.token");
      const notDir = await bench.cli([command, "--root", file, prod()]);
      expect(notDir.err).toBe(
        `forgeform: --root ${JSON.stringify(file)} is a file: give the folder the manifests are in\n`,
      );
    }
    const outside = await bench.cli(["plan", "--changed-since", "HEAD", "--root", dirname(dir), prod()]);
    expect(outside.code).toBe(1);
    expect(outside.err).toContain(
      `--changed-since needs a git checkout, and the manifest root (--root) ${dirname(dir)} is not inside one`,
    );
  });
});
