/**
 * `forgeform convert`: another tool's configuration (GitLabForm, gitlabracadabra, a Terraform state of the
 * platform's provider) as forgeform manifests, and a report of what could not be converted, each item with its
 * place in the source and why. Secrets of the source become `${env:NAME}` references; their values are never
 * written or printed.
 */
import { loadManifests, loadSchemas } from "../manifest/index.js";
import { convertGitlabform } from "./gitlabform.js";
import { convertRacadabra } from "./racadabra.js";
import { Report } from "./report.js";
import { readSource, type SNode } from "./source.js";
import { Target } from "./target.js";
import { convertTerraform } from "./terraform.js";

export { Report, type ReportItem, renderReportJson, renderReportText } from "./report.js";
export { type Place, placeText, SourceError } from "./source.js";

export const TOOLS = ["gitlabform", "gitlabracadabra", "terraform"] as const;
export type Tool = (typeof TOOLS)[number];

/** A source file: its name as the user gave it, and its text (`read` reads an included file, for gitlabracadabra). */
export interface SourceFile {
  name: string;
  text: string;
}

export interface ConvertRequest {
  from: Tool;
  sources: SourceFile[];
  /** Reads a file a source includes (gitlabracadabra's `include:`), by its path relative to the including file. */
  read?: (name: string, from: string) => SourceFile | undefined;
  /** The `$schema` reference each file names. */
  schemaRef: string;
  /** This forgeform's version, for the report's words on what it cannot manage yet. */
  version: string;
  /**
   * false: the manifests as the converters write them, in the language of forgeform with every kind, without
   * holding them against this version's schemas (for tests of the converters themselves). Default true.
   */
  fit?: boolean;
}

export interface ConvertedFile {
  name: string;
  text: string;
  /** The environment variables the file reads. */
  env: string[];
}

export interface ConvertResult {
  files: ConvertedFile[];
  report: Report;
}

const TOOL_NAMES: Record<Tool, string> = {
  gitlabform: "GitLabForm",
  gitlabracadabra: "gitlabracadabra",
  terraform: "a Terraform state",
};

/** Converts the sources; throws a SourceError when one cannot be read as its tool reads it. */
export function convert(request: ConvertRequest): ConvertResult {
  const report = new Report();
  const target = new Target(report);
  const parse = (s: SourceFile): SNode =>
    readSource(s.name, s.text, {
      // GitLabForm 6 reads YAML 1.2 (ruamel.yaml), gitlabracadabra 1.1 (PyYAML); a %YAML directive says otherwise.
      version: request.from === "gitlabracadabra" ? "1.1" : "1.2",
      pointers: request.from === "terraform",
    });
  if (request.from === "gitlabform") {
    if (request.sources.length !== 1)
      throw new Error("GitLabForm reads one configuration file: give convert --from gitlabform one file");
    convertGitlabform(target, parse(request.sources[0]!));
  } else if (request.from === "gitlabracadabra") {
    convertRacadabra(target, request.sources, parse, request.read);
  } else {
    for (const s of request.sources) convertTerraform(target, parse(s));
  }
  target.fit(request.fit === false ? undefined : loadSchemas(), request.version);
  const files = target.render(request.schemaRef, [
    `Converted by forgeform from ${TOOL_NAMES[request.from]}: ${request.sources.map((s) => s.name).join(", ")}.`,
    "The conversion report lists what was not converted, each secret, and what to check.",
  ]);
  return { files, report };
}

/**
 * Loads the written manifests as plan would (without resolving secrets) and adds each problem it finds to the
 * report, at the output's place: what the conversion could not foresee (a value the source allowed and forgeform
 * does not). Returns whether they are valid.
 */
export async function checkOutput(paths: string[], root: string, report: Report): Promise<boolean> {
  const result = await loadManifests(paths, { secrets: false, root });
  for (const d of result.diagnostics) {
    const at = { file: d.file, line: d.line, col: d.col };
    if (d.severity === "error") report.check(at, d.path, `the written manifest is not valid: ${d.message}`);
    // Settings under unchecked: were reported from the source already; a template no one uses is the source's.
    else if (!/(^|\.)unchecked\./.test(d.path) && !/template .* is not used/.test(d.message))
      report.check(at, d.path, d.message);
  }
  return result.diagnostics.every((d) => d.severity !== "error");
}
