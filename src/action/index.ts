/** Entry point of the GitHub Action (bundled into dist/index.js by scripts/build-action.mjs). */
import { run } from "./run.js";

await run();
