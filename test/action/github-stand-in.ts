/**
 * A stand-in for the few GitHub API endpoints the Action's `comment` input calls, over real HTTP (node:http), as
 * GitHub documents them: GraphQL's `viewer { login }`, and REST's list comments of an issue or pull request
 * (paginated with a Link header, per_page at most 100), create a comment, update a comment. Tokens are those it is
 * given, each with its login and whether it may write (`pull-requests: write`); anything else is 401 Bad credentials,
 * a write without the permission is 403 "Resource not accessible by integration", a blank body or one over 65,536
 * characters is 422. With `prefix: "/api/v3"` it answers as GitHub Enterprise Server does (REST under /api/v3, GraphQL at
 * /api/graphql). Every request is recorded, with its Authorization and User-Agent headers, for the tests to check.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StandInToken {
  login: string;
  /** The token may create and update comments (the job has pull-requests: write). */
  write: boolean;
}

export interface StandInComment {
  id: number;
  body: string;
  user: { login: string; type: "Bot" | "User" };
  html_url: string;
  created_at: string;
  updated_at: string;
}

export interface RecordedRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  authorization: string | undefined;
  userAgent: string | undefined;
  body: string;
}

export interface GitHubStandIn {
  /** What GITHUB_API_URL is set to. */
  apiUrl: string;
  requests: RecordedRequest[];
  /** The comments of a pull request, oldest first. */
  comments(pull: number): StandInComment[];
  /** Adds a comment as `login` wrote it (a person's, another bot's, an earlier run's). */
  seed(pull: number, login: string, body: string): StandInComment;
  stop(): Promise<void>;
}

/** GitHub's longest comment body. */
const BODY_MAX = 65_536;
const BOT = /\[bot\]$/;

export async function startGitHubStandIn(options: {
  repository: string;
  pulls: number[];
  tokens: Record<string, StandInToken>;
  prefix?: "" | "/api/v3";
}): Promise<GitHubStandIn> {
  const prefix = options.prefix ?? "";
  const graphqlPath = prefix === "/api/v3" ? "/api/graphql" : "/graphql";
  const byPull = new Map<number, StandInComment[]>(options.pulls.map((n) => [n, []]));
  const requests: RecordedRequest[] = [];
  let nextId = 1000;
  let clock = Date.parse("2030-01-01T00:00:00Z");
  /** The stand-in's own clock: a second later at every write. */
  const tick = () => {
    clock += 1000;
    return new Date(clock).toISOString();
  };
  let base = "";

  const add = (pull: number, login: string, body: string): StandInComment => {
    const id = nextId++;
    const at = tick();
    const comment: StandInComment = {
      id,
      body,
      user: { login, type: BOT.test(login) ? "Bot" : "User" },
      html_url: `https://github.example/${options.repository}/pull/${pull}#issuecomment-${id}`,
      created_at: at,
      updated_at: at,
    };
    byPull.get(pull)!.push(comment);
    return comment;
  };

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
    res.end(JSON.stringify(body));
  };

  function handle(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const url = new URL(req.url ?? "/", base);
    const method = req.method ?? "GET";
    const auth = /^(?:token|bearer) (\S+)$/i.exec(req.headers.authorization ?? "");
    const token = auth ? options.tokens[auth[1]!] : undefined;
    if (!token) {
      send(res, 401, { message: "Bad credentials", documentation_url: "https://docs.github.com/rest" });
      return;
    }
    if (method === "POST" && url.pathname === graphqlPath) {
      const { query } = JSON.parse(raw) as { query?: string };
      if (!/\bviewer\s*\{\s*login\s*\}/.test(query ?? "")) {
        send(res, 200, { errors: [{ message: "the stand-in answers only viewer { login }" }] });
        return;
      }
      send(res, 200, { data: { viewer: { login: token.login } } });
      return;
    }
    const path = url.pathname.startsWith(`${prefix}/`) ? url.pathname.slice(prefix.length) : "";
    const list = /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/.exec(path);
    const one = /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/.exec(path);
    const repo = (list ?? one)?.[1];
    if (repo !== options.repository || (list && !byPull.has(Number(list[2])))) {
      send(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
      return;
    }
    const forbidden = () =>
      send(res, 403, {
        message: "Resource not accessible by integration",
        documentation_url: "https://docs.github.com/rest/issues/comments",
        status: "403",
      });
    /** A body GitHub refuses (422): missing, blank, or longer than 65,536 characters. */
    const refused = (body: unknown): boolean => {
      const problem =
        typeof body !== "string" || body.trim() === ""
          ? "body can't be blank"
          : body.length > BODY_MAX
            ? `body is too long (maximum is ${BODY_MAX} characters)`
            : undefined;
      if (problem === undefined) return false;
      send(res, 422, {
        message: "Validation Failed",
        errors: [{ resource: "IssueComment", code: "custom", field: "body", message: problem }],
      });
      return true;
    };
    if (list && method === "GET") {
      const comments = byPull.get(Number(list[2]))!;
      const perPage = Math.min(100, Number(url.searchParams.get("per_page") ?? 30) || 30);
      const page = Math.max(1, Number(url.searchParams.get("page") ?? 1) || 1);
      const last = Math.max(1, Math.ceil(comments.length / perPage));
      const link = (n: number, rel: string) => {
        const target = new URL(url);
        target.searchParams.set("per_page", String(perPage));
        target.searchParams.set("page", String(n));
        return `<${target}>; rel="${rel}"`;
      };
      const links = [
        ...(page > 1 ? [link(page - 1, "prev"), link(1, "first")] : []),
        ...(page < last ? [link(page + 1, "next"), link(last, "last")] : []),
      ];
      send(
        res,
        200,
        comments.slice((page - 1) * perPage, page * perPage),
        links.length > 0 ? { link: links.join(", ") } : {},
      );
      return;
    }
    if (list && method === "POST") {
      if (!token.write) {
        forbidden();
        return;
      }
      const { body } = JSON.parse(raw) as { body?: unknown };
      if (refused(body)) return;
      send(res, 201, add(Number(list[2]), token.login, body as string));
      return;
    }
    if (one && method === "PATCH") {
      if (!token.write) {
        forbidden();
        return;
      }
      const comment = [...byPull.values()].flat().find((c) => c.id === Number(one[2]));
      if (!comment) {
        send(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
        return;
      }
      const { body } = JSON.parse(raw) as { body?: unknown };
      if (refused(body)) return;
      comment.body = body as string;
      comment.updated_at = tick();
      send(res, 200, comment);
      return;
    }
    send(res, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      requests.push({
        method: req.method ?? "",
        url: req.url ?? "",
        authorization: req.headers.authorization,
        userAgent: req.headers["user-agent"],
        body: raw,
      });
      try {
        handle(req, res, raw);
      } catch (error) {
        send(res, 400, { message: `Problems parsing JSON: ${String(error)}` });
      }
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${base}${prefix}`,
    requests,
    comments: (pull) => structuredClone(byPull.get(pull) ?? []),
    seed: add,
    stop: () => new Promise<void>((done, fail) => server.close((e) => (e ? fail(e) : done()))),
  };
}
