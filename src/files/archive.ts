/**
 * The check a backup passes before anything is deleted: the download must be a gzip'd tar holding the files the
 * platform's export puts in it, or it is no backup (a sign-in page answering 200, an empty JSON list, a cut-off
 * download). The archive is read as a stream through node-tar, entry names only, bounded in entries and in
 * unpacked size, so a hostile download cannot make the check itself run away.
 */
import { Parser } from "tar";

/** What an export archive must hold: each item is one name, or alternatives of which one must be present. */
export type ArchiveEntries = readonly (string | readonly string[])[];

/** Most entries read from an archive, and most bytes unpacked, before the check gives up on it. */
export const ARCHIVE_LIMITS = { entries: 1_000_000, bytes: 8 * 1024 ** 3 };

/** A download that is not the export archive it should be. */
export class ArchiveError extends Error {
  override name = "ArchiveError";
}

/** The first bytes of a download as text a person recognises (`<!DOCTYPE html>...`, `[]`), escaped. */
function preview(data: Uint8Array): string {
  const text = Buffer.from(data.subarray(0, 40)).toString("latin1");
  return JSON.stringify(text.length < data.length ? `${text}...` : text);
}

function size(n: number): string {
  return `${n} byte${n === 1 ? "" : "s"}`;
}

/** The names of the entries in a gzip'd tar (`./` prefixes removed), bounded by ARCHIVE_LIMITS. */
export async function archiveEntries(
  data: Uint8Array,
  limits: { entries: number; bytes: number } = ARCHIVE_LIMITS,
): Promise<string[]> {
  if (data.length < 2 || data[0] !== 0x1f || data[1] !== 0x8b) {
    throw new ArchiveError(`the download is not a gzip archive (${size(data.length)}: ${preview(data)})`);
  }
  const names: string[] = [];
  let unpacked = 0;
  await new Promise<void>((resolve, reject) => {
    let failed = false;
    const fail = (message: string) => {
      if (failed) return;
      failed = true;
      parser.abort(new ArchiveError(message));
      reject(new ArchiveError(message));
    };
    const parser = new Parser({
      strict: true,
      onReadEntry(entry) {
        names.push(entry.path.replace(/^(\.\/)+/, ""));
        unpacked += entry.size;
        if (names.length > limits.entries) fail(`the archive holds more than ${limits.entries} entries`);
        else if (unpacked > limits.bytes) fail(`the archive unpacks to more than ${limits.bytes} bytes`);
        entry.resume();
      },
    });
    parser.on("error", (error: Error) => fail(`the archive cannot be read (${error.message})`));
    parser.on("end", () => {
      if (!failed) resolve();
    });
    parser.end(Buffer.from(data));
  });
  return names;
}

/**
 * Checks that `data` is an export archive holding every item of `expected`; throws an ArchiveError saying what is
 * wrong otherwise.
 */
export async function checkExportArchive(data: Uint8Array, expected: ArchiveEntries): Promise<void> {
  const names = new Set(await archiveEntries(data));
  if (names.size === 0) throw new ArchiveError(`the archive is empty (${size(data.length)})`);
  const missing = expected
    .filter((item) => (typeof item === "string" ? [item] : item).every((name) => !names.has(name)))
    .map((item) => (typeof item === "string" ? item : item.join(" or ")));
  if (missing.length > 0) {
    throw new ArchiveError(
      `the archive is not the platform's export: it holds no ${missing.join(", no ")} (${names.size} entries)`,
    );
  }
}
