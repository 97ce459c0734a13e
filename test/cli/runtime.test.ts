/**
 * The V8 settings of a forgeform process (src/cli/runtime.ts), in a child process of their own as bin/forgeform.js
 * sets them: a flag set here would change the test runner's own heap. Memory is read from V8's statistics, not timed.
 */
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSmallRun, startsSmall } from "../../src/cli/runtime.js";
import { ADMIN_TOKEN, Bench } from "../integration/helpers.js";

const ROOT = join(import.meta.dirname, "../..");
const run = promisify(execFile);

/** Runs `body` in a fresh Node process after tuneProcess(argv, scavenges) from the built lib/; returns its JSON. */
async function inProcess<T>(argv: string[] | undefined, body: string, scavenges?: number): Promise<T> {
  const tune =
    argv === undefined
      ? ""
      : `const { tuneProcess } = await import(${JSON.stringify(join(ROOT, "lib/cli/runtime.js"))});
         tuneProcess(${JSON.stringify(argv)}${scavenges === undefined ? "" : `, ${scavenges}`});`;
  const script = `import v8 from "node:v8";\n${tune}\n${body}`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: ROOT });
  return JSON.parse(stdout) as T;
}

/**
 * Allocates objects that live a while (what reading manifests does) and reports the young generation's size after
 * two of its twelve rounds and at the end; a round takes V8 16 to 19 young-generation collections here. `extra`:
 * more fields of the report, written before those.
 */
const young = (extra = "") => `
const newSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size;
const keep = [];
const sizes = [];
for (let round = 0; round < 12; round++) {
  for (let i = 0; i < 100000; i++) {
    keep.push({ i, s: "x" + i });
    if (keep.length > 150000) keep.splice(0, 50000);
  }
  await new Promise((r) => setImmediate(r));
  sizes.push(newSpace());
}
console.log(JSON.stringify({ ${extra} first: sizes[1], last: sizes.at(-1) }));`;
const YOUNG = young();

const MB = 1024 * 1024;

describe("which runs are small", () => {
  it("a pull request's plan: --changed-since, in either form", () => {
    expect(isSmallRun(["node", "forgeform", "plan", "--changed-since", "main"])).toBe(true);
    expect(isSmallRun(["node", "forgeform", "plan", "--changed-since=main"])).toBe(true);
    expect(isSmallRun(["node", "forgeform", "drift", "--changed-since=HEAD~1", "m"])).toBe(true);
  });

  it("anything else is not, also a flag that only starts alike or a path named so", () => {
    expect(isSmallRun(["node", "forgeform", "plan", "manifests"])).toBe(false);
    expect(isSmallRun(["node", "forgeform", "plan", "--changed-sinc", "main"])).toBe(false);
    expect(isSmallRun(["node", "forgeform", "validate", "changed-since"])).toBe(false);
    expect(isSmallRun([])).toBe(false);
  });
});

describe("startsSmall", () => {
  it("is a pull request's plan, and any plan, drift or apply: the first word that is not an option", () => {
    for (const command of ["plan", "drift", "apply"]) {
      expect(startsSmall(["node", "forgeform", command, "manifests"])).toBe(true);
      expect(startsSmall(["node", "forgeform", "--no-color", command])).toBe(true);
    }
    expect(startsSmall(["node", "forgeform", "validate", "--changed-since", "main"])).toBe(true);
  });

  it("is not any other command, nor a plan named only as an argument", () => {
    for (const command of ["validate", "export", "explain", "convert", "sandbox", "planx", "Plan"])
      expect(startsSmall(["node", "forgeform", command, "plan"])).toBe(false);
    // The node binary and the script are not the command.
    expect(startsSmall(["plan", "apply"])).toBe(false);
    expect(startsSmall(["node", "forgeform"])).toBe(false);
    expect(startsSmall([])).toBe(false);
  });
});

describe("the young generation", () => {
  it("grows as V8 lets it in a run that does not start small", async () => {
    const { last } = await inProcess<{ last: number }>(["node", "forgeform", "validate", "m"], YOUNG);
    expect(last).toBeGreaterThan(8 * MB);
  });

  it("starts small in a plan, and grows after the given number of collections when no chunk asked to keep it", async () => {
    const { first, last } = await inProcess<{ first: number; last: number }>(
      ["node", "forgeform", "plan", "m"],
      YOUNG,
      60,
    );
    expect(first).toBeLessThanOrEqual(4 * MB);
    expect(last).toBeGreaterThan(8 * MB);
  });

  it("stays small to the end once a plan in chunks asked, from another copy of the module (the bundle's)", async () => {
    const { kept, last } = await inProcess<{ kept: boolean; last: number }>(
      ["node", "forgeform", "plan", "m"],
      `const copy = await import(${JSON.stringify(`${join(ROOT, "lib/cli/runtime.js")}?bundle`)});
       const kept = copy.keepYoungGenerationSmall();
       ${young("kept,")}`,
      60,
    );
    expect(kept).toBe(true);
    expect(last).toBeLessThanOrEqual(4 * MB);
  });

  it("is left to V8 where the process's entry did not tune it, or did not start it small", async () => {
    for (const argv of [undefined, ["node", "forgeform", "validate", "m"]]) {
      const { kept, last } = await inProcess<{ kept: boolean; last: number }>(
        argv,
        `const { keepYoungGenerationSmall } = await import(${JSON.stringify(join(ROOT, "lib/cli/runtime.js"))});
         const kept = keepYoungGenerationSmall();
         ${young("kept,")}`,
      );
      expect(kept).toBe(false);
      expect(last).toBeGreaterThan(8 * MB);
    }
  });

  it("stays at its first size in a pull request's plan", async () => {
    const { last } = await inProcess<{ last: number }>(
      ["node", "forgeform", "plan", "--changed-since", "main"],
      YOUNG,
    );
    expect(last).toBeLessThanOrEqual(4 * MB);
  });

  it("grows after all once a small run has collected it the given number of times", async () => {
    const { first, last } = await inProcess<{ first: number; last: number }>(
      ["node", "forgeform", "plan", "--changed-since", "main"],
      YOUNG,
      60,
    );
    expect(first).toBeLessThanOrEqual(4 * MB);
    expect(last).toBeGreaterThan(8 * MB);
  });
});

