#!/usr/bin/env node
// Installs dependencies when they are missing or older than package-lock.json, then builds lib/ so it matches src/
// (`npm ci` does not build: the package builds in `prepack`, so installing it runs no script). Lets `npm test`,
// `npm run demo` and `npm run bench` work on a fresh clone.
import { execSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";

const marker = "node_modules/.package-lock.json";
const stale = !existsSync(marker) || statSync("package-lock.json").mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  console.error("forgeform: installing dependencies (npm ci)...");
  execSync("npm ci --no-audit --no-fund --loglevel=error", { stdio: "inherit" });
}
execSync("npm run --silent build", { stdio: "inherit" });
