/**
 * What each input does to a run, in-process (src/action/run.ts through in-process.ts, against a sandbox over real
 * HTTP): paths and globs, working-directory, targets, replace, shard, changed-since on a pull request, plan-file's
 * folder, connection inputs and their errors in the Action's terms, fail-on-unmanaged, no-secrets, backup-dir and
 * no-backup, the comment input outside a pull request. inputs.test.ts and input-table.test.ts run the bundle.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import type { ActionRun } from "./helpers.js";
import { runInProcess, workspaceWith } from "./in-process.js";

const TOKEN = "glpat-inproc-inputs-1234567890";
const BADGE = { name: "b", link_url: "https://ci.example/b", image_url: "https://ci.example/b.svg" };
/** Changes one group (tbl) and deletes another (gone). */
const MANIFEST = `version: 1\ngroups:\n  tbl:\n    description: Table\n    badges:\n      - ${JSON.stringify(BADGE)}\n  gone:\n    state: absent\n`;
/** Manifests among other YAML a repository holds (a Helm chart, a compose file). */
const MIXED = {
  "m.yaml": MANIFEST,
  "chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 0.1.0\n",
  "docker-compose.yaml": 'version: "3.8"\nservices:\n  web:\n    image: nginx\n',
  "sub/m.yaml": "version: 1\ngroups:\n  elsewhere: {}\n",
};

const files = (r: ActionRun) =>
  (JSON.parse(readFileSync(r.outputs["json-report"]!, "utf8")) as { files: string[] }).files.sort();
const counts = (r: ActionRun) => [
  r.outputs["creates"],
  r.outputs["updates"],
  r.outputs["replacements"],
  r.outputs["deletes"],
];
/** The step failed with this message (as the runner shows it), and exit-code 1. */
function failsWith(r: ActionRun, error: string | RegExp): void {
  expect(r.status, r.stdout).toBe(1);
  expect(r.outputs["exit-code"]).toBe("1");
  if (typeof error === "string") expect(r.stdout).toContain(`::error::${error}`);
  else expect(r.stdout).toMatch(error);
  // Said in terms of inputs: no command-line flag.
  expect(r.stdout).not.toMatch(/(?<![\w-])--[a-z]/);
}

