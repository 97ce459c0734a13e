import { describe, expect, it } from "vitest";
import { itemsProblem, shapeProblem } from "../../src/api/shape.js";

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
