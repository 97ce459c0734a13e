/**
 * What every renderer shares, as units: where an address belongs, which fields of a change are shown and how
 * (masks, unset values, long and structured values as diffs), and changes repeated alike in many groups or projects.
 */
import { describe, expect, it } from "vitest";
import { targetOf } from "../../src/plan/address.js";
import type { Change } from "../../src/plan/model.js";
import {
  fieldViews,
  formatValue,
  isRepeated,
  plural,
  problemLine,
  type RepeatedChange,
  repeatedChanges,
  repeatedWhere,
  unifiedDiff,
} from "../../src/report/common.js";

const change = (
  action: Change["action"],
  fields: Change["fields"],
  address = 'project["a"].badge["b"]',
): Change => ({
  address,
  collection: "badges",
  key: "b",
  action,
  fields,
});

describe("targetOf", () => {
  it("is the group, project or instance an address belongs to", () => {
    expect(targetOf('project["acme/api"].pipeline_schedule["N"].variable["V"]')).toBe('project["acme/api"]');
    expect(targetOf('group["acme/platform"]')).toBe('group["acme/platform"]');
    expect(targetOf('group["a\\"].b"].badge["x"]')).toBe('group["a\\"].b"]');
    expect(targetOf('instance.system_hook["https://h"]')).toBe("instance");
    expect(targetOf("instance")).toBe("instance");
    expect(targetOf("instance_x.y")).toBe("instance_x");
  });

  it("is the address itself when it is not one of those shapes", () => {
    const odds = ['project["unclosed', 'project["a"x', "[x]", 'project["a\\'];
    // A key that is not a JSON string, or a string not closed by "]", even with more after it.
    odds.push('project[x"].badge["b"]', 'project["a"x.badge["b"]');
    for (const odd of odds) expect(targetOf(odd), odd).toBe(odd);
  });
});

describe("formatValue and problemLine", () => {
  it("writes JSON, masks bare, unset as such, and a sensitive field's value never", () => {
    expect(formatValue(undefined)).toBe("(unset)");
    expect(formatValue("x")).toBe('"x"');
    expect(formatValue(null)).toBe("null");
    expect(formatValue({ a: [1] })).toBe('{"a":[1]}');
    expect(formatValue("(sensitive)")).toBe("(sensitive)");
    expect(formatValue("(write-only)")).toBe("(write-only)");
    expect(formatValue("leaked", { field: "token", sensitive: true })).toBe("(sensitive)");
  });

  it("writes a problem with its place when it has one, control characters escaped", () => {
    expect(problemLine({ address: "instance", message: "bad\u001b[2J" })).toBe("instance: bad\\x1b[2J");
    expect(problemLine({ address: "i", message: "m", source: { file: "f.yaml", line: 2, col: 3 } })).toBe(
      "f.yaml:2:3: i: m",
    );
  });

  it("counts in words", () => {
    expect([plural(1, "change"), plural(2, "change"), plural(1_234, "entry", "entries")]).toEqual([
      "1 change",
      "2 changes",
      "1,234 entries",
    ]);
  });
});

