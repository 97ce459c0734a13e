/**
 * Error envelopes of the platform (platform-behavior §2). Route handlers throw an {@link HttpError}; the server
 * turns it into the response. Two envelopes exist: `{"message": ...}` from the platform's own helpers and
 * `{"error": "..."}` from the request-validation layer (Grape) and the catch-all route.
 */
export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  readonly headers: Record<string, string>;

  constructor(status: number, body: unknown, headers: Record<string, string> = {}) {
    super(typeof body === "string" ? body : JSON.stringify(body));
    this.name = "HttpError";
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

/** 404 `{"message":"404 <Resource> Not Found"}`, or `{"message":"404 Not Found"}` without a resource. */
export function notFound(resource?: string): HttpError {
  return new HttpError(404, { message: resource ? `404 ${resource} Not Found` : "404 Not Found" });
}

/** 404 `{"message":"404 Not found"}` (lowercase f): what a failed record lookup (`find`, `find_by!`) gives. */
export function recordNotFound(): HttpError {
  return new HttpError(404, { message: "404 Not found" });
}

/** 404 `{"error":"404 Not Found"}`: the catch-all for unknown routes. */
export function routeNotFound(): HttpError {
  return new HttpError(404, { error: "404 Not Found" });
}

/** 405 `{"error":"405 Not Allowed"}`: a known path with a method it does not have. */
export function methodNotAllowed(allow: string[]): HttpError {
  return new HttpError(405, { error: "405 Not Allowed" }, { Allow: allow.join(", ") });
}

/** 403 `{"message":"403 Forbidden"}` or `{"message":"403 Forbidden - <reason>"}`. */
export function forbidden(reason?: string): HttpError {
  return new HttpError(403, { message: reason ? `403 Forbidden - ${reason}` : "403 Forbidden" });
}

/** 401 `{"message":"401 Unauthorized"}`. */
export function unauthorized(): HttpError {
  return new HttpError(401, { message: "401 Unauthorized" });
}

/** 400 `{"message": msg}` (a string, e.g. `Failed to save group {...}`). */
export function badRequest(message: string): HttpError {
  return new HttpError(400, { message });
}

/** 400 `{"error": msg}`: parameter validation (`"title is missing"`, `"per_page is invalid"`). */
export function paramError(message: string): HttpError {
  return new HttpError(400, { error: message });
}

/** 400 `{"message": {"field": ["msg", ...]}}`: model validation errors. */
export function validation(errors: Record<string, string[]>): HttpError {
  return new HttpError(400, { message: errors });
}

/** 409 `{"message": msg}`, default `"409 Conflict"`. */
export function conflict(message = "409 Conflict"): HttpError {
  return new HttpError(409, { message });
}

/** 412 `{"message":"412 Precondition Failed"}`. */
export function preconditionFailed(): HttpError {
  return new HttpError(412, { message: "412 Precondition Failed" });
}

/** 422 `{"message": [...full messages]}` or `{"message":"422 Unprocessable Entity"}` when given nothing. */
export function unprocessable(messages?: string[]): HttpError {
  return new HttpError(422, { message: messages ?? "422 Unprocessable Entity" });
}

/** 500 `{"message":"500 Internal Server Error"}`. */
export function internalError(): HttpError {
  return new HttpError(500, { message: "500 Internal Server Error" });
}

/**
 * Ruby 2.x `Hash#inspect` of a validation-error hash, as embedded by "Failed to save group ..." messages:
 * `{:path=>["has already been taken"]}`.
 */
export function rubyInspect(errors: Record<string, string[]>): string {
  const parts = Object.entries(errors).map(
    ([key, msgs]) => `:${key}=>[${msgs.map((m) => JSON.stringify(m)).join(", ")}]`,
  );
  return `{${parts.join(", ")}}`;
}
