/** `forgeform explain PATH [paths...]`: the effective configuration of one group or project, and where it comes from. */
import type { Command } from "commander";
import { loadManifests } from "../manifest/index.js";
import { declaredAs, explain } from "../manifest/selectors.js";
import { addressedOwner } from "../plan/address.js";
import { leftOutText, renderExplainText } from "../report/explain.js";
import { formatDiagnostics } from "./diagnostics.js";
import type { Io } from "./io.js";
import { rootOption } from "./plan.js";

export function registerExplain(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("explain")
    .summary("Show the effective configuration of one group or project, and where each part comes from.")
    .description(
      "Show the configuration the manifests give one group or project: every entry that matches it (patterns such " +
        "as acme/** and its full path) merged from the least to the most specific, each field and item with the " +
        "entry and manifest place it came from. Reads the manifests only; never contacts the platform.",
    )
    .argument("<path>", 'the full path of a group or project (or its address: project["acme/api"])')
    .argument("[paths...]", "manifest files or directories (default: .)")
    .addOption(rootOption())
    .action(async (written: string, paths: string[], options: { root?: string }) => {
      // Also as a plan names it: `project["acme/api"]` is the project acme/api.
      const owner = addressedOwner(written.trim());
      const path = owner?.whole ? owner.path : written;
      const loaded = await loadManifests(paths.length > 0 ? paths : ["."], {
        secrets: false,
        ...(options.root ? { root: options.root } : {}),
      });
      if (!loaded.state) {
        io.err(formatDiagnostics(loaded.diagnostics));
        setExit(1);
        return;
      }
      // A path the manifests show to be a group (or a project) is explained as that only.
      const as = owner?.whole ? owner.collection : declaredAs(loaded.state, path);
      const found = (as ? [as] : (["groups", "projects"] as const))
        .map((c) => explain(loaded.state!, c, path))
        .filter((e) => e !== undefined);
      const applied = found.filter((e) => e.entries.length > 0);
      if (applied.length === 0) {
        const why = found.flatMap((e) => e.leftOut).map(leftOutText);
        io.err(
          `forgeform: no group or project entry of the manifests matches ${JSON.stringify(path)}${why.length > 0 ? `: ${why.join("; ")}` : ""}\n`,
        );
        setExit(1);
        return;
      }
      if (applied.length > 1) {
        io.out(
          `${JSON.stringify(path)} is not declared by full path, and patterns of both groups: and projects: match it: shown as either\n\n`,
        );
      }
      io.out(applied.map(renderExplainText).join("\n"));
      setExit(0);
    });
}
