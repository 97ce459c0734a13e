/**
 * `--replace` on objects with write-only fields (never read back, so never drift): an updatable object (the
 * application settings) is updated with exactly its write-only fields, plus what changed; a kind that cannot be
 * updated in place (a system hook) is replaced; an object with no write-only field to send is refused with a reason.
 * The values are never shown.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PlanV1 } from "../../src/plan/json.js";
import { Bench } from "./helpers.js";
import { answerEdited, startProxy } from "./proxy.js";

const ENV = { CK: "ck-secret-value-0001", HT: "ht-secret-value-0001" };
const HOOK = 'instance.system_hook["https://hooks.example/h"]';
const manifest = (text = "hello") => `version: 1
instance:
  application_settings:
    cloudk8s_secret_access_key: "\${env:CK}"
    after_sign_up_text: ${text}
  system_hooks:
    - url: https://hooks.example/h
      token: "\${env:HT}"
      push_events: true
`;

describe("--replace with write-only fields", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ fixture: { groups: [{ path: "acme" }], projects: [{ path: "acme/app" }] } });
    const apply = await bench.cli(["apply", "--yes", bench.manifest(manifest())], ENV);
    expect(apply.code, apply.out + apply.err).toBe(0);
  });
  afterAll(async () => {
    await bench.stop();
  });

  const plan = async (text: string, replace: string[]) => {
    const run = await bench.cli(
      ["plan", "--format", "json", ...replace.flatMap((r) => ["--replace", r]), bench.manifest(text)],
      ENV,
    );
    expect(run.out + run.err).not.toMatch(/secret-value/);
    return { code: run.code, plan: JSON.parse(run.out) as PlanV1 };
  };

  it("plans nothing without --replace: a write-only value is never drift", async () => {
    const { code, plan: p } = await plan(manifest(), []);
    expect(code).toBe(0);
    expect(p.changes).toEqual([]);
  });

  it("updates the settings with their write-only fields, and replaces the hook, each sending only those", async () => {
    const { plan: p } = await plan(manifest(), ["instance.application_settings", HOOK]);
    expect(p.errors).toEqual([]);
    const written = { after: "(write-only)", sensitive: true, write_only: true };
    expect(p.changes.map((c) => [c.address, c.action, c.reason, c.fields])).toEqual([
      [
        "instance.application_settings",
        "update",
        undefined,
        [{ field: "cloudk8s_secret_access_key", ...written }],
      ],
      [HOOK, "replace", "replacement requested with --replace", [{ field: "token", ...written }]],
    ]);
  });

  it("lists a changed field once, before the write-only ones", async () => {
    const { plan: p } = await plan(manifest("bye"), ["instance.application_settings"]);
    expect(p.changes).toHaveLength(1);
    expect(p.changes[0]!.fields).toEqual([
      { field: "after_sign_up_text", before: "hello", after: "bye" },
      { field: "cloudk8s_secret_access_key", after: "(write-only)", sensitive: true, write_only: true },
    ]);
  });

  it("sends a setting newer than the schema (unchecked:) only when it differs, never as a write-only field", async () => {
    // The platform's settings as a newer version shows them: with a setting forgeform's schema does not know.
    const proxy = await startProxy(bench.sandbox.url, (req, res) => {
      if (req.method !== "GET" || !(req.url ?? "").startsWith("/api/v4/application/settings")) return false;
      return answerEdited(bench.sandbox.url, req, res, (settings) => {
        (settings as Record<string, unknown>)["widget_limit"] = 7;
      });
    });
    try {
      const newer = (limit: number) =>
        manifest().replace(
          "    after_sign_up_text: hello\n",
          `    after_sign_up_text: hello\n    unchecked:\n      widget_limit: ${limit}\n`,
        );
      const run = async (limit: number) => {
        const planned = await bench.cli(
          [
            "plan",
            "--format",
            "json",
            "--replace",
            "instance.application_settings",
            bench.manifest(newer(limit)),
          ],
          { ...ENV, FORGEFORM_URL: proxy.url },
        );
        expect(planned.code, planned.err).toBe(0);
        return (JSON.parse(planned.out) as PlanV1).changes.map((c) => [c.address, c.action, c.fields]);
      };
      const rotated = {
        field: "cloudk8s_secret_access_key",
        after: "(write-only)",
        sensitive: true,
        write_only: true,
      };
      expect(await run(7)).toEqual([["instance.application_settings", "update", [rotated]]]);
      expect(await run(8)).toEqual([
        [
          "instance.application_settings",
          "update",
          [{ field: "unchecked.widget_limit", before: 7, after: 8 }, rotated],
        ],
      ]);
    } finally {
      await proxy.close();
    }
  });

  it("names the closest managed object of the same owner when --replace names none", async () => {
    const { code, plan: p } = await plan(manifest(), ['instance.system_hook["https://hooks.example/hh"]']);
    expect(code).toBe(1);
    expect(p.errors).toEqual([
      expect.objectContaining({
        address: 'instance.system_hook["https://hooks.example/hh"]',
        message: `--replace: no such managed object in the plan's scope; did you mean ${HOOK}?`,
      }),
    ]);
    // Nothing close: no suggestion.
    const far = await plan(manifest(), ['project["acme/app"].badge["nothing-like-it"]']);
    expect(far.plan.errors.map((e) => e.message)).toEqual([
      "--replace: no such managed object in the plan's scope",
    ]);
  });

  it("refuses to replace settings that declare no write-only field, saying why", async () => {
    const bare = "version: 1\ninstance:\n  application_settings:\n    after_sign_up_text: hello\n";
    const { code, plan: p } = await plan(bare, ["instance.application_settings"]);
    expect(code).toBe(1);
    expect(p.errors).toEqual([
      expect.objectContaining({
        address: "instance.application_settings",
        message: "--replace: nothing to send (no write-only fields are declared)",
      }),
    ]);
    expect(p.changes).toEqual([]);
  });

  it("refuses to replace a project, which would delete everything in it, whether it declares settings or not", async () => {
    for (const body of ["badges: []", "description: kept"]) {
      const text = `version: 1\nprojects:\n  acme/app:\n    ${body}\n`;
      const { code, plan: p } = await plan(text, ['project["acme/app"]']);
      expect(code).toBe(1);
      expect(p.errors).toEqual([
        expect.objectContaining({
          address: 'project["acme/app"]',
          message:
            'a project is never replaced: deleting it would take everything in it. Change its settings in place, or mark it "state: absent" to delete it (after its backup)',
        }),
      ]);
      expect(p.changes).toEqual([]);
    }
  });
});
