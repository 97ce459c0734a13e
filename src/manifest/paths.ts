/**
 * The platform's rules for the path of a group or project, applied to every path forgeform sends: the keys of
 * `groups:` and `projects:`, the roots of their patterns, `except:` entries and `--target` values. A path is
 * segments joined by `/`; each segment, as the platform (13.12, `Gitlab::PathRegex.namespace_format_regex`, the
 * rule every namespace follows) allows it:
 *
 * - letters, digits, `_`, `-` and `.` only;
 * - does not start with `-`, and does not end in `.`, `.git` or `.atom`.
 *
 * So `.` and `..` are never segments (they end in `.`): such a path would name another one once it is in a URL.
 */

/** A segment the platform accepts (the rule above, `.git`/`.atom` aside). */
const SEGMENT = /^(?:[A-Za-z0-9_.][A-Za-z0-9_.-]*[A-Za-z0-9_-]|[A-Za-z0-9_])$/;
const CHARACTER = /[A-Za-z0-9_.-]/;

/** The rule, said once, for messages. */
export const PATH_RULE =
  'each segment has only letters, digits, "_", "-" and ".", and does not start with "-" or end in ".", ".git" or ".atom"';

/** What is wrong with one segment of a path, or undefined when the platform accepts it. */
export function segmentProblem(segment: string): string | undefined {
  if (segment === "") return "is empty (two slashes in a row, or one at an end)";
  if (segment === "." || segment === "..") {
    return "is a dot segment, which would name another path in a URL";
  }
  const bad = [...segment].find((c) => !CHARACTER.test(c));
  if (bad !== undefined) return `holds ${JSON.stringify(bad)}`;
  if (segment.startsWith("-")) return 'starts with "-"';
  if (!SEGMENT.test(segment)) return 'ends in "."';
  const suffix = /\.(git|atom)$/.exec(segment);
  if (suffix) return `ends in "${suffix[0]}"`;
  return undefined;
}

/**
 * What is wrong with a full path (`acme/platform/api`), naming the first segment at fault and the rule, or undefined
 * when every segment is one the platform accepts.
 */
export function pathProblem(path: string): string | undefined {
  for (const segment of path.split("/")) {
    const problem = segmentProblem(segment);
    if (problem !== undefined) {
      const which = path.includes("/") ? `its segment ${JSON.stringify(segment)} ` : "it ";
      return `${JSON.stringify(path)} is not a path the platform allows: ${which}${problem}; ${PATH_RULE}`;
    }
  }
  return undefined;
}

/**
 * What is wrong with a key of `groups:` or `projects:`, or an `except:` entry: a full path, or a pattern (`*`, `**`,
 * `root/*`, `root/**`) whose root is one. A project's full path has a group segment before the project's.
 */
export function entryProblem(key: string, collection: "groups" | "projects"): string | undefined {
  if (key === "*" || key === "**") return undefined;
  const pattern = /^(.*)\/\*\*?$/.exec(key);
  if (pattern) {
    const problem = pathProblem(pattern[1]!);
    return problem === undefined ? undefined : `the root of the pattern ${JSON.stringify(key)}: ${problem}`;
  }
  const problem = pathProblem(key);
  if (problem !== undefined) {
    return key.includes("*") ? `${problem} (a pattern ends in /* or /**)` : problem;
  }
  if (collection === "projects" && !key.includes("/")) {
    return `${JSON.stringify(key)} is not a project's full path: a project sits in a group, so its path has a group segment first (group/project)`;
  }
  return undefined;
}
