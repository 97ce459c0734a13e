/**
 * Labels, hooks and deploy tokens through the rest of forgeform: declared for many projects by a pattern with
 * `except:`, explained, drifted by hand and reported in every format with its exit code, exported and planned back
 * to no change (the URL's secret as a reference, never its value), and planned under --target, --changed-since and
 * --shard.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

const ENV = { GK: "group-hook-key-0001", GT: "group-hook-token-0002" };

const fixture = {
  groups: [{ path: "acme" }, { path: "acme/platform" }, { path: "acme/legacy" }],
  projects: [{ path: "acme/platform/api" }, { path: "acme/platform/web" }, { path: "acme/legacy/old" }],
};

const MANIFEST = `version: 1
instance:
  unmanaged: { groups: ignore }
groups:
  acme:
    labels:
      - { name: bug, color: red, description: Something is broken }
    hooks:
      - url: "https://chat.example.com/g?token=\${env:GK}"
        token: \${env:GT}
        subgroup_events: true
    deploy_tokens:
      - { name: group registry, scopes: [read_registry], expires_at: 2031-01-01 }
projects:
  acme/**:
    except: [acme/legacy/**]
    labels:
      - { name: needs-review, color: "#1f75cb" }
    hooks:
      - { url: "https://ci.example.com/hook", pipeline_events: true, push_events: false }
  acme/platform/api:
    labels:
      - { name: needs-review, priority: 1 }
    deploy_tokens:
      - { name: registry pull, scopes: [read_registry], token_file: secrets/api.token }
`;

const enc = encodeURIComponent;

interface DriftJson {
  drift: boolean;
  items: { address: string; status: string; fields: { field: string }[] }[];
}

describe("labels, hooks and deploy tokens across forgeform", () => {
  let bench: Bench;
  let repo: string;
  let file: string;
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args], {
      cwd: repo,
      encoding: "utf8",
    });

  beforeAll(async () => {
    bench = await Bench.start({ fixture, edition: "licensed" });
    repo = join(bench.dir, "repo");
    mkdirSync(repo);
    git("init", "-q");
    writeFileSync(join(repo, ".gitignore"), "secrets/\n");
    file = join(repo, "acme.yaml");
    writeFileSync(file, MANIFEST);
    git("add", "-A");
    git("commit", "-q", "-m", "base");
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("applies a pattern's labels and hooks to every matched project but those left out, then plans nothing", async () => {
    const applied = await bench.cli(["apply", "--yes", file], ENV);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const again = await bench.cli(["plan", "--detailed-exitcode", file], ENV);
    expect(again.code, again.out).toBe(0);

    const labels = async (p: string) =>
      (
        await bench.get<
          { name: string; color: string; priority: number | null; is_project_label: boolean }[]
        >(`/projects/${enc(p)}/labels`)
      ).filter((l) => l.is_project_label);
    expect(await labels("acme/platform/api")).toEqual([
      expect.objectContaining({ name: "needs-review", color: "#1f75cb", priority: 1 }),
    ]);
    expect(await labels("acme/platform/web")).toEqual([
      expect.objectContaining({ name: "needs-review", color: "#1f75cb", priority: null }),
    ]);
    expect(await labels("acme/legacy/old")).toEqual([]);
    for (const p of ["acme/platform/api", "acme/platform/web"]) {
      expect(await bench.get(`/projects/${enc(p)}/hooks`)).toEqual([
        expect.objectContaining({
          url: "https://ci.example.com/hook",
          pipeline_events: true,
          push_events: false,
        }),
      ]);
    }
    expect(await bench.get("/projects/acme%2Flegacy%2Fold/hooks")).toEqual([]);
    expect(await bench.get("/groups/acme/hooks")).toEqual([
      expect.objectContaining({ url: `https://chat.example.com/g?token=${ENV.GK}`, subgroup_events: true }),
    ]);
    expect(await bench.get("/groups/acme/labels")).toEqual([
      expect.objectContaining({ name: "bug", color: "#FF0000", description: "Something is broken" }),
    ]);
    expect(await bench.get("/groups/acme/deploy_tokens")).toEqual([
      expect.objectContaining({
        name: "group registry",
        scopes: ["read_registry"],
        expires_at: "2031-01-01T00:00:00.000Z",
      }),
    ]);
    expect(readFileSync(join(repo, "secrets", "api.token"), "utf8").trim()).toMatch(/^\S{20,}$/);
    for (const text of [applied.out, applied.err, again.out])
      for (const v of Object.values(ENV)) expect(text).not.toContain(v);
  });

  it("explains where a project's label and hook come from", async () => {
    const explain = await bench.cli(["explain", "acme/platform/api", file]);
    expect(explain.code, explain.err).toBe(0);
    expect(explain.out).toMatch(/color: "#1f75cb" +# projects\["acme\/\*\*"\] \S+acme\.yaml:18:\d+/);
    expect(explain.out).toMatch(/priority: 1 +# projects\["acme\/platform\/api"\] \S+acme\.yaml:23:\d+/);
    expect(explain.out).toMatch(/pipeline_events: true +# projects\["acme\/\*\*"\]/);
    const left = await bench.cli(["explain", "acme/legacy/old", file]);
    expect(left.out + left.err, JSON.stringify(left)).toContain("acme/legacy/**");
  });

  describe("changed by hand", () => {
    beforeAll(async () => {
      const web = await bench.get<{ id: number; name: string }[]>("/projects/acme%2Fplatform%2Fweb/labels");
      const label = web.find((l) => l.name === "needs-review")!;
      await bench.send("PUT", `/projects/acme%2Fplatform%2Fweb/labels/${label.id}`, { color: "#000000" });
      const [hook] = await bench.get<{ id: number }[]>("/projects/acme%2Fplatform%2Fapi/hooks");
      await bench.send("PUT", `/projects/acme%2Fplatform%2Fapi/hooks/${hook!.id}`, {
        url: "https://ci.example.com/hook",
        pipeline_events: false,
      });
      const [token] = await bench.get<{ id: number }[]>("/groups/acme/deploy_tokens");
      await bench.send("DELETE", `/groups/acme/deploy_tokens/${token!.id}`);
      await bench.send("POST", "/projects/acme%2Fplatform%2Fapi/deploy_tokens", {
        name: "hand made",
        scopes: ["read_repository"],
      });
    });

    it("is drift in every format, exit 2; unmanaged alone fails only with --fail-on-unmanaged", async () => {
      const text = await bench.cli(["drift", file], ENV);
      expect(text.code).toBe(2);
      expect(text.out).toContain('~ project["acme/platform/web"].label["needs-review"]');
      expect(text.out).toContain('"#000000" -> "#1f75cb"');
      expect(text.out).toContain('~ project["acme/platform/api"].hook["https://ci.example.com/hook"]');
      expect(text.out).toContain('+ group["acme"].deploy_token["group registry"]');
      expect(text.out).toContain('! project["acme/platform/api"].deploy_token["hand made"]');
      expect(text.out.trim().split("\n").at(-1)).toBe(
        "Drift: 2 drifted, 1 missing, 1 unmanaged, 0 would be deleted.",
      );

      const json = JSON.parse((await bench.cli(["drift", "--format", "json", file], ENV)).out) as DriftJson;
      expect(json.drift).toBe(true);
      expect(json.items.map((i) => [i.address, i.status]).sort()).toEqual([
        ['group["acme"].deploy_token["group registry"]', "missing"],
        ['project["acme/platform/api"].deploy_token["hand made"]', "unmanaged"],
        ['project["acme/platform/api"].hook["https://ci.example.com/hook"]', "drifted"],
        ['project["acme/platform/web"].label["needs-review"]', "drifted"],
      ]);
      const markdown = await bench.cli(["drift", "--format", "markdown", file], ENV);
      expect(markdown.code).toBe(2);
      expect(markdown.out).toContain('project["acme/platform/web"].label["needs-review"]');
      const junit = await bench.cli(["drift", "--format", "junit", file], ENV);
      expect(junit.code).toBe(2);
      expect(junit.out).toMatch(/<testsuites name="forgeform drift" tests="\d+" failures="3" errors="0">/);
      for (const r of [text, markdown, junit])
        for (const v of Object.values(ENV)) expect(r.out + r.err).not.toContain(v);

      // --target: only what is below the target is read and reported.
      const targeted = JSON.parse(
        (await bench.cli(["drift", "--format", "json", "--target", "acme/platform/web", file], ENV)).out,
      ) as DriftJson;
      expect(targeted.items.map((i) => i.address)).toEqual([
        'project["acme/platform/web"].label["needs-review"]',
      ]);

      // --shard: the two shards' reports together are the unsharded report.
      const outs = [1, 2].map((k) => join(bench.dir, `shard-${k}.json`));
      for (const [i, out] of outs.entries()) {
        const run = await bench.cli(
          ["drift", "--shard", `${i + 1}/2`, "--format", "json", "--out", out, file],
          ENV,
        );
        expect([0, 2]).toContain(run.code);
      }
      const merged = JSON.parse(
        (await bench.cli(["report", "merge", "--format", "json", ...outs])).out,
      ) as DriftJson;
      expect(merged.items.map((i) => [i.address, i.status]).sort()).toEqual(
        json.items.map((i) => [i.address, i.status]).sort(),
      );
    });

    it("--changed-since plans what the change touches: a label changed in git, not the drift elsewhere", async () => {
      writeFileSync(
        file,
        MANIFEST.replace("color: red, description: Something is broken", "color: red, description: Broken"),
      );
      const plan = JSON.parse(
        (await bench.cli(["plan", "--format", "json", "--changed-since", "HEAD", file], ENV)).out,
      ) as { changes: { address: string; action: string; fields: { field: string }[] }[] };
      expect(plan.changes.map((c) => [c.address, c.action, c.fields.map((f) => f.field)])).toEqual([
        ['group["acme"].label["bug"]', "update", ["description"]],
      ]);
      writeFileSync(file, MANIFEST);
    });

    it("apply brings it back, and the next drift run exits 0 (with the hand-made token ignored)", async () => {
      const applied = await bench.cli(["apply", "--yes", file], ENV);
      expect(applied.code, applied.out + applied.err).toBe(0);
      const drift = await bench.cli(["drift", file], ENV);
      expect(drift.code).toBe(0);
      expect(drift.out.trim().split("\n").at(-1)).toBe(
        "Drift: 0 drifted, 0 missing, 1 unmanaged, 0 would be deleted.",
      );
      expect((await bench.cli(["drift", "--fail-on-unmanaged", file], ENV)).code).toBe(2);
    });
  });

  it("exports them so that the export plans back to no change, the hook URL's secret as a reference", async () => {
    const out = join(bench.dir, "exported");
    const run = await bench.cli(["export", "--group", "acme", "--out", out]);
    expect(run.code, run.err).toBe(0);
    const text = readFileSync(join(out, "acme.yaml"), "utf8");
    for (const v of Object.values(ENV)) expect(text).not.toContain(v);
    // The write-only token is said to be left out; the key becomes a variable named in the header.
    expect(text).toContain("write-only, not readable from the platform, so not exported: token");
    const ref = /url: https:\/\/chat\.example\.com\/g\?token=\$\{env:([A-Z0-9_]+)\}/.exec(text);
    expect(ref, text).not.toBeNull();
    expect(text).toMatch(new RegExp(`#\\s+${ref![1]}\\s+\\(group\\["acme"\\]\\.hook`));
    // The platform's own defaults are not written: the token's user name, the hook's other switches.
    expect(text).not.toContain("gitlab+deploy-token");
    expect(text).toContain("expires_at: 2031-01-01");
    expect(text).not.toContain("merge_requests_events");
    expect(text).not.toContain("token_file");
    const plan = await bench.cli(["plan", "--detailed-exitcode", join(out, "acme.yaml")], {
      [ref![1]!]: ENV.GK,
    });
    expect(plan.code, plan.out + plan.err).toBe(0);
  });
});
