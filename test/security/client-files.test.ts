/**
 * Probes of the files forgeform writes: a trigger's token_file stays inside the manifest root and never replaces a
 * file forgeform did not write; saved plans, drift reports and exports never write through a planted symbolic link.
 */
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "../integration/helpers.js";
import { prose } from "./hostile-server.js";

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
};

let bench: Bench;
beforeAll(async () => {
  bench = await Bench.start({ fixture });
});
afterAll(async () => {
  await bench.stop();
});

/** A manifest root of its own (a directory inside the bench's) holding one manifest. */
function root(name: string, text: string): { dir: string; file: string } {
  const dir = join(bench.dir, name);
  mkdirSync(dir);
  const file = join(dir, "forgeform.yaml");
  writeFileSync(file, text);
  return { dir, file };
}

const triggerManifest = (description: string, tokenFile: string) => `version: 1
projects:
  acme/api:
    triggers:
      - description: ${description}
        token_file: ${tokenFile}
`;

const descriptions = async () =>
  (await bench.get<{ description: string }[]>("/projects/acme%2Fapi/triggers")).map((t) => t.description);

describe("trigger token files", () => {
  it("refuses a token_file whose directory is a symbolic link out of the manifest root", async () => {
    const outside = mkdtempSync(join(tmpdir(), "forgeform-outside-"));
    const { dir, file } = root("linked", triggerManifest("escape", "secrets/deploy.token"));
    symlinkSync(outside, join(dir, "secrets"));
    const validate = await bench.cli(["validate", file]);
    expect(validate.code).toBe(1);
    expect(validate.out).toContain(
      `${file}:6:21: projects["acme/api"].triggers[0].token_file: "secrets/deploy.token" leads outside the manifest root ${dir} through a symbolic link`,
    );
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(1);
    expect(readdirSync(outside)).toEqual([]);
    expect(await descriptions()).not.toContain("escape");
  });

  it("never replaces a file holding another token (an administrator's token file)", async () => {
    const { dir, file } = root("admin", triggerManifest("rotate me", "admin.token"));
    const adminToken = "0123456789abcdef0123456789abcd";
    writeFileSync(join(dir, "admin.token"), `${adminToken}\n`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(prose(plan.out)).toContain(
      `token_file ${join(dir, "admin.token")} already exists: forgeform writes a trigger token only to a new file or over that same trigger's current token`,
    );
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(1);
    expect(readFileSync(join(dir, "admin.token"), "utf8")).toBe(`${adminToken}\n`);
    expect(await descriptions()).not.toContain("rotate me");
  });

  it("refuses a token_file that is a symbolic link, even to this trigger's own token", async () => {
    const { dir, file } = root("link-file", triggerManifest("linked token", "deploy.token"));
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    const token = readFileSync(join(dir, "deploy.token"), "utf8");
    const elsewhere = join(mkdtempSync(join(tmpdir(), "forgeform-elsewhere-")), "real.token");
    writeFileSync(elsewhere, token);
    const { rmSync } = await import("node:fs");
    rmSync(join(dir, "deploy.token"));
    symlinkSync(elsewhere, join(dir, "deploy.token"));
    const rotate = await bench.cli([
      "apply",
      "--yes",
      "--replace",
      'project["acme/api"].trigger["linked token"]',
      file,
    ]);
    expect(rotate.code).toBe(1);
    expect(prose(rotate.out)).toContain(`token_file ${join(dir, "deploy.token")} is a symbolic link`);
    expect(readFileSync(elsewhere, "utf8")).toBe(token);
    expect(lstatSync(join(dir, "deploy.token")).isSymbolicLink()).toBe(true);
  });
});

describe("a token_file whose folder does not exist yet (a git-ignored secrets/ on a fresh clone)", () => {
  it("plans and reports drift without the folder; apply creates it, readable by its owner only", async () => {
    const { dir, file } = root("fresh-clone", triggerManifest("deploy", "secrets/ci/deploy.token"));
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(prose(plan.out)).toContain(`the new token is written to ${join(dir, "secrets/ci/deploy.token")}`);
    expect(plan.code).toBe(2);
    const drift = await bench.cli(["drift", file]);
    expect(drift.code).toBe(2);
    // Neither wrote anything.
    expect(readdirSync(dir)).toEqual(["forgeform.yaml"]);
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(0);
    expect(statSync(join(dir, "secrets")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "secrets/ci")).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "secrets/ci/deploy.token")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, "secrets/ci/deploy.token"), "utf8")).toMatch(/^\S+\n$/);
    expect(await descriptions()).toContain("deploy");
  });
});

describe("files written through an exclusive temporary file", () => {
  const planManifest = () =>
    bench.manifest(
      "version: 1\nprojects:\n  acme/api:\n    triggers:\n      - description: nightly\n",
      "plan.yaml",
    );

  it("plan --out does not write through a link planted at the old predictable temporary name", async () => {
    const victim = join(bench.dir, "victim.txt");
    writeFileSync(victim, "precious\n");
    const out = join(bench.dir, "saved.plan.json");
    symlinkSync(victim, `${out}.${process.pid}.tmp`);
    const result = await bench.cli(["plan", "--out", out, planManifest()]);
    expect(result.code, result.err).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(out).isFile()).toBe(true);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(out, "utf8")).kind).toBe("plan");
  });

  it("drift --out and --report replace a planted link instead of writing through it", async () => {
    const victim = join(bench.dir, "victim-drift.txt");
    writeFileSync(victim, "precious\n");
    const out = join(bench.dir, "drift.txt");
    const junit = join(bench.dir, "drift.xml");
    symlinkSync(victim, out);
    symlinkSync(victim, junit);
    const result = await bench.cli(["drift", "--out", out, "--report", `junit=${junit}`, planManifest()]);
    expect(result.code, result.err).toBe(2);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(out).isFile()).toBe(true);
    expect(readFileSync(out, "utf8")).toContain("Drift: 0 drifted, 1 missing");
    expect(readFileSync(junit, "utf8")).toContain("<testsuites");
  });

  it("export replaces a planted link instead of writing through it", async () => {
    const victim = join(bench.dir, "victim-export.txt");
    writeFileSync(victim, "precious\n");
    const outDir = join(bench.dir, "export");
    mkdirSync(outDir);
    symlinkSync(victim, join(outDir, "acme__api.yaml"));
    const result = await bench.cli(["export", "--project", "acme/api", "--force", "--out", outDir]);
    expect(result.code, result.err).toBe(0);
    expect(readFileSync(victim, "utf8")).toBe("precious\n");
    expect(lstatSync(join(outDir, "acme__api.yaml")).isFile()).toBe(true);
    expect(readFileSync(join(outDir, "acme__api.yaml"), "utf8")).toContain("acme/api");
  });
});
