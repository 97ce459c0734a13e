/**
 * Where forgeform may write a token the platform shows once (token_file): to a path where nothing is, or over a
 * regular file that holds exactly this object's current token; never through a link, over a folder, or over anything
 * else. And a token that cannot be written after its object was made is an error that says what to do, never the
 * token.
 */
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createWithTokenFile, tokenDigest, tokenFileRefusal } from "../../src/kinds/token-file.js";

const WORDS = {
  token: "deploy token",
  over: " or over this token's current value",
  other: "holds something other than this deploy token's current value",
};

describe("token_file", () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "forgeform-token-file-")));
  const refusal = (target: string, known?: string) => tokenFileRefusal(target, known, WORDS);

  it("may be written where nothing is, also in folders that do not exist yet", () => {
    expect(refusal(join(root, "new.token"))).toBeUndefined();
    expect(refusal(join(root, "missing/deeper/new.token"))).toBeUndefined();
  });

  it("may be written over a regular file that holds the current token, up to 1,024 bytes", () => {
    const token = "glpat-current";
    const file = join(root, "current.token");
    writeFileSync(file, `${token}\n`);
    expect(refusal(file, tokenDigest(token))).toBeUndefined();
    // Another token, or none known (the platform shows none): refused.
    expect(refusal(file, tokenDigest("glpat-other"))).toBe(
      `token_file ${file} holds something other than this deploy token's current value: forgeform writes a deploy token only to a new file or over this token's current value, never over anything else; remove the file or name another one`,
    );
    expect(refusal(file)).toMatch(/ already exists: forgeform writes a deploy token only to a new file/);
    // The size limit, at the limit and one past it: the token padded with spaces the comparison trims.
    const padded = join(root, "padded.token");
    writeFileSync(padded, `${token}${" ".repeat(1024 - token.length)}`);
    expect(refusal(padded, tokenDigest(token))).toBeUndefined();
    writeFileSync(padded, `${token}${" ".repeat(1025 - token.length)}`);
    expect(refusal(padded, tokenDigest(token))).toMatch(/ holds something other than this deploy token's/);
  });

  it("is never written through a link or over a folder", () => {
    const target = join(root, "real.token");
    writeFileSync(target, "glpat-current\n");
    const link = join(root, "link.token");
    symlinkSync(target, link);
    expect(refusal(link, tokenDigest("glpat-current"))).toMatch(
      new RegExp(`^token_file ${link} is a symbolic link: forgeform writes`),
    );
    const folder = join(root, "folder.token");
    mkdirSync(folder);
    expect(refusal(folder)).toMatch(/ is not a regular file: /);
    // The file's folder turned into a link since the manifest was read.
    const realDir = join(root, "real-dir");
    mkdirSync(realDir);
    const linkedDir = join(root, "linked-dir");
    symlinkSync(realDir, linkedDir);
    expect(refusal(join(linkedDir, "x.token"))).toBe(
      `token_file ${join(linkedDir, "x.token")}: its directory is now a symbolic link (to ${realDir}); forgeform does not write through links`,
    );
  });

  it("refused just before the object is made: nothing is made", async () => {
    let posted = 0;
    await expect(
      createWithTokenFile(
        join(root, "x"),
        () => "token_file x already exists",
        "deploy token d",
        "revoke it and plan again",
        async () => {
          posted++;
          return { token: "glpat-secret" };
        },
      ),
    ).rejects.toThrow("not creating deploy token d: token_file x already exists");
    expect(posted).toBe(0);
  });

  it("written 0600 once made; a token that cannot be written is an error that says what to do, without the token", async () => {
    const target = join(root, "made/secret.token");
    const made = await createWithTokenFile(
      target,
      () => undefined,
      "deploy token d",
      "",
      async () => ({
        id: 1,
        token: "glpat-made",
      }),
    );
    expect(made["id"]).toBe(1);
    expect(readFileSync(target, "utf8")).toBe("glpat-made\n");
    expect(statSync(target).mode & 0o777).toBe(0o600);
    // A folder where the file would go: the write fails after the object exists.
    const blocked = join(root, "blocked.token");
    mkdirSync(blocked);
    const error = await createWithTokenFile(
      blocked,
      () => undefined,
      "deploy token d",
      "revoke it on the platform and plan again",
      async () => ({ token: "glpat-lost-secret" }),
    ).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /^deploy token d was created, but its token could not be written: .*; revoke it on the platform and plan again$/,
    );
    expect((error as Error).message).not.toContain("glpat-lost-secret");
  });
});
