/**
 * Export that a human keeps in git: the examples applied to the demo fixture, exported, hold only what was set
 * (no setting at its default, no SCIM noise, no default notification settings), plan to zero changes, and are not
 * written over existing files without --force.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { copyExamples, EXAMPLES, EXAMPLES_ENV } from "./examples.js";
import { Bench } from "./helpers.js";

const env = EXAMPLES_ENV;

describe("export of the examples' state", () => {
  let bench: Bench;
  let out: string;
  let run: { code: number; out: string; err: string };
  beforeAll(async () => {
    bench = await Bench.start({ fixture: join(EXAMPLES, "sandbox-fixture.yaml"), edition: "licensed" });
    const manifests = copyExamples(bench.dir);
    expect((await bench.cli(["apply", "--yes", "--no-backup", ...manifests], env)).code).toBe(0);
    out = join(bench.dir, "exported");
    run = await bench.cli(
      ["export", "--instance", "--group", "acme", "--group", "opensource", "--out", out],
      env,
    );
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("writes only settings that differ from the platform's defaults", () => {
    expect(run.code, run.err).toBe(0);
    const instance = parse(readFileSync(join(out, "instance.yaml"), "utf8")) as {
      instance: { application_settings: Record<string, unknown>; notification_settings?: unknown };
    };
    const exported = Object.keys(instance.instance.application_settings).sort();
    const declared = Object.keys(
      (
        parse(readFileSync(join(EXAMPLES, "instance.yaml"), "utf8")) as {
          instance: { application_settings: object };
        }
      ).instance.application_settings,
    );
    // Every exported setting was declared (set) by the examples; none is there because it has a default.
    for (const name of exported) expect(declared, name).toContain(name);
    // What the examples set away from the default is there; what they set to the default is not.
    for (const name of [
      "signup_enabled",
      "default_projects_limit",
      "archive_builds_in_human_readable",
      "terms",
    ])
      expect(exported).toContain(name);
    for (const name of ["default_branch_protection", "ed25519_key_restriction", "commit_email_hostname"])
      expect(exported).not.toContain(name);
    // The secret setting is never read back, so it cannot be exported.
    expect(exported).not.toContain("asset_proxy_secret_key");
  });

  it("writes no group field at the platform's default", () => {
    const defaults = schemaDefaults("group");
    expect(Object.keys(defaults).length).toBeGreaterThan(5);
    for (const file of ["acme.yaml", "opensource.yaml"]) {
      const { groups } = parse(readFileSync(join(out, file), "utf8")) as {
        groups: Record<string, Record<string, unknown>>;
      };
      for (const [path, body] of Object.entries(groups))
        for (const [field, value] of Object.entries(defaults))
          expect(body[field], `${file}: ${path}.${field}`).not.toEqual(value);
    }
  });

  it("writes no project field at the platform's default, and no project with nothing managed", () => {
    const defaults = schemaDefaults("project");
    expect(Object.keys(defaults).length).toBeGreaterThan(20);
    for (const file of ["acme.yaml", "opensource.yaml"]) {
      const { projects } = parse(readFileSync(join(out, file), "utf8")) as {
        projects?: Record<string, Record<string, unknown>>;
      };
      for (const [path, body] of Object.entries(projects ?? {})) {
        expect(Object.keys(body).length, `${file}: ${path} is written with nothing in it`).toBeGreaterThan(0);
        for (const [field, value] of Object.entries(defaults))
          expect(body[field], `${file}: ${path}.${field}`).not.toEqual(value);
      }
    }
  });

  it("says nothing of SCIM for groups without it, and leaves default notification settings out", () => {
    const open = readFileSync(join(out, "opensource.yaml"), "utf8");
    expect(open).not.toMatch(/scim/i);
    expect(open).not.toContain("notification_settings");
    expect(run.err).not.toMatch(/scim/i);
    const acme = parse(readFileSync(join(out, "acme.yaml"), "utf8")) as {
      groups: Record<string, { notification_settings?: { level: string } }>;
    };
    // acme/platform's settings were set by the examples (participating): kept.
    expect(acme.groups["acme/platform"]?.notification_settings).toEqual({ level: "participating" });
  });

  it("says when the SCIM users of a group with SAML SSO are not exported: no SCIM token, or a refused one", async () => {
    for (const [token, why] of [
      ["", /needs a SCIM token: set FORGEFORM_SCIM_TOKEN/],
      ["not-the-scim-token", /the SCIM token was rejected: check FORGEFORM_SCIM_TOKEN/],
    ] as const) {
      const dir = join(bench.dir, `scim-token-${token || "unset"}`);
      const r = await bench.cli(["export", "--group", "acme", "--group", "opensource", "--out", dir], {
        ...env,
        FORGEFORM_SCIM_TOKEN: token,
      });
      expect(r.code, r.err).toBe(0);
      // acme has SAML SSO with SCIM: its users are not dropped silently; its subgroup and opensource have none.
      const lines = r.err.split("\n").filter((line) => /scim/i.test(line));
      expect(lines, r.err).toHaveLength(1);
      expect(lines[0]).toMatch(/^forgeform export: not exported: group\["acme"\]\.scim_users: /);
      expect(lines[0]).toMatch(why);
      const acme = readFileSync(join(dir, "acme.yaml"), "utf8");
      expect(acme).toMatch(/^ {4}# scim_users not exported: .*FORGEFORM_SCIM_TOKEN/m);
      expect(acme).not.toMatch(/^\s+scim_users:/m);
      expect(readFileSync(join(dir, "opensource.yaml"), "utf8")).not.toMatch(/scim/i);
    }
  });

  it("plans to zero changes", async () => {
    const files = readdirSync(out).map((f) => join(out, f));
    const plan = await bench.cli(["plan", "--detailed-exitcode", ...files], {
      ...env,
      ...Object.fromEntries(
        [...run.err.matchAll(/^ {2}([A-Z0-9_]+) {2}(.*)$/gm)].map((m) => [
          m[1]!,
          // The key in a hook's URL is part of its identity: another value would be another hook.
          /\.hook\[.*url \(query parameter key\)/.test(m[2]!)
            ? env["CHAT_HOOK_KEY"]!
            : "exported-secret-stand-in",
        ]),
      ),
    });
    // Values exported as ${env:} references stand in with other values, so only they may differ.
    expect(
      plan.code === 0 || /value: \(sensitive\) -> \(sensitive\)/.test(plan.out),
      plan.out + plan.err,
    ).toBe(true);
    // No create or delete (warnings, listed "  - ", may say that an exported deploy token has expired).
    expect(plan.out).not.toMatch(/^ {4}[+-] /m);
  });

  it("does not write over existing files without --force", async () => {
    const again = await bench.cli(["export", "--instance", "--out", out], env);
    expect(again.code).toBe(1);
    expect(again.err).toContain("exists already: nothing was written. Pass --force to overwrite");
    const forced = await bench.cli(["export", "--instance", "--force", "--out", out], env);
    expect(forced.code, forced.err).toBe(0);
  });
});

/** `default` of each property of a kind's schema: the platform's default, which export leaves out. */
function schemaDefaults(kind: string): Record<string, unknown> {
  const schema = JSON.parse(readFileSync(join(EXAMPLES, `../schemas/${kind}.schema.json`), "utf8")) as {
    properties: Record<string, { default?: unknown }>;
  };
  return Object.fromEntries(
    Object.entries(schema.properties)
      .filter(([, p]) => p.default !== undefined)
      .map(([name, p]) => [name, p.default]),
  );
}

