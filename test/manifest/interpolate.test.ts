// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write manifest reference syntax literally
/**
 * `${env:}` and `${file:}` references: what a reference resolves to, what of it may be shown, where a referenced
 * file may be (inside the manifest root, symbolic links followed), and what `--no-secrets` leaves unread.
 */
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../src/manifest/diagnostics.js";
import { interpolate, isInside, resolveManifestPath } from "../../src/manifest/interpolate.js";
import { Secret } from "../../src/manifest/secret.js";

function root(files: Record<string, string> = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ff-interp-")));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

/** Interpolates `value` (a manifest body) as the loader does, with files relative to `dir`. */
function run(
  value: unknown,
  dir: string,
  env: Record<string, string> = {},
  secrets = true,
  maxFileBytes?: number,
) {
  const diags = new Diagnostics();
  // Plain objects carry no source positions: file references are given as absolute paths below.
  interpolate(
    value,
    ["instance"],
    { secrets, env, root: dir, ...(maxFileBytes ? { maxFileBytes } : {}) },
    diags,
  );
  return diags.sorted([]).map((d) => d.message);
}

describe("references", () => {
  it("resolve to one secret that shows the literal text around masked references", () => {
    const dir = root({ "t.txt": "tok\n" });
    const body = { hook: { url: `x-\${env:A}-$\${lit}-\${file:${dir}/t.txt}` } };
    expect(run(body, dir, { A: "aaa" })).toEqual([]);
    const s = body.hook.url as unknown as Secret;
    expect(s).toBeInstanceOf(Secret);
    expect(s.reveal()).toBe("x-aaa-${lit}-tok");
    expect(s.origin).toBe(`env:A,file:${dir}/t.txt`);
    expect(s.shown).toBe("x-(sensitive)-${lit}-(sensitive)");
    expect(s.unresolved).toBe(false);
    // What may turn up elsewhere, to be masked there: each reference's value alone.
    expect(s.referenced()).toEqual(["aaa", "tok"]);
  });

  it("leave text without a reference as text, escapes included", () => {
    const body = { a: "plain", b: "cost: $${price}", c: 3, d: null, e: true, f: ["$${x}", { g: "y" }] };
    expect(run(body, root())).toEqual([]);
    expect(body).toEqual({
      a: "plain",
      b: "cost: ${price}",
      c: 3,
      d: null,
      e: true,
      f: ["${x}", { g: "y" }],
    });
  });

  it("are resolved in lists and nested objects, and at the top of a list", () => {
    const list = ["${env:A}", [{ deep: "${env:A}" }]];
    expect(run(list, root(), { A: "aaa" })).toEqual([]);
    expect((list[0] as unknown as Secret).reveal()).toBe("aaa");
    expect((list[1] as unknown as { deep: Secret }[])[0]!.deep.reveal()).toBe("aaa");
    // Anything that is not an object or a list holds no reference.
    for (const value of [null, "text", 3]) expect(run(value, root())).toEqual([]);
  });

  it("allow spaces around the name", () => {
    const body = { a: "${env: A }" };
    expect(run(body, root(), { A: "aaa" })).toEqual([]);
    expect((body.a as unknown as Secret).reveal()).toBe("aaa");
  });

  it("name a variable that is not a valid name, or not set; the value is then unknown, not empty", () => {
    const body = { a: "${env:1BAD}", b: "${env:UNSET}" };
    expect(run(body, root())).toEqual([
      '"${env:1BAD}" is not a valid environment variable name',
      "environment variable UNSET is not set (referenced as ${env:UNSET}); set it, or run validate with --no-secrets",
    ]);
    for (const s of [body.a, body.b] as unknown as Secret[]) {
      expect(s.unresolved).toBe(true);
      expect(s.reveal()).toBe("");
    }
  });

  it("read a file's text with one final newline (LF or CRLF) removed", () => {
    const dir = root({ "lf.txt": "a\nb\n", "crlf.txt": "tok\r\n", "two.txt": "x\n\n" });
    const body = { a: `\${file:${dir}/lf.txt}`, b: `\${file:${dir}/crlf.txt}`, c: `\${file:${dir}/two.txt}` };
    expect(run(body, dir)).toEqual([]);
    expect(Object.values(body).map((s) => (s as unknown as Secret).reveal())).toEqual(["a\nb", "tok", "x\n"]);
  });

  it("read files up to 1 MiB by default, and up to the limit given", () => {
    const mib = 1024 * 1024;
    const dir = root({
      "max.txt": "x".repeat(mib),
      "over.txt": "x".repeat(mib + 1),
      "ten.txt": "x".repeat(10),
    });
    const body = { a: `\${file:${dir}/max.txt}`, b: `\${file:${dir}/over.txt}` };
    expect(run(body, dir)).toEqual([
      `\${file:${dir}/over.txt}: the file has ${mib + 1} bytes; at most ${mib} are read`,
    ]);
    expect((body.b as unknown as Secret).unresolved).toBe(true);
    expect(run({ a: `\${file:${dir}/ten.txt}` }, dir, {}, true, 9)).toEqual([
      `\${file:${dir}/ten.txt}: the file has 10 bytes; at most 9 are read`,
    ]);
  });

  it("name a file that is missing, a directory, empty or outside the root", () => {
    const dir = root({ "sub/x.txt": "x" });
    const body = {
      a: `\${file:${dir}/missing.txt}`,
      b: `\${file:${dir}/sub}`,
      c: "${file: }",
      d: "${file:/etc/hostname}",
    };
    const messages = run(body, dir);
    expect(messages).toEqual([
      `\${file:${dir}/missing.txt}: file "${dir}/missing.txt" does not exist (looked for ${dir}/missing.txt)`,
      `\${file:${dir}/sub}: "${dir}/sub" is not a file`,
      "${file:}: the file path is empty",
      `\${file:/etc/hostname}: "/etc/hostname" is outside the manifest root ${dir}; keep referenced files inside it, or give --root a folder that holds both`,
    ]);
    for (const s of Object.values(body)) expect((s as unknown as Secret).unresolved).toBe(true);
  });

  it("with --no-secrets, read nothing: no variable, no file, not even one that is missing or too big", () => {
    const dir = root({ "big.txt": "x".repeat(20) });
    const body = { a: "${env:UNSET}", b: `\${file:${dir}/missing.txt}`, c: `\${file:${dir}/big.txt}` };
    expect(run(body, dir, {}, false, 10)).toEqual([]);
    for (const s of Object.values(body)) {
      expect((s as unknown as Secret).unresolved).toBe(true);
      expect((s as unknown as Secret).reveal()).toBe("");
    }
  });
});

describe("paths inside the manifest root", () => {
  it("is the root itself or below it, never its parent or a sibling", () => {
    expect(isInside("/r", "/r")).toBe(true);
    expect(isInside("/r", "/r/a/b")).toBe(true);
    // A name that starts with two dots is still a name inside the root.
    expect(isInside("/r", "/r/..data/x")).toBe(true);
    expect(isInside("/r", "/")).toBe(false);
    expect(isInside("/r", "/other")).toBe(false);
    expect(isInside("/r", "/r2")).toBe(false);
  });

  it("follows a root that is reached through a symbolic link, for files read and files to write", () => {
    const real = root({ "m.yaml": "version: 1\n", "t.txt": "x" });
    const link = join(root(), "link");
    symlinkSync(real, link);
    const manifest = join(link, "m.yaml");
    expect(resolveManifestPath(manifest, "t.txt", link, true)).toEqual({ path: join(real, "t.txt") });
    // A file forgeform will write, in folders not made yet: named by its real folder.
    expect(resolveManifestPath(manifest, "new/dir/t.token", link, false)).toEqual({
      path: join(real, "new/dir/t.token"),
    });
  });

  it("refuses a file to write whose folder leads outside the root through a symbolic link", () => {
    const outside = root();
    const dir = root();
    symlinkSync(outside, join(dir, "out"));
    const found = resolveManifestPath(join(dir, "m.yaml"), "out/t.token", dir, false);
    expect(found).toEqual({
      error: `"out/t.token" leads outside the manifest root ${dir} through a symbolic link`,
    });
  });
});
