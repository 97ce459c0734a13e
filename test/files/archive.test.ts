/** The check a backup passes before a delete: a gzip'd tar holding the export's files, read within bounds. */
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { archiveEntries, checkExportArchive } from "../../src/files/archive.js";

/** A gzip'd ustar archive of the named files (each `size` bytes of zeros). */
function tarGz(files: string[], size = 0): Buffer {
  const blocks: Buffer[] = [];
  for (const name of files) {
    const h = Buffer.alloc(512);
    h.write(name, 0, "latin1");
    h.write("0000644\0", 100, "latin1");
    h.write("0000000\0", 108, "latin1");
    h.write("0000000\0", 116, "latin1");
    h.write(`${size.toString(8).padStart(11, "0")}\0`, 124, "latin1");
    h.write("00000000000\0", 136, "latin1");
    h.write("        ", 148, "latin1");
    h.write("0", 156, "latin1");
    h.write("ustar\u000000", 257, "latin1");
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    blocks.push(h, Buffer.alloc(Math.ceil(size / 512) * 512));
  }
  return gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)]));
}

describe("export archives", () => {
  const GROUP = ["VERSION", ["tree/groups/_all.ndjson", "group.json"]] as const;

  it("pass with every expected file, either of two alternatives, with or without ./", async () => {
    await expect(
      checkExportArchive(tarGz(["./VERSION", "./tree/groups/_all.ndjson"]), GROUP),
    ).resolves.toBeUndefined();
    await expect(checkExportArchive(tarGz(["VERSION", "group.json", "x"]), GROUP)).resolves.toBeUndefined();
  });

  it("fail naming each missing file, or what the download is instead", async () => {
    await expect(checkExportArchive(tarGz(["VERSION"]), GROUP)).rejects.toThrow(
      "it holds no tree/groups/_all.ndjson or group.json (1 entries)",
    );
    await expect(checkExportArchive(tarGz([]), GROUP)).rejects.toThrow(
      /the archive (is empty|cannot be read)/,
    );
    await expect(checkExportArchive(Buffer.from("{}"), GROUP)).rejects.toThrow(
      'the download is not a gzip archive (2 bytes: "{}")',
    );
    await expect(checkExportArchive(new Uint8Array(), GROUP)).rejects.toThrow("not a gzip archive (0 bytes");
    await expect(checkExportArchive(Buffer.from([0x1f, 0x8b, 0, 0]), GROUP)).rejects.toThrow(
      "the archive cannot be read",
    );
  });

  it("stop at the limits: the last entry allowed passes, one more fails", async () => {
    const limits = { entries: 3, bytes: 2048 };
    await expect(archiveEntries(tarGz(["a", "b", "c"]), limits)).resolves.toEqual(["a", "b", "c"]);
    await expect(archiveEntries(tarGz(["a", "b", "c", "d"]), limits)).rejects.toThrow("more than 3 entries");
    await expect(archiveEntries(tarGz(["a", "b"], 1024), limits)).resolves.toHaveLength(2);
    await expect(archiveEntries(tarGz(["a", "b", "c"], 1024), limits)).rejects.toThrow(
      "more than 2048 bytes",
    );
  });
});
