/**
 * `forgeform export` refusing to run or to write (src/cli/export.ts), in-process against the sandbox: what the user
 * reads, the exit code, and that nothing was written.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "../integration/helpers.js";

let bench: Bench;
beforeAll(async () => {
  bench = await Bench.start();
  await bench.send("POST", "/groups", { name: "acme", path: "acme" });
});
afterAll(async () => {
  await bench.stop();
});

const pathRule =
  'each segment has only letters, digits, "_", "-" and ".", and does not start with "-" or end in ".", ".git" or ".atom"';

describe("export refuses before reading anything", () => {
  it.each([
    {
      name: "nothing asked for",
      args: [],
      err: "forgeform export: nothing to export: pass --instance, --group <path> or --project <path>\n",
    },
    {
      name: "a --group the platform cannot have",
      args: ["--group", "acme/.."],
      err: `forgeform export: --group "acme/..": "acme/.." is not a path the platform allows: its segment ".." is a dot segment, which would name another path in a URL; ${pathRule}\n`,
    },
    {
      name: "one line per bad path, none for a good one",
      args: ["--group", "acme", "--project", "x/.git", "--group", "-a"],
      err:
        `forgeform export: --group "-a": "-a" is not a path the platform allows: it starts with "-"; ${pathRule}\n` +
        `forgeform export: --project "x/.git": "x/.git" is not a path the platform allows: its segment ".git" ends in ".git"; ${pathRule}\n`,
    },
  ])("$name", async ({ args, err }) => {
    const out = join(bench.dir, "never");
    const run = await bench.cli(["export", ...args, "--out", out], {
      FORGEFORM_TOKEN: "",
      FORGEFORM_URL: "",
    });
    // No URL or token is needed to be refused: nothing was sent, nothing written.
    expect(run).toEqual({ code: 1, out: "", err });
    expect(existsSync(out)).toBe(false);
  });
});

describe("export's output", () => {
  it("refuses to overwrite one file that exists, then two, naming them; --force overwrites", async () => {
    const out = join(bench.dir, "again");
    mkdirSync(out);
    writeFileSync(join(out, "acme.yaml"), "mine\n");
    const one = await bench.cli(["export", "--group", "acme", "--out", out]);
    expect(one).toEqual({
      code: 1,
      out: "",
      err: `forgeform export: ${join(out, "acme.yaml")} exists already: nothing was written. Pass --force to overwrite, or --out another directory\n`,
    });
    writeFileSync(join(out, "instance.yaml"), "mine too\n");
    const two = await bench.cli(["export", "--instance", "--group", "acme", "--out", out]);
    expect(two).toEqual({
      code: 1,
      out: "",
      err: `forgeform export: ${join(out, "instance.yaml")}, ${join(out, "acme.yaml")} exist already: nothing was written. Pass --force to overwrite, or --out another directory\n`,
    });
    expect(readFileSync(join(out, "acme.yaml"), "utf8")).toBe("mine\n");
    expect(readFileSync(join(out, "instance.yaml"), "utf8")).toBe("mine too\n");
    const forced = await bench.cli(["export", "--group", "acme", "--out", out, "--force"]);
    expect(forced).toEqual({ code: 0, out: `Wrote ${join(out, "acme.yaml")}\n`, err: "" });
    expect(readFileSync(join(out, "acme.yaml"), "utf8")).toContain("acme:");
  });

  it("names --schema-ref as each file's schema, instead of the published one", async () => {
    const out = join(bench.dir, "offline");
    const run = await bench.cli([
      "export",
      "--group",
      "acme",
      "--out",
      out,
      "--schema-ref",
      "../schemas/m.json",
    ]);
    expect(run.code, run.err).toBe(0);
    expect(readFileSync(join(out, "acme.yaml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=\.\.\/schemas\/m\.json$/m,
    );
  });

  it("says it cannot create --out when a file is in its way", async () => {
    const blocker = join(bench.dir, "a-file");
    writeFileSync(blocker, "x");
    const out = join(blocker, "manifests");
    const run = await bench.cli(["export", "--group", "acme", "--out", out]);
    expect(run).toEqual({
      code: 1,
      out: "",
      err: `forgeform: cannot create the output directory ${out} (ENOTDIR): check --out and its permissions\n`,
    });
    expect(readFileSync(blocker, "utf8")).toBe("x");
  });

  it("prints --debug's request lines on the command's standard error", async () => {
    const out = join(bench.dir, "debug");
    const run = await bench.cli(["export", "--group", "acme", "--out", out, "--debug"]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(`Wrote ${join(out, "acme.yaml")}\n`);
    expect(run.err).toMatch(/^GET \/api\/v4\/version -> 200 \(\d+ ms\)\n/);
    expect(run.err).toMatch(/\nGET \/api\/v4\/groups\/acme\?with_projects=false -> 200 \(\d+ ms\)\n/);
  });
});
