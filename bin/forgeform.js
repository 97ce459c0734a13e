#!/usr/bin/env node
import { existsSync } from "node:fs";

// In a checkout, lib/ is built by `npm run build` (npm test and npm run demo build it; npm ci does not). The command
// line runs from one bundled file, which starts faster than lib/'s modules one by one (scripts/build-cli.mjs).
const entry = new URL("../lib/cli/forgeform.js", import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write("forgeform: lib/ is not built: run `npm run build` in this checkout first\n");
  process.exit(1);
}
// V8's settings for this process (src/cli/runtime.ts), before anything is read.
const { tuneProcess } = await import(new URL("../lib/cli/runtime.js", import.meta.url).href);
tuneProcess(process.argv);
const { main } = await import(entry.href);

// `forgeform plan --detailed-exitcode | head -2`: when the reader goes away, the stream is closed and what is written
// to it later is dropped, but the command runs to its end and exits with the code it would have had (2: changes).
// Exiting 0 there would lose that code under `set -o pipefail`; dying of SIGPIPE as git and terraform do (141) would
// too, and would cut an `apply | head` off between two requests.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE") return;
    throw error;
  });
}

process.exitCode = await main(process.argv);
