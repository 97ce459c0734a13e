import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { main } from "../../src/cli/index.js";
import { formatDiagnostic, loadManifests } from "../../src/manifest/index.js";
import { isSecret } from "../../src/manifest/secret.js";

const run = promisify(execFile);

// The sandbox fixture in examples/ belongs to the demo and is checked by its own tests.
const EXAMPLES = readdirSync("examples")
  .filter((f) => /\.ya?ml$/.test(f) && f !== "sandbox-fixture.yaml")
  .sort()
  .map((f) => `examples/${f}`);
const ENV = {
  ASSET_PROXY_SECRET: "proxy-secret",
  AUDIT_HOOK_TOKEN: "hook-token",
  API_DEPLOY_TOKEN: "deploy-token",
  API_SIGNING_KEY: "signing-key",
  CHAT_HOOK_KEY: "chat-hook-key",
  CHAT_HOOK_TOKEN: "chat-hook-token",
  DEPLOY_HOOK_TOKEN: "deploy-hook-token",
  RENOVATE_TOKEN: "renovate-token",
  TOOLKIT_NPM_TOKEN: "npm-token",
};

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) }, out, err };
}

describe("examples", () => {
  it("cover every collection the schemas define", async () => {
    const { state } = await loadManifests(EXAMPLES, { secrets: true, env: ENV });
    const seen = new Set<string>();
    const walk = (n: { collection: string; children: Record<string, { items: never[] }> }) => {
      seen.add(n.collection);
      for (const [name, c] of Object.entries(n.children)) {
        // Collections of one name under several owners (variables) are told apart by their owner.
        if (c.items.length > 0) seen.add(`${n.collection}.${name}`);
        for (const i of c.items) walk(i);
      }
    };
    walk(state!.root as never);
    for (const kind of [
      "application_settings",
      "system_hooks",
      "broadcast_messages",
      "notification_settings",
      "groups",
      "projects",
      "badges",
      "milestones",
      "scim_users",
      "epics",
      "issues",
      "pipeline_schedules",
      "variables",
      "protected_environments",
      "deploy_keys",
      "triggers",
      "wiki_pages",
      "error_tracking",
      "labels",
      "hooks",
      "deploy_tokens",
      "instance.variables",
      "groups.variables",
      "projects.variables",
      "pipeline_schedules.variables",
      "members",
      "shared_with_groups",
      "protected_branches",
      "protected_tags",
    ]) {
      expect(seen, kind).toContain(kind);
    }
  });

  it("validate with secrets resolved, without errors or warnings", async () => {
    const result = await loadManifests(EXAMPLES, { secrets: true, env: ENV });
    expect(result.diagnostics.map(formatDiagnostic)).toEqual([]);
    const api = result.state!.root.children.projects!.items.find((p) => p.key === "acme/platform/api")!;
    const key = api.children.deploy_keys!.items[0]!.fields.key;
    expect(isSecret(key)).toBe(true);
  });

  it("validate with --no-secrets and no environment", async () => {
    const { io, out } = capture();
    const code = await main(["node", "forgeform", "validate", "--no-secrets", ...EXAMPLES], io);
    expect(out.join("")).toBe(
      `${EXAMPLES.length} files valid (secret references not resolved: --no-secrets)\n`,
    );
    expect(code).toBe(0);
  });
});

describe("forgeform validate", () => {
  it("checks a whole directory, skipping YAML that is not a manifest", async () => {
    const { io, out } = capture();
    const code = await main(["node", "forgeform", "validate", "--no-secrets", "examples"], io);
    expect(out.join("")).toBe(
      `${EXAMPLES.length} files valid (secret references not resolved: --no-secrets)\n`,
    );
    expect(code).toBe(0);
  });

  it("prints file:line:col diagnostics and exits 1 on errors", async () => {
    const { io, out } = capture();
    const code = await main(
      ["node", "forgeform", "validate", "test/fixtures/bad-manifests/04-unknown-group-key.yaml"],
      io,
    );
    expect(code).toBe(1);
    expect(out.join("")).toBe(
      'test/fixtures/bad-manifests/04-unknown-group-key.yaml:4:5: groups.acme.visibilty: unknown key "visibilty"; did you mean "visibility"?\n' +
        "1 error: the manifests are invalid\n",
    );
  });

  it("exits 0 with warnings printed", async () => {
    const { io, out } = capture();
    const code = await main(
      ["node", "forgeform", "validate", "test/fixtures/bad-manifests/53-notification-events-not-custom.yaml"],
      io,
    );
    expect(code).toBe(0);
    expect(out.join("")).toContain("warning: event switches apply only when level is custom");
    expect(out.join("")).toContain("1 file valid with 1 warning\n");
  });

  it("names unset variables unless --no-secrets", async () => {
    const { io, out } = capture();
    const code = await main(
      ["node", "forgeform", "validate", "test/fixtures/bad-manifests/44-missing-env.yaml"],
      io,
    );
    expect(code).toBe(1);
    expect(out.join("")).toContain("environment variable FORGEFORM_TEST_UNSET_HOOK_TOKEN is not set");
    const second = capture();
    const ok = await main(
      ["node", "forgeform", "validate", "--no-secrets", "test/fixtures/bad-manifests/44-missing-env.yaml"],
      second.io,
    );
    expect(ok).toBe(0);
  });

  it("takes --root to widen where referenced files may live", async () => {
    const file = "test/fixtures/bad-manifests/45-file-outside-root.yaml";
    const { io, out } = capture();
    expect(await main(["node", "forgeform", "validate", "--root", ".", file], io)).toBe(1);
    expect(out.join("")).toBe(
      `${file}:5:14: instance.system_hooks[0].token: \${file:../../secret.txt}: file "../../secret.txt" does not exist (looked for test/secret.txt)\n` +
        "1 error: the manifests are invalid\n",
    );
  });

  it("emits JSON with --format json", async () => {
    const { io, out } = capture();
    const code = await main(
      [
        "node",
        "forgeform",
        "validate",
        "--format",
        "json",
        "test/fixtures/bad-manifests/02-wrong-version.yaml",
      ],
      io,
    );
    expect(code).toBe(1);
    const doc = JSON.parse(out.join(""));
    expect(doc).toMatchObject({ valid: false, errors: 1, warnings: 0, secretsResolved: true });
    expect(doc.diagnostics).toEqual([
      {
        severity: "error",
        file: "test/fixtures/bad-manifests/02-wrong-version.yaml",
        line: 1,
        col: 10,
        path: "version",
        message: "must be 1, not 2",
      },
    ]);
  });

  it("rejects an unknown --format", async () => {
    const { io, err } = capture();
    const code = await main(["node", "forgeform", "validate", "--format", "xml", "examples"], io);
    expect(code).toBe(1);
    expect(err.join("")).toContain("Allowed choices are text, json");
  });
});

describe("generated types", () => {
  it("src/manifest/types.gen.ts is what the schemas generate", async () => {
    await expect(run(process.execPath, ["scripts/gen-types.mjs", "--check"])).resolves.toBeDefined();
  });
});
