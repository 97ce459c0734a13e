/**
 * Hostile-server probes: answers that are too big, too slow or broken end in a clear error that names the request
 * and what came back, and a --ca-file without a certificate stops the CLI before any request.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ApiClient, NetworkError, ResponseError } from "../../src/api/index.js";
import { json } from "../api/server.js";
import {
  bigBody,
  loginPage,
  malformedJson,
  manifest,
  probes,
  prose,
  redirect,
  TOKEN,
  TRIGGER_MANIFEST,
  trickle,
} from "./hostile-server.js";

const TRIGGERS = "GET /projects/acme/api/triggers";
const GROUP_MANIFEST = "version: 1\ngroups:\n  acme:\n    description: Acme\n";

const { start, connect } = probes();

describe("responses are bounded", () => {
  it("refuses a body larger than the limit while reading it, naming the request", async () => {
    const p = await start({ [TRIGGERS]: bigBody(8 * 1024 * 1024, false) });
    const result = await p.cli(["plan", "--max-response-mb", "1", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out)).toContain(
      "GET /projects/acme%2Fapi/triggers -> 200 OK: the response body is larger than the 1 MiB limit: not read. If the platform really answers this with that much, raise the limit with --max-response-mb",
    );
  });

  it("refuses a body whose Content-Length is over the limit before reading it", async () => {
    const p = await start({ [TRIGGERS]: bigBody(3 * 1024 * 1024, true) });
    const error = await connect(p, { maxResponseBytes: 1024 * 1024 })
      .list("/projects/acme%2Fapi/triggers")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResponseError);
    expect((error as Error).message).toContain("larger than the 1 MiB limit (3 MiB announced)");
  });

  it("times a request out as a whole, even when the server sends a byte at a time", async () => {
    // 40 bytes, one every 50 ms: two seconds of a body that is never idle for long.
    const p = await start({
      "GET /version": trickle(JSON.stringify({ version: "16.11.0-ee", r: "xxxxx" }), 50),
    });
    const result = await p.cli([
      "plan",
      "--timeout",
      "400",
      "--max-attempts",
      "1",
      manifest(TRIGGER_MANIFEST),
    ]);
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      "forgeform: GET /version -> no complete response within the 400 ms request timeout (--timeout)\n",
    );
  });
});

describe("broken answers get clear errors", () => {
  it("says which request returned malformed JSON", async () => {
    const p = await start({ "GET /version": malformedJson });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(
      /^forgeform: GET \/version -> 200 OK: the response \(content type application\/json\) is not valid JSON \(.+\); it begins "\{\\"version\\": \\"16\.11\.0-ee\\", \\"revis"\n$/,
    );
  });

  it("says an HTML sign-in page came back with status 200, and what to check", async () => {
    const p = await start({ "GET /version": loginPage });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      `forgeform: GET /version -> 200 OK: an HTML page ("Sign in · Example SSO") came back instead of JSON: check that --url / FORGEFORM_URL is the platform's own address (a sign-in page, proxy or portal may be answering in its place)\n`,
    );
  });

  it("names the request, the item and the field when a field has the wrong type", async () => {
    const p = await start({
      [TRIGGERS]: (_req, res) =>
        json(res, 200, [
          { id: 1, description: "nightly" },
          { id: 2, description: { evil: true } },
        ]),
    });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out)).toContain(
      'GET /projects/acme%2Fapi/triggers -> 200 OK: page 1, item 2: the field "description" is an object ({"evil":true}), not a string',
    );
  });

  it("names the request and the field when a group comes back without its path", async () => {
    const p = await start({ "GET /groups/acme": (_req, res) => json(res, 200, { id: "7", name: "acme" }) });
    const result = await p.cli(["plan", manifest(GROUP_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(prose(result.out + result.err)).toContain(
      'GET /groups/acme -> 200 OK: the field "id" is a string ("7"), not an integer',
    );
    expect(result.out + result.err).not.toContain("Cannot read properties");
  });

  it("names where a redirect points, without following it", async () => {
    const p = await start({ "GET /version": redirect("https://sso.example.com/login?next=/api/v4/version") });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      "forgeform: GET /version -> 302 Found: redirected to https://sso.example.com/login?next=/api/v4/version; forgeform does not follow redirects",
    );
  });

  it("refuses a --ca-file that holds no PEM certificate before sending anything", async () => {
    const p = await start({});
    const ca = join(manifest(TRIGGER_MANIFEST), "..", "ca.pem");
    writeFileSync(ca, "this is not a certificate\n");
    const result = await p.cli(["plan", "--ca-file", ca, manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    expect(result.err).toContain(
      `forgeform: the CA file ${ca} holds no PEM certificate (no -----BEGIN CERTIFICATE----- block)`,
    );
    expect(p.server.seen).toHaveLength(0);
  });

  it("refuses a --ca-file whose certificate block does not parse", async () => {
    const ca = join(manifest(TRIGGER_MANIFEST), "..", "ca.pem");
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydA==\n-----END CERTIFICATE-----\n");
    expect(() => new ApiClient({ url: "https://gitlab.example.com", token: TOKEN, caFile: ca })).toThrow(
      `the CA file ${ca}: certificate 1 of 1 cannot be read`,
    );
  });

  it("treats a POST whose answer cannot be read as lost (outcome unknown), not as failed", async () => {
    const p = await start({ "POST /projects/acme/api/triggers": loginPage });
    const error = await connect(p)
      .post("/projects/acme%2Fapi/triggers", { body: { description: "x" } })
      .catch((e: unknown) => e);
    expect((error as Error).name).toBe("OutcomeUnknownError");
    expect((error as Error).message).toContain(
      "POST /projects/acme%2Fapi/triggers: outcome unknown (POST /projects/acme%2Fapi/triggers -> 200 OK: an HTML page",
    );
    expect(error).not.toBeInstanceOf(NetworkError);
  });
});
