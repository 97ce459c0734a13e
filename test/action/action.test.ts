import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningSandbox, startSandbox } from "../../src/sandbox/server.js";
import { type ActionRun, inputVariable, nodes, parseOutputs, runAction, tokenLeaks } from "./helpers.js";

const TOKEN = "glpat-action-test-9f8e7d6c5b4a";

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

function expectNoLeak(run: ActionRun): void {
  expect(tokenLeaks(run, TOKEN)).toEqual([]);
  // The mask is the first thing the Action prints.
  expect(run.stdout.split("\n")[0]).toBe(`::add-mask::${TOKEN}`);
}

describe("the runner's input naming", () => {
  it("uppercases, turns spaces into underscores and keeps dashes", () => {
    expect(inputVariable("max-deletes")).toBe("INPUT_MAX-DELETES");
    expect(inputVariable("fail-on-drift")).toBe("INPUT_FAIL-ON-DRIFT");
    expect(inputVariable("plan file")).toBe("INPUT_PLAN_FILE");
  });

  it("output files are parsed in both forms the runner accepts", () => {
    expect(parseOutputs("a<<EOF\nx\ny\nEOF\nb=2\n")).toEqual({ a: "x\ny", b: "2" });
  });
});

describe.each(nodes())("the bundled Action on %s", (name, node) => {
  it("runs on the Node version it is named after", async () => {
    const { execFileSync } = await import("node:child_process");
    expect(name).toBe(`node ${execFileSync(node, ["--version"], { encoding: "utf8" }).trim()}`);
    expect(name).toMatch(/^node v(20|24)\./);
  });

  let sandbox: RunningSandbox;
  const run = (inputs: Record<string, string>, options: Parameters<typeof runAction>[2] = {}) =>
    runAction(node, { url: sandbox.url, token: TOKEN, ...inputs }, options);
  const get = async <T>(path: string): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${sandbox.url}/api/v4${path}`, { headers: { "PRIVATE-TOKEN": TOKEN } });
    return { status: res.status, body: (await res.json()) as T };
  };
  let workspace: string;

  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, adminToken: TOKEN });
    const first = await runAction(node, { command: "validate", paths: "." });
    workspace = first.workspace;
    writeFileSync(join(workspace, "forgeform.yaml"), MANIFEST);
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("validate: valid manifests pass with a summary and exit-code 0", async () => {
    const result = await run({ command: "validate", paths: "forgeform.yaml" }, { workspace });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.outputs["exit-code"]).toBe("0");
    expect(result.outputs["has-changes"]).toBe("false");
    expect(result.summary).toContain("## forgeform validate");
    expect(result.summary).toContain("**1 manifest file valid**");
    const json = JSON.parse(readFileSync(result.outputs["json-report"]!, "utf8")) as { valid: boolean };
    expect(json.valid).toBe(true);
    expect(result.outputs["json-report"]!.startsWith(join(result.outputs["markdown-report"]!, "../.."))).toBe(
      true,
    );
    expectNoLeak(result);
  });

  it("validate: errors become annotations at file, line and column, and the step fails", async () => {
    writeFileSync(join(workspace, "bad.yaml"), INVALID);
    const result = await run({ command: "validate", paths: "bad.yaml" }, { workspace });
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toMatch(
      /^::error title=forgeform validate,file=bad\.yaml,line=5,col=\d+::groups\.acme\.visibility: .*secret-ish/m,
    );
    expect(result.stdout).toMatch(/^::error::forgeform validate: the manifests have an error/m);
    expect(result.summary).toContain("**The manifests are invalid:** 1 error.");
    expect(result.summary).toMatch(/`bad\.yaml:5:\d+` `groups\.acme\.visibility`/);
    expectNoLeak(result);
  });

  it("plan: invalid manifests are annotated and nothing is sent", async () => {
    const result = await run({ command: "plan", paths: "bad.yaml" }, { workspace });
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toMatch(/^::error title=forgeform plan,file=bad\.yaml,line=5,/m);
    expect((await get("/groups/acme")).status).toBe(404);
    expectNoLeak(result);
  });

  it("plan: reports the changes in outputs, log and job summary, saves the plan, and succeeds", async () => {
    const result = await run(
      { command: "plan", paths: "forgeform.yaml", "plan-file": "plan.json" },
      { workspace },
    );
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.outputs).toMatchObject({
      "exit-code": "2",
      "has-changes": "true",
      creates: "3",
      updates: "0",
      replacements: "0",
      deletes: "0",
    });
    expect(result.stdout).toContain('+ group["acme/platform"] will be created');
    expect(result.stdout).toContain("Plan: 3 to create, 0 to update, 0 to replace, 0 to delete.");
    expect(result.summary).toContain("## forgeform plan");
    expect(result.summary.trimEnd()).toBe(readFileSync(result.outputs["markdown-report"]!, "utf8").trimEnd());
    const json = JSON.parse(readFileSync(result.outputs["json-report"]!, "utf8")) as {
      summary: { create: number };
    };
    expect(json.summary.create).toBe(3);
    expect(existsSync(join(workspace, "plan.json"))).toBe(true);
    expect((await get("/groups/acme")).status).toBe(404);
    expectNoLeak(result);
  });

  it("apply: applies a saved plan without confirmation, then plans nothing", async () => {
    const result = await run({ command: "apply", "plan-file": "plan.json" }, { workspace });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    expect(result.outputs["exit-code"]).toBe("0");
    expect(result.outputs["creates"]).toBe("3");
    expect(result.stdout).toContain("Apply complete: 3 done, 0 failed, 0 skipped.");
    expect(result.summary).toMatch(
      /^## forgeform apply\n\n\*\*Apply complete:\*\* 3 done, 0 failed, 0 skipped\.\n[\s\S]*## forgeform plan/,
    );
    const json = JSON.parse(readFileSync(result.outputs["json-report"]!, "utf8")) as {
      outcomes: { address: string; status: string }[];
    };
    expect(json.outcomes).toContainEqual({ address: 'group["acme/web"]', action: "create", status: "done" });
    expect((await get<{ description: string }>("/groups/acme%2Fweb")).body.description).toBe("Web team");
    expectNoLeak(result);

    const again = await run({ command: "plan", paths: "forgeform.yaml" }, { workspace });
    expect(again.status).toBe(0);
    expect(again.outputs["exit-code"]).toBe("0");
    expect(again.outputs["has-changes"]).toBe("false");
  });

  it("apply: refuses a stale saved plan", async () => {
    const result = await run({ command: "apply", "plan-file": "plan.json" }, { workspace });
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(/^::error::forgeform apply: refusing to apply plan\.json: /m);
    expectNoLeak(result);
  });

  it("apply: max-deletes stops a plan that deletes more, and nothing is applied", async () => {
    writeFileSync(
      join(workspace, "prune.yaml"),
      `version: 1
groups:
  acme:
    description: The ACME company, pruned
  acme/platform:
    state: absent
  acme/web:
    state: absent
`,
    );
    const refused = await run({ command: "apply", paths: "prune.yaml", "max-deletes": "1" }, { workspace });
    expect(refused.status).toBe(1);
    expect(refused.outputs["exit-code"]).toBe("1");
    expect(refused.outputs["deletes"]).toBe("2");
    expect(refused.stdout).toContain("more than max-deletes 1; nothing was applied");
    expect(refused.summary).toMatch(
      /^## forgeform apply\n\n\*\*Nothing was applied:\*\* refusing to apply: the plan deletes or replaces 2 objects, more than max-deletes 1[\s\S]*## forgeform plan/,
    );
    expect((await get("/groups/acme%2Fweb")).status).toBe(200);
    expect((await get<{ description: string }>("/groups/acme")).body.description).toBe("The ACME company");
    // The report is an apply document (docs/plan-format.md): the plan, and no outcome since nothing was applied.
    expect(JSON.parse(readFileSync(refused.outputs["json-report"]!, "utf8"))).toMatchObject({
      format_version: 1,
      kind: "apply",
      outcomes: [],
      summary: { delete: 2 },
    });
    expectNoLeak(refused);
  });

  it("drift: reports drift in outputs and summary and succeeds; fail-on-drift fails the step", async () => {
    const res = await fetch(`${sandbox.url}/api/v4/groups/acme`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": TOKEN, "Content-Type": "application/json" },
      body: JSON.stringify({ description: "Changed by hand" }),
    });
    expect(res.status).toBe(200);
    const drift = await run({ command: "drift", paths: "forgeform.yaml", format: "junit" }, { workspace });
    expect(drift.stderr).toBe("");
    expect(drift.status).toBe(0);
    expect(drift.outputs["exit-code"]).toBe("2");
    expect(drift.outputs["updates"]).toBe("1");
    expect(drift.stdout).toContain('<failure type="drifted"');
    expect(drift.summary).toContain("## forgeform drift report");
    expect(drift.summary).toContain("Drift: 1 drifted, 0 missing, 0 unmanaged, 0 would be deleted.");
    expect(readFileSync(drift.outputs["junit-report"]!, "utf8")).toContain(
      '<testcase name="group[&quot;acme/web&quot;]" classname="group[&quot;acme/web&quot;]"/>',
    );
    expect(JSON.parse(readFileSync(drift.outputs["json-report"]!, "utf8"))).toMatchObject({
      kind: "drift",
      drift: true,
    });
    expectNoLeak(drift);

    const failing = await run(
      { command: "drift", paths: "forgeform.yaml", "fail-on-drift": "true" },
      { workspace },
    );
    expect(failing.status).toBe(1);
    expect(failing.outputs["exit-code"]).toBe("2");
    expect(failing.stdout).toMatch(
      /^::error::forgeform drift: drift found \(fail-on-drift is true\)\. Drift: 1/m,
    );
    expectNoLeak(failing);
  });

  it("apply: from manifests, honouring max-deletes when within it", async () => {
    const result = await run(
      { command: "apply", paths: "forgeform.yaml", "max-deletes": "0" },
      { workspace },
    );
    expect(result.status).toBe(0);
    expect(result.outputs).toMatchObject({ "exit-code": "0", updates: "1", "has-changes": "true" });
    expect((await get<{ description: string }>("/groups/acme")).body.description).toBe("The ACME company");
    const nothing = await run({ command: "apply", paths: "forgeform.yaml" }, { workspace });
    expect(nothing.status).toBe(0);
    expect(nothing.outputs).toMatchObject({ "exit-code": "0", "has-changes": "false" });
    expect(nothing.summary).toMatch(/^## forgeform apply\n\n\*\*Nothing to apply:\*\* /);
    expect(JSON.parse(readFileSync(nothing.outputs["json-report"]!, "utf8"))).toMatchObject({
      kind: "apply",
      outcomes: [],
    });
    const drift = await run(
      { command: "drift", paths: "forgeform.yaml", "fail-on-drift": "true" },
      { workspace },
    );
    expect(drift.status).toBe(0);
    expect(drift.outputs["exit-code"]).toBe("0");
    expect(drift.summary).toContain("**No drift.**");
    expectNoLeak(result);
  });

  it("plan: plan errors become annotations at the declaring line and fail the step", async () => {
    writeFileSync(
      join(workspace, "corp.yaml"),
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/west/team: {}\n",
    );
    expect((await run({ command: "apply", paths: "corp.yaml" }, { workspace })).status).toBe(0);
    writeFileSync(
      join(workspace, "moved.yaml"),
      "version: 1\ngroups:\n  corp: {}\n  corp/west: {}\n  corp/east: {}\n  corp/east/team: {}\n",
    );
    const result = await run({ command: "plan", paths: "moved.yaml" }, { workspace });
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toMatch(
      /^::error title=forgeform plan,file=moved\.yaml,line=6,col=\d+::group\["corp\/east\/team"\]: .*corp\/west\/team/m,
    );
    expect(result.stdout).toMatch(/^::error::forgeform plan: the plan has an error/m);
    expect(result.summary).toContain("## forgeform plan");
    expectNoLeak(result);
  });

  it("fails with exit-code 1 and no token in the log when the platform refuses the token", async () => {
    const wrong = "glpat-wrong-token-0000111122";
    const result = await runAction(
      node,
      { command: "drift", paths: "forgeform.yaml", url: sandbox.url, token: wrong },
      { workspace },
    );
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.stdout).toMatch(/^::error::forgeform: .*401/m);
    expect(tokenLeaks(result, wrong)).toEqual([]);
  });

  it("takes the URL and token from FORGEFORM_URL and FORGEFORM_TOKEN, masking the token", async () => {
    const result = await runAction(
      node,
      { command: "plan", paths: "forgeform.yaml" },
      { workspace, env: { FORGEFORM_URL: sandbox.url, FORGEFORM_TOKEN: TOKEN } },
    );
    expect(result.status).toBe(0);
    expect(result.outputs["exit-code"]).toBe("0");
    expectNoLeak(result);
  });

  it("logs one debug line per request when the runner's debug logging is on, without the token", async () => {
    const result = await run(
      { command: "drift", paths: "forgeform.yaml" },
      { workspace, env: { RUNNER_DEBUG: "1" } },
    );
    expect(result.stdout).toMatch(/^::debug::GET .*\/api\/v4\/groups.* -> 200/m);
    expectNoLeak(result);
  });

  it("fails on a bad input, naming it and what it accepts", async () => {
    const command = await run({ command: "destroy" }, { workspace });
    expect(command.status).toBe(1);
    expect(command.stdout).toContain(
      '::error::forgeform: input command must be validate, plan, apply or drift, not "destroy"',
    );
    const max = await run(
      { command: "apply", paths: "forgeform.yaml", "max-deletes": "some" },
      { workspace },
    );
    expect(max.status).toBe(1);
    expect(max.stdout).toContain('input max-deletes must be a whole number (0 or more), not "some"');
    expectNoLeak(max);
  });
});

describe("the bundled Action when the platform refuses changes", () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, adminToken: TOKEN, faults: "500:1@POST/api/v4/groups" });
  });
  afterAll(async () => {
    await sandbox.stop();
  });

  it("apply: reports failed and skipped changes in the log and job summary, and fails the step", async () => {
    const node = nodes()[0]![1];
    const first = await runAction(node, { command: "validate" });
    writeFileSync(join(first.workspace, "forgeform.yaml"), MANIFEST);
    const result = await runAction(
      node,
      { command: "apply", paths: "forgeform.yaml", url: sandbox.url, token: TOKEN },
      { workspace: first.workspace },
    );
    expect(result.status).toBe(1);
    expect(result.outputs["exit-code"]).toBe("1");
    expect(result.summary).toMatch(
      /^## forgeform apply\n\n\*\*Apply incomplete:\*\* 0 done, 1 failed, 2 skipped\./,
    );
    expect(result.summary).toMatch(/- `\+` `group\["acme"\]`: \*\*failed\*\*: /);
    expect(result.summary).toContain("Fix the cause and run apply again");
    expect(result.summary).toContain("The plan:\n\n## forgeform plan");
    expect(result.stdout).toMatch(
      /^::error::forgeform apply: of 3 changes, 1 failed and 2 were skipped \(see the log\)/m,
    );
    expectNoLeak(result);
  });
});
