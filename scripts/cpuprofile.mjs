#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`, e.g. through bench/profile.ts) by self and inclusive time, per
// function and per module. In the bundled command line (lib/cli/forgeform.js) a function's module is found from the
// `// path` comment esbuild writes before each module's code.
//
//   node scripts/cpuprofile.mjs FILE.cpuprofile [--top 40] [--modules-only]
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith("--"));
if (!file) {
  process.stderr.write("usage: node scripts/cpuprofile.mjs FILE.cpuprofile [--top N] [--modules-only]\n");
  process.exit(2);
}
const topAt = args.indexOf("--top");
const TOP = topAt >= 0 ? Number(args[topAt + 1]) : 40;
const profile = JSON.parse(readFileSync(file, "utf8"));

/** For each bundled file: the module headers' line numbers (0-based) and names, in order. */
const bundles = new Map();
function moduleOf(url, line) {
  if (!url) return "(native)";
  if (url.startsWith("node:")) return url;
  const path = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (!path.endsWith("forgeform.js") && !path.endsWith("dist/index.js")) {
    const nm = path.lastIndexOf("node_modules/");
    return nm >= 0 ? path.slice(nm) : path;
  }
  if (!bundles.has(path)) {
    const headers = [];
    if (existsSync(path))
      readFileSync(path, "utf8")
        .split("\n")
        .forEach((text, i) => {
          const m = /^\/\/ ((?:node_modules|src)\/\S+)$/.exec(text);
          if (m) headers.push([i, m[1]]);
        });
    bundles.set(path, headers);
  }
  const headers = bundles.get(path);
  let lo = 0;
  let hi = headers.length - 1;
  let found = "(bundle)";
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (headers[mid][0] <= line) {
      found = headers[mid][1];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** A module's group: a package of node_modules, or a file of src/. */
const groupOf = (mod) => {
  const m = /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(mod);
  return m ? `node_modules/${m[1]}` : mod;
};

const parent = new Map();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const fnKey = (n) => {
  const cf = n.callFrame;
  // V8's own entries ((root), (idle), (program), (garbage collector)) are groups of their own.
  const mod = /^\(.*\)$/.test(cf.functionName) && !cf.url ? cf.functionName : moduleOf(cf.url, cf.lineNumber);
  return { fn: `${cf.functionName || "(anonymous)"} ${mod}:${cf.lineNumber + 1}`, mod };
};
const keys = new Map(profile.nodes.map((n) => [n.id, fnKey(n)]));

// Sample weights: the time delta after each sample is that sample's.
const weight = new Map();
const { samples, timeDeltas } = profile;
for (let i = 0; i < samples.length; i++) {
  const dt = timeDeltas[i + 1] ?? 0;
  weight.set(samples[i], (weight.get(samples[i]) ?? 0) + dt);
}

const selfFn = new Map();
const selfMod = new Map();
const inclFn = new Map();
const inclMod = new Map();
let total = 0;
const add = (m, k, v) => m.set(k, (m.get(k) ?? 0) + v);
for (const [id, w] of weight) {
  total += w;
  const k = keys.get(id);
  add(selfFn, k.fn, w);
  add(selfMod, groupOf(k.mod), w);
  const seenFn = new Set();
  const seenMod = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const ck = keys.get(cur);
    if (!seenFn.has(ck.fn)) {
      seenFn.add(ck.fn);
      add(inclFn, ck.fn, w);
    }
    const g = groupOf(ck.mod);
    if (!seenMod.has(g)) {
      seenMod.add(g);
      add(inclMod, g, w);
    }
  }
}

const idle = selfMod.get("(idle)") ?? 0;
inclMod.delete("(root)");
inclFn.delete("(root) (root):0");
const s = (us) => `${(us / 1e6).toFixed(2)} s`;
const pct = (us) => `${((100 * us) / (total - idle)).toFixed(1)}%`;
const table = (title, m, n) => {
  process.stdout.write(`\n## ${title}\n`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, n))
    process.stdout.write(`${s(v).padStart(9)} ${pct(v).padStart(6)}  ${k}\n`);
};
process.stdout.write(
  `${file}\nsampled ${s(total)}, idle ${s(idle)}, busy ${s(total - idle)} (percentages of busy)\n`,
);
table("self by module", selfMod, TOP);
table("inclusive by module", inclMod, TOP);
if (!args.includes("--modules-only")) {
  table("self by function", selfFn, TOP);
  table("inclusive by function", inclFn, TOP);
}
