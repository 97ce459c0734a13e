/**
 * `forgeform drift`'s report files and error exits (src/cli/drift.ts), in-process against the sandbox: --report's
 * form, --out and --report written or not, colour kept out of files, plan errors counted, the manifests' warnings
 * printed, and --fail-on-unmanaged judging a --report file as it judges the exit code.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, Bench, runCli } from "../integration/helpers.js";

let bench: Bench;
/** acme's description differs from the live one: one drifted object. */
let drifted: string;
beforeAll(async () => {
  bench = await Bench.start();
  await bench.send("POST", "/groups", { name: "acme", path: "acme", description: "live" });
  drifted = bench.manifest("version: 1\ngroups:\n  acme:\n    description: declared\n", "drifted.yaml");
});
afterAll(async () => {
  await bench.stop();
});

const SUMMARY = "Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.";

/** Runs the CLI in-process against the sandbox as a terminal that wants colours would. */
const runInColour = (args: string[]) =>
  runCli(args, { FORGEFORM_URL: bench.sandbox.url, FORGEFORM_TOKEN: ADMIN_TOKEN }, { color: true });

describe("drift --report", () => {
  it.each(["junit", "xml=drift.xml", "junit=", "=drift.xml", "JUNIT=drift.xml"])(
    "refuses %j, saying the form it needs",
    async (value) => {
      const run = await bench.cli(["drift", "--report", value, drifted]);
      expect(run).toEqual({
        code: 1,
        out: "",
        err: `forgeform: --report needs FORMAT=FILE with FORMAT one of text, json, markdown, junit (e.g. --report junit=drift.xml), not ${JSON.stringify(value)}\n`,
      });
    },
  );

  it("takes everything after the first = as the file", async () => {
    const file = join(bench.dir, "a=b.xml");
    const run = await bench.cli(["drift", "--report", `junit=${file}`, drifted]);
    expect(run.code).toBe(2);
    expect(run.err).toBe(`Wrote the junit drift report to ${file}.\n`);
    expect(readFileSync(file, "utf8")).toMatch(/^<\?xml /);
  });
});

describe("drift --out", () => {
  it("says it cannot write the report where the directory is missing, and exits 1", async () => {
    const file = join(bench.dir, "no-such-dir", "drift.txt");
    const run = await bench.cli(["drift", "--out", file, drifted]);
    expect(run).toEqual({
      code: 1,
      out: "",
      err: `forgeform: cannot write the report to ${file} (ENOENT): check that its directory exists and is writable\n`,
    });
  });

  it("says the same of a --report file", async () => {
    const file = join(bench.dir, "no-such-dir", "drift.xml");
    const run = await bench.cli(["drift", "--report", `junit=${file}`, drifted]);
    expect(run.code).toBe(1);
    expect(run.err).toBe(
      `forgeform: cannot write the report to ${file} (ENOENT): check that its directory exists and is writable\n`,
    );
  });

  it("writes --out and each --report, saying so on stderr; the file has no colours though the terminal has", async () => {
    const coloured = await runInColour(["drift", drifted]);
    expect(coloured.code).toBe(2);
    expect(coloured.out).toContain("\u001b[");
    const plain = await bench.cli(["drift", drifted]);
    expect(plain.out).not.toContain("\u001b[");
    const text = join(bench.dir, "drift.txt");
    const json = join(bench.dir, "drift.json");
    const run = await runInColour(["drift", "--out", text, "--report", `json=${json}`, drifted]);
    expect(run).toEqual({
      code: 2,
      out: "",
      err: `Wrote the text drift report to ${text}. ${SUMMARY}\nWrote the json drift report to ${json}.\n`,
    });
    expect(readFileSync(text, "utf8")).toBe(plain.out);
    expect(JSON.parse(readFileSync(json, "utf8"))).toMatchObject({ summary: { drifted: 1 } });
  });
});

describe("drift's errors", () => {
  it("counts the plan's errors, one then two, and exits 1", async () => {
    const before = bench.manifest(
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/west/team: {}\n  corp/west/ops: {}\n",
      "corp.yaml",
    );
    expect((await bench.cli(["apply", "--yes", before])).code).toBe(0);
    // A group declared under another parent, and its old place no longer declared: a move, which is an error.
    const oneMoved = bench.manifest(
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n  corp/west/ops: {}\n",
      "one-moved.yaml",
    );
    const one = await bench.cli(["drift", oneMoved]);
    expect(one.code).toBe(1);
    expect(one.out).toContain("Errors (1):\n");
    expect(one.err).toBe(
      "forgeform: an error (in the report) kept parts of the live state from being compared. Fix them and run drift again.\n",
    );
    const twoMoved = bench.manifest(
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n  corp/east/ops: {}\n",
      "two-moved.yaml",
    );
    const two = await bench.cli(["drift", twoMoved]);
    expect(two.code).toBe(1);
    expect(two.out).toContain("Errors (2):\n");
    expect(two.err).toBe(
      "forgeform: 2 errors (in the report) kept parts of the live state from being compared. Fix them and run drift again.\n",
    );
  });

  it("refuses --changed-since outside a git checkout", async () => {
    const run = await bench.cli(["drift", "--changed-since", "HEAD", drifted]);
    expect(run).toEqual({
      code: 1,
      out: "",
      err: `forgeform: --changed-since needs a git checkout, and ${bench.dir} is not inside one\n`,
    });
  });

  it("prints --debug's request lines on the command's standard error", async () => {
    const run = await bench.cli(["drift", "--debug", drifted]);
    expect(run.code).toBe(2);
    expect(run.err).toMatch(/^GET \/api\/v4\/version -> 200 \(\d+ ms\)\n/);
  });
});

describe("drift with only an unmanaged object", () => {
  it("prints the manifests' warnings; --fail-on-unmanaged judges the --report file as it does the exit code", async () => {
    const solo = await bench.send<{ id: number }>("POST", "/groups", { name: "solo", path: "solo" });
    await bench.send("POST", "/groups", { name: "stray", path: "stray", parent_id: solo.id });
    const manifest = bench.manifest(
      "version: 1\ntemplates:\n  unused: {}\ngroups:\n  solo: {}\n",
      "solo.yaml",
    );
    const json = join(bench.dir, "unmanaged.json");
    const report = () =>
      JSON.parse(readFileSync(json, "utf8")) as { drift: boolean; fail_on_unmanaged: boolean };
    const warning = `${manifest}:3:3: templates.unused: warning: template "unused" is not used by any extends\n1 warning\n`;
    const wrote = `Wrote the json drift report to ${json}.\n`;

    const failing = await bench.cli(["drift", "--fail-on-unmanaged", "--report", `json=${json}`, manifest]);
    expect(failing.code).toBe(2);
    expect(failing.out).toContain("Drift: 0 drifted, 0 missing, 1 unmanaged, 0 would be deleted.");
    expect(failing.err).toBe(warning + wrote);
    expect(report()).toMatchObject({ drift: true, fail_on_unmanaged: true });

    const passing = await bench.cli(["drift", "--report", `json=${json}`, manifest]);
    expect(passing.code).toBe(0);
    expect(passing.err).toBe(warning + wrote);
    expect(report()).toMatchObject({ drift: false, fail_on_unmanaged: false });
  });
});
