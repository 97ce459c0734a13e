/**
 * The plan as text at its edges: each action's colour, a diff's colours, a write-only value an update sets, changes
 * repeated alike (and --expand), the banner of what a group's delete takes with it (20 listed, then how many more),
 * retries and pattern lines.
 */
import pc from "picocolors";
import { describe, expect, it } from "vitest";
import type { Change, Plan } from "../../src/plan/model.js";
import { renderPlanText } from "../../src/report/text.js";
import {
  createSchedule,
  deleteHook,
  makePlan,
  projectBadge,
  replaceEnvironment,
  unmanagedBadge,
  updateSettings,
  updateVariable,
} from "./fixtures.js";

const lines = (text: string) => text.replace(/\n$/, "").split("\n");
const c = pc.createColors(true);

/** A project deleted with the group it is in. */
const takenWith = (group: string, i: number): Change => ({
  address: `project["${group}/p${i}"]`,
  collection: "projects",
  key: `${group}/p${i}`,
  action: "delete",
  deletedWith: `group["${group}"]`,
  fields: [],
});

describe("renderPlanText in colour", () => {
  it("colours each action's symbol and words, and a diff's added, removed and hunk lines", () => {
    const out = lines(
      renderPlanText(
        makePlan([
          createSchedule,
          updateVariable,
          replaceEnvironment,
          deleteHook,
          unmanagedBadge,
          updateSettings,
        ]),
        { color: true },
      ),
    );
    const header = (color: (s: string) => string, symbol: string, address: string, words: string) =>
      `  ${color(symbol)} ${c.bold(address)} ${color(words)}`;
    expect(out).toContain(header(c.green, "  +", createSchedule.address, "will be created"));
    expect(out).toContain(header(c.yellow, "  ~", updateVariable.address, "will be updated in place"));
    expect(out).toContain(
      header(c.cyan, "  !", unmanagedBadge.address, "unmanaged (not in the manifests, left alone)"),
    );
    expect(out).toContain(
      header(c.magenta, "-/+", replaceEnvironment.address, "will be replaced (deleted, then created)"),
    );
    expect(out).toContain(header(c.red, "  -", deleteHook.address, "will be deleted"));
    expect(out).toContain(`      ${c.yellow("~")} value: "staging" -> "production"`);
    expect(out).toContain(`          ${c.cyan("@@ -1,3 +1,3 @@")}`);
    expect(out).toContain("           This schedule runs the nightly build.");
    expect(out).toContain(`          ${c.red("-It deploys to staging.")}`);
    expect(out).toContain(`          ${c.green("+It deploys to production.")}`);
  });
});

