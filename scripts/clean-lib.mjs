#!/usr/bin/env node
// `npm run build` starts here: removes lib/ so the build holds only what src/ compiles to now (no module left over
// from a file since renamed or deleted, no stray output), and so `npm pack` ships exactly that.
import { rmSync } from "node:fs";

rmSync(new URL("../lib/", import.meta.url), { recursive: true, force: true });