describe("the young generation of a forgeform command, as bin/forgeform.js runs it", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start();
    bench.manifest(
      "version: 1\ngroups:\n  alpha:\n    description: a\n  beta:\n    description: b\n",
      "estate.yaml",
    );
    // Written at exit: what tuneProcess and the command left on the process (runtime.ts's Tuning), and the young
    // generation's size.
    writeFileSync(
      join(bench.dir, "report.mjs"),
      `import { writeFileSync } from "node:fs";
       import v8 from "node:v8";
       process.on("exit", () => writeFileSync(process.env.REPORT, JSON.stringify({
         tuning: globalThis[Symbol.for("forgeform.runtime.tuning")],
         newSpace: v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size,
       })));`,
    );
  });
  afterAll(() => bench.stop());

  const command = async (args: string[], units: string) => {
    const report = join(bench.dir, "report.json");
    await run(
      process.execPath,
      ["--import", join(bench.dir, "report.mjs"), join(ROOT, "bin/forgeform.js"), ...args],
      {
        cwd: bench.dir,
        env: {
          ...process.env,
          FORGEFORM_URL: bench.sandbox.url,
          FORGEFORM_TOKEN: ADMIN_TOKEN,
          FORGEFORM_CHUNK_UNITS: units,
          REPORT: report,
        },
      },
    ).catch((error: { code?: number; stderr?: string }) => {
      // drift exits 2 when it finds drift (the estate is not created): the command ran to its end.
      if (error.code !== 2) throw error;
    });
    return JSON.parse(readFileSync(report, "utf8")) as {
      tuning: { small: boolean; keepSmall: boolean };
      newSpace: number;
    };
  };

  it("is kept small to the end by a plan made in chunks, and by a shard", async () => {
    for (const args of [
      ["plan", "estate.yaml"],
      ["drift", "--shard", "1/2", "estate.yaml"],
    ]) {
      const { tuning, newSpace } = await command(args, args[0] === "plan" ? "1" : "");
      expect(tuning, args.join(" ")).toEqual({ small: true, keepSmall: true });
      expect(newSpace).toBeLessThanOrEqual(4 * MB);
    }
  });

  it("is only started small by a plan made in one walk, and not at all by validate", async () => {
    expect((await command(["plan", "estate.yaml"], "0")).tuning).toEqual({ small: true, keepSmall: false });
    expect((await command(["plan", "--target", "alpha", "estate.yaml"], "1")).tuning).toEqual({
      small: true,
      keepSmall: false,
    });
    expect((await command(["validate", "estate.yaml"], "1")).tuning).toEqual({
      small: false,
      keepSmall: false,
    });
  });
});

describe("undici's WebAssembly parser", () => {
  let server: ReturnType<typeof createServer>;
  let url = "";
  beforeAll(async () => {
    const body = JSON.stringify(
      Array.from({ length: 50 }, (_, i) => ({ id: i, name: `project-${i}`, path: `p${i}` })),
    );
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // Requests until V8's memory outside the heap passes 20 MB (the optimising compile of the parser, done on a
  // background thread when a budget of calls runs out), or 3,000 requests: the compile's moment depends on timing,
  // so neither run stops at a fixed count that may come just before it.
  const requests = () => `
const { request } = await import("undici");
const peak = () => v8.getHeapStatistics().peak_malloced_memory;
let sent = 0;
while (sent < 3000 && peak() <= 20 * 1024 * 1024) {
  for (let i = 0; i < 50; i++) await (await request(${JSON.stringify(url)})).body.json();
  sent += 50;
  await new Promise((r) => setTimeout(r, 1));
}
console.log(JSON.stringify({ peak: peak(), sent }));`;

  it("is not compiled again by the optimising compiler: V8's memory outside the heap stays small", async () => {
    const { peak, sent } = await inProcess<{ peak: number; sent: number }>([], requests());
    expect(sent).toBe(3000);
    expect(peak).toBeLessThan(12 * MB);
  });

  it("(control: without the flags, the same requests set off that compile)", async () => {
    const { peak } = await inProcess<{ peak: number }>(undefined, requests());
    expect(peak).toBeGreaterThan(20 * MB);
  });
});
