import { promisify } from "node:util";
import { gunzip, gunzipSync, gzipSync } from "node:zlib";

const gunzipAsync = promisify(gunzip);

/**
 * A small tar.gz codec for the group export archive: a POSIX ustar writer, and a reader that trusts nothing.
 *
 * The reader refuses, with an {@link ArchiveError} saying why: data that is not gzip, more than `maxBytes` once
 * unpacked (the inflater stops there, so memory stays bounded), headers whose checksum is wrong, entries that run
 * past the end, absolute names, names with a `..` segment, a backslash or a NUL, links, devices and FIFOs, a name
 * twice, and more than `maxEntries` entries. It understands what GNU tar writes besides ustar: `./` prefixes, long
 * names (`L`) and pax headers (`x` with `path`; `g` is ignored).
 */

export class ArchiveError extends Error {}

export interface TarFile {
  /** The entry's path inside the archive, without a leading `./`. */
  name: string;
  data: Buffer;
}

export interface TarLimits {
  /** Bytes of the unpacked tar stream. */
  maxBytes: number;
  maxEntries: number;
}

const BLOCK = 512;

function field(header: Buffer, start: number, length: number, value: string): void {
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > length) throw new Error(`tar: "${value}" does not fit ${length} bytes`);
  bytes.copy(header, start);
}

function octal(value: number, length: number): string {
  return `${value.toString(8).padStart(length - 1, "0")}\0`;
}

function checksum(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum;
}

/** Splits a long path into ustar's prefix (155 bytes) and name (100 bytes) at a `/`. */
function splitName(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: "", name: path };
  for (let i = path.indexOf("/"); i > 0; i = path.indexOf("/", i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new Error(`tar: the path "${path}" is too long for ustar`);
}

function header(path: string, type: "0" | "5", size: number, mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const { prefix, name } = splitName(path);
  field(h, 0, 100, name);
  field(h, 100, 8, octal(type === "5" ? 0o755 : 0o644, 8));
  field(h, 108, 8, octal(0, 8));
  field(h, 116, 8, octal(0, 8));
  field(h, 124, 12, octal(size, 12));
  field(h, 136, 12, octal(mtime, 12));
  field(h, 156, 1, type);
  field(h, 257, 8, "ustar\u000000");
  field(h, 265, 32, "git");
  field(h, 297, 32, "git");
  field(h, 345, 155, prefix);
  field(h, 148, 8, `${checksum(h).toString(8).padStart(6, "0")}\0 `);
  return h;
}

/**
 * A gzip-compressed ustar archive of `files`, as `tar -czf out.tar.gz -C dir .` lays it out: a `./` entry, then each
 * directory before what it holds, every name starting with `./`.
 */
export function writeTarGz(files: readonly TarFile[], mtime: Date): Buffer {
  const seconds = Math.floor(mtime.getTime() / 1000);
  const parts: Buffer[] = [header("./", "5", 0, seconds)];
  const dirs = new Set<string>();
  for (const f of files) {
    const segments = f.name.split("/");
    for (let i = 1; i < segments.length; i++) {
      const dir = segments.slice(0, i).join("/");
      if (dirs.has(dir)) continue;
      dirs.add(dir);
      parts.push(header(`./${dir}/`, "5", 0, seconds));
    }
    parts.push(header(`./${f.name}`, "0", f.data.length, seconds), f.data);
    const pad = (BLOCK - (f.data.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return gzipSync(Buffer.concat(parts));
}

function text(block: Buffer, start: number, length: number): string {
  const slice = block.subarray(start, start + length);
  const end = slice.indexOf(0);
  return slice.subarray(0, end === -1 ? length : end).toString("utf8");
}

function numberField(block: Buffer, start: number, length: number, what: string): number {
  if ((block[start]! & 0x80) !== 0) throw new ArchiveError(`an entry's ${what} is too large`);
  const s = text(block, start, length).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError(`an entry's ${what} is not an octal number`);
  return Number.parseInt(s, 8);
}

function storedChecksum(block: Buffer): number {
  const s = text(block, 148, 8).trim();
  return /^[0-7]{1,7}$/.test(s) ? Number.parseInt(s, 8) : -1;
}

/** The entry name as stored, made relative; refused when it could point outside the archive. */
function safeName(raw: string): string {
  if (raw.includes("\0") || raw.includes("\\"))
    throw new ArchiveError(`the entry name "${raw}" is not allowed`);
  if (raw.startsWith("/")) throw new ArchiveError(`the entry "${raw}" has an absolute path`);
  const segments = raw.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) throw new ArchiveError(`the entry "${raw}" points outside the archive`);
  return segments.join("/");
}

/** Pax extended header records (`<length> <key>=<value>\n`). */
function paxPath(data: Buffer): string | undefined {
  let path: string | undefined;
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const length =
      space === -1 ? Number.NaN : Number.parseInt(data.subarray(at, space).toString("ascii"), 10);
    if (!Number.isInteger(length) || length <= 0 || at + length > data.length) {
      throw new ArchiveError("a pax header is malformed");
    }
    const record = data.subarray(space + 1, at + length - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq !== -1 && record.slice(0, eq) === "path") path = record.slice(eq + 1);
    if (eq !== -1 && record.slice(0, eq) === "size") throw new ArchiveError("an entry is too large");
    at += length;
  }
  return path;
}

function checkGzip(data: Buffer): void {
  if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) {
    throw new ArchiveError("it is not a gzip-compressed tar archive");
  }
}

function inflateError(error: unknown, maxBytes: number): ArchiveError {
  if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || error instanceof RangeError) {
    return new ArchiveError(`it unpacks to more than ${maxBytes} bytes`);
  }
  return new ArchiveError(`it is not a valid gzip stream (${(error as Error).message})`);
}

