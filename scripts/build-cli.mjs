#!/usr/bin/env node
// The last step of `npm run build`: bundles the command line (src/cli/index.ts and everything it imports,
// dependencies included) into lib/cli/forgeform.js, which bin/forgeform.js runs. One file starts in about half the
// time of the hundreds of modules it holds (Node resolves and reads each module of lib/ and node_modules/ on its
// own), and every command pays that start-up: see docs/benchmarks.md. lib/ keeps the compiled modules too.
import { relative, resolve } from "node:path";
import { bundle, root } from "./bundle.mjs";

const outfile = resolve(root, "lib/cli/forgeform.js");
const bytes = await bundle("src/cli/index.ts", outfile, "lib/cli");
if (process.argv.includes("--verbose"))
  console.error(`built ${relative(root, outfile)} (${Math.round(bytes / 1024)} KiB)`);
