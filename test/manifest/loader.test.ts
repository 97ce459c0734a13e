// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests write manifest reference syntax literally
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import {
  formatDiagnostic,
  isValidTimeZone,
  kindSchema,
  loadManifests,
  RAILS_TIME_ZONES,
} from "../../src/manifest/index.js";
import type { DesiredNode } from "../../src/manifest/model.js";
import { isSecret, Secret } from "../../src/manifest/secret.js";

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "ff-manifest-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function child(node: DesiredNode, collection: string, key: string): DesiredNode {
  const found = node.children[collection]?.items.find((n) => n.key === key);
  if (!found) throw new Error(`no ${collection} ${key}`);
  return found;
}

async function load(dir: string, files: string[] = ["."], env: NodeJS.ProcessEnv = {}, secrets = true) {
  const r = await loadManifests(
    files.map((f) => join(dir, f)),
    { secrets, env, root: dir },
  );
  return {
    ...r,
    lines: r.diagnostics.map((d) =>
      formatDiagnostic({ ...d, file: d.file.slice(d.file.lastIndexOf("/") + 1) }),
    ),
  };
}

describe("desired state", () => {
  const dir = workspace({
    "main.yaml": `version: 1
groups:
  acme/platform:
    description: Shared services
  acme:
    visibility: internal
    milestones:
      - title: Q1
        state: closed
      - title: Old
        state: absent
projects:
  acme/platform/api:
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
        variables:
          - key: TOKEN
            value: \${env:NIGHTLY_TOKEN}
          - key: PLAIN
            value: hello
        unmanaged:
          variables: delete
    wiki_pages:
      - title: Getting started
        content_file: pages/start.md
        attachments: [pages/pic.svg]
    unmanaged:
      badges: ignore
`,
    "pages/start.md": "# Start\n",
    "pages/pic.svg": "<svg/>",
  });

  it("builds the tree with parents before children, identities as keys, and only declared fields", async () => {
    const { state, lines } = await load(dir, ["."], { NIGHTLY_TOKEN: "s3cr3t" });
    expect(lines).toEqual([]);
    const root = state!.root;
    expect(root.children.groups!.items.map((g) => g.key)).toEqual(["acme", "acme/platform"]);
    expect(root.children.groups!.policy).toBe("warn");
    const platform = child(root, "groups", "acme/platform");
    // An undeclared name is not filled in: an existing group's display name must not be compared.
    expect(platform.fields).toEqual({ description: "Shared services" });
    expect(platform.source).toMatchObject({ line: 3, col: 3 });
    const acme = child(root, "groups", "acme");
    expect(child(acme, "milestones", "Q1")).toMatchObject({
      state: "present",
      fields: { title: "Q1", state: "closed" },
    });
    expect(child(acme, "milestones", "Old")).toMatchObject({ state: "absent", fields: { title: "Old" } });
    const api = child(root, "projects", "acme/platform/api");
    const nightly = child(api, "pipeline_schedules", "Nightly");
    expect(nightly.fields).toEqual({ description: "Nightly", ref: "main", cron: "0 2 * * *" });
    expect(nightly.fieldSources.cron).toMatchObject({ line: 17, col: 15 });
    expect(nightly.children.variables!.policy).toBe("delete");
    expect(api.children.pipeline_schedules!.policy).toBe("warn");
    // a policy alone makes a collection managed (with no declared items)
    expect(api.children.badges).toEqual({ policy: "ignore", policyDeclared: true, items: [] });
    expect(api.children.triggers).toBeUndefined();
    const token = child(nightly, "variables", "TOKEN").fields.value;
    expect(isSecret(token)).toBe(true);
    expect((token as Secret).reveal()).toBe("s3cr3t");
    expect((token as Secret).origin).toBe("env:NIGHTLY_TOKEN");
    // variable values are x-sensitive: even a literal becomes a Secret
    const plain = child(nightly, "variables", "PLAIN").fields.value as Secret;
    expect(plain.reveal()).toBe("hello");
    expect(JSON.stringify(state)).not.toContain("s3cr3t");
    expect(inspect(state, { depth: 20 })).not.toContain("s3cr3t");
    const page = child(api, "wiki_pages", "Getting-started");
    expect(page.fields.content).toBe("# Start\n");
    expect(page.fields.content_file).toBeUndefined();
    expect(page.fields.attachments).toEqual([join(dir, "pages/pic.svg")]);
  });

  it("with secrets off, references become empty Secrets and unset variables are no error", async () => {
    const { state, lines } = await load(dir, ["."], {}, false);
    expect(lines).toEqual([]);
    const api = child(state!.root, "projects", "acme/platform/api");
    const token = child(child(api, "pipeline_schedules", "Nightly"), "variables", "TOKEN").fields
      .value as Secret;
    expect(token.reveal()).toBe("");
    expect(token.origin).toBe("env:NIGHTLY_TOKEN");
  });
});

