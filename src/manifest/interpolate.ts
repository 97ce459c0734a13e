import { existsSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { FileReadError, readTextFile } from "../files/read.js";
import type { Diagnostics } from "./diagnostics.js";
import { renderPath } from "./diagnostics.js";
import { type Path, valueLoc } from "./located.js";
import { Secret } from "./secret.js";

export interface InterpolationOptions {
  /** false: references become empty Secrets and nothing is read (validate --no-secrets). */
  secrets: boolean;
  env: NodeJS.ProcessEnv;
  /** The manifest root: `${file:}` paths may not leave it. */
  root: string;
  /** Largest file a `${file:}` reference may read. */
  maxFileBytes?: number;
}

const REF = /\$\$\{|\$\{(env|file):([^}]*)\}/g;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Whether `target` lies inside `root` (both absolute). */
/** A path as shown to the user: relative to the working directory when inside it. */
export function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : abs;
}

export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

/** The real path of `abs`: its nearest existing ancestor with symbolic links resolved, then the rest as written. */
function realExistingPath(abs: string): string {
  let existing = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return resolve(realpathSync(existing), ...rest);
    } catch {
      const up = dirname(existing);
      if (up === existing) return abs;
      rest.unshift(basename(existing));
      existing = up;
    }
  }
}

/**
 * Resolves a path written in a manifest (relative to that manifest's directory) and checks that it stays inside
 * the manifest root, following symbolic links. Returns the absolute path or an error message.
 */
export function resolveManifestPath(
  manifestFile: string,
  written: string,
  root: string,
  mustExist: boolean,
): { path: string } | { error: string } {
  if (written.trim() === "") return { error: "the file path is empty" };
  const abs = resolve(dirname(manifestFile), written);
  if (!isInside(root, abs)) {
    return {
      error: `"${written}" is outside the manifest root ${displayPath(root)}; keep referenced files inside it, or give --root a folder that holds both`,
    };
  }
  let realRoot = root;
  try {
    realRoot = realpathSync(root);
  } catch {
    // root does not exist as such; compare against it unchanged
  }
  if (!mustExist) {
    // A file forgeform will write (a trigger's token_file): its directory, symbolic links resolved, must be inside
    // the root too. The returned path names the real directory, so a writer can tell if it is swapped later.
    const realDir = realExistingPath(dirname(abs));
    if (!isInside(realRoot, realDir)) {
      return {
        error: `"${written}" leads outside the manifest root ${displayPath(root)} through a symbolic link`,
      };
    }
    return { path: resolve(realDir, basename(abs)) };
  }
  if (!existsSync(abs)) return { error: `file "${written}" does not exist (looked for ${displayPath(abs)})` };
  const real = realpathSync(abs);
  if (!isInside(realRoot, real)) {
    return {
      error: `"${written}" leads outside the manifest root ${displayPath(root)} through a symbolic link`,
    };
  }
  if (!statSync(real).isFile()) return { error: `"${written}" is not a file` };
  return { path: real };
}

/**
 * Replaces `${env:NAME}` and `${file:path}` references in every string below `container[key]` with Secrets
 * (in place). `$${` writes a literal `${`. Errors name the variable or file and the place.
 */
export function interpolate(
  value: unknown,
  manifestPath: Path,
  opts: InterpolationOptions,
  diags: Diagnostics,
): void {
  // `container[key]` is at `[...above, key]`: a path is made only for a map or list, or a string with a reference.
  const walk = (container: Record<string, unknown> | unknown[], key: string | number, above: Path) => {
    const v = (container as Record<string | number, unknown>)[key];
    if (typeof v === "string") {
      if (!v.includes("${")) return;
      const r = resolveString(v, container, key, [...above, key], opts, diags);
      if (r !== v) (container as Record<string | number, unknown>)[key] = r;
    } else if (Array.isArray(v)) {
      const path = [...above, key];
      for (let i = 0; i < v.length; i++) walk(v, i, path);
    } else if (v !== null && typeof v === "object" && !(v instanceof Secret)) {
      const path = [...above, key];
      for (const k of Object.keys(v)) walk(v as Record<string, unknown>, k, path);
    }
  };
  if (value !== null && typeof value === "object") {
    if (Array.isArray(value)) for (let i = 0; i < value.length; i++) walk(value, i, manifestPath);
    else for (const k of Object.keys(value)) walk(value as Record<string, unknown>, k, manifestPath);
  }
}

function resolveString(
  text: string,
  container: object,
  key: string | number,
  path: Path,
  opts: InterpolationOptions,
  diags: Diagnostics,
): string | Secret {
  if (!text.includes("${")) return text;
  const at = valueLoc(container, key);
  const origins: string[] = [];
  /** The value of each reference, as read. */
  const parts: string[] = [];
  let failed = false;
  const out = text.replace(REF, (whole: string, scheme?: string, arg?: string) => {
    if (whole === "$${") return "${";
    const name = (arg ?? "").trim();
    if (scheme === "env") {
      origins.push(`env:${name}`);
      if (!ENV_NAME.test(name)) {
        diags.error(at, renderPath(path), `"\${env:${name}}" is not a valid environment variable name`);
        failed = true;
        return "";
      }
      if (!opts.secrets) return "";
      const v = opts.env[name];
      if (v === undefined) {
        diags.error(
          at,
          renderPath(path),
          `environment variable ${name} is not set (referenced as \${env:${name}}); set it, or run validate with --no-secrets`,
        );
        failed = true;
        return "";
      }
      parts.push(v);
      return v;
    }
    origins.push(`file:${name}`);
    const found = resolveManifestPath(at.file, name, opts.root, opts.secrets);
    if ("error" in found) {
      diags.error(at, renderPath(path), `\${file:${name}}: ${found.error}`);
      failed = true;
      return "";
    }
    if (!opts.secrets) return "";
    try {
      // Read once, capped while reading: a file that grows, or is swapped for a FIFO, after the checks above is
      // refused, not read for ever.
      const read = readTextFile(found.path, { maxBytes: opts.maxFileBytes ?? 1024 * 1024 }).replace(
        /\r?\n$/,
        "",
      );
      parts.push(read);
      return read;
    } catch (error) {
      if (!(error instanceof FileReadError)) throw error;
      diags.error(at, renderPath(path), `\${file:${name}}: the file ${error.reason}`);
      failed = true;
      return "";
    }
  });
  if (origins.length === 0) return out;
  // What may be shown of the value: the literal text around the references, each reference masked.
  const shown = text.replace(REF, (whole: string) => (whole === "$${" ? "${" : Secret.mask));
  if (failed || !opts.secrets) return new Secret("", origins.join(","), shown, true);
  return new Secret(out, origins.join(","), shown, false, parts);
}
