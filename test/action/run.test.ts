/**
 * The Action's commands in-process (src/action/run.ts through in-process.ts, against a sandbox over real HTTP):
 * per command, the step's outcome (process exit code, the exit-code output), the outputs, the step log, the job
 * summary, the report files, annotations at file:line:col, and no token anywhere but the runner's mask. The same
 * story as action.test.ts, which runs the bundle as the runner runs it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { type ActionRun, tokenLeaks } from "./helpers.js";
import { runInProcess, workspaceWith } from "./in-process.js";

const TOKEN = "glpat-inproc-run-9f8e7d6c5b4a";

const MANIFEST = `version: 1
groups:
  acme:
    description: The ACME company
  acme/platform:
    description: Platform team
  acme/web:
    description: Web team
`;

const INVALID = `version: 1
groups:
  acme:
    description: The ACME company
    visibility: secret-ish
`;

const PRUNE = `version: 1
groups:
  acme:
    description: The ACME company, pruned
  acme/platform:
    state: absent
  acme/web:
    state: absent
`;

const ZEROS = { creates: "0", updates: "0", replacements: "0", deletes: "0", unmanaged: "0" };

function expectNoLeak(run: ActionRun): void {
  expect(tokenLeaks(run, TOKEN)).toEqual([]);
  // The mask is the first thing the Action prints.
  expect(run.stdout.split("\n")[0]).toBe(`::add-mask::${TOKEN}`);
}

/** The workflow commands of one kind (`error`, `warning`, `notice`) the run printed, as lines. */
const commands = (run: ActionRun, kind: string) =>
  run.stdout.split("\n").filter((line) => line.startsWith(`::${kind} `) || line.startsWith(`::${kind}::`));

const json = (file: string | undefined) => JSON.parse(readFileSync(file!, "utf8")) as Record<string, unknown>;

