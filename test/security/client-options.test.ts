/**
 * Probes of the numbers a caller gives and of the token's secrecy: a numeric flag past what a timer or a string
 * can hold is refused at start with a clear error (Node would cut a 3,000,000,000 ms timeout to 1 ms), and a
 * server that echoes the token in another case still never gets it printed.
 */
import { describe, expect, it } from "vitest";
import { ApiClient, ClientConfigError } from "../../src/api/index.js";
import { parseLatency } from "../../src/sandbox/faults.js";
import { runCli } from "../integration/helpers.js";
import { errorSaying, manifest, probes, prose, TOKEN, TRIGGER_MANIFEST } from "./hostile-server.js";

const { start } = probes();

describe("numeric options are bounded", () => {
  it.each([
    ["--timeout", "3000000000", "--timeout needs a whole number from 1 to 86400000"],
    ["--concurrency", "100000", "--concurrency needs a whole number from 1 to 256"],
    ["--max-attempts", "1000", "--max-attempts needs a whole number from 1 to 100"],
    ["--max-response-mb", "100000", "--max-response-mb needs a whole number from 1 to 500"],
    ["--max-list-mb", "99999999", "--max-list-mb needs a whole number from 1 to 16384"],
  ])("%s %s is refused at start, before any request", async (flag, value, message) => {
    const p = await start({});
    const result = await p.cli(["plan", flag, value, manifest(TRIGGER_MANIFEST)]);
    expect(result.code).not.toBe(0);
    expect(result.err).toContain(`${message}, got "${value}"`);
    expect(p.server.seen).toHaveLength(0);
  });

  it("the same bounds hold for the library's options", () => {
    expect(() => new ApiClient({ url: "https://gitlab.example.com", timeoutMs: 3_000_000_000 })).toThrow(
      new ClientConfigError("timeoutMs must be a number from 1 to 86,400,000, got 3000000000"),
    );
    expect(() => new ApiClient({ url: "https://gitlab.example.com", maxRetryWaitMs: 2 ** 31 })).toThrow(
      /maxRetryWaitMs must be a number from 0 to 86,400,000/,
    );
  });

  it("the sandbox's latency is bounded too", async () => {
    expect(() => parseLatency("3000000000")).toThrow("must be from 0 to 60000 ms");
    const result = await runCli(["sandbox", "--port", "0", "--latency", "10-3000000000"], {});
    expect(result.code).not.toBe(0);
    expect(result.err).toContain('latency "10-3000000000" must be from 0 to 60000 ms');
  });
});

describe("the token", () => {
  it("is masked where the server echoes it upper-cased, lower-cased or URL-encoded", async () => {
    const echo = `bad token ${TOKEN.toUpperCase()} / ${TOKEN.toLowerCase()} / ${encodeURIComponent(TOKEN)}`;
    const p = await start({ "GET /version": errorSaying(echo, 401) });
    const result = await p.cli(["plan", manifest(TRIGGER_MANIFEST)]);
    expect(result.code).toBe(1);
    const text = (result.out + result.err).toLowerCase();
    expect(text).not.toContain(TOKEN.toLowerCase());
    expect(result.err).toContain("bad token [REDACTED] / [REDACTED] / [REDACTED]");
  });
});

describe("a value of an env reference that the server echoes", () => {
  const SECRET = "s3cret-Value-From-Env-9";

  it("is masked in the apply's outcome and in --debug, wherever the server puts it", async () => {
    // A platform that answers the create by quoting what it was sent, as some validation errors do.
    const p = await start({
      "GET /admin/ci/variables": (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end("[]");
      },
      "POST /admin/ci/variables": (req, res) =>
        errorSaying(`value is invalid: ${req.body}`)(req, res, undefined as never),
    });
    const file = manifest(`version: 1
instance:
  unmanaged: { groups: ignore }
  variables:
    - key: DEPLOY_PASSWORD
      value: \${env:DEPLOY_PASSWORD}
`);
    const result = await p.cli(["apply", "--yes", "--debug", file], { DEPLOY_PASSWORD: SECRET });
    expect(p.seenOn("POST /admin/ci/variables")).toBe(1);
    expect(result.code).toBe(1);
    // The failure is said, with what the server answered, its value masked.
    expect(prose(result.out + result.err)).toContain('instance.variable["DEPLOY_PASSWORD"]: failed');
    expect(result.out + result.err).toContain("value is invalid");
    expect(result.out + result.err).not.toContain(SECRET);
  });
});
