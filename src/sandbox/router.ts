import { methodNotAllowed, routeNotFound } from "./errors.js";

/** Where a route is mounted. */
export type Mount = "rest" | "scim" | "root";

export const MOUNT_PREFIX: Record<Mount, string> = {
  rest: "/api/v4",
  scim: "/api/scim/v2",
  root: "",
};

interface Segment {
  kind: "literal" | "param" | "splat";
  value: string;
}

export interface Route<H> {
  method: string;
  mount: Mount;
  pattern: string;
  segments: Segment[];
  handler: H;
}

export interface Match<H> {
  route: Route<H>;
  params: Record<string, string>;
}

function compile(pattern: string): Segment[] {
  return pattern
    .split("/")
    .filter((s) => s !== "")
    .map((s) =>
      s.startsWith(":")
        ? { kind: "param", value: s.slice(1) }
        : s.startsWith("*")
          ? { kind: "splat", value: s.slice(1) }
          : { kind: "literal", value: s },
    );
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * Routes `(method, pattern)` to handlers. A `:param` matches exactly one path segment (`[^/]+`), so a full path
 * must arrive URL-encoded (`a%2Fb`); an unencoded slash misses the route or matches a different one (§4).
 * Parameters are URL-decoded. `*name` as the last segment matches the rest of the path.
 * Literal segments win over parameters at the same position (so `/groups/import` is not `/groups/:id`).
 */
export class Router<H> {
  private readonly routes: Route<H>[] = [];

  add(method: string, mount: Mount, pattern: string, handler: H): void {
    const m = method.toUpperCase();
    if (this.routes.some((r) => r.method === m && r.mount === mount && r.pattern === pattern)) {
      throw new Error(`sandbox: route ${m} ${MOUNT_PREFIX[mount]}${pattern} is registered twice`);
    }
    this.routes.push({ method: m, mount, pattern, segments: compile(pattern), handler });
  }

  list(): readonly Route<H>[] {
    return this.routes;
  }

  private matchPath(route: Route<H>, parts: string[]): Record<string, string> | undefined {
    const params: Record<string, string> = {};
    const segs = route.segments;
    for (let i = 0; i < segs.length; i++) {
      const seg = segs[i]!;
      if (seg.kind === "splat") {
        if (i >= parts.length) return undefined;
        params[seg.value] = parts.slice(i).map(decode).join("/");
        return params;
      }
      const part = parts[i];
      if (part === undefined || part === "") return undefined;
      if (seg.kind === "literal") {
        if (decode(part) !== seg.value) return undefined;
      } else {
        params[seg.value] = decode(part);
      }
    }
    return parts.length === segs.length ? params : undefined;
  }

  /** Specificity: literals before params before splats, compared segment by segment. */
  private static score(route: { segments: Segment[] }): number[] {
    return route.segments.map((s) => (s.kind === "literal" ? 0 : s.kind === "param" ? 1 : 2));
  }

  private static compare(a: number[], b: number[]): number {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const x = a[i] ?? -1;
      const y = b[i] ?? -1;
      if (x !== y) return x - y;
    }
    return 0;
  }

  /**
   * Finds the handler for `method` and the raw (encoded) `path`. Throws 404 `{"error":"404 Not Found"}` for an
   * unknown path and 405 `{"error":"405 Not Allowed"}` for a known path without that method.
   * `accept` can hide routes (edition gating): a hidden route behaves as if it did not exist.
   */
  match(method: string, path: string, accept: (route: Route<H>) => boolean = () => true): Match<H> {
    const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
    const candidates: Match<H>[] = [];
    for (const route of this.routes) {
      if (!accept(route)) continue;
      const prefix = MOUNT_PREFIX[route.mount];
      if (prefix && !(path === prefix || path.startsWith(`${prefix}/`))) continue;
      const rest = path.slice(prefix.length);
      const parts = rest.split("/").slice(1);
      if (parts.length > 0 && parts[parts.length - 1] === "" && parts.length > 1) parts.pop();
      const params = this.matchPath(route, parts);
      if (params) candidates.push({ route, params });
    }
    if (candidates.length === 0) throw routeNotFound();
    candidates.sort((a, b) => Router.compare(Router.score(a.route), Router.score(b.route)));
    const best = candidates.find((c) => c.route.method === m);
    if (best) return best;
    const allow = [...new Set(candidates.map((c) => c.route.method))];
    if (allow.includes("GET")) allow.push("HEAD");
    throw methodNotAllowed(allow);
  }
}
