/** `forgeform explain PATH [paths...]`: the effective configuration of one group or project, and where it comes from. */
import type { Command } from "commander";
import { loadManifests } from "../manifest/index.js";
import { explain } from "../manifest/selectors.js";
import { renderExplainText } from "../report/explain.js";
import { formatDiagnostics } from "./diagnostics.js";
import type { Io } from "./index.js";

export function registerExplain(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command("explain")
    .summary("Show the effective configuration of one group or project, and where each part comes from.")
    .description(
      "Show the configuration the manifests give one group or project: every entry that matches it (patterns such " +
        "as acme/** and its full path) merged from the least to the most specific, each field and item with the " +
        "entry and manifest place it came from. Reads the manifests only; never contacts the platform.",
    )
    .argument("<path>", "the full path of a group or project")
    .argument("[paths...]", "manifest files or directories (default: .)")
    .action(async (path: string, paths: string[]) => {
      const loaded = await loadManifests(paths.length > 0 ? paths : ["."], { secrets: false });
      if (!loaded.state) {
        io.err(formatDiagnostics(loaded.diagnostics));
        setExit(1);
        return;
      }
      const found = (["groups", "projects"] as const)
        .map((c) => explain(loaded.state!, c, path))
        .filter((e) => e !== undefined);
      if (found.length === 0) {
        io.err(`forgeform: no group or project entry of the manifests matches ${JSON.stringify(path)}\n`);
        setExit(1);
        return;
      }
      io.out(found.map(renderExplainText).join("\n"));
      setExit(0);
    });
}
