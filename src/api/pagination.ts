/** Reading the platform's offset-pagination headers (X-Next-Page, X-Total-Pages, Link). */

export const PER_PAGE = 100;

/** The `rel` -> URL map of an RFC 8288 `Link` header. */
export function parseLinkHeader(header: string | undefined): Map<string, string> {
  const links = new Map<string, string>();
  if (!header) return links;
  for (const match of header.matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const url = match[1] ?? "";
    const rels = /;\s*rel\s*=\s*"?([^";,]+)"?/i.exec(match[2] ?? "")?.[1];
    for (const rel of (rels ?? "").trim().split(/\s+/)) {
      if (rel && !links.has(rel)) links.set(rel.toLowerCase(), url);
    }
  }
  return links;
}

export type NextPage = { page: number } | { search: string };

export interface PageInfo {
  /** True when the response carried any pagination header; a list without them is complete as it is. */
  paginated: boolean;
  /** The next page: a page number from X-Next-Page, or the whole query string of the Link rel="next" URL. */
  next: NextPage | undefined;
  /** X-Total-Pages when present and valid. */
  totalPages: number | undefined;
}

function positiveInt(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  const n = Number(value.trim());
  return n > 0 ? n : undefined;
}

export function pageInfo(headers: Record<string, string>): PageInfo {
  const names = ["x-next-page", "x-page", "x-per-page", "x-total", "x-total-pages", "link"];
  const paginated = names.some((name) => headers[name] !== undefined);
  const totalPages = positiveInt(headers["x-total-pages"]);
  const nextPage = positiveInt(headers["x-next-page"]);
  if (nextPage !== undefined) return { paginated, next: { page: nextPage }, totalPages };
  const nextUrl = parseLinkHeader(headers["link"]).get("next");
  if (nextUrl) {
    // Take only the query: the link's host and path prefix may differ from ours (a proxy, or the platform's
    // configured host), and the request path we already have is the right one.
    try {
      const search = new URL(nextUrl, "http://base.invalid").search.replace(/^\?/, "");
      return { paginated, next: search ? { search } : undefined, totalPages };
    } catch {
      return { paginated, next: undefined, totalPages };
    }
  }
  return { paginated, next: undefined, totalPages };
}
