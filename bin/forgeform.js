#!/usr/bin/env node
import { existsSync } from "node:fs";

// In a checkout, lib/ is built by `npm run build` (npm test and npm run demo build it; npm ci does not).
const entry = new URL("../lib/cli/index.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("forgeform: lib/ is not built: run `npm run build` in this checkout first\n");
  process.exit(1);
}
const { main } = await import(entry.href);

// `forgeform plan | head -2`: when the reader goes away, stop quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

process.exitCode = await main(process.argv);
