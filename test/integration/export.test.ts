// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read manifest reference syntax that export writes
import { generateKeyPairSync } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const VERSION = (
  JSON.parse(readFileSync(join(import.meta.dirname, "../../package.json"), "utf8")) as { version: string }
).version;

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Bench } from "./helpers.js";

function sshKey(comment: string): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const part = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([part(Buffer.from("ssh-ed25519")), part(raw)]).toString("base64")} ${comment}`;
}

const SECRET_VALUE = "s3cr3t-value-never-printed";
const HOOK_TOKEN = "hook-token-never-printed";
/** Credentials inside URLs: ordinary live text on the platform, which export must still not write into a file. */
const URL_SECRETS = {
  hookKey: "hookKEYinURL1234",
  hookSig: "sigVALUE5678",
  badgeToken: "badgeTOKENinQuery9",
  proxyPassword: "proxyPASSinUserinfo",
  /** A Slack hook's secret: in the path, under no name; exported because it looks random. */
  slackPath: "vKtqA7yPw3kT0JH2XeLqYz9B",
};
const SCIM_TOKEN = "scim-token-for-acme";

/** A sandbox that holds every kind forgeform manages. */
const fixture = {
  users: [{ username: "alice", email: "alice@acme.example" }],
  groups: [{ path: "acme", description: "The ACME company" }, { path: "acme/platform" }, { path: "other" }],
  projects: [{ path: "acme/platform/api" }, { path: "acme/web" }, { path: "other/tool" }],
  application_settings: {
    signup_enabled: false,
    default_projects_limit: 42,
    diagram_url: `https://diagrams:${URL_SECRETS.proxyPassword}@diagrams.example/render`,
  },
  milestones: [
    { group: "acme", title: "2027 Q1", description: "First quarter", due_date: "2027-03-31" },
    { project: "acme/platform/api", title: "1.0", start_date: "2027-01-01", due_date: "2027-02-01" },
    { project: "acme/platform/api", title: "0.9", state: "closed" },
  ],
  pipeline_schedules: [
    {
      project: "acme/platform/api",
      description: "Nightly build",
      ref: "main",
      cron: "0 2 * * *",
      cron_timezone: "Europe/Berlin",
      variables: [
        { key: "DEPLOY_TOKEN", value: SECRET_VALUE },
        { key: "MODE", value: "fast", variable_type: "file" },
      ],
    },
  ],
  pipeline_triggers: [{ project: "acme/platform/api", description: "deploy from chat" }],
  badges: [
    {
      group: "acme",
      name: "handbook",
      link_url: "https://handbook.example",
      image_url: "https://img.example/h.svg",
    },
    {
      project: "acme/web",
      name: "coverage",
      link_url: `https://ci.example/%{project_path}?private_token=${URL_SECRETS.badgeToken}&ref=main`,
      image_url: "https://img.example/c.svg",
    },
  ],
  deploy_keys: [{ project: "acme/web", title: "ci", key: sshKey("ci@acme"), can_push: true }],
  protected_environments: [
    {
      project: "acme/platform/api",
      name: "production",
      deploy_access_levels: [{ access_level: 40 }, { user: "alice" }, { group: "acme/platform" }],
    },
  ],
  error_tracking: [
    {
      project: "acme/platform/api",
      active: true,
      project_name: "api",
      api_url: "https://sentry.example/api/0/projects/acme/api/",
      tracker_external_url: "https://sentry.example/acme/api",
    },
  ],
  issues: [1, 2, 3].map((iid) => ({ project: "acme/web", iid, title: `issue ${iid}` })),
  epics: [{ group: "acme", iid: 7, title: "Launch", issues: ["acme/web#3", "acme/web#1"] }],
  scim: [{ group: "acme", token: SCIM_TOKEN, identities: [{ user: "alice", extern_uid: "idp-alice" }] }],
  wikis: [
    { project: "acme/platform/api", title: "Home", content: "Welcome.\nUse ${HOME} in scripts.\n" },
    {
      project: "acme/platform/api",
      title: "guides/Set-up the laptop",
      content: "Install tools.",
      format: "asciidoc",
    },
  ],
};

