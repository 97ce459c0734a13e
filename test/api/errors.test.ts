import { afterEach, describe, expect, it } from "vitest";
import { ApiClient, ApiError, type ClientOptions, platformMessageOf } from "../../src/api/index.js";
import { startServer, type TestServer } from "./server.js";

describe("platformMessageOf", () => {
  it.each([
    ["a message string", { message: "404 Project Not Found" }, "404 Project Not Found"],
    [
      "a validation hash",
      { message: { name: ["can't be blank"], path: ["has already been taken", "is too short"] } },
      "name: can't be blank; path: has already been taken, is too short",
    ],
    [
      "a validation hash with a leading space",
      { message: { cron: [" is invalid syntax"] } },
      "cron: is invalid syntax",
    ],
    [
      "an array of full messages",
      { message: ["Deploy access levels is invalid", "Name has already been taken"] },
      "Deploy access levels is invalid, Name has already been taken",
    ],
    ["a Grape error", { error: "title is missing" }, "title is missing"],
    [
      "an OAuth error with a description",
      {
        error: "invalid_token",
        error_description: "Token was revoked. You have to re-authorize from the user.",
      },
      "invalid_token: Token was revoked. You have to re-authorize from the user.",
    ],
    [
      "a SCIM error",
      { schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], detail: "Unsupported Filter", status: 412 },
      "Unsupported Filter",
    ],
    [
      "an app-level rate limit",
      { message: { error: "This endpoint has been requested too many times. Try again later." } },
      "This endpoint has been requested too many times. Try again later.",
    ],
    ["Rack::Attack plain text", "Retry later\n", "Retry later"],
    [
      "an HTML error page",
      "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>",
      "502 Bad Gateway",
    ],
  ])("reads %s", (_what, body, expected) => {
    expect(platformMessageOf(body, 400)).toBe(expected);
  });

  it("falls back to the status text for an empty body", () => {
    expect(platformMessageOf(null, 409)).toBe("Conflict");
  });

  it("quotes a message of 500 characters whole, and clips one of 501", () => {
    const text = (n: number) => "x".repeat(n);
    expect(platformMessageOf({ message: text(500) }, 400)).toBe(text(500));
    expect(platformMessageOf({ message: text(501) }, 400)).toBe(`${text(499)}…`);
    expect(platformMessageOf(text(501), 400)).toBe(`${text(499)}…`);
  });
});