describe("templates", () => {
  it("merges maps deeply, replaces lists, and lets the body win", async () => {
    const dir = workspace({
      "m.yaml": `version: 1
templates:
  base:
    visibility: private
    description: from template
    notification_settings:
      level: custom
      new_note: true
    badges:
      - {name: a, link_url: "https://a.example", image_url: "https://a.example/a.svg"}
  strict:
    extends: [base]
    require_two_factor_authentication: true
groups:
  acme:
    extends: [strict]
    description: own
    notification_settings:
      failed_pipeline: true
    badges:
      - {name: b, link_url: "https://b.example", image_url: "https://b.example/b.svg"}
`,
    });
    const { state, lines } = await load(dir);
    expect(lines).toEqual([]);
    const acme = child(state!.root, "groups", "acme");
    expect(acme.fields).toEqual({
      visibility: "private",
      description: "own",
      require_two_factor_authentication: true,
    });
    expect(acme.fieldSources.visibility).toMatchObject({ line: 4 });
    expect(acme.fieldSources.description).toMatchObject({ line: 17 });
    expect(child(acme, "notification_settings", "notification_settings").fields).toEqual({
      level: "custom",
      new_note: true,
      failed_pipeline: true,
    });
    expect(acme.children.badges!.items.map((b) => b.key)).toEqual(["b"]);
  });

  it("reports a bad value from a template at the template's line", async () => {
    const dir = workspace({
      "m.yaml": `version: 1
templates:
  base:
    pipeline_schedules:
      - description: Nightly
        ref: main
        cron: "0 2 * * *"
        cron_timezone: Mars/Olympus
projects:
  acme/api:
    extends: [base]
`,
    });
    const { lines, state } = await load(dir);
    expect(state).toBeUndefined();
    expect(lines).toEqual([
      'm.yaml:8:24: templates.base.pipeline_schedules[0].cron_timezone: unknown time zone "Mars/Olympus": use an IANA name such as "Europe/Berlin" or a platform name such as "Pacific Time (US & Canada)"',
    ]);
  });
});

describe("secret references", () => {
  it("reads ${file:} relative to the manifest, trims one final newline, and honours $${ escapes", async () => {
    const dir = workspace({
      "sub/m.yaml": `version: 1
instance:
  system_hooks:
    - url: https://hooks.example.com/a
      token: \${file:token.txt}
    - url: "https://hooks.example.com/$\${literal}"
`,
      "sub/token.txt": "tok-123\n",
    });
    const { state, lines } = await load(dir);
    expect(lines).toEqual([]);
    const hooks = state!.root.children.system_hooks!.items;
    const token = hooks[0]!.fields.token as Secret;
    expect(token.reveal()).toBe("tok-123");
    expect(token.origin).toBe("file:token.txt");
    expect(hooks[1]!.key).toBe("https://hooks.example.com/${literal}");
  });

  it("names a missing variable and its place, and never prints a resolved value", async () => {
    const dir = workspace({
      "m.yaml": `version: 1
instance:
  system_hooks:
    - url: https://hooks.example.com/a
      token: \${env:FF_SET_TOKEN}
      push_events: maybe
    - url: https://hooks.example.com/b
      token: "x-\${env:FF_MISSING}"
`,
    });
    const { lines } = await load(dir, ["."], { FF_SET_TOKEN: "do-not-print" });
    expect(lines).toEqual([
      'm.yaml:6:20: instance.system_hooks[0].push_events: expected true or false, got the string "maybe"',
      "m.yaml:8:14: instance.system_hooks[1].token: environment variable FF_MISSING is not set (referenced as ${env:FF_MISSING}); set it, or run validate with --no-secrets",
    ]);
    expect(lines.join("\n")).not.toContain("do-not-print");
  });

  it("refuses a ${file:} that leaves the root through a symbolic link", async () => {
    const outside = workspace({ "secret.txt": "x" });
    const dir = workspace({
      "m.yaml": `version: 1
instance:
  system_hooks:
    - url: https://hooks.example.com/a
      token: \${file:link.txt}
`,
    });
    symlinkSync(join(outside, "secret.txt"), join(dir, "link.txt"));
    const { lines } = await load(dir);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^m\.yaml:5:14: instance\.system_hooks\[0\]\.token: \$\{file:link\.txt\}: "link\.txt" leads outside the manifest root .* through a symbolic link$/,
    );
  });
});

