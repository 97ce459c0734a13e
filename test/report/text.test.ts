import { beforeEach, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/model.js";
import { renderPlanText } from "../../src/report/text.js";
import {
  createSchedule,
  deleteHook,
  everyAction,
  makePlan,
  replaceEnvironment,
  unmanagedBadge,
  updateSettings,
  updateToken,
  updateVariable,
} from "./fixtures.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape codes is the point
const ESC = /\u001b\[/;

function lines(text: string): string[] {
  return text.replace(/\n$/, "").split("\n");
}

/** The block of lines for one change: its header line up to the next blank line. */
function block(text: string, address: string): string[] {
  const all = lines(text);
  const start = all.findIndex((l) => l.includes(` ${address} `));
  expect(start, `no header line for ${address}`).toBeGreaterThanOrEqual(0);
  const end = all.indexOf("", start);
  return all.slice(start, end === -1 ? undefined : end);
}

describe("renderPlanText", () => {
  // Rendered before each test rather than when the file is collected: mutation testing credits a test only with the
  // code that runs for it (docs/testing.md).
  let plan: Plan;
  let text: string;
  beforeEach(() => {
    plan = makePlan(everyAction);
    text = renderPlanText(plan, { color: false });
  });

  it("shows each action with its symbol and address", () => {
    expect(block(text, createSchedule.address)[0]).toBe(
      '    + project["acme/api"].pipeline_schedule["Nightly"] will be created',
    );
    expect(block(text, updateVariable.address)[0]).toMatch(/^ {4}~ .* will be updated in place$/);
    expect(block(text, replaceEnvironment.address)[0]).toMatch(/^ {2}-\/\+ .* will be replaced/);
    expect(block(text, deleteHook.address)[0]).toMatch(/^ {4}- .* will be deleted$/);
    expect(block(text, unmanagedBadge.address)[0]).toBe(
      '    ! group["acme/platform"].badge["coverage"] unmanaged (not in the manifests, left alone)',
    );
  });

  it("shows desired values for a create and live values for a delete", () => {
    expect(block(text, createSchedule.address).slice(1)).toEqual([
      '      + description: "Nightly"',
      '      + cron: "0 2 * * *"',
      "      + active: true",
    ]);
    expect(block(text, deleteHook.address).slice(1)).toEqual([
      "      # not in the manifests; system_hooks prune policy is delete",
      '      - url: "https://hooks.example.com/old"',
      "      - token: (write-only)",
      "      - push_events: false",
    ]);
  });

  it("shows only changed fields of an update, as before -> after", () => {
    const lines = block(text, updateVariable.address);
    expect(lines.slice(1)).toEqual(['      ~ value: "staging" -> "production"']);
    expect(lines.join("\n")).not.toContain("variable_type");
  });

  it("shows the reason, forced replacements and field notes", () => {
    const replace = block(text, replaceEnvironment.address);
    expect(replace).toContain("      # protected environments have no update call: replaced");
    expect(replace).toContain("      ~ required_approval_count: 1 -> 2 (forces replacement)");
    expect(replace.join("\n")).not.toContain("deploy_access_levels");
    expect(block(text, updateSettings.address)).toContain(
      "      ~ max_artifacts_size: 100 -> 200 # needs a restart of the platform to take effect",
    );
  });

  it("renders masked values as masks, never quoted or unmasked", () => {
    expect(block(text, updateToken.address).slice(1)).toEqual(["      ~ value: (sensitive) -> (sensitive)"]);
    const leaky = makePlan([
      {
        ...updateToken,
        fields: [{ field: "value", before: "old-secret-value", after: "new-secret-value", sensitive: true }],
      },
    ]);
    const out = renderPlanText(leaky, { color: false });
    expect(out).not.toContain("secret-value");
    expect(out).toContain("value: (sensitive) -> (sensitive)");
  });

  it("shows long or multi-line text as a unified diff", () => {
    const settings = block(text, updateSettings.address);
    const at = settings.indexOf("      ~ after_sign_up_text:");
    expect(at).toBeGreaterThan(0);
    expect(settings.slice(at + 1)).toEqual([
      "          @@ -1,3 +1,3 @@",
      "           This schedule runs the nightly build.",
      "          -It deploys to staging.",
      "          +It deploys to production.",
      "           Owner: platform team.",
    ]);
    const long = "x".repeat(60);
    const single = makePlan([
      {
        ...updateVariable,
        fields: [{ field: "value", before: `${long} one ${long}`, after: `${long} two ${long}` }],
      },
    ]);
    const out = block(renderPlanText(single, { color: false }), updateVariable.address);
    expect(out).toContain(`          -${long} one ${long}`);
    expect(out).toContain(`          +${long} two ${long}`);
  });

  it("ends with the exact summary line, preceded by the request count and unmanaged count", () => {
    const all = lines(text);
    expect(all.at(-1)).toBe("Plan: 1 to create, 3 to update, 1 to replace, 1 to delete.");
    expect(all.at(-2)).toBe("Read live state with 12 requests.");
    expect(all.at(-3)).toBe("1 unmanaged object (not in the manifests) left alone.");
  });

  it("says there is nothing to do when nothing changes", () => {
    const empty = lines(renderPlanText(makePlan([]), { color: false }));
    expect(empty).toEqual([
      "Read live state with 12 requests.",
      "No changes. The live state matches the manifests.",
      "Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.",
    ]);
    const onlyUnmanaged = lines(renderPlanText(makePlan([unmanagedBadge]), { color: true }));
    expect(onlyUnmanaged.at(-1)).toBe("Plan: 0 to create, 0 to update, 0 to replace, 0 to delete.");
    expect(onlyUnmanaged.at(-2)).toContain("No changes. The live state matches the manifests.");
  });

  it("does not claim the live state matches when there are errors", () => {
    const failed = makePlan([], {
      errors: [{ address: 'group["acme"]', message: "group acme does not exist" }],
    });
    const out = renderPlanText(failed, { color: false });
    expect(out).not.toContain("No changes. The live state matches");
    expect(out).toContain("fix the 1 error above first");
  });

  it("lists errors and warnings with file:line:col when they have a source", () => {
    const withProblems = makePlan([createSchedule], {
      errors: [
        {
          address: createSchedule.address,
          message: "cron is not a valid cron expression",
          source: { file: "manifests/acme.yaml", line: 14, col: 13 },
        },
      ],
      warnings: [{ address: "instance.application_settings", message: "signup_enabled is deprecated" }],
    });
    const out = lines(renderPlanText(withProblems, { color: false, width: 200 }));
    const errors = out.indexOf("Errors (1):");
    expect(out[errors + 1]).toBe(
      '  - manifests/acme.yaml:14:13: project["acme/api"].pipeline_schedule["Nightly"]: cron is not a valid cron expression',
    );
    const warnings = out.indexOf("Warnings (1):");
    expect(out[warnings + 1]).toBe("  - instance.application_settings: signup_enabled is deprecated");
  });

  it("wraps long reasons at the requested width", () => {
    const reason =
      "this reason is long enough that it has to be wrapped onto more than one line of the terminal";
    const out = block(
      renderPlanText(makePlan([{ ...replaceEnvironment, reason }]), { color: false, width: 50 }),
      replaceEnvironment.address,
    );
    const comments = out.filter((l) => l.startsWith("      # "));
    expect(comments.length).toBeGreaterThan(1);
    for (const l of comments) expect(l.length).toBeLessThanOrEqual(50);
    expect(comments.map((l) => l.slice(8)).join(" ")).toBe(reason);
  });

  it("never emits escape codes without color, and colours with it", () => {
    expect(text).not.toMatch(ESC);
    const colored = renderPlanText(plan, { color: true });
    expect(colored).toMatch(ESC);
    expect(lines(colored).at(-1)).toBe("Plan: 1 to create, 3 to update, 1 to replace, 1 to delete.");
  });

  it("mentions the targets the plan was limited to", () => {
    const limited = renderPlanText(makePlan([createSchedule], { targets: ['project["acme/api"]'] }), {
      color: false,
    });
    expect(lines(limited)[0]).toBe('Limited to targets: project["acme/api"]');
  });
});