describe("the inputs, in-process", () => {
  let sandbox: RunningSandbox;
  /** A run in a fresh workspace holding MIXED (and `extra`), against a fresh platform state. */
  const run = async (
    inputs: Record<string, string>,
    options: { extra?: Record<string, string>; env?: Record<string, string>; workspace?: string } = {},
  ) => {
    const workspace = options.workspace ?? workspaceWith({ ...MIXED, ...options.extra });
    return runInProcess(
      { url: sandbox.url, token: TOKEN, ...inputs },
      { workspace, ...(options.env ? { env: options.env } : {}) },
    );
  };
  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: {
        users: [{ username: "carol" }],
        groups: [
          { path: "tbl", description: "old" },
          { path: "gone" },
          { path: "gone2" },
          { path: "um", members: [{ user: "carol", access_level: 30 }] },
        ],
        badges: [{ group: "tbl", ...BADGE }],
      },
    });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("paths: a folder's forgeform manifests only; globs expanded; a file named on its own is always read", async () => {
    const all = await run({ command: "validate" });
    expect(all.status, all.stdout).toBe(0);
    expect(files(all)).toEqual(["m.yaml", "sub/m.yaml"]);
    expect(all.summary).toContain("**2 manifest files valid**.");
    const globbed = await run({ command: "validate", paths: "sub/*.yaml" });
    expect(files(globbed)).toEqual(["sub/m.yaml"]);
    const everything = await run({ command: "validate", paths: "**/*.yaml" });
    expect(everything.status, everything.stdout).toBe(0);
    expect(files(everything)).toEqual(["m.yaml", "sub/m.yaml"]);
    const named = await run({ command: "validate", paths: "**/*.yaml chart/Chart.yaml" });
    expect(named.status).toBe(1);
    expect(files(named)).toEqual(["chart/Chart.yaml", "m.yaml", "sub/m.yaml"]);
    expect(named.stdout).toMatch(/^::error title=forgeform validate,file=chart\/Chart\.yaml,line=1,col=1::/m);
    const plan = await run({ command: "plan", paths: "**/*.yaml" });
    expect(plan.status, plan.stdout).toBe(0);
    expect(counts(plan)).toEqual(["1", "1", "0", "1"]);
    // Two globs, one of them matching nothing: the error names that one.
    const none = await run({ command: "validate", paths: "sub/*.yaml nothing/*.yaml" });
    failsWith(none, 'forgeform: the paths input "nothing/*.yaml" matches no file or directory');
    expect(none.summary).toBe("");
  });

  it("paths: a glob that matches a folder reads its manifests", async () => {
    const r = await run({ command: "validate", paths: "su*" });
    expect(r.status, r.stdout).toBe(0);
    expect(files(r)).toEqual(["sub/m.yaml"]);
  });

  it("paths: what is not a regular file inside the workspace is refused with an annotation, not read", async () => {
    const ws = workspaceWith({ "manifests/groups.yaml": "version: 1\ngroups:\n  acme: {}\n" });
    symlinkSync("/dev/zero", join(ws, "manifests/evil.yaml"));
    execFileSync("mkfifo", [join(ws, "manifests/pipe.yaml")]);
    const r = await run(
      { command: "validate", paths: "manifests/*.yaml\nmanifests/pipe.yaml" },
      { workspace: ws },
    );
    failsWith(
      r,
      "forgeform validate: the manifests have 2 errors (see the annotations); nothing was sent to the platform",
    );
    expect(r.stdout).toContain(
      "::error title=forgeform validate,file=manifests/evil.yaml,line=1,col=1::the file leads outside the manifest root manifests (to /dev/zero) through a symbolic link: forgeform reads manifests only inside it",
    );
    expect(r.stdout).toContain(
      "::error title=forgeform validate,file=manifests/pipe.yaml,line=1,col=1::the file is a FIFO (named pipe), not a regular file: manifests are read from regular files only",
    );
  });

  it("paths: a file named that does not exist is the loader's error, not a glob's", async () => {
    const r = await run({ command: "validate", paths: "m.yaml missing.yaml" });
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain("matches no file or directory");
    expect(r.stdout).toMatch(/^::error title=forgeform validate,file=missing\.yaml,line=1,col=1::/m);
  });

  it("paths: a glob's matches are read in name order (the first declaration is the earlier file's)", async () => {
    const ws = workspaceWith({});
    for (const name of ["z", "b", "y", "a", "x"])
      writeFileSync(join(ws, `${name}.yaml`), "version: 1\ngroups:\n  dup: {}\n");
    const r = await run({ command: "validate", paths: "*.yaml" }, { workspace: ws });
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      /^::error title=forgeform validate,file=b\.yaml,line=3,col=3::.*first declared at a\.yaml:3:3$/m,
    );
  });

  it("paths: a glob does not match dot folders", async () => {
    const r = await run(
      { command: "validate", paths: "**/*.yaml" },
      { extra: { ".hidden/x.yaml": "version: 1\ngroups:\n  x: {}\n" } },
    );
    expect(files(r)).toEqual(["m.yaml", "sub/m.yaml"]);
  });

  it("working-directory: paths are read from there; one that is not a folder fails, naming the input", async () => {
    const ws = workspaceWith({ "infra/forgeform/m.yaml": MANIFEST, "infra/note.txt": "not a folder" });
    const r = await run(
      { command: "plan", paths: "forgeform", "working-directory": "infra" },
      { workspace: ws },
    );
    expect(r.status, r.stdout).toBe(0);
    expect(counts(r)).toEqual(["0", "1", "0", "1"]);
    expect(r.stdout).toContain(
      '::notice title=forgeform plan,file=infra/forgeform/m.yaml,line=3,col=3::group["tbl"] will be updated (description)',
    );
    const validate = await run(
      { command: "validate", "working-directory": "infra/forgeform" },
      { workspace: ws },
    );
    expect(files(validate)).toEqual(["m.yaml"]);
    const missing = await run({ command: "validate", "working-directory": "nowhere" }, { workspace: ws });
    failsWith(
      missing,
      `forgeform: the working-directory input nowhere is not a directory (looked for ${join(ws, "nowhere")})`,
    );
    const file = await run({ command: "validate", "working-directory": "infra/note.txt" }, { workspace: ws });
    failsWith(file, /::error::forgeform: the working-directory input infra\/note\.txt is not a directory/);
  });

  it("root: files read beside the paths' folder; one that is not a folder, or with plan-file, fails naming the input", async () => {
    const ws = workspaceWith({
      "envs/prod/m.yaml":
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a manifest's file reference
        "version: 1\ngroups:\n  tbl:\n    variables:\n      - key: T\n        value: ${file:../../common/t.token}\n        masked: true\n",
      "common/t.token": "a-shared-token-0815\n",
    });
    const narrow = await run({ command: "validate", paths: "envs/prod" }, { workspace: ws });
    failsWith(
      narrow,
      /outside the manifest root \S+; keep referenced files inside it, or give the root input a folder that holds both/,
    );
    const validate = await run({ command: "validate", paths: "envs/prod", root: "." }, { workspace: ws });
    expect(validate.status, validate.stdout).toBe(0);
    const plan = await run({ command: "plan", paths: "envs/prod", root: "." }, { workspace: ws });
    expect(plan.status, plan.stdout).toBe(0);
    expect(counts(plan)).toEqual(["1", "0", "0", "0"]);
    expect(plan.stdout).not.toContain("a-shared-token-0815");
    const missing = await run({ command: "plan", paths: "envs/prod", root: "nowhere" }, { workspace: ws });
    failsWith(
      missing,
      `forgeform: the root input "nowhere" is not a folder (looked for ${join(ws, "nowhere")})`,
    );
    const both = await run({ command: "apply", root: ".", "plan-file": "plan.json" }, { workspace: ws });
    failsWith(
      both,
      "forgeform: give either the root input or plan-file to apply, not both (a saved plan names its manifests and root)",
    );
  });

  it("working-directory without GITHUB_WORKSPACE is relative to the current folder", async () => {
    const ws = workspaceWith({ "infra/m.yaml": MANIFEST });
    const r = await runInProcess(
      { command: "validate", "working-directory": "infra" },
      { workspace: ws, env: { GITHUB_WORKSPACE: "" } },
    );
    expect(r.status, r.stdout).toBe(0);
    expect(files(r)).toEqual(["m.yaml"]);
    // Annotations keep the file as the loader names it when there is no workspace to be relative to.
  });

  it("annotations name files relative to the workspace, and files outside it as they are", async () => {
    const outside = workspaceWith({ "o.yaml": "version: 1\ngroups:\n  tbl:\n    visibility: nope\n" });
    const r = await run({ command: "validate", paths: `m.yaml ${join(outside, "o.yaml")}` });
    expect(r.stdout).toContain(
      `::error title=forgeform validate,file=${join(outside, "o.yaml")},line=4,col=17::`,
    );
  });

  it("targets and replace narrow and shape the plan; a wrong one names the input", async () => {
    const targeted = await run({ command: "plan", paths: "m.yaml", targets: "tbl" });
    expect(counts(targeted)).toEqual(["0", "1", "0", "0"]);
    failsWith(
      await run({ command: "plan", paths: "m.yaml", targets: "tb" }),
      /::error::.*"tb" matches nothing the manifests declare/,
    );
    const replaced = await run({ command: "plan", paths: "m.yaml", replace: 'group["tbl"].badge["b"]' });
    expect(counts(replaced)).toEqual(["0", "1", "1", "1"]);
    const wrong = await run({ command: "plan", paths: "m.yaml", replace: 'group["tbl"].badge["c"]' });
    failsWith(wrong, /group\["tbl"\]\.badge\["c"\]: the replace input: no such managed object/);
  });

  it("shard: plans its share; a wrong one names the input; the comment's place names it", async () => {
    const one = await run({ command: "plan", paths: "m.yaml", shard: "1/1" });
    expect(one.status, one.stdout).toBe(0);
    expect(counts(one)).toEqual(["0", "1", "0", "1"]);
    const halves = [
      await run({ command: "plan", paths: "m.yaml", shard: "1/2" }),
      await run({ command: "plan", paths: "m.yaml", shard: "2/2" }),
    ];
    // Every object in exactly one shard.
    expect(
      halves.map((h) => Number(h.outputs["updates"]) + Number(h.outputs["deletes"])).reduce((a, b) => a + b),
    ).toBe(2);
    failsWith(
      await run({ command: "plan", paths: "m.yaml", shard: "3/2" }),
      /::error::.*the shard input.*3\/2/,
    );
  });

  it("plan-file: its folder is made before planning; a folder as the plan file is refused before planning", async () => {
    const ws = workspaceWith(MIXED);
    const r = await run(
      { command: "plan", paths: "m.yaml", "plan-file": join(ws, "out/plans/plan.json") },
      { workspace: ws },
    );
    expect(r.status, r.stdout).toBe(0);
    expect(JSON.parse(readFileSync(join(ws, "out/plans/plan.json"), "utf8")).kind).toBe("plan");
    const dir = await run(
      { command: "plan", paths: "m.yaml", "plan-file": join(ws, "out") },
      { workspace: ws },
    );
    failsWith(
      dir,
      `forgeform: the plan-file input ${join(ws, "out")} is a directory: name a file, e.g. ${join(ws, "out", "plan.json")}`,
    );
    expect(dir.stdout).not.toContain("::group::");
    writeFileSync(join(ws, "blocker"), "a file where the folder would be");
    const blocked = await run(
      { command: "plan", paths: "m.yaml", "plan-file": join(ws, "blocker/plan.json") },
      { workspace: ws },
    );
    failsWith(
      blocked,
      `forgeform: cannot create the folder of the plan-file input ${join(ws, "blocker/plan.json")} (EEXIST): choose a writable path`,
    );
  });

  it("apply: a plan-file made in another folder says to set working-directory to it", async () => {
    const ws = workspaceWith(MIXED);
    const planFile = join(ws, "plan.json");
    const made = await run({ command: "plan", paths: "m.yaml", "plan-file": planFile }, { workspace: ws });
    expect(made.status, made.stdout).toBe(0);
    const elsewhere = await run(
      { command: "apply", "plan-file": planFile, "working-directory": "chart" },
      { workspace: ws },
    );
    failsWith(
      elsewhere,
      `forgeform: the saved plan names its manifests from the folder it was made in, and none of them is here (${join(ws, "chart")}): m.yaml. Set the working-directory input to the folder the plan was made in (or, if they were removed since, run plan again)`,
    );
    expect(elsewhere.stdout).not.toContain("::group::forgeform apply: outcomes");
  });

  it("apply: a plan-file that cannot be read names it", async () => {
    const ws = workspaceWith(MIXED);
    const missing = join(ws, "missing.json");
    failsWith(
      await run({ command: "apply", "plan-file": missing }, { workspace: ws }),
      `forgeform: cannot read the saved plan ${missing}: ENOENT`,
    );
  });

  it("connection inputs are taken, and their errors are worded in terms of inputs", async () => {
    const taken = await run({
      command: "plan",
      paths: "m.yaml",
      timeout: "5000",
      concurrency: "2",
      "max-attempts": "3",
      "max-rate": "6000/min",
      "max-list-mb": "16",
      "max-response-mb": "16",
      "insecure-http": "true",
    });
    expect(taken.status, taken.stdout).toBe(0);
    expect(counts(taken)).toEqual(["0", "1", "0", "1"]);
    const noUrl = await runInProcess(
      { command: "plan", paths: "m.yaml", token: TOKEN },
      { workspace: workspaceWith(MIXED) },
    );
    failsWith(noUrl, /::error::forgeform: .*set the url input \(or FORGEFORM_URL\)/);
    const noToken = await runInProcess(
      { command: "plan", paths: "m.yaml", url: sandbox.url },
      { workspace: workspaceWith(MIXED) },
    );
    failsWith(noToken, /::error::forgeform: .*set the token input/);
    failsWith(
      await run({ command: "plan", paths: "m.yaml", "ca-file": "missing.pem" }),
      /cannot read the CA file missing\.pem \(ENOENT\): check the ca-file input/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", "max-attempts": "many" }),
      /::error::.*the max-attempts input/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", "max-rate": "fast" }),
      /the max-rate input needs requests per minute, second or hour above 0/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", timeout: "soon" }),
      /::error::.*the timeout input/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", concurrency: "0" }),
      /::error::.*the concurrency input/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", "max-list-mb": "lots" }),
      /::error::.*the max-list-mb input/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", "max-response-mb": "0" }),
      /::error::.*the max-response-mb input/,
    );
    failsWith(
      await run({ command: "plan", paths: "m.yaml", url: "gitlab example com" }),
      /::error::.*gitlab example com.*not a valid URL.*the url input/,
    );
  });

  it("no-secrets validates without the secrets' values; without it, the error says to set it", async () => {
    const extra = { "s.yaml": `version: 1\ngroups:\n  inp:\n    description: $\{env:NOT_SET_ANYWHERE}\n` };
    const without = await run({ command: "validate", paths: "s.yaml" }, { extra });
    failsWith(without, /set the no-secrets input/);
    const withIt = await run({ command: "validate", paths: "s.yaml", "no-secrets": "true" }, { extra });
    expect(withIt.status, withIt.stdout).toBe(0);
    expect(withIt.stdout).toContain("1 file valid (secret references not resolved: no-secrets is true)");
    expect(JSON.parse(readFileSync(withIt.outputs["json-report"]!, "utf8")).secretsResolved).toBe(false);
    const json = await run(
      { command: "validate", paths: "s.yaml", "no-secrets": "true", format: "json" },
      { extra },
    );
    expect(json.stdout).toContain('"secretsResolved": false');
    const resolved = await run(
      { command: "validate", paths: "s.yaml", format: "json" },
      { extra, env: { NOT_SET_ANYWHERE: "now set" } },
    );
    expect(resolved.status, resolved.stdout).toBe(0);
    expect(resolved.stdout).toContain('"secretsResolved": true');
    expect(JSON.parse(readFileSync(resolved.outputs["json-report"]!, "utf8")).secretsResolved).toBe(true);
  });

  it("the values of env references are masked before they could be printed", async () => {
    const secret = "s3cr3t-value-of-an-env-reference";
    const extra = { "s.yaml": `version: 1\ngroups:\n  tbl:\n    description: $\{env:DESC_SECRET}\n` };
    const r = await run({ command: "plan", paths: "s.yaml" }, { extra, env: { DESC_SECRET: secret } });
    expect(r.status, r.stdout).toBe(0);
    for (const [name, value] of Object.entries(r.outputs)) expect(value, name).not.toContain(secret);
    expect(r.summary).not.toContain(secret);
    expect(
      r.stdout.split("\n").filter((line) => line.includes(secret) && !line.startsWith("::add-mask::")),
    ).toEqual([]);
  });

  it("warnings: validate passes, says how many, and annotates them as warnings at file:line:col", async () => {
    const extra = { "w.yaml": "version: 1\ntemplates:\n  unused:\n    description: x\ngroups:\n  tbl: {}\n" };
    const r = await run({ command: "validate", paths: "w.yaml" }, { extra });
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toMatch(
      /^::warning title=forgeform validate,file=w\.yaml,line=3,col=3::templates\.unused: template "unused" is not used by any extends$/m,
    );
    expect(r.summary).toMatch(
      /^## forgeform validate\n\n\*\*1 manifest file valid\*\* with 1 warning\.\n\n### Warnings\n\n- `w\.yaml:3:3` `templates\.unused`: /,
    );
  });

  it("fail-on-unmanaged: members added by hand are drift (exit-code 2) only with it", async () => {
    const extra = { "u.yaml": "version: 1\ngroups:\n  um:\n    members: []\n" };
    const quiet = await run({ command: "drift", paths: "u.yaml" }, { extra });
    expect(quiet.status, quiet.stdout).toBe(0);
    expect(quiet.outputs).toMatchObject({ "exit-code": "0", unmanaged: "1" });
    const strict = await run({ command: "drift", paths: "u.yaml", "fail-on-unmanaged": "true" }, { extra });
    expect(strict.status, strict.stdout).toBe(0);
    expect(strict.outputs).toMatchObject({ "exit-code": "2", unmanaged: "1" });
    expect(JSON.parse(readFileSync(strict.outputs["json-report"]!, "utf8"))).toMatchObject({ drift: true });
    expect(JSON.parse(readFileSync(quiet.outputs["json-report"]!, "utf8"))).toMatchObject({ drift: false });
    // Unmanaged objects are not annotated on a manifest line (no line declares them).
    expect(strict.stdout).not.toContain("::warning title=");
    const failing = await run(
      { command: "drift", paths: "u.yaml", "fail-on-unmanaged": "true", "fail-on-drift": "true" },
      { extra },
    );
    expect(failing.status).toBe(1);
  });

  it("backup-dir and no-backup: where a deleted group's backup goes, or none", async () => {
    const ws = workspaceWith(MIXED);
    const saved = join(ws, "saved");
    const r = await runInProcess(
      {
        url: sandbox.url,
        token: TOKEN,
        command: "apply",
        paths: "m.yaml",
        targets: "gone",
        "backup-dir": saved,
      },
      { workspace: ws },
    );
    expect(r.status, r.stdout).toBe(0);
    expect(existsSync(join(saved, "group-gone.tar.gz"))).toBe(true);
  });

  it("no-backup: a deleted group's backup is not saved, wherever backup-dir says", async () => {
    const ws = workspaceWith({ "d.yaml": "version: 1\ngroups:\n  gone2:\n    state: absent\n" });
    const saved = join(ws, "saved");
    const r = await run(
      { command: "apply", paths: "d.yaml", "backup-dir": saved, "no-backup": "true" },
      { workspace: ws },
    );
    expect(r.status, r.stdout).toBe(0);
    expect(r.outputs["deletes"]).toBe("1");
    expect(existsSync(saved)).toBe(false);
  });

  it("max-deletes counts replacements as deletes", async () => {
    const r = await run({
      command: "apply",
      paths: "m.yaml",
      targets: "tbl",
      replace: 'group["tbl"].badge["b"]',
      "max-deletes": "0",
    });
    failsWith(
      r,
      "forgeform apply: refusing to apply: the plan deletes or replaces 1 object, more than max-deletes 0; nothing was applied",
    );
    expect(r.outputs).toMatchObject({ replacements: "1", deletes: "0" });
  });

  it("changed-since: on a pull request, plans only what changed since its base; false plans everything", async () => {
    const ws = workspaceWith({ "m.yaml": "version: 1\ngroups:\n  tbl:\n    description: Table\n" });
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.email=a@b.c", "-c", "user.name=a", ...args], {
        cwd: ws,
        encoding: "utf8",
      }).trim();
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "base");
    const base = git("rev-parse", "HEAD");
    writeFileSync(join(ws, "m.yaml"), "version: 1\ngroups:\n  tbl:\n    description: Table\n  tbl/add: {}\n");
    mkdirSync(join(ws, "..", `ev-${base.slice(0, 8)}`), { recursive: true });
    const event = join(ws, "..", `ev-${base.slice(0, 8)}`, "event.json");
    writeFileSync(event, JSON.stringify({ pull_request: { base: { sha: base } } }));
    for (const name of ["pull_request", "pull_request_target"]) {
      const env = { GITHUB_EVENT_NAME: name, GITHUB_EVENT_PATH: event };
      const pr = await run({ command: "plan", paths: "m.yaml" }, { workspace: ws, env });
      expect(pr.status, pr.stdout).toBe(0);
      expect(pr.stdout).toContain(`Planning only what the pull request changed since its base ${base}.`);
      expect(counts(pr)).toEqual(["1", "0", "0", "0"]);
    }
    const env = { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: event };
    for (const off of ["false", "off"]) {
      const full = await run(
        { command: "plan", paths: "m.yaml", "changed-since": off },
        { workspace: ws, env },
      );
      expect(full.stdout).not.toContain("Planning only");
      expect(counts(full)).toEqual(["1", "1", "0", "0"]);
    }
    // A revision given: no pull request needed; a revision the checkout lacks fails, naming the input.
    const given = await run({ command: "plan", paths: "m.yaml", "changed-since": base }, { workspace: ws });
    expect(given.status, given.stdout).toBe(0);
    expect(given.stdout).not.toContain("Planning only");
    expect(counts(given)).toEqual(["1", "0", "0", "0"]);
    failsWith(
      await run({ command: "plan", paths: "m.yaml", "changed-since": "no-such-revision" }, { workspace: ws }),
      /::error::.*the changed-since input.*no-such-revision/,
    );
    // Not a pull request, no payload, a payload without a base: everything.
    for (const other of <Record<string, string>[]>[
      { GITHUB_EVENT_NAME: "push", GITHUB_EVENT_PATH: event },
      { GITHUB_EVENT_NAME: "pull_request" },
      { GITHUB_EVENT_NAME: "pull_request", GITHUB_EVENT_PATH: join(ws, "no-such-event.json") },
    ]) {
      const full = await run({ command: "plan", paths: "m.yaml" }, { workspace: ws, env: other });
      expect(full.stdout).not.toContain("Planning only");
      expect(counts(full)).toEqual(["1", "1", "0", "0"]);
    }
    for (const sha of ["not-a-sha", "abc12", 42, 1234567, "x-abcdef1", "abcdef1-x"]) {
      writeFileSync(event, JSON.stringify({ pull_request: { base: { sha } } }));
      const full = await run({ command: "plan", paths: "m.yaml" }, { workspace: ws, env });
      expect(full.stdout).not.toContain("Planning only");
      expect(counts(full)).toEqual(["1", "1", "0", "0"]);
    }
    // A pull_request event whose payload has no pull request, or no base: everything.
    for (const body of [{}, { pull_request: {} }]) {
      writeFileSync(event, JSON.stringify(body));
      const full = await run({ command: "plan", paths: "m.yaml" }, { workspace: ws, env });
      expect(full.status, full.stdout).toBe(0);
      expect(counts(full)).toEqual(["1", "1", "0", "0"]);
    }
    // A base the checkout lacks: a full plan with a warning, not a failure.
    writeFileSync(
      event,
      JSON.stringify({ pull_request: { base: { sha: "0123456789abcdef0123456789abcdef01234567" } } }),
    );
    const shallow = await run({ command: "plan", paths: "m.yaml" }, { workspace: ws, env });
    expect(shallow.status, shallow.stdout).toBe(0);
    expect(shallow.stdout).toContain("planning everything");
    expect(counts(shallow)).toEqual(["1", "1", "0", "0"]);
  });

  it("comment: outside a pull request, the log says why no comment was posted", async () => {
    const r = await run({
      command: "plan",
      paths: "m.yaml",
      comment: "on-change",
      "github-token": "ghs_inproc0123",
    });
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toContain(
      "comment is on-change, but this run is for no event, not a pull request: no comment was posted (comments go on pull_request and pull_request_target events).",
    );
    expect(r.stdout.split("\n").slice(0, 2)).toEqual([`::add-mask::${TOKEN}`, "::add-mask::ghs_inproc0123"]);
    const push = await run(
      { command: "plan", paths: "m.yaml", comment: "always", "github-token": "ghs_inproc0123" },
      { env: { GITHUB_EVENT_NAME: "push" } },
    );
    expect(push.stdout).toContain("comment is always, but this run is for a push event, not a pull request");
  });

  it("without GITHUB_STEP_SUMMARY, the report is still written and the log says there is no job summary", async () => {
    const r = await run({ command: "validate", paths: "m.yaml" }, { env: { GITHUB_STEP_SUMMARY: "" } });
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toContain(
      "GITHUB_STEP_SUMMARY is not set: the Markdown report is not added to a job summary.",
    );
    expect(r.summary).toBe("");
    expect(readFileSync(r.outputs["markdown-report"]!, "utf8")).toContain("## forgeform validate");
  });
});
