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

/** A route with what matching needs, computed once when it is added. */
interface Indexed<H> {
  route: Route<H>;
  /** Registration order: the tie-break between routes of equal specificity. */
  order: number;
  score: number[];
}

/** One position of a path in the tree of routes: where a literal segment or a parameter leads. */
interface Node<H> {
  literal: Map<string, Node<H>>;
  param?: Node<H>;
  /** Routes whose segments end here. */
  routes: Indexed<H>[];
  /** Routes whose splat stands here: they match any path that has one segment or more left. */
  splat: Indexed<H>[];
}

function node<H>(): Node<H> {
  return { literal: new Map(), routes: [], splat: [] };
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
  /**
   * Per mount, the routes as a tree of their segments, so that a request splits and decodes its path once per
   * mount and visits only the routes whose literals it has.
   */
  private readonly trees = new Map<Mount, Node<H>>();

  add(method: string, mount: Mount, pattern: string, handler: H): void {
    const m = method.toUpperCase();
    if (this.routes.some((r) => r.method === m && r.mount === mount && r.pattern === pattern)) {
      throw new Error(`sandbox: route ${m} ${MOUNT_PREFIX[mount]}${pattern} is registered twice`);
    }
    const route: Route<H> = { method: m, mount, pattern, segments: compile(pattern), handler };
    const entry: Indexed<H> = { route, order: this.routes.length, score: Router.score(route) };
    this.routes.push(route);
    let at = this.trees.get(mount) ?? node<H>();
    this.trees.set(mount, at);
    for (const seg of route.segments) {
      if (seg.kind === "splat") {
        at.splat.push(entry);
        return;
      }
      if (seg.kind === "param") at = at.param ??= node();
      else {
        const next = at.literal.get(seg.value) ?? node<H>();
        at.literal.set(seg.value, next);
        at = next;
      }
    }
    at.routes.push(entry);
  }

  list(): readonly Route<H>[] {
    return this.routes;
  }

  /** The routes under `at` that match the path's segments from `i` on (`parts` raw, `decoded` URL-decoded). */
  private static collect<H>(
    at: Node<H>,
    parts: readonly string[],
    decoded: readonly string[],
    i: number,
    into: Indexed<H>[],
  ): void {
    if (i === parts.length) {
      into.push(...at.routes);
      return;
    }
    into.push(...at.splat);
    if (parts[i] === "") return;
    const literal = at.literal.get(decoded[i]!);
    if (literal) Router.collect(literal, parts, decoded, i + 1, into);
    if (at.param) Router.collect(at.param, parts, decoded, i + 1, into);
  }

  private static params<H>(route: Route<H>, decoded: readonly string[]): Record<string, string> {
    const params: Record<string, string> = {};
    for (let i = 0; i < route.segments.length; i++) {
      const seg = route.segments[i]!;
      if (seg.kind === "splat") {
        params[seg.value] = decoded.slice(i).join("/");
        break;
      }
      if (seg.kind === "param") params[seg.value] = decoded[i]!;
    }
    return params;
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
    const candidates: (Match<H> & { entry: Indexed<H> })[] = [];
    for (const [mount, tree] of this.trees) {
      const prefix = MOUNT_PREFIX[mount];
      if (prefix && !(path === prefix || path.startsWith(`${prefix}/`))) continue;
      const parts = path.slice(prefix.length).split("/").slice(1);
      if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
      const decoded = parts.map(decode);
      const found: Indexed<H>[] = [];
      Router.collect(tree, parts, decoded, 0, found);
      for (const entry of found)
        if (accept(entry.route))
          candidates.push({ route: entry.route, params: Router.params(entry.route, decoded), entry });
    }
    if (candidates.length === 0) throw routeNotFound();
    candidates.sort((a, b) => Router.compare(a.entry.score, b.entry.score) || a.entry.order - b.entry.order);
    const best = candidates.find((c) => c.route.method === m);
    if (best) return { route: best.route, params: best.params };
    const allow = [...new Set(candidates.map((c) => c.route.method))];
    if (allow.includes("GET")) allow.push("HEAD");
    throw methodNotAllowed(allow);
  }
}
