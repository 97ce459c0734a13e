/**
 * Every file forgeform reads on a user's behalf (manifests, `${file:}` references, wiki `content_file`s, token
 * files, drift reports to merge) goes through `readTextFile`: only a regular file is read, and never more than a
 * limit, counted while reading rather than trusted from the file's size.
 *
 * `readFileSync` alone reads whatever the path names until it ends: a link to `/dev/zero` grows until the process
 * dies, a FIFO blocks for ever (opening it waits for a writer), a device may act on being opened. Here the path is
 * looked at first (following links, as a user naming it expects) and anything but a regular file is refused without
 * opening it; it is then opened non-blocking and looked at again through the open descriptor, so a file swapped for
 * something else in between is refused too; and reading stops one byte past the limit.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";

/** Why a file was not read. */
export type FileReadProblem = "missing" | "unreadable" | "not-a-file" | "too-large";

/** A file that was not read: which, why (`problem`), and the system's code when it gave one. */
export class FileReadError extends Error {
  override readonly name = "FileReadError";

  constructor(
    readonly file: string,
    readonly problem: FileReadProblem,
    /** What the problem is, in words: `is a FIFO (named pipe), not a regular file`, `has more than 5 MiB`. */
    readonly reason: string,
    readonly code?: string,
    /** "too-large": the file's size when it was known before reading (a file that grows while read has none). */
    readonly size?: number,
  ) {
    super(`${file} ${reason}`);
  }
}

export interface ReadOptions {
  /** Most bytes read; a longer file is refused (FileReadError "too-large"). */
  maxBytes: number;
}

/** What a file that is not a regular one is, in words. */
function kindOf(stat: Stats): string {
  if (stat.isDirectory()) return "a directory";
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

/** A byte count in words: `5 MiB`, `1024 bytes`. */
export function byteSize(bytes: number): string {
  const MiB = 1024 * 1024;
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

function systemError(file: string, error: unknown): FileReadError {
  const code = (error as { code?: string }).code ?? "EIO";
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new FileReadError(file, "missing", "does not exist", code);
  }
  const why =
    code === "EACCES" || code === "EPERM"
      ? "cannot be read: permission denied"
      : code === "ELOOP"
        ? "cannot be read: too many levels of symbolic links"
        : `cannot be read (${code})`;
  return new FileReadError(file, "unreadable", why, code);
}

function notAFile(file: string, stat: Stats): FileReadError {
  const what = kindOf(stat);
  return new FileReadError(
    file,
    "not-a-file",
    what === "not a regular file" ? what : `is ${what}, not a regular file`,
  );
}

function tooLarge(file: string, max: number, size?: number): FileReadError {
  const has = size === undefined ? `more than ${max} bytes` : `${size} bytes`;
  return new FileReadError(file, "too-large", `has ${has}; at most ${max} are read`, undefined, size);
}

/**
 * The bytes of the regular file at `file` (links followed), at most `maxBytes` of them. Throws FileReadError when the
 * path names anything else, does not exist, cannot be read, or holds more.
 */
export function readFileBytes(file: string, options: ReadOptions): Buffer {
  const max = options.maxBytes;
  let before: Stats;
  try {
    before = statSync(file);
  } catch (error) {
    throw systemError(file, error);
  }
  if (!before.isFile()) throw notAFile(file, before);
  if (before.size > max) throw tooLarge(file, max, before.size);
  let fd: number;
  try {
    // Non-blocking: should the path have become a FIFO since, opening it does not wait for a writer.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    throw systemError(file, error);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw notAFile(file, opened);
    if (opened.ino !== before.ino || opened.dev !== before.dev) {
      throw new FileReadError(file, "unreadable", "was replaced while it was being read; run again");
    }
    // One byte more than the limit is asked for: getting it means the file is longer than allowed.
    const buffer = Buffer.allocUnsafe(Math.min(max + 1, Math.max(opened.size + 1, 64 * 1024)));
    let length = 0;
    let chunk = buffer;
    for (;;) {
      if (length === chunk.length) {
        if (chunk.length > max) break;
        const grown = Buffer.allocUnsafe(Math.min(max + 1, chunk.length * 2));
        chunk.copy(grown, 0, 0, length);
        chunk = grown;
      }
      let n: number;
      try {
        n = readSync(fd, chunk, length, chunk.length - length, null);
      } catch (error) {
        throw systemError(file, error);
      }
      if (n === 0) break;
      length += n;
    }
    if (length > max) throw tooLarge(file, max);
    return chunk.subarray(0, length);
  } finally {
    closeSync(fd);
  }
}

/** The text (UTF-8) of the regular file at `file`, at most `maxBytes` bytes of it (see readFileBytes). */
export function readTextFile(file: string, options: ReadOptions): string {
  return readFileBytes(file, options).toString("utf8");
}
