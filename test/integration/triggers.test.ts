import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

interface ApiTrigger {
  id: number;
  description: string;
  token: string;
}

const fixture = {
  groups: [{ path: "acme" }],
  projects: [{ path: "acme/api" }],
  pipeline_triggers: [{ project: "acme/api", description: "legacy deploy" }],
};

const summary = (out: string) => out.trim().split("\n").at(-1);
/** Plan text with wrapped comment lines joined. */
const prose = (out: string) => out.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");

describe("pipeline triggers", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
  });
  afterAll(async () => {
    await bench.stop();
  });

  const triggers = () => bench.get<ApiTrigger[]>("/projects/acme%2Fapi/triggers");

  it("writes a new trigger's token only to token_file (mode 0600), never to the output", async () => {
    const tokenFile = join(bench.dir, "deploy.token");
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    triggers:
      - description: legacy deploy
      - description: nightly deploy
        token_file: ${JSON.stringify(tokenFile)}
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    expect(plan.out).toContain('+ project["acme/api"].trigger["nightly deploy"]');
    expect(prose(plan.out)).toContain(`the new token is written to ${tokenFile} (mode 0600)`);
    expect(summary(plan.out)).toBe("Plan: 1 to create, 0 to update, 0 to replace, 0 to delete.");

    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(0);
    const created = (await triggers()).find((t) => t.description === "nightly deploy");
    expect(created?.token).toMatch(/^[0-9a-f]{30}$/);
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(created?.token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(apply.out + apply.err).not.toContain(created!.token);

    const again = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(again.code).toBe(0);
    expect(again.out + again.err).not.toContain(created!.token);

    // --replace rotates the token: a new trigger, its token written in place of the old one.
    const rotated = await bench.cli([
      "apply",
      "--yes",
      "--replace",
      'project["acme/api"].trigger["nightly deploy"]',
      file,
    ]);
    expect(rotated.code, rotated.out + rotated.err).toBe(0);
    const renewed = (await triggers()).find((t) => t.description === "nightly deploy");
    expect(renewed?.id).not.toBe(created?.id);
    expect(readFileSync(tokenFile, "utf8").trim()).toBe(renewed?.token);
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(rotated.out + rotated.err).not.toContain(renewed!.token);
  });

  it("never writes a token over an existing file", async () => {
    const taken = join(bench.dir, "taken.token");
    writeFileSync(taken, "keep me\n");
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    triggers:
      - description: weekly deploy
        token_file: ${JSON.stringify(taken)}
`);
    const plan = await bench.cli(["plan", file]);
    expect(plan.code).toBe(1);
    expect(prose(plan.out)).toContain(
      `token_file ${taken} already exists: forgeform writes a trigger token only to a new file or over that same trigger's current token`,
    );
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(1);
    expect(readFileSync(taken, "utf8")).toBe("keep me\n");
    expect((await triggers()).map((t) => t.description)).not.toContain("weekly deploy");
  });

  it("without token_file records the token nowhere and says how to get it", async () => {
    const file = bench.manifest(`version: 1
projects:
  acme/api:
    triggers:
      - description: legacy deploy
      - description: nightly deploy
      - description: release
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", file]);
    expect(plan.code).toBe(2);
    const text = prose(plan.out);
    expect(text).toContain("the new token is not recorded (no token_file)");
    expect(text).toContain("Settings > CI/CD > Pipeline triggers");
    const apply = await bench.cli(["apply", "--yes", file]);
    expect(apply.code).toBe(0);
    const release = (await triggers()).find((t) => t.description === "release");
    expect(release).toBeDefined();
    expect(apply.out + apply.err).not.toContain(release!.token);
    expect((await bench.cli(["plan", "--detailed-exitcode", file])).code).toBe(0);
  });

  it("warns about an undeclared trigger by default, deletes it with a delete policy or when absent", async () => {
    const warn = bench.manifest(`version: 1
projects:
  acme/api:
    triggers:
      - description: nightly deploy
      - description: release
`);
    const warned = await bench.cli(["plan", "--detailed-exitcode", warn]);
    expect(warned.code).toBe(0);
    expect(warned.out).toContain('trigger["legacy deploy"]');
    expect(warned.out).toContain("prune policy warn");
    expect((await bench.cli(["apply", "--yes", warn])).code).toBe(0);
    expect((await triggers()).map((t) => t.description)).toContain("legacy deploy");

    const pruned = bench.manifest(`version: 1
projects:
  acme/api:
    unmanaged:
      triggers: delete
    triggers:
      - description: nightly deploy
      - description: release
`);
    const plan = await bench.cli(["plan", "--detailed-exitcode", pruned]);
    expect(plan.out).toContain('- project["acme/api"].trigger["legacy deploy"]');
    expect(summary(plan.out)).toBe("Plan: 0 to create, 0 to update, 0 to replace, 1 to delete.");
    expect((await bench.cli(["apply", "--yes", pruned])).code).toBe(0);

    const absent = bench.manifest(`version: 1
projects:
  acme/api:
    triggers:
      - description: release
        state: absent
`);
    const plan2 = await bench.cli(["plan", "--detailed-exitcode", absent]);
    expect(plan2.out).toContain('- project["acme/api"].trigger["release"]');
    expect((await bench.cli(["apply", "--yes", absent])).code).toBe(0);
    expect((await triggers()).map((t) => t.description).sort()).toEqual(["nightly deploy"]);
  });

  it("reads token_file relative to the manifest, and never lets it leave the manifest root", async () => {
    mkdirSync(join(bench.dir, "tokens"), { recursive: true });
    const file = bench.manifest(
      "version: 1\nprojects:\n  acme/api:\n    triggers:\n      - description: relative deploy\n        token_file: tokens/relative.token\n",
      "relative.yaml",
    );
    expect((await bench.cli(["apply", "--yes", file])).code).toBe(0);
    const created = (await triggers()).find((t) => t.description === "relative deploy");
    expect(readFileSync(join(bench.dir, "tokens", "relative.token"), "utf8").trim()).toBe(created?.token);

    const outside = bench.manifest(
      "version: 1\nprojects:\n  acme/api:\n    triggers:\n      - description: escaping deploy\n        token_file: ../escaped.token\n",
      "outside.yaml",
    );
    const r = await bench.cli(["plan", outside]);
    expect(r.code).toBe(1);
    expect(r.err).toContain('outside.yaml:6:21: projects["acme/api"].triggers[0].token_file:');
    expect(r.err).toContain("is outside the manifest root");
  });

  it("a file path with a reference in it is an error, never a token silently left unwritten", async () => {
    const file = bench.manifest(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest's reference, not a template
      'version: 1\nprojects:\n  acme/api:\n    triggers:\n      - description: env deploy\n        token_file: "tokens/${env:NAME}.token"\n    wiki_pages:\n      - { title: env page, content_file: "${env:PAGE}" }\n',
      "referenced.yaml",
    );
    const r = await bench.cli(["validate", file], { NAME: "deploy", PAGE: "page.md" });
    expect(r.code).toBe(1);
    expect(prose(r.out + r.err)).toContain(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the message names the manifest's references
      "triggers[0].token_file: a file path is taken as written: ${env:} and ${file:} are not resolved in it",
    );
    expect(prose(r.out + r.err)).toContain("wiki_pages[0].content_file: a file path is taken as written");
  });
});

describe("pipeline triggers replaced with a token_file", () => {
  it("may write over the file only when it holds that same trigger's current token", async () => {
    const bench = await Bench.start({
      fixture: {
        ...fixture,
        pipeline_triggers: [
          { project: "acme/api", description: "nightly" },
          { project: "acme/api", description: "other" },
        ],
      },
    });
    try {
      const listed = await bench.get<ApiTrigger[]>("/projects/acme%2Fapi/triggers");
      const token = (d: string) => listed.find((t) => t.description === d)!.token;
      const target = join(bench.dir, "nightly.token");
      const file = bench.manifest(`version: 1
projects:
  acme/api:
    triggers:
      - description: nightly
        token_file: ${JSON.stringify(target)}
      - description: other
`);
      const replace = ["--replace", 'project["acme/api"].trigger["nightly"]'];
      // The file holds another trigger's token: refused.
      writeFileSync(target, `${token("other")}\n`);
      const refused = await bench.cli(["plan", ...replace, file]);
      expect(refused.code).toBe(1);
      expect(prose(refused.out)).toContain(
        `token_file ${target} holds something other than this trigger's current token: forgeform writes a trigger token only to a new file or over that same trigger's current token`,
      );
      // It holds this trigger's own token: the replace writes the new one over it.
      writeFileSync(target, `${token("nightly")}\n`);
      const applied = await bench.cli(["apply", "--yes", ...replace, file]);
      expect(applied.code, applied.out + applied.err).toBe(0);
      const now = (await bench.get<ApiTrigger[]>("/projects/acme%2Fapi/triggers")).find(
        (t) => t.description === "nightly",
      );
      expect(readFileSync(target, "utf8").trim()).toBe(now!.token);
      expect(now!.token).not.toBe(token("nightly"));
    } finally {
      await bench.stop();
    }
  });
});
