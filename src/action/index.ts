/** Entry point of the GitHub Action (bundled into dist/index.js by scripts/build-action.mjs). */
import { tuneProcess } from "../cli/runtime.js";
import { tuningArgv } from "./inputs.js";
import { run } from "./run.js";

// V8's settings for this process, as the CLI's for the same command.
tuneProcess(tuningArgv());
await run();
