import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  existingAncestor,
  FileWriteError,
  freeName,
  writeFileSafely,
  writeNewFileAt,
} from "../../src/files/write.js";

const dir = () => mkdtempSync(join(tmpdir(), "forgeform-write-"));

describe("writeFileSafely", () => {
  it("writes the content, with the mode asked for, and leaves no temporary file", () => {
    const d = dir();
    writeFileSafely(join(d, "token"), "secret\n", { mode: 0o600 });
    expect(readFileSync(join(d, "token"), "utf8")).toBe("secret\n");
    expect(statSync(join(d, "token")).mode & 0o777).toBe(0o600);
    expect(readdirSync(d)).toEqual(["token"]);
  });

  it("replaces an existing file whole", () => {
    const d = dir();
    writeFileSync(join(d, "report.txt"), "old and much longer content\n");
    writeFileSafely(join(d, "report.txt"), "new\n");
    expect(readFileSync(join(d, "report.txt"), "utf8")).toBe("new\n");
  });

  it("exclusive: writes only where nothing is, keeps what is there (a file, a dangling link), leaves no temporary file", () => {
    const d = dir();
    writeFileSafely(join(d, "token"), "first\n", { mode: 0o600, exclusive: true });
    expect(statSync(join(d, "token")).mode & 0o777).toBe(0o600);
    const again = (() => {
      try {
        writeFileSafely(join(d, "token"), "second\n", { mode: 0o600, exclusive: true });
      } catch (e) {
        return e;
      }
    })();
    expect(again).toBeInstanceOf(FileWriteError);
    expect((again as FileWriteError).code).toBe("EEXIST");
    expect((again as Error).message).toBe(
      `cannot write ${join(d, "token")} (EEXIST): something is there already, and this file is written only where nothing is`,
    );
    expect(readFileSync(join(d, "token"), "utf8")).toBe("first\n");
    symlinkSync(join(d, "nowhere"), join(d, "dangling"));
    expect(() => writeFileSafely(join(d, "dangling"), "x", { exclusive: true })).toThrow(/EEXIST/);
    expect(lstatSync(join(d, "dangling")).isSymbolicLink()).toBe(true);
    expect(readdirSync(d).sort()).toEqual(["dangling", "token"]);
  });

  it("replaces a symbolic link at the target instead of writing through it", () => {
    const d = dir();
    writeFileSync(join(d, "victim"), "precious\n");
    symlinkSync(join(d, "victim"), join(d, "out"));
    writeFileSafely(join(d, "out"), "report\n");
    expect(readFileSync(join(d, "victim"), "utf8")).toBe("precious\n");
    expect(lstatSync(join(d, "out")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(d, "out"), "utf8")).toBe("report\n");
  });

  it("names the file and the cause when it cannot write, leaving nothing behind", () => {
    const d = dir();
    const error = (() => {
      try {
        writeFileSafely(join(d, "missing", "plan.json"), "{}");
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as Error).message).toBe(
      `cannot write ${join(d, "missing", "plan.json")} (ENOENT): its directory does not exist`,
    );
    mkdirSync(join(d, "a-directory"));
    expect(() => writeFileSafely(join(d, "a-directory"), "x")).toThrow(
      `cannot write ${join(d, "a-directory")} (EISDIR): a directory has that name`,
    );
    expect(readdirSync(d)).toEqual(["a-directory"]);
  });
});

describe("writeFileSafely with directoryMode", () => {
  it("creates the missing directories with that mode, then the file", () => {
    const d = dir();
    writeFileSafely(join(d, "secrets", "ci", "deploy.token"), "token\n", {
      mode: 0o600,
      directoryMode: 0o700,
    });
    expect(readFileSync(join(d, "secrets", "ci", "deploy.token"), "utf8")).toBe("token\n");
    expect(statSync(join(d, "secrets")).mode & 0o777).toBe(0o700);
    expect(statSync(join(d, "secrets", "ci")).mode & 0o777).toBe(0o700);
    // An existing directory is used as it is.
    writeFileSafely(join(d, "secrets", "other.token"), "other\n", { directoryMode: 0o700 });
    expect(readdirSync(join(d, "secrets")).sort()).toEqual(["ci", "other.token"]);
  });

  it("never creates or writes through a symbolic link in the path", () => {
    const d = dir();
    const elsewhere = dir();
    symlinkSync(elsewhere, join(d, "secrets"));
    expect(() =>
      writeFileSafely(join(d, "secrets", "ci", "deploy.token"), "token\n", { directoryMode: 0o700 }),
    ).toThrow(
      `cannot write ${join(d, "secrets")} (ENOTDIR): a part of its path is a symbolic link or a file`,
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });

  it("finds the deepest part of a path that exists", () => {
    const d = dir();
    mkdirSync(join(d, "a"));
    expect(existingAncestor(join(d, "a", "b", "c"))).toBe(join(d, "a"));
    expect(existingAncestor(join(d, "a"))).toBe(join(d, "a"));
  });
});

describe("writeNewFileAt (a backup where the plan said)", () => {
  const bytes = new Uint8Array([1, 2, 3]);

  it("writes a new file, mode 0600, making its folder 0700", () => {
    const d = dir();
    const file = join(d, "a", "b", "backup.tar.gz");
    writeNewFileAt(file, bytes);
    expect([...readFileSync(file)]).toEqual([1, 2, 3]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(d, "a", "b")).mode & 0o777).toBe(0o700);
  });

  it("never writes over a file, a directory or a link, dangling or not, nor under another name", () => {
    const d = dir();
    writeFileSync(join(d, "file"), "keep");
    mkdirSync(join(d, "folder"));
    symlinkSync(join(d, "target"), join(d, "dangling"));
    symlinkSync(join(d, "file"), join(d, "link"));
    for (const name of ["file", "folder", "dangling", "link"]) {
      expect(() => writeNewFileAt(join(d, name), bytes), name).toThrow(/already there|EISDIR|EEXIST/);
    }
    expect(readFileSync(join(d, "file"), "utf8")).toBe("keep");
    expect(readdirSync(d).sort()).toEqual(["dangling", "file", "folder", "link"]);
  });

  it("refuses a folder that leads outside the root it must stay in, and writes nothing there", () => {
    const root = dir();
    const outside = dir();
    symlinkSync(outside, join(root, ".forgeform"));
    expect(() => writeNewFileAt(join(root, ".forgeform", "x", "b.tar.gz"), bytes, { inside: root })).toThrow(
      /its folder leads outside .* through a symbolic link/,
    );
    expect(readdirSync(join(outside, "x"))).toEqual([]);
    writeNewFileAt(join(root, "in", "b.tar.gz"), bytes, { inside: root });
    expect(readdirSync(join(root, "in"))).toEqual(["b.tar.gz"]);
  });

  it("announces the first name where nothing is: the usual one, then .2, .3 ...", () => {
    const d = dir();
    const usual = join(d, "group-x.tar.gz");
    expect(freeName(usual, ".tar.gz")).toBe(usual);
    symlinkSync(join(d, "nowhere"), usual);
    expect(freeName(usual, ".tar.gz")).toBe(join(d, "group-x.2.tar.gz"));
    writeFileSync(join(d, "group-x.2.tar.gz"), "");
    expect(freeName(usual, ".tar.gz")).toBe(join(d, "group-x.3.tar.gz"));
  });
});