/** Objects of every exported kind, each created with only what a manifest must (or chose to) say. */
const FRESH = `version: 1
instance:
  system_hooks:
    - url: https://hooks.example/fresh
  broadcast_messages:
    - { message: Maintenance, starts_at: "2030-01-05T08:00:00Z", ends_at: "2030-01-05T09:00:00Z" }
  variables:
    - { key: MIRROR, value: https://mirror.example }
groups:
  fresh/sub:
    name: Sub
    visibility: internal
    members:
      # The token's user creates the group, and the platform makes it its owner: declared, it is kept so.
      - { user: root, access_level: owner }
    badges:
      - { name: chat, link_url: "https://chat.example", image_url: "https://chat.example/b.svg" }
    milestones:
      - { title: Q1 }
    variables:
      - { key: REGION, value: eu }
projects:
  fresh/app:
    pipeline_schedules:
      - description: nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - { key: FLAVOUR, value: release }
    deploy_keys:
      - title: ci
        key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@example
    triggers:
      - { description: deploy }
    wiki_pages:
      - { title: guides/Getting started, content: Welcome }
    protected_environments:
      - { name: production, deploy_access_levels: [{ access_level: 40 }] }
    variables:
      - { key: LOG_LEVEL, value: info, environment_scope: production }
  fresh/made:
    merge_method: ff
    build_timeout: 2h
`;

