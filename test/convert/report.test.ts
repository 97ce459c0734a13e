// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the tests read the reference syntax convert writes
/**
 * The conversion report (text and JSON) and what holding the output against this version's schemas does: each
 * item at its place in the source, secrets by name and never by value, what this version cannot take reported
 * instead of written.
 */
import { describe, expect, it } from "vitest";
import { Report, renderReportJson, renderReportText } from "../../src/convert/index.js";
import { convertText } from "./helpers.js";

describe("the report", () => {
  const report = new Report();
  report.check({ file: "c.yml", line: 9, col: 3 }, "a.b", "to look at");
  report.notConverted({ file: "c.yml", line: 12, col: 5 }, 'x["https://h/?token=abc123"]', "not here");
  report.secret({ file: "c.yml", line: 4, col: 16 }, "a.value", "A_VALUE", "the value: read from A_VALUE");
  report.notConverted({ file: "c.yml", line: 2, col: 1 }, "gitlab", "connection settings");
  report.notConverted({ file: "c.yml", line: 2, col: 1 }, "gitlab", "connection settings");

  it("lists items by kind, each kind in source order, each once, with a summary line", () => {
    const text = renderReportText(report, "gitlabform", [{ name: "out/a.yaml" }], (s) => s);
    expect(text).toBe(
      [
        "Not converted (2):",
        "  c.yml:2:1  gitlab: connection settings",
        '  c.yml:12:5  x["https://h/?token=(sensitive)"]: not here',
        "",
        "Secrets (1), read from environment variables: set it before planning:",
        "  A_VALUE  c.yml:4:16  a.value: the value: read from A_VALUE",
        "",
        "To check (1):",
        "  c.yml:9:3  a.b: to look at",
        "",
        "Converted from gitlabform into 1 file: 2 not converted, 1 secret as environment variables, 1 to check.",
        "",
      ].join("\n"),
    );
  });

  it("is versioned JSON with the place, the path in the source and the variable of each item", () => {
    const json = JSON.parse(renderReportJson(report, "terraform", [{ name: "a.yaml" }]));
    expect(json).toMatchObject({ format_version: 1, from: "terraform", files: ["a.yaml"] });
    expect(json.items).toHaveLength(4);
    expect(json.items[2]).toEqual({
      type: "secret",
      file: "c.yml",
      line: 4,
      col: 16,
      source: "a.value",
      message: "the value: read from A_VALUE",
      env: "A_VALUE",
    });
    expect(JSON.stringify(json)).not.toContain("abc123");
  });
});

describe("holding the output against this version's schemas", () => {
  it("reports a kind this version does not have instead of writing it, and drops its prune policy with it", () => {
    const c = convertText(
      "gitlabracadabra",
      { "a.yml": "acme/api:\n  create_object: true\n  boards: []\n  variables: [{key: A, value: b}]\n" },
      { fit: true },
    );
    // variables are in this version: written.
    expect(c.texts["a.yaml"]).toContain("${env:API_A}");
    const unknownKind = convertText(
      "gitlabform",
      {
        "c.yml":
          "projects_and_groups:\n  acme/api:\n    variables:\n      a: {key: A, value: b, raw: true}\n      enforce: true\n",
      },
      { fit: true },
    );
    // `raw` is not a field this version has: reported at its line, not written.
    expect(unknownKind.of("not-converted").map((i) => [i.at.line, i.message])).toEqual([
      [4, "forgeform 9.9.9 has no raw for an item of variables"],
    ]);
    expect(unknownKind.texts["acme.yaml"]).not.toContain("raw");
    expect(unknownKind.texts["acme.yaml"]).toContain("variables: delete");
  });

  it("keeps access levels by name, and escapes ${ in plain text", () => {
    const c = convertText(
      "gitlabform",
      {
        "c.yml": `projects_and_groups:
  acme/api:
    protected_environments:
      prod: { deploy_access_levels: [{ access_level: developer }] }
    badges:
      b: { name: "cost \${x}", link_url: "https://b.example", image_url: "https://b.example/i.svg" }
`,
      },
      { fit: true },
    );
    expect(c.files["acme.yaml"]).toMatchObject({
      projects: {
        "acme/api": { protected_environments: [{ deploy_access_levels: [{ access_level: "developer" }] }] },
      },
    });
    expect(c.texts["acme.yaml"]).toContain("name: cost $${x}");
  });

  it("keeps the later of two items with one identity in one list, and reports the other", () => {
    const c = convertText(
      "gitlabracadabra",
      {
        "a.yml":
          "acme/api:\n  create_object: true\n  labels:\n    - {name: bug, color: red}\n    - {name: bug, color: blue}\n",
      },
      { fit: true },
    );
    expect(c.files["a.yaml"]).toMatchObject({
      projects: { "acme/api": { labels: [{ name: "bug", color: "blue" }] } },
    });
    expect(c.of("check").map((i) => [i.at.line, i.message])).toEqual([
      [4, "the same name as a later item of the same list: only the later one is kept"],
    ]);
  });

  it("lists each file's environment variables at its top, under the $schema line", () => {
    const c = convertText(
      "gitlabracadabra",
      { "a.yml": "acme/api:\n  create_object: true\n  variables: [{key: A, value: b}]\n" },
      { fit: true },
    );
    const lines = c.texts["a.yaml"]!.split("\n");
    expect(lines[0]).toBe("# yaml-language-server: $schema=schema.json");
    expect(lines).toContain("#   API_A");
    expect(lines.indexOf("#   API_A")).toBeLessThan(lines.indexOf("version: 1"));
  });
});

describe("dropUnder", () => {
  it("leaves out the checks below a path not converted whole, and keeps a path that only begins alike", () => {
    const report = new Report();
    const at = { file: "c.yml", line: 1, col: 1 };
    for (const source of [
      "projects.acme",
      "projects.acme.badges",
      "projects.acme[0]",
      "projects.acme-x.badges",
    ])
      report.check(at, source, "to look at");
    report.notConverted(at, "projects.acme.hooks", "not here");
    report.dropUnder(["projects.acme"]);
    expect(report.items.map((i) => `${i.type} ${i.source}`)).toEqual([
      "check projects.acme",
      "check projects.acme-x.badges",
      "not-converted projects.acme.hooks",
    ]);
  });
});
