/**
 * The layers of src/ (src/README.md), kept by a test: every import (type-only and dynamic ones too) runs down the
 * layers or stays in its folder, no module imports itself back through others (no import circle, in src/ or
 * bench/), and the sandbox stands alone.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");

/** From the top down; a folder may import its own modules and those of any layer below its own. */
const LAYERS: readonly (readonly string[])[] = [
  ["action"],
  ["cli"],
  ["convert"],
  ["export"],
  ["engine"],
  ["kinds", "report"],
  ["api", "plan"],
  ["manifest"],
  ["files", "text"],
];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else if (name.endsWith(".ts")) out.push(path);
  }
  return out;
}

/** Each module's imports of other modules of the repository (relative specifiers), as absolute .ts paths. */
function importGraph(dirs: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => filesUnder(join(ROOT, d)))) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    graph.set(
      file,
      info.importedFiles
        .map((f) => f.fileName)
        .filter((name) => name.startsWith("."))
        .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts"))),
    );
  }
  return graph;
}

/** The import circles of a graph (its strongly connected components of more than one module, or a self-import). */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const folderOf = (file: string) => relative(join(ROOT, "src"), file).split("/")[0]!;
const layerOf = (folder: string) => LAYERS.findIndex((layer) => layer.includes(folder));

/** Imports that run up the layers, across a layer's folders, or into or out of the sandbox. */
function layerViolations(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [file, imports] of graph) {
    const from = folderOf(file);
    for (const target of imports) {
      const to = folderOf(target);
      if (from === to) continue;
      const edge = `${relative(ROOT, file)} -> ${relative(ROOT, target)}`;
      if (from === "sandbox" || to === "sandbox") {
        // The sandbox stands alone; only the command that runs it starts it.
        if (!(relative(ROOT, file) === "src/cli/sandbox.ts" && to === "sandbox"))
          bad.push(`${edge} (sandbox)`);
        continue;
      }
      const a = layerOf(from);
      const b = layerOf(to);
      if (a < 0 || b < 0) bad.push(`${edge} (a folder in no layer: add it to src/README.md and LAYERS)`);
      else if (a >= b) bad.push(`${edge} (${from} may not import ${to})`);
    }
  }
  return bad.sort();
}

describe("the layers of src/", () => {
  it("every folder of src/ is in one layer (or is the sandbox)", () => {
    const folders = readdirSync(join(ROOT, "src")).filter((f) =>
      statSync(join(ROOT, "src", f)).isDirectory(),
    );
    expect(folders.filter((f) => f !== "sandbox" && layerOf(f) < 0)).toEqual([]);
  });

  it("imports run down the layers, and nothing but the sandbox command reaches the sandbox", () => {
    expect(layerViolations(importGraph(["src"]))).toEqual([]);
  });

  it("has no import circle in src/ or bench/", () => {
    const rel = (c: string[]) => c.map((f) => relative(ROOT, f));
    expect(circles(importGraph(["src", "bench"])).map(rel)).toEqual([]);
  });

  it("finds what it guards against: a circle, an import up the layers, a reach into the sandbox", () => {
    const f = (p: string) => join(ROOT, "src", p);
    const graph = new Map([
      [f("cli/a.ts"), [f("cli/b.ts")]],
      [f("cli/b.ts"), [f("cli/a.ts"), f("action/run.ts")]],
      [f("engine/x.ts"), [f("sandbox/store.ts"), f("manifest/model.ts")]],
      [f("plan/y.ts"), [f("report/z.ts")]],
    ]);
    expect(circles(graph).map((c) => c.map((p) => relative(ROOT, p)))).toEqual([
      ["src/cli/a.ts", "src/cli/b.ts"],
    ]);
    expect(layerViolations(graph)).toEqual([
      "src/cli/b.ts -> src/action/run.ts (cli may not import action)",
      "src/engine/x.ts -> src/sandbox/store.ts (sandbox)",
      "src/plan/y.ts -> src/report/z.ts (plan may not import report)",
    ]);
  });
});