/** A document with every value replaced by "*": which fields are written, not what they hold. */
function skeleton(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(skeleton);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, skeleton(v)]));
  return "*";
}

describe("export of freshly created objects of every kind", () => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({
      edition: "licensed",
      fixture: {
        groups: [{ path: "fresh", name: "Fresh", visibility: "internal" }],
        projects: [{ path: "fresh/app", default_branch: "main" }],
      },
    });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("writes nothing beyond what was set", async () => {
    const manifest = bench.manifest(FRESH, "fresh.yaml");
    const applied = await bench.cli(["apply", "--yes", "--no-backup", manifest]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    const out = join(bench.dir, "fresh-export");
    const run = await bench.cli(["export", "--instance", "--group", "fresh", "--out", out]);
    expect(run.code, run.err).toBe(0);
    const { version: _, ...desired } = parse(FRESH) as Record<string, unknown>;
    const group = parse(readFileSync(join(out, "fresh.yaml"), "utf8")) as {
      groups: Record<string, object>;
      projects: object;
    };
    const instance = parse(readFileSync(join(out, "instance.yaml"), "utf8")) as { instance: object };
    const exported = {
      instance: instance.instance,
      groups: { "fresh/sub": group.groups["fresh/sub"] },
      projects: group.projects,
    };
    // The fixture set the project's default branch: exported with what the manifest set (and no name: its path's).
    const fixtureSet = { "fresh/app": { default_branch: "main" } };
    const projects = desired["projects"] as Record<string, object>;
    const withFixture = {
      ...desired,
      projects: { ...projects, "fresh/app": { ...projects["fresh/app"], ...fixtureSet["fresh/app"] } },
    };
    expect(skeleton(exported)).toEqual(skeleton(withFixture));
    // The fixture's group: what the fixture set, no more.
    expect(Object.keys(group.groups["fresh"]!).sort()).toEqual(["name", "visibility"]);
  });
});

describe.each(["core", "licensed"] as const)("export of a fresh %s instance", (edition) => {
  let bench: Bench;
  beforeAll(async () => {
    bench = await Bench.start({ edition });
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("writes no application settings: every schema default is the platform's own", async () => {
    const out = join(bench.dir, "fresh");
    const run = await bench.cli(["export", "--instance", "--out", out]);
    expect(run.code, run.err).toBe(0);
    const instance = parse(readFileSync(join(out, "instance.yaml"), "utf8")) as {
      instance: { application_settings?: Record<string, unknown>; notification_settings?: unknown };
    };
    expect(instance.instance.application_settings ?? {}).toEqual({});
    expect(instance.instance.notification_settings).toBeUndefined();
    expect(run.err).not.toMatch(/\$\{env:/);
  });
});