describe("the Action in-process", () => {
  let sandbox: RunningSandbox;
  let workspace: string;
  const run = (inputs: Record<string, string>, env: Record<string, string> = {}) =>
    runInProcess({ url: sandbox.url, token: TOKEN, ...inputs }, { workspace, env });
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${sandbox.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": TOKEN } });
    return { status: res.status, body: (await res.json()) as T };
  };

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, adminToken: TOKEN });
    workspace = workspaceWith({ "forgeform.yaml": MANIFEST, "bad.yaml": INVALID, "prune.yaml": PRUNE });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("validate: valid manifests pass with every output, the reports and a job summary", async () => {
    const result = await run({ command: "validate", paths: "forgeform.yaml" });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.outputs).toEqual({
      "exit-code": "0",
      "has-changes": "false",
      ...ZEROS,
      "json-report": expect.stringMatching(/forgeform-validate\.json$/),
      "markdown-report": expect.stringMatching(/forgeform-validate\.md$/),
    });
    expect(readFileSync(result.outputs["markdown-report"]!, "utf8")).toBe(
      "## forgeform validate\n\n**1 manifest file valid**.\n",
    );
    // The job summary gets the report and a line break.
    expect(result.summary).toBe("## forgeform validate\n\n**1 manifest file valid**.\n\n");
    expect(json(result.outputs["json-report"])).toMatchObject({ valid: true, files: ["forgeform.yaml"] });
    // The report files are in a folder of their own under RUNNER_TEMP (the runner's, made by in-process.ts).
    expect(result.outputs["json-report"]!).toMatch(
      new RegExp(`^${tmpdir()}/forgeform-inproc-runner-[^/]+/forgeform-[^/]+/forgeform-validate\\.json$`),
    );
    expect(result.outputs["json-report"]!.startsWith(join(result.outputs["markdown-report"]!, "../.."))).toBe(
      true,
    );
    // The mask, then the verdict: nothing else, no trailing blank line.
    expect(result.stdout).toBe(`::add-mask::${TOKEN}\n1 file valid\n`);
    expect(commands(result, "error")).toEqual([]);
    expectNoLeak(result);
  });

  it("validate: format json prints the validation report", async () => {
    const result = await run({ command: "validate", paths: "forgeform.yaml", format: "JSON" });
    expect(result.status).toBe(0);
    const printed = result.stdout.slice(result.stdout.indexOf("{"));
    expect(JSON.parse(printed)).toEqual(json(result.outputs["json-report"]));
    expect(printed.endsWith("}\n")).toBe(true);
  });

  it("validate: errors become annotations at file, line and column, and the step fails", async () => {
    const result = await run({ command: "validate", paths: "bad.yaml" });
    expect(result.status).toBe(1);
    expect(result.outputs).toMatchObject({ "exit-code": "1", "has-changes": "false", ...ZEROS });
    expect(commands(result, "error")).toEqual([
      expect.stringMatching(
        /^::error title=forgeform validate,file=bad\.yaml,line=5,col=17::groups\.acme\.visibility: .*secret-ish/,
      ),
      "::error::forgeform validate: the manifests have an error (see the annotations); nothing was sent to the platform",
    ]);
    expect(result.summary).toMatch(
      /^## forgeform validate\n\n\*\*The manifests are invalid:\*\* 1 error\. Nothing was sent to the platform\.\n\n### Errors\n\n- `bad\.yaml:5:17` `groups\.acme\.visibility`: /,
    );
    expect(result.outputs["json-report"]).toMatch(/\/forgeform-validate\.json$/);
    expect(json(result.outputs["json-report"])).toMatchObject({
      valid: false,
      files: ["bad.yaml"],
      secretsResolved: true,
    });
    const unresolved = await run({ command: "validate", paths: "bad.yaml", "no-secrets": "true" });
    expect(unresolved.status).toBe(1);
    expect(json(unresolved.outputs["json-report"])).toMatchObject({ valid: false, secretsResolved: false });
    expectNoLeak(result);
  });

  it("validate: errors in two files are counted in the failure", async () => {
    const ws = workspaceWith({ "a.yaml": INVALID, "b.yaml": INVALID });
    const two = await runInProcess({ command: "validate", paths: "a.yaml b.yaml" }, { workspace: ws });
    // The diagnostics in the log, without a blank line before the failure.
    expect(two.stdout).toContain("3 errors: nothing was sent to the platform.\n::error::");
    expect(two.stdout).toContain(
      "::error::forgeform validate: the manifests have 3 errors (see the annotations); nothing was sent to the platform",
    );
    expect(two.summary).toContain(
      "**The manifests are invalid:** 3 errors. Nothing was sent to the platform.",
    );
    // Warnings are not errors: one error and a warning is one error.
    const mixed = workspaceWith({ "m.yaml": `${INVALID}templates:\n  unused:\n    description: x\n` });
    const one = await runInProcess({ command: "validate", paths: "m.yaml" }, { workspace: mixed });
    expect(one.stdout).toContain(
      "::error::forgeform validate: the manifests have an error (see the annotations); nothing was sent to the platform",
    );
    expect(one.summary).toContain("**The manifests are invalid:** 1 error, 1 warning.");
  });

  it("plan: invalid manifests are annotated, the step fails, and nothing is sent", async () => {
    const result = await run({ command: "plan", paths: "bad.yaml" });
    expect(result.status).toBe(1);
    expect(result.outputs).toMatchObject({ "exit-code": "1", "has-changes": "false", ...ZEROS });
    expect(result.stdout).toMatch(/^::error title=forgeform plan,file=bad\.yaml,line=5,col=17::/m);
    expect(result.stdout).toContain(
      "::error::forgeform plan: the manifests have an error (see the annotations); nothing was sent to the platform",
    );
    expect(result.summary).toContain("**The manifests are invalid:** 1 error.");
    expect((await get("/groups/acme")).status).toBe(404);
    expectNoLeak(result);
  });

  it("plan: reports the changes in outputs, log, annotations and job summary, saves the plan, and succeeds", async () => {
    const planFile = join(workspace, "plan.json");
    const result = await run({ command: "plan", paths: "forgeform.yaml", "plan-file": planFile });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.outputs).toEqual({
      "exit-code": "2",
      "has-changes": "true",
      creates: "3",
      updates: "0",
      replacements: "0",
      deletes: "0",
      unmanaged: "0",
      "json-report": expect.stringMatching(/forgeform-plan\.json$/),
      "markdown-report": expect.stringMatching(/forgeform-plan\.md$/),
    });
    expect(result.stdout).toContain(
      "::group::forgeform plan: Plan: 3 to create, 0 to update, 0 to replace, 0 to delete.\n",
    );
    expect(result.stdout).toContain('+ group["acme/platform"] will be created');
    expect(result.stdout).toContain("::endgroup::");
    // The report is folded without trailing blank lines.
    expect(result.stdout).toMatch(/\S\n::endgroup::\n/);
    expect(commands(result, "notice")).toEqual([
      '::notice title=forgeform plan,file=forgeform.yaml,line=3,col=3::group["acme"] will be created',
      '::notice title=forgeform plan,file=forgeform.yaml,line=5,col=3::group["acme/platform"] will be created',
      '::notice title=forgeform plan,file=forgeform.yaml,line=7,col=3::group["acme/web"] will be created',
    ]);
    expect(result.stdout).toContain(`Saved the plan to ${planFile}; apply it with the plan-file input.`);
    expect(result.summary.startsWith("## forgeform plan")).toBe(true);
    expect(result.summary.trimEnd()).toBe(readFileSync(result.outputs["markdown-report"]!, "utf8").trimEnd());
    expect(json(result.outputs["json-report"])).toMatchObject({ summary: { create: 3 } });
    expect(json(planFile)).toMatchObject({ kind: "plan" });
    expect((await get("/groups/acme")).status).toBe(404);
    expectNoLeak(result);
  });

  it("plan: format markdown and json print the plan in that format", async () => {
    const md = await run({ command: "plan", paths: "forgeform.yaml", format: "markdown" });
    expect(md.stdout).toContain("## forgeform plan");
    const js = await run({ command: "plan", paths: "forgeform.yaml", format: "json" });
    expect(js.stdout).toContain('"format_version": 1');
    const text = await run({ command: "plan", paths: "forgeform.yaml" });
    expect(text.stdout).not.toContain('"format_version"');
    expect(text.stdout).not.toContain("## forgeform plan");
    for (const r of [md, js, text]) expect(r.outputs["exit-code"]).toBe("2");
  });

  it("apply: applies a saved plan without confirmation, then plans nothing", async () => {
    const planFile = join(workspace, "plan.json");
    const result = await run({ command: "apply", "plan-file": planFile });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.outputs).toMatchObject({ "exit-code": "0", creates: "3", "has-changes": "true" });
    expect(result.stdout).toContain("::group::forgeform apply: outcomes");
    expect(result.stdout).toContain('[3/3] + group["acme/web"]: done');
    expect(result.stdout).toContain("Apply complete: 3 done, 0 failed, 0 skipped.");
    expect(result.summary).toMatch(
      /^## forgeform apply\n\n\*\*Apply complete:\*\* 3 done, 0 failed, 0 skipped\.\n\nThe plan that was applied:\n\n## forgeform plan/,
    );
    expect(json(result.outputs["json-report"])).toMatchObject({ kind: "apply" });
    expect((json(result.outputs["json-report"]) as { outcomes: unknown[] }).outcomes).toContainEqual({
      address: 'group["acme/web"]',
      action: "create",
      status: "done",
    });
    expect((await get<{ description: string }>("/groups/acme%2Fweb")).body.description).toBe("Web team");
    expectNoLeak(result);

    const again = await run({ command: "plan", paths: "forgeform.yaml" });
    expect(again.status).toBe(0);
    expect(again.outputs).toMatchObject({ "exit-code": "0", "has-changes": "false", ...ZEROS });
    expect(commands(again, "notice")).toEqual([]);
  });

  it("apply: refuses a stale saved plan, and applies nothing", async () => {
    const planFile = join(workspace, "plan.json");
    const result = await run({ command: "apply", "plan-file": planFile });
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toMatch(
      new RegExp(`^::error::forgeform apply: refusing to apply ${planFile}: .+; nothing was applied$`, "m"),
    );
    expect(result.summary).toMatch(/^## forgeform apply\n\n\*\*Nothing was applied:\*\* refusing to apply /);
    expect(json(result.outputs["json-report"])).toMatchObject({ kind: "apply", outcomes: [] });
    expect(result.stdout).not.toContain("::group::forgeform apply: outcomes");
    expectNoLeak(result);
  });

  it("apply: refuses both paths and plan-file", async () => {
    const result = await run({ command: "apply", paths: "forgeform.yaml", "plan-file": "plan.json" });
    expect(result.status).toBe(1);
    expect(result.stdout).toContain(
      "::error::forgeform: give either the paths input or plan-file to apply, not both",
    );
  });

  it("apply: max-deletes stops a plan that deletes more, and nothing is applied", async () => {
    const refused = await run({ command: "apply", paths: "prune.yaml", "max-deletes": "1" });
    expect(refused.status).toBe(1);
    expect(refused.outputs).toMatchObject({ "exit-code": "1", deletes: "2", updates: "1" });
    expect(refused.stdout).toContain(
      "::error::forgeform apply: refusing to apply: the plan deletes or replaces 2 objects, more than max-deletes 1; nothing was applied",
    );
    expect(refused.summary).toMatch(
      /^## forgeform apply\n\n\*\*Nothing was applied:\*\* refusing to apply: the plan deletes or replaces 2 objects, more than max-deletes 1; nothing was applied\.\n\nThe plan:\n\n## forgeform plan/,
    );
    expect((await get("/groups/acme%2Fweb")).status).toBe(200);
    expect((await get<{ description: string }>("/groups/acme")).body.description).toBe("The ACME company");
    expect(json(refused.outputs["json-report"])).toMatchObject({
      format_version: 1,
      kind: "apply",
      outcomes: [],
      summary: { delete: 2 },
    });
    // Equal to the limit is within it: 2 deletes with max-deletes 2 would apply (checked without applying: the
    // stale check of a saved plan is not involved).
    expectNoLeak(refused);
  });

  it("drift: reports drift in outputs, annotations and summary and succeeds; fail-on-drift fails the step", async () => {
    const res = await fetch(`${sandbox.url}/api/v4/groups/acme`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ description: "Changed by hand" }),
    });
    expect(res.status).toBe(200);
    const drift = await run({ command: "drift", paths: "forgeform.yaml", format: "junit" });
    expect(drift.stderr).toBe("");
    expect(drift.status).toBe(0);
    expect(drift.outputs).toEqual({
      "exit-code": "2",
      "has-changes": "true",
      creates: "0",
      updates: "1",
      replacements: "0",
      deletes: "0",
      unmanaged: "0",
      "json-report": expect.stringMatching(/forgeform-drift\.json$/),
      "junit-report": expect.stringMatching(/forgeform-drift\.xml$/),
      "markdown-report": expect.stringMatching(/forgeform-drift\.md$/),
    });
    expect(drift.stdout).toContain(
      "::group::forgeform drift: Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.",
    );
    expect(drift.stdout).toContain('<failure type="drifted"');
    expect(commands(drift, "warning")).toEqual([
      '::warning title=forgeform drift,file=forgeform.yaml,line=3,col=3::group["acme"] drifted (description)',
    ]);
    expect(drift.summary).toContain("## forgeform drift report");
    expect(drift.summary).toContain("Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.");
    expect(readFileSync(drift.outputs["junit-report"]!, "utf8")).toContain(
      '<testcase name="group[&quot;acme/web&quot;]" classname="group[&quot;acme/web&quot;]"/>',
    );
    expect(json(drift.outputs["json-report"])).toMatchObject({ kind: "drift", drift: true });
    expectNoLeak(drift);

    const failing = await run({ command: "drift", paths: "forgeform.yaml", "fail-on-drift": "true" });
    expect(failing.status).toBe(1);
    expect(failing.outputs["exit-code"]).toBe("2");
    expect(failing.stdout).toContain(
      "::error::forgeform drift: drift found (fail-on-drift is true). Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.",
    );
    expectNoLeak(failing);
  });

  it("apply: from manifests, within max-deletes; then nothing to apply and no drift", async () => {
    const result = await run({ command: "apply", paths: "forgeform.yaml", "max-deletes": "0" });
    expect(result.status).toBe(0);
    expect(result.outputs).toMatchObject({ "exit-code": "0", updates: "1", "has-changes": "true" });
    expect(result.stdout).toContain('[1/1] ~ group["acme"]: done');
    expect((await get<{ description: string }>("/groups/acme")).body.description).toBe("The ACME company");
    const nothing = await run({ command: "apply", paths: "forgeform.yaml" });
    expect(nothing.status).toBe(0);
    expect(nothing.outputs).toMatchObject({ "exit-code": "0", "has-changes": "false", ...ZEROS });
    expect(nothing.summary).toMatch(
      /^## forgeform apply\n\n\*\*Nothing to apply:\*\* the platform matches the manifests\.\n\n## forgeform plan/,
    );
    expect(nothing.stdout).not.toContain("::group::forgeform apply: outcomes");
    expect(json(nothing.outputs["json-report"])).toMatchObject({ kind: "apply", outcomes: [] });
    const drift = await run({ command: "drift", paths: "forgeform.yaml", "fail-on-drift": "true" });
    expect(drift.status).toBe(0);
    expect(drift.outputs).toMatchObject({ "exit-code": "0", "has-changes": "false" });
    expect(drift.summary).toContain("**No drift.**");
    expect(commands(drift, "warning")).toEqual([]);
    expectNoLeak(result);
  });

  it("apply: max-deletes equal to what the plan deletes lets it apply", async () => {
    const made = await fetch(`${sandbox.url}/api/v4/groups`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "spare", path: "spare" }),
    });
    expect(made.status).toBe(201);
    const ws = workspaceWith({ "one.yaml": "version: 1\ngroups:\n  spare:\n    state: absent\n" });
    const result = await runInProcess(
      {
        url: sandbox.url,
        token: TOKEN,
        command: "apply",
        paths: "one.yaml",
        "max-deletes": "1",
        "no-backup": "true",
      },
      { workspace: ws },
    );
    expect(result.status, result.stdout).toBe(0);
    expect(result.outputs).toMatchObject({ "exit-code": "0", deletes: "1" });
    expect((await get("/groups/spare")).status).toBe(404);
  });

  it("plan: plan errors become annotations at the declaring line and fail the step", async () => {
    writeFileSync(
      join(workspace, "corp.yaml"),
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/west/team: {}\n",
    );
    expect((await run({ command: "apply", paths: "corp.yaml" })).status).toBe(0);
    writeFileSync(
      join(workspace, "moved.yaml"),
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n",
    );
    const result = await run({
      command: "plan",
      paths: "moved.yaml",
      "plan-file": join(workspace, "moved.json"),
    });
    expect(result.status).toBe(1);
    // A plan with errors is not saved.
    expect(existsSync(join(workspace, "moved.json"))).toBe(false);
    expect(result.stdout).not.toContain("Saved the plan");
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toMatch(
      /^::error title=forgeform plan,file=moved\.yaml,line=6,col=3::group\["corp\/east\/team"\]: .*corp\/west\/team/m,
    );
    expect(result.stdout).toContain(
      "::error::forgeform plan: the plan has an error (see the annotations and the log)",
    );
    expect(result.summary).toContain("## forgeform plan");
    writeFileSync(
      join(workspace, "moved2.yaml"),
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/west/team: {}\n  corp/west/team2: {}\n",
    );
    expect((await run({ command: "apply", paths: "moved2.yaml" })).status).toBe(0);
    writeFileSync(
      join(workspace, "moved2.yaml"),
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n  corp/east/team2: {}\n",
    );
    const twice = await run({ command: "plan", paths: "moved2.yaml" });
    expect(twice.stdout).toContain(
      "::error::forgeform plan: the plan has 2 errors (see the annotations and the log)",
    );
    const drift = await run({ command: "drift", paths: "moved.yaml" });
    expect(drift.status).toBe(1);
    expect(drift.stdout).toContain(
      "::error::forgeform drift: the plan has an error (see the annotations and the log)",
    );
    const apply = await run({ command: "apply", paths: "moved.yaml" });
    expect(apply.status).toBe(1);
    expect(apply.stdout).toContain(
      "::error::forgeform apply: the plan has an error (see the annotations and the log); nothing was applied",
    );
    expect(apply.summary).toMatch(
      /^## forgeform apply\n\n\*\*Nothing was applied:\*\* the plan has an error/,
    );
    expect(json(apply.outputs["json-report"])).toMatchObject({ kind: "apply", outcomes: [] });
    expectNoLeak(result);
  });

  it("fails with exit-code 1 and no token in the log when the platform refuses the token", async () => {
    const wrong = "glpat-wrong-token-0000111122";
    const result = await runInProcess(
      { command: "drift", paths: "forgeform.yaml", url: sandbox.url, token: wrong },
      { workspace },
    );
    expect(result.status).toBe(1);
    expect(result.outputs).toMatchObject({ "exit-code": "1" });
    expect(result.stdout).toMatch(/^::error::forgeform: .*401/m);
    expect(result.stdout.split("\n")[0]).toBe(`::add-mask::${wrong}`);
    expect(tokenLeaks(result, wrong)).toEqual([]);
  });

  it("takes the URL and token from FORGEFORM_URL and FORGEFORM_TOKEN, masking the token", async () => {
    const result = await runInProcess(
      { command: "plan", paths: "forgeform.yaml" },
      { workspace, env: { FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: TOKEN } },
    );
    expect(result.status, result.stdout).toBe(0);
    expect(result.outputs["exit-code"]).toBe("0");
    expectNoLeak(result);
  });

  it("logs one debug line per request when the runner's debug logging is on, without the token", async () => {
    const result = await run({ command: "drift", paths: "forgeform.yaml" }, { RUNNER_DEBUG: "1" });
    expect(result.stdout).toMatch(/^::debug::GET .*\/api\/v4\/groups.* -> 200/m);
    const quiet = await run({ command: "drift", paths: "forgeform.yaml" });
    expect(quiet.stdout).not.toContain("::debug::");
    expectNoLeak(result);
  });

  it("fails on a bad input, naming it and what it accepts, with exit-code 1 and no report", async () => {
    const command = await run({ command: "destroy" });
    expect(command.status).toBe(1);
    expect(command.outputs).toEqual({ "exit-code": "1" });
    expect(command.stdout).toContain(
      '::error::forgeform: input command must be validate, plan, apply or drift, not "destroy"',
    );
    const max = await run({ command: "apply", paths: "forgeform.yaml", "max-deletes": "some" });
    expect(max.status).toBe(1);
    expect(max.stdout).toContain('input max-deletes must be a whole number (0 or more), not "some"');
    expect(max.summary).toBe("");
    expectNoLeak(max);
  });
});

