/**
 * The plan as a pull-request comment at its edges: code spans that must hold backticks, pipes and newlines, field
 * marks, changes repeated alike, and every limit (the 2,000-character minimum, lists of 50, a table of 200 rows, the
 * room kept for the closing note) at the limit and one past it, with the closing note's exact words.
 */
import { describe, expect, it } from "vitest";
import type { Change, Plan, PlanProblem } from "../../src/plan/model.js";
import { changeDiffLines, inlineCode, renderPlanMarkdown } from "../../src/report/markdown.js";
import { expectBalanced, leftOut, shownChanges } from "./checks.js";
import { bigPlan, createSchedule, makePlan, projectBadge } from "./fixtures.js";

/** A delete in each of `n` projects, each of another name, alternating two kinds (two columns in the table). */
const deletes = (n: number): Change[] =>
  Array.from({ length: n }, (_, i) => ({
    ...projectBadge(`acme/p${i}`, `old-${i}`, "delete"),
    ...(i % 2 === 1 ? { address: `project["acme/p${i}"].label["old-${i}"]`, collection: "labels" } : {}),
  }));

const problems = (n: number, what: string): PlanProblem[] =>
  Array.from({ length: n }, (_, i) => ({ address: `project["acme/p${i}"]`, message: `${what} ${i}` }));

/** The closing note, without its first line. */
const note = (md: string) => /\n> \[!NOTE\]\n> (.*)\n$/.exec(md)?.[1];

/** The rows of the target table, without its header. */
const tableRows = (md: string) =>
  md
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| Target") && !l.startsWith("| ---"))
    .filter((l) => !/^\| [A-Z][a-z]+ \|/.test(l) && !/^\| [\d,]+ \|/.test(l));

describe("code spans", () => {
  it("pad text that begins or ends with a backtick, and hold any backtick run", () => {
    expect(inlineCode("`a")).toBe("`` `a ``");
    expect(inlineCode("a`")).toBe("`` a` ``");
    expect(inlineCode("``")).toBe("``` `` ```");
    expect(inlineCode("a`b")).toBe("``a`b``");
  });

  it("show a newline as a space, and escape pipes only in a table cell", () => {
    expect(inlineCode("a\nb\r\nc")).toBe("`a b c`");
    expect(inlineCode("a|b")).toBe("`a|b`");
    expect(inlineCode("a|b", true)).toBe("`a\\|b`");
    const md = renderPlanMarkdown(makePlan([projectBadge("acme/a|b")]));
    expect(md).toContain('| `project["acme/a\\|b"]` | +1 |\n');
    expect(md).toContain("<summary><code>project[&quot;acme/a|b&quot;]</code>: 1 to create</summary>");
  });
});

describe("changeDiffLines", () => {
  it("marks a field that forces replacement and has a note with both, in that order", () => {
    const change: Change = {
      ...projectBadge("acme/a", "b", "replace"),
      fields: [{ field: "name", before: "a", after: "b", forcesReplacement: true, note: "renames it" }],
    };
    expect(changeDiffLines(change)).toEqual([
      '-/+ project["acme/a"].badge["b"]',
      '-     name: "a"',
      '+     name: "b"  (forces replacement) # renames it',
    ]);
  });

  it("shows a write-only value set by an update as added, with no live line (it is never read back)", () => {
    const change: Change = {
      ...projectBadge("acme/a", "b", "update"),
      fields: [
        { field: "token", after: "(write-only)", writeOnly: true },
        { field: "name", before: "a", after: "b" },
      ],
    };
    expect(changeDiffLines(change)).toEqual([
      '~ project["acme/a"].badge["b"]',
      "+     token: (write-only)",
      '-     name: "a"',
      '+     name: "b"',
    ]);
  });
});

