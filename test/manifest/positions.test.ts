/** Positions of keys and values in a manifest: kept packed, given back as written. */
import { describe, expect, it } from "vitest";
import { Positions } from "../../src/manifest/located.js";

describe("Positions", () => {
  it("gives back each position as set, the file with it, and replaces one set again", () => {
    const p = new Positions(2);
    p.set("a", { file: "a.yaml", line: 3, col: 5 });
    p.set("b", { file: "b.yaml", line: 200_000, col: 4095 });
    expect(p.get("a")).toEqual({ file: "a.yaml", line: 3, col: 5 });
    expect(p.get("b")).toEqual({ file: "b.yaml", line: 200_000, col: 4095 });
    p.set("a", { file: "c.yaml", line: 9, col: 1 });
    expect(p.get("a")).toEqual({ file: "c.yaml", line: 9, col: 1 });
    expect([p.has("a"), p.has("b"), p.has("c"), p.get("c")]).toEqual([true, true, false, undefined]);
  });

  it("keeps what does not pack as it is: far columns and lines, the scalar as written", () => {
    const p = new Positions();
    const far = { file: "f.yaml", line: 1, col: 5000 };
    const deep = { file: "f.yaml", line: 300_000, col: 2 };
    const written = { file: "f.yaml", line: 2, col: 3, text: "0123" };
    p.set("far", far);
    p.set("deep", deep);
    p.set("written", written);
    expect([p.get("far"), p.get("deep"), p.get("written")]).toEqual([far, deep, written]);
    // A key first packed, then set to what does not pack, is found once, with the later position.
    p.set("x", { file: "f.yaml", line: 4, col: 4 });
    p.set("x", written);
    expect(p.get("x")).toEqual(written);
  });

  it("holds large maps (a file's projects) with every key found", () => {
    const p = new Positions(1000);
    for (let i = 0; i < 1000; i++) p.set(`k${i}`, { file: "big.yaml", line: i + 1, col: 3 });
    for (let i = 0; i < 1000; i += 97)
      expect(p.get(`k${i}`)).toEqual({ file: "big.yaml", line: i + 1, col: 3 });
    expect(p.has("k999")).toBe(true);
    expect(p.has("k1000")).toBe(false);
  });
});
