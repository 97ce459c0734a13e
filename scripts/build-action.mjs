#!/usr/bin/env node
// Bundles the GitHub Action (src/action/index.ts and everything it imports, dependencies included) into one ESM
// file, dist/index.js, which action.yml runs. `node scripts/build-action.mjs [OUTDIR]` builds into OUTDIR instead
// (the test that checks dist/ is up to date builds into a temporary directory and compares bytes).
//
// Modules in src/<dir>/ find repository files through `new URL("../../schemas/", import.meta.url)` and the like.
// In the bundle, import.meta.url is dist/index.js, one level below the repository root, so those URLs are rewritten
// to `new URL("../schemas/", import.meta.url)`: the Action reads schemas/*.json from its own checkout, as the
// runner provides it. Any other use of import.meta.url in a bundled source file stops the build.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(root, process.argv[2] ?? "dist");

/** Rewrites repository-root-relative URLs of src/ modules so they resolve from the bundle's directory. */
const rootRelativeUrls = {
  name: "root-relative-urls",
  setup(b) {
    b.onLoad({ filter: /[\\/]src[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes("import.meta.url")) return undefined;
      const depth = relative(resolve(root, "src"), dirname(args.path)).split(sep).filter(Boolean).length + 1;
      const up = "../".repeat(depth);
      const pattern = /new URL\("([^"]*)", import\.meta\.url\)/g;
      const contents = source.replace(pattern, (_whole, target) => {
        if (!target.startsWith(up)) {
          throw new Error(
            `${relative(root, args.path)}: new URL(${JSON.stringify(target)}, import.meta.url) does not start at the repository root (${up}); the bundle cannot resolve it`,
          );
        }
        return `new URL(${JSON.stringify(`../${target.slice(up.length)}`)}, import.meta.url)`;
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

mkdirSync(outdir, { recursive: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: ["src/action/index.ts"],
  outfile: resolve(outdir, "index.js"),
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
  plugins: [rootRelativeUrls],
  metafile: true,
});
// dist/index.js is ESM whatever the package.json above it says.
writeFileSync(resolve(outdir, "package.json"), `${JSON.stringify({ type: "module" }, null, 2)}\n`);
const bytes = Object.values(result.metafile.outputs).reduce((n, o) => n + o.bytes, 0);
console.error(`built ${relative(root, resolve(outdir, "index.js"))} (${Math.round(bytes / 1024)} KiB)`);