describe("renderPlanMarkdown's limits", () => {
  it("takes a limit of 2,000 characters and refuses 1,999, saying the least it takes", () => {
    const out = renderPlanMarkdown(makePlan([createSchedule]), { maxLength: 2_000 });
    expect(out.length).toBeLessThanOrEqual(2_000);
    expect(shownChanges(out)).toBe(1);
    expect(() => renderPlanMarkdown(makePlan([createSchedule]), { maxLength: 1_999 })).toThrow(
      new RangeError("maxLength must be at least 2000 characters, got 1999"),
    );
  });

  it("lists 50 banner entries, errors and warnings, then says how many more, and the note counts them", () => {
    const whole = renderPlanMarkdown(
      makePlan(deletes(50), { errors: problems(50, "error"), warnings: problems(50, "warning") }),
    );
    expect(whole).not.toContain("...and");
    expect(note(whole)).toBeUndefined();

    const md = renderPlanMarkdown(
      makePlan(deletes(51), { errors: problems(51, "error"), warnings: problems(52, "warning") }),
    );
    const lines = md.split("\n");
    expect(lines.filter((l) => l.startsWith("> - `"))).toHaveLength(50);
    expect(lines).toContain("> - ...and 1 more");
    expect(lines).toContain('- `project["acme/p49"]`: error 49');
    expect(lines).not.toContain('- `project["acme/p50"]`: error 50');
    expect(md).toContain('- `project["acme/p49"]`: error 49\n- ...and 1 more error\n\n### Warnings\n\n');
    expect(md).toContain('- `project["acme/p49"]`: warning 49\n- ...and 2 more warnings\n\n| Target |');
    expect(note(md)).toBe(
      "This report was cut to stay under 65,000 characters: the lists above leave out 1 banner entry, 1 error, 2 warnings. Run `forgeform plan` for the full plan.",
    );
    expectBalanced(md);
  });

  it("tabulates 200 targets, then says how many more there are in a row of its own", () => {
    const at = renderPlanMarkdown(makePlan(deletes(200)));
    expect(tableRows(at)).toHaveLength(200);
    expect(at).not.toContain("more target");

    const past = renderPlanMarkdown(makePlan(deletes(201)));
    const rows = tableRows(past);
    expect(rows).toHaveLength(201);
    expect(rows[199]).toBe('| `project["acme/p199"]` |  | -1 |');
    expect(rows[200]).toBe("| ...and 1 more target |  |  |");
    expect(past).toContain('> - `project["acme/p49"].label["old-49"]` (delete)\n> - ...and 151 more\n\n');
    expect(past).toContain("| ...and 1 more target |  |  |\n\nSymbols: `+` create,");
    expect(shownChanges(past)).toBe(201);
    expect(note(past)).toBe(
      "This report was cut to stay under 65,000 characters: the lists above leave out 151 banner entries, 1 target row. Run `forgeform plan` for the full plan.",
    );
  });

  it("ends the target table at the first row that does not fit, keeping room for the row that counts the rest", () => {
    const long = projectBadge(`acme/${"x".repeat(2_500)}`);
    const changes = [
      projectBadge("acme/a"),
      projectBadge("acme/b", "other"),
      long,
      ...["c", "d", "e"].map((p) => projectBadge(`acme/${p}`)),
    ];
    const md = renderPlanMarkdown(makePlan(changes), { maxLength: 3_000 });
    expect(tableRows(md)).toEqual([
      '| `project["acme/a"]` | +1 |',
      '| `project["acme/b"]` | +1 |',
      "| ...and 4 more targets |  |",
    ]);

    // Short rows cut by the limit: the rows shown, then the one that counts the rest.
    const many = Array.from({ length: 150 }, (_, i) => projectBadge(`acme/p${i}`, `b${i}`));
    const cut = renderPlanMarkdown(makePlan(many), { maxLength: 3_000 });
    const rows = tableRows(cut);
    const shown = rows.length - 1;
    expect(shown).toBeGreaterThan(10);
    expect(rows.slice(0, shown)).toEqual(many.slice(0, shown).map((c) => `| \`${c.parent}\` | +1 |`));
    expect(rows.at(-1)).toBe(`| ...and ${150 - shown} more targets |  |`);
    expect(note(cut)).toContain(`the lists above leave out ${150 - shown} target rows.`);
    expect(cut.length).toBeLessThanOrEqual(3_000);
  });

  it("counts every target as left out when even the table's header does not fit", () => {
    const kinds = [
      ...["badges", "labels", "milestones", "variables", "hooks", "pipeline_schedules"],
      ...["protected_branches", "protected_environments", "deploy_tokens", "access_requests"],
    ];
    const changes = kinds.map((k, i) => ({ ...projectBadge("acme/a", `k${i}`), collection: k }));
    const md = renderPlanMarkdown(
      makePlan(changes, { errors: problems(40, "a long error message that fills") }),
      {
        maxLength: 2_000,
      },
    );
    expect(md).not.toContain("| Target |");
    // A change block is shorter than the header: the first still fits.
    expect(shownChanges(md)).toBe(1);
    const shownErrors = md.split("\n").filter((l) => l.startsWith("- `")).length;
    expect(shownErrors).toBeGreaterThan(0);
    expect(md).toContain(`- ...and ${40 - shownErrors} more errors\n`);
    expect(note(md)).toBe(
      `This report was cut to stay under 2,000 characters: 9 of 10 changes are not shown; the lists above leave out ${40 - shownErrors} errors, 1 target row. Run \`forgeform plan\` for the full plan.`,
    );
  });

  it("shows nothing of a later target once a change did not fit", () => {
    const huge: Change = {
      ...projectBadge("acme/a", "huge"),
      fields: [{ field: "description", after: "y".repeat(3_000) }],
    };
    const md = renderPlanMarkdown(
      makePlan([projectBadge("acme/a", "small"), huge, projectBadge("acme/b", "tiny")]),
      {
        maxLength: 3_000,
      },
    );
    expect(md).toContain('+ project["acme/a"].badge["small"]');
    expect(md).not.toContain('+ project["acme/a"].badge["huge"]');
    expect(md).not.toContain('+ project["acme/b"].badge["tiny"]');
    expect(leftOut(md)).toBe(2);
    expect(note(md)).toBe(
      "This report was cut to stay under 3,000 characters: 2 of 3 changes are not shown. Run `forgeform plan` for the full plan.",
    );
    expectBalanced(md);
  });

  it("keeps room for the note after every part of a cut comment, its last line included", () => {
    const plan = bigPlan(12);
    let cuts = 0;
    for (let limit = 2_000; limit <= 4_000; limit += 5) {
      const md = renderPlanMarkdown(plan, { maxLength: limit });
      const closing = md.indexOf("\n> [!NOTE]\n");
      if (closing === -1) continue;
      cuts++;
      expect(closing, `limit ${limit}`).toBeLessThanOrEqual(limit - 1_000);
    }
    expect(cuts).toBeGreaterThan(100);
  });
});