describe("the Action in-process when the platform refuses changes", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, adminToken: TOKEN, faults: "500:1@POST/api/v4/groups" });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("apply: reports failed and skipped changes in the log and job summary, and fails the step", async () => {
    const result = await runInProcess(
      { command: "apply", paths: "forgeform.yaml", url: sandbox.url, token: TOKEN },
      { workspace: workspaceWith({ "forgeform.yaml": MANIFEST }) },
    );
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toContain("Apply incomplete: 0 done, 1 failed, 2 skipped.");
    expect(result.stdout).toMatch(/^\[\d\/3\] \+ group\["acme"\]: failed: .*500/m);
    expect(result.summary).toMatch(
      /^## forgeform apply\n\n\*\*Apply incomplete:\*\* 0 done, 1 failed, 2 skipped\./,
    );
    expect(result.summary).toMatch(/- `\+` `group\["acme"\]`: \*\*failed\*\*: /);
    expect(result.summary).toContain("Fix the cause and run apply again");
    expect(result.summary).toContain("The plan:\n\n## forgeform plan");
    expect(result.stdout).toContain(
      "::error::forgeform apply: of 3 changes, 1 failed and 2 were skipped (see the log); run apply again after fixing the cause",
    );
    expectNoLeak(result);
    const two = await runInProcess(
      { command: "apply", paths: "two.yaml", url: sandbox.url, token: TOKEN },
      { workspace: workspaceWith({ "two.yaml": "version: 1\ngroups:\n  duo: {}\n  duo/one: {}\n" }) },
    );
    expect(two.stdout).toContain(
      "::error::forgeform apply: of 2 changes, 1 failed and 1 was skipped (see the log); run apply again after fixing the cause",
    );
  });
});

