/**
 * Building request paths: ids as integers or URL-encoded full paths, keys/slugs/names as one encoded segment,
 * and the endpoint templates (`/projects/:id/pipeline_schedules`) that metrics are counted under.
 */

/** A project/group id: a number, a digit string, or a full path such as `acme/platform` (encoded as one segment). */
export type PathId = string | number;

/** Encodes one path segment: numbers as they are, strings with encodeURIComponent (`acme/api` -> `acme%2Fapi`). */
export function encodeSegment(value: PathId): string {
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0) {
      throw new TypeError(`a numeric id in a request path must be a non-negative integer, got ${value}`);
    }
    return String(value);
  }
  if (typeof value !== "string") {
    throw new TypeError(`a request path value must be a string or a number, got ${typeof value}`);
  }
  if (value === "") throw new TypeError("a request path value must not be empty");
  return encodeURIComponent(value);
}

/** Remembers which template produced a path, so metrics can count `/projects/:id/variables/:id` exactly. */
const templates = new Map<string, string>();
const TEMPLATE_MEMORY = 5000;

function remember(path: string, template: string): void {
  if (templates.has(path)) return;
  if (templates.size >= TEMPLATE_MEMORY) {
    const oldest = templates.keys().next();
    if (!oldest.done) templates.delete(oldest.value);
  }
  templates.set(path, template);
}

/**
 * Tagged template for request paths; every interpolation is encoded as one segment:
 * apiPath`/projects/${"acme/api"}/pipeline_schedules/${3}/variables/${"MY KEY"}`
 *   -> `/projects/acme%2Fapi/pipeline_schedules/3/variables/MY%20KEY`
 */
export function apiPath(strings: TemplateStringsArray, ...values: (string | number)[]): string {
  let path = strings[0] ?? "";
  let template = path;
  values.forEach((value, index) => {
    const rest = strings[index + 1] ?? "";
    path += encodeSegment(value) + rest;
    template += ":id" + rest;
  });
  remember(path, template);
  return path;
}

/**
 * The endpoint template of a request path, for metrics: the query is dropped and ids are replaced by `:id`.
 * Paths built with `apiPath` map to their exact template; for other paths numeric segments and encoded full
 * paths (those containing `%`) count as ids.
 */
export function endpointTemplate(path: string): string {
  const bare = path.split("?")[0] ?? "";
  const known = templates.get(bare);
  if (known !== undefined) return known;
  return bare
    .split("/")
    .map((segment) => (/^\d+$/.test(segment) || segment.includes("%") ? ":id" : segment))
    .join("/");
}