describe("ApiError from real responses", () => {
  let server: TestServer | undefined;
  let client: ApiClient | undefined;
  afterEach(async () => {
    await client?.close();
    await server?.close();
  });

  async function failWith(
    status: number,
    body: unknown,
    contentType = "application/json",
    options: Partial<ClientOptions> = {},
  ) {
    server = await startServer((_req, res) => {
      res.writeHead(status, { "content-type": contentType });
      res.end(typeof body === "string" ? body : JSON.stringify(body));
    });
    // One attempt unless a test says otherwise: these tests read the error, not the retries.
    client = new ApiClient({
      url: server.url,
      token: "glpat-SECRETSECRET",
      scimToken: "scim-SECRET-abc",
      maxAttempts: 1,
      ...options,
    });
    return client;
  }

  it("reads like METHOD path -> status text: platform message, with the fields set", async () => {
    const api = await failWith(400, { message: { cron: [" is invalid syntax"] } });
    const error = await api
      .put("/projects/acme%2Fapi/pipeline_schedules/3", { body: { cron: "bad" } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    const e = error as ApiError;
    expect(e.message).toBe(
      "PUT /projects/acme%2Fapi/pipeline_schedules/3 -> 400 Bad Request: cron: is invalid syntax",
    );
    expect(e.status).toBe(400);
    expect(e.method).toBe("PUT");
    expect(e.path).toBe("/projects/acme%2Fapi/pipeline_schedules/3");
    expect(e.platformMessage).toBe("cron: is invalid syntax");
    expect(e.body).toEqual({ message: { cron: [" is invalid syntax"] } });
  });

  it("turns a 401 into advice about the token", async () => {
    const api = await failWith(401, { message: "401 Unauthorized" });
    const e = (await api.get("/groups").catch((x: unknown) => x)) as ApiError;
    expect(e.message).toBe(
      "GET /groups -> 401 Unauthorized: the token was rejected: check FORGEFORM_TOKEN / --token " +
        "(it may be expired or revoked) (platform said: 401 Unauthorized)",
    );
  });

  it("turns a SCIM 401 into advice about the SCIM token", async () => {
    const api = await failWith(401, { message: "401 Unauthorized" });
    const e = (await api.get("/groups/acme/Users", { scim: true }).catch((x: unknown) => x)) as ApiError;
    expect(e.message).toMatch(/the SCIM token was rejected: check FORGEFORM_SCIM_TOKEN/);
  });

  it("turns a 403 into advice about the role", async () => {
    const api = await failWith(403, {
      error: "insufficient_scope",
      error_description: "The request requires higher privileges than provided by the access token.",
      scope: "api",
    });
    const e = (await api
      .post("/broadcast_messages", { body: { message: "hi" } })
      .catch((x: unknown) => x)) as ApiError;
    expect(e.message).toBe(
      "POST /broadcast_messages -> 403 Forbidden: the token's user is not allowed to do this " +
        "(administrator or higher role needed?) (platform said: insufficient_scope: The request requires higher " +
        "privileges than provided by the access token.)",
    );
  });

  it("turns a 404 into 'not found, or not visible'", async () => {
    const api = await failWith(404, { message: "404 Project Not Found" });
    const e = (await api.get("/projects/acme%2Fsecret").catch((x: unknown) => x)) as ApiError;
    expect(e.hint).toBe("not found, or not visible to this token's user");
    expect(e.message).toBe(
      "GET /projects/acme%2Fsecret -> 404 Not Found: not found, or not visible to this token's user " +
        "(platform said: 404 Project Not Found)",
    );
  });

  it("reads a plain-text 429 from Rack::Attack", async () => {
    // A 429 is retried (8 attempts) before it is an error: with millisecond backoffs, not the real ones, which
    // add up to about 25 s on average and often passed the test's 30 s.
    const api = await failWith(429, "Retry later\n", "text/plain", {
      maxAttempts: 8,
      backoffBaseMs: 1,
      backoffCapMs: 5,
    });
    const e = (await api.get("/groups").catch((x: unknown) => x)) as ApiError;
    expect(e.status).toBe(429);
    expect(e.platformMessage).toBe("Retry later");
    expect(e.body).toBe("Retry later\n");
  });

  it("reads a SCIM error body", async () => {
    const api = await failWith(
      409,
      {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
        detail: "Email has already been taken",
        status: 409,
      },
      "application/scim+json",
    );
    const e = (await api
      .patch("/groups/acme/Users/u1", { scim: true, body: { Operations: [] } })
      .catch((x: unknown) => x)) as ApiError;
    expect(e.message).toBe("PATCH /groups/acme/Users/u1 -> 409 Conflict: Email has already been taken");
  });

  it("never shows the token, even when the platform echoes it or the query carries it", async () => {
    const api = await failWith(400, {
      message: 'Failed to save {:token=>"glpat-SECRETSECRET"}',
      echo: { "glpat-SECRETSECRET": "scim-SECRET-abc" },
    });
    const e = (await api
      .put("/projects/1/hooks/2?private_token=glpat-SECRETSECRET", { body: {} })
      .catch((x: unknown) => x)) as ApiError;
    const everything = JSON.stringify({
      m: e.message,
      p: e.path,
      pm: e.platformMessage,
      b: e.body,
      s: e.stack,
    });
    expect(everything).not.toContain("glpat-SECRETSECRET");
    expect(everything).not.toContain("scim-SECRET-abc");
    expect(e.platformMessage).toContain("[REDACTED]");
  });

  it("never shows a token from the ApiClient object itself", async () => {
    const api = await failWith(200, []);
    const { inspect } = await import("node:util");
    expect(inspect(api, { depth: 5 })).not.toContain("glpat-SECRETSECRET");
    expect(JSON.stringify(api)).not.toContain("glpat-SECRETSECRET");
  });
});
