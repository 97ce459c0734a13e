/**
 * When a plan is made in chunks (src/cli/chunks.ts chunkingOf): a full plan or a shard's (of the shard's trees
 * only), not with --target, --changed-since or --debug; by default only when the manifests' entries weigh more than CHUNKED_ABOVE; and with
 * FORGEFORM_CHUNK_UNITS, in chunks of that many top-level trees (0: never; anything but a whole number refused).
 * That plans made in chunks are the plans one walk makes is test/integration/chunks.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { CHUNK_UNITS_ENV, CHUNKED_ABOVE, chunkingOf } from "../../src/cli/chunks.js";
import type { PlanRequest } from "../../src/cli/workflow.js";
import { manifestOutlines } from "../../src/manifest/index.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "forgeform-chunking-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.unstubAllEnvs());

/** A folder with one manifest of `groups` top-level groups, each with a description of `pad` characters. */
function estate(name: string, groups: number, pad = 10, extra = 0): string {
  const root = join(dir, name);
  mkdirSync(root, { recursive: true });
  const lines = ["version: 1", "groups:"];
  for (let i = 0; i < groups; i++) {
    const text = "d".repeat(pad + (i === groups - 1 ? extra : 0));
    lines.push(`  g${i}:`, `    description: ${text}`);
  }
  writeFileSync(join(root, "groups.yaml"), `${lines.join("\n")}\n`);
  return root;
}

const request = (root: string, more: Partial<PlanRequest> = {}): PlanRequest => ({
  paths: [root],
  connection: { url: "http://127.0.0.1:1", token: "t" },
  ...more,
});

const chunks = (req: PlanRequest) => chunkingOf(req, req.paths, [])?.layout.chunks.map((c) => [...c].sort());

/** What the entries of `root`'s manifests weigh, as chunkingOf counts it. */
function weight(root: string): number {
  let size = 0;
  for (const { outline } of manifestOutlines([root])) for (const e of outline.entries) size += e.size;
  return size;
}

describe("when a plan is made in chunks", () => {
  it(`in chunks of ${CHUNK_UNITS_ENV} top-level trees, in the manifests' order`, () => {
    const root = estate("three", 3);
    vi.stubEnv(CHUNK_UNITS_ENV, "1");
    expect(chunks(request(root))).toEqual([["g0"], ["g1"], ["g2"]]);
    vi.stubEnv(CHUNK_UNITS_ENV, "2");
    expect(chunks(request(root))).toEqual([["g0", "g1"], ["g2"]]);
    // Everything in one chunk is one walk.
    vi.stubEnv(CHUNK_UNITS_ENV, "3");
    expect(chunks(request(root))).toBeUndefined();
  });

  it("of a shard, in chunks of the shard's trees alone", () => {
    const root = estate("shard", 5);
    vi.stubEnv(CHUNK_UNITS_ENV, "1");
    const shards = [1, 2].map((index) => chunks(request(root, { shard: { index, count: 2 } })));
    // Each tree in one chunk of one shard.
    expect(shards.flatMap((s) => s ?? []).sort()).toEqual([["g0"], ["g1"], ["g2"], ["g3"], ["g4"]]);
    expect(shards.map((s) => s?.length)).toEqual([3, 2]);
    // A shard of one tree is one walk.
    const one = estate("shard-of-one", 2);
    expect(chunks(request(one, { shard: { index: 1, count: 2 } }))).toBeUndefined();
    // By default, by the weight of the shard's entries, not the estate's.
    vi.stubEnv(CHUNK_UNITS_ENV, "");
    const pad = 200;
    const base = estate("shard-weight", 6000, pad);
    const whole = weight(base);
    expect(whole).toBeGreaterThan(CHUNKED_ABOVE);
    expect(whole / 2).toBeLessThan(CHUNKED_ABOVE);
    expect(chunks(request(base))?.length).toBeGreaterThan(1);
    expect(chunks(request(base, { shard: { index: 1, count: 2 } }))).toBeUndefined();
  });

  it("never with --target, --changed-since or --debug, nor with 0", () => {
    const root = estate("never", 3);
    vi.stubEnv(CHUNK_UNITS_ENV, "1");
    expect(chunks(request(root, { targets: ["g1"] }))).toBeUndefined();
    expect(chunks(request(root, { changedSince: "HEAD" }))).toBeUndefined();
    expect(
      chunks(request(root, { connection: { url: "http://127.0.0.1:1", token: "t", debug: () => {} } })),
    ).toBeUndefined();
    // No target is no restriction.
    expect(chunks(request(root, { targets: [] }))).toHaveLength(3);
    vi.stubEnv(CHUNK_UNITS_ENV, "0");
    expect(chunks(request(root))).toBeUndefined();
  });

  for (const bad of ["x", "-1", "1.5", " 2 a"]) {
    it(`refuses ${CHUNK_UNITS_ENV}=${JSON.stringify(bad)}, naming it`, () => {
      vi.stubEnv(CHUNK_UNITS_ENV, bad);
      expect(() => chunkingOf(request(estate("bad", 2)), [join(dir, "bad")], [])).toThrow(
        `${CHUNK_UNITS_ENV} must be a whole number (0: never plan in chunks), not ${JSON.stringify(bad)}`,
      );
    });
  }

  it(`by default only when the entries weigh more than ${CHUNKED_ABOVE} characters`, () => {
    vi.stubEnv(CHUNK_UNITS_ENV, "");
    const pad = 200;
    const base = estate("at-limit", 4000, pad);
    const short = CHUNKED_ABOVE - weight(base);
    expect(short).toBeGreaterThan(0);
    // Exactly at the limit: one walk; one character more: chunks.
    const at = estate("at-limit", 4000, pad, short);
    expect(weight(at)).toBe(CHUNKED_ABOVE);
    expect(chunks(request(at))).toBeUndefined();
    const over = estate("over-limit", 4000, pad, short + 1);
    expect(weight(over)).toBe(CHUNKED_ABOVE + 1);
    const layout = chunks(request(over));
    expect(layout?.length).toBeGreaterThan(1);
    // Every tree in exactly one chunk.
    expect(layout?.flat().sort()).toEqual(Array.from({ length: 4000 }, (_, i) => `g${i}`).sort());
    // Unset is the default too.
    vi.unstubAllEnvs();
    delete process.env[CHUNK_UNITS_ENV];
    expect(chunks(request(at))).toBeUndefined();
    expect(chunks(request(over))?.length).toBe(layout?.length);
  });
});
