/**
 * One HTTP exchange through an undici dispatcher (the client's pool or proxy agent): the status, the headers and the
 * whole body, handed over by undici's handler callbacks with no stream in between. undici's `request()` wraps every
 * answer in a Readable stream and every request in an AbortSignal, which took about 45 µs of CPU time of the
 * client's 110 per request and made garbage for nothing the client uses: it reads each body whole
 * (docs/benchmarks.md, "Wall time").
 */
import type { Dispatcher } from "undici";

export interface ExchangeRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | null;
  /** The whole exchange, from the request's dispatch to its body's last byte. */
  timeoutMs: number;
  /** The largest body accepted, declared (`Content-Length`) or read. */
  maxBytes: number;
  /** The error the exchange fails with when timeoutMs is up (made then, not for every request). */
  timedOut: () => Error;
  /** The error the exchange fails with when the body is, or is declared, longer than maxBytes. */
  tooLarge: (status: number, declared: number | undefined) => Error;
}

export interface ExchangeResponse {
  status: number;
  /** Lower-case names; a header sent more than once, its values joined with ", ". */
  headers: Record<string, string>;
  bytes: Buffer;
}

/**
 * Sends one request and reads its answer whole. Fails with undici's error (connection refused, reset, its own
 * headers and body timeouts), with `timedOut()` or with `tooLarge()`; on the last two the connection is closed, so
 * nothing more of the answer is read. Retries are the caller's.
 */
export function exchange(dispatcher: Dispatcher, req: ExchangeRequest): Promise<ExchangeResponse> {
  return new Promise((resolve, reject) => {
    let controller: Dispatcher.DispatchController | undefined;
    /** Why the exchange was given up before undici started it: it is aborted as soon as it starts. */
    let givenUp: Error | undefined;
    let settled = false;
    let status = 0;
    let headers: Record<string, string> = {};
    /** The body's length as its Content-Length announces it, if it does. */
    let declared: number | undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    };
    const giveUp = (error: Error) => {
      if (settled) return;
      if (controller) controller.abort(error);
      else givenUp = error;
      fail(error);
    };
    const timer = setTimeout(() => giveUp(req.timedOut()), req.timeoutMs);
    try {
      dispatcher.dispatch(
        {
          origin: req.origin,
          path: req.path,
          method: req.method as Dispatcher.HttpMethod,
          headers: req.headers,
          body: req.body,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        {
          onRequestStart(c) {
            controller = c;
            if (givenUp) c.abort(givenUp);
          },
          onResponseStart(_c, statusCode, raw) {
            status = statusCode;
            headers = joinedHeaders(raw);
            const length = headers["content-length"];
            declared = length !== undefined && /^\d+$/.test(length) ? Number(length) : undefined;
            if (declared !== undefined && declared > req.maxBytes) giveUp(req.tooLarge(status, declared));
          },
          onResponseData(_c, chunk) {
            if (settled) return;
            size += chunk.length;
            if (size > req.maxBytes) {
              chunks.length = 0;
              giveUp(req.tooLarge(status, declared));
              return;
            }
            chunks.push(chunk);
          },
          onResponseEnd() {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve({ status, headers, bytes: Buffer.concat(chunks, size) });
          },
          onResponseError(_c, error) {
            fail(error);
          },
        },
      );
    } catch (error) {
      // undici throws only for a handler that is not an object; anything else reaches onResponseError.
      fail(error as Error);
    }
  });
}

/**
 * undici's parsed headers (a header sent more than once as an array) as one string per lower-case name. A header
 * named `__proto__` sets nothing: a string is not a prototype.
 */
function joinedHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}