describe("the report files", () => {
  it("are written under RUNNER_TEMP, or the system's temporary folder without it", async () => {
    const ws = workspaceWith({ "m.yaml": "version: 1\ngroups:\n  x: {}\n" });
    const result = await runInProcess(
      { command: "validate", paths: "m.yaml" },
      { workspace: ws, env: { RUNNER_TEMP: "" } },
    );
    expect(result.status).toBe(0);
    expect(existsSync(result.outputs["json-report"]!)).toBe(true);
    expect(result.outputs["json-report"]!.startsWith(join(tmpdir(), "forgeform-"))).toBe(true);
  });
});

describe("the Action in-process when the platform's answers are lost", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      faults: "drop-after-commit:1@POST/api/v4/groups",
      seed: 3,
    });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("apply: a create whose answer was lost and that is found on re-reading is done, and says so", async () => {
    const result = await runInProcess(
      { command: "apply", paths: "m.yaml", url: sandbox.url, token: TOKEN },
      { workspace: workspaceWith({ "m.yaml": "version: 1\ngroups:\n  lost: {}\n" }) },
    );
    expect(result.status, result.stdout).toBe(0);
    expect(result.stdout).toContain(
      '[1/1] + group["lost"]: done (its response was lost; found on re-reading)',
    );
    expect(result.stdout).toContain("Apply complete: 1 done, 0 failed, 0 skipped.");
  });
});

