import { describe, expect, it } from "vitest";
import { loadSchemas } from "../../src/manifest/index.js";

describe("published schemas", () => {
  it("every schema file compiles under ajv strict mode", () => {
    const set = loadSchemas();
    const files = Object.keys(set.files);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(() => set.validator(file), file).not.toThrow();
  });
});
