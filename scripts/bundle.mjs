// One ESM file of an entry point and everything it imports, dependencies included (esbuild): the GitHub Action's
// dist/index.js (scripts/build-action.mjs) and the command line's lib/cli/forgeform.js (scripts/build-cli.mjs).
//
// Modules in src/<dir>/ find repository files through `new URL("../../schemas/", import.meta.url)` and the like.
// In a bundle, import.meta.url is the bundle's own file, so those URLs are rewritten to start from the bundle's
// directory (`../schemas/` from dist/, `../../schemas/` from lib/cli/). Any other use of import.meta.url in a bundled
// source file stops the build.
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** How many folders `path` (a folder) is below the repository root. */
const depthOf = (path) => relative(root, path).split(sep).filter(Boolean).length;

/** Rewrites repository-root-relative URLs of src/ modules so they resolve from `runsFrom` (a folder of the root). */
function rootRelativeUrls(runsFrom) {
  const fromBundle = "../".repeat(depthOf(resolve(root, runsFrom)));
  return {
    name: "root-relative-urls",
    setup(b) {
      b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
        const source = readFileSync(args.path, "utf8");
        if (!source.includes("import.meta.url")) return undefined;
        const up = "../".repeat(depthOf(dirname(args.path)));
        const pattern = /new URL\("([^"]*)", import\.meta\.url\)/g;
        const contents = source.replace(pattern, (_whole, target) => {
          if (!target.startsWith(up)) {
            throw new Error(
              `${relative(root, args.path)}: new URL(${JSON.stringify(target)}, import.meta.url) does not start at the repository root (${up}); the bundle cannot resolve it`,
            );
          }
          return `new URL(${JSON.stringify(`${fromBundle}${target.slice(up.length)}`)}, import.meta.url)`;
        });
        const rest = contents.replace(/new URL\("[^"]*", import\.meta\.url\)/g, "");
        if (rest.includes("import.meta.url")) {
          throw new Error(
            `${relative(root, args.path)} uses import.meta.url other than in new URL("../../...", import.meta.url); the bundle cannot resolve it`,
          );
        }
        return { contents, loader: "ts" };
      });
    },
  };
}

/**
 * Bundles `entry` (a path from the repository root) into `outfile`, to be run from the folder `runsFrom` of the
 * repository (`dist`, `lib/cli`: a test may build into a temporary folder to compare); returns its size in bytes.
 */
export async function bundle(entry, outfile, runsFrom) {
  mkdirSync(dirname(outfile), { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Bundled CommonJS dependencies (ajv, undici, ...) call require() for Node's built-in modules.
    banner: {
      js: 'import { createRequire as __forgeformCreateRequire } from "node:module";\nconst require = __forgeformCreateRequire(import.meta.url);',
    },
    legalComments: "eof",
    logLevel: "warning",
    plugins: [rootRelativeUrls(runsFrom)],
    metafile: true,
  });
  return Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
}
