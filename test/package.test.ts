/**
 * The npm package as a user gets it: `npm pack` in a copy of the repository (so its `prepack` build runs without
 * touching the lib/ other tests use), then `npm i -g --prefix DIR tarball` and the installed `forgeform` run on the
 * examples. The install prints no warning (no install script), brings only what the CLI needs (not @actions/core,
 * which only the bundled Action uses), and the tarball holds a clean build: no source maps pointing at src/ (which is
 * not shipped), no benchmark bundle, nothing left over from an earlier build.
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import semver from "semver";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const PKG = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  engines: { node: string };
  dependencies: Record<string, string>;
};

/** The environment without npm's own variables (npm test sets npm_config_* for its scripts). */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

function npm(args: string[], cwd: string): { status: number; output: string } {
  const run = spawnSync("npm", [...args, "--no-audit", "--no-fund", "--no-update-notifier"], {
    cwd,
    env: cleanEnv(),
    encoding: "utf8",
  });
  return { status: run.status ?? -1, output: `${run.stdout}${run.stderr}` };
}

/** npm's warnings, but not those about this machine's own npm configuration (an unknown key in ~/.npmrc). */
function warnings(output: string): string[] {
  return output
    .split("\n")
    .filter((line) => /^npm warn/i.test(line))
    .filter((line) => !/Unknown (user|global|builtin|project|env) config/.test(line));
}

/** The lowest Node version a range allows (`>=20.18.1`, `>=16 || 14 >=14.17`), as semver reads it. */
function lowerBound(range: string, what: string): string {
  const min = semver.minVersion(range);
  if (!min)
    throw new Error(`${what}: engines.node ${JSON.stringify(range)} allows no version; check it by hand`);
  return min.version;
}

describe("the packed npm package", () => {
  let work: string;
  let tarball: string;
  let prefix: string;
  let packed: { status: number; output: string };
  let installed: { status: number; output: string };
  let contents: string[];

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "forgeform-pack-"));
    const copy = join(work, "repo");
    mkdirSync(copy);
    for (const entry of ["package.json", "package-lock.json", "README.md", "LICENSE", "tsconfig.json"]) {
      cpSync(join(ROOT, entry), join(copy, entry));
    }
    cpSync(join(ROOT, "tsconfig.build.json"), join(copy, "tsconfig.build.json"));
    for (const dir of ["bin", "src", "schemas", "scripts"])
      cpSync(join(ROOT, dir), join(copy, dir), { recursive: true });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"), "dir");
    // Left over from an older build and from `npm run bench` before it wrote elsewhere: the build must drop them.
    mkdirSync(join(copy, "lib/bench"), { recursive: true });
    writeFileSync(join(copy, "lib/bench/run.js"), "// an old benchmark bundle\n");
    writeFileSync(join(copy, "lib/gone.js.map"), "{}\n");

    packed = npm(["pack", "--pack-destination", work], copy);
    tarball = join(work, `${PKG.name}-${PKG.version}.tgz`);
    contents = existsSync(tarball)
      ? execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").filter(Boolean)
      : [];
    prefix = join(work, "prefix");
    installed = npm(["install", "--global", "--prefix", prefix, "--prefer-offline", tarball], work);
  }, 240_000);

  it("packs a clean build: the CLI, the schemas, README and LICENSE; no maps, no bench, no Action, no src", () => {
    expect(packed.status, packed.output).toBe(0);
    for (const file of [
      "package/LICENSE",
      "package/README.md",
      "package/bin/forgeform.js",
      "package/lib/cli/index.js",
      // What bin/forgeform.js runs: the command line in one file (scripts/build-cli.mjs).
      "package/lib/cli/forgeform.js",
    ])
      expect(contents).toContain(file);
    expect(contents).toContain("package/schemas/manifest.schema.json");
    expect(contents.filter((f) => f.endsWith(".map"))).toEqual([]);
    expect(
      contents.filter((f) => /^package\/(src|dist|test|bench)\/|^package\/lib\/(bench|action)\//.test(f)),
    ).toEqual([]);
    const js = contents.filter((f) => f.startsWith("package/lib/") && f.endsWith(".js"));
    expect(js.length).toBeGreaterThan(50);
  });

  it("installs globally with no warning and without @actions/core", () => {
    expect(installed.status, installed.output).toBe(0);
    expect(warnings(installed.output), installed.output).toEqual([]);
    const modules = join(prefix, "lib/node_modules/forgeform/node_modules");
    expect(existsSync(join(modules, "@actions"))).toBe(false);
    expect(existsSync(join(prefix, "lib/node_modules/@actions"))).toBe(false);
    expect(existsSync(join(modules, "undici"))).toBe(true);
  });

  it("runs forgeform --help and validates the examples", () => {
    const bin = join(prefix, "bin/forgeform");
    const help = spawnSync(process.execPath, [bin, "--help"], { encoding: "utf8", env: cleanEnv() });
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: forgeform");
    const validate = spawnSync(process.execPath, [bin, "validate", "--no-secrets", "examples/"], {
      cwd: ROOT,
      encoding: "utf8",
      env: cleanEnv(),
    });
    expect(validate.status, validate.stdout + validate.stderr).toBe(0);
    expect(validate.stdout).toMatch(/^\d+ files valid/m);
  });

  it("declares in engines the Node version its dependencies need", () => {
    const ours = lowerBound(PKG.engines.node, "package.json");
    const modules = join(prefix, "lib/node_modules/forgeform/node_modules");
    const manifests = readdirSync(modules).flatMap((name) =>
      name.startsWith("@") ? readdirSync(join(modules, name)).map((n) => `${name}/${n}`) : [name],
    );
    const tooLow: string[] = [];
    for (const name of manifests) {
      const file = join(modules, name, "package.json");
      if (!existsSync(file)) continue;
      const range = (JSON.parse(readFileSync(file, "utf8")) as { engines?: { node?: string } }).engines?.node;
      if (range === undefined) continue;
      if (!semver.gte(ours, lowerBound(range, name))) tooLow.push(`${name} needs node ${range}`);
    }
    expect(tooLow, `package.json says node ${PKG.engines.node}`).toEqual([]);
    // Every runtime dependency was looked at.
    for (const name of Object.keys(PKG.dependencies)) expect(manifests).toContain(name);
  });
});
