#!/usr/bin/env node
// Installs Node 24 (the npm package `node`, which ships the binary) into .cache/node24, outside the project's
// dependencies: as a devDependency its binary would shadow the machine's Node 20 for every npm script.
// The Action tests run the bundle under it, as GitHub's runner does (`using: node24`). Prints the binary's path.
import { execSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const NODE24_VERSION = "24.21.0";
const prefix = fileURLToPath(new URL("../.cache/node24/", import.meta.url));
export const NODE24_BINARY = `${prefix}node_modules/node/bin/node`;

export function ensureNode24() {
  if (!existsSync(NODE24_BINARY)) {
    mkdirSync(prefix, { recursive: true });
    console.error(`forgeform: installing Node ${NODE24_VERSION} for the Action tests into .cache/node24 ...`);
    execSync(
      `npm install --prefix "${prefix}" --no-save --no-package-lock --no-audit --no-fund --loglevel=error node@${NODE24_VERSION}`,
      { stdio: ["ignore", "ignore", "inherit"] },
    );
  }
  return NODE24_BINARY;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureNode24());
