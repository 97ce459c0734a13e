import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterAll, describe, expect, it } from "vitest";
import { ApiClient } from "../../src/api/index.js";
import { addConnectionOptions, type ConnectionFlags, resolveConnection } from "../../src/cli/connection.js";
import { json, startServer } from "../api/server.js";

const dir = mkdtempSync(join(tmpdir(), "forgeform-conn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Parses argv through a command with the connection options, as a real command would. */
function parse(args: string[]): ConnectionFlags {
  const cmd = addConnectionOptions(new Command("plan"))
    .exitOverride()
    .configureOutput({ writeErr: () => {}, writeOut: () => {} })
    .action(() => {});
  cmd.parse(args, { from: "user" });
  return cmd.opts<ConnectionFlags>();
}

describe("addConnectionOptions", () => {
  it("adds every connection flag", () => {
    const flags = parse([
      "--url",
      "https://gitlab.example.com",
      "--token",
      "t0ken-value",
      "--ca-file",
      "/etc/ca.pem",
      "--insecure-http",
      "--timeout",
      "5000",
      "--concurrency",
      "4",
      "--max-attempts",
      "3",
      "--max-rate",
      "600/min",
      "--debug",
      "--no-progress",
    ]);
    expect(flags).toEqual({
      url: "https://gitlab.example.com",
      token: "t0ken-value",
      caFile: "/etc/ca.pem",
      insecureHttp: true,
      timeout: 5000,
      concurrency: 4,
      maxAttempts: 3,
      maxRate: 600,
      debug: true,
      progress: false,
    });
    // Progress is on unless turned off.
    expect(parse([]).progress).toBe(true);
    expect(parse(["--token-file", "/run/secrets/token"]).tokenFile).toBe("/run/secrets/token");
  });

  it("rejects a number flag that is not a positive whole number", () => {
    expect(() => parse(["--concurrency", "0"])).toThrow(
      /--concurrency needs a whole number from 1 to 256, got "0"/,
    );
    expect(() => parse(["--timeout", "soon"])).toThrow(/--timeout needs a whole number/);
  });

  it("reads --max-rate as requests a minute, a second or an hour", () => {
    expect(parse(["--max-rate", "600/min"]).maxRate).toBe(600);
    expect(parse(["--max-rate", "600"]).maxRate).toBe(600);
    expect(parse(["--max-rate", "10/s"]).maxRate).toBe(600);
    expect(parse(["--max-rate", "7200/h"]).maxRate).toBe(120);
    expect(parse(["--max-rate", "30 / hour"]).maxRate).toBe(0.5);
    for (const bad of ["0/min", "fast", "10/day", "-5"]) {
      expect(() => parse(["--max-rate", bad]), bad).toThrow(/--max-rate needs requests per minute/);
    }
    expect(
      resolveConnection({ url: "https://x.example.com", token: "t", maxRate: "10/s" }).maxRatePerMinute,
    ).toBe(600);
    expect(() => resolveConnection({ url: "https://x.example.com", token: "t", maxRate: "lots" })).toThrow(
      /--max-rate needs requests per minute/,
    );
  });
});

describe("resolveConnection", () => {
  const env = {
    FORGEFORM_URL: "https://env.example.com",
    FORGEFORM_TOKEN: "env-token-value",
    FORGEFORM_SCIM_TOKEN: "env-scim-token",
  };

  it("takes URL and tokens from the environment", () => {
    expect(resolveConnection({}, env)).toEqual({
      url: "https://env.example.com",
      token: "env-token-value",
      scimToken: "env-scim-token",
    });
  });

  it("lets flags override the environment", () => {
    const options = resolveConnection(
      parse([
        "--url",
        "https://flag.example.com",
        "--token",
        "flag-token",
        "--timeout",
        "1000",
        "--max-attempts",
        "2",
      ]),
      env,
    );
    expect(options).toMatchObject({
      url: "https://flag.example.com",
      token: "flag-token",
      timeoutMs: 1000,
      maxAttempts: 2,
    });
  });

  it("reads and trims --token-file, which overrides FORGEFORM_TOKEN", () => {
    const file = join(dir, "token");
    writeFileSync(file, "  file-token-value\n");
    expect(resolveConnection(parse(["--token-file", file]), env).token).toBe("file-token-value");
  });

  it("explains an unreadable or empty token file", () => {
    expect(() => resolveConnection({ tokenFile: join(dir, "missing") }, env)).toThrow(
      /cannot read --token-file .*missing \(ENOENT\)/,
    );
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n");
    expect(() => resolveConnection({ tokenFile: empty }, env)).toThrow(/is empty/);
  });

  it("refuses both --token and --token-file", () => {
    expect(() => resolveConnection({ token: "a", tokenFile: "b" }, env)).toThrow(/only one of them/);
  });

  it("names the flag and the variable when the URL is missing", () => {
    expect(() => resolveConnection({}, { FORGEFORM_TOKEN: "x" })).toThrow(/--url <url> or set FORGEFORM_URL/);
  });

  it("names the flags and the variable when the token is missing", () => {
    expect(() => resolveConnection({ url: "https://a.example" }, {})).toThrow(
      /no access token: pass --token-file <file> or --token <token>, or set FORGEFORM_TOKEN/,
    );
    expect(() => resolveConnection({ url: "https://a.example" }, { FORGEFORM_TOKEN: "  " })).toThrow(
      /no access token/,
    );
  });

  it("sends --debug lines to the given sink, and the result builds a working client", async () => {
    const server = await startServer((_req, res) => json(res, 200, { version: "13.12.0" }));
    const lines: string[] = [];
    try {
      const options = resolveConnection(
        parse(["--url", server.url, "--debug", "--concurrency", "2"]),
        env,
        (line) => lines.push(line),
      );
      expect(options.concurrency).toBe(2);
      const client = new ApiClient(options);
      expect(await client.get("/version")).toEqual({ version: "13.12.0" });
      await client.close();
      expect(server.seen[0]?.headers["private-token"]).toBe("env-token-value");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^GET \/api\/v4\/version -> 200 \(\d+ ms\)$/);
      // Closing sums the requests up.
      expect(lines[1]).toBe(
        "requests: 1 sent, 0 retries, 0 answered 429 (rate limited); 0 waited for their turn, holding the run back 0 ms; 0 collections re-read after a create's outcome was unknown",
      );
    } finally {
      await server.close();
    }
  });

  it("passes --ca-file through", () => {
    expect(resolveConnection({ caFile: "/etc/ca.pem" }, env).caFile).toBe("/etc/ca.pem");
  });
});
