/**
 * `forgeform export [--instance] [--group PATH]... [--project PATH]... [--out DIR]`: writes manifests that
 * describe the live state (one file per group, with its subgroups and projects, per project, plus instance.yaml).
 * Planning them against the same platform shows no changes. Sensitive values become `${env:NAME}` references
 * whose names are listed on standard error; values are never written or printed.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { ApiClient } from "../api/index.js";
import { createContext } from "../engine/context.js";
import { createRegistry } from "../engine/registry.js";
import { exportManifests } from "../export/export.js";
import { entryExists, writeFileSafely } from "../files/write.js";
import { kinds } from "../kinds/index.js";
import { fieldSpecs } from "../kinds/schemas.js";
import { pathProblem } from "../manifest/paths.js";
import { escapeLine } from "../text/escape.js";
import { addConnectionOptions, resolveConnection } from "./connection.js";
import type { Io } from "./io.js";
import { collect } from "./plan.js";

/** The package's version, for the schema's versioned URL. */
function packageVersion(): string {
  return (
    JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  ).version;
}

/**
 * The `$schema` line of exported files: the published schema of this version on the npm CDN, which editors fetch
 * (stable wherever forgeform is installed); `--schema-ref` gives another (a relative path, for offline editing).
 */
export function schemaUrl(version = packageVersion()): string {
  return `https://unpkg.com/forgeform@${version}/schemas/manifest.schema.json`;
}

export function registerExport(program: Command, io: Io, setExit: (code: number) => void): void {
  const cmd = program
    .command("export")
    .summary("Write manifests that describe the live state.")
    .description(
      "Write manifests describing the live state: instance.yaml, one file per group (with its subgroups and " +
        "projects) and per project. Sensitive values become environment-variable references, listed on standard error.",
    )
    .option(
      "--instance",
      "export instance-level objects (application settings, hooks, broadcasts, notifications)",
    )
    .option("--group <path>", "export a group with its subgroups and projects (repeatable)", collect, [])
    .option("--project <path>", "export a project (repeatable)", collect, [])
    .option(
      "--include-archived",
      "also export a group's archived projects (otherwise they are left out, as patterns leave them out)",
    )
    .option(
      "--factor",
      "write what the projects (and the subgroups) below an exported group share once, as a group/** pattern entry, each keeping only what differs",
    )
    .option("--out <dir>", "directory to write the manifests to (created if missing)", ".")
    .option("--force", "overwrite files that exist already (otherwise export refuses, writing nothing)")
    .option(
      "--unchecked <name>",
      "also export this setting, which forgeform's schema does not know, under unchecked: wherever the platform shows it (repeatable)",
      collect,
      [],
    )
    .option(
      "--schema-ref <ref>",
      "the $schema each file names (default: the versioned schema URL on unpkg.com; a relative path works offline)",
    );
  addConnectionOptions(cmd).action(async (opts: Record<string, unknown>) => {
    const groups = opts["group"] as string[];
    const projects = opts["project"] as string[];
    const instance = opts["instance"] === true;
    if (!instance && groups.length === 0 && projects.length === 0) {
      io.err("forgeform export: nothing to export: pass --instance, --group <path> or --project <path>\n");
      setExit(1);
      return;
    }
    // A path the platform cannot have (`acme/..`) would go out in URLs as written: refused before any request.
    const invalid = [
      ...groups.map((g) => ["--group", g] as const),
      ...projects.map((p) => ["--project", p] as const),
    ].flatMap(([flag, path]) => {
      const problem = pathProblem(path.replace(/^\/+|\/+$/g, ""));
      return problem === undefined ? [] : [`${flag} ${JSON.stringify(path)}: ${problem}`];
    });
    if (invalid.length > 0) {
      io.err(invalid.map((line) => `forgeform export: ${escapeLine(line)}\n`).join(""));
      setExit(1);
      return;
    }
    const outDir = resolve(String(opts["out"]));
    const connection = resolveConnection(opts, process.env, (line) => io.err(`${line}\n`));
    const api = new ApiClient(connection);
    try {
      const ctx = await createContext(api);
      const registry = createRegistry(kinds, fieldSpecs);
      const result = await exportManifests(ctx, registry, {
        instance,
        groups,
        projects,
        schemaRef: (opts["schemaRef"] as string | undefined) ?? schemaUrl(),
        host: new URL(connection.url).hostname,
        unchecked: opts["unchecked"] as string[],
        includeArchived: opts["includeArchived"] === true,
        factor: opts["factor"] === true,
      });
      const existing = result.files.map((f) => join(outDir, f.name)).filter((f) => entryExists(f));
      if (existing.length > 0 && opts["force"] !== true) {
        io.err(
          `forgeform export: ${existing.map((f) => escapeLine(f)).join(", ")} ${existing.length === 1 ? "exists" : "exist"} already: nothing was written. Pass --force to overwrite, or --out another directory\n`,
        );
        setExit(1);
        return;
      }
      try {
        mkdirSync(outDir, { recursive: true });
      } catch (error) {
        const code = (error as { code?: string }).code ?? "error";
        throw new Error(
          `cannot create the output directory ${outDir} (${code}): check --out and its permissions`,
        );
      }
      // File names and messages come from live group and project paths: shown with control characters escaped.
      for (const file of result.files) {
        const target = join(outDir, file.name);
        writeFileSafely(target, file.text);
        io.out(`Wrote ${escapeLine(target)}\n`);
      }
      for (const skipped of result.skipped)
        io.err(`forgeform export: not exported: ${escapeLine(skipped)}\n`);
      const env = result.files.flatMap((f) => f.env);
      if (env.length > 0) {
        io.err(
          `The exported manifests refer to ${env.length} sensitive value${env.length === 1 ? "" : "s"} through environment variables; set them before planning:\n`,
        );
        for (const e of env) io.err(`  ${escapeLine(e.name)}  (${escapeLine(e.field)})\n`);
      }
      setExit(0);
    } finally {
      await api.close();
    }
  });
}
