/**
 * A manifest file is parsed in turns (src/manifest/yaml.ts, parseYamlInTurns): a plan in chunks parses the next
 * chunk's files while the answers of the one before come in, and a file parsed in one go held the event loop for
 * the whole file. Parsed in turns, a file must give exactly what parseYaml gives (values, positions, diagnostics,
 * whether it was read whole), and a long file must let the event loop run many times while it is parsed.
 */
import { describe, expect, it } from "vitest";
import { Diagnostics } from "../../src/manifest/diagnostics.js";
import { type Loc, locate, type Path } from "../../src/manifest/located.js";
import { parseYaml, parseYamlInTurns } from "../../src/manifest/yaml.js";

/** Every path to a value in `value`, keys first. */
function paths(value: unknown, at: Path = []): Path[] {
  if (value === null || typeof value !== "object") return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((k) => paths((value as Record<string | number, unknown>)[k], [...at, k]))];
}

/** What a parse gives: values, the position of every value and key, diagnostics, completeness. */
function outcome(parsed: ReturnType<typeof parseYaml>, diags: Diagnostics) {
  return {
    complete: parsed.complete,
    documents: parsed.documents.map((d) => ({
      value: d.value,
      loc: d.loc,
      positions: paths(d.value).map((p): [Path, Loc, Loc | undefined] => [
        p,
        locate(d.value, p),
        p.length > 0 && typeof p[p.length - 1] === "string" ? locate(d.value, p, "key") : undefined,
      ]),
    })),
    diagnostics: diags.sorted(["m.yaml"]),
  };
}

const inOneGo = (text: string) => {
  const diags = new Diagnostics();
  return outcome(parseYaml("m.yaml", text, diags), diags);
};

async function inTurns(text: string) {
  const diags = new Diagnostics();
  let turns = 0;
  const parsed = await parseYamlInTurns("m.yaml", text, diags, async () => {
    turns += 1;
    await new Promise((r) => setImmediate(r));
  });
  return { ...outcome(parsed, diags), turns };
}

const project = (i: number) =>
  `  acme/p${i}:\n    description: "project ${i}"\n    topics: [a, b, c]\n    variables:\n      - { key: K${i}, value: v }\n`;
const LONG = `version: 1\nprojects:\n${Array.from({ length: 400 }, (_, i) => project(i)).join("")}`;

const CASES: Record<string, string> = {
  "an empty file": "",
  "comments only": "# nothing here\n# at all\n",
  "one document without a final newline": "version: 1\ngroups:\n  acme: { description: x }",
  "several documents":
    "version: 1\ngroups: { a: {} }\n---\nversion: 1\nprojects:\n  a/b: { topics: [x] }\n...\n",
  "block scalars and quoting": "a: |\n  two\n  lines\nb: >-\n  folded\n  text\nc: 'it''s'\nd: \"\\u00e9\"\n",
  "anchors and aliases": "base: &b { visibility: private }\nx: *b\ny: [*b, *b]\n",
  "an alias to no anchor": "a: *nowhere\n",
  "a duplicate key": "a: 1\nb: 2\na: 3\n",
  "a syntax error": "a: [1, 2\nb: 3\n",
  "a tab where indentation is": "a:\n\tb: 1\n",
  "a merge key": "base: &b { x: 1 }\nc:\n  <<: *b\n",
  "a directive and a tag": "%YAML 1.2\n---\na: !!str 12\nb: 0o17\n",
  "a long file": LONG,
};

describe("a manifest file parsed in turns", () => {
  for (const [name, text] of Object.entries(CASES)) {
    it(`gives what one parse gives: ${name}`, async () => {
      const { turns: _turns, ...turned } = await inTurns(text);
      expect(turned).toEqual(inOneGo(text));
    });
  }

  it("lets the event loop run while a long file is parsed, not only after it", async () => {
    const { turns, documents } = await inTurns(LONG);
    expect(Object.keys((documents[0]!.value as { projects: object }).projects)).toHaveLength(400);
    // 400 projects of 5 lines: thousands of lexemes, a turn every 256 of them.
    expect(turns).toBeGreaterThan(40);
    // A file of a few lines is parsed in one turn.
    expect((await inTurns("version: 1\n")).turns).toBe(0);
  });
});
