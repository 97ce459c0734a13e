/**
 * src/kinds/fields.ts: what a kind's JSON Schema declares of each field, read from schemas written for the test.
 * (The kinds read their own schemas once and keep the result, so only a direct call sees each rule.)
 */
import { describe, expect, it } from "vitest";
import { fieldSpecsFromSchema, type RefResolver } from "../../src/kinds/fields.js";
import { fieldSpecs, itemSchema } from "../../src/kinds/schemas.js";

type Schema = Record<string, unknown>;

const resolverOf =
  (defs: Record<string, Schema>): RefResolver =>
  (ref) =>
    defs[ref];

describe("fieldSpecsFromSchema", () => {
  it("reads each flag from its keyword, and only from `true`", () => {
    const specs = fieldSpecsFromSchema({
      type: "object",
      required: ["name"],
      properties: {
        name: { type: "string" },
        secret: { type: "string", "x-sensitive": true },
        token: { type: "string", writeOnly: true },
        path: { type: "string", "x-replace": true },
        tags: { type: "array", uniqueItems: true },
        restart: { type: "boolean", "x-restart": true },
        licensed: { type: "boolean", "x-licensed": true },
        old: { type: "string", "x-deprecated": "new" },
        pair: { type: "boolean", "x-requires": ["a", "b"] },
        local: { type: "boolean", "x-local": true },
        later: { type: "string", "x-update-only": true },
        detail: { type: "string", "x-detail-only": true },
        cron_timezone: { type: "string", "x-normalize": "timezone", default: "UTC" },
        email: { type: "string", "x-default-template": "{user_email}" },
        // Truthy but not `true`: no flag.
        loose: {
          type: "string",
          "x-sensitive": "yes",
          writeOnly: 1,
          "x-replace": "true",
          uniqueItems: 1,
          "x-restart": 1,
          "x-licensed": "yes",
          "x-deprecated": true,
          "x-requires": "a",
          "x-local": 1,
          "x-update-only": 1,
          "x-detail-only": 1,
          "x-normalize": "no-such-normalizer",
          "x-default-template": 5,
        },
      },
    });
    const flags = (name: string) => {
      const s = specs.get(name)!;
      return Object.entries(s)
        .filter(([, v]) => v === true)
        .map(([k]) => k);
    };
    expect(flags("name")).toEqual(["required"]);
    expect(flags("secret")).toEqual(["sensitive"]);
    // Write-only is sensitive too: never read back, printed masked.
    expect(flags("token")).toEqual(["sensitive", "writeOnly"]);
    expect(flags("path")).toEqual(["replace"]);
    expect(flags("tags")).toEqual(["set"]);
    expect(flags("restart")).toEqual(["restart"]);
    expect(flags("licensed")).toEqual(["licensed"]);
    expect(flags("local")).toEqual(["local"]);
    expect(flags("later")).toEqual(["updateOnly"]);
    expect(flags("detail")).toEqual(["detailOnly"]);
    expect(flags("loose")).toEqual([]);
    expect(specs.get("old")!.deprecatedBy).toBe("new");
    expect(specs.get("pair")!.requires).toEqual(["a", "b"]);
    expect(specs.get("cron_timezone")).toMatchObject({ normalize: "timezone", default: "UTC" });
    expect(specs.get("email")!.defaultTemplate).toBe("{user_email}");
    // Absent keywords leave the optional keys out altogether (export tells "no default" from a default of undefined).
    const loose = specs.get("loose")!;
    expect(loose).toEqual({
      name: "loose",
      type: "string",
      required: false,
      sensitive: false,
      liveSensitive: false,
      writeOnly: false,
      replace: false,
      set: false,
      restart: false,
      licensed: false,
      deprecatedBy: undefined,
      requires: [],
      child: false,
      local: false,
      updateOnly: false,
      detailOnly: false,
    });
    expect(Object.keys(specs.get("name")!)).not.toContain("default");
    expect(Object.keys(specs.get("name")!)).not.toContain("normalize");
    expect(Object.keys(specs.get("name")!)).not.toContain("defaultTemplate");
  });

  it("gives a type only when the schema gives one JSON type", () => {
    const specs = fieldSpecsFromSchema({
      properties: {
        s: { type: "string" },
        i: { type: "integer" },
        n: { type: "number" },
        b: { type: "boolean" },
        a: { type: "array" },
        o: { type: "object" },
        several: { type: ["string", "null"] },
        nul: { type: "null" },
        none: { enum: ["x"] },
      },
    });
    expect(Object.fromEntries([...specs].map(([k, s]) => [k, s.type]))).toEqual({
      s: "string",
      i: "integer",
      n: "number",
      b: "boolean",
      a: "array",
      o: "object",
      several: undefined,
      nul: undefined,
      none: undefined,
    });
    expect(Object.keys(specs.get("several")!)).not.toContain("type");
  });

  it("a list is a set when it or one of its alternatives says its items are unique", () => {
    const specs = fieldSpecsFromSchema({
      properties: {
        plain: { type: "array" },
        any: { anyOf: [{ type: "string" }, { type: "array", uniqueItems: true }] },
        one: { oneOf: [{ type: "array", uniqueItems: true }, { type: "null" }] },
        neither: { anyOf: [{ type: "array" }], oneOf: [{ type: "array", uniqueItems: false }] },
      },
    });
    expect(specs.get("plain")!.set).toBe(false);
    expect(specs.get("any")!.set).toBe(true);
    expect(specs.get("one")!.set).toBe(true);
    expect(specs.get("neither")!.set).toBe(false);
  });

  it("leaves out the manifest's instructions (state, extends, unmanaged, except, include_archived, unchecked)", () => {
    const specs = fieldSpecsFromSchema({
      properties: Object.fromEntries(
        ["state", "extends", "unmanaged", "except", "include_archived", "unchecked", "name"].map((k) => [
          k,
          { type: "string" },
        ]),
      ),
    });
    expect([...specs.keys()]).toEqual(["name"]);
  });

  it("tells collections of child objects and singletons from fields", () => {
    const resolve = resolverOf({ "#/$defs/badge": { type: "object", "x-identity": "name" } });
    const specs = fieldSpecsFromSchema(
      {
        properties: {
          badges: { type: "array", items: { $ref: "#/$defs/badge" } },
          hooks: { type: "array", "x-identity": "url", items: { type: "object" } },
          inline: { type: "array", items: { type: "object", "x-identity": "key" } },
          settings: { type: "object", "x-singleton": true },
          topics: { type: "array", items: { type: "string" } },
          // An identity but no items: not a collection.
          bare: { type: "array", "x-identity": "url" },
          // Items with an identity, but not an array.
          mapping: { type: "object", items: { "x-identity": "key" } },
          single: { type: "object", "x-singleton": "yes" },
        },
      },
      resolve,
    );
    const child = Object.fromEntries([...specs].map(([k, s]) => [k, s.child]));
    expect(child).toEqual({
      badges: true,
      hooks: true,
      inline: true,
      settings: true,
      topics: false,
      bare: false,
      mapping: false,
      single: false,
    });
  });

  it("follows references: the field's, the items', the schema's own and allOf's parts, the referring keys winning", () => {
    const resolve = resolverOf({
      "#/$defs/object": {
        required: ["name", "ref_required"],
        properties: {
          name: { type: "string" },
          from_ref: { type: "integer" },
          // The referring schema's keys win over the referenced one's.
          overridden: { $ref: "#/$defs/secret", "x-replace": false },
          chained: { $ref: "#/$defs/chained" },
          missing: { $ref: "#/$defs/missing", type: "boolean" },
        },
        allOf: [{ properties: { from_all_of: { $ref: "#/$defs/secret" } } }],
      },
      "#/$defs/secret": { type: "string", "x-sensitive": true, "x-replace": true },
      "#/$defs/chained": { $ref: "#/$defs/secret" },
    });
    const specs = fieldSpecsFromSchema({ $ref: "#/$defs/object", description: "the kind" }, resolve);
    expect([...specs.keys()].sort()).toEqual(
      ["chained", "from_all_of", "from_ref", "missing", "name", "overridden"].sort(),
    );
    expect(specs.get("name")!.required).toBe(true);
    expect(specs.get("from_ref")).toMatchObject({ type: "integer", required: false });
    expect(specs.get("from_all_of")).toMatchObject({ type: "string", sensitive: true, replace: true });
    expect(specs.get("overridden")).toMatchObject({ sensitive: true, replace: false });
    expect(specs.get("chained")).toMatchObject({ type: "string", sensitive: true });
    // A reference that resolves to nothing leaves the schema as it is.
    expect(specs.get("missing")).toMatchObject({ type: "boolean", sensitive: false });
    // Without a resolver, references are not followed.
    const unresolved = fieldSpecsFromSchema({ properties: { x: { $ref: "#/$defs/secret" } } });
    expect(unresolved.get("x")!.type).toBeUndefined();
    expect(unresolved.get("x")!.sensitive).toBe(false);
  });

  it("follows a chain of ten references and stops there (a cycle cannot hang it)", () => {
    // ref0 -> ref1 -> ... -> ref10, whose schema is the only one with a type.
    const defs: Record<string, Schema> = {};
    for (let i = 0; i < 10; i++) defs[`#/r${i}`] = { $ref: `#/r${i + 1}` };
    defs["#/r10"] = { type: "integer" };
    const resolve = resolverOf(defs);
    const at = (start: number) =>
      fieldSpecsFromSchema({ properties: { x: { $ref: `#/r${start}` } } }, resolve).get("x")!.type;
    // From r1: ten steps reach r10. From r0: eleven would be needed.
    expect(at(1)).toBe("integer");
    expect(at(0)).toBeUndefined();
    const cycle = resolverOf({ "#/a": { $ref: "#/b" }, "#/b": { $ref: "#/a" } });
    expect(
      fieldSpecsFromSchema({ properties: { x: { $ref: "#/a" } } }, cycle).get("x")!.type,
    ).toBeUndefined();
  });
});

describe("the published schemas' fields (src/kinds/schemas.ts)", () => {
  it("follows a reference into another schema file's definitions", () => {
    // `"$ref": "common.schema.json#/$defs/visibility"`, a string enum, with the referring field's default.
    const settings = fieldSpecs("instance", "application_settings");
    expect(settings.get("default_group_visibility")).toMatchObject({ type: "string", default: "private" });
  });

  it("finds nothing for a collection no schema declares, and says so without failing", () => {
    expect(itemSchema("projects", "no_such_collection")).toBeUndefined();
    expect(fieldSpecs("projects", "no_such_collection").size).toBe(0);
    expect(itemSchema("projects", "badges")).toMatchObject({ "x-identity": "name" });
  });
});
