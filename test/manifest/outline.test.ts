/**
 * Outlines: what a manifest file defines and uses, read without parsing it (or from a parse when the scanner cannot
 * tell), and which files a change or a shard needs from them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  type Outline,
  type OutlinedFile,
  outlineOf,
  outlineOfValues,
  shardFiles,
  shardTargets,
  touchedFiles,
} from "../../src/manifest/outline.js";

const names = (o: Outline | undefined) =>
  o && {
    manifest: o.manifest,
    instance: o.instance,
    templates: [...o.templates].sort(),
    entries: o.entries.map((e) => `${e.collection}:${e.key}`).sort(),
    uses: [...o.uses].sort(),
  };

describe("the outline of a file", () => {
  it("names its templates, entries, instance settings and the templates it extends, in every spelling", () => {
    const text = `# a comment
version: 1
templates:
  base: { badges: [] }
  "with space":
    extends: base
instance:
  application_settings: { signup_enabled: false }
groups:
  acme:
    description: |
      text that looks like keys:
      extends: not-a-template
    extends: [base, "with space"]
  'acme/**':
    extends:
      - base
projects:
  acme/api: { extends: [base], badges: [] }
  "other/x":
    description: "a: b"
`;
    expect(names(outlineOf(text))).toEqual({
      manifest: true,
      instance: true,
      templates: ["base", "with space"],
      entries: ["groups:acme", "groups:acme/**", "projects:acme/api", "projects:other/x"],
      uses: ["base", "with space"],
    });
    // The same as a parse says.
    expect(names(outlineOf(text))).toEqual(names(outlineOfValues([parse(text)], text)));
  });

  it("weighs each entry by its text", () => {
    const text = "version: 1\nprojects:\n  a/x:\n    badges: []\n  a/y: {}\n";
    const o = outlineOf(text)!;
    expect(o.entries.map((e) => [e.key, e.size])).toEqual([
      ["a/x", "  a/x:\n    badges: []\n".length],
      ["a/y", "  a/y: {}\n".length],
    ]);
  });

  it("gives up where only a parse can tell: anchors, aliases, merge keys, flow sections, several documents, tabs", () => {
    for (const text of [
      "version: 1\ngroups:\n  a: &x {}\n  b: *x\n",
      "version: 1\ngroups:\n  a:\n    <<: {}\n",
      "version: 1\ngroups: { a: {} }\n",
      "version: 1\n---\nversion: 1\n",
      "version: 1\ngroups:\n\ta: {}\n",
      "version: 1\ngroups:\n  ? a\n  : {}\n",
    ])
      expect(outlineOf(text), text).toBeUndefined();
  });

  it("agrees with a parse on every example manifest", () => {
    const dir = join(import.meta.dirname, "../../examples");
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".yaml") && !n.startsWith("sandbox"))) {
      const text = readFileSync(join(dir, name), "utf8");
      const scanned = outlineOf(text);
      if (scanned) expect(names(scanned), name).toEqual(names(outlineOfValues([parse(text)], text)));
    }
  });
});

describe("the files a change needs", () => {
  const file = (name: string, o: Partial<Outline>): OutlinedFile => ({
    file: name,
    outline: { manifest: true, instance: false, instanceSize: 0, templates: [], entries: [], uses: [], ...o },
  });
  const entry = (key: string, collection: "groups" | "projects" = "projects") => ({
    collection,
    key,
    size: 10,
  });
  const files = [
    file("templates.yaml", { templates: ["t", "u"], uses: ["base"] }),
    file("base.yaml", { templates: ["base"] }),
    file("users.yaml", { entries: [entry("a/one")], uses: ["t"] }),
    file("others.yaml", { entries: [entry("b/two")], uses: ["u"] }),
    file("plain.yaml", { entries: [entry("c/three")] }),
    file("pattern.yaml", { entries: [entry("a/**")] }),
    file("groups.yaml", { entries: [entry("a", "groups"), entry("a/sub", "groups")] }),
    file("elsewhere.yaml", { entries: [entry("z", "groups")] }),
    file("instance.yaml", { instance: true, instanceSize: 50 }),
  ];

  it("a changed template: every file that uses one of the file's templates, and what they need", () => {
    expect([...touchedFiles(files, ["templates.yaml"])].sort()).toEqual([
      "base.yaml", // the templates' own extends
      "groups.yaml", // a group above users.yaml's project
      "instance.yaml",
      "others.yaml",
      "pattern.yaml", // a pattern over users.yaml's project
      "templates.yaml",
      "users.yaml",
    ]);
  });

  it("a changed entry: its templates, patterns over it and groups above it, not the other users of those", () => {
    expect([...touchedFiles(files, ["users.yaml"])].sort()).toEqual([
      "base.yaml",
      "groups.yaml",
      "instance.yaml",
      "pattern.yaml",
      "templates.yaml",
      "users.yaml",
    ]);
    expect([...touchedFiles(files, ["plain.yaml"])].sort()).toEqual(["instance.yaml", "plain.yaml"]);
    expect([...touchedFiles(files, [])]).toEqual([]);
  });

  it("a changed pattern: every file with entries below it", () => {
    expect([...touchedFiles(files, ["pattern.yaml"])]).toEqual(
      expect.arrayContaining(["users.yaml", "groups.yaml", "pattern.yaml"]),
    );
    expect(touchedFiles(files, ["pattern.yaml"]).has("others.yaml")).toBe(false);
  });

  it("shards: targets weighed by their text, each file read by the shards of its targets", () => {
    const one = shardTargets(files, { index: 1, count: 2 })!;
    const two = shardTargets(files, { index: 2, count: 2 })!;
    expect([...one, ...two].sort()).toEqual(["a", "b", "c", "instance", "z"]);
    expect([...one].filter((t) => two.has(t))).toEqual([]);
    const read = (targets: Set<string>) => shardFiles(files, targets);
    for (const target of ["b", "c", "z"]) {
      const owner = one.has(target) ? one : two;
      const other = owner === one ? two : one;
      const holder = { b: "others.yaml", c: "plain.yaml", z: "elsewhere.yaml" }[target]!;
      expect(read(owner).has(holder)).toBe(true);
      expect(read(other).has(holder)).toBe(false);
    }
    // A pattern over every top-level target: only the platform knows which targets exist.
    expect(
      shardTargets([...files, file("all.yaml", { entries: [entry("**")] })], { index: 1, count: 2 }),
    ).toBeUndefined();
  });
});