describe("annotations of changes", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({
      adminToken: TOKEN,
      fixture: {
        groups: [{ path: "keep", description: "old" }, { path: "gone" }, { path: "badged" }],
        badges: [
          {
            group: "badged",
            name: "b",
            link_url: "https://ci.example/b",
            image_url: "https://ci.example/b.svg",
          },
        ],
      },
    });
  });
  afterAll(async () => {
    await sandbox.stop();
  });
  const BADGE = '{ name: b, link_url: "https://ci.example/b", image_url: "https://ci.example/b.svg" }';
  const manifest = `version: 1\ngroups:\n  keep:\n    description: new\n  gone:\n    state: absent\n  badged:\n    badges:\n      - ${BADGE}\n  fresh: {}\n`;

  it("plan: a notice on each change's line saying what happens, with the fields of updates", async () => {
    const r = await runInProcess(
      {
        command: "plan",
        url: sandbox.url,
        token: TOKEN,
        paths: "m.yaml",
        replace: 'group["badged"].badge["b"]',
      },
      { workspace: workspaceWith({ "m.yaml": manifest }) },
    );
    expect(r.outputs).toMatchObject({ creates: "1", updates: "1", replacements: "1", deletes: "1" });
    expect(commands(r, "notice")).toEqual([
      '::notice title=forgeform plan,file=m.yaml,line=3,col=3::group["keep"] will be updated (description)',
      '::notice title=forgeform plan,file=m.yaml,line=9,col=9::group["badged"].badge["b"] will be replaced',
      '::notice title=forgeform plan,file=m.yaml,line=10,col=3::group["fresh"] will be created',
      expect.stringMatching(
        /^::notice title=forgeform plan,file=m\.yaml,line=5,col=3::group\["gone"\] will be deleted \(name, /,
      ),
    ]);
  });

  it("drift: a warning on each drifted object's line, in drift's words", async () => {
    const r = await runInProcess(
      { command: "drift", url: sandbox.url, token: TOKEN, paths: "m.yaml" },
      { workspace: workspaceWith({ "m.yaml": manifest }) },
    );
    expect(commands(r, "warning")).toEqual([
      '::warning title=forgeform drift,file=m.yaml,line=3,col=3::group["keep"] drifted (description)',
      '::warning title=forgeform drift,file=m.yaml,line=10,col=3::group["fresh"] missing',
      expect.stringMatching(
        /^::warning title=forgeform drift,file=m\.yaml,line=5,col=3::group\["gone"\] would be deleted \(name, /,
      ),
    ]);
  });

  it("at most 50, then how many more", async () => {
    const many = `version: 1\ngroups:\n${Array.from({ length: 52 }, (_, i) => `  g${i}: {}\n`).join("")}`;
    const r = await runInProcess(
      { command: "plan", url: sandbox.url, token: TOKEN, paths: "m.yaml" },
      { workspace: workspaceWith({ "m.yaml": many }) },
    );
    const notices = commands(r, "notice");
    expect(notices).toHaveLength(51);
    expect(notices[49]).toBe(
      '::notice title=forgeform plan,file=m.yaml,line=52,col=3::group["g49"] will be created',
    );
    expect(notices[50]).toBe("::notice::...and 2 more (see the log and the reports)");
    const fifty = `version: 1\ngroups:\n${Array.from({ length: 50 }, (_, i) => `  g${i}: {}\n`).join("")}`;
    const exact = await runInProcess(
      { command: "plan", url: sandbox.url, token: TOKEN, paths: "m.yaml" },
      { workspace: workspaceWith({ "m.yaml": fifty }) },
    );
    expect(commands(exact, "notice")).toHaveLength(50);
  });
});