describe("forgeform export", () => {
  let bench: Bench;
  let out: string;
  let exported: Awaited<ReturnType<Bench["cli"]>>;
  beforeAll(async () => {
    bench = await Bench.start({ fixture });
    // Objects the fixture cannot seed are created through forgeform itself.
    const setup = bench.manifest(`version: 1
instance:
  system_hooks:
    - url: https://hooks.example/receive
      token: ${HOOK_TOKEN}
      push_events: true
    - url: "https://relay.example/in?key=${URL_SECRETS.hookKey}&X-Amz-Signature=${URL_SECRETS.hookSig}&monkey=plain"
    - url: https://hooks.slack.com/services/T0123ABCD/B0456EFGH/${URL_SECRETS.slackPath}
  broadcast_messages:
    - message: Maintenance on Sunday
      starts_at: "2027-01-01T00:00:00Z"
      ends_at: "2027-01-02T00:00:00Z"
  notification_settings:
    level: watch
projects:
  acme/web:
    notification_settings:
      level: custom
      new_merge_request: true
      failed_pipeline: false
`);
    const applied = await bench.cli(["apply", "--yes", setup]);
    expect(applied.code, applied.out + applied.err).toBe(0);
    out = join(bench.dir, "exported");
    exported = await bench.cli(
      ["export", "--instance", "--group", "acme", "--project", "other/tool", "--out", out],
      { FORGEFORM_SCIM_TOKEN: SCIM_TOKEN },
    );
  });
  afterAll(async () => {
    await bench.stop();
  });

  it("writes instance.yaml and one file per group and project, with schema headers", () => {
    expect(exported.code, exported.err).toBe(0);
    expect(readdirSync(out).sort()).toEqual(["acme.yaml", "instance.yaml", "other__tool.yaml"]);
    // Each file written, named on stdout.
    expect(exported.out.split("\n").filter(Boolean).sort()).toEqual(
      ["acme.yaml", "instance.yaml", "other__tool.yaml"].map((name) => `Wrote ${join(out, name)}`),
    );
    for (const name of readdirSync(out)) {
      const text = readFileSync(join(out, name), "utf8");
      const schema = /^# yaml-language-server: \$schema=(\S+)$/m.exec(text)?.[1];
      // The published schema of this version, wherever forgeform is installed.
      expect(schema, name).toBe(`https://unpkg.com/forgeform@${VERSION}/schemas/manifest.schema.json`);
      expect(text).toMatch(/^version: 1$/m);
    }
    const acme = readFileSync(join(out, "acme.yaml"), "utf8");
    expect(acme).toContain("acme/platform:");
    expect(acme).toContain("acme/platform/api:");
    expect(acme).toContain("acme/web:");
    expect(acme).toContain("Nightly build");
    // The platform reads the title back with hyphens as spaces; it still names the same page.
    expect(acme).toContain("title: guides/Set up the laptop");
    expect(acme).toContain("state: closed");
    expect(acme).toContain("externalId: idp-alice");
    expect(acme).toMatch(
      /- iid: 7\n\s+issues:\n\s+- project: acme\/web\n\s+iid: 3\n\s+- project: acme\/web\n\s+iid: 1\n/,
    );
    expect(acme).toMatch(
      /- user: alice\n\s+- group: acme\/platform|- group: acme\/platform\n\s+- user: alice/,
    );
    expect(acme).toContain("new_merge_request: true");
    // A literal `${` in live text is escaped, so it is not read as a reference.
    expect(acme).toContain("Use $${HOME} in scripts.");
  });

  it("turns sensitive values into env references, named on stderr and in the file, and leaves write-only values out", () => {
    const all = readdirSync(out)
      .map((n) => readFileSync(join(out, n), "utf8"))
      .join("\n");
    for (const secret of [SECRET_VALUE, HOOK_TOKEN, ...Object.values(URL_SECRETS)]) {
      expect(all).not.toContain(secret);
      expect(exported.out + exported.err).not.toContain(secret);
    }
    const acme = readFileSync(join(out, "acme.yaml"), "utf8");
    const ref = /value: \$\{env:([A-Z0-9_]+)\}/.exec(acme)?.[1];
    // A short name a person can type: the project, the schedule, the variable.
    expect(ref).toBe("API_NIGHTLY_BUILD_DEPLOY_TOKEN");
    expect(exported.err).toContain(
      `${ref}  (project["acme/platform/api"].pipeline_schedule["Nightly build"].variable["DEPLOY_TOKEN"].value)`,
    );
    // Said first, with how many, then one line each: the variable and the field it stands for.
    const lines = exported.err.trimEnd().split("\n");
    expect(lines[0]).toBe(
      "The exported manifests refer to 6 sensitive values through environment variables; set them before planning:",
    );
    expect(lines.slice(1)).toHaveLength(6);
    for (const line of lines.slice(1)) expect(line).toMatch(/^ {2}[A-Z0-9_]+ {2}\(\S.*\)$/);
    // A plain value is written as it is: only a secret's (named like one, masked, write-only) becomes a reference.
    expect(acme).toMatch(/key: MODE\n\s+value: fast\n/);
    expect(exported.err).not.toContain('variable["MODE"]');
    // Listed at the top of the file, before the manifest itself.
    const header = acme.slice(0, acme.indexOf("\nversion: 1"));
    expect(header).toMatch(new RegExp(`^#\\s+${ref}\\b`, "m"));
    // Credentials in URLs become references, the rest of the URL as it is; a parameter that only looks like one
    // (`monkey`) stays.
    expect(acme).toContain(
      "link_url: https://ci.example/%{project_path}?private_token=${env:WEB_COVERAGE_LINK_URL_PRIVATE_TOKEN}&ref=main",
    );
    expect(header).toMatch(
      /# +WEB_COVERAGE_LINK_URL_PRIVATE_TOKEN +\(project\["acme\/web"\]\.badge\["coverage"\]\.link_url \(query parameter private_token\)\)/,
    );
    const instance = readFileSync(join(out, "instance.yaml"), "utf8");
    expect(instance).toContain("https://hooks.example/receive");
    expect(instance).toContain(
      "url: https://relay.example/in?key=${env:RELAY_EXAMPLE_KEY}&X-Amz-Signature=${env:RELAY_EXAMPLE_X_AMZ_SIGNATURE}&monkey=plain",
    );
    expect(instance).toContain(
      "diagram_url: https://diagrams:${env:APPLICATION_SETTINGS_DIAGRAM_URL_PASSWORD}@diagrams.example/render",
    );
    // A secret in the path, under no name, because it looks random; the hook's ids before it stay.
    expect(instance).toMatch(
      /url: https:\/\/hooks\.slack\.com\/services\/T0123ABCD\/B0456EFGH\/\$\{env:[A-Z0-9_]+\}\n/,
    );
    const instanceHeader = instance.slice(0, instance.indexOf("\nversion: 1"));
    for (const name of [
      "RELAY_EXAMPLE_KEY",
      "RELAY_EXAMPLE_X_AMZ_SIGNATURE",
      "APPLICATION_SETTINGS_DIAGRAM_URL_PASSWORD",
    ])
      expect(instanceHeader).toMatch(new RegExp(`^# +${name} +\\(`, "m"));
    // The address that names a hook holding a credential is masked.
    expect(instanceHeader).toContain(
      'system_hook["https://relay.example/in?key=(sensitive)&X-Amz-Signature=(sensitive)&monkey=plain"].url (query parameter key)',
    );
    expect(instance).toMatch(/# write-only, not readable from the platform, so not exported: token/);
    expect(instance).toContain("default_projects_limit: 42");
  });

  it("plans no changes when the exported manifests are planned against the same platform", async () => {
    const live: Record<string, string> = {
      'variable["DEPLOY_TOKEN"].value': SECRET_VALUE,
      "url (query parameter key)": URL_SECRETS.hookKey,
      "url (query parameter X-Amz-Signature)": URL_SECRETS.hookSig,
      "link_url (query parameter private_token)": URL_SECRETS.badgeToken,
      "diagram_url (password in the URL)": URL_SECRETS.proxyPassword,
      "url (a segment of the URL's path)": URL_SECRETS.slackPath,
    };
    // A sensitive setting at the platform's default (searchengine_url) is left out, not made a required ${env:}.
    expect(exported.err).not.toContain("searchengine_url");
    const env: Record<string, string> = {};
    for (const m of exported.err.matchAll(/^ {2}([A-Z0-9_]+) {2}\((.+)\)$/gm)) {
      const field = Object.keys(live).find((f) => m[2]!.endsWith(f));
      expect(field, m[2]).toBeDefined();
      env[m[1]!] = live[field!]!;
    }
    expect(Object.keys(env)).toHaveLength(6);
    const plan = await bench.cli(["plan", "--detailed-exitcode", out], {
      ...env,
      FORGEFORM_SCIM_TOKEN: SCIM_TOKEN,
    });
    expect(plan.err).toBe("");
    expect(plan.code, plan.out).toBe(0);
    expect(plan.out).toContain("No changes.");
  });

  it("declares each group and project once, in the file of the outermost group asked for", async () => {
    const dir = join(bench.dir, "overlap");
    const r = await bench.cli(
      ["export", "--group", "acme/platform", "--group", "acme", "--project", "acme/web", "--out", dir],
      { FORGEFORM_SCIM_TOKEN: SCIM_TOKEN },
    );
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(dir)).toEqual(["acme.yaml"]);
    expect(r.err).toContain('group["acme/platform"]: already in the file of its parent group');
    expect(r.err).toContain('project["acme/web"]: already in the file of its group');
  });

  it("names a group or project that does not exist, and writes nothing", async () => {
    const dir = join(bench.dir, "missing");
    const r = await bench.cli(["export", "--group", "acme", "--project", "acme/nope", "--out", dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("project acme/nope does not exist or is not visible to the token's user");
    expect(existsSync(dir)).toBe(false);
  });

  it("needs something to export", async () => {
    const r = await bench.cli(["export", "--out", join(bench.dir, "nothing")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("nothing to export: pass --instance, --group <path> or --project <path>");
  });
});

describe("export of a variable whose value is empty", () => {
  it('writes value: "" (required), so the export is valid and plans no changes', async () => {
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        ci_variables: [
          { group: "acme", key: "EMPTY", value: "" },
          { project: "acme/api", key: "EMPTY", value: "", environment_scope: "production" },
          { instance: true, key: "EMPTY", value: "" },
        ],
        pipeline_schedules: [
          { project: "acme/api", description: "N", cron: "0 1 * * *", variables: { EMPTY: "" } },
        ],
      },
    });
    try {
      const out = join(bench.dir, "exported");
      const r = await bench.cli(["export", "--instance", "--group", "acme", "--out", out]);
      expect(r.code, r.err).toBe(0);
      const all = readdirSync(out)
        .map((n) => readFileSync(join(out, n), "utf8"))
        .join("\n");
      expect(all.match(/- key: EMPTY\n\s+value: ""\n/g)).toHaveLength(4);
      const plan = await bench.cli(["plan", "--detailed-exitcode", out]);
      expect(plan.code, plan.out + plan.err).toBe(0);
      expect(plan.out).toContain("No changes.");
    } finally {
      await bench.stop();
    }
  });
});

describe("export of live objects that share an identity", () => {
  it("writes the one the plan manages and says so of the others, so the export is valid and plans no changes", async () => {
    // The platform allows two deploy tokens, schedules, triggers or hooks of one name or URL; a manifest does not.
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        projects: [{ path: "acme/api" }],
        deploy_tokens: [
          { group: "acme", name: "pull", scopes: ["read_repository"] },
          { group: "acme", name: "pull", scopes: ["read_registry"] },
        ],
        pipeline_schedules: [
          { project: "acme/api", description: "Nightly", cron: "0 1 * * *" },
          { project: "acme/api", description: "Nightly", cron: "0 2 * * *" },
        ],
        project_hooks: [
          { project: "acme/api", url: "https://chat.example/in?token=hookKEYinURL1234" },
          { project: "acme/api", url: "https://chat.example/in?token=hookKEYinURL1234", push_events: false },
        ],
      },
    });
    try {
      const out = join(bench.dir, "exported");
      const r = await bench.cli(["export", "--group", "acme", "--out", out]);
      expect(r.code, r.err).toBe(0);
      const acme = readFileSync(join(out, "acme.yaml"), "utf8");
      expect(acme.match(/- name: pull\n/g)).toHaveLength(1);
      expect(acme).toContain("- read_registry");
      expect(acme.match(/- description: Nightly\n/g)).toHaveLength(1);
      expect(acme).toMatch(/cron: "?0 2 \* \* \*"?\n/);
      expect(acme.match(/- url: https:\/\/chat\.example\/in/g)).toHaveLength(1);
      expect(r.err).toContain(
        'not exported: group["acme"].deploy_tokens: 2 live deploy tokens have the identity "pull", which a manifest declares once',
      );
      expect(r.err).toContain('2 live hooks have the identity "https://chat.example/in?token=(sensitive)"');
      expect(acme + r.err + r.out).not.toContain("hookKEYinURL1234");
      const env = Object.fromEntries(
        [...r.err.matchAll(/^ {2}([A-Z0-9_]+) {2}\(/gm)].map((m) => [m[1]!, "hookKEYinURL1234"]),
      );
      const plan = await bench.cli(["plan", "--detailed-exitcode", out], env);
      expect(plan.code, plan.out + plan.err).toBe(0);
      expect(plan.out).toContain("No changes.");
    } finally {
      await bench.stop();
    }
  });
});

