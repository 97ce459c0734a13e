import { describe, expect, it } from "vitest";
import {
  answerProblem,
  itemsProblem,
  listOf,
  nestsTooDeep,
  objectOf,
  shapeProblem,
} from "../../src/api/shape.js";
import { fc } from "../property.js";

const shape = { id: "integer", name: "string", owner: "object?", tags: "array?" } as const;

describe("shapeProblem", () => {
  it("accepts an object with the fields and types asked for, optional ones absent or null", () => {
    expect(shapeProblem({ id: 1, name: "a", extra: true }, shape)).toBeUndefined();
    expect(shapeProblem({ id: 1, name: "a", owner: null, tags: [] }, shape)).toBeUndefined();
  });

  it("names a missing field, a field of the wrong type, and a value that is not an object", () => {
    expect(shapeProblem({ name: "a" }, shape)).toBe('the field "id" is missing (an integer was expected)');
    expect(shapeProblem({ id: 1.5, name: "a" }, shape)).toBe(
      'the field "id" is a number (1.5), not an integer',
    );
    expect(shapeProblem({ id: 1, name: "a", owner: "root" }, shape)).toBe(
      'the field "owner" is a string ("root"), not an object',
    );
    expect(shapeProblem("<html>", shape)).toBe('a string ("<html>") came back where an object was expected');
    expect(shapeProblem([], shape)).toBe("an array ([]) came back where an object was expected");
  });

  it("does not take a field from the prototype", () => {
    expect(shapeProblem(Object.create({ id: 1, name: "a" }), shape)).toBe(
      'the field "id" is missing (an integer was expected)',
    );
  });

  it("points at the first bad item of a list, counting from 1", () => {
    expect(
      itemsProblem(
        [
          { id: 1, name: "a" },
          { id: 2, name: 7 },
        ],
        shape,
      ),
    ).toBe('item 2: the field "name" is an integer (7), not a string');
  });
});

describe("nested lists and objects", () => {
  const schedule = {
    id: "integer",
    owner: objectOf({ username: "string" }, true),
    variables: listOf({ key: "string", value: "string" }, true),
    tags: listOf("string", true),
  } as const;

  it("checks the items of a list and the fields of an object, naming the path", () => {
    expect(
      shapeProblem({ id: 1, variables: [{ key: "A", value: "1" }], owner: null }, schedule),
    ).toBeUndefined();
    expect(shapeProblem({ id: 1, variables: [{ key: "A", value: "1" }, "x"] }, schedule)).toBe(
      'the field "variables[1]" is a string ("x"), not an object',
    );
    expect(shapeProblem({ id: 1, variables: [{ key: 5, value: "1" }] }, schedule)).toBe(
      'the field "variables[0].key" is an integer (5), not a string',
    );
    expect(shapeProblem({ id: 1, owner: { name: "root" } }, schedule)).toBe(
      'the field "owner.username" is missing (a string was expected)',
    );
    expect(shapeProblem({ id: 1, tags: ["a", 2] }, schedule)).toBe(
      'the field "tags[1]" is an integer (2), not a string',
    );
    expect(shapeProblem({ id: 1, variables: {} }, schedule)).toBe(
      'the field "variables" is an object ({}), not a list',
    );
    expect(shapeProblem({}, { list: listOf("string") })).toBe(
      'the field "list" is missing (a list was expected)',
    );
  });

  it("asks a whole answer for an object, or for a list with listOf", () => {
    expect(answerProblem([{ id: 1 }], { id: "integer" })).toBe(
      'an array ([{"id":1}]) came back where an object was expected',
    );
    expect(answerProblem({ id: 1 }, listOf({ id: "integer" }))).toBe(
      'an object ({"id":1}) came back where a list was expected',
    );
    expect(answerProblem([{ id: 1 }, { id: "2" }], listOf({ id: "integer" }))).toBe(
      'item 2: the field "id" is a string ("2"), not an integer',
    );
  });

  it("finds JSON nested deeper than the limit without parsing it, brackets inside strings left out", () => {
    expect(nestsTooDeep(`${"[".repeat(101)}${"]".repeat(101)}`)).toBe(true);
    expect(nestsTooDeep(`${"[".repeat(100)}${"]".repeat(100)}`)).toBe(false);
    expect(nestsTooDeep(JSON.stringify({ a: "[".repeat(500), b: '\\"{{{{' }))).toBe(false);
    expect(nestsTooDeep('{"a":"\\\\"}', 0)).toBe(true);
  });

  it("counts depth as a scan of escape pairs, quotes and brackets does, on any text", () => {
    // The rule as a regular expression: an escape pair first, then a quote or a bracket.
    const reference = (text: string, limit: number) => {
      let depth = 0;
      let inString = false;
      for (const [token] of text.matchAll(/\\.|["[\]{}]/gs)) {
        if (token.length === 2) continue;
        if (token === '"') inString = !inString;
        else if (inString) continue;
        else if (token === "[" || token === "{") {
          if (++depth > limit) return true;
        } else depth -= 1;
      }
      return false;
    };
    const text = fc
      .array(fc.constantFrom("[", "]", "{", "}", '"', "\\", "a", "\n"), { maxLength: 40 })
      .map((cs) => cs.join(""));
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 4 }), (t, limit) => {
        expect(nestsTooDeep(t, limit)).toBe(reference(t, limit));
      }),
    );
  });
});