function gunzipBounded(data: Buffer, maxBytes: number): Buffer {
  checkGzip(data);
  try {
    return gunzipSync(data, { maxOutputLength: maxBytes });
  } catch (error) {
    throw inflateError(error, maxBytes);
  }
}

/**
 * {@link readTarGz} with the inflating done off the main thread (zlib's thread pool), so that a large archive does
 * not hold up the server while it is unpacked.
 */
export async function readTarGzAsync(data: Buffer, limits: TarLimits): Promise<TarFile[]> {
  checkGzip(data);
  let tar: Buffer;
  try {
    tar = await gunzipAsync(data, { maxOutputLength: limits.maxBytes });
  } catch (error) {
    throw inflateError(error, limits.maxBytes);
  }
  return readTar(tar, limits);
}

export function readTarGz(data: Buffer, limits: TarLimits): TarFile[] {
  return readTar(gunzipBounded(data, limits.maxBytes), limits);
}

function readTar(tar: Buffer, limits: TarLimits): TarFile[] {
  const files: TarFile[] = [];
  const seen = new Set<string>();
  let longName: string | undefined;
  let entries = 0;
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const block = tar.subarray(at, at + BLOCK);
    if (block.every((b) => b === 0)) break;
    if (storedChecksum(block) !== checksum(block)) {
      throw new ArchiveError(entries === 0 ? "it is not a tar archive" : "a tar header is corrupt");
    }
    if (++entries > limits.maxEntries)
      throw new ArchiveError(`it has more than ${limits.maxEntries} entries`);
    const size = numberField(block, 124, 12, "size");
    const start = at + BLOCK;
    if (start + size > tar.length) throw new ArchiveError("an entry runs past the end of the archive");
    const body = tar.subarray(start, start + size);
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    const type = String.fromCharCode(block[156]!);
    const ustar = text(block, 257, 6) === "ustar";
    const prefix = ustar ? text(block, 345, 155) : "";
    const stored = longName ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    longName = undefined;
    if (type === "L" || type === "x") {
      longName = type === "L" ? text(body, 0, body.length) : paxPath(body);
      continue;
    }
    if (type === "g" || type === "5") continue;
    if (type !== "0" && type !== "\0" && type !== "7") {
      throw new ArchiveError(`the entry "${stored}" is a link or a special file`);
    }
    const name = safeName(stored);
    if (name === "") throw new ArchiveError(`the entry "${stored}" has no name`);
    if (seen.has(name)) throw new ArchiveError(`the entry "${name}" appears twice`);
    seen.add(name);
    files.push({ name, data: body });
  }
  if (entries === 0) throw new ArchiveError("it is not a tar archive");
  return files;
}
