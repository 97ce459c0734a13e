/**
 * The Action with the CLI's powers, run as the runner runs it (the bundle, INPUT_* variables, output and summary
 * files): validation without secrets, errors worded in terms of inputs, connection inputs, a working directory,
 * manifests recognised among other YAML, globs, folded logs, annotations on manifest lines, the plan-file folder,
 * pull-request plans of what changed, proxies.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { type ConnectProxy, startConnectProxy } from "../connect-proxy.js";
import { nodes, runAction } from "./helpers.js";

const TOKEN = "glpat-action-inputs-1234567890";
const MANIFEST = `version: 1
groups:
  inp:
    description: Inputs
`;
/** Manifests among other YAML a repository holds (a Helm chart, a compose file). */
const MIXED = {
  "m.yaml": MANIFEST,
  "chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
  "docker-compose.yaml": 'version: "3.8"\nservices:\n  web:\n    image: nginx\n',
  "more/extra.yaml": "version: 1\ngroups:\n  inp2: {}\n",
};
const [[, node]] = nodes() as [[string, string]];

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "forgeform-action-inputs-"));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

describe("the Action's inputs", () => {
  let sandbox: RunningSandbox;
  const run = (inputs: Record<string, string>, ws: string, env: Record<string, string> = {}) =>
    runAction(node, { url: sandbox.url, token: TOKEN, ...inputs }, { workspace: ws, env });
  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: { groups: [{ path: "inp", description: "old" }] },
    });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("no-secrets validates without the secrets' values; without it, the error names the input, not a flag", async () => {
    const ws = workspace({
      "m.yaml": `version: 1\ngroups:\n  inp:\n    description: $\{env:NOT_SET_ANYWHERE}\n`,
    });
    const without = await run({ command: "validate", paths: "m.yaml" }, ws);
    expect(without.status).toBe(1);
    expect(without.stdout).toContain("set the no-secrets input");
    expect(without.stdout).not.toMatch(/--no-secrets/);
    const withIt = await run({ command: "validate", paths: "m.yaml", "no-secrets": "true" }, ws);
    expect(withIt.status, withIt.stdout).toBe(0);
    expect(withIt.stdout).toContain("1 file valid (secret references not resolved: no-secrets is true)");
    expect(withIt.stdout).not.toMatch(/--[a-z]/);
    expect(JSON.parse(readFileSync(withIt.outputs["json-report"]!, "utf8")).secretsResolved).toBe(false);
  });

  it("words connection errors in terms of inputs", async () => {
    const ws = workspace({ "m.yaml": MANIFEST });
    const noUrl = await runAction(
      node,
      { command: "plan", paths: "m.yaml", token: TOKEN },
      { workspace: ws },
    );
    expect(noUrl.status).toBe(1);
    expect(noUrl.stdout).toContain("the url input (or FORGEFORM_URL)");
    const badCa = await run({ command: "plan", paths: "m.yaml", "ca-file": "missing.pem" }, ws);
    expect(badCa.stdout).toContain("the ca-file input");
    const badAttempts = await run({ command: "plan", paths: "m.yaml", "max-attempts": "many" }, ws);
    expect(badAttempts.status).toBe(1);
    expect(badAttempts.stdout).toContain("the max-attempts input");
    const badRate = await run({ command: "plan", paths: "m.yaml", "max-rate": "fast" }, ws);
    expect(badRate.status).toBe(1);
    expect(badRate.stdout).toContain("the max-rate input needs requests per minute, second or hour above 0");
    for (const r of [noUrl, badCa, badAttempts, badRate]) expect(r.stdout).not.toMatch(/::error::.*--[a-z]/);
  });

  it("takes max-response-mb, and a response over the limit names that input", async () => {
    // A platform whose every answer is 2 MiB.
    const big = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ version: "x".repeat(2 * 1024 * 1024) }));
    });
    await new Promise<void>((r) => big.listen(0, "127.0.0.1", r));
    try {
      const url = `http://127.0.0.1:${(big.address() as AddressInfo).port}`;
      const r = await runAction(
        node,
        { command: "plan", paths: "m.yaml", url, token: TOKEN, "max-response-mb": "1" },
        { workspace: workspace({ "m.yaml": MANIFEST }) },
      );
      expect(r.status).toBe(1);
      expect(r.stdout).toMatch(/::error::.*larger than the 1 MiB limit/);
      expect(r.stdout).toContain("raise the limit with the max-response-mb input");
      expect(r.stdout).not.toMatch(/--[a-z]/);
    } finally {
      big.closeAllConnections();
      await new Promise((r) => big.close(r));
    }
  });

  it("takes timeout, concurrency, max-attempts and max-rate, and a working directory", async () => {
    const ws = workspace({ "infra/forgeform/m.yaml": MANIFEST });
    const r = await run(
      {
        command: "plan",
        paths: "forgeform",
        "working-directory": "infra",
        timeout: "5000",
        concurrency: "2",
        "max-attempts": "3",
        "max-rate": "6000/min",
      },
      ws,
    );
    expect(r.status, r.stdout).toBe(0);
    expect(r.outputs["updates"]).toBe("1");
  });

  it("reads only forgeform manifests from a folder, and expands globs", async () => {
    const ws = workspace(MIXED);
    const all = await run({ command: "validate" }, ws);
    expect(all.status, all.stdout).toBe(0);
    expect(JSON.parse(readFileSync(all.outputs["json-report"]!, "utf8")).files.sort()).toEqual([
      "m.yaml",
      "more/extra.yaml",
    ]);
    const globbed = await run({ command: "validate", paths: "more/*.yaml" }, ws);
    expect(JSON.parse(readFileSync(globbed.outputs["json-report"]!, "utf8")).files).toEqual([
      "more/extra.yaml",
    ]);
    const none = await run({ command: "validate", paths: "nothing/*.yaml" }, ws);
    expect(none.status).toBe(1);
    expect(none.stdout).toContain('the paths input "nothing/*.yaml" matches no file or directory');
  });

  it("reads only forgeform manifests among a glob's matches, and any file named on its own", async () => {
    const ws = workspace(MIXED);
    const files = (r: { outputs: Record<string, string> }) =>
      (JSON.parse(readFileSync(r.outputs["json-report"]!, "utf8")) as { files: string[] }).files.sort();
    const globbed = await run({ command: "validate", paths: "**/*.yaml" }, ws);
    expect(globbed.status, globbed.stdout).toBe(0);
    expect(files(globbed)).toEqual(["m.yaml", "more/extra.yaml"]);
    const plan = await run({ command: "plan", paths: "**/*.yaml" }, ws);
    expect(plan.status, plan.stdout).toBe(0);
    expect(plan.outputs["creates"]).toBe("1");
    expect(plan.outputs["updates"]).toBe("1");
    // Named on its own, a file is read whatever it holds: a Chart.yaml is then an error.
    const named = await run({ command: "validate", paths: "**/*.yaml chart/Chart.yaml" }, ws);
    expect(named.status).toBe(1);
    // The report lists every file read, those without errors too.
    expect(files(named)).toEqual(["chart/Chart.yaml", "m.yaml", "more/extra.yaml"]);
    expect(named.stdout).toMatch(/::error [^\n]*file=chart\/Chart\.yaml/);
  });

  it("folds the report in the log and annotates changes on the manifest lines", async () => {
    const ws = workspace({ "m.yaml": MANIFEST });
    const plan = await run({ command: "plan", paths: "m.yaml" }, ws);
    expect(plan.stdout).toMatch(/::group::forgeform plan: Plan: 0 to create, 1 to update/);
    expect(plan.stdout).toContain("::endgroup::");
    expect(plan.stdout).toMatch(
      /::notice title=forgeform plan,file=m\.yaml,line=3,col=3::group\["inp"\] will be updated \(description\)/,
    );
    const drift = await run({ command: "drift", paths: "m.yaml" }, ws);
    expect(drift.stdout).toMatch(
      /::warning title=forgeform drift,file=m\.yaml,line=3,col=3::group\["inp"\] drifted \(description\)/,
    );
  });

  it("creates the plan-file's folder before planning, and refuses a folder as the plan file before planning", async () => {
    const ws = workspace({ "m.yaml": MANIFEST });
    const r = await run({ command: "plan", paths: "m.yaml", "plan-file": "out/plans/plan.json" }, ws);
    expect(r.status, r.stdout).toBe(0);
    expect(JSON.parse(readFileSync(join(ws, "out/plans/plan.json"), "utf8")).kind).toBe("plan");
    const dir = await run({ command: "plan", paths: "m.yaml", "plan-file": "out" }, ws);
    expect(dir.status).toBe(1);
    expect(dir.stdout).toContain("the plan-file input out is a directory");
    expect(dir.stdout).not.toContain("::group::");
  });

  it("on a pull request, plans only what changed since its base", async () => {
    const ws = workspace({ "m.yaml": MANIFEST });
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=a@b.c", "-c", "user.name=a", ...args], {
        cwd: ws,
        encoding: "utf8",
      }).trim();
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    const base = git("rev-parse", "HEAD");
    writeFileSync(join(ws, "m.yaml"), `${MANIFEST}  inp/added: {}\n`);
    const event = join(ws, "event.json");
    writeFileSync(event, JSON.stringify({ pull_request: { base: { sha: base } } }));
    const env = { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: event };
    const pr = await run({ command: "plan", paths: "m.yaml" }, ws, env);
    expect(pr.status, pr.stdout).toBe(0);
    expect(pr.stdout).toContain(`Planning only what the pull request changed since its base ${base}.`);
    // The unchanged group's drift is not read; the new subgroup is.
    expect(pr.outputs["creates"]).toBe("1");
    expect(pr.outputs["updates"]).toBe("0");
    const full = await run({ command: "plan", paths: "m.yaml", "changed-since": "false" }, ws, env);
    expect(full.outputs["updates"]).toBe("1");
    // A base the checkout lacks: a full plan with a warning, not a failure.
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { base: { sha: "0123456789abcdef0123456789abcdef01234567" } } }),
    );
    const shallow = await run({ command: "plan", paths: "m.yaml" }, ws, env);
    expect(shallow.status, shallow.stdout).toBe(0);
    expect(shallow.stdout).toContain("planning everything");
    expect(shallow.outputs["updates"]).toBe("1");
  });

  describe("behind a proxy", () => {
    let proxy: ConnectProxy;
    beforeAll(async () => {
      proxy = await startConnectProxy();
    });
    afterAll(async () => {
      await proxy.stop();
    });

    it("honours HTTPS_PROXY / HTTP_PROXY", async () => {
      const ws = workspace({ "m.yaml": MANIFEST });
      const r = await run({ command: "plan", paths: "m.yaml" }, ws, { HTTP_PROXY: proxy.url });
      expect(r.status, r.stdout).toBe(0);
      expect(proxy.tunnels).toContain(new URL(sandbox.url).host);
    });
  });
});
