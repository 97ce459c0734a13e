import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FileReadError, readTextFile } from "../../src/files/read.js";

const dir = () => mkdtempSync(join(tmpdir(), "forgeform-read-"));

function refusal(file: string, maxBytes: number): FileReadError {
  try {
    readTextFile(file, { maxBytes });
  } catch (error) {
    if (error instanceof FileReadError) return error;
    throw error;
  }
  throw new Error(`${file} was read`);
}

describe("readTextFile", () => {
  it("reads a regular file, also through a link, up to the limit exactly", () => {
    const d = dir();
    writeFileSync(join(d, "ten.txt"), "0123456789");
    symlinkSync("ten.txt", join(d, "link.txt"));
    expect(readTextFile(join(d, "ten.txt"), { maxBytes: 10 })).toBe("0123456789");
    expect(readTextFile(join(d, "link.txt"), { maxBytes: 10 })).toBe("0123456789");
  });

  it("refuses a file longer than the limit, saying how long it is", () => {
    const d = dir();
    writeFileSync(join(d, "eleven.txt"), "0123456789a");
    const error = refusal(join(d, "eleven.txt"), 10);
    expect(error.problem).toBe("too-large");
    expect(error.size).toBe(11);
    expect(error.reason).toBe("has 11 bytes; at most 10 are read");
  });

  it("refuses a device without reading it: a link to /dev/zero never ends", () => {
    const d = dir();
    symlinkSync("/dev/zero", join(d, "zero.yaml"));
    const error = refusal(join(d, "zero.yaml"), 1024);
    expect(error.problem).toBe("not-a-file");
    expect(error.reason).toBe("is a character device, not a regular file");
  });

  it("refuses a FIFO at once instead of waiting for a writer", () => {
    const d = dir();
    execFileSync("mkfifo", [join(d, "pipe")]);
    const error = refusal(join(d, "pipe"), 1024);
    expect(error.problem).toBe("not-a-file");
    expect(error.reason).toBe("is a FIFO (named pipe), not a regular file");
  });

  it("refuses a directory, and says when nothing is there", () => {
    const d = dir();
    mkdirSync(join(d, "sub"));
    expect(refusal(join(d, "sub"), 1024).reason).toBe("is a directory, not a regular file");
    const missing = refusal(join(d, "none"), 1024);
    expect([missing.problem, missing.code, missing.reason]).toEqual(["missing", "ENOENT", "does not exist"]);
  });
});
