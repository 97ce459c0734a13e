/** Entry point of the GitHub Action (bundled into dist/index.js by scripts/build-action.mjs). */
import { tuneProcess } from "../cli/runtime.js";
import { run } from "./run.js";

// V8's settings for this process, as the CLI's (the Action's inputs are not command-line flags: no small run).
tuneProcess([]);
await run();
