/**
 * How the client describes a successful answer that is not the JSON the platform sends: an HTML page (its title,
 * shortened at 80 characters), malformed JSON (its opening, whitespace folded, shortened at 80), and error answers
 * whose body is JSON without a JSON content type. Boundaries: 80 characters kept whole, 81 shortened.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApiClient, ApiError } from "../../src/api/index.js";
import { startServer, type TestServer } from "./server.js";

let server: TestServer | undefined;
let client: ApiClient | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = undefined;
  server = undefined;
});

/** The error message of a GET answered 200 (or `status`) with `body` under `type`. */
async function answered(body: string, type: string, status = 200): Promise<unknown> {
  server = await startServer((_req, res) => {
    res.statusCode = status;
    if (type) res.setHeader("Content-Type", type);
    res.end(body);
  });
  client = new ApiClient({ url: server.url, token: "t", maxAttempts: 1 });
  try {
    return await client.get("/version");
  } catch (error) {
    return error;
  }
}

async function messageOf(body: string, type: string, status = 200): Promise<string> {
  const error = await answered(body, type, status);
  expect(error).toBeInstanceOf(Error);
  return (error as Error).message;
}

const x = (n: number) => "x".repeat(n);

describe("an HTML page where JSON was expected", () => {
  it("names the page by its title, whitespace folded", async () => {
    const message = await messageOf(
      "<html><head><title lang='en'>  Sign\n   in \t to  SSO </title></head></html>",
      "text/html; charset=utf-8",
    );
    expect(message).toContain('an HTML page ("Sign in to SSO") came back instead of JSON');
  });

  it("keeps a title of 80 characters whole and shortens one of 81 to 79 and an ellipsis", async () => {
    expect(await messageOf(`<title>${x(80)}</title>`, "text/html")).toContain(`("${x(80)}")`);
    expect(await messageOf(`<title>${x(81)}</title>`, "text/html")).toContain(`("${x(79)}…")`);
  });

  it("says no title when the page has none, or an empty one", async () => {
    expect(await messageOf("<html><body>hi</body></html>", "text/html")).toContain(
      "an HTML page came back instead of JSON",
    );
    expect(await messageOf("<title> </title>", "text/html")).toContain(
      "an HTML page came back instead of JSON",
    );
  });

  it("takes an HTML content type at its word, whatever the body starts with", async () => {
    expect(await messageOf("Sign in required", "text/html")).toContain(
      "an HTML page came back instead of JSON",
    );
  });

  it("knows a page without a content type by its first character, after whitespace", async () => {
    expect(await messageOf("\n  <html><title>Portal</title></html>", "")).toContain(
      'an HTML page ("Portal")',
    );
    // Text that does not start with < is not taken for a page: it is reported as what it is.
    const text = await messageOf("x <html>", "");
    expect(text).not.toContain("HTML page");
    expect(text).toContain('it begins "x <html>"');
  });
});

describe("malformed JSON", () => {
  it("quotes its opening with whitespace folded, and names the content type without its parameters", async () => {
    const message = await messageOf('{"a":\n\n   1,,}', "application/json; charset=utf-8");
    expect(message).toContain("the response (content type application/json) is not valid JSON");
    expect(message).toContain('it begins "{\\"a\\": 1,,}"');
  });

  it("keeps an opening of 80 characters whole and shortens one of 81", async () => {
    expect(await messageOf(`{${x(79)}`, "application/json")).toContain(`it begins "{${x(79)}"`);
    expect(await messageOf(`{${x(80)}`, "application/json")).toContain(`it begins "{${x(78)}…"`);
  });

  it("leaves the content type out when there is none", async () => {
    const message = await messageOf("{oops", "");
    expect(message).toContain("the response is not valid JSON");
  });
});

describe("an error answer's body", () => {
  it("is read as JSON by its look when the content type is not HTML: a message in it is the platform's", async () => {
    const error = await answered('  {"message": "404 Project Not Found"}', "text/plain", 404);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).message).toContain("404 Project Not Found");
    expect((error as ApiError).body).toEqual({ message: "404 Project Not Found" });
  });

  it("is kept as text when it only looks like JSON under an HTML content type", async () => {
    const error = await answered('{"message": "x"}', "text/html", 404);
    expect((error as ApiError).body).toBe('{"message": "x"}');
  });

  it("reads a bare JSON value after whitespace as JSON, and text that starts like one but is not as text", async () => {
    expect(((await answered("  -1", "text/plain", 400)) as ApiError).body).toBe(-1);
    expect(((await answered("\ttrue", "text/plain", 400)) as ApiError).body).toBe(true);
    expect(((await answered("-x", "text/plain", 400)) as ApiError).body).toBe("-x");
    expect(((await answered("nullish", "text/plain", 400)) as ApiError).body).toBe("nullish");
  });
});
