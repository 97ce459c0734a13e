import { beforeEach, describe, expect, it } from "vitest";
import type { Change, Plan } from "../../src/plan/model.js";
import {
  driftExitCode,
  driftSummary,
  renderDriftJson,
  renderDriftJunit,
  renderDriftMarkdown,
  renderDriftText,
} from "../../src/report/drift.js";
import { expectBalanced, leftOut, shownChanges } from "./checks.js";
import {
  bigPlan,
  createSchedule,
  deleteHook,
  everyAction,
  makePlan,
  replaceEnvironment,
  unmanagedBadge,
  updateToken,
  updateVariable,
} from "./fixtures.js";

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escape codes is the point
const ESC = /\u001b\[/;

interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
  text: string;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)))
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** A minimal XML reader: fails on unbalanced tags, raw `<` or `&` in text, and unquoted or broken attributes. */
function parseXml(xml: string): Element {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, "");
  const root: Element = { name: "#root", attrs: {}, children: [], text: "" };
  const stack: Element[] = [root];
  const tag = /<(\/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  while (i < body.length) {
    if (body[i] === "<") {
      tag.lastIndex = i;
      const m = tag.exec(body);
      if (!m) throw new Error(`malformed tag at ${i}: ${body.slice(i, i + 40)}`);
      const [whole, closing, name, attrText, selfClosing] = m;
      const top = stack.at(-1)!;
      if (closing) {
        if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
        stack.pop();
      } else {
        const attrs: Record<string, string> = {};
        for (const a of attrText!.matchAll(/([\w-]+)="([^"]*)"/g)) attrs[a[1]!] = unescapeXml(a[2]!);
        const element: Element = { name: name!, attrs, children: [], text: "" };
        top.children.push(element);
        if (!selfClosing) stack.push(element);
      }
      i += whole.length;
    } else {
      const next = body.indexOf("<", i);
      const text = body.slice(i, next === -1 ? undefined : next);
      if (/&(?!(amp|lt|gt|quot|apos|#\d+);)/.test(text)) throw new Error(`raw & in text: ${text}`);
      if (text.includes(">")) throw new Error(`raw > in text: ${text}`);
      stack.at(-1)!.text += unescapeXml(text);
      i = next === -1 ? body.length : next;
    }
  }
  if (stack.length !== 1) throw new Error(`unclosed <${stack.at(-1)!.name}>`);
  return root;
}

function all(element: Element, name: string): Element[] {
  const found: Element[] = [];
  for (const child of element.children) {
    if (child.name === name) found.push(child);
    found.push(...all(child, name));
  }
  return found;
}

describe("drift summary and exit code", () => {
  it("classifies changes as drifted, missing, unmanaged and would-delete", () => {
    expect(driftSummary(makePlan(everyAction))).toEqual({
      drifted: 4,
      missing: 1,
      unmanaged: 1,
      would_delete: 1,
    });
  });

  it("exits 2 for what apply would change, 0 for unmanaged objects left alone unless asked to fail on them", () => {
    expect(driftExitCode(makePlan([]))).toBe(0);
    expect(driftExitCode(makePlan([], { warnings: [{ address: "instance", message: "deprecated" }] }))).toBe(
      0,
    );
    for (const change of [createSchedule, updateVariable, replaceEnvironment, deleteHook]) {
      expect(driftExitCode(makePlan([change])), change.action).toBe(2);
    }
    expect(driftExitCode(makePlan([unmanagedBadge]))).toBe(0);
    expect(driftExitCode(makePlan([unmanagedBadge]), { failOnUnmanaged: true })).toBe(2);
    expect(driftExitCode(makePlan([unmanagedBadge, deleteHook]))).toBe(2);
  });
});

describe("renderDriftText", () => {
  it("labels each item and reads fields live -> declared", () => {
    const text = renderDriftText(makePlan(everyAction), { color: false, width: 200 });
    const lines = text.trimEnd().split("\n");
    expect(lines).toContain(
      `    ~ ${updateVariable.address} drifted (the live object differs from the manifests)`,
    );
    expect(lines).toContain('      ~ value: "staging" -> "production"');
    expect(lines).toContain(
      `    + ${createSchedule.address} missing (declared in the manifests, not on the platform)`,
    );
    expect(lines).toContain(
      `    ! ${unmanagedBadge.address} unmanaged (on the platform, not in the manifests)`,
    );
    expect(lines).toContain(`    - ${deleteHook.address} would be deleted by apply`);
    expect(lines).toContain("      ~ value: (sensitive) -> (sensitive)");
    expect(text).not.toContain("variable_type");
    expect(lines.at(-1)).toBe("Drift: 4 drifted, 1 missing, 1 unmanaged, 1 would be deleted.");
    expect(lines.at(-2)).toBe("Read live state with 12 requests.");
    expect(text).not.toMatch(ESC);
    expect(renderDriftText(makePlan(everyAction), { color: true })).toMatch(ESC);
  });

  it("says when there is no drift", () => {
    const lines = renderDriftText(makePlan([]), { color: false }).trimEnd().split("\n");
    expect(lines).toEqual([
      "Read live state with 12 requests.",
      "No drift. The live state matches the manifests.",
      "Drift: 0 drifted, 0 missing, 0 unmanaged, 0 would be deleted.",
    ]);
  });
});

describe("renderDriftJson", () => {
  it("writes a versioned drift document with a summary and items", () => {
    const json = JSON.parse(renderDriftJson(makePlan(everyAction))) as Record<string, unknown>;
    expect(Object.keys(json).slice(0, 2)).toEqual(["format_version", "kind"]);
    expect(json["format_version"]).toBe(1);
    expect(json["kind"]).toBe("drift");
    expect(json["drift"]).toBe(true);
    expect(json["summary"]).toEqual({ drifted: 4, missing: 1, unmanaged: 1, would_delete: 1 });
    const items = json["items"] as Record<string, unknown>[];
    expect(items).toHaveLength(everyAction.length);
    expect(items[1]).toEqual({
      address: updateVariable.address,
      status: "drifted",
      action: "update",
      target: 'project["acme/api"]',
      parent: updateVariable.parent,
      collection: "variables",
      key: "DEPLOY_ENV",
      live_id: 7,
      fields: [
        { field: "value", live: "staging", declared: "production" },
        { field: "variable_type", live: "env_var", declared: "env_var" },
      ],
    });
    const token = items.find((i) => i["address"] === updateToken.address)!;
    expect(token["fields"]).toEqual([
      { field: "value", live: "(sensitive)", declared: "(sensitive)", sensitive: true },
    ]);
    expect(items.map((i) => i["status"])).toEqual([
      "missing",
      "drifted",
      "drifted",
      "drifted",
      "drifted",
      "would_delete",
      "unmanaged",
    ]);
  });

  it("reports no drift as drift: false with zero counts", () => {
    const json = JSON.parse(renderDriftJson(makePlan([]))) as Record<string, unknown>;
    expect(json["drift"]).toBe(false);
    expect(json["items"]).toEqual([]);
    expect(json["summary"]).toEqual({ drifted: 0, missing: 0, unmanaged: 0, would_delete: 0 });
  });
});

describe("renderDriftMarkdown", () => {
  it("has a summary table, targets by kind, and details", () => {
    const md = renderDriftMarkdown(makePlan(everyAction));
    expect(md.startsWith("## forgeform drift report\n")).toBe(true);
    expect(md).toContain(
      "| Drifted | Missing | Unmanaged | Would delete |\n| ---: | ---: | ---: | ---: |\n| 4 | 1 | 1 | 1 |",
    );
    expect(md).toContain('| `project["acme/api"]` |  |  | +1 | -/+1 |  | ~1 |');
    expect(md).toContain("<summary><code>instance</code>: 1 drifted, 1 would be deleted</summary>");
    expectBalanced(md);
  });

  it("shows a banner only when applying would delete or replace something", () => {
    const md = renderDriftMarkdown(makePlan([updateVariable, deleteHook]));
    expect(md).toContain(
      "> [!CAUTION]\n> Applying the manifests would delete 1 object the manifests do not mention:\n",
    );
    expect(md).toContain(`> - \`${deleteHook.address}\` (delete)`);
    expect(renderDriftMarkdown(makePlan([updateVariable, createSchedule, unmanagedBadge]))).not.toContain(
      "[!CAUTION]",
    );
    expect(renderDriftMarkdown(makePlan([]))).toContain(
      "**No drift.** The live state matches the manifests.",
    );
  });

  it("names every target it is limited to, and says what applying would delete or replace", () => {
    const limited = renderDriftMarkdown(
      makePlan([updateVariable], { targets: ['project["a"]', 'group["b"]'] }),
    );
    expect(limited).toContain('\nLimited to targets: `project["a"]`, `group["b"]`.\n');
    expect(renderDriftMarkdown(makePlan([replaceEnvironment]))).toContain(
      "> [!CAUTION]\n> Applying the manifests would replace 1 drifted object:\n",
    );
    expect(renderDriftMarkdown(makePlan([deleteHook]))).toContain(
      "> [!CAUTION]\n> Applying the manifests would delete 1 object the manifests do not mention:\n",
    );
    expect(renderDriftMarkdown(makePlan([deleteHook, replaceEnvironment]))).toContain(
      "> Applying the manifests would delete 1 object the manifests do not mention and replace 1 drifted object:\n",
    );
  });

  it("cuts a huge report below the limit without breaking blocks, saying what was left out", () => {
    const out = renderDriftMarkdown(bigPlan(3000));
    expect(out.length).toBeLessThanOrEqual(65_000);
    expectBalanced(out);
    const missing = leftOut(out);
    expect(missing).toBeGreaterThan(0);
    expect(shownChanges(out) + missing).toBe(3000);
    expect(out).toMatch(
      /of 3,000 drift items are not shown; .*Run `forgeform drift` for the full report\.\n$/,
    );
    const small = renderDriftMarkdown(bigPlan(300), { maxLength: 6_000 });
    expect(small.length).toBeLessThanOrEqual(6_000);
    expectBalanced(small);
  });
});

describe("renderDriftJunit", () => {
  const tricky: Change = {
    ...updateVariable,
    address: 'project["acme/<api>"].variable["A&B\\"C"]',
    fields: [{ field: "value", before: 'x < y & "z"', after: "it's" }],
  };
  // Rendered before each test rather than when the file is collected: mutation testing credits a test only with the
  // code that runs for it (docs/testing.md).
  let plan: Plan;
  let xml: string;
  let doc: Element;
  const inSync = ['project["acme/api"].badge["pipeline"]', 'group["acme/ops"]'];
  beforeEach(() => {
    plan = makePlan([...everyAction, tricky], {
      errors: [{ address: createSchedule.address, message: 'cron "0 25 * * *" is <invalid>' }],
      warnings: [{ address: 'group["acme/platform"]', message: "badge & co" }],
    });
    xml = renderDriftJunit(plan, { inSync });
    doc = parseXml(xml);
  });

  it("is well-formed XML with one suite per target and one case per object", () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    const suites = all(doc, "testsuite");
    expect(suites.map((s) => s.attrs["name"])).toEqual([
      'project["acme/api"]',
      'group["acme/platform"]',
      "instance",
      'project["acme/<api>"]',
      'group["acme/ops"]',
    ]);
    const cases = all(doc, "testcase");
    expect(cases).toHaveLength(everyAction.length + 1 + inSync.length);
    expect((xml.match(/<testcase /g) ?? []).length).toBe(cases.length);
    const root = all(doc, "testsuites")[0]!;
    // The unmanaged badge is reported, not failed (prune policy warn), as for the exit code.
    expect(root.attrs).toMatchObject({ tests: String(cases.length), failures: "7", errors: "1" });
  });

  it("fails each drifted object with its field differences, and passes objects in sync", () => {
    expect((xml.match(/<failure /g) ?? []).length).toBe(everyAction.length);
    const badge = all(doc, "testcase").find((c) => c.attrs["name"] === unmanagedBadge.address)!;
    expect(badge.children.map((c) => c.name)).toEqual(["system-out"]);
    const strict = renderDriftJunit(plan, { inSync, failOnUnmanaged: true });
    expect((strict.match(/<failure /g) ?? []).length).toBe(everyAction.length + 1);
    const cases = all(doc, "testcase");
    const variable = cases.find((c) => c.attrs["name"] === updateVariable.address)!;
    const failure = variable.children.find((c) => c.name === "failure")!;
    expect(failure.attrs["type"]).toBe("drifted");
    expect(failure.attrs["message"]).toBe("drifted: value differs from the manifests");
    expect(failure.text).toBe('~ value: "staging" -> "production"');
    const synced = cases.find((c) => c.attrs["name"] === inSync[0])!;
    expect(synced.children).toEqual([]);
    const schedule = cases.find((c) => c.attrs["name"] === createSchedule.address)!;
    expect(schedule.children.map((c) => c.name)).toEqual(["failure", "error"]);
    expect(schedule.children[1]!.attrs["message"]).toBe(
      `${createSchedule.address}: cron "0 25 * * *" is <invalid>`,
    );
    const hook = cases.find((c) => c.attrs["name"] === deleteHook.address)!;
    expect(hook.children[0]!.attrs["type"]).toBe("would_delete");
  });

  it("escapes <, & and quotes in names, messages and bodies", () => {
    expect(xml).toContain(
      'name="project[&quot;acme/&lt;api&gt;&quot;].variable[&quot;A&amp;B\\&quot;C&quot;]"',
    );
    const cases = all(doc, "testcase");
    const odd = cases.find((c) => c.attrs["name"] === tricky.address)!;
    expect(odd.children[0]!.text).toBe('~ value: "x < y & \\"z\\"" -> "it\'s"');
    expect(xml).toContain("warning: group[&quot;acme/platform&quot;]: badge &amp; co");
  });

  it("shows control characters escaped and replaces the other characters XML cannot hold", () => {
    const control = makePlan([
      {
        ...updateVariable,
        fields: [{ field: "value", before: "a", after: "b" }],
        reason: "bell\u0007 \ud800",
      },
    ]);
    const out = renderDriftJunit(control);
    expect(out).not.toContain("\u0007");
    expect(out).toContain("bell\\x07 \uFFFD");
    parseXml(out);
  });

  it("has no failures when nothing drifted", () => {
    const clean = parseXml(renderDriftJunit(makePlan([]), { inSync }));
    expect(all(clean, "testcase")).toHaveLength(2);
    expect(all(clean, "failure")).toHaveLength(0);
  });

  it("says why each object fails: what differs, where it was declared, what deletes it", () => {
    const { source: _unused, ...undeclaredPlace } = createSchedule;
    const groupGone: Change = {
      ...deleteHook,
      address: 'project["acme/old/app"]',
      collection: "projects",
      key: "acme/old/app",
      fields: [],
      deletedWith: 'group["acme/old"]',
    };
    const absent: Change = { ...deleteHook, source: { file: "m.yaml", line: 8, col: 5 } };
    const pruned: Change = { ...deleteHook, address: 'instance.system_hook["https://h/2"]' };
    const sameValues: Change = { ...updateVariable, fields: [{ field: "value", before: "a", after: "a" }] };
    const messages = all(
      parseXml(renderDriftJunit(makePlan([sameValues, undeclaredPlace, groupGone, absent, pruned]))),
      "failure",
    ).map((f) => f.attrs["message"]);
    expect(messages).toEqual([
      "drifted: differs from the manifests",
      "missing: declared in the manifests but not on the platform",
      'applying would delete it with group["acme/old"]: the platform deletes a group\'s subgroups and projects with it',
      'marked "state: absent" in the manifests at m.yaml:8:5: applying would delete it',
      "not in the manifests: applying would delete it (prune policy delete)",
    ]);
    // A missing object with its manifest place says where.
    expect(renderDriftJunit(makePlan([createSchedule]))).toContain(
      'message="missing: declared in the manifests at manifests/acme.yaml:12:7 but not on the platform"',
    );
  });

  it("has only the objects of the plan without inSync, and a suite for warnings on a target with no object", () => {
    const { source: _unused, ...missing } = createSchedule;
    const plan = makePlan([missing], {
      warnings: [
        { address: "instance", message: "one" },
        { address: "instance.application_settings", message: "two" },
      ],
    });
    expect(renderDriftJunit(plan)).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="forgeform drift" tests="1" failures="1" errors="0">
  <testsuite name="project[&quot;acme/api&quot;]" tests="1" failures="1" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <testcase name="project[&quot;acme/api&quot;].pipeline_schedule[&quot;Nightly&quot;]" classname="project[&quot;acme/api&quot;]">
      <failure type="missing" message="missing: declared in the manifests but not on the platform">+ description: &quot;Nightly&quot;
+ cron: &quot;0 2 * * *&quot;
+ active: true</failure>
    </testcase>
  </testsuite>
  <testsuite name="instance" tests="0" failures="0" errors="0" skipped="0" timestamp="2026-11-22T03:00:00.000Z">
    <system-out>warning: instance: one
warning: instance.application_settings: two</system-out>
  </testsuite>
</testsuites>
`);
  });
});