describe("manifests linked into a folder", () => {
  // A checkout that shares one file and one folder between environments through symbolic links.
  const layout = () => {
    const dir = workspace({
      "common/templates.yaml": "version: 1\ntemplates:\n  base:\n    description: from the shared template\n",
      "common/teams/teams.yaml": "version: 1\ngroups:\n  teams: {}\n",
      "envs/prod/prod.yaml": "version: 1\ngroups:\n  prod:\n    extends: [base]\n",
    });
    symlinkSync("../../common/templates.yaml", join(dir, "envs/prod/templates.yaml"));
    symlinkSync("../../common/teams", join(dir, "envs/prod/teams"));
    // A link to a folder above it, and a second link to a folder read already: each read once, no loop.
    symlinkSync("..", join(dir, "envs/prod/up"));
    symlinkSync("../../common/teams", join(dir, "envs/prod/again"));
    return dir;
  };

  it("reads a linked file and a linked folder as if they were there, each file once", async () => {
    const dir = layout();
    const { state, lines } = await load(dir, ["envs"]);
    expect(lines).toEqual([]);
    expect(child(state!.root, "groups", "prod").fields.description).toBe("from the shared template");
    expect(state!.root.children["groups"]!.items.map((n) => n.key).sort()).toEqual(["prod", "teams"]);
  });

  it("walks a folder given outside a narrower root as before: only a link from inside the root to outside it is refused", async () => {
    const dir = workspace({
      "narrow/n.yaml": "version: 1\ngroups:\n  narrow: {}\n",
      "other/sub/o.yaml": "version: 1\ngroups:\n  other: {}\n",
    });
    const r = await loadManifests([join(dir, "narrow"), join(dir, "other")], {
      secrets: true,
      env: {},
      root: join(dir, "narrow"),
    });
    expect(r.diagnostics).toEqual([]);
    expect(r.state!.root.children["groups"]!.items.map((n) => n.key).sort()).toEqual(["narrow", "other"]);
  });

  it("refuses a linked file or folder that leads outside the manifest root, and does not walk it", async () => {
    const dir = layout();
    symlinkSync("/", join(dir, "envs/prod/everything"));
    // A link to a device: refused, with no hint to read it.
    symlinkSync("/dev/zero", join(dir, "envs/prod/zero.yaml"));
    const r = await loadManifests([join(dir, "envs/prod")], { secrets: true, env: {} });
    const messages = r.diagnostics.map((d) => `${d.file.slice(dir.length + 1)}: ${d.message}`).sort();
    const outside = (what: string, to: string) =>
      new RegExp(
        `^envs/prod/${what}: the ${what.endsWith(".yaml") ? "file" : "folder"} leads outside the manifest root ` +
          `\\S*envs/prod \\(to \\S*${to}\\) through a symbolic link: forgeform reads manifests only inside it; ` +
          "to read it, give --root a folder that holds it too \\(by default the root is the deepest folder holding every path given\\)$",
      );
    expect(messages).toEqual([
      expect.stringMatching(outside("again", "common/teams")),
      expect.stringMatching(outside("everything", "")),
      // What the refused file held is not there.
      'envs/prod/prod.yaml: unknown template "base"; no templates are defined',
      expect.stringMatching(outside("teams", "common/teams")),
      expect.stringMatching(outside("templates.yaml", "common/templates.yaml")),
      expect.stringMatching(outside("up", "envs")),
      expect.stringMatching(
        /^envs\/prod\/zero\.yaml: the file leads outside .* \(to \/dev\/zero\) .* only inside it$/,
      ),
    ]);
    expect(r.state).toBeUndefined();
  });
});