describe("renderPlanText", () => {
  it("marks a write-only value an update sets as added, with no live value", () => {
    const change: Change = {
      ...updateVariable,
      fields: [{ field: "token", after: "(write-only)", writeOnly: true }],
    };
    expect(lines(renderPlanText(makePlan([change]), { color: false }))).toContain(
      "      + token: (write-only)",
    );
  });

  it("shows a change made alike in three projects once, with where, and each on its own with --expand", () => {
    const plan = makePlan([
      projectBadge("acme/a"),
      projectBadge("acme/b"),
      projectBadge("acme/c"),
      projectBadge("acme/a", "other"),
    ]);
    const out = lines(renderPlanText(plan, { color: false }));
    expect(
      out.slice(
        out.indexOf("forgeform will perform these actions:"),
        out.indexOf("Read live state with 12 requests."),
      ),
    ).toEqual([
      "forgeform will perform these actions:",
      "",
      '    + badge["coverage"] will be created in 3 projects: acme/a, acme/b, acme/c',
      '      + link_url: "https://ci.example/coverage"',
      "",
      '    + project["acme/a"].badge["other"] will be created',
      '      + link_url: "https://ci.example/other"',
      "",
    ]);
    const expanded = renderPlanText(plan, { color: false, expand: true });
    expect(expanded).not.toContain("in 3 projects");
    expect(lines(expanded)).toContain('    + project["acme/b"].badge["coverage"] will be created');
  });

  it("warns of everything a group's delete takes with it, 20 by name and then how many more", () => {
    const one = lines(renderPlanText(makePlan([takenWith("acme/old", 0)]), { color: false }));
    const at = one.indexOf(
      'WARNING: deleting group["acme/old"] also deletes 1 subgroup or project the platform removes with it:',
    );
    expect(at).toBeGreaterThan(0);
    expect(one.slice(at - 1, at + 3)).toEqual([
      "",
      'WARNING: deleting group["acme/old"] also deletes 1 subgroup or project the platform removes with it:',
      '  - project["acme/old/p0"]',
      "Each is counted by --max-deletes. Check them before applying.",
    ]);

    const twenty = [
      ...Array.from({ length: 10 }, (_, i) => takenWith("acme/a", i)),
      ...Array.from({ length: 10 }, (_, i) => takenWith("acme/b", i)),
    ];
    const at20 = lines(renderPlanText(makePlan(twenty), { color: false, width: 200 }));
    const start = at20.findIndex((l) => l.startsWith("WARNING: "));
    expect(at20[start]).toBe(
      'WARNING: deleting group["acme/a"], group["acme/b"] also deletes 20 subgroups and projects the platform removes with them:',
    );
    expect(at20.slice(start + 1, start + 22)).toEqual([
      ...twenty.map((ch) => `  - ${ch.address}`),
      "Each is counted by --max-deletes. Check them before applying.",
    ]);

    const past = lines(
      renderPlanText(makePlan([...twenty, takenWith("acme/b", 10), takenWith("acme/b", 11)]), {
        color: false,
        width: 200,
      }),
    );
    const from = past.findIndex((l) => l.startsWith("WARNING: "));
    expect(past[from]).toContain("also deletes 22 subgroups and projects");
    expect(past.slice(from + 20, from + 23)).toEqual([
      '  - project["acme/b/p9"]',
      "  - ...and 2 more",
      "Each is counted by --max-deletes. Check them before applying.",
    ]);
    const oneMore = lines(renderPlanText(makePlan([...twenty, takenWith("acme/b", 10)]), { color: false }));
    expect(oneMore).toContain("  - ...and 1 more");
    // In colour the warning is red and bold.
    const colored = lines(renderPlanText(makePlan([takenWith("acme/old", 0)]), { color: true }));
    expect(colored).toContain(
      c.red(
        c.bold(
          'WARNING: deleting group["acme/old"] also deletes 1 subgroup or project the platform removes with it:',
        ),
      ),
    );
  });

  it("counts retries in the requests line", () => {
    const withRetries = (retries: number): Plan => {
      const plan = makePlan([]);
      return { ...plan, requests: { ...plan.requests, retries } };
    };
    expect(lines(renderPlanText(withRetries(1), { color: false }))).toContain(
      "Read live state with 12 requests (1 retry).",
    );
    expect(lines(renderPlanText(withRetries(2), { color: false }))).toContain(
      "Read live state with 12 requests (2 retries).",
    );
  });

  it("says how many groups or projects each pattern matched, and where the pattern is", () => {
    const plan: Plan = {
      ...makePlan([]),
      selectors: [
        {
          collection: "projects",
          pattern: "acme/**",
          matched: 1_843,
          source: { file: "p.yaml", line: 3, col: 3 },
        },
        { collection: "groups", pattern: "acme/*", matched: 1, source: { file: "p.yaml", line: 9, col: 3 } },
      ],
    };
    const out = lines(renderPlanText(plan, { color: false }));
    expect(out.slice(-5, -2)).toEqual([
      'Pattern projects["acme/**"] matched 1,843 projects (p.yaml:3:3).',
      'Pattern groups["acme/*"] matched 1 group (p.yaml:9:3).',
      "Read live state with 12 requests.",
    ]);
  });

  it("names every target it is limited to, and the shard it is, with its units", () => {
    const plan = makePlan([], { targets: ['group["a"]', 'project["b"]'] });
    expect(lines(renderPlanText(plan, { color: false })).slice(0, 2)).toEqual([
      'Limited to targets: group["a"], project["b"]',
      "",
    ]);
    const shard = (units: string[]): Plan => ({ ...makePlan([]), shard: { index: 2, count: 3, units } });
    expect(
      lines(renderPlanText(shard(['group["a"]', 'project["b"]']), { color: false })).slice(0, 2),
    ).toEqual(['Shard 2/3: group["a"], project["b"]', ""]);
    expect(lines(renderPlanText(shard([]), { color: false }))[0]).toBe("Shard 2/3: no top-level targets");
  });

  it("says what it is limited to by --changed-since, then leaves a blank line", () => {
    const plan: Plan = { ...makePlan([]), changedSince: "origin/main" };
    expect(lines(renderPlanText(plan, { color: false })).slice(0, 2)).toEqual([
      "Limited to what the manifests changed since origin/main",
      "",
    ]);
  });

  it("says it found objects the manifests do not mention when it would do nothing but leave them alone", () => {
    const out = lines(renderPlanText(makePlan([unmanagedBadge]), { color: false }));
    expect(out.slice(0, 5)).toEqual([
      "Actions are shown with these symbols:",
      "    ! unmanaged, left alone",
      "",
      "forgeform found objects the manifests do not mention:",
      "",
    ]);
  });
});