describe("changes repeated alike in the comment", () => {
  it("are shown once, with where, and the rest by target", () => {
    const md = renderPlanMarkdown(
      makePlan([
        projectBadge("acme/a"),
        projectBadge("acme/b"),
        projectBadge("acme/c"),
        projectBadge("acme/a", "other"),
      ]),
    );
    expect(md).toContain(`| \`project["acme/a"]\` | +2 |
| \`project["acme/b"]\` | +1 |
| \`project["acme/c"]\` | +1 |

Symbols: \`+\` create, \`~\` update in place, \`-/+\` replace (delete, then create), \`-\` delete, \`!\` unmanaged (not in the manifests, left alone).

<details><summary>Repeated in many projects: 3 changes shown as 1 change</summary>

\`\`\`diff
+ badge["coverage"]
+     link_url: "https://ci.example/coverage"
#     in 3 projects: acme/a, acme/b, acme/c
\`\`\`

</details>

<details><summary><code>project[&quot;acme/a&quot;]</code>: 1 to create</summary>

\`\`\`diff
+ project["acme/a"].badge["other"]
+     link_url: "https://ci.example/other"
\`\`\`

</details>

Read live state with 12 requests. 4 changes to apply.
`);
  });

  it("are cut whole like any change, and the note counts each change a cut block stood for", () => {
    const sets = 40;
    const changes = Array.from({ length: sets }, (_, s) =>
      ["a", "b", "c"].map((p) => projectBadge(`acme/${p}`, `badge-number-${s}`)),
    ).flat();
    const plan: Plan = makePlan([...changes, projectBadge("acme/d", "single")]);
    const md = renderPlanMarkdown(plan, { maxLength: 4_000 });
    expect(md).toContain(
      `<summary>Repeated in many projects: 120 changes shown as ${sets} changes</summary>`,
    );
    const shown = md.split("\n").filter((l) => l.startsWith('+ badge["badge-number-')).length;
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(sets);
    expect(md).not.toContain("single");
    expect(note(md)).toBe(
      `This report was cut to stay under 4,000 characters: ${(sets - shown) * 3 + 1} of 121 changes are not shown. Run \`forgeform plan\` for the full plan.`,
    );
    expectBalanced(md);
  });

  it("once a repeated block did not fit, shows no later change, however small", () => {
    const long = "https://ci.example/".padEnd(75, "x");
    const big = (s: number) =>
      ["a", "b", "c"].map((p) => ({
        ...projectBadge(`acme/${p}`, `badge-number-${s}`),
        fields: Array.from({ length: 6 }, (_, f) => ({ field: `field_${f}`, after: long })),
      }));
    const plan = makePlan([
      ...Array.from({ length: 20 }, (_, s) => big(s)).flat(),
      projectBadge("acme/d", "x"),
    ]);
    let cuts = 0;
    for (let limit = 4_000; limit <= 6_000; limit += 50) {
      const md = renderPlanMarkdown(plan, { maxLength: limit });
      const shown = md.split("\n").filter((l) => l.startsWith('+ badge["badge-number-')).length;
      if (shown === 20) continue;
      cuts++;
      expect(md, `limit ${limit}`).not.toContain('badge["x"]');
      expect(leftOut(md), `limit ${limit}`).toBe((20 - shown) * 3 + 1);
    }
    expect(cuts).toBeGreaterThan(20);
  });
});