describe("fieldViews", () => {
  it("shows what was declared for a create, what is live for a delete, and what differs for an update", () => {
    const fields = [
      { field: "name", before: "a", after: "b" },
      { field: "same", before: 1, after: 1 },
      { field: "new", after: true },
      { field: "old", before: false },
    ];
    expect(fieldViews(change("create", fields))).toEqual([
      { field: "name", forcesReplacement: false, after: '"b"' },
      { field: "same", forcesReplacement: false, after: "1" },
      { field: "new", forcesReplacement: false, after: "true" },
    ]);
    expect(fieldViews(change("delete", fields)).map((v) => [v.field, v.before, v.after])).toEqual([
      ["name", '"a"', undefined],
      ["same", "1", undefined],
      ["old", "false", undefined],
    ]);
    expect(fieldViews(change("update", fields)).map((v) => [v.field, v.before, v.after])).toEqual([
      ["name", '"a"', '"b"'],
      ["new", "(unset)", "true"],
      ["old", "false", "(unset)"],
    ]);
  });

  it("always shows masked fields (their masks cannot be compared), and no live value of a write-only one", () => {
    const views = fieldViews(
      change("update", [
        { field: "token", before: "(sensitive)", after: "(sensitive)", sensitive: true },
        { field: "secret", after: "(write-only)", writeOnly: true },
        { field: "note\u001b", before: 1, after: 2, note: "restart\u0007", forcesReplacement: true },
      ]),
    );
    expect(views).toEqual([
      { field: "token", forcesReplacement: false, before: "(sensitive)", after: "(sensitive)" },
      { field: "secret", forcesReplacement: false, after: "(write-only)" },
      { field: "note\\x1b", forcesReplacement: true, note: "restart\\x07", before: "1", after: "2" },
    ]);
  });

  it("shows long text, multi-line text and long structures as a diff; short ones and masks as values", () => {
    const long = "x".repeat(81);
    const [text] = fieldViews(change("update", [{ field: "d", before: long, after: `${long}y` }]));
    expect(text!.diff).toEqual([
      { op: "@", text: "@@ -1,1 +1,1 @@" },
      { op: "-", text: long },
      { op: "+", text: `${long}y` },
    ]);
    expect(fieldViews(change("update", [{ field: "d", before: "x".repeat(80), after: "y" }]))[0]!.diff).toBe(
      undefined,
    );
    const list = Array.from({ length: 12 }, (_, i) => `item-${i}`);
    const [structured] = fieldViews(
      change("update", [{ field: "l", before: list, after: [...list, "more"] }]),
    );
    expect(structured!.diff?.filter((l) => l.op === "+")).toEqual([
      { op: "+", text: '  "item-11",' },
      { op: "+", text: '  "more"' },
    ]);
    // A created text is all added lines, without a hunk header; an unmanaged one is shown, not marked removed.
    expect(fieldViews(change("create", [{ field: "d", after: "a\nb\u001b" }]))[0]!.diff).toEqual([
      { op: "+", text: "a" },
      { op: "+", text: "b\\x1b" },
    ]);
    expect(fieldViews(change("unmanaged", [{ field: "d", before: "a\nb" }]))[0]!.diff).toEqual([
      { op: " ", text: "a" },
      { op: " ", text: "b" },
    ]);
    // A masked value is never diffed, however it looks.
    const masked = fieldViews(
      change("update", [{ field: "t", before: long, after: "a\nb", sensitive: true }]),
    );
    expect(masked).toEqual([
      { field: "t", forcesReplacement: false, before: "(sensitive)", after: "(sensitive)" },
    ]);
    // Texts that differ only in a final newline have no line-level difference: shown as values.
    expect(fieldViews(change("update", [{ field: "d", before: "a\nb", after: "a\nb\n" }]))[0]!.diff).toBe(
      undefined,
    );
  });

  it("diffs only text against text: a number or null against long text is shown as before -> after", () => {
    const long = "x".repeat(81);
    for (const other of [5, null, true]) {
      expect(fieldViews(change("update", [{ field: "d", before: other, after: long }]))).toEqual([
        { field: "d", forcesReplacement: false, before: JSON.stringify(other), after: JSON.stringify(long) },
      ]);
      expect(fieldViews(change("update", [{ field: "d", before: long, after: other }]))).toEqual([
        { field: "d", forcesReplacement: false, before: JSON.stringify(long), after: JSON.stringify(other) },
      ]);
    }
  });

  it("diffs a structure whose JSON is longer than 80 characters, and shows one of 80 or less as values", () => {
    expect(fieldViews(change("update", [{ field: "o", before: { a: 1 }, after: { a: 2 } }]))).toEqual([
      { field: "o", forcesReplacement: false, before: '{"a":1}', after: '{"a":2}' },
    ]);
    const at = ["y".repeat(76)]; // ["yyy…"]: 80 characters of JSON
    expect(JSON.stringify(at)).toHaveLength(80);
    expect(fieldViews(change("update", [{ field: "l", before: [], after: at }]))[0]!.diff).toBeUndefined();
    const past = ["y".repeat(77)];
    expect(fieldViews(change("update", [{ field: "l", before: [], after: past }]))[0]!.diff).toEqual([
      { op: "@", text: "@@ -1,1 +1,3 @@" },
      { op: "-", text: "[]" },
      { op: "+", text: "[" },
      { op: "+", text: `  "${"y".repeat(77)}"` },
      { op: "+", text: "]" },
    ]);
  });

  it("diffs long text with several hunks", () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join("\n");
    const after = before.replace("line 1\n", "line one\n").replace("line 18", "line eighteen");
    expect(unifiedDiff("d", before, after)?.filter((l) => l.op === "@")).toEqual([
      { op: "@", text: "@@ -1,5 +1,5 @@" },
      { op: "@", text: "@@ -16,5 +16,5 @@" },
    ]);
    expect(unifiedDiff("d", "same", "same")).toBeUndefined();
  });
});

