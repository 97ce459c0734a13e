#!/usr/bin/env node
// Bundles the GitHub Action (src/action/index.ts and everything it imports, dependencies included) into one ESM
// file, dist/index.js, which action.yml runs. `node scripts/build-action.mjs [OUTDIR]` builds into OUTDIR instead
// (the test that checks dist/ is up to date builds into a temporary directory and compares bytes).
//
// The bundling itself, and how the bundle finds schemas/*.json from the runner's checkout, is scripts/bundle.mjs.
import { writeFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { bundle, root } from "./bundle.mjs";

const outdir = resolve(root, process.argv[2] ?? "dist");
const bytes = await bundle("src/action/index.ts", resolve(outdir, "index.js"), "dist");
// dist/index.js is ESM whatever the package.json above it says.
writeFileSync(resolve(outdir, "package.json"), `${JSON.stringify({ type: "module" }, null, 2)}\n`);
console.error(`built ${relative(root, resolve(outdir, "index.js"))} (${Math.round(bytes / 1024)} KiB)`);
