import { beforeEach, describe, expect, it } from "vitest";
import type { Plan } from "../../src/plan/model.js";
import { renderPlanMarkdown } from "../../src/report/markdown.js";
import { expectBalanced, leftOut, shownChanges } from "./checks.js";
import {
  bigPlan,
  createSchedule,
  deleteHook,
  everyAction,
  makePlan,
  replaceEnvironment,
  updateSettings,
  updateToken,
  updateVariable,
} from "./fixtures.js";

describe("renderPlanMarkdown", () => {
  // Rendered before each test rather than when the file is collected: mutation testing credits a test only with the
  // code that runs for it (docs/testing.md).
  let md: string;
  beforeEach(() => {
    md = renderPlanMarkdown(makePlan(everyAction));
  });

  it("has a title and a summary table of counts", () => {
    expect(md.startsWith("## forgeform plan\n")).toBe(true);
    expect(md).toContain(
      "| Create | Update | Replace | Delete | Unmanaged |\n| ---: | ---: | ---: | ---: | ---: |\n| 1 | 3 | 1 | 1 | 1 |\n",
    );
  });

  it("warns with a caution banner listing what is deleted or replaced", () => {
    const banner = md.split("\n").filter((l) => l.startsWith(">"));
    expect(banner[0]).toBe("> [!CAUTION]");
    expect(banner).toContain(`> - \`${replaceEnvironment.address}\` (replace)`);
    expect(banner).toContain(`> - \`${deleteHook.address}\` (delete)`);
    expect(banner.join("\n")).not.toContain(createSchedule.address);
  });

  it("has no banner when nothing is deleted or replaced", () => {
    const safe = renderPlanMarkdown(makePlan([createSchedule, updateVariable]));
    expect(safe).not.toContain("[!CAUTION]");
    expect(renderPlanMarkdown(makePlan([deleteHook]))).toContain("[!CAUTION]");
    expect(renderPlanMarkdown(makePlan([replaceEnvironment]))).toContain("[!CAUTION]");
  });

  it("tabulates targets by kind", () => {
    expect(md).toContain(
      "| Target | `application_settings` | `badges` | `pipeline_schedules` | `protected_environments` | `system_hooks` | `variables` |",
    );
    expect(md).toContain('| `project["acme/api"]` |  |  | +1 | -/+1 |  | ~1 |');
    expect(md).toContain("| `instance` | ~1 |  |  |  | -1 |  |");
  });

  it("shows each target's changes in a collapsible diff block", () => {
    expect(md).toContain(
      "<details><summary><code>project[&quot;acme/api&quot;]</code>: 1 to create, 1 to update, 1 to replace</summary>\n\n```diff\n",
    );
    const lines = md.split("\n");
    const at = lines.indexOf(`~ ${updateVariable.address}`);
    expect(lines.slice(at + 1, at + 3)).toEqual(['-     value: "staging"', '+     value: "production"']);
    expect(md).not.toContain("variable_type");
    expect(lines).toContain(`+ ${createSchedule.address}`);
    expect(lines).toContain('+     cron: "0 2 * * *"');
    expect(lines).toContain(`-/+ ${replaceEnvironment.address}`);
    expect(lines).toContain("+     required_approval_count: 2  (forces replacement)");
    expect(lines).toContain(`- ${deleteHook.address}`);
    expect(lines).toContain("-     token: (write-only)");
    const token = lines.indexOf(`~ ${updateToken.address}`);
    expect(lines.slice(token + 1, token + 3)).toEqual([
      "-     value: (sensitive)",
      "+     value: (sensitive)",
    ]);
    const settings = lines.indexOf(`~ ${updateSettings.address}`);
    expect(lines.slice(settings + 1)).toContain("+         It deploys to production.");
    expectBalanced(md);
  });

  it("escapes problem messages and lists their sources", () => {
    const plan = makePlan([createSchedule], {
      errors: [
        {
          address: createSchedule.address,
          message: "cron <b>bad</b> & [link](http://x)",
          source: { file: "m.yaml", line: 3, col: 5 },
        },
      ],
    });
    const out = renderPlanMarkdown(plan);
    expect(out).toContain(
      '### Errors\n\n- `m.yaml:3:5` `project["acme/api"].pipeline_schedule["Nightly"]`: cron &lt;b&gt;bad&lt;/b&gt; &amp; \\[link\\](http://x)\n',
    );
  });

  it("quotes addresses holding backticks or pipes as code without mangling them", () => {
    const odd = { ...deleteHook, address: 'instance.system_hook["https://h.example.com/a|b`c"]' };
    const out = renderPlanMarkdown(makePlan([odd]));
    expect(out).toContain('> - ``instance.system_hook["https://h.example.com/a|b`c"]`` (delete)');
    expect(out).toContain("| `instance` |");
  });

  it("names every target it is limited to, and says in words what it deletes or replaces", () => {
    const limited = renderPlanMarkdown(
      makePlan([createSchedule], { targets: ['project["a"]', 'group["b"]'] }),
    );
    expect(limited).toContain('\nLimited to targets: `project["a"]`, `group["b"]`.\n');
    expect(renderPlanMarkdown(makePlan([replaceEnvironment]))).toContain(
      "> [!CAUTION]\n> This plan replaces 1 object (deletes, then creates them again). Check them before applying:\n",
    );
    expect(renderPlanMarkdown(makePlan([deleteHook]))).toContain(
      "> [!CAUTION]\n> This plan deletes 1 object. Check them before applying:\n",
    );
    expect(renderPlanMarkdown(makePlan([deleteHook, replaceEnvironment]))).toContain(
      "> This plan deletes 1 object and replaces 1 object (deletes, then creates them again). Check them before applying:\n",
    );
  });

  it("says nothing is planned until the errors are fixed, rather than that the live state matches", () => {
    const out = renderPlanMarkdown(
      makePlan([], { errors: [{ address: 'project["acme/x"]', message: "group acme/x does not exist" }] }),
    );
    expect(out).toContain("\n**No changes planned:** fix the errors below first.\n");
    expect(out).not.toContain("matches the manifests");
  });

  it("says when nothing changes", () => {
    const out = renderPlanMarkdown(makePlan([]));
    expect(out).toContain("**No changes.** The live state matches the manifests.");
    expect(out).not.toContain("<details>");
    expect(out).not.toContain("[!NOTE]");
  });

  it("cuts a huge plan below the limit between whole changes, saying what was left out", () => {
    const plan: Plan = bigPlan(3000);
    const out = renderPlanMarkdown(plan);
    expect(out.length).toBeLessThanOrEqual(65_000);
    expect(out.length).toBeGreaterThan(50_000);
    expectBalanced(out);
    const missing = leftOut(out);
    expect(missing).toBeGreaterThan(0);
    expect(shownChanges(out) + missing).toBe(3000);
    expect(out.trimEnd().split("\n").at(-1)).toMatch(
      /^> This report was cut to stay under 65,000 characters: [\d,]+ of 3,000 changes are not shown; .*Run `forgeform plan` for the full plan\.$/,
    );
    // Values holding ``` get a longer fence, so they cannot end the block.
    expect(out).toContain("````diff\n");
  });

  it("honours a smaller limit", () => {
    const out = renderPlanMarkdown(bigPlan(500), { maxLength: 10_000 });
    expect(out.length).toBeLessThanOrEqual(10_000);
    expectBalanced(out);
    expect(shownChanges(out) + leftOut(out)).toBe(500);
    expect(() => renderPlanMarkdown(bigPlan(1), { maxLength: 100 })).toThrow(RangeError);
  });

  it("does not cut a plan that fits", () => {
    const out = renderPlanMarkdown(bigPlan(40));
    expect(out).not.toContain("[!NOTE]");
    expect(shownChanges(out)).toBe(40);
  });
});
