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
import {
  closeSync,
  constants,
  copyFileSync,
  fsyncSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

export interface WriteOptions {
  /**
   * Permission bits of a new file: 0o600 (the owner only) for sensitive content such as tokens; the default 0o666
   * is narrowed by the umask as usual (usually to 0o644).
   */
  mode?: number;
  /**
   * Create the target's missing directories, with these permission bits (0o700 for a folder of secrets), one at a
   * time and never through a symbolic link (see ensureDirectory). Without it a missing directory is an error.
   */
  directoryMode?: number;
  /**
   * Only where nothing is at the target yet: the temporary file is linked to it (which fails when anything is
   * there, as a rename would not), then removed. A token written twice to one path keeps the first, and the second
   * write is an error (EEXIST).
   */
  exclusive?: boolean;
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
              : code === "ENOTDIR"
                ? "a part of its path is a symbolic link or a file, not a directory"
                : code === "EEXIST"
                  ? "something is there already, and this file is written only where nothing is"
                  : "check the path and its directory";
    super(`cannot write ${file} (${code}): ${advice}`);
    this.file = file;
    this.code = code;
  }
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
}

/**
 * Whether a directory entry of any kind (links not followed) is at `path`; not when a part of its path is missing or
 * is a file (ENOTDIR: nothing can be below a file, and creating the path then says why it cannot be).
 */
export function entryExists(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    if (codeOf(error) === "ENOTDIR") return false;
    throw error;
  }
}

/** The deepest of `path` and its ancestors that exists (as a directory entry of any kind; links not followed). */
export function existingAncestor(path: string): string {
  let current = resolve(path);
  for (;;) {
    if (entryExists(current)) return current;
    const up = dirname(current);
    if (up === current) return current;
    current = up;
  }
}

/**
 * Makes `dir` exist as a directory: each missing component is created with `mode` (umask applies), one at a time,
 * and each must then be a real directory, not a symbolic link someone planted meanwhile; an existing component that
 * is a link or not a directory is refused (FileWriteError ENOTDIR). Existing ancestors are the caller's to trust
 * (a token_file's are checked to be real when planning).
 */
export function ensureDirectory(dir: string, mode: number): void {
  const target = resolve(dir);
  const existing = existingAncestor(target);
  const missing = target === existing ? [] : target.slice(existing.length).split(sep).filter(Boolean);
  let current = existing;
  const check = (path: string) => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink() || !stat.isDirectory()) throw new FileWriteError(path, "ENOTDIR");
  };
  check(current);
  for (const part of missing) {
    current = join(current, part);
    try {
      mkdirSync(current, { mode });
    } catch (error) {
      if (codeOf(error) !== "EEXIST") throw new FileWriteError(current, codeOf(error));
    }
    check(current);
  }
}

/** Writes `data` to `file` through an exclusive, unpredictable temporary file and a rename (see the top). */
export function writeFileSafely(file: string, data: string | Uint8Array, options: WriteOptions = {}): void {
  const target = resolve(file);
  if (options.directoryMode !== undefined) ensureDirectory(dirname(target), options.directoryMode);
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
    if (options.exclusive) {
      try {
        linkSync(temp, target);
      } catch (error) {
        // A file system without hard links: a copy that still refuses anything there.
        if (codeOf(error) === "EEXIST") throw error;
        copyFileSync(temp, target, constants.COPYFILE_EXCL);
      }
      rmSync(temp, { force: true });
    } else renameSync(temp, target);
  } catch (error) {
    if (fd >= 0) closeSync(fd);
    rmSync(temp, { force: true });
    throw new FileWriteError(file, codeOf(error));
  }
}

/** Whether `target` is `root` or below it (both absolute, symbolic links already resolved). */
function within(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/**
 * Writes `data` to a new file at exactly `file` (a backup the plan announced): never over anything there (a file, a
 * directory, a symbolic link, even a dangling one: O_EXCL|O_NOFOLLOW), never under another name. Its folder is
 * made (mode 0700) if missing; with `inside`, the folder, symbolic links resolved, must be within that root, checked
 * after it is made and just before the write. The file is mode 0600, written in full and flushed, or removed.
 */
export function writeNewFileAt(file: string, data: Uint8Array, options: { inside?: string } = {}): void {
  const target = resolve(file);
  const dir = dirname(target);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new FileWriteError(file, codeOf(error));
  }
  if (options.inside !== undefined) {
    const real = realpathSync(dir);
    if (!within(realpathSync(options.inside), real)) {
      throw new Error(
        `cannot write ${file}: its folder leads outside ${options.inside} through a symbolic link (to ${real})`,
      );
    }
  }
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);
  let fd: number;
  try {
    fd = openSync(target, flags, 0o600);
  } catch (error) {
    if (codeOf(error) === "EEXIST") {
      throw new Error(
        `cannot write ${file}: something is already there (made since the plan, or a symbolic link); nothing was written over it`,
      );
    }
    throw new FileWriteError(file, codeOf(error));
  }
  try {
    let written = 0;
    while (written < data.length) written += writeSync(fd, data, written, data.length - written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(target, { force: true });
    throw new FileWriteError(file, codeOf(error));
  }
  closeSync(fd);
}

/**
 * The first name, from `file` then `name.2.ext`, `name.3.ext`..., where nothing exists (a dangling symbolic link
 * counts as something): the name a plan announces for a file apply will create.
 */
export function freeName(file: string, ext: string): string {
  const stem = file.endsWith(ext) ? file.slice(0, -ext.length) : file;
  for (let n = 1; n < 1000; n++) {
    const name = n === 1 ? file : `${stem}.${n}${ext}`;
    try {
      lstatSync(name);
    } catch (error) {
      if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return name;
    }
  }
  return file;
}
