import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { ArchiveError, readTarGz, writeTarGz } from "../../src/sandbox/tar.js";
import { commandMissing, describeNeeding } from "../required.js";

/** The sandbox's tar.gz codec, checked against GNU tar in both directions. */

const limits = { maxBytes: 1024 * 1024, maxEntries: 100 };
const noTar = commandMissing("tar", "tar");

function gnuTar(args: string[], cwd: string, input?: Buffer) {
  const r = spawnSync("tar", args, { cwd, input });
  expect(r.status, String(r.stderr)).toBe(0);
  return r.stdout;
}

function refusal(data: Buffer, l = limits): string {
  try {
    readTarGz(data, l);
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return (error as Error).message;
  }
  throw new Error("the archive was accepted");
}

const long = `${"d".repeat(90)}/${"e".repeat(60)}/file-with-a-long-name.ndjson`;

describeNeeding(noTar)("tar.gz codec", () => {
  it("GNU tar lists and extracts what the writer makes: ./ names, directories first, long names in the prefix", () => {
    const archive = writeTarGz(
      [
        { name: "VERSION", data: Buffer.from("0.2.4") },
        { name: "tree/groups/_all.ndjson", data: Buffer.from("1\n2\n") },
        { name: long, data: Buffer.alloc(1500, 0x61) },
      ],
      new Date("2021-03-04T05:06:07Z"),
    );
    const dir = mkdtempSync(join(tmpdir(), "tar-out-"));
    const listing = gnuTar(["-tzvf", "-"], dir, archive).toString();
    const names = gnuTar(["-tzf", "-"], dir, archive).toString().trim().split("\n");
    expect(names.slice(0, 5)).toEqual([
      "./",
      "./VERSION",
      "./tree/",
      "./tree/groups/",
      "./tree/groups/_all.ndjson",
    ]);
    expect(names).toContain(`./${long}`);
    expect(listing).toMatch(/2021-03-04/);
    gnuTar(["-xzf", "-"], dir, archive);
    expect(readFileSync(join(dir, "tree/groups/_all.ndjson"), "utf8")).toBe("1\n2\n");
    expect(readFileSync(join(dir, long)).length).toBe(1500);
    expect(readTarGz(archive, limits).map((f) => [f.name, f.data.length])).toEqual([
      ["VERSION", 5],
      ["tree/groups/_all.ndjson", 4],
      [long, 1500],
    ]);
  });

  it("reads what GNU tar writes in its gnu, pax and ustar formats, long names included", () => {
    const dir = mkdtempSync(join(tmpdir(), "tar-in-"));
    mkdirSync(join(dir, "tree", "groups", "7"), { recursive: true });
    writeFileSync(join(dir, "tree", "groups", "7", "badges.ndjson"), '{"a":1}\n');
    const longer = `${"x".repeat(120)}.ndjson`;
    writeFileSync(join(dir, longer), "long");
    for (const format of ["gnu", "pax", "ustar"]) {
      const files = format === "ustar" ? ["./tree"] : ["./tree", `./${longer}`];
      const archive = gnuTar([`--format=${format}`, "-czf", "-", ...files], dir);
      const read = readTarGz(archive, limits);
      expect(read.map((f) => f.name)).toEqual(
        format === "ustar" ? ["tree/groups/7/badges.ndjson"] : ["tree/groups/7/badges.ndjson", longer],
      );
      expect(read[0]!.data.toString()).toBe('{"a":1}\n');
    }
  });

  it("refuses links, absolute names and names that climb out of the archive", () => {
    const dir = mkdtempSync(join(tmpdir(), "tar-bad-"));
    mkdirSync(join(dir, "in"));
    writeFileSync(join(dir, "outside"), "secret");
    symlinkSync("/etc/passwd", join(dir, "in", "link"));
    expect(refusal(gnuTar(["-czf", "-", "link"], join(dir, "in")))).toBe(
      'the entry "link" is a link or a special file',
    );
    expect(refusal(gnuTar(["-P", "-czf", "-", "../outside"], join(dir, "in")))).toBe(
      'the entry "../outside" points outside the archive',
    );
    expect(refusal(gnuTar(["-P", "-czf", "-", join(dir, "outside")], dir))).toBe(
      `the entry "${join(dir, "outside")}" has an absolute path`,
    );
    const twice = writeTarGz(
      [
        { name: "a", data: Buffer.from("1") },
        { name: "a", data: Buffer.from("2") },
      ],
      new Date(0),
    );
    expect(refusal(twice)).toBe('the entry "a" appears twice');
  });

  it("refuses what is not gzip, not tar, truncated, corrupt, too big unpacked or too many entries", () => {
    expect(refusal(Buffer.from("PK\u0003\u0004 a zip"))).toBe("it is not a gzip-compressed tar archive");
    expect(refusal(gzipSync(Buffer.from('{"format":"json"}')))).toBe("it is not a tar archive");
    expect(refusal(gzipSync(Buffer.alloc(0)))).toBe("it is not a tar archive");
    const good = writeTarGz([{ name: "f", data: Buffer.alloc(2000, 1) }], new Date(0));
    expect(refusal(good.subarray(0, good.length - 10))).toMatch(/^it is not a valid gzip stream/);
    const tar = gunzipSync(good);
    expect(refusal(gzipSync(tar.subarray(0, 1024 + 512)))).toBe("an entry runs past the end of the archive");
    const corrupt = Buffer.from(tar);
    corrupt[512 + 10] = 0x41; // a byte of the second header's name
    expect(refusal(gzipSync(corrupt))).toBe("a tar header is corrupt");
    // A gzip bomb: 64 MiB of zeros in about 64 KiB; inflating stops at the limit.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(100 * 1024);
    expect(refusal(bomb)).toBe(`it unpacks to more than ${limits.maxBytes} bytes`);
    const many = writeTarGz(
      Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, data: Buffer.from("x") })),
      new Date(0),
    );
    expect(refusal(many, { maxBytes: limits.maxBytes, maxEntries: 4 })).toBe("it has more than 4 entries");
  });
});
