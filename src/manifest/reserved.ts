/**
 * Paths the platform keeps for its own routes, so that it refuses a group or project created with one ("<path> is
 * a reserved name", a 400). The lists are GitLab 13.12's, from `lib/gitlab/path_regex.rb` (`Gitlab::PathRegex`),
 * read there and written here; the sandbox keeps its own copy (`src/sandbox/model.ts`), as the two stand apart.
 *
 * How the platform applies them (`ProjectPathValidator`, `NamespacePathValidator`):
 *
 * - a project's path (its last segment only) must not be a word of `PROJECT_WILDCARD_ROUTES`;
 * - a group's full path is checked whole: its first segment must not be a word of `TOP_LEVEL_ROUTES`, and no later
 *   segment may start a word of `PROJECT_WILDCARD_ROUTES` or `GROUP_ROUTES`. A word of several segments
 *   (`info/lfs/objects`) is refused only as that run of segments: a subgroup `info` is allowed, `objects` under
 *   `…/info/lfs` is not.
 *
 * Words are compared in any case (`Regexp::IGNORECASE`), and whole segments only: `new` is refused, `new-api` and
 * `renew` are not. A top-level group may use a word of the project list (`edit`), a subgroup one of the top-level
 * list (`admin`).
 */

/** Words refused as the first segment of a namespace (a top-level group or a username). */
const TOP_LEVEL_ROUTES = [
  "-",
  ".well-known",
  "404.html",
  "422.html",
  "500.html",
  "502.html",
  "503.html",
  "admin",
  "api",
  "apple-touch-icon-precomposed.png",
  "apple-touch-icon.png",
  "assets",
  "dashboard",
  "deploy.html",
  "explore",
  "favicon.ico",
  "favicon.png",
  "files",
  "groups",
  "health_check",
  "help",
  "import",
  "jwt",
  "login",
  "oauth",
  "profile",
  "projects",
  "public",
  "robots.txt",
  "s",
  "search",
  "sitemap",
  "sitemap.xml",
  "sitemap.xml.gz",
  "slash-command-logo.png",
  "snippets",
  "unsubscribes",
  "uploads",
  "users",
  "v2",
];

/** Words that follow `/<namespace>/<project>/` in routes with a second wildcard: refused for projects and subgroups. */
const PROJECT_WILDCARD_ROUTES = [
  "-",
  "badges",
  "blame",
  "blob",
  "builds",
  "commits",
  "create",
  "create_dir",
  "edit",
  "environments/folders",
  "files",
  "find_file",
  "gitlab-lfs/objects",
  "info/lfs/objects",
  "new",
  "preview",
  "raw",
  "refs",
  "tree",
  "update",
  "wikis",
];

/** Words that follow `/groups/<group>/`: refused for subgroups. */
const GROUP_ROUTES = ["-"];

type Words = readonly (readonly string[])[];

const split = (words: readonly string[]): Words => words.map((w) => w.split("/"));

const TOP_LEVEL = split(TOP_LEVEL_ROUTES);
const PROJECT = split(PROJECT_WILDCARD_ROUTES);
const SUBGROUP = split([...new Set([...PROJECT_WILDCARD_ROUTES, ...GROUP_ROUTES])]);

/** The word of `words` that the segments starting at `from` spell, in any case, if one does. */
function wordAt(segments: readonly string[], from: number, words: Words): readonly string[] | undefined {
  return words.find(
    (w) =>
      from + w.length <= segments.length &&
      w.every((part, i) => part.toLowerCase() === segments[from + i]!.toLowerCase()),
  );
}

/** A reserved word found in a path: the word and who the platform refuses it for. */
export interface ReservedWord {
  word: string;
  role: "project" | "top-level group" | "subgroup";
}

/**
 * The reserved word that makes the platform refuse to create this group or project, or undefined. `fullPath` is a
 * valid full path (`acme/platform/api`); for a group, only a word that ends at its last segment is reported (one
 * that ends higher up is its ancestor's fault, reported where that ancestor is declared).
 */
export function reservedWord(fullPath: string, collection: "groups" | "projects"): ReservedWord | undefined {
  const segments = fullPath.split("/");
  const last = segments.length - 1;
  if (collection === "projects") {
    const word = wordAt([segments[last]!], 0, PROJECT);
    return word && { word: word.join("/"), role: "project" };
  }
  if (last === 0) {
    const word = wordAt(segments, 0, TOP_LEVEL);
    return word && { word: word.join("/"), role: "top-level group" };
  }
  for (let from = 1; from <= last; from++) {
    const word = wordAt(segments, from, SUBGROUP);
    if (word && from + word.length - 1 === last) return { word: word.join("/"), role: "subgroup" };
  }
  return undefined;
}

/** Why the platform refuses this group or project path as reserved, and what to do; undefined when it does not. */
export function reservedProblem(fullPath: string, collection: "groups" | "projects"): string | undefined {
  const found = reservedWord(fullPath, collection);
  if (!found) return undefined;
  const { word, role } = found;
  const head = `${JSON.stringify(fullPath)} is a path the platform reserves: ${JSON.stringify(word)}`;
  if (word.includes("/")) {
    return `${head} is one of its own routes (compared in any case), refused as the end of a ${role}'s full path, so creating the ${role} fails; choose another path for it`;
  }
  // "-" is refused by the path rule first (a segment does not start with "-"): no longer path to suggest.
  const longer = word.startsWith("-")
    ? ""
    : ` (one that merely contains the word, such as "${word}-app", is allowed)`;
  return `${head} is a word of its own routes (compared in any case), refused as a ${role}'s path, so creating the ${role} fails; choose another path${longer}`;
}
