#!/usr/bin/env node
import { main } from "../lib/cli/index.js";

// `forgeform plan | head -2`: when the reader goes away, stop quietly instead of crashing on EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") process.exit(0);
    throw error;
  });
}

process.exitCode = await main(process.argv);
