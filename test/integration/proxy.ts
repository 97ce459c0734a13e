/**
 * A pass-through proxy in front of a sandbox, for the few tests that need the platform to answer one route
 * differently (a download that is a sign-in page): every other request goes through unchanged, over real HTTP.
 */
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * Answers a request instead of the sandbox; returns false to let it through. A promise of false lets it through
 * when it settles: the request is held until then (to see whether another request overtakes it).
 */
export type Override = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

/** Answers `res` as the platform answers: `status` with a JSON body (`{ message: ... }` for its errors). */
export function answerJson(res: ServerResponse, status: number, body: unknown): true {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
  return true;
}

/**
 * Answers `req` with the sandbox's own answer at `target`, its JSON body passed through `edit` first (a platform
 * that shows a field differently); the status and the pagination headers are the sandbox's. The request's token
 * goes with it (the SCIM API's bearer token too).
 */
export async function answerEdited(
  target: string,
  req: IncomingMessage,
  res: ServerResponse,
  edit: (body: unknown) => void,
): Promise<true> {
  const { authorization } = req.headers;
  const answer = await fetch(`${target}${req.url}`, {
    method: req.method,
    headers: {
      "PRIVATE-TOKEN": String(req.headers["private-token"]),
      ...(authorization === undefined ? {} : { authorization }),
    },
  });
  const body = (await answer.json()) as unknown;
  edit(body);
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  for (const [name, value] of answer.headers)
    if (name === "link" || name.startsWith("x-")) headers[name] = value;
  res.writeHead(answer.status, headers);
  res.end(JSON.stringify(body));
  return true;
}

export async function startProxy(target: string, override: Override): Promise<RunningProxy> {
  const to = new URL(target);
  const server = createServer((req, res) => {
    const answered = override(req, res);
    if (answered === true) return;
    if (answered === false) pass(req, res);
    else void answered.then((done) => done || pass(req, res));
  });
  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const forward = request(
      {
        hostname: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A request that went through a recording proxy, its body as sent (parsed when it is JSON). */
export interface Recorded {
  method: string;
  /** The path, without the query. */
  path: string;
  body: unknown;
}

/** A proxy that lets every request through and records each with its body, as a platform would receive it. */
export async function startRecorder(target: string): Promise<RunningProxy & { requests: Recorded[] }> {
  const requests: Recorded[] = [];
  const proxy = await startProxy(target, (req) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = text;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      requests.push({ method: req.method ?? "", path: (req.url ?? "").replace(/\?.*$/, ""), body });
    });
    return false;
  });
  return { ...proxy, requests };
}
