/**
 * The backup before a group delete: apply deletes nothing unless the archive it downloaded is the platform's export
 * (a gzip'd tar with the export's files) and was written exactly where the plan said, inside the manifest root
 * (the default folder) with symbolic links resolved. The plan says what the archive holds and what it does not.
 */
import { existsSync, mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Bench } from "./helpers.js";
import { answerJson, type RunningProxy, startProxy } from "./proxy.js";

const fixture = {
  groups: [{ path: "gone" }, { path: "gone/sub" }],
  projects: [{ path: "gone/p1" }, { path: "gone/sub/p2" }],
};

/** A tar archive of one file (ustar, as the platform's), gzip'd. */
function tarGz(name: string, text: string): Buffer {
  const header = Buffer.alloc(512);
  header.write(name, 0, "latin1");
  header.write("0000644\0", 100, "latin1");
  header.write("0000000\0", 108, "latin1");
  header.write("0000000\0", 116, "latin1");
  header.write(`${text.length.toString(8).padStart(11, "0")}\0`, 124, "latin1");
  header.write("00000000000\0", 136, "latin1");
  header.write("        ", 148, "latin1");
  header.write("0", 156, "latin1");
  header.write("ustar\u000000", 257, "latin1");
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
  const body = Buffer.alloc(Math.ceil(text.length / 512) * 512);
  body.write(text, "latin1");
  return gzipSync(Buffer.concat([header, body, Buffer.alloc(1024)]));
}

