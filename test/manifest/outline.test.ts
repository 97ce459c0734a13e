/**
 * Outlines: what a manifest file defines and uses, read without parsing it (or from a parse when the scanner cannot
 * tell), and which files a change or a shard needs from them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  chunkLayout,
  keepEntries,
  type Outline,
  type OutlinedFile,
  outlineOf,
  outlineOfValues,
  shardEntries,
  shardFiles,
  shardTargets,
  touchedEntries,
  touchedFiles,
} from "../../src/manifest/outline.js";

const names = (o: Outline | undefined) =>
  o && {
    manifest: o.manifest,
    instance: o.instance,
    templates: [...o.templates].sort(),
    entries: o.entries.map((e) => `${e.collection}:${e.key}`).sort(),
    uses: [...o.uses].sort(),
    // What each entry extends, and what the templates do: which entries a changed template touches.
    entryUses: Object.fromEntries(
      o.entries.map((e) => [`${e.collection}:${e.key}`, [...(e.uses ?? [])].sort()]),
    ),
    headUses: [...(o.headUses ?? [])].sort(),
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
      entryUses: {
        "groups:acme": ["base", "with space"],
        "groups:acme/**": ["base"],
        "projects:acme/api": ["base"],
        "projects:other/x": [],
      },
      headUses: ["base"],
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
      // Escapes of YAML's double-quoted scalars that JSON does not have, in a key and in a value.
      'version: 1\nprojects:\n  "acme/\\x41pi": {}\n',
      'version: 1\nprojects:\n  acme/api:\n    "st\\x61te": absent\n',
      'version: 1\nprojects:\n  acme/api:\n    extends: "b\\e"\n',
      // A root indented as a whole; an entry in flow style over two lines; what follows `extends:` on the next
      // lines as a flow list or a name; a value that goes on on the next line (`absent later`, `t1 more`).
      "  version: 1\n  projects:\n    a/b:\n      state: absent\n",
      "version: 1\nprojects:\n  a/b: {description: x,\n    state: absent}\n",
      "version: 1\nprojects:\n  a/b:\n    extends:\n      [t1,\n       t2]\n",
      "version: 1\nprojects:\n  a/b:\n    extends:\n      t1\n",
      "version: 1\nprojects:\n  a/b:\n    state: absent\n      later\n",
      "version: 1\nprojects:\n  a/b:\n    extends: t1\n      more\n",
      "version: 1\nprojects:\n  a/b:\n    extends:\n      - t1\n        more\n",
      // Content after the document's end.
      "version: 1\n...\nprojects:\n  a/b: {}\n",
    ])
      expect(outlineOf(text), text).toBeUndefined();
    // Such a file is outlined from a parse, which reads the escapes.
    const escaped = 'version: 1\nprojects:\n  acme/api:\n    "st\\x61te": absent\n';
    expect(outlineOfValues([parse(escaped)], escaped).entries[0]).toMatchObject({
      key: "acme/api",
      absent: true,
    });
  });

  it("reads `state` and `extends` however their keys are written, and nothing inside a block scalar", () => {
    // Keys in escapes, quoted, after a list dash; block scalars of every header, whose lines look like keys.
    const text = `version: 1
projects:
  a/one:
    "st\\u0061te": absent
    "ext\\u0065nds": [t1]
  a/two:
    'state': absent
    description: |-
      state: present
      extends: [not-this]
  a/three:
    notes: >+2
        extends: [nor-this]
    badges:
      - name: x
        description: |
          state: absent
    extends:
      - t2
  a/four:
    description: "a | b > c"
    state: present
`;
    const o = outlineOf(text)!;
    expect(o.entries.map((e) => [e.key, e.absent === true, e.uses])).toEqual([
      ["a/one", true, ["t1"]],
      ["a/two", true, []],
      ["a/three", false, ["t2"]],
      ["a/four", false, []],
    ]);
    expect(names(o)).toEqual(names(outlineOfValues([parse(text)], text)));
  });

  it("reads a file that starts with a byte order mark, ends with `...`, or tags a block scalar", () => {
    // Editors on Windows write the mark; a file outlined without a `version` was left out of shards and chunks.
    for (const text of [
      "\uFEFFversion: 1\nprojects:\n  a/b:\n    extends: [t1]\n",
      "version: 1\nprojects:\n  a/b:\n    extends: [t1]\n... # the end\n# a comment\n",
      "version: 1\nprojects:\n  a/b:\n    description: !!str |\n      extends: [t2]\n      state: absent\n    extends: [t1]\n",
      "version: 1\nprojects:\n  a/b:\n    description: |2-\n        extends: [t2]\n    extends: [t1]\n",
    ]) {
      const o = outlineOf(text);
      expect(names(o), text).toEqual(names(outlineOfValues([parse(text)], text)));
      expect(o?.manifest).toBe(true);
      expect(o?.entries.map((e) => [e.key, e.uses])).toEqual([["a/b", ["t1"]]]);
    }
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

  it("a changed group: the groups declared above and below it, whose visibilities are checked with it", () => {
    const more = [
      ...files,
      file("deep.yaml", { entries: [entry("a/sub/deeper", "groups")] }),
      file("project.yaml", { entries: [entry("a/sub/app")] }),
    ];
    expect([...touchedFiles(more, ["deep.yaml"])]).toEqual([
      "deep.yaml",
      "pattern.yaml", // a/** covers it
      "groups.yaml", // a and a/sub, above it
      "instance.yaml",
    ]);
    expect([...touchedFiles(more, ["groups.yaml"])]).toEqual([
      "groups.yaml",
      "pattern.yaml",
      "deep.yaml", // a group below a/sub; the project below it is not a group
      "instance.yaml",
    ]);
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

describe("the entries a change needs, and a file read in part", () => {
  const MIXED = `version: 1
templates:
  local: { badges: [] }
groups:
  acme: {}
projects:
  # the first project
  acme/api:
    extends: [nightly]
    description: |
      acme/other:
        extends: [nightly]

  acme/web:
    extends:
      - local
  beta/x: { extends: [nightly] }
  gamma/y:
    description: "never closed
`;

  it("knows each entry's lines, its section's line and what it extends", () => {
    const o = outlineOf(MIXED)!;
    expect(o.entries.map((e) => [e.key, e.rows, e.section, e.uses])).toEqual([
      ["acme", [4, 5], 3, []],
      // From its key to the next entry's: the block scalar, and the blank line after it (not the comment above it).
      ["acme/api", [7, 13], 5, ["nightly"]],
      ["acme/web", [13, 16], 5, ["local"]],
      ["beta/x", [16, 17], 5, ["nightly"]],
      ["gamma/y", [17, 20], 5, []],
    ]);
    expect(o.headUses).toEqual([]);
  });

  it("reads only the kept entries, each line and column where it is in the file", () => {
    const kept = keepEntries(MIXED, new Set(["projects:acme/api", "projects:beta/x"]))!;
    const before = MIXED.split("\n");
    const after = kept.split("\n");
    expect(after).toHaveLength(before.length);
    for (const [i, line] of after.entries())
      expect(line === "#" || line === "" || line === before[i], `line ${i + 1}`).toBe(true);
    // The file's head stays; the left-out entries and the section left empty (groups) are gone; the broken one too.
    expect(parse(kept)).toEqual({
      version: 1,
      templates: { local: { badges: [] } },
      projects: {
        "acme/api": { extends: ["nightly"], description: "acme/other:\n  extends: [nightly]\n" },
        "beta/x": { extends: ["nightly"] },
      },
    });
    expect(parse(keepEntries(MIXED, new Set())!)).toEqual({
      version: 1,
      templates: { local: { badges: [] } },
    });
    // Keys compare in any case, as paths do on the platform.
    expect(Object.keys(parse(keepEntries(MIXED, new Set(["projects:beta/x"]))!).projects)).toEqual([
      "beta/x",
    ]);
    expect(keepEntries("version: 1\ngroups: { a: {} }\n", new Set())).toBeUndefined();
    // Windows line ends stay.
    expect(keepEntries("version: 1\r\nprojects:\r\n  a/b: {}\r\n", new Set())).toBe(
      "version: 1\r\n#\r\n#\r\n",
    );
    // The last line, with no line break after it; every entry kept: the text as it is.
    expect(keepEntries("version: 1\nprojects:\n  a/b: {}\n  a/c: {}", new Set(["projects:a/b"]))).toBe(
      "version: 1\nprojects:\n  a/b: {}\n#",
    );
    // A block scalar that keeps its final line breaks, right before a left-out entry: the lines left out are
    // comments, which end it as the entry's key did (blank lines would have become part of its value).
    const withKeptBreaks =
      "version: 1\nprojects:\n  a/b:\n    description: |+\n      text\n\n  a/c:\n    description: x\n";
    expect(parse(keepEntries(withKeptBreaks, new Set(["projects:a/b"]))!)).toEqual({
      version: 1,
      projects: { "a/b": { description: "text\n\n" } },
    });
    expect(parse(withKeptBreaks).projects["a/b"]).toEqual({ description: "text\n\n" });
    expect(
      keepEntries(MIXED, new Set(outlineOf(MIXED)!.entries.map((e) => `${e.collection}:${e.key}`))),
    ).toBe(MIXED);
  });

  it("reads in part from the outline made of the text already, never from one made by a parse", () => {
    const keep = new Set(["projects:acme/web"]);
    expect(keepEntries(MIXED, keep, outlineOf(MIXED))).toBe(keepEntries(MIXED, keep));
    // An outline from a parse knows no lines: the file is read whole.
    const parsed = outlineOfValues([{ version: 1, projects: { "acme/api": {}, "acme/web": {} } }], MIXED);
    expect(keepEntries(MIXED, keep, parsed)).toBeUndefined();
  });

  const files = [
    { file: "mixed.yaml", outline: outlineOf(MIXED)! },
    {
      file: "nightly.yaml",
      outline: outlineOf("version: 1\ntemplates:\n  nightly:\n    extends: [base]\n")!,
    },
    { file: "base.yaml", outline: outlineOf("version: 1\ntemplates:\n  base: {}\n")! },
    { file: "pattern.yaml", outline: outlineOf('version: 1\nprojects:\n  "acme/*": {}\n')! },
    { file: "other.yaml", outline: outlineOf("version: 1\nprojects:\n  delta/z: {}\n")! },
  ];
  const partsOf = (selection: { files: Set<string>; partial: Map<string, Set<string>> }) =>
    Object.fromEntries(
      [...selection.files]
        .sort()
        .map((f) => [f, selection.partial.has(f) ? [...selection.partial.get(f)!].sort() : "whole"]),
    );

  it("a changed template: the entries that use it, not the other entries of their files", () => {
    expect(partsOf(touchedEntries(files, ["nightly.yaml"]))).toEqual({
      "base.yaml": "whole",
      // The users, the group above acme/api, the pattern over it; not acme/web, gamma/y.
      "mixed.yaml": ["groups:acme", "projects:acme/api", "projects:beta/x"],
      "nightly.yaml": "whole",
      "pattern.yaml": "whole",
    });
    expect(touchedFiles(files, ["nightly.yaml"]).has("other.yaml")).toBe(false);
  });

  it("a changed pattern: the entries below it; a file's own template: the entries of that file using it", () => {
    expect(partsOf(touchedEntries(files, ["pattern.yaml"]))).toEqual({
      "base.yaml": "whole",
      "mixed.yaml": ["groups:acme", "projects:acme/api", "projects:acme/web"],
      "nightly.yaml": "whole",
      "pattern.yaml": "whole",
    });
    // A prefix that shares characters is not below: acme/* covers acme/api, not acmeish/x.
    const near = [
      ...files,
      { file: "near.yaml", outline: outlineOf("version: 1\nprojects:\n  acmeish/x: {}\n")! },
    ];
    expect(touchedFiles(near, ["pattern.yaml"]).has("near.yaml")).toBe(false);
  });

  it("a shard reads its own entries of a file that holds another shard's", () => {
    expect(partsOf(shardEntries(files, new Set(["beta"])))).toEqual({
      "base.yaml": "whole",
      "mixed.yaml": ["projects:beta/x"],
      "nightly.yaml": "whole",
    });
    expect(partsOf(shardEntries(files, new Set(["gamma"])))).toEqual({ "mixed.yaml": ["projects:gamma/y"] });
  });

  it("a file outlined from a parse is read whole", () => {
    const parsed = [
      ...files,
      {
        file: "flow.yaml",
        outline: outlineOfValues(
          [{ version: 1, projects: { "beta/q": { extends: ["nightly"] }, "beta/r": {} } }],
          "x",
        ),
      },
    ];
    expect(touchedEntries(parsed, ["nightly.yaml"]).partial.has("flow.yaml")).toBe(false);
    expect(touchedEntries(parsed, ["nightly.yaml"]).files.has("flow.yaml")).toBe(true);
  });

  it("every shard reads a file no shard owns a part of: no parse can read it, or it holds no entries", () => {
    const broken = { ...outlineOfValues([null], "x"), unreadable: true };
    const ownerless = [
      ...files,
      { file: "broken.yaml", outline: broken },
      // A template no entry uses, a manifest with nothing to plan: what a full run reports of them is reported.
      // (One template of it extends the other: still none that another file uses.)
      {
        file: "unused.yaml",
        outline: outlineOf("version: 1\ntemplates:\n  unused: { extends: [inner] }\n  inner: {}\n")!,
      },
      { file: "nothing.yaml", outline: outlineOf("version: 1\nbogus: 1\n")! },
    ];
    for (const unit of ["beta", "gamma", "instance"]) {
      const parts = partsOf(shardEntries(ownerless, new Set([unit])));
      for (const file of ["broken.yaml", "unused.yaml", "nothing.yaml"])
        expect(parts[file], unit).toBe("whole");
    }
    // A chunk of a plan leaves them to the plan's last load.
    const chunk = partsOf(shardEntries(ownerless, new Set(["beta"]), false));
    for (const file of ["broken.yaml", "unused.yaml", "nothing.yaml"]) expect(chunk[file]).toBeUndefined();
    // A file of templates some entry uses is read by the shards whose entries use them only.
    expect(partsOf(shardEntries(files, new Set(["gamma"])))["nightly.yaml"]).toBeUndefined();
  });

  it("reads each entry of a file read whole with what it needs: its templates, the patterns over it", () => {
    // beta/q extends nightly; acme/s, beside it, is under pattern.yaml's acme/* and extends local (mixed.yaml's).
    const flow = outlineOfValues(
      [
        {
          version: 1,
          projects: { "beta/q": { extends: ["nightly"] }, "acme/s": { extends: ["local"] } },
        },
      ],
      "x",
    );
    const parsed = [...files, { file: "flow.yaml", outline: flow }];
    // A shard that owns beta reads flow.yaml whole for beta/q: acme/s comes with it, and needs mixed.yaml's head
    // (its template), pattern.yaml, and the group above it; not mixed.yaml's other entries.
    expect(partsOf(shardEntries(parsed, new Set(["beta"])))).toEqual({
      "base.yaml": "whole",
      "flow.yaml": "whole",
      "mixed.yaml": ["groups:acme", "projects:beta/x"],
      "nightly.yaml": "whole",
      "pattern.yaml": "whole",
    });
    // A change to base.yaml reaches beta/q (through nightly): flow.yaml is read whole the same way.
    expect(partsOf(touchedEntries(parsed, ["base.yaml"]))).toEqual({
      "base.yaml": "whole",
      "flow.yaml": "whole",
      "mixed.yaml": ["groups:acme", "projects:acme/api", "projects:beta/x"],
      "nightly.yaml": "whole",
      "pattern.yaml": "whole",
    });
    // A file that can be read in part brings only its selected entries' needs: without flow.yaml, no pattern.
    expect(partsOf(shardEntries(files, new Set(["beta"])))).not.toHaveProperty(["pattern.yaml"]);
  });
});

describe("a plan made in chunks, from the outlines", () => {
  it("marks an entry absent by its own state only, and leaves to a parse what the scanner cannot read", () => {
    const text = [
      "version: 1",
      "groups:",
      "  gone:",
      "    state: absent # deleted",
      "  kept:",
      "    description: d",
      "    members:",
      "    - state: absent",
      "      user: alice",
      "  quoted:",
      '    state: "absent"',
      "  present:",
      "    state: present",
      "projects:",
      "  gone/p:",
      "    badges:",
      "      x:",
      "        state: absent",
      "",
    ].join("\n");
    const absent = (o: Outline | undefined) => o?.entries.filter((e) => e.absent).map((e) => e.key);
    expect(absent(outlineOf(text))).toEqual(["gone", "quoted"]);
    expect(absent(outlineOfValues([parse(text)], text))).toEqual(["gone", "quoted"]);
    expect(outlineOf("version: 1\ngroups:\n  a: {state: absent}\n")).toBeUndefined();
    expect(outlineOf("version: 1\ngroups:\n  a:\n    {state: absent}\n")).toBeUndefined();
    expect(outlineOf("version: 1\ngroups:\n  a:\n    state: !!str absent\n")).toBeUndefined();
  });

  const file = (name: string, text: string): OutlinedFile => ({ file: name, outline: outlineOf(text)! });
  const files = [
    file(
      "a.yaml",
      "version: 1\ninstance:\n  application_settings: {}\ngroups:\n  b/sub:\n    x: 1\n  a:\n    x: 1\n",
    ),
    file(
      "b.yaml",
      "version: 1\ngroups:\n  b:\n    state: absent\n  c:\n    x: 1\nprojects:\n  a/deep/p:\n    x: 1\n  c/p:\n    x: 1\n",
    ),
  ];

  it("puts consecutive top-level trees in each chunk, and every group and project in the walk's order", () => {
    const layout = chunkLayout(files, { perChunk: 2, chunkSize: 1 })!;
    expect(layout.chunks.map((c) => [...c])).toEqual([
      ["instance", "b"],
      ["a", "c"],
    ]);
    // Deeper after shallower, then as the files and their entries come.
    expect(layout.order).toEqual({ groups: ["a", "b", "c", "b/sub"], projects: ["c/p", "a/deep/p"] });
    expect([...layout.present.groups]).toEqual(["b/sub", "a", "c"]);
    // By size: each chunk takes trees until it weighs chunkSize.
    expect(chunkLayout(files, { chunkSize: 1 })?.chunks.length).toBe(4);
    expect(chunkLayout(files, { chunkSize: 10_000 })).toBeUndefined();
    // A small first chunk, then each twice the one before, up to chunkSize.
    const weights = Array.from({ length: 8 }, (_, i) => `  t${i}:\n    x: 1\n`);
    const even = [file("t.yaml", `version: 1\ngroups:\n${weights.join("")}`)];
    const size = even[0]!.outline.entries[0]!.size;
    expect(chunkLayout(even, { firstSize: size, chunkSize: 3 * size })?.chunks.map((c) => c.size)).toEqual([
      1, 2, 3, 2,
    ]);
  });

  it("plans in one walk what chunks cannot plan alike: patterns, files outlined from a parse", () => {
    const pattern = file("p.yaml", "version: 1\nprojects:\n  acme/**:\n    x: 1\n");
    expect(chunkLayout([...files, pattern], { perChunk: 1, chunkSize: 1 })).toBeUndefined();
    const text = "version: 1\ngroups:\n  z: &z\n    x: 1\n";
    const parsed = { file: "z.yaml", outline: outlineOfValues([parse(text)], text) };
    expect(chunkLayout([...files, parsed], { perChunk: 1, chunkSize: 1 })).toBeUndefined();
  });
});