describe("export of a badge without a name", () => {
  it("leaves it out and says why, rather than naming it after its URLs, so the plan of the export changes nothing", async () => {
    // A badge made before badges had names: the plan knows it by its two URLs, a manifest cannot declare it.
    const bench = await Bench.start({
      fixture: {
        groups: [{ path: "acme" }],
        badges: [
          { group: "acme", link_url: "https://old.example/x", image_url: "https://old.example/i.svg" },
          {
            group: "acme",
            name: "ci",
            link_url: "https://ci.example/x",
            image_url: "https://ci.example/i.svg",
          },
        ],
      },
    });
    try {
      const out = join(bench.dir, "exported");
      const r = await bench.cli(["export", "--group", "acme", "--out", out]);
      expect(r.code, r.err).toBe(0);
      const acme = readFileSync(join(out, "acme.yaml"), "utf8");
      expect(acme).not.toContain("name: https://old.example/x");
      expect(acme).toMatch(/^ {4}# not exported: a badge without a name \(https:\/\/old\.example\/x /m);
      expect(r.err).toContain('not exported: group["acme"].badges: a badge without a name');
      expect(acme).toContain("name: ci");
      const plan = await bench.cli(["plan", "--detailed-exitcode", out]);
      expect(plan.code, plan.out).toBe(0);
      expect(plan.out).toContain("No changes.");
      expect(plan.out).not.toContain("~ name");
    } finally {
      await bench.stop();
    }
  });
});

describe("the $schema line the documents show", () => {
  it("is the versioned URL export writes, and the offline form is a path relative to the manifest", async () => {
    const { schemaUrl } = await import("../../src/cli/export.js");
    const root = join(import.meta.dirname, "../..");
    for (const doc of ["README.md", "docs/manifests.md", "schemas/README.md"]) {
      const refs = [...readFileSync(join(root, doc), "utf8").matchAll(/\$schema=([^\s`]+)/g)]
        .map((m) => m[1]!)
        .filter((ref) => ref !== "...");
      expect(refs, doc).toContain(schemaUrl());
      // Any other form shown is relative to the manifest file (`node_modules/...` at the top works only there).
      for (const ref of refs)
        expect(ref === schemaUrl() || ref.startsWith("../"), `${doc}: ${ref}`).toBe(true);
    }
  });
});