describe("repeatedChanges", () => {
  const badge = (project: string, name = "coverage", action: Change["action"] = "create"): Change =>
    change(action, [{ field: "name", after: name }], `project["${project}"].badge["${name}"]`);

  it("shows a change made alike below three or more projects once, in plan order", () => {
    const changes = [
      badge("a"),
      badge("b", "other"),
      badge("b"),
      badge("c"),
      badge("d", "x", "update"),
      badge("e"),
    ];
    const out = repeatedChanges(changes);
    expect(
      out.map((e) => (isRepeated(e) ? `repeated ${e.suffix} in ${e.paths.join(",")}` : e.address)),
    ).toEqual([
      'repeated badge["coverage"] in a,b,c,e',
      'project["b"].badge["other"]',
      'project["d"].badge["x"]',
    ]);
    const [first] = out;
    if (!first || !isRepeated(first)) throw new Error("expected a repeated change first");
    expect(first.owners).toBe("projects");
    expect(first.sample).toBe(changes[0]);
    expect(first.members).toEqual([changes[0], changes[2], changes[3], changes[5]]);
    expect(repeatedWhere(first, 2)).toBe("in 4 projects: a, b and 2 more");
    expect(repeatedWhere(first)).toBe("in 4 projects: a, b, c, e");
  });

  it("shows a change made alike below exactly three projects once, and names five paths without 'and 0 more'", () => {
    const three = repeatedChanges([badge("a"), badge("b"), badge("c")]);
    expect(three).toHaveLength(1);
    expect(isRepeated(three[0]!)).toBe(true);
    const [five] = repeatedChanges(["a", "b", "c", "d", "e"].map((p) => badge(p)));
    if (!five || !isRepeated(five)) throw new Error("expected a repeated change");
    expect(repeatedWhere(five)).toBe("in 5 projects: a, b, c, d, e");
    const [six] = repeatedChanges(["a", "b", "c", "d", "e", "f"].map((p) => badge(p)));
    expect(repeatedWhere(six as RepeatedChange)).toBe("in 6 projects: a, b, c, d, e and 1 more");
  });

  it("keeps changes apart whose reasons or deleting groups differ; an empty one is the same as none", () => {
    const withReason = (p: string, reason: string) => ({ ...badge(p, "coverage", "delete"), reason });
    const reasons = [withReason("a", "one"), withReason("b", "one"), withReason("c", "two")];
    expect(repeatedChanges(reasons).some(isRepeated)).toBe(false);
    const withGroup = (p: string, deletedWith: string) => ({
      ...badge(p, "coverage", "delete"),
      deletedWith,
    });
    const groups = [withGroup("a", 'group["x"]'), withGroup("b", 'group["x"]'), withGroup("c", 'group["y"]')];
    expect(repeatedChanges(groups).some(isRepeated)).toBe(false);
    // No renderer shows an empty reason or deleting group, so the changes read alike and are shown once.
    const empty = [badge("a"), { ...badge("b"), reason: "" }, { ...badge("c"), deletedWith: "" }];
    expect(repeatedChanges(empty).map(isRepeated)).toEqual([true]);
  });

  it("keeps changes apart that differ, are too few, or belong to no group or project", () => {
    expect(repeatedChanges([badge("a"), badge("b")]).some(isRepeated)).toBe(false);
    const deleted = [badge("a"), badge("b"), { ...badge("c"), reason: "another reason" }];
    expect(repeatedChanges(deleted).some(isRepeated)).toBe(false);
    const instance = ["x", "y", "z"].map((k) => change("create", [], `instance.system_hook["${k}"]`));
    expect(repeatedChanges(instance)).toEqual(instance);
    const owners = ["a", "b", "c"].map((g) => change("update", [], `group["${g}"]`));
    expect(repeatedChanges(owners)).toEqual(owners);
  });
});