describe("the backup before a group delete", () => {
  let bench: Bench;
  let proxy: RunningProxy | undefined;
  let manifest: string;
  beforeEach(async () => {
    bench = await Bench.start({ fixture });
    manifest = bench.manifest("version: 1\ngroups:\n  gone:\n    state: absent\n");
  });
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
    await bench.stop();
  });

  const exists = async (path: string) =>
    bench.get(path).then(
      () => true,
      () => false,
    );

  it("says what the archive holds, and that it does not hold the projects deleted with the group", async () => {
    const plan = await bench.cli(["plan", manifest]);
    const text = plan.out.replace(/\n\s*#\s*/g, " ");
    expect(text).toMatch(
      /apply first saves its export archive to \S*group-gone\.tar\.gz \(it holds the group's and its subgroups' settings, milestones, labels, boards, badges, epics and members; not its projects, their repositories or anything else in them\) and deletes nothing unless that archive checks out/,
    );
    expect(text).toContain("the platform deletes its 1 subgroup and 2 projects with it");
  });

  for (const [what, type, body, reason] of [
    ["an empty JSON list", "application/json", Buffer.from("[]"), 'not a gzip archive (2 bytes: "[]")'],
    [
      "a sign-in page",
      "text/html",
      Buffer.from("<!DOCTYPE html><html><body>Sign in to continue</body></html>"),
      'not a gzip archive (60 bytes: "<!DOCTYPE html><html><body>Sign in to co...")',
    ],
    ["gzip'd text", "application/gzip", gzipSync("not a tar"), "the archive cannot be read"],
    [
      "a tar without the export's files",
      "application/gzip",
      tarGz("notes.txt", "hello"),
      "the archive is not the platform's export: it holds no VERSION, no tree/groups/_all.ndjson or group.json (1 entries)",
    ],
  ] as const) {
    it(`is refused when the download is ${what}: the group is not deleted and the report says why`, async () => {
      proxy = await startProxy(bench.sandbox.url, (req, res) => {
        if (!/\/export\/download$/.test(req.url ?? "")) return false;
        res.writeHead(200, { "Content-Type": type, "Content-Length": String(body.length) });
        res.end(body);
        return true;
      });
      const dir = join(bench.dir, "backups");
      // Run from the bench's folder: the archive is named as the plan shows it, from there.
      const cwd = vi.spyOn(process, "cwd").mockReturnValue(bench.dir);
      const apply = await bench
        .cli(["apply", "--yes", "--backup-dir", dir, manifest], { FORGEFORM_URL: proxy.url })
        .finally(() => cwd.mockRestore());
      expect(apply.code).toBe(1);
      const out = apply.out.replace(/\n\s+/g, " ");
      expect(out).toContain(
        `group["gone"]: failed: not deleted: saving its backup to backups/group-gone.tar.gz failed (`,
      );
      expect(out).toContain(reason);
      expect(out).toContain("or apply with --no-backup to delete it without one");
      // Nothing deleted, nothing saved.
      for (const path of ["/groups/gone", "/groups/gone%2Fsub", "/projects/gone%2Fsub%2Fp2"])
        expect(await exists(path), path).toBe(true);
      expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
    });
  }

  it("waits for the archive while the platform answers 404 (being prepared), and stops at any other error", async () => {
    let answers: number[] = [];
    const downloads: number[] = [];
    proxy = await startProxy(bench.sandbox.url, (req, res) => {
      if (!/\/export\/download$/.test(req.url ?? "")) return false;
      const status = answers.shift();
      downloads.push(status ?? 200);
      if (status === undefined) return false;
      return answerJson(res, status, { message: status === 404 ? "404 Not found" : "403 Forbidden" });
    });
    const env = { FORGEFORM_URL: proxy.url };
    answers = [403];
    const refused = await bench.cli(
      ["apply", "--yes", "--backup-dir", join(bench.dir, "refused"), manifest],
      env,
    );
    expect(refused.code).toBe(1);
    const said = refused.out.replace(/\n\s+/g, " ");
    expect(said).toContain(`group["gone"]: failed: not deleted: saving its backup to`);
    expect(said).toContain("403 Forbidden");
    expect(downloads).toEqual([403]);
    expect(await exists("/groups/gone")).toBe(true);

    downloads.length = 0;
    answers = [404, 404];
    const dir = join(bench.dir, "waited");
    const applied = await bench.cli(["apply", "--yes", "--backup-dir", dir, manifest], env);
    expect(applied.code, applied.out + applied.err).toBe(0);
    expect(downloads).toEqual([404, 404, 200]);
    expect(readdirSync(dir)).toEqual(["group-gone.tar.gz"]);
    expect(await exists("/groups/gone")).toBe(false);
  });

  it("refuses a default folder that leads outside the manifest root through a symbolic link", async () => {
    const outside = join(bench.dir, "..", `outside-${Date.now()}`);
    mkdirSync(outside);
    const root = join(bench.dir, "repo");
    mkdirSync(root);
    symlinkSync(outside, join(root, ".forgeform"));
    const m = join(root, "forgeform.yaml");
    bench.manifest("version: 1\ngroups:\n  gone:\n    state: absent\n", "repo/forgeform.yaml");
    const plan = await bench.cli(["plan", m]);
    expect(plan.code).toBe(1);
    expect((plan.out + plan.err).replace(/\n\s*/g, " ")).toMatch(
      /the backup folder \S+ leads outside the manifest root through a symbolic link \(to \S+outside-\d+\/backups\/\d{4}-\d{2}-\d{2}\): remove the link, choose a folder with --backup-dir, or delete without a backup with --no-backup/,
    );
    const apply = await bench.cli(["apply", "--yes", m]);
    expect(apply.code).toBe(1);
    expect(await exists("/groups/gone")).toBe(true);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("refuses to write through a link planted after the plan checked the folder: the check runs again just before the write", async () => {
    const outside = join(bench.dir, "..", `outside-late-${Date.now()}`);
    mkdirSync(outside);
    const root = join(bench.dir, "late");
    mkdirSync(root);
    const m = join(root, "forgeform.yaml");
    bench.manifest("version: 1\ngroups:\n  gone:\n    state: absent\n", "late/forgeform.yaml");
    // The default folder does not exist when apply plans; the link appears while the archive downloads.
    proxy = await startProxy(bench.sandbox.url, (req) => {
      if (/\/export\/download$/.test(req.url ?? "") && !existsSync(join(root, ".forgeform")))
        symlinkSync(outside, join(root, ".forgeform"));
      return false;
    });
    const apply = await bench.cli(["apply", "--yes", m], { FORGEFORM_URL: proxy.url });
    expect(apply.code).toBe(1);
    expect(apply.out.replace(/\n\s+/g, " ")).toMatch(
      /group\["gone"\]: failed: not deleted: saving its backup to \S+ failed \(cannot write \S+group-gone\.tar\.gz: its folder leads outside \S+late through a symbolic link \(to \S+outside-late-\d+\/backups\/\d{4}-\d{2}-\d{2}\)\)/,
    );
    expect(await exists("/groups/gone")).toBe(true);
    // The folder was made through the link (mkdir follows it), but nothing was written there.
    expect(
      readdirSync(join(outside, "backups"), { recursive: true, withFileTypes: true }).filter((e) =>
        e.isFile(),
      ),
    ).toEqual([]);
  });

  it("announces a free name when something is at the usual one (a planted link too), and writes exactly there", async () => {
    const dir = join(bench.dir, "named");
    mkdirSync(dir);
    symlinkSync(join(bench.dir, "elsewhere.tar.gz"), join(dir, "group-gone.tar.gz"));
    const plan = await bench.cli(["plan", "--backup-dir", dir, manifest]);
    expect(plan.out.replace(/\n\s*#\s*/g, " ")).toContain(
      `saves its export archive to ${join(dir, "group-gone.2.tar.gz")}`,
    );
    const apply = await bench.cli(["apply", "--yes", "--backup-dir", dir, manifest]);
    expect(apply.code, apply.out + apply.err).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["group-gone.2.tar.gz", "group-gone.tar.gz"]);
    // The link was not written through.
    expect(existsSync(join(bench.dir, "elsewhere.tar.gz"))).toBe(false);
    expect(await exists("/groups/gone")).toBe(false);
  });
});
