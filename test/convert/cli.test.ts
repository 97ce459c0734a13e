// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read the reference syntax convert writes
/** `forgeform convert` on the command line: what it writes, refuses and prints, and its exit codes. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { runCli } from "../integration/helpers.js";

function workdir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-convert-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const CONFIG = `config_version: 4
projects_and_groups:
  acme/*:
    group_settings: { description: ACME }
    group_variables:
      token: { key: TOKEN, value: "cli-secret-value", masked: true }
`;

describe("forgeform convert", () => {
  it("writes the manifests, names each file on standard error and prints the report", async () => {
    const dir = workdir({ "config.yml": CONFIG });
    const out = join(dir, "manifests");
    const r = await runCli(["convert", "--from", "gitlabform", join(dir, "config.yml"), "--out", out], {});
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`Wrote ${join(out, "acme.yaml")}`);
    expect(r.out).toContain("Secrets (1), read from environment variables");
    expect(r.out).toMatch(/ACME_TOKEN {2}\S*config\.yml:6:\d+/);
    expect(readFileSync(join(out, "acme.yaml"), "utf8")).toContain("${env:ACME_TOKEN}");
    expect(r.out + r.err + readFileSync(join(out, "acme.yaml"), "utf8")).not.toContain("cli-secret-value");
  });

  it("never overwrites a file without --force, and writes nothing then", async () => {
    const dir = workdir({
      "a.yml": "acme/:\n  create_object: true\ninclude: [b.yml]\n",
      "b.yml": "other/:\n  create_object: true\n",
      "out/b.yaml": "keep me\n",
    });
    const args = ["convert", "--from", "gitlabracadabra", join(dir, "a.yml"), "--out", join(dir, "out")];
    const refused = await runCli(args, {});
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("exists already: nothing was written. Pass --force to overwrite");
    expect(readFileSync(join(dir, "out/b.yaml"), "utf8")).toBe("keep me\n");
    expect(existsSync(join(dir, "out/a.yaml"))).toBe(false);
    const forced = await runCli([...args, "--force"], {});
    expect(forced.code, forced.err).toBe(0);
    expect(readFileSync(join(dir, "out/b.yaml"), "utf8")).toContain("other: {}");
  });

  it("prints the JSON report alone on standard output with --format json, naming the files from the working directory", async () => {
    const dir = workdir({ "config.yml": CONFIG });
    // Given in full: the file system itself does not see the faked working directory.
    const args = [
      "--from",
      "gitlabform",
      join(dir, "config.yml"),
      "--out",
      join(dir, "o"),
      "--format",
      "json",
    ];
    const cwd = vi.spyOn(process, "cwd").mockReturnValue(dir);
    try {
      const r = await runCli(["convert", ...args], {});
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({
        format_version: 1,
        from: "gitlabform",
        files: [join("o", "acme.yaml")],
        items: [{ env: "ACME_TOKEN" }],
      });
      expect(existsSync(join(dir, "o", "acme.yaml"))).toBe(true);
    } finally {
      cwd.mockRestore();
    }
  });

  it("names --schema-ref as each file's schema, instead of the published one", async () => {
    const dir = workdir({ "config.yml": CONFIG });
    const out = join(dir, "o");
    const args = ["--from", "gitlabform", join(dir, "config.yml"), "--out", out, "--schema-ref", "s.json"];
    const r = await runCli(["convert", ...args], {});
    expect(r.code, r.err).toBe(0);
    expect(readFileSync(join(out, "acme.yaml"), "utf8")).toMatch(
      /^# yaml-language-server: \$schema=s\.json$/m,
    );
  });

  it("says where a source cannot be read, and writes nothing", async () => {
    const dir = workdir({ "config.yml": "projects_and_groups:\n  acme/*: [\n" });
    const r = await runCli(
      ["convert", "--from", "gitlabform", join(dir, "config.yml"), "--out", join(dir, "o")],
      {},
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^forgeform convert: \S*config\.yml:3:\d+: /);
    expect(existsSync(join(dir, "o"))).toBe(false);
    const missing = await runCli(["convert", "--from", "terraform", join(dir, "nope.json")], {});
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("cannot read");
    const two = await runCli(
      ["convert", "--from", "gitlabform", join(dir, "config.yml"), join(dir, "config.yml")],
      {},
    );
    expect(two.code).toBe(1);
    expect(two.err).toContain("GitLabForm reads one configuration file");
  });

  it("needs --from, one of the tools it knows", async () => {
    const dir = workdir({ "x.yml": "{}\n" });
    const none = await runCli(["convert", join(dir, "x.yml")], {});
    expect(none.code).toBe(1);
    expect(none.err).toContain("--from");
    const other = await runCli(["convert", "--from", "puppet", join(dir, "x.yml")], {});
    expect(other.code).toBe(1);
    expect(other.err).toMatch(/gitlabform, gitlabracadabra, terraform/);
  });

  it("checks what it wrote: a value the source allows and forgeform does not is reported at the output's line, exit 1", async () => {
    const dir = workdir({
      "config.yml": `projects_and_groups:
  acme/api:
    schedules:
      Nightly: { ref: main, cron: "0 25 * * *" }
`,
    });
    const out = join(dir, "o");
    const r = await runCli(["convert", "--from", "gitlabform", join(dir, "config.yml"), "--out", out], {});
    expect(r.code).toBe(1);
    expect(r.err).toContain("the written manifests do not validate");
    expect(r.out).toMatch(
      /acme\.yaml:\d+:\d+ {2}projects\["acme\/api"\]\.pipeline_schedules\[0\]\.cron: the written manifest is not valid/,
    );
    expect(existsSync(join(out, "acme.yaml"))).toBe(true);
  });
});
