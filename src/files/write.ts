/**
 * Every file forgeform writes (saved plans, drift reports, exported manifests, trigger tokens, the Action's report
 * files) goes through `writeFileSafely`: the content goes to a new temporary file with an unpredictable name,
 * created exclusively (O_CREAT|O_EXCL, so an existing file or a planted symbolic link at that name makes it fail
 * instead of being written through), in the target's own directory, flushed, then renamed over the target. A
 * rename replaces a symbolic link at the target rather than following it, and readers never see half a file.
 *
 * npm's write-file-atomic is not used: its temporary name is derived from the pid and a counter and it opens the
 * file without O_EXCL, so a link planted at that name would be followed.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export interface WriteOptions {
  /**
   * Permission bits of a new file: 0o600 (the owner only) for sensitive content such as tokens; the default 0o666
   * is narrowed by the umask as usual (usually to 0o644).
   */
  mode?: number;
}

/** A write that failed: which file, the system's code, and what to check. */
export class FileWriteError extends Error {
  override readonly name = "FileWriteError";
  readonly file: string;
  readonly code: string;

  constructor(file: string, code: string) {
    const advice =
      code === "ENOENT"
        ? "its directory does not exist"
        : code === "EACCES" || code === "EPERM" || code === "EROFS"
          ? "the directory is not writable"
          : code === "EISDIR"
            ? "a directory has that name"
            : code === "ENOSPC" || code === "EDQUOT"
              ? "the disk is full"
              : "check the path and its directory";
    super(`cannot write ${file} (${code}): ${advice}`);
    this.file = file;
    this.code = code;
  }
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
}

/** Writes `data` to `file` through an exclusive, unpredictable temporary file and a rename (see the top). */
export function writeFileSafely(file: string, data: string | Uint8Array, options: WriteOptions = {}): void {
  const target = resolve(file);
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(12).toString("hex")}.tmp`);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  let fd: number;
  try {
    fd = openSync(temp, flags, options.mode ?? 0o666);
  } catch (error) {
    throw new FileWriteError(file, codeOf(error));
  }
  try {
    const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(temp, target);
  } catch (error) {
    if (fd >= 0) closeSync(fd);
    rmSync(temp, { force: true });
    throw new FileWriteError(file, codeOf(error));
  }
}