describe("YAML reading", () => {
  it("reads YAML 1.2: on stays a string, dates stay strings", async () => {
    const dir = workspace({
      "m.yaml": `version: 1
groups:
  acme:
    description: on
    milestones:
      - title: Launch
        due_date: 2026-01-01
`,
    });
    const { state, lines } = await load(dir);
    expect(lines).toEqual([]);
    const acme = child(state!.root, "groups", "acme");
    expect(acme.fields.description).toBe("on");
    expect(child(acme, "milestones", "Launch").fields.due_date).toBe("2026-01-01");
  });

  it("refuses files over 5 MiB without parsing them", async () => {
    const dir = workspace({ "big.yaml": `version: 1\n# ${"x".repeat(5 * 1024 * 1024)}\n` });
    const { lines } = await load(dir, ["big.yaml"]);
    expect(lines).toEqual([
      `big.yaml:1:1: the file has ${5 * 1024 * 1024 + 14} bytes; manifests may have at most 5242880 (5 MiB)`,
    ]);
  });
});

describe("many files make one state", () => {
  it("joins files, concatenates instance lists and reports duplicates naming both places, in file order", async () => {
    const dir = workspace({
      "a.yaml": `version: 1
instance:
  system_hooks:
    - url: https://hooks.example.com/a
groups:
  acme: {}
`,
      "b.yaml": `version: 1
instance:
  system_hooks:
    - url: https://hooks.example.com/a
groups:
  acme:
    description: again
`,
      "ci/pipeline.yml": "stages: [build]\n",
      "notes.yaml": "groups:\n  acme: {}\n",
    });
    const { lines, state } = await load(dir);
    expect(state).toBeUndefined();
    expect(lines).toEqual([
      'b.yaml:4:7: instance.system_hooks[1]: duplicate system_hooks entry "https://hooks.example.com/a" (identity: url); also declared at ' +
        `${join(dir, "a.yaml")}:4:7`,
      `b.yaml:6:3: groups.acme: group "acme" is declared twice; first declared at ${join(dir, "a.yaml")}:6:3`,
    ]);
  });

  it("reads a directory's manifests only: YAML without a top-level version is skipped unless named", async () => {
    const dir = workspace({
      "a.yaml": "version: 1\ngroups:\n  acme: {}\n",
      "ci/pipeline.yml": "stages: [build]\n",
      "fixture.yaml": "groups:\n  - path: acme\n",
    });
    const { state, lines } = await load(dir);
    expect(lines).toEqual([]);
    expect(state!.files).toEqual([join(dir, "a.yaml")]);
    const named = await load(dir, ["fixture.yaml"]);
    expect(named.lines).toEqual([
      'fixture.yaml:1:1: version: missing required key "version"',
      "fixture.yaml:2:3: groups: expected a map, got a list",
    ]);
  });
});

describe("schemas and data", () => {
  it("gives each collection's item schema with its annotations", () => {
    expect(kindSchema("pipeline_schedules")?.["x-identity"]).toBe("description");
    expect(kindSchema("variables")?.["x-identity"]).toBe("key");
    expect(kindSchema("groups")?.title).toBe("Group");
    expect(kindSchema("system_hooks")?.properties).toMatchObject({ token: { writeOnly: true } });
    expect(kindSchema("application_settings")?.["x-singleton"]).toBe(true);
    expect(kindSchema("notification_settings", "instance")?.title).toBe("GlobalNotificationSettings");
    expect(kindSchema("notification_settings", "projects")?.title).toBe("NotificationSettings");
  });

  it("accepts IANA and the platform's friendly time-zone names, and maps every friendly name to a real zone", () => {
    for (const name of [
      "UTC",
      "Europe/Berlin",
      "Pacific Time (US & Canada)",
      "Eastern Time (US & Canada)",
      "London",
      "Berlin",
      "Tokyo",
    ]) {
      expect(isValidTimeZone(name)).toBe(true);
    }
    expect(isValidTimeZone("Berlim")).toBe(false);
    expect(Object.keys(RAILS_TIME_ZONES).length).toBeGreaterThan(140);
    for (const zone of Object.values(RAILS_TIME_ZONES)) {
      expect(() => new Intl.DateTimeFormat("en", { timeZone: zone })).not.toThrow();
    }
  });

  it("keeps Secret masking in JSON", () => {
    expect(JSON.stringify({ a: new Secret("v", "literal") })).toBe('{"a":"(sensitive)"}');
  });
});
