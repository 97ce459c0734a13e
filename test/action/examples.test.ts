import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "./helpers.js";

interface Step {
  id?: string;
  uses?: string;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: unknown;
  jobs: Record<string, { steps: Step[]; "timeout-minutes"?: number; if?: string; environment?: string }>;
}

const action = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as {
  inputs: Record<string, { required?: boolean }>;
  outputs: Record<string, unknown>;
};
const dir = join(ROOT, "examples/workflows");
const files = readdirSync(dir).filter((f) => f.endsWith(".yml"));

describe("example workflows", () => {
  it("cover a pull-request plan, an apply on merge and a nightly drift report", () => {
    const commands = files.map((file) => {
      const workflow = parse(readFileSync(join(dir, file), "utf8")) as Workflow;
      const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
      return [
        Object.keys(workflow.on as object)
          .sort()
          .join(","),
        ...steps.filter((s) => s.uses?.startsWith("forgeform/forgeform@")).map((s) => s.with?.["command"]),
      ].join(" ");
    });
    expect(commands.sort()).toEqual([
      "pull_request validate plan",
      "push,workflow_dispatch apply",
      "schedule,workflow_dispatch drift",
      "schedule,workflow_dispatch drift",
    ]);
  });

  it.each(files)("%s passes only inputs the Action declares and reads only outputs it sets", (file) => {
    const text = readFileSync(join(dir, file), "utf8");
    const workflow = parse(text) as Workflow;
    const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);
    const ours = steps.filter((s) => s.uses?.startsWith("forgeform/forgeform@"));
    expect(ours.length).toBeGreaterThan(0);
    for (const step of ours) {
      for (const input of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs)).toContain(input);
      for (const [name, spec] of Object.entries(action.inputs)) {
        if (spec.required) expect(Object.keys(step.with ?? {})).toContain(name);
      }
      // Every value is a string: the runner passes inputs as strings, and YAML booleans/numbers read oddly.
      for (const value of Object.values(step.with ?? {})) expect(typeof value).toBe("string");
    }
    const ids = new Set(ours.map((s) => s.id));
    for (const [, id, output] of text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
      expect(ids.has(id)).toBe(true);
      expect(Object.keys(action.outputs)).toContain(output);
    }
  });
});

describe("example workflows are safe to copy", () => {
  it.each(files)("%s: every job has a timeout", (file) => {
    const workflow = parse(readFileSync(join(dir, file), "utf8")) as Workflow;
    for (const [name, job] of Object.entries(workflow.jobs)) {
      expect(job["timeout-minutes"], `${file}: job ${name}`).toBeGreaterThan(0);
    }
  });

  it("apply runs only from the default branch, in a protected environment, with the plan's pull request fetched in full", () => {
    const apply = parse(readFileSync(join(dir, "forgeform-apply.yml"), "utf8")) as Workflow;
    expect(apply.jobs["apply"]?.if).toBe(
      "github.ref == format('refs/heads/{0}', github.event.repository.default_branch)",
    );
    expect(apply.jobs["apply"]?.environment).toBe("platform");
    const plan = readFileSync(join(dir, "forgeform-plan.yml"), "utf8");
    expect(plan).toContain("fetch-depth: 0");
    expect(plan).toContain('no-secrets: "true"');
  });

  it("the plan example comments on the pull request with the comment input, and grants only what that needs", () => {
    const plan = parse(readFileSync(join(dir, "forgeform-plan.yml"), "utf8")) as Workflow & {
      permissions: Record<string, string>;
    };
    const steps = plan.jobs["plan"]!.steps;
    const ours = steps.filter((s) => s.uses?.startsWith("forgeform/forgeform@"));
    expect(ours.map((s) => s.with?.["comment"])).toEqual(["on-change"]);
    // No other step posts comments (the github-script step the comment input replaces).
    expect(steps.filter((s) => !s.uses?.startsWith("forgeform/forgeform@")).map((s) => s.uses)).toEqual([
      "actions/checkout@v4",
    ]);
    expect(plan.permissions).toEqual({ contents: "read", "pull-requests": "write" });
  });
});
