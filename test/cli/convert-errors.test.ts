/**
 * `forgeform convert` refusing to read or to write (src/cli/convert.ts), in-process: what the user reads, the exit
 * code, and that nothing was written.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../integration/helpers.js";

const dir = mkdtempSync(join(tmpdir(), "forgeform-convert-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIXTURE = join(import.meta.dirname, "..", "fixtures", "convert", "gitlabracadabra", "main.yml");

/** A gitlabracadabra action file with one group, which includes a file that is not there. */
const INCLUDES_MISSING = "include:\n  - gone.yml\nconv/:\n  create_object: true\n  description: Converted\n";

describe("convert", () => {
  it("names a source it cannot read, and writes nothing", async () => {
    const source = join(dir, "nope.yml");
    const out = join(dir, "out-missing");
    const run = await runCli(["convert", "--from", "gitlabform", source, "--out", out], {});
    expect(run).toEqual({
      code: 1,
      out: "",
      err: `forgeform convert: cannot read ${source}: ${source} does not exist\n`,
    });
  });

  it("reports an included file it cannot read as not converted, at the include", async () => {
    const source = join(dir, "includes-missing.yml");
    writeFileSync(source, INCLUDES_MISSING);
    const out = join(dir, "out-include");
    const run = await runCli(["convert", "--from", "gitlabracadabra", source, "--out", out], {});
    expect(run).toEqual({
      code: 0,
      out:
        "Not converted (1):\n" +
        `  ${source}:2:5  include[0]: the included file ${join(dir, "gone.yml")} cannot be read\n\n` +
        "Converted from gitlabracadabra into 1 file: 1 not converted, 0 secrets as environment variables, 0 to check.\n",
      err: `Wrote ${join(out, "includes-missing.yaml")}\n`,
    });
    expect(readFileSync(join(out, "includes-missing.yaml"), "utf8")).toContain("description: Converted");
  });

  it("refuses to overwrite one file that exists, then two, naming them; --force overwrites", async () => {
    const out = join(dir, "out-again");
    const first = await runCli(
      ["convert", "--from", "gitlabracadabra", FIXTURE, "--out", out, "--format", "json"],
      {},
    );
    expect(first.code, first.err).toBe(0);
    // --format json: stdout is the JSON report only, and no "Wrote" lines.
    expect(JSON.parse(first.out)).toMatchObject({
      files: [expect.stringMatching(/main\.yaml$/), expect.stringMatching(/shared\.yaml$/)],
    });
    expect(first.err).toBe("");
    writeFileSync(join(out, "main.yaml"), "mine\n");
    const two = await runCli(["convert", "--from", "gitlabracadabra", FIXTURE, "--out", out], {});
    expect(two).toEqual({
      code: 1,
      out: "",
      err: `forgeform convert: ${join(out, "main.yaml")}, ${join(out, "shared.yaml")} exist already: nothing was written. Pass --force to overwrite, or --out another directory\n`,
    });
    rmSync(join(out, "shared.yaml"));
    const one = await runCli(["convert", "--from", "gitlabracadabra", FIXTURE, "--out", out], {});
    expect(one).toEqual({
      code: 1,
      out: "",
      err: `forgeform convert: ${join(out, "main.yaml")} exists already: nothing was written. Pass --force to overwrite, or --out another directory\n`,
    });
    expect(readFileSync(join(out, "main.yaml"), "utf8")).toBe("mine\n");
    const forced = await runCli(
      ["convert", "--from", "gitlabracadabra", FIXTURE, "--out", out, "--force"],
      {},
    );
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toBe(`Wrote ${join(out, "main.yaml")}\nWrote ${join(out, "shared.yaml")}\n`);
    expect(readFileSync(join(out, "main.yaml"), "utf8")).not.toBe("mine\n");
  });

  it("says that --out cannot be made when a file is in its way", async () => {
    const source = join(dir, "includes-missing.yml");
    writeFileSync(source, INCLUDES_MISSING);
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "x");
    const run = await runCli(
      ["convert", "--from", "gitlabracadabra", source, "--out", join(blocker, "out")],
      {},
    );
    expect(run).toEqual({
      code: 1,
      out: "",
      err: `forgeform: cannot write ${blocker} (ENOTDIR): a part of its path is a symbolic link or a file, not a directory\n`,
    });
    expect(readFileSync(blocker, "utf8")).toBe("x");
  });

  it("writes nothing, and succeeds, when nothing in the source can be converted", async () => {
    const source = join(dir, "empty.yml");
    writeFileSync(source, "config_version: 4\n");
    const out = join(dir, "out-empty");
    const run = await runCli(["convert", "--from", "gitlabform", source, "--out", out], {});
    expect(run).toEqual({
      code: 0,
      out: "Converted from gitlabform into 0 files: 0 not converted, 0 secrets as environment variables, 0 to check.\n",
      err: "",
    });
    expect(existsSync(out)).toBe(false);
  });
});
