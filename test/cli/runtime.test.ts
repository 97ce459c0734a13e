/**
 * The V8 settings of a forgeform process (src/cli/runtime.ts), in a child process of their own as bin/forgeform.js
 * sets them: a flag set here would change the test runner's own heap. Memory is read from V8's statistics, not timed.
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSmallRun } from "../../src/cli/runtime.js";

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
 * two of its twelve rounds and at the end; a round takes V8 16 to 19 young-generation collections here.
 */
const YOUNG = `
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
console.log(JSON.stringify({ first: sizes[1], last: sizes.at(-1) }));`;

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

describe("the young generation", () => {
  it("grows as V8 lets it in a run that is not small", async () => {
    const { last } = await inProcess<{ last: number }>(["node", "forgeform", "plan", "m"], YOUNG);
    expect(last).toBeGreaterThan(8 * MB);
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

  const requests = () => `
const { request } = await import("undici");
for (let i = 0; i < 300; i++) await (await request(${JSON.stringify(url)})).body.json();
console.log(JSON.stringify({ peak: v8.getHeapStatistics().peak_malloced_memory }));`;

  it("is not compiled again by the optimising compiler: V8's memory outside the heap stays small", async () => {
    const { peak } = await inProcess<{ peak: number }>([], requests());
    expect(peak).toBeLessThan(12 * MB);
  });

  it("(control: without the flags, the same requests set off that compile)", async () => {
    const { peak } = await inProcess<{ peak: number }>(undefined, requests());
    expect(peak).toBeGreaterThan(20 * MB);
  });
});
